"""The efficiency ratio under action costs: optimal cost / plan cost (length without a cost metric)."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.scoring.optimal import bfs_optimal_length, optimal_length
from toolkit.scoring.plan import score_plan
from toolkit.task import load_task

ROADS = Path(__file__).parent.parent / "core" / "data" / "costs" / "roads"


def test_efficiency_compares_costs_not_lengths() -> None:
    task = load_task(ROADS / "domain.pddl", ROADS / "problem.pddl")
    best = optimal_length(task, planner="astar")
    assert (best.status, best.length, best.optimal_cost) == ("solved", 4, 8)
    short = score_plan(task, "(drive a e)", optimal=lambda: best)  # 1 step, cost 20
    assert short.valid and short.plan_length == 1 and short.plan_cost == 20
    assert short.efficiency == pytest.approx(8 / 20)
    assert short.to_json()["plan_cost"] == 20 and short.to_json()["optimal"]["cost"] == 8
    cheapest = score_plan(task, "(drive a b)\n(drive b c)\n(drive c d)\n(drive d e)", optimal=lambda: best)
    assert cheapest.efficiency == 1.0


def test_breadth_first_fallback_does_not_guess_under_costs() -> None:
    task = load_task(ROADS / "domain.pddl", ROADS / "problem.pddl")
    assert bfs_optimal_length(task).status == "skipped"
