"""The two-tree benchmarks (``benchmarks/bench_ab_*.py`` over ``benchmarks/ab_trees.py``) run end to end: each
tree in its own child process, figures for both, and a folder without the project refused by name."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import bench_ab_reading, bench_ab_validate
from toolkit.domains import shipped_domain, shipped_problem

REPO = Path(__file__).resolve().parents[2]
PAIR = f"{shipped_domain('blocksworld')},{shipped_problem('blocksworld', 'simple_problem_0')}"


def test_reading_prints_every_stage_for_both_trees(capsys) -> None:
    assert bench_ab_reading.main(["--before", str(REPO), "--after", str(REPO), "--rounds", "1", "--copies", "5",
                                  "--pair", PAIR]) == 0
    out = capsys.readouterr().out.splitlines()
    row = next(line for line in out if not line.startswith("#") and line.split()[0] not in ("problem",))
    figures = row.split()[1:]
    assert len(figures) == 3 * len(bench_ab_reading.STAGES)  # before, after, ratio per stage
    assert all(float(f) > 0 for f in figures[0::3] + figures[1::3])
    assert {line.split(":")[0][2:] for line in out if line.startswith("# ") and ": median" in line} == set(
        bench_ab_reading.STAGES)


def test_validate_prints_a_line_per_round_and_tree(capsys) -> None:
    assert bench_ab_validate.main(["--before", str(REPO), "--after", str(REPO), "--rounds", "1"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()[2:]]
    assert [r[:2] for r in rows] == [["1", "before"], ["1", "after"]]
    assert all(float(r[2]) > 0 for r in rows)


@pytest.mark.parametrize("script", [bench_ab_reading, bench_ab_validate], ids=lambda s: s.__name__.split(".")[-1])
def test_a_folder_without_the_project_is_refused(script, tmp_path) -> None:
    args = ["--before", str(tmp_path), "--after", str(REPO)]
    with pytest.raises(SystemExit, match="no toolkit/ there"):
        script.main(args + (["--pair", PAIR] if script is bench_ab_reading else []))
