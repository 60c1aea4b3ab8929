"""The scene-graph schema every world shares, and a validator with clear errors.

A world is a ``networkx.MultiDiGraph`` whose nodes carry a ``kind`` and whose edges
carry a ``rel``. Keeping one documented schema (instead of one ad-hoc graph per
world) lets importers, renderers and validators work on any world, and lets users
bring their own graphs (see :mod:`scene_graphs.importers`).

Node kinds and their attributes:

* ``room``: a place. Attributes: ``label``.
* ``furniture``: a static object (a PDDL ``object`` that is neither container nor
  movable). Attributes: ``label``.
* ``container``: something that can be opened. Attributes: ``label``, ``open`` (bool).
* ``movable``: something the agent can grasp. Attributes: ``label``.
* ``agent``: the robot (at most one). Attributes: ``label``, ``at`` (the object it
  last navigated to, or None).
* ``column``: a Blocksworld table column. Attributes: ``label``, ``index`` (0 = leftmost).
* ``block``: a Blocksworld block. Attributes: ``label``, ``colour`` (RGB tuple).

Relation edges (``rel`` attribute, edge direction = reading order):

* ``ontop`` (x on top of y), ``inside`` (x inside container y), ``nextto`` (x next to y);
* ``in_room`` (furniture/container/movable -> room, or agent -> room);
* ``reaches`` (agent -> object within reach), ``holds`` (agent -> movable);
* Blocksworld: ``in_column`` (block -> column), ``on`` (block -> block below).
"""

from __future__ import annotations

from typing import Any

import networkx as nx

from toolkit.errors import PgtError

NODE_KINDS: frozenset[str] = frozenset(
    {"room", "furniture", "container", "movable", "agent", "column", "block"})
OBJECT_KINDS: frozenset[str] = frozenset({"furniture", "container", "movable"})

# rel -> (allowed source kinds, allowed target kinds)
RELATIONS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "ontop": (OBJECT_KINDS, OBJECT_KINDS),
    "nextto": (OBJECT_KINDS, OBJECT_KINDS),
    "inside": (OBJECT_KINDS, frozenset({"container"})),
    "in_room": (OBJECT_KINDS | {"agent"}, frozenset({"room"})),
    "reaches": (frozenset({"agent"}), OBJECT_KINDS),
    "holds": (frozenset({"agent"}), frozenset({"movable"})),
    "in_column": (frozenset({"block"}), frozenset({"column"})),
    "on": (frozenset({"block"}), frozenset({"block"})),
}


class SceneGraphError(PgtError):
    """A scene graph that breaks the schema; names the offending node or edge."""

    def __init__(self, message: str, node: Any = None) -> None:
        self.node = node
        super().__init__(message)


def new_graph() -> nx.MultiDiGraph:
    """An empty world graph."""
    return nx.MultiDiGraph()


def edges_of(g: nx.MultiDiGraph, rel: str) -> list[tuple[str, str]]:
    """All ``(source, target)`` pairs of one relation, sorted.

    >>> g = new_graph(); g.add_node("a", kind="block"); g.add_node("b", kind="block")
    >>> _ = g.add_edge("a", "b", key="on", rel="on"); edges_of(g, "on")
    [('a', 'b')]
    """
    return sorted((u, v) for u, v, r in g.edges(data="rel") if r == rel)


def targets(g: nx.MultiDiGraph, node: str, rel: str) -> list[str]:
    """Targets of ``node``'s outgoing ``rel`` edges, sorted."""
    return sorted(v for _, v, r in g.out_edges(node, data="rel") if r == rel)


def sources(g: nx.MultiDiGraph, node: str, rel: str) -> list[str]:
    """Sources of ``rel`` edges pointing at ``node``, sorted."""
    return sorted(u for u, _, r in g.in_edges(node, data="rel") if r == rel)


def add_rel(g: nx.MultiDiGraph, u: str, v: str, rel: str) -> None:
    """Add a relation edge (idempotent: the edge key is the relation name). Mutates ``g``."""
    g.add_edge(u, v, key=rel, rel=rel)


def remove_rel(g: nx.MultiDiGraph, u: str, v: str, rel: str) -> None:
    """Remove a relation edge if present. Mutates ``g``."""
    if g.has_edge(u, v, key=rel):
        g.remove_edge(u, v, key=rel)


def validate_graph(g: nx.Graph) -> None:
    """Check a world graph against the schema.

    Raises:
        SceneGraphError: naming the first offending node or edge.

    >>> g = new_graph(); g.add_node("x", kind="sofa")
    >>> validate_graph(g)
    Traceback (most recent call last):
    ...
    scene_graphs.schema.SceneGraphError: node 'x' has unknown kind 'sofa'; expected one of agent, block, column, container, furniture, movable, room
    """
    if not isinstance(g, nx.MultiDiGraph):
        raise SceneGraphError(f"a world graph must be a networkx MultiDiGraph, got {type(g).__name__}")
    agents = []
    for node, data in sorted(g.nodes(data=True), key=lambda nd: str(nd[0])):
        kind = data.get("kind")
        if kind is None:
            raise SceneGraphError(f"node {node!r} has no 'kind' attribute", node)
        if kind not in NODE_KINDS:
            raise SceneGraphError(
                f"node {node!r} has unknown kind {kind!r}; expected one of {', '.join(sorted(NODE_KINDS))}", node)
        if kind == "agent":
            agents.append(node)
        if kind == "container" and not isinstance(data.get("open", False), bool):
            raise SceneGraphError(f"container {node!r} has non-boolean 'open' state {data.get('open')!r}", node)
    if len(agents) > 1:
        raise SceneGraphError(f"a world has at most one agent, found {', '.join(map(str, agents))}", agents[1])
    for u, v, key, data in g.edges(keys=True, data=True):
        rel = data.get("rel")
        if rel not in RELATIONS:
            raise SceneGraphError(
                f"edge {u!r} -> {v!r} has unknown relation {rel!r}; expected one of {', '.join(sorted(RELATIONS))}", u)
        src_kinds, dst_kinds = RELATIONS[rel]
        if g.nodes[u]["kind"] not in src_kinds:
            raise SceneGraphError(f"node {u!r} (a {g.nodes[u]['kind']}) cannot be the source of a {rel!r} edge", u)
        if g.nodes[v]["kind"] not in dst_kinds:
            raise SceneGraphError(f"node {v!r} (a {g.nodes[v]['kind']}) cannot be the target of a {rel!r} edge", v)
        if u == v and rel in ("on", "inside", "in_column"):
            raise SceneGraphError(f"node {u!r} is {rel} itself", u)
    for node, kind in g.nodes(data="kind"):
        if kind == "block" and len(targets(g, node, "in_column")) != 1:
            raise SceneGraphError(f"block {node!r} must be in exactly one column", node)
        if kind == "block" and len(targets(g, node, "on")) > 1:
            raise SceneGraphError(f"block {node!r} is on more than one block", node)
        if kind == "block" and len(sources(g, node, "on")) > 1:
            raise SceneGraphError(f"block {node!r} has more than one block on it", node)
    for agent in agents:
        if len(targets(g, agent, "holds")) > 1:
            raise SceneGraphError(f"agent {agent!r} holds more than one object", agent)
