"""unified-planning's ``OneshotPlanner`` exactly as ViPlan calls it: the ViPlan protocols' planner.

ViPlan's ``get_plan`` (``viplan/experiments/benchmark_blocksworld_plan.py``; the same
in ``benchmark_igibson_plan.py``) reads the domain and problem *files* with UP's
``PDDLReader``, writes the believed state into a deep copy of the problem
(``update_problem``: every initial value that differs from the belief is
overwritten), and solves it with ``OneshotPlanner(problem_kind=problem.kind)`` in a
temporary working folder. With the pinned dependencies UP picks ``fast-downward``
first (its preference list), i.e. lama-first on UP's own PDDL. Plans depend on
ties FD breaks by the order of objects and actions, so the problem is read from
the same files, never re-printed by pgt: that is what makes the first plans
ViPlan's (``--planner fd-lama`` on pgt's canonical PDDL differs in ties).

Statuses as ViPlan reads them: ``SOLVED_SATISFICING`` is a plan; any other
status is "No plan found" (unsolvable); an exception is a planner crash.
Every plan is mapped back onto the task (names case-insensitively: UP lower-cases
them) and re-checked by pgt's own verifier.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import tempfile
import time
from collections import OrderedDict
from typing import Any

from toolkit.errors import PgtError
from toolkit.model import Atom
from toolkit.planners.base import (GoalArg, InitArg, PlanResult, PlanStatus, derived_refusal, goal_condition, recheck,
                                   start_state)
from toolkit.task import Task


@functools.lru_cache(maxsize=32)
def _read(domain_path: str, problem_path: str) -> Any:
    from unified_planning.io import PDDLReader
    from unified_planning.shortcuts import get_environment

    get_environment().credits_stream = None  # ViPlan: "Disable planner printouts"
    return PDDLReader().parse_problem(domain_path, problem_path)


def _key(name: str, args: list[str]) -> tuple[str, tuple[str, ...]]:
    return name.lower(), tuple(a.lower() for a in args)


class UpOneshotPlanner:
    """ViPlan's planner call: UP's ``OneshotPlanner`` chosen by problem kind, on the original files."""

    name = "up-oneshot"

    def __init__(self, unknown_as: bool = False, memo_size: int = 4096) -> None:
        self.unknown_as = unknown_as
        # FD is deterministic: the same files and belief give the same plan, so a study's repeats
        # (seeds, an oracle's identical beliefs) cost one call each. Keyed by the files, whose
        # object order decides FD's ties, not by pgt's model of them.
        self._memo: OrderedDict[tuple[str, str, frozenset[Atom]], PlanResult] = OrderedDict()
        self.memo_size = memo_size

    def solve(self, task: Task, *, init: InitArg = None, goal: GoalArg = None, timeout: float = 60.0) -> PlanResult:
        if goal is not None:
            raise PgtError("the up-oneshot planner plans for the problem's own goal only (as ViPlan does)")
        t0 = time.perf_counter()
        refused = derived_refusal(task, self.name, t0)
        if refused is not None:
            return refused
        state = start_state(task, init, self.unknown_as)
        goal_cond = goal_condition(task, goal)
        key = (task.domain.path, task.problem.path, state)
        hit = self._memo.get(key)
        if hit is not None:
            self._memo.move_to_end(key)
            return dataclasses.replace(hit, time=time.perf_counter() - t0, cached=True)
        result = self._solve(task, state, goal_cond, t0)
        if result.status is not PlanStatus.CRASHED:
            self._memo[key] = result
            if len(self._memo) > self.memo_size:
                self._memo.popitem(last=False)
        return result

    def _solve(self, task: Task, state: frozenset[Atom], goal_cond: Any, t0: float) -> PlanResult:
        try:
            problem = self._problem_for(task, state)
            result = self._oneshot(problem)
        except Exception as exc:  # noqa: BLE001 - ViPlan: "Planner crashed with error" -> no plan, episode ends
            return PlanResult(PlanStatus.CRASHED, (), time.perf_counter() - t0, self.name,
                              message=f"{type(exc).__name__}: {exc}"[:500])
        from unified_planning.engines import PlanGenerationResultStatus

        elapsed = time.perf_counter() - t0
        if result.status != PlanGenerationResultStatus.SOLVED_SATISFICING:
            return PlanResult(PlanStatus.UNSOLVABLE, (), elapsed, self.name, message=f"UP: {result.status.name}")
        plan = tuple(task.action(a.action.name, [str(p) for p in a.actual_parameters]) for a in result.plan.actions)
        return recheck(task, state, goal_cond, plan, PlanResult(PlanStatus.SOLVED, plan, elapsed, self.name))

    def _problem_for(self, task: Task, state: frozenset[Atom]) -> Any:
        if task.domain.path.startswith("<") or task.problem.path.startswith("<"):
            raise PgtError("up-oneshot reads the domain and problem files, and this task has none")
        from unified_planning.shortcuts import get_environment

        original = _read(os.path.abspath(task.domain.path), os.path.abspath(task.problem.path))
        # ViPlan deep-copies, which under UP 1.3 yields expressions UP calls "not well-formed" unless the
        # original was planned once first (main's `_ = get_plan(problem)`: "For some reason we need to plan
        # with the problem before updating it or it breaks ???"); clone() is UP's own copy, same problem.
        problem = original.clone()
        believed = {_key(a.predicate, list(a.args)) for a in state}
        manager = get_environment().expression_manager
        copies = {str(f): f for f in problem.initial_values}  # ViPlan's get_new_problem_fluent, by printed form
        for fluent, value in original.initial_values.items():  # ViPlan's update_problem
            wanted = _key(fluent.fluent().name, [str(x) for x in fluent.args]) in believed
            if value.is_bool_constant() and value.is_true() != wanted:
                problem.set_initial_value(copies[str(fluent)], manager.TRUE() if wanted else manager.FALSE())
        return problem

    @staticmethod
    def _oneshot(problem: Any) -> Any:
        from unified_planning.shortcuts import OneshotPlanner

        with OneshotPlanner(problem_kind=problem.kind) as planner:
            # ViPlan solves in a temporary folder ("to avoid temporary file conflicts ... in job arrays")
            with tempfile.TemporaryDirectory(prefix="pgt-up-") as folder:
                old = os.getcwd()
                try:
                    os.chdir(folder)
                    return planner.solve(problem)
                finally:
                    os.chdir(old)

