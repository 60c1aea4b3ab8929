"""Fast Downward through unified-planning: few calls, each ~150 ms."""

from __future__ import annotations

import json

from toolkit.cli import main
from toolkit.domains import shipped_domain, shipped_problem
from toolkit.model import Atom
from toolkit.planners import PlanStatus, get_planner
from toolkit.planners.search import AStarPlanner
from toolkit.planners.up_bridge import to_up_problem, to_up_problem_via_text
from toolkit.task import load_task


def test_fd_optimal_handles_conditional_effects_and_matches_astar():
    task = load_task(shipped_domain("blocksworld"), shipped_problem("blocksworld", "medium_problem_0"))
    fd = get_planner("fd-opt").solve(task, timeout=30)
    assert fd.status is PlanStatus.SOLVED and fd.optimal
    assert len(fd.plan) == len(AStarPlanner().solve(task).plan)


def test_fd_lama_plans_are_rechecked_and_valid():
    task = load_task(shipped_domain("household"), shipped_problem("household", "packing_food_for_work_0"))
    result = get_planner("fd-lama").solve(task, timeout=30)
    assert result.solved and not result.optimal
    state = task.init
    for act in result.plan:
        assert act.is_applicable(state)
        state = act.apply(state)
    assert task.goal_holds(state)


def test_fd_unsolvable():
    task = load_task(shipped_domain("blocksworld"), shipped_problem("blocksworld", "simple_problem_1"))
    result = get_planner("fd-lama").solve(task, goal=[Atom("rightOf", ("c1", "c4"))], timeout=30)
    assert result.status is PlanStatus.UNSOLVABLE


def test_direct_and_text_translations_agree():
    task = load_task(shipped_domain("household"), shipped_problem("household", "sorting_groceries_0"))
    args = (task.domain, dict(task.problem.objects), task.init, task.problem.goal)
    direct, text = to_up_problem(*args), to_up_problem_via_text(*args)
    assert len(direct.actions) == len(text.actions) == len(task.domain.actions)
    assert len(direct.fluents) == len(text.fluents)
    assert {str(o.name) for o in direct.all_objects} == {str(o.name) for o in text.all_objects}


def test_cli_plan_and_solve_all(capsys):
    problem = str(shipped_problem("blocksworld", "simple_problem_1"))
    assert main(["plan", "blocksworld", problem]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1].startswith("; astar: solved, 3 steps") and "(optimal)" in out
    assert main(["plan", "blocksworld", problem, "--planner", "bfs", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "solved" and data["length"] == 3 and data["optimal"]
    other = str(shipped_problem("blocksworld", "simple_problem_0"))
    assert main(["solve-all", "blocksworld", problem, other, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["length"] for r in rows] == [3, 4]


def test_cli_plan_cache_file_is_shared_across_calls(capsys, tmp_path):
    """``--cache`` (imported only when given) stores the plan; the next call, with the fallback too, replays it."""
    problem = str(shipped_problem("blocksworld", "simple_problem_1"))
    cache = str(tmp_path / "plans.sqlite")
    assert main(["plan", "blocksworld", problem, "--cache", cache]) == 0
    first = capsys.readouterr().out
    assert "[cached]" not in first and (tmp_path / "plans.sqlite").exists()
    assert main(["plan", "blocksworld", problem, "--cache", cache, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["cached"] is True
    assert main(["plan", "blocksworld", problem, "--cache", cache, "--fallback", "satisficing"]) == 0
    again = capsys.readouterr().out
    assert again.splitlines()[:-1] == first.splitlines()[:-1] and "(optimal)" in again
