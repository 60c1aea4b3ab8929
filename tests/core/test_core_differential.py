"""Differential tests: our ``check_plan`` against unified-planning's ``PlanValidator``.

Plans: seeded random walks over every shipped problem (with the problem's own
goal, or a goal drawn from the walk's final state so that many are valid), the
golden valid plans, and type-correct mutants of both (deleted step, swapped
steps, replaced argument, truncated). Both validators must give the same verdict
and the same first failing step, every time.

unified-planning refuses ill-typed and wrong-arity steps before validating, so
those mutants are checked separately against our own classification (reason
and step), and against UP's refusal.

The default run compares a few hundred plans (UP needs ~6 ms per step); the slow
variant (``--runslow``) compares more than a thousand.
"""

from __future__ import annotations

import collections
import random

import pytest

from core_support import (
    final_state,
    goal_from_state,
    mutants,
    paths,
    random_walk,
    replace_argument,
    shipped_pairs,
    shipped_task,
    up_problem,
    up_validate,
    up_with_goal,
    with_goal,
)
from toolkit.plans import Reason, format_plan
from toolkit.verify import check_plan

PAIRS = shipped_pairs()
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # unified-planning uses old pyparsing names


def _golden(domain: str, problem: str) -> str | None:
    plan = paths(domain, problem)[0].parent / "golden" / "valid" / f"{problem}.plan"
    return plan.read_text() if plan.is_file() else None


def _compare(walks_per_problem: int, max_len: int, seed: int) -> tuple[collections.Counter, list[str]]:
    """Run the comparison; returns outcome counts and a description of every disagreement."""
    counts: collections.Counter = collections.Counter()
    diffs: list[str] = []
    for domain, problem in PAIRS:
        task, ref = shipped_task(domain, problem), up_problem(domain, problem)
        rng = random.Random(f"{seed}/{domain}/{problem}")
        jobs = []
        golden = _golden(domain, problem)
        if golden is not None:
            plan = check_plan(task, golden).steps
            actions = [task.action(*_split(s.action)) for s in plan]
            jobs.append((task, ref, "golden", actions))
            jobs += [(task, ref, f"golden-{kind}", mutant) for kind, mutant in mutants(task, actions, rng)]
        for k in range(walks_per_problem):
            walk = random_walk(task, rng, rng.randint(1, max_len))
            if k % 2 == 0:  # a goal the walk reaches, so walks (and some mutants) are valid
                goal = goal_from_state(task, final_state(task, walk), rng)
                t, r = with_goal(task, goal), up_with_goal(ref, goal)
            else:
                t, r = task, ref
            jobs.append((t, r, "walk", walk))
            jobs += [(t, r, kind, mutant) for kind, mutant in mutants(task, walk, rng)]
        for t, r, kind, plan in jobs:
            report = check_plan(t, plan)
            ours = (report.valid, report.failed_step)
            theirs = up_validate(r, plan)
            outcome = "valid" if report.valid else report.reason.value
            counts[outcome] += 1
            counts["steps"] += len(plan)
            if ours != theirs:
                diffs.append(f"{domain}/{problem} {kind}: ours {ours} ({report.message}) vs UP {theirs}; "
                             f"plan {[str(a) for a in plan]}")
    return counts, diffs


def _split(action_text: str) -> tuple[str, list[str]]:
    name, *args = action_text.strip("()").split()
    return name, args


def _check(counts: collections.Counter, diffs: list[str], at_least: int) -> None:
    plans = sum(v for k, v in counts.items() if k != "steps")
    print(f"\ndifferential vs unified-planning: {plans} plans, {counts['steps']} steps, "
          f"{len(diffs)} disagreements; outcomes {dict(counts)}")
    assert not diffs, "\n".join(diffs[:20])
    assert plans >= at_least
    # The mix must exercise every verdict, or the comparison proves little.
    for outcome in ("valid", "inapplicable", "goal_unmet"):
        assert counts[outcome] >= plans // 10, (outcome, dict(counts))


def test_same_verdict_and_failing_step_as_unified_planning() -> None:
    counts, diffs = _compare(walks_per_problem=3, max_len=10, seed=0)
    _check(counts, diffs, at_least=300)


@pytest.mark.slow
def test_same_verdict_and_failing_step_as_unified_planning_1000_plans() -> None:
    counts, diffs = _compare(walks_per_problem=11, max_len=16, seed=1)
    _check(counts, diffs, at_least=1000)


# ------------------------------------------------- ill-formed steps (UP refuses them)


@pytest.mark.parametrize(("domain", "problem"), PAIRS)
def test_ill_formed_steps_classified_at_their_step(domain: str, problem: str) -> None:
    from unified_planning.plans import ActionInstance

    task, ref = shipped_task(domain, problem), up_problem(domain, problem)
    rng = random.Random(f"ill/{domain}/{problem}")
    walk = random_walk(task, rng, 6)
    assert walk, "every shipped problem has an applicable first action"
    i = rng.randrange(len(walk))
    lines = format_plan(walk).splitlines()
    act = walk[i]
    cases: list[tuple[str, Reason]] = [
        (f"({act.name} {' '.join(act.args)} {act.args[0] if act.args else 'x'})", Reason.WRONG_ARITY),
        (f"(teleport-everything {' '.join(act.args)})", Reason.UNKNOWN_ACTION),
    ]
    if act.args:
        cases.append((f"({act.name} zz-nowhere {' '.join(act.args[1:])})", Reason.UNKNOWN_OBJECT))
    wrong = replace_argument(task, act, rng, type_correct=False)
    if wrong is not None:
        cases.append((f"({wrong[0]} {' '.join(wrong[1])})", Reason.WRONG_TYPE))
        # unified-planning agrees that this step is ill-typed.
        with pytest.raises(Exception, match="(?i)type"):
            ActionInstance(ref.action(wrong[0].lower()), [ref.object(o.lower()) for o in wrong[1]])
    for bad_line, reason in cases:
        text = "\n".join(lines[:i] + [bad_line] + lines[i + 1:])
        report = check_plan(task, text)
        assert (report.valid, report.failed_step, report.reason) == (False, i + 1, reason), report.message
        assert report.message.startswith(f"step {i + 1}")
