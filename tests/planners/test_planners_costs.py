"""Every planner on action-cost tasks: optimal planners return a cheapest plan, not a shortest one.

``roads`` (tests/core/data/costs) has a 1-step route of cost 20 and a 4-step route
of cost 8: a planner that counts steps returns the first. Fast Downward gets the
costs through both unified-planning routes (direct ``MinimizeActionCosts`` and
cost PDDL text).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.cli import main
from toolkit.planners import PLANNERS, get_planner
from toolkit.planners.fd import FastDownwardPlanner
from toolkit.task import load_task

DATA = Path(__file__).parent.parent / "core" / "data" / "costs"
ROADS = (DATA / "roads" / "domain.pddl", DATA / "roads" / "problem.pddl")
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")


@pytest.mark.parametrize("name", sorted(PLANNERS))
def test_every_planner_minimises_cost_when_optimal(name: str) -> None:
    task = load_task(*ROADS)
    result = get_planner(name).solve(task, timeout=60)
    assert result.solved, result.message
    if result.optimal:
        assert result.cost == 8 and len(result.plan) == 4, [str(a) for a in result.plan]
    else:
        assert result.cost >= 8
    assert result.to_json()["cost"] == result.cost


@pytest.mark.parametrize("translation", ["direct", "text"])
def test_fast_downward_gets_costs_through_both_routes(translation: str) -> None:
    task = load_task(*ROADS)
    up_problem = FastDownwardPlanner(translation=translation).up_problem(task, task.init, task.problem.goal)
    assert [type(q).__name__ for q in up_problem.quality_metrics] == ["MinimizeActionCosts"]
    result = FastDownwardPlanner("fd-opt", "astar(hmax())", optimal=True, translation=translation).solve(task)
    assert result.solved and result.cost == 8


def test_pgt_plan_on_an_ipc_action_cost_problem_is_optimal(capsys: pytest.CaptureFixture[str]) -> None:
    # transport p01: the optimal plan costs 54 (Fast Downward's A*/hmax agrees).
    folder = DATA / "transport-sat08-strips"
    assert main(["plan", str(folder / "domain.pddl"), str(folder / "problem.pddl"), "--planner", "astar"]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().splitlines()[-1].endswith("total cost 54 (optimal)")
    fd = get_planner("fd-opt").solve(load_task(folder / "domain.pddl", folder / "problem.pddl"), timeout=60)
    assert fd.solved and fd.cost == 54
