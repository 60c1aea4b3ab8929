"""The world registry: PDDL domain name -> world factory (a plain dict), plug-ins, and the generic world.

Add a shipped world by adding one entry to :data:`WORLDS`; ``make_world`` picks by
the task's domain name. A user's own world lives in their own project and is
found without editing pgt, in this order:

1. ``--world module:Class`` or ``--world path/to/file.py:Class`` (``world=`` here): a class built as
   ``Class(task, failure_prob=..., seed=...)`` that implements
   :class:`toolkit.protocols.Environment` (subclass :class:`scene_graphs.world.GraphWorld`
   for networkx truth, an executor and a renderer in one file);
2. an entry point in the group ``pgt.worlds`` named after the PDDL domain
   (``[project.entry-points."pgt.worlds"] warehouse = "mypkg.world:WarehouseWorld"``);
3. the shipped :data:`WORLDS`;
4. else :class:`scene_graphs.generic.GenericWorld`: the PDDL core drawn by the
   generic renderer, so every domain has a picture.
"""

from __future__ import annotations

import functools
import importlib
from importlib import metadata
from pathlib import Path
from typing import Any, Callable

from toolkit.errors import PgtError
from toolkit.task import Task

ENTRY_POINT_GROUP = "pgt.worlds"


def _blocksworld(task: Task, **kw: Any) -> Any:
    from scene_graphs.blocksworld import BlocksworldWorld

    kw.pop("layout", None)
    kw.pop("render_mode", None)  # blocks are already pictures: coloured blocks, column names the questions use
    kw.pop("labels", None)
    return BlocksworldWorld(task, **kw)


def _household(task: Task, **kw: Any) -> Any:
    from scene_graphs.household import HouseholdWorld

    return HouseholdWorld(task, **kw)


def _babyai(task: Task, **kw: Any) -> Any:
    from scene_graphs.babyai import BabyAIWorld  # minigrid (extra babyai) loads only for BabyAI tasks

    return BabyAIWorld(task, failure_prob=kw.get("failure_prob", 0.0), seed=kw.get("seed"))


def _lohoravens(task: Task, **kw: Any) -> Any:
    from scene_graphs.lohoravens import LohoWorld

    return LohoWorld(task, failure_prob=kw.get("failure_prob", 0.0), seed=kw.get("seed"), labels=kw.get("labels"))


WORLDS: dict[str, Callable[..., Any]] = {
    "blocksworld": _blocksworld,
    "igibson": _household,
    "babyai": _babyai,
    "lohoravens": _lohoravens,
}


class WorldPluginError(PgtError):
    """A ``--world module:Class`` or ``pgt.worlds`` entry point that cannot be loaded."""


def load_world_class(spec: str) -> Callable[..., Any]:
    """The class (or factory) named ``module:Class``; one-line errors for a bad spec, module or name."""
    module_name, sep, attr = spec.rpartition(":")
    if not sep or not module_name or not attr:
        raise WorldPluginError(f"--world {spec}: expected MODULE:CLASS or FILE.py:CLASS, e.g. "
                               "mypkg.world:WarehouseWorld")
    if module_name.endswith(".py"):
        module = _module_from_file(spec, Path(module_name))
    else:
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise WorldPluginError(f"--world {spec}: cannot import {module_name} ({exc}); is its folder on "
                                   "PYTHONPATH or the package installed?") from None
    target: Any = module
    for part in attr.split("."):
        target = getattr(target, part, None)
        if target is None:
            raise WorldPluginError(f"--world {spec}: {module_name} has no {attr}")
    if not callable(target):
        raise WorldPluginError(f"--world {spec}: {attr} is not a class")
    return target


@functools.lru_cache(maxsize=16)
def _module_from_file(spec: str, path: Path) -> Any:
    """The module of a world file (``--world path/to/my_world.py:MyWorld``), loaded once per process."""
    import importlib.util
    import sys

    if not path.is_file():
        raise WorldPluginError(f"--world {spec}: no file {path}")
    name = f"pgt_world_{path.stem}"
    loader_spec = importlib.util.spec_from_file_location(name, path.resolve())
    if loader_spec is None or loader_spec.loader is None:
        raise WorldPluginError(f"--world {spec}: {path} is not a Python module")
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[name] = module  # dataclasses and pickling look a class's module up by name
    try:
        loader_spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - the user's file failed to import: named, never a traceback
        del sys.modules[name]
        raise WorldPluginError(f"--world {spec}: {path} failed to import: {type(exc).__name__}: {exc}") from None
    return module


@functools.lru_cache(maxsize=1)
def plugin_worlds() -> dict[str, Any]:
    """Entry points of the ``pgt.worlds`` group, by domain name (lower case); loaded only when used."""
    return {ep.name.lower(): ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}


def world_source(task: Task, world: str | None = None) -> str:
    """Which world ``make_world`` builds for ``task``: the plug-in spec, ``entry point ...``, the shipped name or ``generic``."""
    name = task.domain.name.lower()
    if world:
        return world
    if name in plugin_worlds():
        return f"entry point {name}"
    return name if name in WORLDS else "generic"


def make_world(task: Task, *, failure_prob: float = 0.0, seed: int | None = None,
               layout: str | Path | None = None, render_mode: str = "schematic",
               labels: bool | None = None, world: str | None = None) -> Any:
    """The world for ``task``: ``world`` (``module:Class``), a plug-in, a shipped world, else the generic one.

    ``render_mode``/``labels`` choose how the household view is drawn (see
    :func:`scene_graphs.views.check_render_mode`); Blocksworld has one view, and a
    plug-in or the generic world takes only ``failure_prob`` and ``seed``.
    """
    name = task.domain.name.lower()
    if world:
        return load_world_class(world)(task, failure_prob=failure_prob, seed=seed)
    plugin = plugin_worlds().get(name)
    if plugin is not None:
        try:
            factory = plugin.load()
        except Exception as exc:  # noqa: BLE001 - a broken plug-in is named, never a traceback
            raise WorldPluginError(f"entry point {ENTRY_POINT_GROUP}:{plugin.name} ({plugin.value}) "
                                   f"cannot be loaded: {exc}") from None
        return factory(task, failure_prob=failure_prob, seed=seed)
    factory = WORLDS.get(name)
    if factory is not None:
        return factory(task, failure_prob=failure_prob, seed=seed, layout=layout, render_mode=render_mode,
                       labels=labels)
    from scene_graphs.generic import GenericWorld

    return GenericWorld(task, failure_prob, seed)
