"""benchmarks/bench_viplan_first_plans.py: what part of ViPlan's first plan a grounder episode's log shows.

ViPlan's ``check_plan`` pops the first plan's actions, replans after the first failed
one, and on an exception breaks before logging the popped action; the reading must
take each case so (the opt-in check against the release is in
tests/planners/test_up_oneshot_engine.py).
"""

from __future__ import annotations

from benchmarks.bench_viplan_first_plans import _agrees, logged_plan

PLAN = ["moveblock(r, c1)", "moveblock(g, c2)", "moveblock(b, c3)", "moveblock(y, c4)"]


def _attempt(action: str, correct: bool = True) -> dict:
    return {"action": action, "action_correct": correct}


def test_the_attempts_up_to_the_first_failure_are_a_prefix():
    data = {"action_results": [_attempt("moveblock(R, c1)"), _attempt("moveblock(g, c2)", False),
                               _attempt("moveblock(o, c1)")], "remaining_actions": ["moveblock(p, c2)"]}
    logged, whole = logged_plan(data, cap=20)
    assert (logged, whole) == (PLAN[:2], False)
    assert _agrees(PLAN, logged, whole) and not _agrees(["moveblock(g, c2)", *PLAN], logged, whole)


def test_at_the_step_cap_the_remaining_actions_finish_the_plan():
    data = {"action_results": [_attempt(a) for a in PLAN[:2]], "remaining_actions": PLAN[2:]}
    logged, whole = logged_plan(data, cap=2)
    assert (logged, whole) == (PLAN, True)
    assert _agrees(PLAN, logged, whole) and not _agrees([*PLAN, "moveblock(r, c2)"], logged, whole)


def test_an_exception_drops_one_popped_action_from_the_log():
    data = {"action_results": [_attempt(PLAN[0])], "remaining_actions": PLAN[2:]}
    logged, whole = logged_plan(data, cap=20)
    assert (logged, whole) == ([PLAN[0], None, *PLAN[2:]], True)
    assert _agrees(PLAN, logged, whole) and not _agrees(PLAN[:3], logged, whole)


def test_a_plan_run_to_its_end_is_whole():
    logged, whole = logged_plan({"action_results": [_attempt(a) for a in PLAN], "remaining_actions": []}, cap=20)
    assert (logged, whole) == (PLAN, True) and not _agrees(None, logged, whole)
