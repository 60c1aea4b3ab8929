"""The default planner for grounding loops: our own optimal A*, then Fast Downward.

ViPlan-size problems are solved optimally by :class:`~toolkit.planners.search.AStarPlanner`
in milliseconds. When a task is too large for it (more than ``max_states``
generated states), Fast Downward's optimal configuration (A* with hmax), which
scales further, gets the rest of the time limit.

The switch depends on the state count only, never on the clock, so the same
task always gets the same engine and the same plan, however loaded the machine
is (studies rely on this for seed determinism). The default budget of 100,000
states covers the whole state space of the column Blocksworld with 6 blocks and
4 columns (60,480 states).
"""

from __future__ import annotations

from toolkit.planners.base import GoalArg, InitArg, PlanResult, PlanStatus, Stopwatch, goal_condition, start_state
from toolkit.planners.fd import FastDownwardPlanner
from toolkit.planners.search import AStarPlanner
from toolkit.task import Task


class AutoPlanner:
    """Optimal planning: A* of our own first, Fast Downward (A*/hmax) beyond ``max_states``."""

    def __init__(self, unknown_as: bool = False, max_states: int = 100_000) -> None:
        self.name = "auto"
        self.unknown_as = unknown_as
        self.own = AStarPlanner(unknown_as=unknown_as, max_states=max_states)
        self.fd = FastDownwardPlanner("fd-opt", "astar(hmax())", optimal=True, unknown_as=unknown_as)

    def config(self) -> str:
        return f"auto(max_states={self.own.max_states},unknown_as={self.unknown_as})"

    def solve(self, task: Task, *, init: InitArg = None, goal: GoalArg = None, timeout: float = 60.0) -> PlanResult:
        clock = Stopwatch(timeout)
        state = start_state(task, init, self.unknown_as)
        goal_cond = goal_condition(task, goal)
        first = self.own.solve(task, init=state, goal=goal_cond, timeout=timeout)
        if first.status is not PlanStatus.TIMEOUT or clock.expired():
            return first
        second = self.fd.solve(task, init=state, goal=goal_cond, timeout=max(timeout - clock.elapsed(), 0.1))
        return PlanResult(second.status, second.plan, clock.elapsed(), f"auto>{second.planner}", second.message,
                          second.stderr_tail, expanded=first.expanded, optimal=second.optimal)
