"""Stepping one mutable state by deltas (toolkit.stepping), plain plan lines read once, linear :init reading.

Validation must give the same reports as building a frozen state per step, copy no
state per step, and rebuild any step's state on demand; plans of plain ``(action args)``
lines must read exactly as the full reader reads them; a plain problem's :init atoms go
into the model without the pddl package's objects.
"""

from __future__ import annotations

import random

import pytest

from benchmarks.walks import random_walk
from toolkit import plain_problem, plans
from toolkit import stepping
from toolkit.domains import shipped_domain, shipped_problem
from toolkit.plans import format_plan, parse_plan
from toolkit.reading.plain_goal import PlainGoal
from toolkit.stepping import Stepper
from toolkit.task import load_task
from toolkit.verify import check_plan


@pytest.fixture(scope="module")
def task():
    return load_task(shipped_domain("blocksworld"), shipped_problem("blocksworld", "hard_problem_0"))


def walk(task, steps: int, seed: int) -> list:
    return random_walk(task, random.Random(seed), steps)


@pytest.mark.parametrize("seed", range(6))
def test_each_reported_state_is_the_frozen_successor(task, seed) -> None:
    plan = walk(task, 25, seed)
    if seed % 2:  # an inapplicable step in the middle, checked on with --continue
        plan[5], plan[6] = plan[6], plan[5]
    report = check_plan(task, format_plan(plan), keep_going=True)
    state = task.init
    for act, step in zip(plan, report.steps):
        state = act.apply(state)
        assert step.state_after == state
        assert isinstance(step.state_after, frozenset)
    assert report.final_state == state
    # asked again, out of order: rebuilt from the record, the same
    assert [s.state_after for s in reversed(report.steps)][::-1] == [s.state_after for s in report.steps]


def test_no_state_is_copied_per_step(task, monkeypatch) -> None:
    copies = []
    frozen = stepping.WorkingState.frozen
    monkeypatch.setattr(stepping.WorkingState, "frozen", lambda self: copies.append(1) or frozen(self))
    report = check_plan(task, format_plan(walk(task, 40, 1)))
    assert report.plan_length == 40
    assert not copies  # no state at all: the final state and each step's state_after are built when asked
    assert report.final_state == report.steps[-1].state_after and len(copies) == 1


def test_step_reports_are_built_when_asked_and_stay_the_same_objects(task, monkeypatch) -> None:
    """A valid plan's step reports are built on first access of ``steps`` (a batch reading only verdicts
    builds none), equal to the reports a fresh check builds, and the same objects on every access."""
    import toolkit.verify as verify

    built = []
    real = verify.StepReport
    monkeypatch.setattr(verify, "StepReport", lambda *a, **k: built.append(1) or real(*a, **k))
    plan = walk(task, 30, 2)
    plan[20], plan[21] = plan[21], plan[20]  # a failing step: its report (a violation) is built at once
    report = check_plan(task, format_plan(plan), keep_going=True)
    assert report.plan_length == 30 and len(built) == 1
    steps = report.steps
    assert len(built) == 30 and report.steps is steps and all(a is b for a, b in zip(steps, report.steps))
    assert steps[20].index == 21 and not steps[20].applicable and steps[19].applicable and steps[21].applicable
    again = check_plan(task, format_plan(plan), keep_going=True)
    assert again == report and again.steps == steps and again.steps is not steps
    assert [s.to_json(with_state=True) for s in again.steps] == [s.to_json(with_state=True) for s in steps]


def test_plain_text_is_stepped_without_plan_steps_until_the_reading_is_asked_for(task, monkeypatch) -> None:
    """Plain plan text is checked from its rows (``plans.PlainRow``); the report's ``parsed`` is the
    ParsedPlan ``parse_plan`` gives, built on first access."""
    text = format_plan(walk(task, 25, 3))
    want = parse_plan(text, task)
    built = []
    real = plans.PlanStep
    monkeypatch.setattr(plans, "PlanStep", lambda *a, **k: built.append(1) or real(*a, **k))
    report = check_plan(task, text)
    assert not built
    assert report.parsed == want and report.parsed is report.parsed and len(built) == 25
    assert report.reading == want.reading() and [s.line for s in report.steps] == [s.line for s in want.steps]


def test_undo_and_state_at_walk_both_ways(task) -> None:
    plan = walk(task, 12, 3)
    stepper = Stepper(task.init)
    states = [task.init]
    for act in plan:
        stepper.apply(stepper.effect(act))
        states.append(act.apply(states[-1]))
    assert [stepper.state_at(k) for k in (12, 0, 7, 3, 11)] == [states[k] for k in (12, 0, 7, 3, 11)]
    for k in range(12, 6, -1):
        stepper.undo()
        assert stepper.state == states[k - 1] and stepper.snapshot() == states[k - 1]


def test_the_record_of_plain_tuples_reads_as_changes(task) -> None:
    # The steps record plain (added, removed, old_values, new_values) tuples; Stepper.changes gives the same list
    # with each made a Change (named fields), and the stepper goes on recording and rewinding through it.
    plan = walk(task, 8, 5)
    stepper = Stepper(task.init)
    states = [task.init]
    for act in plan[:5]:
        stepper.advance(act)
        states.append(act.apply(states[-1]))
    assert stepper.records and all(r.__class__ is tuple for r in stepper.records)
    plain = list(stepper.records)
    changes = stepper.changes
    assert changes is stepper.records and all(c.__class__ is stepping.Change for c in changes)
    assert changes == plain and [(c.added, c.removed, c.old_values, c.new_values) for c in changes] == plain
    assert all(c.added == act.apply(before) - before for c, act, before in zip(changes, plan, states))
    for act in plan[5:]:
        stepper.advance(act)
        states.append(act.apply(states[-1]))
    assert stepper.records[-1].__class__ is tuple and stepper.changes[-1].__class__ is stepping.Change
    assert [stepper.state_at(k) for k in (8, 2, 6, 0)] == [states[k] for k in (8, 2, 6, 0)]
    stepper.undo()
    assert stepper.snapshot() == states[7] and len(stepper.changes) == 7


def test_a_derive_hook_runs_after_each_step_and_is_recorded(task) -> None:
    from toolkit.model import Atom

    marker = Atom("derived-marker", ())
    calls = []

    def derive(state):
        calls.append(len(state))
        if marker in state:
            return (), ()
        state.add(marker)
        return (marker,), ()

    stepper = Stepper(task.init, derive)
    for act in walk(task, 3, 0):
        stepper.apply(stepper.effect(act))
    assert len(calls) == 3 and marker in stepper.state_at(1) and marker not in stepper.state_at(0)


def test_numeric_steps_carry_values_by_delta() -> None:
    from toolkit.loader import parse_domain, parse_problem
    from toolkit.model import Atom
    from toolkit.task import Task

    domain = parse_domain("""(define (domain fuel) (:requirements :numeric-fluents)
      (:predicates (at ?x)) (:functions (fuel))
      (:action go :parameters (?x ?y) :precondition (and (at ?x) (>= (fuel) 1))
        :effect (and (not (at ?x)) (at ?y) (decrease (fuel) 1))))""")
    task = Task(domain, parse_problem("""(define (problem p) (:domain fuel) (:objects a b)
      (:init (at a) (= (fuel) 2)) (:goal (at a)))""", domain))
    report = check_plan(task, "(go a b)\n(go b a)\n(go a b)\n")
    assert not report.valid and report.failed_step == 3 and "0 < 1" in report.message
    fuel = Atom("fuel", ())
    assert [dict(s.state_after.values) for s in report.steps[:2]] == [{fuel: 1}, {fuel: 0}]
    assert dict(task.init.values) == {fuel: 2}  # the initial state is untouched


@pytest.mark.parametrize("seed", range(40))
def test_plain_lines_read_as_the_full_reader_reads_them(task, seed, monkeypatch) -> None:
    rng = random.Random(seed)
    acts = walk(task, rng.randrange(1, 20), seed)
    if seed % 4 == 0 and len(acts) > 3:
        acts = acts[:3] + acts[:3]  # a repeated run of steps
    lines = [str(a) if rng.random() > 0.3 else "  " + str(a).upper() + " " for a in acts]
    if rng.random() < 0.4:
        lines.insert(rng.randrange(len(lines)), "")
    if rng.random() < 0.5:
        lines.append(f"; cost = {len(acts)} (unit cost)")
    text = "\n".join(lines) + "\n"
    fast = plans._plain_lines(text, task)
    assert fast is not None
    monkeypatch.setattr(plans, "_plain_lines", lambda *_: None)
    assert parse_plan(text, task) == fast


@pytest.mark.parametrize("text", ["; a comment first\n(moveblock r c2)\n", "(moveblock r c2)\n; c\n(moveblock r c1)\n",
                                  "(moveblock nope c2)\n", "1. (moveblock r c2)\n", "[PLAN]\n(moveblock r c2)\n[PLAN END]\n"])
def test_other_text_goes_to_the_full_reader(task, text) -> None:
    assert plans._plain_lines(text, task) is None


def test_a_plain_problem_builds_no_pddl_objects_for_its_atoms(task, monkeypatch) -> None:
    built = []
    predicate = plain_problem.Predicate
    monkeypatch.setattr(plain_problem, "Predicate", lambda *a, **k: built.append(1) or predicate(*a, **k))
    fresh = load_task(shipped_domain("blocksworld"), shipped_problem("blocksworld", "hard_problem_0"))
    assert fresh.init == task.init
    assert len(fresh.init) > 0 and fresh.goal.literals
    assert built == []  # neither :init's atoms nor the goal's (toolkit.reading.plain_goal reads them as words)
    monkeypatch.setattr(PlainGoal, "goal", lambda *_: None)  # the goal's checked path builds forms
    load_task(shipped_domain("blocksworld"), shipped_problem("blocksworld", "hard_problem_0"))
    assert len(built) == len(fresh.goal.literals)


def test_a_name_spelt_as_the_task_spells_it_is_its_object_unless_two_names_differ_only_in_case(task) -> None:
    # Task.action takes an argument spelt exactly as an object's name as that object without lower-casing it, but
    # only where no two names differ only in case (a problem the reader refuses, made here by hand): there the
    # lower-case name decides, as for any other spelling, and the same object answers both spellings.
    from toolkit.records import replace
    from toolkit.task import Task

    assert task.action("moveBlock", ("R", "C1")).args == ("r", "c1")
    assert task.action("moveBlock", ("r", "c1")) is task.action("MOVEBLOCK", ("R", "c1"))
    both = Task(task.domain, replace(task.problem, objects={**task.problem.objects, "R": "block"}))
    winner = both._object_names["r"]
    assert winner == "R" and both.action("moveBlock", ("r", "c1")).args == ("R", "c1")
    assert both.action("moveBlock", ("r", "c1")) is both.action("moveBlock", ("R", "c1"))


def test_an_action_spelt_as_the_task_spells_it_is_still_checked(task) -> None:
    # Task.action's common path (names spelt as the task spells them, types checked before) refuses what the
    # full path refuses, with its errors, however often it is asked and whatever the domain's type memo holds.
    from toolkit.errors import ArityError, TypeMismatchError, UnknownSymbolError
    from toolkit.task import Task

    fresh = Task(task.domain, task.problem)
    for _ in range(2):
        with pytest.raises(TypeMismatchError, match="parameter [?]c1 of moveBlock"):
            fresh.action("moveBlock", ("r", "b"))
        with pytest.raises(UnknownSymbolError):
            fresh.action("moveBlock", ("r", "nope"))
        with pytest.raises(ArityError):
            fresh.action("moveBlock", ("r",))
        with pytest.raises(ArityError):
            fresh.action("moveBlock", ("r", "c1", "c2"))
    made = fresh.action("moveBlock", ("r", "c1"))
    assert made is fresh.action("moveBlock", ["r", "c1"]) is fresh.action("MoveBlock", ("R", "c1"))
    assert made.args == ("r", "c1") and str(made) == "(moveBlock r c1)" and made.cost == 1
    # Two action names that differ only in case (a domain the reader refuses, made here by hand): the lower-case
    # name decides, for the exact spelling too, as on the full path.
    from toolkit.records import replace

    schema = task.domain.actions["moveBlock"]
    twin = replace(schema, name="MoveBLOCK")
    both = Task(replace(task.domain, actions={"moveBlock": schema, "MoveBLOCK": twin}), task.problem)
    assert both._action_names["moveblock"] == "MoveBLOCK" and both.action("moveBlock", ("r", "c2")).name == "MoveBLOCK"
    assert both.action("moveBlock", ("r", "c1")).name == "MoveBLOCK" == both.action("MoveBLOCK", ("r", "c1")).name


@pytest.mark.parametrize("goal, plan, valid", [
    ("(>= (fuel) 2)", "(go a b)\n", False), ("(>= (fuel) 1)", "(go a b)\n", True),
    ("(and (>= (fuel) 3) (< (fuel) 1))", "(go a b)\n(go b a)\n", False),
    ("(or (at b) (> (fuel) 5))", "(go a b)\n", True), ("(or (at a) (> (fuel) 5))", "(go a b)\n", False)])
def test_a_goal_without_literals_is_explained_at_once_as_where_it_is_tested_first(goal, plan, valid) -> None:
    # check_plan explains a goal of comparisons or disjunctions only without testing it first (its explanation
    # is empty exactly where it holds): the verdict and the unmet goal are those of the test and the explanation.
    from toolkit.loader import parse_domain, parse_problem
    from toolkit.task import Task

    domain = parse_domain("""(define (domain fuel) (:requirements :numeric-fluents :disjunctive-preconditions)
      (:predicates (at ?x)) (:functions (fuel))
      (:action go :parameters (?x ?y) :precondition (and (at ?x) (>= (fuel) 1))
        :effect (and (not (at ?x)) (at ?y) (decrease (fuel) 1))))""")
    task = Task(domain, parse_problem(f"""(define (problem p) (:domain fuel) (:objects a b)
      (:init (at a) (= (fuel) 2)) (:goal {goal}))""", domain))
    assert not task.goal.literals
    report = check_plan(task, plan)
    end = report.final_state
    assert report.valid == valid == task.goal_holds(end)
    assert report.goal_unmet == tuple(u.literal for u in task.goal_unmet(end)) and bool(report.goal_unmet) != valid


@pytest.mark.parametrize("first", ["common", "refused"])
@pytest.mark.parametrize("numeric", [False, True], ids=["boolean", "numeric"])
def test_steps_taken_by_step_functions_keep_no_record_until_one_is_read(numeric, first, monkeypatch) -> None:
    # The validator keeps no record of a step its schema's step function takes: the record is a placeholder until
    # read (Stepper.took), then made by taking the run again from init. The records must be the ground actions'
    # own path's, also where every action has lost its step function since (BIND_AFTER steps over later checks:
    # taken again by the actions' own path), and undo must find them. "refused": the plan starts with a step
    # that is not applicable (checked on with keep_going): no common run, the later steps' placeholders only.
    from pathlib import Path

    from toolkit import loader
    from toolkit.action_maker import ActionMaker
    from toolkit.task import Task

    if numeric:
        data = Path(__file__).parent / "data" / "numeric"
        domain = loader.load_domain(data / "domain.pddl")
        problem = loader.load_problem(data / "problem.pddl", domain)
    else:
        domain = loader.load_domain(shipped_domain("logistics"))
        problem = loader.load_problem(shipped_problem("logistics", "logistics-medium"), domain)
    probe = Task(domain, problem)
    plan = [a for a in random_walk(probe, random.Random(2), 40) if a.name != "halve-all"]
    if first == "refused":
        plan.insert(0, next(a for a in plan if not a.is_applicable(probe.init)))
    text, keep_going = format_plan(plan), first == "refused"

    def facts(report) -> tuple:
        changes = [(c.added, c.removed, repr(c.old_values), repr(c.new_values)) for c in report.end.changes]
        return changes, [s.state_after for s in report.steps], report.final_state, report.message

    with monkeypatch.context() as patch:  # the own path: every ground action built, no step function
        patch.setattr(ActionMaker, "make", ActionMaker.ground)
        own = check_plan(Task(domain, problem), text, keep_going=keep_going)
    for again_by_own_path in (False, True):
        task = Task(domain, problem)
        report = check_plan(task, text, keep_going=keep_going)
        untaken = [r for r in report.end.records if r.__class__ is not tuple]
        assert len(untaken) > 10 and report.end._untaken is not None  # taken, not recorded
        assert (report.end.records[0] is None) == (first == "common")
        if again_by_own_path:  # later checks on the task take every action past BIND_AFTER: no step function
            check_plan(task, text * 70, keep_going=keep_going)
            assert all(act.tier is None for act, _ in plans.plain_lines(text, task).pairs)
        assert facts(report) == facts(own)
        undone = check_plan(task, text, keep_going=keep_going)
        undone.end.undo()
        assert undone.end.snapshot() == own.end.state_at(len(own.end.records) - 1)
