"""Optimal plan lengths for the efficiency ratio, with a time limit and an honest "unknown".

The efficiency ratio (LLM-BabyBench) needs the length of an optimal plan. We use
the planners registry (:func:`toolkit.planners.get_planner`; default ``auto``: the
toolkit's own A* with an admissible heuristic, then Fast Downward A*/hmax on
overflow) and keep a small blind breadth-first search here as the fallback for
when the planners package cannot be imported (and as an independent check in the
tests). Both are optimal for unit costs; when
the time (or state) budget runs out the length is ``None`` with status ``timeout``
and the ratio is reported as unknown, never guessed.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass

from toolkit.errors import PgtError
from toolkit.model import Atom, Number
from toolkit.task import Task


@dataclass(frozen=True)
class OptimalLength:
    """``length`` is None unless ``status`` is ``solved``.

    Under ``(:metric minimize (total-cost))`` the planner minimises cost: ``cost``
    is the optimum and ``length`` the length of that cheapest plan; without
    action costs both are the shortest length.
    """

    status: str  # solved | unsolvable | timeout | skipped | error
    length: int | None
    planner: str
    seconds: float
    message: str = ""
    cost: Number | None = None  # None: the same as length

    @property
    def optimal_cost(self) -> Number | None:
        return self.length if self.cost is None else self.cost

    def to_json(self) -> dict[str, object]:
        return {"status": self.status, "length": self.length, "cost": self.optimal_cost, "planner": self.planner,
                "seconds": round(self.seconds, 4), "message": self.message}


def bfs_optimal_length(task: Task, timeout: float = 10.0, max_states: int = 500_000,
                       init: frozenset[Atom] | None = None) -> OptimalLength:
    """Length of a shortest plan by breadth-first search (unit costs)."""
    start = time.perf_counter()
    if task.uses_costs:
        return OptimalLength("skipped", None, "bfs", 0.0, "breadth-first search ignores action costs")
    state0 = task.init if init is None else init
    if task.goal_holds(state0):
        return OptimalLength("solved", 0, "bfs", time.perf_counter() - start)
    actions = task.reachable_actions(state0)
    depth = {state0: 0}
    queue = deque([state0])
    while queue:
        state = queue.popleft()
        d = depth[state]
        if time.perf_counter() - start > timeout or len(depth) > max_states:
            return OptimalLength("timeout", None, "bfs", time.perf_counter() - start,
                                 f"no answer within {timeout:g}s / {max_states} states")
        for act in actions:
            if not act.is_applicable(state):
                continue
            nxt = act.apply(state)
            if nxt in depth:
                continue
            if task.goal_holds(nxt):
                return OptimalLength("solved", d + 1, "bfs", time.perf_counter() - start)
            depth[nxt] = d + 1
            queue.append(nxt)
    return OptimalLength("unsolvable", None, "bfs", time.perf_counter() - start)


DEFAULT_PLANNER = "auto"  # the planners registry's optimal default: own A*, then Fast Downward A*/hmax


def _planner(name: str):
    """The registry planner ``name`` if the planners package is there, else None (use BFS)."""
    try:
        from toolkit.planners import get_planner
    except ImportError:
        return None
    return get_planner(name)  # an unknown name raises UnknownSymbolError (bad input)


def optimal_length(task: Task, timeout: float = 10.0, use_planner: bool = True,
                   planner: str = DEFAULT_PLANNER) -> OptimalLength:
    """Optimal plan length from the task's initial state (registry planner if available, else BFS).

    A planner that does not certify optimality (e.g. ``fd-lama``) gives status ``error``:
    an efficiency ratio against a non-optimal length would be meaningless.
    """
    solver = _planner(planner) if use_planner else None
    if solver is None:
        return bfs_optimal_length(task, timeout)
    start = time.perf_counter()
    try:
        result = solver.solve(task, timeout=timeout)
    except PgtError as exc:  # e.g. the planner crashed: fall back, and say so
        fallback = bfs_optimal_length(task, timeout)
        return OptimalLength(fallback.status, fallback.length, "bfs", fallback.seconds,
                             f"planner {planner} failed ({exc}); used breadth-first search")
    status = result.status.value
    if status == "solved" and not result.optimal:
        return OptimalLength("error", None, result.planner, time.perf_counter() - start,
                             f"planner {result.planner} does not certify optimality; choose an optimal one")
    return OptimalLength(status, len(result.plan) if status == "solved" else None, result.planner,
                         time.perf_counter() - start, result.message, result.cost)
