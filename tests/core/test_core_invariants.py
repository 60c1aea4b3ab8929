"""Invariant groups derived from the action model: found where they exist, sound along real runs."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from toolkit.domains import shipped_domain
from toolkit.invariants import find_patterns, groups, invariants_of, violations
from toolkit.loader import parse_domain, parse_problem
from toolkit.task import Task, load_task

ROOT = Path(__file__).resolve().parents[2] / "pddl_domains"
SHIPPED = sorted(p.parent.name for p in ROOT.glob("*/domain.pddl"))


def first_problem(name: str) -> Path:
    return sorted((ROOT / name / "problems").glob("*.pddl"))[0]


def texts(task: Task) -> set[str]:
    return {str(p) for p in invariants_of(task)}


def test_viplan_blocksworld_invariants_are_found():
    task = load_task(shipped_domain("blocksworld"), first_problem("blocksworld"))
    assert texts(task) == {"exactly one of {(inColumn ?g0 *)}", "exactly one of {(clear ?g0), (on * ?g0)}"}


def test_viplan_household_invariants_are_found():
    suite = ROOT.parent / "benchmarks" / "suites" / "viplan-hh" / "hard"
    task = load_task(shipped_domain("household"), suite / "hard_cleaning_out_drawers_0.pddl")
    assert "at most one of {(holding *)}" in texts(task)
    assert "at most one of {(holding ?g0), (inside ?g0 *)}" in texts(task)


@pytest.mark.parametrize("name", SHIPPED)
def test_invariants_hold_along_random_walks(name: str):
    """Soundness: every invariant that holds initially holds in every state a random walk reaches."""
    for problem in sorted((ROOT / name / "problems").glob("*.pddl"))[:3]:
        task = load_task(ROOT / name / "domain.pddl", problem)
        gs = groups(task, invariants_of(task))
        rng = random.Random(0)
        for _walk in range(5):
            state = task.init
            for _step in range(40):
                assert all(violations(g, state) == 0 for g in gs), (name, problem.name)
                options = task.applicable_actions(state)
                if not options:
                    break
                state = rng.choice(options).apply(state)


TOY = """
(define (domain toy)
  (:requirements :strips :typing)
  (:types ball room)
  (:predicates (at ?b - ball ?r - room) (held ?b - ball))
  (:action move :parameters (?b - ball ?from ?to - room)
    :precondition (at ?b ?from)
    :effect (and (not (at ?b ?from)) (at ?b ?to)))
  (:action pick :parameters (?b - ball ?r - room)
    :precondition (at ?b ?r)
    :effect (and (held ?b) (not (at ?b ?r))))
  (:action %s)
)
"""
PROBLEM = """(define (problem p) (:domain toy) (:objects b c - ball r1 r2 - room)
  (:init (at b r1) (at c r1)) (:goal (at b r2)))"""


def toy_patterns(extra: str) -> set[str]:
    domain = parse_domain(TOY % extra)
    return {str(p) for p in find_patterns(Task(domain, parse_problem(PROBLEM, domain)))}


def test_a_delete_without_an_add_weakens_exactly_one_to_at_most_one():
    assert "exactly one of {(at ?g0 *), (held ?g0)}" in toy_patterns("noop :parameters () :effect (and)")
    found = toy_patterns("vanish :parameters (?b - ball) :precondition (held ?b) :effect (not (held ?b))")
    assert "at most one of {(at ?g0 *), (held ?g0)}" in found
    assert not any("exactly one of {(at ?g0 *), (held ?g0)}" in f for f in found)


def test_an_action_adding_two_group_atoms_breaks_the_group():
    found = toy_patterns("split :parameters (?b - ball ?r1 ?r2 - room) :precondition (held ?b) "
                         ":effect (and (at ?b ?r1) (at ?b ?r2) (not (held ?b)))")
    assert not any("(at ?g0 *)" in f for f in found)


def test_an_add_that_leaves_an_old_atom_true_breaks_the_group():
    found = toy_patterns("teleport :parameters (?b - ball ?r - room) :precondition () :effect (at ?b ?r)")
    assert not any("(at ?g0 *)" in f for f in found)


def test_cli_lists_invariants_and_flags_a_broken_init(tmp_path: Path, capsys):
    from toolkit.cli import main

    assert main(["invariants", "blocksworld", "simple_problem_0"]) == 0
    out = capsys.readouterr().out
    assert "exactly one of {(inColumn ?g0 *)}  (3 groups)" in out
    bad = tmp_path / "bad.pddl"  # a block in two columns at once
    text = first_problem("blocksworld").read_text()
    bad.write_text(text.replace("(:init", "(:init (inColumn r c4) (inColumn r c3)", 1))
    assert main(["invariants", str(ROOT / "blocksworld" / "domain.pddl"), str(bad), "--json"]) == 0
    import json
    data = json.loads(capsys.readouterr().out)
    assert "exactly one of {(inColumn ?g0 *)}" not in data["invariants"]
    assert any(r["pattern"] == "exactly one of {(inColumn ?g0 *)}" and r["broken_in_init"] for r in data["preserved"])


def test_an_add_inside_a_conditional_effect_still_breaks_the_group():
    # Groups are checked only against the actions that add or delete one of their atoms
    # (an index, for IPC-sized tasks): atoms of conditional effects must be in that index.
    found = toy_patterns("drop :parameters (?b - ball ?r - room) :precondition () "
                         ":effect (when (held ?b) (at ?b ?r))")
    assert not any("(at ?g0 *)" in f for f in found)


def test_an_add_must_delete_the_group_atom_its_precondition_makes_true():
    # Only the group atoms that may be true before an add are checked for a delete (a scan
    # of every group atom per add took minutes on IPC parking): one known true atom, else
    # every atom not known false.
    assert "exactly one of {(at ?g0 *), (held ?g0)}" in toy_patterns(
        "hop :parameters (?b - ball ?r1 ?r2 - room) :precondition (at ?b ?r1) "
        ":effect (and (at ?b ?r2) (not (at ?b ?r1)))")
    kept = toy_patterns("copy :parameters (?b - ball ?r1 ?r2 - room) :precondition (at ?b ?r1) :effect (at ?b ?r2)")
    assert not any("(at ?g0 *)" in f for f in kept)
    unsure = toy_patterns("maybe :parameters (?b - ball ?r1 ?r2 - room) :precondition (at ?b ?r1) "
                          ":effect (and (at ?b ?r2) (when (held ?b) (not (at ?b ?r1))))")
    assert not any("(at ?g0 *)" in f for f in unsure)


def test_an_add_with_no_known_true_atom_must_delete_every_other_one():
    assert "exactly one of {(at ?g0 *), (held ?g0)}" in toy_patterns(
        "grab :parameters (?b - ball) :precondition (not (held ?b)) "
        ":effect (and (held ?b) (forall (?r - room) (not (at ?b ?r))))")
    found = toy_patterns("grab :parameters (?b - ball ?r - room) :precondition (not (held ?b)) "
                         ":effect (and (held ?b) (not (at ?b ?r)))")
    assert not any("{(at ?g0 *), (held ?g0)}" in f for f in found)


# Towers of Hanoi, untyped, with "smaller" as the static size order; one disc on three pegs.
HANOI = """
(define (domain hanoi-test)
  (:requirements :strips)
  (:predicates (clear ?x) (on ?x ?y) (smaller ?x ?y))
  (:action move :parameters (?disc ?from ?to)
    :precondition (and (smaller ?to ?disc) (on ?disc ?from) (clear ?disc) (clear ?to))
    :effect (and (clear ?from) (on ?disc ?to) (not (on ?disc ?from)) (not (clear ?to))))
  %s
)
"""
ONE_DISC = """(define (problem one) (:domain hanoi-test) (:objects p1 p2 p3 d1)
  (:init (smaller p1 d1) (smaller p2 d1) (smaller p3 d1) (clear p2) (clear p3) (clear d1) (on d1 p1))
  (:goal (on d1 p3)))"""
COVERED = "exactly one of {(clear ?g0), (on * ?g0)}"


def hanoi_task(extra: str = "") -> Task:
    domain = parse_domain(HANOI % extra)
    return Task(domain, parse_problem(ONE_DISC, domain))


def lone(task: Task) -> dict[str, set[str]]:
    from toolkit.invariants import lone_atoms

    return {str(p): {str(a) for a in lone_atoms(task, p)} for p in find_patterns(task)}


def test_an_exactly_one_instance_of_one_atom_pins_it_down():
    """Nothing is ever moved onto the only disc: "clear or one thing on it" has one atom for d1."""
    found = lone(hanoi_task())
    assert found[COVERED] == {"(clear d1)"}
    assert {str(g.key) for g in groups(hanoi_task(), [p for p in find_patterns(hanoi_task()) if str(p) == COVERED])} \
        == {"('p1',)", "('p2',)", "('p3',)"}  # the groups leave d1's instance out: one atom is no group
    assert all(not atoms for text, atoms in found.items() if text.startswith("at most one"))


def test_a_lone_atom_an_action_can_take_away_is_not_pinned_down():
    # "paint" makes a disc unclear without putting anything on it: the pattern's groups (the pegs') are
    # still preserved, but its lone instance is not, so (clear d1) is not decided by it.
    task = hanoi_task("(:action paint :parameters (?x) :precondition (and (clear ?x) (smaller p1 ?x)) "
                      ":effect (not (clear ?x)))")
    assert lone(task)[COVERED] == set()
    assert not any("(clear d1)" in atoms for atoms in lone(task).values())
    kept = hanoi_task("(:action touch :parameters (?x) :precondition (clear ?x) "
                      ":effect (and (not (clear ?x)) (clear ?x)))")  # delete and add: the add wins
    assert lone(kept)[COVERED] == {"(clear d1)"}


def test_the_analyses_memos_do_not_keep_a_dropped_task_alive():
    """find_patterns, lone_atoms and the atoms by predicate are remembered per task, not in an lru_cache
    whose keys would hold the last tasks (and all their ground actions) after the caller dropped them."""
    import gc
    import weakref

    task = hanoi_task()
    assert lone(task)[COVERED] == {"(clear d1)"}
    assert invariants_of(task)
    again = find_patterns(task)
    assert find_patterns(task) is again  # still remembered while the task lives
    gone = weakref.ref(task)
    del task
    gc.collect()
    assert gone() is None, "a memo keeps the dropped task alive"
