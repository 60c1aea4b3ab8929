"""Scene-graph worlds: networkx graphs that hold the truth, execute actions and render PNGs.

The names below are imported on first use (PEP 562), not with the package: the
``pgt`` commands that only register their flags here (``pgt run``, ``report``,
``compare`` import :mod:`scene_graphs.commands.render`) would otherwise import
networkx (about 0.1 s) in processes that never build a world, such as a study's
writer, whose worker processes build the worlds.

>>> from scene_graphs import make_world
>>> from toolkit.domains import shipped_domain, shipped_problem
>>> from toolkit.task import load_task
>>> task = load_task(shipped_domain("blocksworld"), shipped_problem("blocksworld", "simple_problem_0"))
>>> world = make_world(task, seed=0)
>>> world.true_state() == task.init
True
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scene_graphs.registry import WORLDS, make_world
    from scene_graphs.schema import SceneGraphError, validate_graph

__all__ = ["WORLDS", "make_world", "SceneGraphError", "validate_graph"]
_HOMES = {"WORLDS": "scene_graphs.registry", "make_world": "scene_graphs.registry",
          "SceneGraphError": "scene_graphs.schema", "validate_graph": "scene_graphs.schema"}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:  # AttributeError, so `from scene_graphs import colours` goes on to import the submodule
        raise AttributeError(f"module 'scene_graphs' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # once: later lookups find it without this hook
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
