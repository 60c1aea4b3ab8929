"""benchmarks/bench_own_domains.py on a mirror built here: one row per domain, and --keep keeps the episodes."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from benchmarks import bench_own_domains

OWN = Path(__file__).resolve().parents[1] / "studies" / "data" / "own"


@pytest.fixture
def mirror(tmp_path: Path) -> Path:
    """A bare git repository laid out as AI-Planning/classical-domains, with one small domain of ours."""
    work = tmp_path / "work"
    (work / "classical" / "towers").mkdir(parents=True)
    shutil.copy(OWN / "towers.pddl", work / "classical" / "towers" / "domain.pddl")
    shutil.copy(OWN / "towers-2.pddl", work / "classical" / "towers" / "p02.pddl")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(work)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "towers"], check=True)
    bare = tmp_path / "mirror.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(bare)], check=True)
    return bare


def test_one_run_prints_the_three_protocols_per_domain_and_keeps_the_episodes(mirror: Path, tmp_path: Path,
                                                                             capsys) -> None:
    keep = tmp_path / "kept"
    assert bench_own_domains.main(["--git", str(mirror), "--domains", "towers", "--problems", "1", "--seeds", "1",
                                   "--workers", "1", "--keep", str(keep)]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("| towers |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1] == "p02" and cells[2] == "1" and cells[3] == "1.00" and cells[10] == "0"  # one episode, oracle succeeds, no static q
    for protocol in ("oracle", "pgt", "viplan"):
        assert (keep / "towers" / "runs" / protocol / "episodes.jsonl").is_file()
    # a folder that already holds runs is refused (resuming would mix two runs' episodes)
    assert bench_own_domains.main(["--git", str(mirror), "--domains", "towers", "--keep", str(keep)]) == 2
    assert "not empty" in capsys.readouterr().err
