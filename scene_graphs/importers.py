"""Import GraSIF / VirtualHome scene graphs, and write them as household PDDL.

Users bring their own scene graphs; this turns them into the toolkit's schema
(:mod:`scene_graphs.schema`) and then into an igibson-domain problem plus a layout
file, so ``pgt validate`` and ``pgt render`` check plans on their own homes.

Two JSON shapes are read:

* VirtualHome / RobotHow: ``{"nodes": [{"id", "class_name", "category", "states",
  "properties"}], "edges": [{"from_id", "to_id", "relation_type"}]}``. Rooms are
  nodes of category ``Rooms``; ``GRABBABLE`` nodes are movable; nodes with
  ``CAN_OPEN``/``CONTAINERS`` or an OPEN/CLOSED state are containers, and so is a
  piece of furniture that the scene (or the goal scene) puts something INSIDE:
  VirtualHome's homes put books INSIDE a bookshelf that has neither property, and
  use it as a container (:func:`containers_from_use`); the rest is furniture.
  ``ON`` -> ontop, ``INSIDE`` -> inside (in_room when the target is a room; dropped
  and counted when the target is a movable object), ``CLOSE`` ->
  nextto, ``HOLDS_RH``/``HOLDS_LH`` -> holds; other relations (``FACING``,
  ``BETWEEN``) have no PDDL counterpart and are dropped (counted in the report).
* The ``{"init_graph": ..., "final_graph": ...}`` wrapper (VirtualHome / Embodied
  Agent Interface task files): the start is ``init_graph``; ``final_graph`` is the
  goal unless ``--goal`` names another file.
* GraSIF hierarchical: ``{"nodes": {"room"|"rooms": [...], "asset": [...],
  "object"|"objects": [...], "agent": {...}}}`` with ``relation`` ``ontop_of`` /
  ``inside_of`` and ``related_to``. Assets and objects with ``open``/``close``
  affordances or states are containers; so is a node with a ``put_inside`` affordance
  and no ``pick_up`` one, and a node something is ``inside_of`` (here or in the goal
  scene). A graspable object whose affordances list ``put_inside`` stays movable:
  GraSIF's own example (LookPlanGraph appendix, the planner prompt) gives a water
  glass ``["pick_up", "put_on", "put_under", "attach", "put_inside"]``, where it says
  what can be done with the glass, not that things go inside it.

Relations that have no PDDL counterpart are dropped, counted in the report and
listed in the written problem's header comment.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import networkx as nx

from scene_graphs.household import AGENT, household_atoms, room_node
from scene_graphs.schema import SceneGraphError, add_rel, new_graph, targets, validate_graph
from toolkit import jsontext

REL_MAP = {"ON": "ontop", "INSIDE": "inside", "CLOSE": "nextto", "ONTOP_OF": "ontop", "INSIDE_OF": "inside",
           "NEXTTO": "nextto", "NEXT_TO": "nextto"}


@dataclass
class ImportReport:
    """What an import kept and dropped."""

    graph: nx.MultiDiGraph
    dropped: dict[str, int] = field(default_factory=dict)  # relation type -> count of edges dropped
    states: dict[str, frozenset[str]] = field(default_factory=dict)  # node -> the source's states (upper case)
    final: ImportReport | None = None  # the wrapper's final_graph, if any


# VirtualHome states the household (igibson) domain can express: only open/closed.
# Every other state change in a goal is refused by name (see goal_literals).
EXPRESSIBLE_STATES = {"OPEN": ("open", True), "CLOSED": ("open", False)}
GOAL_PREDICATES = ("ontop", "inside", "nextto", "open", "holding")


def pddl_name(text: str) -> str:
    """A valid PDDL name from any label.

    >>> pddl_name("Kitchen Table-1"), pddl_name("7up")
    ('kitchen_table_1', 'o_7up')
    """
    name = re.sub(r"[^a-z0-9_]+", "_", str(text).lower()).strip("_") or "obj"
    return name if name[0].isalpha() else f"o_{name}"


def load_scene(source: str | Path | dict) -> ImportReport:
    """Read a scene graph JSON (file path or parsed dict) into the schema.

    Raises:
        SceneGraphError: not one of the supported shapes, or a dangling edge.
    """
    if not isinstance(source, dict):
        try:
            source = jsontext.loads(Path(source).read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise SceneGraphError(f"{source}:{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}") from None
        except (OSError, UnicodeDecodeError) as exc:
            detail = exc.strerror if isinstance(exc, OSError) else exc
            raise SceneGraphError(f"{source}: cannot read scene graph JSON: {detail}") from None
    if not isinstance(source, dict):
        raise SceneGraphError("scene graph JSON must be an object with 'nodes' (or 'init_graph')")
    if "nodes" not in source and "init_graph" not in source and {"rooms", "objects"} <= set(source):
        # ProcTHOR / AI2-THOR houses give positions and receptacle children, not relation edges.
        raise SceneGraphError("this looks like a ProcTHOR/AI2-THOR house ('rooms', 'objects'): it has positions, not "
                              "the relation edges (ON, INSIDE, CLOSE) pgt imports; convert it to a VirtualHome "
                              "'nodes'/'edges' or GraSIF scene graph first")
    if "init_graph" in source:
        report = load_scene(_graph_of(source, "init_graph"))
        if source.get("final_graph") is not None:
            report.final = load_scene(_graph_of(source, "final_graph"))
        return report
    nodes = source.get("nodes")
    try:  # the readers index into untrusted JSON: a node of the wrong shape is bad input, not a crash
        if isinstance(nodes, list):
            report = _virtualhome(source)
        elif isinstance(nodes, dict):
            report = _grasif(nodes)
        else:
            raise SceneGraphError("scene graph JSON needs 'nodes': a list (VirtualHome) or an object (GraSIF)")
    except (TypeError, AttributeError, KeyError, ValueError) as exc:
        raise SceneGraphError(f"scene graph JSON of an unexpected shape: {type(exc).__name__}: {exc}") from None
    _finish(report.graph)
    validate_graph(report.graph)
    return report


def _graph_of(source: dict, key: str) -> dict:
    graph = source[key]
    if not isinstance(graph, dict):
        raise SceneGraphError(f"'{key}' must be a scene graph object with 'nodes', not {type(graph).__name__}")
    return graph


def _virtualhome(data: dict) -> ImportReport:
    g, ids = new_graph(), {}
    report = ImportReport(g)
    raw = {n["id"]: n for n in data["nodes"]}
    for nid, n in sorted(raw.items(), key=lambda kv: str(kv[0])):
        cat, props = str(n.get("category", "")), {p.upper() for p in n.get("properties", [])}
        states = {s.upper() for s in n.get("states", [])}
        if cat == "Rooms":
            ids[nid] = room_node(pddl_name(n.get("class_name", nid)) + f"_{nid}")
            g.add_node(ids[nid], kind="room", label=ids[nid].split(":", 1)[1])
        elif cat == "Characters":
            ids[nid] = AGENT
            report.states["character"] = frozenset(states)
            g.add_node(AGENT, kind="agent", label="robot", at=None)
        else:
            ids[nid] = pddl_name(f"{n.get('class_name', 'obj')}_{nid}")
            report.states[ids[nid]] = frozenset(states)
            if "GRABBABLE" in props:
                g.add_node(ids[nid], kind="movable", label=ids[nid])
            elif props & {"CAN_OPEN", "CONTAINERS"} or states & {"OPEN", "CLOSED"}:
                # A container only where the source says so; one that cannot be opened or
                # closed (a basket, CONTAINERS without CAN_OPEN or a state) is open.
                openable = "CAN_OPEN" in props or states & {"OPEN", "CLOSED"}
                g.add_node(ids[nid], kind="container", label=ids[nid], open="OPEN" in states if openable else True)
            else:
                g.add_node(ids[nid], kind="furniture", label=ids[nid])
    for e in data.get("edges", []):
        rel_type = str(e.get("relation_type", "")).upper()
        if e["from_id"] not in ids or e["to_id"] not in ids:
            raise SceneGraphError(f"edge {e} names a node that is not in 'nodes'", e.get("from_id"))
        u, v = ids[e["from_id"]], ids[e["to_id"]]
        kind_v = g.nodes[v]["kind"]
        if u == AGENT and rel_type.startswith("HOLDS"):
            add_rel(g, u, v, "holds")
        elif rel_type == "INSIDE" and kind_v == "room":
            add_rel(g, u, v, "in_room")
        elif rel_type == "INSIDE" and kind_v == "furniture" and u != AGENT:
            g.nodes[v].update(kind="container", open=True)  # used as a container: containers_from_use
            add_rel(g, u, v, "inside")
        elif rel_type == "INSIDE" and kind_v != "container":
            key = f"INSIDE (target is {'the agent' if v == AGENT else 'a movable object'})"
            report.dropped[key] = report.dropped.get(key, 0) + 1
        elif rel_type in REL_MAP and kind_v != "room" and u != AGENT and v != AGENT:
            add_rel(g, u, v, REL_MAP[rel_type])
        else:
            report.dropped[rel_type] = report.dropped.get(rel_type, 0) + 1
    return report


def _grasif(nodes: dict) -> ImportReport:
    g = new_graph()
    report = ImportReport(g)
    name = lambda n: pddl_name(n.get("name") or n.get("id"))  # noqa: E731
    for r in nodes.get("room") or nodes.get("rooms") or []:
        g.add_node(room_node(name(r)), kind="room", label=name(r))
    entries = [(a, False) for a in nodes.get("asset") or nodes.get("assets") or []]
    entries += [(o, True) for o in nodes.get("object") or nodes.get("objects") or []]
    for n, is_object in entries:
        states = {str(s).lower() for s in n.get("states") or []}
        aff = {str(a).lower() for a in n.get("affordances") or []}
        if states & {"open", "closed"} or aff & {"open", "close"}:
            g.add_node(name(n), kind="container", label=name(n), open="open" in states)
        elif "put_inside" in aff and "pick_up" not in aff:
            g.add_node(name(n), kind="container", label=name(n), open=True)
        elif is_object and ("pick_up" in aff or not aff):
            g.add_node(name(n), kind="movable", label=name(n))
        else:
            g.add_node(name(n), kind="furniture", label=name(n))
    for n, _ in entries:
        room = n.get("room") or n.get("located")
        if room:
            _need(g, room_node(pddl_name(room)), n)
            add_rel(g, name(n), room_node(pddl_name(room)), "in_room")
        rel = str(n.get("relation") or "").upper()
        if rel and n.get("related_to"):
            target = pddl_name(n["related_to"])
            _need(g, target, n)
            if rel in ("INSIDE_OF", "INSIDE") and g.nodes[target]["kind"] not in ("container", "room"):
                g.nodes[target].update(kind="container", open=True)
            if rel in REL_MAP:
                add_rel(g, name(n), target, REL_MAP[rel])
            else:
                report.dropped[rel] = report.dropped.get(rel, 0) + 1
    agent = nodes.get("agent")
    agent = agent[0] if isinstance(agent, list) and agent else agent
    if isinstance(agent, dict):
        g.add_node(AGENT, kind="agent", label="robot", at=None)
        if agent.get("location"):
            _need(g, room_node(pddl_name(agent["location"])), agent)
            add_rel(g, AGENT, room_node(pddl_name(agent["location"])), "in_room")
        held = agent.get("holding")
        if held and str(held).lower() != "nothing":
            _need(g, pddl_name(held), agent)
            add_rel(g, AGENT, pddl_name(held), "holds")
    return report


def containers_from_use(*reports: ImportReport | None) -> list[str]:
    """Make a node a container in every graph where it is one in any (the start and the goal scene).

    A basket that the goal puts things inside is a container in the start scene too,
    or the written problem would type it ``movable`` and refuse the goal's
    ``(inside x basket)``. Returns the nodes changed.
    """
    graphs = [r.graph for r in reports if r is not None]
    used = {n for g in graphs for n, k in g.nodes(data="kind") if k == "container"}
    changed = []
    for g in graphs:
        for n in sorted(used):
            if n in g and g.nodes[n].get("kind") in ("furniture", "movable"):
                g.nodes[n].update(kind="container", open=True)
                if not targets(g, n, "in_room"):  # a container stands in a room: that of what it rests on
                    add_rel(g, n, _room_below(g, n), "in_room")
                changed.append(n)
    return changed


def _room_below(g: nx.MultiDiGraph, node: str) -> str:
    """The room of the first thing under ``node`` (ontop/inside, transitively) that has one."""
    seen, cur = {node}, node
    while True:
        rooms = targets(g, cur, "in_room")
        if rooms:
            return rooms[0]
        below = [t for rel in ("ontop", "inside") for t in targets(g, cur, rel) if t not in seen]
        if not below:
            return sorted(n for n, k in g.nodes(data="kind") if k == "room")[0]
        cur = below[0]
        seen.add(cur)


def _need(g: nx.MultiDiGraph, node: str, entry: Any) -> None:
    if node not in g:
        raise SceneGraphError(f"scene entry {entry!r} refers to {node!r}, which is not defined", node)


def _finish(g: nx.MultiDiGraph) -> None:
    """Give every static object and the agent a room (a single 'room' when the scene has none)."""
    rooms = sorted(n for n, k in g.nodes(data="kind") if k == "room")
    if not rooms:
        g.add_node(room_node("room"), kind="room", label="room")
        rooms = [room_node("room")]
    if AGENT not in g:
        g.add_node(AGENT, kind="agent", label="robot", at=None)
    if not targets(g, AGENT, "in_room"):
        add_rel(g, AGENT, rooms[0], "in_room")
    for node, kind in list(g.nodes(data="kind")):
        if kind in ("furniture", "container") and not targets(g, node, "in_room"):
            add_rel(g, node, rooms[0], "in_room")


def goal_literals(start: ImportReport, goal: ImportReport) -> list[str]:
    """The goal: what ``goal`` adds to ``start`` (placements, holding, open) and the containers it closes.

    Raises:
        SceneGraphError: the goal changes a state the household domain cannot express
            (ON/OFF, SITTING, LYING, PLUGGED_IN, DIRTY, ...), named with its objects,
            rather than silently leaving it out of the goal.
    """
    refused = []
    for node, before in sorted(start.states.items()):
        after = goal.states.get(node, before)
        for state in sorted(before ^ after):
            if state not in EXPRESSIBLE_STATES:
                refused.append(f"{node} {'gains' if state in after else 'loses'} {state}")
    if refused:
        raise SceneGraphError("the goal changes states the household domain cannot express (it has placement "
                              "ontop/inside/nextto, holding and open/closed): " + "; ".join(refused))
    have, want = household_atoms(start.graph), household_atoms(goal.graph)
    gained = [a for a in sorted(want - have) if a.predicate in GOAL_PREDICATES]
    lines = [str(a) for a in _placements_the_domain_can_make(gained, goal.graph)]
    return lines + [f"(not {a})" for a in sorted(have - want) if a.predicate == "open"]


def _placements_the_domain_can_make(gained: list, g: nx.MultiDiGraph) -> list:
    """The gained atoms less VirtualHome's proximity echoes, which no household plan can make true.

    VirtualHome's CLOSE is symmetric proximity: putting the coffee ON the coffee maker
    also adds coffee CLOSE maker and maker CLOSE coffee. The household domain only
    moves movables, and its ``nextto`` is a placement of its own (``grasp`` clears it,
    ``place-on`` does not add it): kept as goals, the echoes made such tasks
    unsolvable. A gained placement of something that cannot move and is no echo is
    refused by name.
    """
    movable = {n for n, kind in g.nodes(data="kind") if kind == "movable"}
    placed = {tuple(a.args) for a in gained if a.predicate in ("ontop", "inside")}
    kept, refused = [], []
    for a in gained:
        if a.predicate in ("ontop", "inside", "nextto") and a.args[0] not in movable:
            if a.predicate == "nextto" and a.args[1] in movable:
                continue  # the mirror of (nextto movable this)
            refused.append(f"{a.args[0]} {a.predicate} {a.args[1]}")
        elif a.predicate == "nextto" and (tuple(a.args) in placed or tuple(a.args)[::-1] in placed):
            continue  # proximity that the ontop/inside placement of the same pair (either way) already says
        else:
            kept.append(a)
    if refused:
        raise SceneGraphError("the goal places objects the household domain cannot move (only movables are "
                              "placed): " + "; ".join(refused))
    return kept


def relevant_objects(g: nx.MultiDiGraph, goal_lines: list[str]) -> set[str]:
    """Task-relevant pruning for the household domain (``--prune goal``).

    Backward relevance: the objects of the goal; the containers they are inside,
    transitively (``navigate-to`` and ``grasp`` need them open: their ``open``,
    ``inside`` and ``reachable`` atoms are read by the preconditions); and what
    the agent holds (``grasp`` and ``open-container`` need an empty hand). No
    precondition reads an atom of any other object, so a plan of the pruned
    task is a plan of the whole scene (``place-on`` may use any kept object).
    """
    keep = {tok for line in goal_lines for tok in re.findall(r"[^\s()]+", line)} & set(g.nodes)
    keep |= set(targets(g, AGENT, "holds"))
    frontier = list(keep)
    while frontier:
        for c in targets(g, frontier.pop(), "inside"):
            if c not in keep:
                keep.add(c)
                frontier.append(c)
    return keep


def prune(g: nx.MultiDiGraph, keep: set[str]) -> nx.MultiDiGraph:
    """The scene restricted to ``keep``, the agent and the rooms they are in."""
    rooms = {r for n in (*keep, AGENT) for r in targets(g, n, "in_room")}
    return g.subgraph({*keep, AGENT, *rooms}).copy()


def to_problem(g: nx.MultiDiGraph, name: str = "imported_scene", goal: nx.MultiDiGraph | None = None,
               goal_lines: list[str] | None = None, dropped: dict[str, int] | None = None) -> str:
    """An igibson-domain PDDL problem for a household graph.

    The goal is ``goal_lines`` (see :func:`goal_literals`), or else the relation and
    ``open`` atoms of ``goal`` that the start lacks (and ``(not (open c))`` for
    containers the goal closes); with neither it is the empty conjunction.
    """
    groups: dict[str, list[str]] = {"movable": [], "container": [], "object": []}
    for node, kind in sorted(g.nodes(data="kind")):
        if kind in ("movable", "container"):
            groups[kind].append(node)
        elif kind == "furniture":
            groups["object"].append(node)
    init = sorted(household_atoms(g))
    goal_lines = list(goal_lines or [])
    if goal is not None and not goal_lines:
        start, want = household_atoms(g), household_atoms(goal)
        goal_lines = [str(a) for a in sorted(want - start) if a.predicate in ("ontop", "inside", "nextto", "open")]
        goal_lines += [f"(not {a})" for a in sorted(start - want) if a.predicate == "open"]
    objs = "\n".join(f"        {' '.join(v)} - {k}" for k, v in groups.items() if v)
    facts = "\n".join(f"        {a}" for a in init)
    closed = "\n".join(f"        (not (open {c}))" for c in groups["container"] if not g.nodes[c].get("open"))
    body = "\n".join(f"            {line}" for line in goal_lines)
    header = ""
    if dropped:
        header = ("; dropped relations without a PDDL counterpart: "
                  + ", ".join(f"{k} x{v}" for k, v in sorted(dropped.items())) + "\n")
    return (header + f"(define (problem {pddl_name(name)})\n    (:domain igibson)\n    (:objects\n{objs}\n    )\n"
            f"    (:init\n{facts}\n{closed}\n    )\n    (:goal\n        (and\n{body}\n        )\n    )\n)\n")


def to_layout(g: nx.MultiDiGraph) -> str:
    """The layout TOML (rooms of furniture and containers, agent room) for a household graph."""
    # Every room is listed, empty ones too, so the agent's room always is one (render refuses otherwise).
    rooms: dict[str, list[str]] = {label: [] for _, label in
                                    sorted((n, d["label"]) for n, d in g.nodes(data=True) if d.get("kind") == "room")}
    for node, kind in sorted(g.nodes(data="kind")):
        if kind in ("furniture", "container"):
            rooms.setdefault(g.nodes[targets(g, node, "in_room")[0]]["label"], []).append(node)
    lines = [f'agent_room = "{g.nodes[targets(g, AGENT, "in_room")[0]]["label"]}"', "", "[rooms]"]
    lines += [f"{room} = [{', '.join(json.dumps(o) for o in objs)}]" for room, objs in sorted(rooms.items())]
    return "\n".join(lines) + "\n"
