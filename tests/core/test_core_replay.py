"""The records of a validation run read late: after the same task checked enough plans since for their actions to
lose their step functions (toolkit.verify.BIND_AFTER), as validate-batch does.

check_plan keeps no record of a step a schema's step function takes (Stepper.took); the first read of a record
(a step's state_after, the stepper's changes) takes the run again from init, by then on the actions' own path.
Every step's state and change must still be the ground actions' own successors, GroundAction.apply one by one
(an inapplicable step, checked on with keep_going, applied as if it applied). The ADL shipped domains have
conditional effects the own path fires; the numeric one carries values.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from benchmarks.walks import random_walk
from toolkit import loader
from toolkit.domains import shipped_domain, shipped_problem
from toolkit.plans import format_plan
from toolkit.task import Task
from toolkit.verify import BIND_AFTER, check_plan

NUMERIC = Path(__file__).parent / "data" / "numeric"
CASES = [(shipped_domain(d), shipped_problem(d, p)) for d, p in [
    ("blocksworld-4ops", "bw4-4"), ("gripper", "gripper-4balls"), ("logistics", "logistics-medium"),
    ("miconic-adl", "miconic-2"), ("briefcase", "briefcase-2"), ("sokoban", "sokoban-1")]] + [
    (NUMERIC / "domain.pddl", NUMERIC / "problem.pddl")]


def _state(state) -> tuple:
    values = getattr(state, "values", None) or {}
    return frozenset(state), sorted((str(k), repr(v)) for k, v in values.items())


@pytest.mark.parametrize("pair", CASES, ids=lambda p: p[1].stem)
def test_records_read_after_the_step_functions_are_dropped_are_the_actions_own_successors(pair) -> None:
    domain = loader.load_domain(pair[0])
    problem = loader.load_problem(pair[1], domain)
    plan = random_walk(Task(domain, problem), random.Random(3), 30)  # walked on another task: the check's own
    swapped = plan[:]                                                   # actions keep their step functions
    swapped[4], swapped[5] = swapped[5], swapped[4]
    task = Task(domain, problem)
    held = []
    for k in range(BIND_AFTER + 2):  # the same plans again: every action passes BIND_AFTER on the way
        for steps, keep_going in ((plan, False), (swapped, True)):
            report = check_plan(task, format_plan(steps), keep_going=keep_going)
            if k in (0, BIND_AFTER // 2, BIND_AFTER + 1):
                held.append((steps, report))
    first = held[0][1].end
    assert first._untaken is not None and any(r.__class__ is not tuple for r in first.records)  # steps taken unrecorded
    assert all(task.action(a.name, a.args).tier is None for a in plan)  # and its actions have lost their functions
    for steps, report in held:
        state = task.init
        expected = []
        for act in steps:
            after = act.apply(state)
            expected.append((after, after - state, state - after))
            state = after
        # read back to front (the first read takes the run again), then the record of changes
        got = [report.steps[k].state_after for k in reversed(range(len(steps)))][::-1]
        assert [_state(s) for s in got] == [_state(s) for s, _, _ in expected]
        changes = report.end.changes
        assert [(c.added, c.removed) for c in changes] == [(set(a), set(r)) for _, a, r in expected]
        assert _state(report.final_state) == _state(state)
