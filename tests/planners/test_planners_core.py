"""Planner contract: optimal plans, distinct statuses, beliefs, goals, re-checking, cache."""

from __future__ import annotations

import json

import pytest

from toolkit.belief import BeliefState
from toolkit.domains import shipped_domain, shipped_problem
from toolkit.model import Atom
from toolkit.planners import PLANNERS, PlanCache, PlanStatus, get_planner
from toolkit.planners.base import PlanResult, recheck
from toolkit.planners.search import AStarPlanner
from toolkit.task import load_task
from toolkit.errors import UnknownSymbolError


def bw(name: str):
    return load_task(shipped_domain("blocksworld"), shipped_problem("blocksworld", name))


@pytest.mark.parametrize("domain,problem", [
    ("blocksworld", "medium_problem_0"), ("household", "sorting_groceries_0"), ("gripper", "gripper-4balls"),
    ("miconic-adl", "miconic-2"), ("household", "putting_away_toys_0"),
])
def test_astar_is_optimal_like_blind_bfs(domain, problem):
    task = load_task(shipped_domain(domain), shipped_problem(domain, problem))
    a = AStarPlanner().solve(task)
    b = AStarPlanner(heuristic="blind").solve(task)
    assert a.solved and b.solved and a.optimal
    assert len(a.plan) == len(b.plan)
    assert a.expanded <= b.expanded


def test_unsolvable_is_reported_not_raised():
    task = bw("simple_problem_1")
    result = AStarPlanner().solve(task, goal=[Atom("on", ("r", "r"))])
    assert result.status is PlanStatus.UNSOLVABLE and result.plan == ()


def test_unaddable_goal_is_a_dead_end_at_once():
    task = bw("simple_problem_1")
    result = AStarPlanner().solve(task, goal=[Atom("rightOf", ("c1", "c4"))])
    assert result.status is PlanStatus.UNSOLVABLE and result.expanded == 0


def test_timeout_status():
    result = AStarPlanner().solve(bw("hard_problem_0"), timeout=0.0)
    assert result.status is PlanStatus.TIMEOUT and "no plan within" in result.message


def test_state_budget_gives_timeout():
    result = AStarPlanner(max_states=50).solve(bw("hard_problem_0"))
    assert result.status is PlanStatus.TIMEOUT


def _valid_from(task, state, plan) -> bool:
    for act in plan:
        if not act.is_applicable(state):
            return False
        state = act.apply(state)
    return task.goal_holds(state)


def test_plan_from_belief_uses_the_documented_policy():
    task = bw("simple_problem_1")  # g on r in c1, b in c3
    probs = {a: (1.0 if a in task.init else 0.0) for a in task.all_atoms()}
    probs[Atom("clear", ("g",))] = 0.5  # unknown
    probs[Atom("inColumn", ("b", "c3"))] = 0.9  # likely true
    belief = BeliefState(probs)
    closed = AStarPlanner().solve(task, init=belief)  # unknown = false: g is covered, nothing can move it
    assert closed.status is PlanStatus.UNSOLVABLE
    optimistic = AStarPlanner(unknown_as=True).solve(task, init=belief)
    assert optimistic.solved
    assert _valid_from(task, belief.most_likely_state(unknown_as=True), optimistic.plan)
    probs[Atom("clear", ("g",))] = 0.7
    likely = AStarPlanner().solve(task, init=BeliefState(probs))
    assert likely.solved and _valid_from(task, task.init, likely.plan)


def test_plan_to_any_goal_from_any_state():
    task = bw("simple_problem_1")
    goal = [Atom("clear", ("r",)), Atom("clear", ("g",)), Atom("clear", ("b",))]
    result = AStarPlanner().solve(task, goal=goal)
    state = task.init
    for act in result.plan:
        state = act.apply(state)
    assert set(goal) <= state
    again = AStarPlanner().solve(task, init=state, goal=goal)
    assert again.solved and again.plan == ()


def test_invalid_plan_is_refused_as_crashed():
    task = bw("simple_problem_1")
    wrong = [task.action("moveBlock", ("r", "c1"))]
    fake = PlanResult(PlanStatus.SOLVED, tuple(wrong), planner="fake")
    checked = recheck(task, task.init, task.problem.goal, wrong, fake)
    assert checked.status is PlanStatus.CRASHED and checked.plan == ()
    assert checked.message.startswith("planner returned an invalid plan, refused: step ")


def test_cache_hit_in_memory_and_on_disk(tmp_path):
    task = bw("medium_problem_0")
    cache = PlanCache(path=tmp_path / "plans.sqlite")
    planner = get_planner("astar", cache=cache)
    first = planner.solve(task)
    second = planner.solve(task)
    assert not first.cached and second.cached
    assert [str(a) for a in second.plan] == [str(a) for a in first.plan]
    other = get_planner("astar", cache=PlanCache(path=tmp_path / "plans.sqlite"))  # another process, same file
    third = other.solve(task)
    assert third.cached and len(third.plan) == len(first.plan)
    assert first.optimal and second.optimal and third.optimal  # a hit keeps the proof of optimality
    assert not get_planner("bfs", cache=cache).solve(task).cached  # the configuration is part of the key


def test_cache_hit_claims_optimality_only_when_the_stored_result_did(tmp_path):
    task = bw("simple_problem_1")
    cache = PlanCache(path=tmp_path / "plans.sqlite")
    planner = get_planner("astar", cache=cache)
    planner.solve(task)
    value = cache._db.execute("SELECT value FROM plans").fetchone()[0]
    legacy = json.loads(value)
    del legacy["optimal"]  # a file written before optimality was stored
    cache._db.execute("UPDATE plans SET value = ?", (json.dumps(legacy),))
    cache.clear_memory()
    hit = planner.solve(task)
    assert hit.cached and not hit.optimal


def test_cache_ignores_a_corrupted_disk_entry(tmp_path):
    task = bw("simple_problem_1")
    cache = PlanCache(path=tmp_path / "plans.sqlite")
    planner = get_planner("astar", cache=cache)
    planner.solve(task)
    cache._db.execute("UPDATE plans SET value = ?", ('{"status": "solved", "plan": ["(moveBlock r c1)"], '
                                                     '"planner": "x"}',))
    cache.clear_memory()
    result = planner.solve(task)
    assert result.solved and not result.cached


def test_registry_and_unknown_name():
    assert {"auto", "astar", "bfs", "fd-opt", "fd-lama"} <= set(PLANNERS)
    with pytest.raises(UnknownSymbolError, match="did you mean fd-lama"):
        get_planner("fd-lamma")
