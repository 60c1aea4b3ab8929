"""Fast Downward through unified-planning and up-fast-downward.

The general engine: any task in the toolkit's fragment, large or small. Two
configurations are registered: ``fd-lama`` (lama-first, satisficing; fast, plans
often far from optimal) and ``fd-opt`` (A* with hmax; optimal, and unlike
LM-cut it accepts conditional effects, which the ViPlan Blocksworld uses). Each
call pays a fixed cost of roughly 100-200 ms (translator and search processes).

Statuses are mapped from UP's result: solved, unsolvable (proven or by
exhausted search), timeout, unsupported (UP refused the problem kind), crashed
(internal error or memory out, with the tail of the planner's stderr/log).
"""

from __future__ import annotations

import time
from typing import Any

from toolkit.planners.base import (
    GoalArg, InitArg, PlanResult, PlanStatus, goal_condition, recheck, start_state,
)
from toolkit.planners.up_bridge import (
    GoalNeverHolds, Untranslatable, to_up_problem, to_up_problem_via_text, without_inert_actions,
)
from toolkit.task import GroundAction, Task

_TAIL = 2000


class FastDownwardPlanner:
    """Fast Downward with a fixed search configuration.

    Args:
        name: registry name, for example ``fd-lama``.
        search: an FD search string such as ``astar(hmax())``, or None for the
            engine's default (lama-first).
        optimal: whether ``search`` is an optimal configuration.
        unknown_as: truth value of unknown atoms when planning from a belief.
        translation: ``direct`` (build UP objects) or ``text`` (UP's PDDL reader).
    """

    def __init__(self, name: str = "fd-lama", search: str | None = None, optimal: bool = False,
                 unknown_as: bool = False, translation: str = "direct") -> None:
        self.name, self.search, self.optimal = name, search, optimal
        self.unknown_as = unknown_as
        self.translation = translation

    def config(self) -> str:
        return f"fd({self.search or 'lama-first'},unknown_as={self.unknown_as})"

    def up_problem(self, task: Task, state: frozenset, goal) -> Any:
        objects = dict(task.problem.objects)
        if self.translation == "direct":
            try:
                return without_inert_actions(to_up_problem(task.domain, objects, state, goal))
            except Untranslatable:
                pass
        return without_inert_actions(to_up_problem_via_text(task.domain, objects, state, goal))

    def solve(self, task: Task, *, init: InitArg = None, goal: GoalArg = None, timeout: float = 60.0) -> PlanResult:
        t0 = time.perf_counter()
        state = start_state(task, init, self.unknown_as)
        goal_cond = goal_condition(task, goal)
        try:
            res = self._run(self.up_problem(task, state, goal_cond), timeout)
        except GoalNeverHolds as exc:
            return PlanResult(PlanStatus.UNSOLVABLE, (), time.perf_counter() - t0, self.name, str(exc))
        except Exception as exc:  # noqa: BLE001 - any UP failure is a result, not a crash of ours
            status = PlanStatus.UNSUPPORTED if "support" in str(exc).lower() else PlanStatus.CRASHED
            return PlanResult(status, (), time.perf_counter() - t0, self.name,
                              message=f"{type(exc).__name__}: {exc}"[:500])
        return self._convert(task, state, goal_cond, res, time.perf_counter() - t0, timeout)

    def _run(self, problem: Any, timeout: float) -> Any:
        from unified_planning import shortcuts as up

        env = up.get_environment()
        env.credits_stream = None
        params = {"fast_downward_search_config": self.search} if self.search else {}
        with up.OneshotPlanner(name="fast-downward", params=params, problem_kind=problem.kind) as planner:
            return planner.solve(problem, timeout=timeout)

    def _convert(self, task: Task, state: frozenset, goal_cond, res: Any, elapsed: float,
                 timeout: float) -> PlanResult:
        from unified_planning.engines import PlanGenerationResultStatus as S

        logs = "\n".join(msg.message for msg in (res.log_messages or []) if msg.message)
        tail = logs[-_TAIL:]
        st = res.status
        if st in (S.SOLVED_SATISFICING, S.SOLVED_OPTIMALLY):
            try:
                plan = tuple(self._ground(task, a) for a in res.plan.actions)
            except Exception as exc:  # noqa: BLE001
                return PlanResult(PlanStatus.CRASHED, (), elapsed, self.name, f"cannot map plan back: {exc}", tail)
            result = PlanResult(PlanStatus.SOLVED, plan, elapsed, self.name, optimal=self.optimal)
            return recheck(task, state, goal_cond, plan, result)
        if st in (S.UNSOLVABLE_PROVEN, S.UNSOLVABLE_INCOMPLETELY):
            return PlanResult(PlanStatus.UNSOLVABLE, (), elapsed, self.name, "no plan exists (search exhausted)")
        if st == S.TIMEOUT or elapsed > timeout:
            return PlanResult(PlanStatus.TIMEOUT, (), elapsed, self.name, f"no plan within {timeout:g}s", tail)
        if st == S.UNSUPPORTED_PROBLEM:
            return PlanResult(PlanStatus.UNSUPPORTED, (), elapsed, self.name, "planner does not support this problem", tail)
        return PlanResult(PlanStatus.CRASHED, (), elapsed, self.name, f"planner ended with {st.name}", tail)

    @staticmethod
    def _ground(task: Task, up_action: Any) -> GroundAction:
        args = [str(p.object().name) if p.is_object_exp() else str(p) for p in up_action.actual_parameters]
        return task.action(up_action.action.name, args)
