"""pgt's own SAS output against FD's translator: same optimal costs, and the fallbacks where it does not apply."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.domains import shipped_domain, shipped_problem
from toolkit.model import Atom
from toolkit.planners import PlanStatus
from toolkit.planners.base import goal_condition
from toolkit.planners.fd import FastDownwardPlanner
from toolkit.planners.sas import sas_variables, task_to_sas
from toolkit.task import load_task

IPC = Path("/work/shared/ipc-sample")
COSTS = Path(__file__).parents[1] / "core" / "data" / "costs"
# Small STRIPS tasks (one with action costs) FD solves in well under a second either way.
CASES = [
    (IPC / "logistics00/domain.pddl", IPC / "logistics00/problogistics-4-0.pddl"),
    (IPC / "gripper/domain.pddl", IPC / "gripper/prob01.pddl"),
    (IPC / "rovers/domain.pddl", IPC / "rovers/p01.pddl"),
    (IPC / "depot/domain.pddl", IPC / "depot/pfile1.pddl"),
    (IPC / "zenotravel/domain.pddl", IPC / "zenotravel/pfile1.pddl"),
]


def _solve(task, own_sas: bool, **kw):
    return FastDownwardPlanner("fd-opt", "optimal", optimal=True, own_sas=own_sas).solve(task, timeout=60, **kw)


@pytest.mark.parametrize("dom,prob", [c for c in CASES if c[1].exists()], ids=lambda p: Path(p).parent.name + "/" + Path(p).stem)
def test_own_sas_gives_the_translators_optimal_cost(dom, prob):
    task = load_task(dom, prob)
    assert task_to_sas(task, task.init, task.problem.goal) is not None
    ours, theirs = _solve(task, True), _solve(task, False)
    assert ours.status is theirs.status is PlanStatus.SOLVED
    assert ours.cost == theirs.cost and ours.optimal


# IPC action-cost tasks FD solves optimally in under a second (barman and parking take minutes: not here).
COST_CASES = ["nomystery-sat11-strips", "pegsol-08-strips", "scanalyzer-08-strips", "sokoban-sat08-strips",
              "woodworking-sat08-strips"]


@pytest.mark.parametrize("name", COST_CASES)
def test_own_sas_with_action_costs(name: str):
    task = load_task(COSTS / name / "domain.pddl", COSTS / name / "problem.pddl")
    assert task.uses_costs and task_to_sas(task, task.init, task.problem.goal) is not None
    ours, theirs = _solve(task, True), _solve(task, False)
    assert theirs.status is PlanStatus.SOLVED
    assert ours.solved and ours.cost == theirs.cost and ours.optimal


def test_static_and_unreachable_parts_and_fallbacks():
    task = load_task(shipped_domain("blocksworld"), shipped_problem("blocksworld", "medium_problem_0"))
    # Conditional effects: FD's translator keeps them, so no SAS of our own.
    assert any(a.effect.conditional for a in task.grounding().actions)
    assert task_to_sas(task, task.init, task.problem.goal) is None
    task = load_task(IPC / "gripper/domain.pddl", IPC / "gripper/prob01.pddl")
    text = task_to_sas(task, task.init, task.problem.goal)
    names = {name for var in sas_variables(text) for name in var}
    assert "at-robby(rooma)" in names and not any(n.startswith("room(") for n in names)  # statics are not variables
    # A goal that can never hold: our SAS, FD proves it unsolvable.
    goal = [Atom("at", ("ball1", "rooma")), Atom("at", ("ball1", "roomb"))]
    assert _solve(task, True, goal=goal).status is PlanStatus.UNSOLVABLE
    # A false static goal literal is left to FD's translator.
    assert task_to_sas(task, task.init, goal_condition(task, [Atom("room", ("ball1",))])) is None


def test_own_sas_route_skips_the_translators_pddl(monkeypatch):
    """The typed PDDL view is built for FD's translator only: the SAS route neither builds nor needs it."""
    from toolkit.planners import fd

    calls = []
    real = fd.typed_view
    monkeypatch.setattr(fd, "typed_view", lambda *a, **k: calls.append(1) or real(*a, **k))
    roads = load_task(COSTS / "roads" / "domain.pddl", COSTS / "roads" / "problem.pddl")
    ours = _solve(roads, True)
    assert ours.solved and ours.cost == 8 and not calls
    theirs = _solve(roads, False)
    assert theirs.solved and theirs.cost == 8 and calls
    # A goal atom no action adds and the initial state lacks: left to the translator, which proves it unsolvable.
    task = load_task(IPC / "gripper/domain.pddl", IPC / "gripper/prob01.pddl")
    goal = [Atom("at-robby", ("ball1",))]
    assert task_to_sas(task, task.init, goal_condition(task, goal)) is None
    assert _solve(task, True, goal=goal).status is PlanStatus.UNSOLVABLE


def _translator_variables(dom: Path, prob: Path, tmp_path: Path) -> list[list[str]]:
    from toolkit.planners.fd import _translate

    (tmp_path / "domain.pddl").write_text(dom.read_text())
    (tmp_path / "problem.pddl").write_text(prob.read_text())
    rc, log = _translate(tmp_path, 120)
    assert rc == 0, log[-500:]
    return list(sas_variables((tmp_path / "output.sas").read_text()))


# IPC tasks whose mutex groups pgt's invariants (pairs of predicates) find as FD's synthesis does.
SAME_GROUPS = ["gripper/prob01", "logistics00/problogistics-4-0", "zenotravel/pfile1", "satellite/p01-pfile1",
               "nomystery-sat11-strips/p01", "transport-sat08-strips/p01", "grid/prob01", "tpp/p01"]


@pytest.mark.parametrize("case", SAME_GROUPS)
def test_variables_are_the_translators(case: str, tmp_path):
    """The SAS task has FD's translator's variables: its mutex groups, and only the variables the goal needs."""
    prob = IPC / f"{case}.pddl"
    dom = prob.parent / f"{prob.stem}-domain.pddl"
    dom = dom if dom.exists() else prob.parent / "domain.pddl"
    task = load_task(dom, prob)
    ours = list(sas_variables(task_to_sas(task, task.init, task.problem.goal)))
    theirs = _translator_variables(dom, prob, tmp_path)
    lower = lambda variables: sorted(sorted(n.lower() for n in values) for values in variables)  # noqa: E731
    assert lower(ours) == lower(theirs)  # FD writes names in lower case
    assert any(len(values) > 1 for values in ours)
    binary = list(sas_variables(task_to_sas(task, task.init, task.problem.goal, mutexes=False)))
    assert all(len(values) == 1 for values in binary) and len(binary) > len(ours)


def test_a_start_state_that_breaks_a_group_keeps_its_atoms_binary():
    """A group holds from a state only if the state satisfies it; the others stay multi-valued."""
    task = load_task(IPC / "gripper/domain.pddl", IPC / "gripper/prob01.pddl")
    ball1 = [a for a in task.init if a.predicate == "at" and a.args[0] == "ball1"][0]
    state = task.init | {Atom("at", ("ball1", "roomb" if ball1.args[1] == "rooma" else "rooma"))}
    variables = list(sas_variables(task_to_sas(task, state, task.problem.goal)))
    assert all(len(values) == 1 for values in variables if any(n.startswith("at(ball1,") for n in values))
    assert any(len(values) > 1 and values[0].startswith("at(ball2,") for values in variables)
    ours, theirs = _solve(task, True, init=state), _solve(task, False, init=state)
    assert ours.solved and theirs.solved and ours.cost == theirs.cost


FORGET = """(define (domain forget) (:requirements :strips :typing) (:types obj)
  (:predicates (handempty) (holding ?o - obj) (done ?o - obj))
  (:action pick :parameters (?o - obj) :precondition (handempty) :effect (and (holding ?o) (not (handempty))))
  (:action finish :parameters (?o - obj) :precondition (holding ?o) :effect (and (done ?o) (handempty) (not (holding ?o))))
  (:action forget :parameters (?o - obj) :precondition (done ?o) :effect (not (holding ?o))))"""


def test_a_delete_the_precondition_leaves_open_keeps_the_group_binary(tmp_path):
    """``forget`` deletes ``(holding ?o)`` without knowing it holds: FD writes a conditional effect there,
    which LM-cut refuses; pgt keeps that group's atoms binary and every effect unconditional."""
    (tmp_path / "d.pddl").write_text(FORGET)
    (tmp_path / "p.pddl").write_text("(define (problem p) (:domain forget) (:objects a b - obj) (:init (handempty)) "
                                     "(:goal (and (done a) (done b) (handempty))))")
    task = load_task(tmp_path / "d.pddl", tmp_path / "p.pddl")
    from toolkit.invariants import find_patterns

    assert any({m.predicate for m in p.members} == {"handempty", "holding"} for p in find_patterns(task))
    text = task_to_sas(task, task.init, task.problem.goal)
    assert all(len(values) == 1 for values in sas_variables(text))
    ours, theirs = _solve(task, True), _solve(task, False)
    assert ours.solved and ours.cost == theirs.cost == 4
