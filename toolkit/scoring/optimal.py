"""Optimal plan lengths for the efficiency ratio, with a time limit and an honest "unknown".

The efficiency ratio (LLM-BabyBench) needs the length of an optimal plan. We use
the toolkit's optimal planner (:class:`toolkit.planners.search.AStarPlanner`, A*
with an admissible heuristic) when it is importable, and otherwise a small blind
breadth-first search over :meth:`Task.applicable_actions` kept here, so scoring
works even without the planners package. Both are optimal for unit costs; when
the time (or state) budget runs out the length is ``None`` with status ``timeout``
and the ratio is reported as unknown, never guessed.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass

from toolkit.model import Atom
from toolkit.task import Task


@dataclass(frozen=True)
class OptimalLength:
    """``length`` is None unless ``status`` is ``solved``."""

    status: str  # solved | unsolvable | timeout | skipped | error
    length: int | None
    planner: str
    seconds: float
    message: str = ""

    def to_json(self) -> dict[str, object]:
        return {"status": self.status, "length": self.length, "planner": self.planner,
                "seconds": round(self.seconds, 4), "message": self.message}


def bfs_optimal_length(task: Task, timeout: float = 10.0, max_states: int = 500_000,
                       init: frozenset[Atom] | None = None) -> OptimalLength:
    """Length of a shortest plan by breadth-first search (unit costs)."""
    start = time.perf_counter()
    state0 = task.init if init is None else init
    if task.goal_holds(state0):
        return OptimalLength("solved", 0, "bfs", time.perf_counter() - start)
    actions = list(task.all_actions())
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


def _planner():
    """The toolkit's optimal planner if the planners package is there, else None."""
    try:
        from toolkit.planners.search import AStarPlanner
    except ImportError:
        return None
    return AStarPlanner()


def optimal_length(task: Task, timeout: float = 10.0, use_planner: bool = True) -> OptimalLength:
    """Optimal plan length from the task's initial state (A* if available, else BFS)."""
    planner = _planner() if use_planner else None
    if planner is None:
        return bfs_optimal_length(task, timeout)
    start = time.perf_counter()
    try:
        result = planner.solve(task, timeout=timeout)
    except Exception as exc:  # a planner bug must not sink a whole batch: fall back, and say so
        fallback = bfs_optimal_length(task, timeout)
        return OptimalLength(fallback.status, fallback.length, "bfs", fallback.seconds,
                             f"planner {planner.name} failed ({exc}); used breadth-first search")
    status = result.status.value
    if status == "solved" and not result.optimal:
        return OptimalLength("error", None, result.planner, time.perf_counter() - start,
                             "planner did not certify optimality")
    return OptimalLength(status, len(result.plan) if status == "solved" else None, result.planner,
                         time.perf_counter() - start, result.message)
