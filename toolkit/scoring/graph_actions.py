"""Run a plan of graph-level actions on a :class:`SceneGraph`, with simple documented semantics.

Why so simple: GraSIF validates plans by moving nodes and flipping states in the
graph, with no physics; the only failures that matter are the ones a household
robot would hit (a closed container, a node that does not exist, a static asset
that cannot be carried). Execution stops at the first infeasible step, which is
reported with its 1-based index and reason; the scorer then scores the graph
reached so far.

Actions (name, then arguments; call style ``put_on(apple_1, table_1)``, PDDL style
``(place-on apple_1 table_1)`` or JSON ``{"action": ..., "object": ..., "relation":
..., "target": ...}``; names are case-insensitive, ``-`` and ``_`` equal):

* ``place``/``rearrange``/``move`` (object, relation, target): move the object;
  its old ON/INSIDE/NEXTTO edges go, the new one comes, and its room follows the target's.
* ``put_on``/``place_on`` (object, target) or (target) with the held object; the
  same for ``put_inside``/``put_in``/``place_inside`` and ``put_next_to``/``place_next_to``.
* ``pick_up``/``grab``/``grasp`` (object): the agent holds it (placement edges go).
  The agent has **one manipulator** by default, as GraSIF's ("You can handle only one
  item"; LookPlanGraph §V: "the simulated agent had only one manipulator"): a second
  object cannot be picked up. ``hands=2`` gives VirtualHome's character (HOLDS_RH /
  HOLDS_LH), where ``put_on(target)`` with two objects in hand is ambiguous (name the object).
* **Rooms**: the hands-on actions (pick up, put, open/close, turn on/off, plug, pour,
  sit/lie) act on a node in the agent's room only, as the planner prompt of the
  LookPlanGraph appendix says ("at agent's node") and its PDDL domain requires
  (``(robot-in ?r) (object-room ?o ?r)``). The agent starts in the graph's agent
  ``location`` (or the character node's room), else in no room; ``go_to(room)``
  moves it there, ``go_to(node)`` to the node's room. ``rearrange``, LookPlanGraph's
  own macro action, moves an object from any room, as its prompt says.
* ``open``/``close`` (+ ``open_container``/``close_container``), ``turn_on``/
  ``switch_on``/``turn_off``/``switch_off``, ``plug_in``/``plug_out``: flip
  OPEN/CLOSED, ON/OFF or PLUGGED_IN/PLUGGED_OUT.
* ``sit``/``sit_on``/``lie``/``lie_on`` (node), ``stand_up``: the character node
  (class ``character``), if the graph has one, gains SITTING or LYING (loses both).
* ``pour`` (object, target): the object must be in hand and the target must exist;
  the graph does not model liquids, so nothing else changes.
* ``go_to``/``walk``/``walk_to``/``navigate_to``: the agent moves to the room (see Rooms).
* ``find``/``discover_objects``/``look_at``/``done``/``think`` (the other baselines'
  vocabularies: LookPlanGraph's, SayPlan's, the ReAct agent's): no change to the graph
  (the named node must exist).

Infeasible: unknown action or node, moving a room/asset, a node onto itself or into
something it holds up, reaching into a closed container, putting inside a closed
one, opening what is open or not openable, picking up a third object with both hands full,
pouring what is not in hand.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any

from toolkit.scoring.graph_model import GraphTaskError, SceneGraph, norm_relation
from toolkit import jsontext

_PLACE = {"place", "rearrange", "move", "put"}
_PUT = {"put_on": "ON", "place_on": "ON", "putback": "ON", "put_inside": "INSIDE", "put_in": "INSIDE",
        "putin": "INSIDE", "place_inside": "INSIDE", "put_next_to": "NEXTTO", "place_next_to": "NEXTTO"}
_PICK = {"pick_up", "pickup", "grab", "grasp"}
_TOGGLE = {"open": ("OPEN", "CLOSED", "CAN_OPEN"), "open_container": ("OPEN", "CLOSED", "CAN_OPEN"),
           "close": ("CLOSED", "OPEN", "CAN_OPEN"), "close_container": ("CLOSED", "OPEN", "CAN_OPEN"),
           "turn_on": ("ON", "OFF", "HAS_SWITCH"), "switch_on": ("ON", "OFF", "HAS_SWITCH"),
           "turn_off": ("OFF", "ON", "HAS_SWITCH"), "switch_off": ("OFF", "ON", "HAS_SWITCH")}
_TOGGLE.update({"plug_in": ("PLUGGED_IN", "PLUGGED_OUT", "HAS_PLUG"), "plugin": ("PLUGGED_IN", "PLUGGED_OUT", "HAS_PLUG"),
                "plug_out": ("PLUGGED_OUT", "PLUGGED_IN", "HAS_PLUG"), "plugout": ("PLUGGED_OUT", "PLUGGED_IN", "HAS_PLUG")})
_POSTURE = {"sit": "SITTING", "sit_on": "SITTING", "sit_down": "SITTING", "lie": "LYING", "lie_on": "LYING",
            "lie_down": "LYING", "stand_up": None, "standup": None}
HANDS = 1  # GraSIF's agent: one manipulator; VirtualHome's character has two (execute(..., hands=2))
_GO = {"go_to", "goto", "walk", "walk_to", "navigate_to", "go"}
_NOOP = {"find", "discover_objects", "look_at", "done", "expand_node", "contract_node"}  # name a node
_FREE = {"think", "verify_plan"}  # ReAct's thought, SayPlan's "verify the graph": no node
_MULTIWORD = {"pick", "put", "go", "turn", "switch", "plug", "sit", "lie", "stand", "look", "walk", "place"}
_KNOWN = {*_PLACE, *_PUT, *_PICK, *_TOGGLE, *_POSTURE, *_GO, *_NOOP, *_FREE, "pour"}
_CALL = re.compile(r"^\s*\(?\s*([A-Za-z][\w-]*)\s*[( ]?(.*?)\)?\s*$")


@dataclass(frozen=True)
class GraphStep:
    index: int
    text: str
    ok: bool
    message: str = ""


@dataclass(frozen=True)
class GraphRun:
    graph: SceneGraph
    steps: tuple[GraphStep, ...]
    failed_step: int | None = None
    reason: str = ""


def normalize_step(step: Any) -> tuple[str, list[str], str | None]:
    """(verb, positional args, relation or None) from a JSON or text step."""
    if isinstance(step, dict):
        verb = str(step.get("action", step.get("name", "")))
        args = step.get("args", step.get("arguments", step.get("parameters")))
        if isinstance(args, dict):
            args = list(args.values())
        if args is None:
            args = [step[k] for k in ("object", "obj", "node", "target", "to", "destination") if k in step]
        rel = step.get("relation")
        return verb.lower().replace("-", "_"), [str(a) for a in args], norm_relation(rel) if rel else None
    text = str(step).strip().rstrip(",;").strip("`\"' ")
    mt = _CALL.match(text)
    if not mt:
        raise GraphTaskError(f"cannot read {text!r} as an action")
    args = [a.strip("'\" ") for a in mt.group(2).replace(",", " ").split() if a.strip("'\" ")]
    verb = mt.group(1).lower().replace("-", "_")
    if verb in _MULTIWORD and args and f"{verb}_{args[0].lower()}" in _KNOWN:  # the ReAct agent's "pick up cup-1"
        verb, args = f"{verb}_{args[0].lower()}", args[1:]
    return verb, args, None


def plan_steps(plan: Any) -> list[Any]:
    """A plan as a list of steps: a JSON list, ``{"plan": [...]}``, or text (one step per line)."""
    if isinstance(plan, dict):
        plan = plan.get("plan", plan.get("actions"))
    if isinstance(plan, str):
        body = "\n".join(l for l in plan.splitlines() if not l.strip().startswith("```")).strip()
        if body[:1] in "[{":
            try:
                return plan_steps(jsontext.loads(body))
            except json.JSONDecodeError:
                pass
        return [l.strip() for l in body.splitlines() if l.strip() and not l.strip().startswith(";")]
    if not isinstance(plan, list):
        raise GraphTaskError("a graph plan must be a list of steps or text")
    return plan


class _Infeasible(Exception):
    pass


def _closed_container(g: SceneGraph, node_id: str) -> str | None:
    """The closed container the node is (transitively) inside, if any."""
    todo, seen = [node_id], {node_id}
    while todo:
        cur = todo.pop()
        for rel, v in g.placement(cur):
            if rel == "INSIDE" and "CLOSED" in g.nodes[v].states:
                return v
            if v not in seen:
                seen.add(v)
                todo.append(v)
    return None


def _room_of(g: SceneGraph, node_id: str) -> str | None:
    return g.room_of(node_id)


def _place(g: SceneGraph, obj: str, rel: str, target: str) -> SceneGraph:
    node, tgt = g.node(obj), g.node(target)
    if not node.movable:
        raise _Infeasible(f"{obj} is a {node.kind} and cannot be moved")
    if obj == target or obj in g.ancestors(target):
        raise _Infeasible(f"cannot put {obj} {rel} {target}: {target} rests on or in {obj}")
    if rel not in ("ON", "INSIDE", "NEXTTO"):
        raise _Infeasible(f"unknown placement relation {rel}")
    if rel == "INSIDE" and "CLOSED" in tgt.states:
        raise _Infeasible(f"cannot put {obj} inside {target}: {target} is closed")
    blocked = _closed_container(g, target)
    if blocked:
        raise _Infeasible(f"{target} is inside closed {blocked}")
    room = _room_of(g, target)
    keep = {(u, r, v) for u, r, v in g.edges
            if not (u == obj and r in ("ON", "INSIDE", "NEXTTO") and (g.nodes[v].kind != "room" or room))}
    keep.add((obj, rel, target))
    if room:
        keep.add((obj, "INSIDE", room))
    return g.with_edges(keep)


@dataclass
class _Agent:
    """What the executor tracks beside the graph: the held objects and the agent's room."""

    hands: int
    rooms: bool
    held: tuple[str, ...] = ()
    room: str | None = None

    def reach(self, g: SceneGraph, node_id: str, verb: str) -> None:
        """Refuse a hands-on action on a node outside the agent's room (when rooms are enforced)."""
        where = g.room_of(g.node(node_id).id)
        if self.rooms and where is not None and where != self.room:
            at = f"the agent is in {self.room}" if self.room else "the agent has not gone to any room"
            raise _Infeasible(f"{node_id} is in {where} and {at}; go_to({where}) first")


def execute(graph: SceneGraph, plan: Any, hands: int = HANDS, rooms: bool = True) -> GraphRun:
    """Run ``plan`` on ``graph``; stops at the first infeasible step.

    ``hands``: how many objects the agent can hold (GraSIF's agent: 1). ``rooms``: whether
    hands-on actions need the agent in the node's room (see the module docstring).
    """
    if hands < 1:
        raise GraphTaskError("the agent needs at least one hand")
    g, agent = graph, _Agent(hands, rooms, room=graph.agent_room)
    done: list[GraphStep] = []
    for index, raw in enumerate(plan_steps(plan), 1):
        text = raw if isinstance(raw, str) else json.dumps(raw)
        try:
            verb, args, rel = normalize_step(raw)
            g = _apply(g, agent, verb, args, rel)
        except (_Infeasible, GraphTaskError) as exc:
            msg = f"step {index}: {text}: {exc}"
            done.append(GraphStep(index, text, False, msg))
            return GraphRun(g, tuple(done), index, msg)
        done.append(GraphStep(index, text, True))
    return GraphRun(g, tuple(done))


def _apply(g: SceneGraph, agent: _Agent, verb: str, args: list[str], rel: str | None) -> SceneGraph:
    held = agent.held
    if verb in _PLACE:
        if len(args) == 3 and rel is None:
            obj, rel, target = args[0], norm_relation(args[1]), args[2]
        elif len(args) == 2 and rel is not None:
            obj, target = args
        else:
            raise _Infeasible(f"{verb} needs (object, relation, target)")
        return _check_hand_and_place(g, agent, obj, rel, target)
    if verb in _PUT:
        if len(args) == 1 and held:
            if len(held) > 1:
                raise _Infeasible(f"{verb}({args[0]}) while holding {' and '.join(held)}: name the object")
            agent.reach(g, args[0], verb)
            g = _place(g, held[0], _PUT[verb], args[0])
            agent.held = ()
            return g
        if len(args) != 2:
            raise _Infeasible(f"{verb} needs (object, target), or (target) while holding something")
        agent.reach(g, args[1], verb)
        if args[0] not in held:
            agent.reach(g, args[0], verb)
        return _check_hand_and_place(g, agent, args[0], _PUT[verb], args[1])
    if verb in _PICK:
        if len(args) != 1:
            raise _Infeasible(f"{verb} needs one object")
        node = g.node(args[0])
        if node.id in held:
            return g
        if len(held) >= agent.hands:
            raise _Infeasible(f"both hands are full ({' and '.join(held)})" if agent.hands == 2 else
                              f"the agent can handle only {agent.hands} item(s) and holds {' and '.join(held)}")
        if not node.movable:
            raise _Infeasible(f"{node.id} is a {node.kind} and cannot be picked up")
        agent.reach(g, node.id, verb)
        blocked = _closed_container(g, node.id)
        if blocked:
            raise _Infeasible(f"{node.id} is inside closed {blocked}")
        agent.held = (*held, node.id)
        return g.with_edges(e for e in g.edges if not (e[0] == node.id and e[1] in ("ON", "INSIDE", "NEXTTO")
                                                      and g.nodes[e[2]].kind != "room"))
    if verb in _TOGGLE:
        if len(args) != 1:
            raise _Infeasible(f"{verb} needs one node")
        node = g.node(args[0])
        new, old, prop = _TOGGLE[verb]
        if new in node.states:
            raise _Infeasible(f"{node.id} is already {new.lower()}")
        if old not in node.states and prop not in node.properties:
            raise _Infeasible(f"{node.id} has no {old.lower()}/{new.lower()} state to change ({verb})")
        agent.reach(g, node.id, verb)
        return g.with_node(replace(node, states=(node.states - {old}) | {new}))
    if verb in _POSTURE:
        for a in args:
            agent.reach(g, a, verb)
        character = next((n for n in g.nodes.values() if n.class_name.lower() == "character"), None)
        if character is None:
            return g
        posture = _POSTURE[verb]
        states = character.states - {"SITTING", "LYING"}
        return g.with_node(replace(character, states=states | {posture} if posture else states))
    if verb == "pour":
        if len(args) != 2:
            raise _Infeasible("pour needs (object, target)")
        agent.reach(g, args[1], verb)
        if g.node(args[0]).id not in held:
            raise _Infeasible(f"cannot pour {args[0]}: it is not in hand")
        return g
    if verb in _GO:
        if len(args) != 1:
            raise _Infeasible(f"{verb} needs one room or node")
        where = g.room_of(g.node(args[0]).id)
        agent.room = where if where is not None else agent.room
        return g
    if verb in _NOOP:
        for a in args:
            g.node(a)
        return g
    if verb in _FREE:
        return g
    raise _Infeasible(f"unknown action '{verb}'")


def _check_hand_and_place(g: SceneGraph, agent: _Agent, obj: str, rel: str, target: str) -> SceneGraph:
    if obj not in agent.held:
        if len(agent.held) >= agent.hands:
            raise _Infeasible(f"cannot move {obj} while holding {' and '.join(agent.held)}")
        blocked = _closed_container(g, obj)
        if blocked:
            raise _Infeasible(f"{obj} is inside closed {blocked}")
    g = _place(g, obj, rel, target)
    agent.held = tuple(h for h in agent.held if h != obj)
    return g
