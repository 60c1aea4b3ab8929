"""The column Blocksworld of the ViPlan paper as a scene graph.

Blocks sit in labelled columns; ``moveBlock(b, c)`` puts a clear block on top of
column ``c``. The world is built from any problem file of the domain: column order
comes from the ``leftOf``/``rightOf`` facts (else from the names), block colours
from the block names when they are colour words or letters (else a fixed palette).

Failure model (ViPlan, appendix): of the failed moves, half do nothing, a quarter
drop the block on a column next to the target, a quarter on a column next to the
block's start. "Next to" excludes the start and the target columns themselves; if
the chosen side has no such column the other side is tried, and if neither has one
the move does nothing (reported as ``no_effect``).
"""

from __future__ import annotations

import random
import re

import networkx as nx

from scene_graphs import colours
from scene_graphs.schema import SceneGraphError, add_rel, new_graph, remove_rel, sources, targets
from scene_graphs.world import GraphWorld
from toolkit.model import Atom
from toolkit.task import GroundAction, Task


def natural_key(name: str) -> tuple:
    """Sort key that orders ``c2`` before ``c10``."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name))


def column_order(task: Task) -> tuple[list[str], str]:
    """Columns from left to right, and whether leftOf/rightOf are 'adjacent' or 'transitive'.

    Raises:
        SceneGraphError: when the facts contradict each other (a cycle) or match
            neither the adjacent-only nor the transitive reading of the order.
    """
    cols = sorted(task.objects_of(("column",)), key=natural_key)
    left_of: set[tuple[str, str]] = set()  # (a, b): a is left of b
    for atom in task.init:
        if atom.predicate == "leftOf":
            left_of.add((atom.args[0], atom.args[1]))
        elif atom.predicate == "rightOf":
            left_of.add((atom.args[1], atom.args[0]))
    dag = nx.DiGraph()
    dag.add_nodes_from(cols)
    dag.add_edges_from(left_of)
    try:
        order = list(nx.lexicographical_topological_sort(dag, key=natural_key))
    except nx.NetworkXUnfeasible as exc:
        raise SceneGraphError(f"{task.problem.path}: leftOf/rightOf facts form a cycle") from exc
    if not left_of:
        return order, "adjacent"
    for mode in ("adjacent", "transitive"):
        if order_atoms(order, mode) == {a for a in task.init if a.predicate in ("leftOf", "rightOf")}:
            return order, mode
    raise SceneGraphError(
        f"{task.problem.path}: leftOf/rightOf facts describe neither adjacent columns nor a full "
        f"left-to-right order of {', '.join(order)}; a column world cannot show them")


def order_atoms(order: list[str], mode: str) -> set[Atom]:
    """The leftOf/rightOf atoms of a column order."""
    pairs = ([(a, b) for a, b in zip(order, order[1:])] if mode == "adjacent"
             else [(a, b) for i, a in enumerate(order) for b in order[i + 1:]])
    return {Atom("leftOf", (a, b)) for a, b in pairs} | {Atom("rightOf", (b, a)) for a, b in pairs}


def column_stack(g: nx.MultiDiGraph, column: str) -> list[str]:
    """Blocks of a column from bottom to top."""
    members = set(sources(g, column, "in_column"))
    bottom = [b for b in members if not targets(g, b, "on")]
    stack: list[str] = []
    if len(bottom) == 1:
        stack.append(bottom[0])
        while True:
            above = sources(g, stack[-1], "on")
            if not above:
                break
            stack.append(above[0])
    return stack


class BlocksworldWorld(GraphWorld):
    """Column Blocksworld; see the module docstring."""

    domain_name = "blocksworld"

    def __init__(self, task: Task, *, failure_prob: float = 0.0, seed: int | None = None) -> None:
        self.columns, self.order_mode = column_order(task)
        self.blocks = sorted(task.objects_of(("block",)), key=natural_key)
        self.palette = colours.block_colours(self.blocks)
        super().__init__(task, failure_prob=failure_prob, seed=seed)
        for col in self.columns:
            members = sources(self.graph, col, "in_column")
            stack = column_stack(self.graph, col)
            if sorted(stack) != sorted(members) or any(
                    targets(self.graph, b, "on") and targets(self.graph, targets(self.graph, b, "on")[0], "in_column")
                    != [col] for b in members):
                raise SceneGraphError(
                    f"{task.problem.path}: blocks {', '.join(members)} in column {col!r} "
                    "do not form one stack (check the on/inColumn facts)", col)
        built = self.abstract(self.graph)
        if built != task.init:
            missing = sorted(map(str, task.init - built))
            extra = sorted(map(str, built - task.init))
            raise SceneGraphError(
                f"{task.problem.path}: the initial state is not a set of column stacks; "
                f"facts a column world cannot hold: {', '.join(missing) or '-'}; "
                f"facts the stacks imply but the file lacks: {', '.join(extra) or '-'}")

    def build_graph(self) -> nx.MultiDiGraph:
        g = new_graph()
        g.graph["order_mode"] = self.order_mode
        for i, col in enumerate(self.columns):
            g.add_node(col, kind="column", label=col, index=i)
        for b in self.blocks:
            g.add_node(b, kind="block", label=b, colour=self.palette[b])
        for atom in sorted(self.task.init):
            if atom.predicate == "inColumn":
                add_rel(g, atom.args[0], atom.args[1], "in_column")
            elif atom.predicate == "on":
                add_rel(g, atom.args[0], atom.args[1], "on")
        for b in self.blocks:
            if len(targets(g, b, "in_column")) != 1:
                raise SceneGraphError(f"{self.task.problem.path}: block {b!r} must be in exactly one column", b)
        return g

    def abstract(self, g: nx.MultiDiGraph) -> frozenset[Atom]:
        atoms = set(order_atoms(self.columns, g.graph["order_mode"]))
        for b, c in _pairs(g, "in_column"):
            atoms.add(Atom("inColumn", (b, c)))
        for a, b in _pairs(g, "on"):
            atoms.add(Atom("on", (a, b)))
        for node, kind in g.nodes(data="kind"):
            if kind == "block" and not sources(g, node, "on"):
                atoms.add(Atom("clear", (node,)))
        return frozenset(atoms)

    def preconditions_hold(self, g: nx.MultiDiGraph, action: GroundAction) -> bool:
        block, column = action.args
        return not sources(g, block, "on") and targets(g, block, "in_column") != [column]

    def apply(self, g: nx.MultiDiGraph, action: GroundAction) -> None:
        self._move(g, *action.args)

    def _move(self, g: nx.MultiDiGraph, block: str, column: str) -> None:
        stack = column_stack(g, column)
        for below in targets(g, block, "on"):
            remove_rel(g, block, below, "on")
        for old in targets(g, block, "in_column"):
            remove_rel(g, block, old, "in_column")
        if stack:
            add_rel(g, block, stack[-1], "on")
        add_rel(g, block, column, "in_column")

    def apply_failure(self, g: nx.MultiDiGraph, action: GroundAction, rng: random.Random) -> str:
        block, target = action.args
        start = targets(g, block, "in_column")[0]
        roll = rng.random()
        if roll < 0.5:
            return "no_effect"
        sides = [("dropped_near_target", target), ("dropped_near_start", start)]
        if roll >= 0.75:
            sides.reverse()
        for name, anchor in sides:
            i = self.columns.index(anchor)
            options = [self.columns[j] for j in (i - 1, i + 1)
                       if 0 <= j < len(self.columns) and self.columns[j] not in (start, target)]
            if options:
                self._move(g, block, rng.choice(options))
                return name
        return "no_effect"

    def visible_atoms(self, g: nx.MultiDiGraph) -> frozenset[Atom] | None:
        return None  # the column view shows every block and column

    def render_graph(self, g: nx.MultiDiGraph) -> bytes:
        from scene_graphs.render_blocks import render_blocks
        return render_blocks(g)


def _pairs(g: nx.MultiDiGraph, rel: str) -> list[tuple[str, str]]:
    return [(u, v) for u, v, r in g.edges(data="rel") if r == rel]
