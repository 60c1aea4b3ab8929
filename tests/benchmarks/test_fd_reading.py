"""Input FD's translator refuses and pgt reads: the differential benchmark compares a repaired copy.

IPC's fridge (``?c -compressor``, a hyphen glued to the type) and tyreworld (the
domain names ``wrench``, an object each problem declares) are refused by FD's parser
and read by pgt. The benchmark classifies them as reading differences and compares
pgt's grounding of the original with FD's grounding of a copy repaired by the rule FD
enforces (:mod:`benchmarks.fd_reading`); these tests check both repairs on domains
of those shapes, and the benchmark's accounting (:mod:`benchmarks.grounding_diff_report`)
that keeps every problem in one row class.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from benchmarks.grounding_diff_report import proxy_candidates, summary

HAS_FD = importlib.util.find_spec("fast_downward") is not None and \
    importlib.util.find_spec("fast_downward.translate") is not None
needs_fd = pytest.mark.skipif(not HAS_FD, reason="needs Fast Downward's translator (the fast-downward-translate package)")

GLUED = """(define (domain glued) (:requirements :typing)
  (:types screw compressor)
  (:predicates (fits ?s - screw ?c -compressor) (in ?s - screw))
  (:action fit :parameters (?s - screw ?c -compressor)
    :precondition (fits ?s ?c) :effect (in ?s)))
"""
GLUED_PROBLEM = """(define (problem g) (:domain glued)
  (:objects s1 s2 - screw c1 -compressor)
  (:init (fits s1 c1)) (:goal (in s1)))
"""
NAMED = """(define (domain named) (:requirements :typing)
  (:types tool nut)
  (:predicates (have ?t - tool) (tight ?n - nut) (loose ?n - nut))
  (:action loosen :parameters (?n - nut)
    :precondition (and (have wrench) (tight ?n)) :effect (and (loose ?n) (not (tight ?n)))))
"""
NAMED_PROBLEM = """(define (problem n) (:domain named)
  (:objects wrench pump - tool n1 n2 - nut)
  (:init (have wrench) (tight n1)) (:goal (loose n1)))
"""


def _files(tmp_path: Path, domain: str, problem: str) -> tuple[Path, Path]:
    (tmp_path / "d.pddl").write_text(domain)
    (tmp_path / "p.pddl").write_text(problem)
    return tmp_path / "d.pddl", tmp_path / "p.pddl"


@needs_fd
@pytest.mark.parametrize(("domain", "problem", "refusal", "change"), [
    (GLUED, GLUED_PROBLEM, "Got: -compressor", "-compressor read as '- compressor'"),
    (NAMED, NAMED_PROBLEM, "Undefined object Got: wrench", "problem objects wrench declared as domain constants"),
], ids=["glued-hyphen", "domain-names-problem-object"])
def test_fd_refuses_what_pgt_reads_and_the_benchmark_compares_a_repaired_copy(
        tmp_path: Path, domain: str, problem: str, refusal: str, change: str) -> None:
    from benchmarks.bench_grounding import measure_diff
    from benchmarks.fd_reading import fd_refusal

    dom, prob = _files(tmp_path, domain, problem)
    assert refusal in (fd_refusal(dom, prob) or "").replace("\n", " ")  # FD's parser refuses the original
    rec = measure_diff(str(dom), str(prob))
    assert refusal in rec["fd_refuses"]
    assert any(c.startswith(change) for c in rec["fd_read_copy"])
    assert rec["pgt_actions"] == rec["fd_actions"] == 1 and rec["counts"] == {}  # same grounding: nothing hidden
    assert dom.read_text() == domain and prob.read_text() == problem  # the copy is elsewhere


@needs_fd
def test_a_refusal_no_repair_answers_stays_a_refusal(tmp_path: Path) -> None:
    from benchmarks.fd_reading import repaired_for_fd

    dom, prob = _files(tmp_path, NAMED.replace("(have wrench)", "(have spanner)"), NAMED_PROBLEM)
    assert repaired_for_fd(dom, prob, tmp_path) is None  # spanner is no object of the problem either


def test_every_problem_lands_in_one_row_class_with_its_reason() -> None:
    compared = {"case": "c/a/p1.pddl", "pgt_actions": 3, "pgt_atoms": 2, "counts": {}}
    repaired = {"case": "c/f/p1.pddl", "pgt_actions": 5, "pgt_atoms": 4, "counts": {}, "fd_refuses": "Got: x",
                "fd_read_copy": ["x"]}
    slow = {"case": "c/a/p9.pddl", "error": "over 300s", "reached": "pgt done (9 actions) after 20.0 s 900 MB",
            "peak_mb": 2048}
    proxy = {"case": "c/a/p5.pddl", "pgt_actions": 7, "pgt_atoms": 6, "counts": {"atoms only FD: pgt more precise": 1}}
    both = {"case": "c/e/f9.pddl", "error": "pgt: f9.pddl:8:14: name 'p28' is declared more than once",
            "fd_refuses": "Found the following duplicate objects: p28"}
    lines = list(summary([compared, repaired, slow, both, {"case": "d/a/p1.pddl", "same_as": "c/a/p1.pddl"}],
                         {"c/a/p9.pddl": proxy}))
    assert lines[0] == ("# 5 problems: 1 compared (1 equal, 0 differing), 1 compared on FD's reading of a repaired "
                        "copy (reading difference), 1 refused by both (invalid input), 1 not compared, "
                        "1 duplicates run once")
    assert ("  c/e/f9.pddl: pgt: f9.pddl:8:14: name 'p28' is declared more than once; FD: Found the following "
            "duplicate objects: p28") in lines
    assert any("c/f/p1.pddl: FD: Got: x" in line for line in lines)
    assert ("  c/a/p9.pddl: over 300s: pgt done (9 actions) after 20.0 s 900 MB; peak 2,048 MB at the kill; "
            "proxy c/a/p5.pddl: atoms only FD: pgt more precise 1") in lines


def test_a_proxy_is_a_smaller_problem_of_the_same_folder_never_its_smallest() -> None:
    ranked = {"c/a": [(f"c/a/p{i}.pddl", Path("d"), Path(f"p{i}")) for i in range(1, 6)]}
    assert [c[0] for c in proxy_candidates(ranked, "c/a/p5.pddl", 2)] == ["c/a/p4.pddl", "c/a/p3.pddl"]
    assert proxy_candidates(ranked, "c/a/p1.pddl", 2) == []  # the smallest has none
    assert [c[0] for c in proxy_candidates(ranked, "c/a/p3.pddl", 9)] == ["c/a/p2.pddl"]
