"""Scene-graph worlds: networkx graphs that hold the truth, execute actions and render PNGs.

>>> from toolkit.domains import shipped_domain, shipped_problem
>>> from toolkit.task import load_task
>>> task = load_task(shipped_domain("blocksworld"), shipped_problem("blocksworld", "simple_problem_0"))
>>> world = make_world(task, seed=0)
>>> world.true_state() == task.init
True
"""

from __future__ import annotations

from scene_graphs.registry import WORLDS, make_world
from scene_graphs.schema import SceneGraphError, validate_graph

__all__ = ["WORLDS", "make_world", "SceneGraphError", "validate_graph"]
