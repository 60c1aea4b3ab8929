"""benchmarks/bench_domain_load.py: two trees' parse_domain timed in alternating child processes, with ratios."""

from __future__ import annotations

from pathlib import Path

from benchmarks import bench_domain_load
from toolkit.domains import shipped_domain

REPO = Path(__file__).resolve().parents[2]


def test_it_prints_each_files_figures_and_the_ratio(capsys) -> None:
    domain = str(shipped_domain("blocksworld"))
    assert bench_domain_load.main(["--before", str(REPO), "--after", str(REPO), "--rounds", "1", "--calls", "3",
                                   domain]) == 0
    out = capsys.readouterr().out.splitlines()
    row = next(line for line in out if line.startswith("blocksworld/"))
    before, after, ratio = row.split()[1:]
    assert float(before) > 0 and float(after) > 0 and ratio.endswith("x")
    assert out[-1].startswith("# 1 files: before/after geometric mean")


def test_a_tree_without_the_project_is_refused(tmp_path) -> None:
    try:
        bench_domain_load.main(["--before", str(tmp_path), "--after", str(REPO), "x.pddl"])
    except SystemExit as exc:
        assert "no toolkit/ there" in str(exc)
    else:
        raise AssertionError("an empty folder was taken for a tree")
