"""A user's own world for the warehouse domain: truth, executor and renderer in one file.

The worked example of docs/your-domain.md ("Your own world"). It lives in the
user's project, not in pgt, and is used without editing pgt:

    pgt run --suite problems --domain domain.pddl --world warehouse_world:WarehouseWorld ...

(with this file's folder on PYTHONPATH), or registered once as an entry point of
the user's package (``[project.entry-points."pgt.worlds"] warehouse =
"warehouse_world:WarehouseWorld"``). The truth is a networkx graph: locations,
robots and items are nodes; ``at`` edges put a robot or an item at a location,
``holds`` edges put an item in a robot's gripper, ``connected`` edges are the
roads. pgt's world contract test (tests/worlds/test_world_contract.py) runs it
like the shipped worlds: its states must agree with the PDDL semantics atom for
atom on random walks, and every state must render.
"""

from __future__ import annotations

import io
import random

import networkx as nx

from scene_graphs.world import GraphWorld
from toolkit.model import Atom
from toolkit.task import GroundAction


class WarehouseWorld(GraphWorld):
    """The warehouse as a graph; a failed action does nothing (the robot stalls)."""

    domain_name = "warehouse"

    def build_graph(self) -> nx.MultiDiGraph:
        g = nx.MultiDiGraph()
        for obj, kind in sorted(self.task.objects.items()):
            g.add_node(obj, kind=kind)
        for atom in sorted(self.task.init):
            if atom.predicate in ("robot-at", "item-at"):
                g.add_edge(atom.args[0], atom.args[1], key="at")
            elif atom.predicate == "holding":
                g.add_edge(atom.args[0], atom.args[1], key="holds")
            elif atom.predicate == "connected":
                g.add_edge(atom.args[0], atom.args[1], key="connected")
        return g

    def abstract(self, g: nx.MultiDiGraph) -> frozenset[Atom]:
        atoms = set()
        for a, b, key in g.edges(keys=True):
            if key == "at":
                atoms.add(Atom("robot-at" if g.nodes[a]["kind"] == "robot" else "item-at", (a, b)))
            elif key == "holds":
                atoms.add(Atom("holding", (a, b)))
            else:
                atoms.add(Atom("connected", (a, b)))
        for node, kind in g.nodes(data="kind"):
            if kind == "robot" and not any(k == "holds" for _, _, k in g.out_edges(node, keys=True)):
                atoms.add(Atom("hand-free", (node,)))
        return frozenset(atoms)

    def preconditions_hold(self, g: nx.MultiDiGraph, action: GroundAction) -> bool:
        return action.is_applicable(self.abstract(g))  # the rules are the domain's; the graph holds the state

    def apply(self, g: nx.MultiDiGraph, action: GroundAction) -> None:
        if action.name == "drive":
            robot, _, to = action.args
            g.remove_edge(robot, self._where(g, robot), key="at")
            g.add_edge(robot, to, key="at")
        elif action.name == "pick":
            robot, item, place = action.args
            g.remove_edge(item, place, key="at")
            g.add_edge(robot, item, key="holds")
        elif action.name == "drop":
            robot, item, place = action.args
            g.remove_edge(robot, item, key="holds")
            g.add_edge(item, place, key="at")

    def apply_failure(self, g: nx.MultiDiGraph, action: GroundAction, rng: random.Random) -> str:
        return "no_effect"

    def visible_atoms(self, g: nx.MultiDiGraph) -> frozenset[Atom] | None:
        return None  # one overhead camera sees everything

    def render_graph(self, g: nx.MultiDiGraph) -> bytes:
        """Locations as bays in a row, items as crates in them, robots as circles carrying their crate."""
        from PIL import Image, ImageDraw

        from scene_graphs.fonts import font

        places = sorted(n for n, k in g.nodes(data="kind") if k == "location")
        img = Image.new("RGB", (40 + 200 * len(places), 300), (248, 248, 244))
        draw = ImageDraw.Draw(img)
        for i, place in enumerate(places):
            x = 20 + 200 * i
            draw.rectangle((x, 40, x + 180, 280), outline=(60, 60, 60), width=3)
            draw.text((x + 90, 22), place, fill=(0, 0, 0), font=font(18), anchor="mm")
            here = sorted(a for a, b, k in g.in_edges(place, keys=True) if k == "at")
            crates = [n for n in here if g.nodes[n]["kind"] == "item"]
            robots = [n for n in here if g.nodes[n]["kind"] == "robot"]
            for j, crate in enumerate(crates):
                y = 250 - 40 * j
                draw.rectangle((x + 10, y - 30, x + 80, y), fill=(200, 150, 90), outline=(90, 60, 30), width=2)
                draw.text((x + 45, y - 15), crate, fill=(0, 0, 0), font=font(14), anchor="mm")
            for j, robot in enumerate(robots):
                y = 80 + 70 * j
                draw.ellipse((x + 100, y - 25, x + 160, y + 25), fill=(90, 140, 220), outline=(20, 40, 90), width=2)
                draw.text((x + 130, y), robot, fill=(255, 255, 255), font=font(14), anchor="mm")
                for _, item, k in g.out_edges(robot, keys=True):
                    if k == "holds":
                        draw.rectangle((x + 105, y + 28, x + 175, y + 50), fill=(200, 150, 90))
                        draw.text((x + 140, y + 39), item, fill=(0, 0, 0), font=font(12), anchor="mm")
        out = io.BytesIO()
        img.save(out, format="PNG", optimize=False)
        return out.getvalue()

    @staticmethod
    def _where(g: nx.MultiDiGraph, robot: str) -> str:
        return next(b for _, b, k in g.out_edges(robot, keys=True) if k == "at")
