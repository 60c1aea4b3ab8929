"""benchmarks/bench_own_domains.py on a mirror built here: one row per domain, and --keep keeps the episodes."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from benchmarks import bench_own_domains

OWN = Path(__file__).resolve().parents[1] / "studies" / "data" / "own"


def _bare_mirror(work: Path, bare: Path) -> Path:
    """``work`` committed and cloned bare to ``bare``, as the benchmark's ``--git`` reads a fetched mirror."""
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(work)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "towers"], check=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(bare)], check=True)
    return bare


@pytest.fixture
def mirror(tmp_path: Path) -> Path:
    """A bare git repository laid out as AI-Planning/classical-domains, with one small domain of ours."""
    work = tmp_path / "work"
    (work / "classical" / "towers").mkdir(parents=True)
    shutil.copy(OWN / "towers.pddl", work / "classical" / "towers" / "domain.pddl")
    shutil.copy(OWN / "towers-2.pddl", work / "classical" / "towers" / "p02.pddl")
    return _bare_mirror(work, tmp_path / "mirror.git")


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


def _towers_problem(discs: int, padding: int = 0) -> str:
    """A towers problem with ``discs`` discs on peg1 (``padding`` spaces make a larger file of the same size)."""
    ds = [f"d{i}" for i in range(1, discs + 1)]
    smaller = [f"(smaller {p} {d})" for p in ("peg1", "peg2", "peg3") for d in ds]
    smaller += [f"(smaller {b} {a})" for i, a in enumerate(ds) for b in ds[i + 1:]]
    stack = [f"(on {ds[i]} {ds[i + 1]})" for i in range(discs - 1)] + [f"(on {ds[-1]} peg1)"]
    return (f"(define (problem t{discs}) (:domain towers) (:objects peg1 peg2 peg3 {' '.join(ds)}){' ' * padding}"
            f" (:init {' '.join(smaller)} (clear d1) (clear peg2) (clear peg3) {' '.join(stack)})"
            f" (:goal (and {' '.join(s.replace('peg1', 'peg3') for s in stack)})))")


def test_spread_takes_problems_across_sizes_not_the_smallest_files(tmp_path: Path) -> None:
    """Three of the five smallest sizes (object counts): 1, 3 and 5 discs; a second file of one size
    (t1b, larger) counts once. ``smallest`` takes the three smallest files: 1, 1 and 2 discs."""
    work = tmp_path / "work"
    (work / "classical" / "towers").mkdir(parents=True)
    shutil.copy(OWN / "towers.pddl", work / "classical" / "towers" / "domain.pddl")
    for discs in range(1, 8):
        (work / "classical" / "towers" / f"t{discs}.pddl").write_text(_towers_problem(discs))
    (work / "classical" / "towers" / "t1b.pddl").write_text(_towers_problem(1, padding=40))
    bare = _bare_mirror(work, tmp_path / "mirror.git")
    _, folder, chosen = bench_own_domains.extract(bare, "towers", 3, tmp_path / "spread")
    assert chosen == ["t1.pddl", "t3.pddl", "t5.pddl"]
    assert sorted(p.name for p in folder.iterdir()) == chosen
    assert bench_own_domains.extract(bare, "towers", 3, tmp_path / "small", "smallest")[2] == [
        "t1.pddl", "t1b.pddl", "t2.pddl"]
