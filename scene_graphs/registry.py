"""The world registry: PDDL domain name -> world factory (a plain dict).

Add a world by adding one entry; ``make_world`` picks by the task's domain name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from scene_graphs.world import GraphWorld
from toolkit.errors import UnknownSymbolError
from toolkit.task import Task


def _blocksworld(task: Task, **kw: Any) -> GraphWorld:
    from scene_graphs.blocksworld import BlocksworldWorld

    kw.pop("layout", None)
    kw.pop("render_mode", None)  # blocks are already pictures: coloured blocks, column names the questions use
    kw.pop("labels", None)
    return BlocksworldWorld(task, **kw)


def _household(task: Task, **kw: Any) -> GraphWorld:
    from scene_graphs.household import HouseholdWorld

    return HouseholdWorld(task, **kw)


def _babyai(task: Task, **kw: Any) -> Any:
    from scene_graphs.babyai import BabyAIWorld  # minigrid (extra babyai) loads only for BabyAI tasks

    return BabyAIWorld(task, failure_prob=kw.get("failure_prob", 0.0), seed=kw.get("seed"))


def _lohoravens(task: Task, **kw: Any) -> Any:
    from scene_graphs.lohoravens import LohoWorld

    return LohoWorld(task, failure_prob=kw.get("failure_prob", 0.0), seed=kw.get("seed"))


WORLDS: dict[str, Callable[..., Any]] = {
    "blocksworld": _blocksworld,
    "igibson": _household,
    "babyai": _babyai,
    "lohoravens": _lohoravens,
}


def make_world(task: Task, *, failure_prob: float = 0.0, seed: int | None = None,
               layout: str | Path | None = None, render_mode: str = "schematic",
               labels: bool | None = None) -> Any:
    """The world for ``task``'s domain (by the domain's PDDL name): a :class:`GraphWorld`, or a world
    behind the same ``Environment`` protocol that wraps another library (BabyAI) or its own state (LoHoRavens).

    ``render_mode``/``labels`` choose how the household view is drawn (see
    :func:`scene_graphs.views.check_render_mode`); Blocksworld has one view.

    Raises:
        UnknownSymbolError: no world is registered for the domain.
    """
    factory = WORLDS.get(task.domain.name.lower())
    if factory is None:
        raise UnknownSymbolError("world for domain", task.domain.name, WORLDS)
    return factory(task, failure_prob=failure_prob, seed=seed, layout=layout, render_mode=render_mode, labels=labels)
