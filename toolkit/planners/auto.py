"""The default planner: our own optimal A* where it surely wins, Fast Downward otherwise.

The choice is made from the grounded task before any search, never by racing
the clock, so the same task always gets the same engine and the same plan,
however loaded the machine is (studies rely on this for seed determinism):

* the relaxed-reachable grounding (:meth:`toolkit.task.Task.grounding`) from the
  start state is computed (it honours the time limit);
* our A* runs when the task is small (at most ``max_actions`` ground actions and
  ``max_atoms`` fluent atoms: ViPlan's Blocksworld and household tasks, where
  Fast Downward's few hundred ms of fixed cost per call dominates), or when actions have
  conditional effects, which FD's optimal configurations do not all support;
* Fast Downward's optimal configuration runs otherwise (A* with LM-cut, or hmax
  where actions have conditional effects: :func:`toolkit.planners.fd.optimal_search`).

A small task whose state space still outgrows ``max_states`` generated states
goes on to Fast Downward with the remaining time (a state count, not the clock).
"""

from __future__ import annotations

import time

from toolkit.planners.base import (GoalArg, InitArg, PlanResult, PlanStatus, Stopwatch, goal_condition,
                                   numeric_refusal, start_state)
from toolkit.planners.fd import FastDownwardPlanner
from toolkit.planners.search import AStarPlanner
from toolkit.reach import GroundingError
from toolkit.task import Task


class AutoPlanner:
    """Optimal planning: A* of our own on small tasks, Fast Downward (``fd-opt``) on the rest."""

    def __init__(self, unknown_as: bool = False, max_states: int = 100_000, max_actions: int = 50,
                 max_atoms: int = 40) -> None:
        self.name = "auto"
        self.optimal = True
        self.unknown_as = unknown_as
        self.max_actions = max_actions
        self.max_atoms = max_atoms
        self.own = AStarPlanner(unknown_as=unknown_as, max_states=max_states)
        self.fd = FastDownwardPlanner("fd-opt", "optimal", optimal=True, unknown_as=unknown_as)

    def config(self) -> str:
        return (f"auto(max_states={self.own.max_states},max_actions={self.max_actions},"
                f"max_atoms={self.max_atoms},unknown_as={self.unknown_as})")

    def prefers_own(self, task: Task, state: frozenset) -> bool:
        """Whether our own search gets this task (decided from the grounded task's size)."""
        if task.derived is not None:
            return False  # our search has no axioms: Fast Downward's does
        grounding = task.grounding(state)
        if any(a.effect.conditional for a in grounding.actions):
            return True
        fluents = {atom for a in grounding.actions for atom in a.effect.adds | a.effect.dels}
        return len(grounding.actions) <= self.max_actions and len(fluents) <= self.max_atoms

    def solve(self, task: Task, *, init: InitArg = None, goal: GoalArg = None, timeout: float = 60.0) -> PlanResult:
        # a study's A* counts CPU seconds (benchmarks.episode.make_planner): so does the hand-over to FD
        clock = Stopwatch(timeout, cpu=getattr(self.own, "cpu_time", False))
        refused = numeric_refusal(task, self.name, time.perf_counter())
        if refused is not None:
            return refused
        state = start_state(task, init, self.unknown_as)
        goal_cond = goal_condition(task, goal)
        try:
            task.grounding(state, deadline=clock.deadline)
        except GroundingError as exc:
            if not exc.timeout:
                raise
            return PlanResult(PlanStatus.TIMEOUT, (), clock.elapsed(), self.name, str(exc))
        expanded = 0
        if self.prefers_own(task, state):
            first = self.own.solve(task, init=state, goal=goal_cond, timeout=max(timeout - clock.used(), 0.1))
            if first.status is not PlanStatus.TIMEOUT or clock.expired():
                return first
            expanded = first.expanded
        second = self.fd.solve(task, init=state, goal=goal_cond, timeout=max(timeout - clock.used(), 0.1))
        message = f"no plan within {timeout:.3g}s" if second.status is PlanStatus.TIMEOUT else second.message
        return PlanResult(second.status, second.plan, clock.elapsed(), f"auto>{second.planner}", message,
                          second.stderr_tail, expanded=expanded, optimal=second.optimal)
