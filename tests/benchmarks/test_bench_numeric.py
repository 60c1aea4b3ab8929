"""benchmarks/bench_numeric.py runs end to end on a small numeric task both sides read (its figures are
not checked: they are measurements; its bookkeeping is)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("unified_planning")

from benchmarks import bench_numeric  # noqa: E402

DOMAIN = """(define (domain tanks)
  (:requirements :typing :numeric-fluents)
  (:types tank)
  (:functions (level ?t - tank) (cap ?t - tank))
  (:action fill :parameters (?t - tank)
    :precondition (<= (+ (level ?t) 1) (cap ?t))
    :effect (increase (level ?t) 1))
  (:action drain :parameters (?t - tank)
    :precondition (>= (level ?t) 1)
    :effect (decrease (level ?t) 1)))
"""
PROBLEM = """(define (problem two) (:domain tanks)
  (:objects a b - tank)
  (:init (= (level a) 0) (= (level b) 2) (= (cap a) 3) (= (cap b) 3))
  (:goal (and (= (level a) 3) (= (level b) 0))))
"""


@pytest.fixture()
def files(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "domain.pddl").write_text(DOMAIN)
    (tmp_path / "problem.pddl").write_text(PROBLEM)
    return tmp_path / "domain.pddl", tmp_path / "problem.pddl"


def test_every_timed_load_reads_a_text_of_its_own(files: tuple[Path, Path], tmp_path: Path) -> None:
    pairs = bench_numeric.fresh_copies(*files, tmp_path / "copies", 3)
    texts = [d.read_text() + p.read_text() for d, p in pairs]
    assert len(set(texts)) == 3
    assert all(t.startswith(DOMAIN) for t in (d.read_text() for d, _ in pairs))


def test_measure_gives_every_figure_and_the_two_verdicts_agree(files: tuple[Path, Path],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    for name, runs in (("OURS_RUNS", 8), ("UP_RUNS", 1), ("LOAD_RUNS", 2), ("UP_LOAD_RUNS", 1), ("COLD_RUNS", 1)):
        monkeypatch.setattr(bench_numeric, name, runs)
    out = bench_numeric.measure(*files, steps=6, seed=0)
    assert out is not None and out["steps"] >= 2
    assert out["agree"] == 1.0
    for key in ("ours_steps_s", "up_steps_s", "ours_load_s", "up_load_s", "ours_check_s", "up_check_s",
                "ours_both_s", "ours_cold_s"):
        assert out[key] > 0, key


def test_interleaved_repeats_take_turns_and_run_every_repeat() -> None:
    calls: list[str] = []
    jobs = {name: (lambda name=name: calls.append(name), runs) for name, runs in (("pgt", 7), ("up", 2))}
    best = bench_numeric.interleaved_best(jobs, rounds=3)
    assert calls.count("pgt") == 7 and calls.count("up") == 2
    # pgt's repeats are spread over the rounds, between UP's, not run in one block
    assert calls == ["pgt"] * 3 + ["up"] + ["pgt"] * 2 + ["up"] + ["pgt"] * 2
    assert set(best) == {"pgt", "up"} and all(v >= 0 for v in best.values())


def test_stages_time_each_part_of_one_validation(files: tuple[Path, Path]) -> None:
    from benchmarks import bench_numeric_stages

    out = bench_numeric_stages.stages(*files, steps=6, seed=0, runs=3)
    parts = [out[s] for s in ("domain", "problem", "task", "check")]
    assert all(p > 0 for p in parts) and out["steps"] >= 2 and out["schemas"] == 2
    # each stage's best comes from some validation, whose total holds it: bests sum to no more than the best total
    assert sum(parts) <= out["total"] + 1e-9
