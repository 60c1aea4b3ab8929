"""Planners: a protocol, our own optimal search, Fast Downward, a cache, a registry.

>>> from toolkit.domains import shipped_domain, shipped_problem
>>> from toolkit.task import load_task
>>> task = load_task(shipped_domain("blocksworld"), shipped_problem("blocksworld", "simple_problem_1"))
>>> result = get_planner("astar").solve(task)
>>> result.status.value, len(result.plan), result.optimal
('solved', 3, True)

``PLANNERS`` is a plain dict whose keys are the ``--planner`` choices of ``pgt
plan`` and ``pgt solve-all``; values build a fresh planner. ``DEFAULT_PLANNER``
is the choice for grounding loops (optimal; see docs/planning.md for the figures).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from toolkit.errors import UnknownSymbolError
from toolkit.planners.auto import AutoPlanner
from toolkit.planners.base import Planner, PlanResult, PlanStatus, start_state
from toolkit.planners.fd import FastDownwardPlanner
from toolkit.planners.search import AStarPlanner

if TYPE_CHECKING:
    from toolkit.planners.cache import CachedPlanner, PlanCache

PLANNERS: dict[str, Callable[..., Planner]] = {
    "auto": AutoPlanner,
    "astar": AStarPlanner,
    "bfs": lambda **kw: AStarPlanner(heuristic="blind", **kw),
    "fd-opt": lambda **kw: FastDownwardPlanner("fd-opt", "optimal", optimal=True, **kw),
    "fd-hmax": lambda **kw: FastDownwardPlanner("fd-hmax", "astar(hmax())", optimal=True, **kw),
    "fd-blind": lambda **kw: FastDownwardPlanner("fd-blind", "astar(blind())", optimal=True, **kw),
    "fd-lama": lambda **kw: FastDownwardPlanner("fd-lama", None, optimal=False, **kw),
    "up-oneshot": lambda **kw: _up_oneshot(**kw),
    "enhsp": lambda **kw: _enhsp(**kw),  # numeric fluents: ENHSP (the `numeric` extra), imported when chosen
    "auto-sat": lambda **kw: _auto_sat(**kw),  # auto, then fd-lama when the optimal search runs out of time
}
DEFAULT_PLANNER = "auto"


def _up_oneshot(**kw) -> Planner:
    # Imported on use: only the ViPlan protocols plan through unified-planning (seconds of import).
    from toolkit.planners.up_oneshot import UpOneshotPlanner

    return UpOneshotPlanner(**kw)


def _auto_sat(**kw) -> Planner:
    """``auto`` with 3/4 of the time, then lama-first on its timeout (:class:`~toolkit.planners.fallback.FallbackPlanner`).

    For agents that need a plan more than a shortest one (``pgt run --protocol pgt-grounder
    --planner auto-sat`` on IPC tasks whose ~30-step plans optimal search cannot finish in
    time, e.g. childsnack). Not the default: see docs/planning.md.
    """
    from toolkit.planners.fallback import FallbackPlanner

    return FallbackPlanner(AutoPlanner(**kw), PLANNERS["fd-lama"](**kw))


def _enhsp(**kw) -> Planner:
    from toolkit.planners.enhsp import EnhspPlanner

    return EnhspPlanner(**kw)


def get_planner(name: str = DEFAULT_PLANNER, *, cache: PlanCache | None = None, unknown_as: bool = False) -> Planner:
    """A planner by registry name, optionally wrapped with a cache.

    Raises:
        UnknownSymbolError: ``name`` is not a key of :data:`PLANNERS`.
    """
    factory = PLANNERS.get(name)
    if factory is None:
        raise UnknownSymbolError("planner", name, PLANNERS)
    planner = factory(unknown_as=unknown_as)
    if cache is None:
        return planner
    from toolkit.planners.cache import CachedPlanner

    return CachedPlanner(planner, cache)


def __getattr__(name: str):
    # The cache (and sqlite3) is imported only by those who use it: one less import per `pgt plan`.
    if name in ("CachedPlanner", "PlanCache"):
        from toolkit.planners import cache

        return getattr(cache, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["AStarPlanner", "AutoPlanner", "CachedPlanner", "DEFAULT_PLANNER", "FastDownwardPlanner", "PLANNERS",
           "PlanCache", "PlanResult", "PlanStatus", "Planner", "get_planner", "start_state"]
