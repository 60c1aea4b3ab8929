"""A minimal scene graph for scoring GraSIF-style tasks, and a loader for the JSON forms.

Why a model of our own instead of ``scene_graphs``: ``toolkit`` must not import the
outer layers, and scoring needs only ids, classes, states and relation edges. A
:class:`SceneGraph` is immutable; the executor returns new graphs.

Accepted inputs of :func:`load_graph`:

* VirtualHome / GraSIF flat form: ``{"nodes": [{"id", "class_name", "states",
  "properties", "category"}], "edges": [{"from_id", "to_id", "relation_type"}]}``;
* GraSIF hierarchical form (LookPlanGraph appendix): ``{"nodes": {"room": [...],
  "asset": [{"name"|"id", "room"|"located", "states"}], "object": [{"name"|"id",
  "relation": "ontop_of"|"inside", "related_to", "states"}], "agent": ...}}``;
* a networkx graph whose nodes carry ``class_name`` (or ``label``), ``states`` or
  ``open``, ``kind``, and whose edges carry ``relation``/``rel``/``relation_type``.

Relations and states are upper-cased; ``ontop``/``ontop_of``/``on_top_of`` become
``ON`` and ``in`` becomes ``INSIDE``. A node without a class gets one from its name
with the trailing index removed (``wicker_basket-3`` -> ``wicker_basket``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Iterable, Mapping

from toolkit.errors import PgtError

PLACEMENT = frozenset({"ON", "INSIDE", "NEXTTO"})  # an object has at most one of these edges
_REL_ALIASES = {"ONTOP": "ON", "ONTOP_OF": "ON", "ON_TOP_OF": "ON", "ON_TOP": "ON", "IN": "INSIDE",
                "INSIDE_OF": "INSIDE", "NEXT_TO": "NEXTTO", "IN_ROOM": "INSIDE"}
_STATIC_KINDS = frozenset({"room", "asset", "agent", "furniture"})


class GraphTaskError(PgtError):
    """A scene-graph task, goal or graph that cannot be read."""


def norm_relation(rel: Any) -> str:
    text = str(rel).strip().upper().replace("-", "_").replace(" ", "_")
    return _REL_ALIASES.get(text, text)


def class_from_name(name: str) -> str:
    """``wicker_basket-3`` -> ``wicker_basket``; ``water_glass1`` -> ``water_glass``."""
    return re.sub(r"[-_]?\d+$", "", name) or name


@dataclass(frozen=True)
class Node:
    id: str
    class_name: str
    states: frozenset[str] = frozenset()
    kind: str = ""  # room | asset | object | agent | "" (unknown)
    properties: frozenset[str] = frozenset()

    @property
    def movable(self) -> bool:
        return self.kind not in _STATIC_KINDS


@dataclass(frozen=True)
class SceneGraph:
    """Nodes by id and relation edges ``(from, RELATION, to)``."""

    nodes: Mapping[str, Node]
    edges: frozenset[tuple[str, str, str]] = field(default=frozenset())
    agent_room: str | None = None  # where the agent starts: the agent's "location", or the character's room

    def __post_init__(self) -> None:
        object.__setattr__(self, "nodes", MappingProxyType(dict(self.nodes)))
        for u, rel, v in self.edges:
            for end in (u, v):
                if end not in self.nodes:
                    raise GraphTaskError(f"edge ({u} {rel} {v}) names unknown node '{end}'")

    def node(self, node_id: str) -> Node:
        hit = self.nodes.get(node_id)
        if hit is None:
            from toolkit.errors import closest

            near = closest(node_id, self.nodes)
            hint = f"; did you mean {', '.join(near)}?" if near else ""
            raise GraphTaskError(f"unknown node '{node_id}'{hint}")
        return hit

    def placement(self, node_id: str) -> list[tuple[str, str]]:
        """(relation, target) of the node's placement edges (ON/INSIDE/NEXTTO)."""
        return sorted((rel, v) for u, rel, v in self.edges if u == node_id and rel in PLACEMENT
                      and self.nodes[v].kind != "room")

    def ancestors(self, node_id: str) -> list[str]:
        """Nodes the node rests on or in, transitively (cycle-safe)."""
        out, todo = [], [node_id]
        while todo:
            cur = todo.pop()
            for _, v in self.placement(cur):
                if v not in out and v != node_id:
                    out.append(v)
                    todo.append(v)
        return out

    def with_node(self, node: Node) -> SceneGraph:
        return SceneGraph({**self.nodes, node.id: node}, self.edges, self.agent_room)

    def with_edges(self, edges: Iterable[tuple[str, str, str]]) -> SceneGraph:
        return SceneGraph(self.nodes, frozenset(edges), self.agent_room)

    def room_of(self, node_id: str) -> str | None:
        """The room a node is in: itself if a room, else the room of it or of what it rests on or in."""
        if self.nodes[node_id].kind == "room":
            return node_id
        for cur in [node_id, *self.ancestors(node_id)]:
            for u, rel, v in self.edges:
                if u == cur and rel == "INSIDE" and self.nodes[v].kind == "room":
                    return v
        return None


def _states(raw: Any) -> frozenset[str]:
    if raw is None:
        return frozenset()
    if isinstance(raw, str):
        raw = [raw]
    return frozenset(str(s).strip().upper() for s in raw if str(s).strip())


def _flat(data: Mapping[str, Any]) -> SceneGraph:
    nodes: dict[str, Node] = {}
    for n in data["nodes"]:
        if not isinstance(n, Mapping) or ("id" not in n and "name" not in n):
            raise GraphTaskError(f"a node must be an object with an 'id': {n!r}")
        nid = str(n.get("id", n.get("name")))
        cls = str(n.get("class_name") or n.get("class") or class_from_name(str(n.get("name", nid))))
        category = str(n.get("category", n.get("kind", ""))).lower()
        kind = "room" if category in ("rooms", "room") else category if category in _STATIC_KINDS else ""
        nodes[nid] = Node(nid, cls, _states(n.get("states")), kind, _states(n.get("properties")))
    edges = set()
    for e in data.get("edges", []):
        try:
            edges.add((str(e["from_id"]), norm_relation(e["relation_type"]), str(e["to_id"])))
        except (KeyError, TypeError):
            raise GraphTaskError(f"an edge needs from_id, relation_type and to_id: {e!r}") from None
    graph = SceneGraph(nodes, frozenset(edges))
    agent = next((n for n in nodes.values() if n.class_name.lower() in ("character", "agent", "robot")), None)
    return graph if agent is None else SceneGraph(nodes, frozenset(edges), graph.room_of(agent.id))


def _hierarchical(data: Mapping[str, Any]) -> SceneGraph:
    nodes: dict[str, Node] = {}
    edges: set[tuple[str, str, str]] = set()
    groups = {"room": "room", "rooms": "room", "asset": "asset", "assets": "asset",
              "object": "object", "objects": "object"}
    pending = []
    for key, items in data.items():
        kind = groups.get(key)
        if kind is None:
            continue  # agent and extras carry no nodes to score
        for item in items if isinstance(items, list) else [items]:
            if not isinstance(item, Mapping) or ("name" not in item and "id" not in item):
                raise GraphTaskError(f"a {kind} must be an object with a 'name' or 'id': {item!r}")
            nid = str(item.get("id", item.get("name")))
            nodes[nid] = Node(nid, str(item.get("class_name") or class_from_name(nid)), _states(item.get("states")),
                              kind, _states(item.get("properties")))
            room = item.get("room", item.get("located"))
            if room:
                pending.append((nid, "INSIDE", str(room)))
            if item.get("related_to"):
                pending.append((nid, norm_relation(item.get("relation", "ON")), str(item["related_to"])))
    for u, rel, v in pending:
        if v not in nodes:
            raise GraphTaskError(f"node '{u}' is {rel} unknown node '{v}'")
        edges.add((u, rel, v))
    graph = SceneGraph(nodes, frozenset(edges))
    agent = data.get("agent")
    where = agent.get("location", agent.get("room")) if isinstance(agent, Mapping) else None
    if where is None:
        return graph
    return SceneGraph(nodes, frozenset(edges), graph.room_of(graph.node(str(where)).id))


def _networkx(g: Any) -> SceneGraph:
    nodes = {}
    for nid, attrs in g.nodes(data=True):
        states = set(_states(attrs.get("states")))
        if "open" in attrs:
            states.add("OPEN" if attrs["open"] else "CLOSED")
        kind = str(attrs.get("kind", ""))
        cls = str(attrs.get("class_name") or class_from_name(str(nid)))
        nodes[str(nid)] = Node(str(nid), cls, frozenset(states), kind)
    edges = set()
    for u, v, attrs in g.edges(data=True):
        rel = attrs.get("relation", attrs.get("rel", attrs.get("relation_type")))
        if rel is not None:
            edges.add((str(u), norm_relation(rel), str(v)))
    return SceneGraph(nodes, frozenset(edges))


def load_graph(data: Any) -> SceneGraph:
    """A :class:`SceneGraph` from any accepted form (see the module docstring)."""
    if isinstance(data, SceneGraph):
        return data
    if hasattr(data, "nodes") and hasattr(data, "edges") and not isinstance(data, Mapping):
        return _networkx(data)
    if not isinstance(data, Mapping) or "nodes" not in data:
        raise GraphTaskError("a scene graph must be a JSON object with 'nodes' (and 'edges')")
    if isinstance(data["nodes"], list):
        return _flat(data)
    if isinstance(data["nodes"], Mapping):
        return _hierarchical(data["nodes"])
    raise GraphTaskError("'nodes' must be a list (flat form) or an object of room/asset/object lists")
