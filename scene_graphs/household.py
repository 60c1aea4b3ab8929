"""The ViPlan household (iGibson) domain as a scene graph with rooms and an agent.

Relation edges mirror the domain's atoms one for one (``ontop``, ``nextto``,
``inside``; ``reaches`` for ``reachable``, ``holds`` for ``holding``; the ``open``
node state), and execution edits those edges exactly as the PDDL effects say:
``navigate-to`` makes every other object unreachable and then the contents of an
open target container reachable; ``grasp`` removes the object's ontop/nextto/inside
relations; ``place-on`` adds one relation and clears nothing else. Rooms come from
a layout (:mod:`scene_graphs.layout`) and decide what the agent sees.

Visibility: the view shows the agent's current room: its furniture and containers,
the movables there, minus anything inside a closed container; the hand box shows
what is held. An atom is visible when the view shows its truth value: ``holding``
always, ``reachable``/``open`` of objects in view, and relations between two
objects in view.

Failure model (per action, when an applicable action fails): ``grasp_failed``
(nothing happens), ``landed_next_to`` (place-on puts the object next to the target
instead), ``landed_on_top`` (place-inside puts it on top of the container),
``slipped`` (place-next-to: the object stays in hand), ``stayed_closed``,
``stayed_open`` and ``navigation_failed`` (nothing happens).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Hashable

import networkx as nx

from scene_graphs.layout import Layout, load_layout
from scene_graphs.schema import SceneGraphError, add_rel, new_graph, remove_rel, sources, targets, validate_graph
from scene_graphs.views import check_render_mode
from scene_graphs.world import GraphWorld
from toolkit.model import Atom
from toolkit.task import GroundAction, Task

AGENT = "agent:robot"
RELATIONS = ("ontop", "nextto", "inside")


def room_node(room: str) -> str:
    return f"room:{room}"


def room_of(g: nx.MultiDiGraph, obj: str) -> str | None:
    """The room node an object is in (a held object is where the agent is)."""
    if obj in targets(g, AGENT, "holds"):
        obj = AGENT
    rooms = targets(g, obj, "in_room")
    return rooms[0] if rooms else None


def agent_room(g: nx.MultiDiGraph) -> str:
    return targets(g, AGENT, "in_room")[0]


def in_view(g: nx.MultiDiGraph) -> list[str]:
    """Objects the view shows: those in the agent's room, minus contents of closed containers."""
    here = agent_room(g)
    out = []
    for node, kind in g.nodes(data="kind"):
        if kind in ("furniture", "container", "movable") and room_of(g, node) == here:
            if not any(not g.nodes[c].get("open", False) for c in targets(g, node, "inside")):
                out.append(node)
    return sorted(out)


def household_atoms(g: nx.MultiDiGraph) -> frozenset[Atom]:
    """The igibson-domain atoms a household graph makes true (pure)."""
    atoms = set()
    for u, v, rel in g.edges(data="rel"):
        if rel in RELATIONS:
            atoms.add(Atom(rel, (u, v)))
        elif rel == "reaches":
            atoms.add(Atom("reachable", (v,)))
        elif rel == "holds":
            atoms.add(Atom("holding", (v,)))
    for node, data in g.nodes(data=True):
        if data.get("kind") == "container" and data.get("open"):
            atoms.add(Atom("open", (node,)))
    return frozenset(atoms)


class HouseholdWorld(GraphWorld):
    """Household world; see the module docstring."""

    domain_name = "igibson"

    def __init__(self, task: Task, *, failure_prob: float = 0.0, seed: int | None = None,
                 layout: Layout | str | Path | None = None, render_mode: str = "schematic",
                 labels: bool | None = None) -> None:
        self.layout = layout if isinstance(layout, Layout) else load_layout(task, layout)
        self.render_mode, self.labels = check_render_mode(render_mode, labels)
        super().__init__(task, failure_prob=failure_prob, seed=seed)
        validate_graph(self.graph)

    # ---------------------------------------------------------------- build

    def build_graph(self) -> nx.MultiDiGraph:
        task, g = self.task, new_graph()
        movables = set(task.objects_of(("movable",)))
        containers = set(task.objects_of(("container",)))
        for room in sorted(set(self.layout.rooms.values()) | {self.layout.agent_room}):
            g.add_node(room_node(room), kind="room", label=room)
        g.add_node(AGENT, kind="agent", label="robot", at=None)
        add_rel(g, AGENT, room_node(self.layout.agent_room), "in_room")
        for obj in sorted(task.objects):
            kind = "movable" if obj in movables else "container" if obj in containers else "furniture"
            attrs = {"open": Atom("open", (obj,)) in task.init} if kind == "container" else {}
            g.add_node(obj, kind=kind, label=obj, **attrs)
            if kind != "movable":
                add_rel(g, obj, room_node(self.layout.rooms[obj]), "in_room")
        for atom in sorted(task.init):
            if atom.predicate in RELATIONS:
                add_rel(g, atom.args[0], atom.args[1], atom.predicate)
            elif atom.predicate == "reachable":
                add_rel(g, AGENT, atom.args[0], "reaches")
            elif atom.predicate == "holding":
                add_rel(g, AGENT, atom.args[0], "holds")
        for m in sorted(movables):  # a movable is in the room of what it relates to
            if m not in targets(g, AGENT, "holds"):
                self._settle(g, m)
        return g

    def _settle(self, g: nx.MultiDiGraph, m: str, near: str | None = None) -> None:
        """Put movable ``m`` in the room of ``near`` (or of its first support), else the agent's room."""
        for old in targets(g, m, "in_room"):
            remove_rel(g, m, old, "in_room")
        chain = [near] if near else [t for rel in ("ontop", "inside", "nextto") for t in targets(g, m, rel)]
        seen = {m}
        while chain:
            cur = chain.pop(0)
            if cur in seen:
                continue
            seen.add(cur)
            room = room_of(g, cur)
            if room is not None:
                add_rel(g, m, room, "in_room")
                return
            chain.extend(t for rel in ("ontop", "inside", "nextto") for t in targets(g, cur, rel))
        add_rel(g, m, agent_room(g), "in_room")

    # ---------------------------------------------------------------- atoms

    def abstract(self, g: nx.MultiDiGraph) -> frozenset[Atom]:
        return household_atoms(g)

    def state_key_of(self, g: nx.MultiDiGraph) -> Hashable:
        return (self.abstract(g), agent_room(g), g.nodes[AGENT]["at"])

    # ------------------------------------------------------------ execution

    def preconditions_hold(self, g: nx.MultiDiGraph, action: GroundAction) -> bool:
        name, args = action.name, action.args
        reach = set(targets(g, AGENT, "reaches"))
        held = targets(g, AGENT, "holds")
        if name == "grasp":
            return args[0] in reach and not held
        if name in ("place-on", "place-next-to"):
            return args[0] in held and args[1] in reach
        if name == "place-inside":
            return args[0] in held and args[1] in reach and g.nodes[args[1]]["open"]
        if name == "open-container":
            return args[0] in reach and not g.nodes[args[0]]["open"] and not held
        if name == "close-container":
            return args[0] in reach and g.nodes[args[0]]["open"]
        if name == "navigate-to":
            return args[0] not in reach and all(g.nodes[c]["open"] for c in targets(g, args[0], "inside"))
        raise SceneGraphError(f"the household world does not know action {name!r}")

    def apply(self, g: nx.MultiDiGraph, action: GroundAction) -> None:
        name, args = action.name, action.args
        if name == "grasp":
            m = args[0]
            for rel in RELATIONS:
                for t in targets(g, m, rel):
                    remove_rel(g, m, t, rel)
            for room in targets(g, m, "in_room"):
                remove_rel(g, m, room, "in_room")
            add_rel(g, AGENT, m, "holds")
        elif name in ("place-on", "place-next-to", "place-inside"):
            m, o = args
            rel = {"place-on": "ontop", "place-next-to": "nextto", "place-inside": "inside"}[name]
            remove_rel(g, AGENT, m, "holds")
            add_rel(g, m, o, rel)
            self._settle(g, m, near=o)
        elif name == "open-container":
            c = args[0]
            g.nodes[c]["open"] = True
            for x in sources(g, c, "inside"):
                add_rel(g, AGENT, x, "reaches")
        elif name == "close-container":
            c = args[0]
            g.nodes[c]["open"] = False
            for x in sources(g, c, "inside"):
                remove_rel(g, AGENT, x, "reaches")
        elif name == "navigate-to":
            o = args[0]
            for x in targets(g, AGENT, "reaches"):
                remove_rel(g, AGENT, x, "reaches")
            add_rel(g, AGENT, o, "reaches")
            if g.nodes[o].get("open", False):
                for x in sources(g, o, "inside"):
                    add_rel(g, AGENT, x, "reaches")
            room = room_of(g, o)
            if room is not None and room != agent_room(g):
                remove_rel(g, AGENT, agent_room(g), "in_room")
                add_rel(g, AGENT, room, "in_room")
            g.nodes[AGENT]["at"] = o
        else:
            raise SceneGraphError(f"the household world does not know action {name!r}")

    def apply_failure(self, g: nx.MultiDiGraph, action: GroundAction, rng: random.Random) -> str:
        name = action.name
        if name == "place-on":
            self.apply(g, self.task.action("place-next-to", action.args))
            return "landed_next_to"
        if name == "place-inside":
            self.apply(g, self.task.action("place-on", action.args))
            return "landed_on_top"
        return {"grasp": "grasp_failed", "place-next-to": "slipped", "open-container": "stayed_closed",
                "close-container": "stayed_open", "navigate-to": "navigation_failed"}[name]

    # ------------------------------------------------------------- the view

    def visible_atoms(self, g: nx.MultiDiGraph) -> frozenset[Atom] | None:
        view = set(in_view(g))
        out = set()
        for atom in self.task.all_atoms():
            if atom.predicate == "holding" or all(a in view for a in atom.args):
                out.add(atom)
        if self.render_mode == "pictorial" and not self.labels:
            from scene_graphs.render_pictorial import hidden_atoms  # no notes: what position cannot show is unseen
            out -= hidden_atoms(g)
        return frozenset(out)

    def render_graph(self, g: nx.MultiDiGraph) -> bytes:
        if self.render_mode == "pictorial":
            from scene_graphs.render_pictorial import render_pictorial
            return render_pictorial(g, labels=self.labels)
        from scene_graphs.render_household import render_household
        return render_household(g)
