"""An explicit satisficing fallback after an optimal planner runs out of time (``--fallback satisficing``).

Optimal search can fail to finish on IPC-size tasks (rovers p20: A* with LM-cut
or hmax finds no plan in minutes, lama-first plans in seconds). The toolkit never
passes a satisficing plan off as optimal: without the flag, ``pgt plan`` reports
the timeout and says how to get a plan; with it, the optimal planner gets
``share`` of the time limit and, if it ends without a plan by timeout, lama-first
gets the rest. The result then says so: ``planner`` reads ``auto>fd-opt,
fallback fd-lama``, ``optimal`` is false and the message says the plan is not
proven optimal. Unsolvable verdicts of the optimal planner stand (no fallback).
"""

from __future__ import annotations

from toolkit.planners.base import GoalArg, InitArg, PlanResult, PlanStatus, Planner, Stopwatch, goal_condition, start_state
from toolkit.task import Task

FALLBACKS = ("none", "satisficing")


def timeout_hint(result: PlanResult) -> str:
    """What to tell a user whose optimal search ran out of time."""
    return (f"{result.message}; optimal search did not finish: raise --timeout, or get a plan that is not "
            "proven optimal with --planner fd-lama or --fallback satisficing")


class FallbackPlanner:
    """``primary`` (optimal) with ``share`` of the time; ``secondary`` (satisficing) on its timeout."""

    def __init__(self, primary: Planner, secondary: Planner, share: float = 0.75) -> None:
        if not 0 < share < 1:
            raise ValueError("share must be between 0 and 1")
        self.primary, self.secondary, self.share = primary, secondary, share
        self.name = f"{primary.name}+fallback"
        self.optimal = False  # its plans may come from the satisficing planner
        self.unknown_as = getattr(primary, "unknown_as", False)

    def config(self) -> str:
        inner = getattr(self.primary, "config", lambda: self.primary.name)()
        return f"fallback({inner},{self.secondary.name},share={self.share})"

    def solve(self, task: Task, *, init: InitArg = None, goal: GoalArg = None, timeout: float = 60.0) -> PlanResult:
        clock = Stopwatch(timeout)
        state = start_state(task, init, self.unknown_as)
        goal_cond = goal_condition(task, goal)
        first = self.primary.solve(task, init=state, goal=goal_cond, timeout=timeout * self.share)
        if first.status is not PlanStatus.TIMEOUT:
            return first
        left = timeout - clock.elapsed()
        second = self.secondary.solve(task, init=state, goal=goal_cond, timeout=max(left, 0.1))
        planner = f"{first.planner}, fallback {second.planner}"
        if not second.solved:
            return PlanResult(second.status, (), clock.elapsed(), planner,
                              f"optimal search: {first.message}; fallback: {second.message}", second.stderr_tail)
        return PlanResult(PlanStatus.SOLVED, second.plan, clock.elapsed(), planner,
                          f"not proven optimal: optimal search found no plan in {timeout * self.share:g}s "
                          f"({first.message})", optimal=False)
