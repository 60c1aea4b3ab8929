"""LookPlanGraph / GraSIF scoring on scene graphs: success and plan precision, with count goals.

A graph task is an initial scene graph, a goal and a plan. The goal is either a
list of goal items or a goal graph (GraSIF ships initial and goal graphs), from
which the goal items are derived: for every node whose placement or states differ
between the two graphs, its goal placement edges and changed states.

Goal items:

* ``{"relation": "INSIDE", "from": "apple_1", "to": "fridge_1"}``: one edge;
* ``{"state": "CLOSED", "node": "fridge_1"}`` (``"value": false`` for "not closed");
* ``{"count": 3, "class": "bottle", "relation": "ON", "target": {"class": "table"}}``:
  at least 3 distinct bottles each ON some table (``"target": {"id": "table_1"}``
  or ``"target": "table_1"`` for one table); optional ``"states": ["CLEAN"]`` that
  the same objects must have, and a count goal without a relation counts objects
  by class and states only. Count goals are satisfied jointly under SOME
  assignment of distinct objects to their slots (a bipartite matching), so "two
  apples in the fridge" and "one apple on the table" need three different apples.

Metrics (LookPlanGraph appendix B): success = every goal item holds at the end and
every plan step was feasible; plan precision = correctly changed nodes / nodes
that had to change. A node "had to change" when one of its id-specific goal items
is false in the initial graph, and counts as correctly changed when all of them
hold at the end. For count goals the nodes that had to change are the unfilled
slots (slots minus the best matching in the initial graph), and the correctly
changed ones are the slots filled at the end beyond those filled at the start
(clipped to [0, unfilled]). With nothing to change, precision is 1.0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from toolkit.scoring.graph_actions import HANDS, GraphRun, execute
from toolkit.scoring.graph_model import GraphTaskError, SceneGraph, load_graph, norm_relation
from toolkit.scoring.metrics import share


@dataclass(frozen=True)
class FactGoal:
    """An id-specific goal: an edge (``relation``/``target``) or a state (``state``/``value``)."""

    node: str
    relation: str | None = None
    target: str | None = None
    state: str | None = None
    value: bool = True

    def holds(self, g: SceneGraph) -> bool:
        if self.relation is not None:
            return (self.node, self.relation, self.target) in g.edges
        return (self.state in g.node(self.node).states) == self.value

    def __str__(self) -> str:
        if self.relation is not None:
            return f"{self.node} {self.relation} {self.target}"
        return f"{self.node} {'is' if self.value else 'is not'} {self.state}"


@dataclass(frozen=True)
class CountGoal:
    count: int
    class_name: str
    relation: str | None = None
    target_id: str | None = None
    target_class: str | None = None
    states: tuple[str, ...] = ()

    def matches(self, g: SceneGraph, node_id: str) -> bool:
        node = g.nodes[node_id]
        if node.class_name.lower() != self.class_name.lower() or not set(self.states) <= node.states:
            return False
        if self.relation is None:
            return True
        for u, rel, v in g.edges:
            if u == node_id and rel == self.relation:
                if self.target_id is not None and v == self.target_id:
                    return True
                if self.target_class is not None and g.nodes[v].class_name.lower() == self.target_class.lower():
                    return True
        return False

    def __str__(self) -> str:
        where = ""
        if self.relation:
            where = f" {self.relation} " + (self.target_id or f"any {self.target_class}")
        st = f" ({', '.join(self.states)})" if self.states else ""
        return f"{self.count} x {self.class_name}{st}{where}"


Goal = FactGoal | CountGoal


def _need(item: Mapping[str, Any], *keys: str) -> Any:
    for k in keys:
        if k in item:
            return item[k]
    raise GraphTaskError(f"goal item {dict(item)!r} needs one of {list(keys)}")


def parse_goal(items: Sequence[Mapping[str, Any]], g: SceneGraph) -> list[Goal]:
    """Goal items from JSON (see the module docstring); node ids are checked against ``g``."""
    if not isinstance(items, list):
        raise GraphTaskError("'goal' must be a list of goal items")
    goals: list[Goal] = []
    for item in items:
        if not isinstance(item, Mapping):
            raise GraphTaskError(f"a goal item must be an object: {item!r}")
        if "count" in item or ("class" in item and not any(k in item for k in ("node", "from", "object"))):
            count = item.get("count", 1)
            if not isinstance(count, int) or count < 1:
                raise GraphTaskError(f"'count' must be a positive integer: {item!r}")
            states = item.get("states", [item["state"]] if "state" in item else [])
            target = item.get("target", item.get("to"))
            tid = target if isinstance(target, str) else (target or {}).get("id")
            tcls = None if isinstance(target, str) else (target or {}).get("class")
            rel = norm_relation(item["relation"]) if item.get("relation") else None
            if rel and tid is None and tcls is None:
                raise GraphTaskError(f"count goal with a relation needs a target id or class: {item!r}")
            if tid is not None:
                g.node(str(tid))
            goals.append(CountGoal(count, str(_need(item, "class")), rel, None if tid is None else str(tid),
                                   tcls, tuple(str(s).upper() for s in states)))
        elif "relation" in item:
            node = str(_need(item, "from", "node", "object"))
            target = str(_need(item, "to", "target"))
            g.node(node), g.node(target)
            goals.append(FactGoal(node, norm_relation(item["relation"]), target))
        elif "state" in item:
            node = str(_need(item, "node", "from", "object"))
            g.node(node)
            goals.append(FactGoal(node, state=str(item["state"]).upper(), value=bool(item.get("value", True))))
        else:
            raise GraphTaskError(f"goal item needs 'relation', 'state' or 'count': {dict(item)!r}")
    return goals


def goals_from_graphs(initial: SceneGraph, goal: SceneGraph) -> list[Goal]:
    """Id-specific goals for every node whose placement or states differ between the graphs."""
    out: list[Goal] = []
    for nid in sorted(goal.nodes):
        if nid not in initial.nodes:
            raise GraphTaskError(f"goal graph node '{nid}' is not in the initial graph")
        if initial.placement(nid) != goal.placement(nid):
            out.extend(FactGoal(nid, rel, v) for rel, v in goal.placement(nid))
        before, after = initial.nodes[nid].states, goal.nodes[nid].states
        out.extend(FactGoal(nid, state=s, value=True) for s in sorted(after - before))
        out.extend(FactGoal(nid, state=s, value=False) for s in sorted(before - after))
    return out


def count_matching(goals: Sequence[CountGoal], g: SceneGraph) -> tuple[int, dict[int, list[str]]]:
    """Most slots filled by distinct objects (Kuhn's augmenting paths), and one such assignment."""
    slots = [gi for gi, goal in enumerate(goals) for _ in range(goal.count)]
    cands = {gi: [n for n in sorted(g.nodes) if goal.matches(g, n)] for gi, goal in enumerate(goals)}
    owner: dict[str, int] = {}  # object -> slot index

    def augment(slot: int, seen: set[str]) -> bool:
        for obj in cands[slots[slot]]:
            if obj in seen:
                continue
            seen.add(obj)
            if obj not in owner or augment(owner[obj], seen):
                owner[obj] = slot
                return True
        return False

    filled = sum(1 for s in range(len(slots)) if augment(s, set()))
    assignment: dict[int, list[str]] = {gi: [] for gi in range(len(goals))}
    for obj, slot in sorted(owner.items()):
        assignment[slots[slot]].append(obj)
    return filled, assignment


@dataclass(frozen=True)
class GraphScore:
    success: bool
    precision: float
    to_change: int
    changed_correctly: int
    goals_total: int
    goals_met: int
    unmet: tuple[str, ...]
    run: GraphRun
    assignment: dict[str, list[str]]
    tokens: int | None = None  # tokens spent generating the plan, when the record gives them

    @property
    def tokens_per_action(self) -> float | None:
        """LookPlanGraph app. B, TPA: tokens / actions, for a successfully completed task only."""
        if self.tokens is None or not self.success or not self.run.steps:
            return None
        return self.tokens / len(self.run.steps)

    def to_json(self) -> dict[str, Any]:
        return {"success": self.success, "precision": self.precision, "to_change": self.to_change,
                "changed_correctly": self.changed_correctly, "goals_total": self.goals_total,
                "goals_met": self.goals_met, "goal_share": share(self.goals_met, self.goals_total),
                "unmet": list(self.unmet), "feasible": self.run.failed_step is None,
                "failed_step": self.run.failed_step, "message": self.run.reason or "all steps feasible",
                "plan_length": len(self.run.steps) if self.run.failed_step is None else None,
                "count_assignment": self.assignment, "tokens": self.tokens,
                "tokens_per_action": self.tokens_per_action}


def score_graph_task(initial: SceneGraph, goals: Sequence[Goal], plan: Any, hands: int = HANDS,
                     rooms: bool = True, tokens: int | None = None) -> GraphScore:
    """Execute ``plan`` on ``initial`` (``hands``, ``rooms``: see :func:`execute`) and score it against ``goals``."""
    run = execute(initial, plan, hands, rooms)
    final = run.graph
    facts = [x for x in goals if isinstance(x, FactGoal)]
    counts = [x for x in goals if isinstance(x, CountGoal)]
    by_node: dict[str, list[FactGoal]] = {}
    for f in facts:
        by_node.setdefault(f.node, []).append(f)
    need = [n for n, fs in by_node.items() if not all(f.holds(initial) for f in fs)]
    right = [n for n in need if all(f.holds(final) for f in by_node[n])]
    slots = sum(c.count for c in counts)
    m0, _ = count_matching(counts, initial)
    m1, assign = count_matching(counts, final)
    count_need = slots - m0
    count_right = max(0, min(count_need, m1 - m0))
    unmet = [str(f) for f in facts if not f.holds(final)]
    met_counts = 0
    for gi, c in enumerate(counts):
        got = len(assign[gi])
        if got >= c.count:
            met_counts += 1
        else:
            unmet.append(f"{c} (found {got})")
    success = run.failed_step is None and not unmet
    to_change, correct = len(need) + count_need, len(right) + count_right
    return GraphScore(success, share(correct, to_change), to_change, correct, len(goals),
                      len(goals) - len(unmet), tuple(unmet), run,
                      {f"#{gi + 1} {counts[gi]}": ids for gi, ids in assign.items()}, tokens)


def score_graph_record(record: Mapping[str, Any], hands: int = HANDS, rooms: bool = True) -> GraphScore:
    """Score one task record: ``initial`` graph, ``goal`` items and/or ``goal_graph``, ``plan``, optional ``tokens``."""
    if "initial" not in record:
        raise GraphTaskError("a graph task needs 'initial' (a scene graph)")
    initial = load_graph(record["initial"])
    goals: list[Goal] = []
    if record.get("goal_graph") is not None:
        goals += goals_from_graphs(initial, load_graph(record["goal_graph"]))
    if record.get("goal") is not None:
        goals += parse_goal(record["goal"], initial)
    if not goals and "goal" not in record and "goal_graph" not in record:
        raise GraphTaskError("a graph task needs 'goal' (goal items) or 'goal_graph'")
    if "plan" not in record:
        raise GraphTaskError("a graph task needs 'plan'")
    tokens = record.get("tokens")
    if tokens is not None and (not isinstance(tokens, int) or isinstance(tokens, bool) or tokens < 0):
        raise GraphTaskError(f"'tokens' must be a non-negative integer (tokens spent on the plan), got {tokens!r}")
    return score_graph_task(initial, goals, record["plan"], hands, rooms, tokens)
