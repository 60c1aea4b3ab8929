"""The differential benchmark's runs: each side in its own process, under the caller's memory cap and budget.

labyrinth-sat23/opt23-adl p20 ran out of memory with pgt's and FD's groundings in
one process, recharging-robots p19/p20 passed pgt's fixed 2,000,000 ground-action
budget, and a run could only use one core. These tests check, on small made-up
domains, that each side's process reports its own seconds and peak memory, that FD
runs (and is recorded) where pgt's side failed, that ``--memory-gb`` and
``--max-actions`` reach the sides, that workers append whole records, and which
kept records a run takes again.
"""

from __future__ import annotations

import importlib.util
import json
import threading
from pathlib import Path

import pytest

from benchmarks.grounding_diff_run import RunOptions, append_record, compare_problem, kept_records, run_step

HAS_FD = importlib.util.find_spec("fast_downward") is not None and \
    importlib.util.find_spec("fast_downward.translate") is not None
needs_fd = pytest.mark.skipif(not HAS_FD, reason="needs Fast Downward's translator (the fast-downward-translate package)")

SMALL = """(define (domain walk) (:requirements :typing)
  (:types node)
  (:predicates (at ?n - node) (edge ?a ?b - node))
  (:action go :parameters (?a ?b - node) :precondition (and (at ?a) (edge ?a ?b))
    :effect (and (at ?b) (not (at ?a)))))
"""
SMALL_PROBLEM = """(define (problem w) (:domain walk) (:objects a b c - node)
  (:init (at a) (edge a b) (edge b c)) (:goal (at c)))
"""
# Five free parameters over 40 objects: 10^8 ground actions, none of them pruned. It grounds until killed.
HUGE = """(define (domain huge) (:requirements :typing)
  (:types o)
  (:predicates (p ?a ?b ?c ?d ?e - o))
  (:action make :parameters (?a ?b ?c ?d ?e - o) :precondition (and) :effect (p ?a ?b ?c ?d ?e)))
"""
HUGE_PROBLEM = ("(define (problem h) (:domain huge) (:objects " + " ".join(f"o{i}" for i in range(40))
                + " - o) (:init) (:goal (p o1 o1 o1 o1 o1)))")


def _files(folder: Path, domain: str, problem: str) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "domain.pddl").write_text(domain)
    (folder / "p01.pddl").write_text(problem)
    return folder / "domain.pddl", folder / "p01.pddl"


@needs_fd
def test_each_side_runs_in_its_own_process_and_the_record_says_its_seconds_and_peak(tmp_path: Path) -> None:
    dom, prob = _files(tmp_path, SMALL, SMALL_PROBLEM)
    ballast = bytearray(400 << 20)  # this process holds 400 MB; a side run in it (or forked from it) would too
    ballast[::4096] = b"x" * len(ballast[::4096])
    rec = compare_problem(dom, prob, timeout=120)
    assert rec["pgt_actions"] == rec["fd_actions"] == 2 and rec["counts"] == {}
    for side in ("pgt", "fd"):
        assert rec[side]["s"] >= 0 and rec[f"{side}_peak_mb"] == rec[side]["peak_mb"]
        assert 0 < rec[side]["peak_mb"] < 300  # a fresh process's own peak
    del ballast


@needs_fd
def test_the_ground_action_budget_is_the_callers_and_fd_runs_where_pgt_gave_up(tmp_path: Path) -> None:
    dom, prob = _files(tmp_path, SMALL, SMALL_PROBLEM)
    rec = compare_problem(dom, prob, timeout=120, max_actions=1)
    assert rec["error"].startswith("pgt: grounding gave up: more than 1 relaxed-reachable ground actions")
    assert rec["fd"]["actions"] == 2 and rec["fd"]["peak_mb"] > 0  # FD alone, measured
    assert "pgt_actions" not in rec  # not compared


def test_a_step_that_died_at_its_cap_is_out_of_memory_however_python_said_it() -> None:
    from benchmarks.grounding_diff_run import crash_record

    for last in ("MemoryError", "OSError: [Errno 12] Cannot allocate memory",
                 "SystemError: error return without exception set"):
        rec = crash_record("", f"Traceback (most recent call last):\n  ...\n{last}\n", 1, 0.25)
        assert rec == {"error": "out of memory (0.25 GB address space)"}, last
    assert crash_record("", "Traceback ...\nValueError: bad\n", 1, 0.25) == {"error": "ValueError: bad"}
    assert crash_record("", "", -9, 0.25) == {"error": "exit -9"}


def test_each_side_runs_under_the_memory_cap_it_is_given(tmp_path: Path) -> None:
    dom, prob = _files(tmp_path, HUGE, HUGE_PROBLEM)
    rec = run_step("pgt", [str(dom), str(prob), str(tmp_path / "pgt.pickle")], timeout=120, memory_gb=0.25,
                   max_actions=10**9)
    assert rec["error"] == "out of memory (0.25 GB address space)", rec
    assert 0 < rec["peak_mb"] <= 256, rec


@needs_fd
def test_a_side_over_the_limit_is_killed_with_its_peak_and_the_other_side_still_runs(tmp_path: Path) -> None:
    dom, prob = _files(tmp_path, HUGE, HUGE_PROBLEM)
    rec = compare_problem(dom, prob, timeout=2, max_actions=10**9)
    assert rec["error"] == "over 2s" and rec["reached"] == "pgt not done" and rec["peak_mb"] > 0
    assert "fd" in rec  # FD's side ran too (here over the limit as well): the record says how it fared


def test_kept_records_run_again_what_a_larger_limit_or_cap_or_rerun_may_change(tmp_path: Path) -> None:
    out = tmp_path / "diff.jsonl"
    recs = [{"case": "a", "error": "over 300s", "reached": "pgt not done", "peak_mb": 80},
            {"case": "b", "error": "out of memory (5.72 GB address space)", "reached": "pgt not done", "peak_mb": 5800},
            {"case": "c", "pgt_actions": 1, "fd_actions": 1, "counts": {}},
            {"case": "d", "error": "pgt: grounding gave up: more than 2,000,000 relaxed-reachable ground actions"},
            {"case": "e", "error": "over 20s", "reached": "pgt not done", "peak_mb": 80}]
    out.write_text("".join(json.dumps(r) + "\n" for r in recs) + '{"case": "cut')
    assert set(kept_records(out, 300, RunOptions(memory_gb=5.0))) == {"a", "b", "c"}
    assert set(kept_records(out, 300, RunOptions(memory_gb=64))) == {"a", "c"}  # a larger cap: b again
    assert set(kept_records(out, 1800, RunOptions(memory_gb=5.0))) == {"b", "c"}  # a longer limit: a again
    assert set(kept_records(out, 300, RunOptions(memory_gb=5.0, rerun=frozenset({"c"})))) == {"a", "b"}
    assert set(kept_records(out, 300, RunOptions(memory_gb=64), no_run=True)) == set("abcde")


def test_records_appended_by_many_workers_are_whole_lines(tmp_path: Path) -> None:
    out = tmp_path / "diff.jsonl"
    big = {"diffs": [["action", "FD", "(x" + " o" * 2000 + ")", "pgt more precise", "why"]] * 20}

    def write(k: int) -> None:
        for i in range(25):
            append_record(out, {"case": f"{k}/{i}", **big})

    threads = [threading.Thread(target=write, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = out.read_text().splitlines()
    assert sorted(json.loads(line)["case"] for line in lines) == sorted(f"{k}/{i}" for k in range(8) for i in range(25))


@needs_fd
def test_workers_run_problems_at_once_and_a_second_run_keeps_them(tmp_path: Path, capsys) -> None:
    from benchmarks.bench_grounding import diff_main

    root = tmp_path / "coll"
    for name in ("walk1", "walk2", "walk3"):
        _files(root / name, SMALL.replace("walk", name), SMALL_PROBLEM.replace("walk", name))
    out = tmp_path / "diff.jsonl"
    diff_main([root], [], 120, None, out, False, smallest=True, opts=RunOptions(workers=3))
    got = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["case"] for r in got) == ["coll/walk1/p01.pddl", "coll/walk2/p01.pddl", "coll/walk3/p01.pddl"]
    assert all(r["counts"] == {} and r["pgt_actions"] == 2 for r in got)
    assert "# 3 problems: 3 compared (3 equal, 0 differing)" in capsys.readouterr().out
    diff_main([root], [], 120, None, out, False, smallest=True, opts=RunOptions(workers=3))
    assert len(out.read_text().splitlines()) == 3  # resumed: nothing run again


def test_a_problem_not_compared_says_how_each_side_fared() -> None:
    from benchmarks.grounding_diff_report import summary

    slow = {"case": "c/a/p9.pddl", "error": "over 300s", "reached": "pgt not done", "peak_mb": 80,
            "pgt": {"error": "over 300s", "peak_mb": 80}, "fd": {"actions": 1234, "atoms": 50, "s": 12.5,
                                                                  "peak_mb": 400}}
    lines = list(summary([slow], {}))
    assert ("  c/a/p9.pddl: over 300s: pgt not done; peak 80 MB at the kill (pgt peak 80 MB; FD done (1,234 actions) "
            "in 12.5 s, 400 MB); no proxy compared") in lines


@needs_fd
def test_both_sides_at_once_give_the_same_record_in_the_slower_sides_time(tmp_path: Path) -> None:
    import time

    dom, prob = _files(tmp_path, SMALL, SMALL_PROBLEM)
    one_by_one, at_once = compare_problem(dom, prob, 120), compare_problem(dom, prob, 120, sides_at_once=True)
    assert {k: at_once[k] for k in ("pgt_actions", "fd_actions", "counts")} == \
           {k: one_by_one[k] for k in ("pgt_actions", "fd_actions", "counts")}
    dom, prob = _files(tmp_path / "huge", HUGE, HUGE_PROBLEM)
    t0 = time.perf_counter()
    rec = compare_problem(dom, prob, timeout=3, max_actions=10**9, sides_at_once=True)
    assert rec["error"] == "over 3s" and rec["fd"]["error"] == "over 3s"
    assert time.perf_counter() - t0 < 5.5  # one side after the other would take 6 s


def test_the_record_keeps_every_count_and_a_few_differences_of_each_class() -> None:
    from benchmarks.grounding_diff import Op, Side
    from benchmarks.grounding_diff_run import classified

    def side(names: list[str]) -> Side:
        return Side({n: [Op(frozenset(), (), no_effect=True)] for n in names}, set(), set(), set(), {"wait"},
                    {"a", "b", "c", "d"})

    rec = classified(side(["(wait a)", "(wait b)", "(wait c)", "(wait d)"]), side([]), kept=3)
    assert rec["counts"] == {"actions only pgt: FD simplifying": 4}
    assert [d[2] for d in rec["diffs"]] == ["(wait a)", "(wait b)", "(wait c)"] and rec["diffs_cut"] == 1
    assert "diffs_cut" not in classified(side(["(wait a)"]), side([]), kept=3)


def test_a_missing_collection_folder_is_an_error_not_an_empty_table(tmp_path: Path) -> None:
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "benchmarks.bench_grounding", "--diff", str(tmp_path / "nope"),
                          "--no-run", "--out", str(tmp_path / "r.jsonl")], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parents[2])
    assert out.returncode == 2
    assert "no such folder" in out.stderr and "nope" in out.stderr
