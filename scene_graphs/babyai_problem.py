"""A BabyAI level and seed as a PDDL problem of ``pddl_domains/babyai``: minigrid's grid read as atoms.

Why the problem is read off minigrid, not generated beside it: the level's
random draws (rooms, doors, objects, agent, mission) are minigrid's, so the only
way to get the same world as LLM-BabyBench is to let minigrid make it and
abstract its grid. The problem's name carries the level and seed
(``BabyAI-GoToObj-v0-seed-1``), which is all the world needs to rebuild it.

Naming: cells ``c-X-Y`` (non-wall cells only), things ``<colour>-<type>-<k>``
and doors ``<colour>-door-<k>``, numbered in minigrid's grid order (row by row,
as the benchmark's formatter lists them). The goal is the mission's instruction
over the objects its description matched at reset (``ObjDesc.obj_set``):
GoTo (some matching object in front of the agent), Pickup (carrying one), Open
(one open), PutNext (a moved object beside a fixed one) and their ``and``;
``before``/``after`` sequences have no final-state goal and are refused.
"""

from __future__ import annotations

import re
from typing import Any

from toolkit.errors import PgtError
from toolkit.model import Atom
from toolkit.scoring.babyai_levels import DIRECTIONS, make_level

NAME = re.compile(r"^(?P<level>.+)-seed-(?P<seed>\d+)$", re.IGNORECASE)
_VEC = ((1, 0), (0, 1), (-1, 0), (0, -1))  # minigrid DIR_TO_VEC: east, south, west, north


def problem_name(level: str, seed: int) -> str:
    return f"{level}-seed-{seed}"


def level_of(name: str) -> tuple[str, int]:
    """(level, seed) from a problem name, the level spelled as gymnasium registers it."""
    from toolkit.scoring.babyai_levels import level_names

    match = NAME.match(name)
    if not match:
        raise PgtError(f"BabyAI problem '{name}' does not name its level and seed (LEVEL-seed-N, "
                       "as `pgt babyai-problem` writes it)")
    by_lower = {n.lower(): n for n in level_names()}
    level = by_lower.get(match["level"].lower())
    if level is None:
        raise PgtError(f"BabyAI problem '{name}': unknown level '{match['level']}'")
    return level, int(match["seed"])


def cell(x: int, y: int) -> str:
    return f"c-{x}-{y}"


def named_objects(env: Any) -> list[tuple[str, Any]]:
    """(PDDL name, minigrid object) for every key, ball, box and door at reset, boxes' contents included.

    The world keeps this list for the episode: the objects' identities (``id``) name them as they
    move, and holding them keeps those ids from being reused.
    """
    u = env.unwrapped
    found = [u.grid.get(i, j) for j in range(u.grid.height) for i in range(u.grid.width)]
    found = [o for o in found if o is not None and o.type in ("key", "ball", "box", "door")]
    found += [o.contains for o in found if o.type == "box" and o.contains is not None]  # boxes' contents last
    found += [u.carrying] if u.carrying is not None else []
    counts: dict[tuple[str, str], int] = {}
    out = []
    for obj in found:
        k = counts[(obj.color, obj.type)] = counts.get((obj.color, obj.type), 0) + 1
        out.append((f"{obj.color}-{obj.type}-{k}", obj))
    return out


def abstract(env: Any, objects: list[tuple[str, Any]]) -> frozenset[Atom]:
    """The true atoms of a minigrid state (static ones included), ``objects`` named as at reset."""
    u = env.unwrapped
    names = {id(o): n for n, o in objects}
    atoms: set[Atom] = {Atom("turns-left", (DIRECTIONS[d], DIRECTIONS[(d - 1) % 4])) for d in range(4)}
    atoms.add(Atom("agent-at", (cell(*map(int, u.agent_pos)),)))
    atoms.add(Atom("facing", (DIRECTIONS[int(u.agent_dir)],)))
    keys, doors = [], []
    for j in range(u.grid.height):
        for i in range(u.grid.width):
            obj = u.grid.get(i, j)
            if obj is not None and obj.type == "wall":
                continue
            here = cell(i, j)
            for d, (dx, dy) in enumerate(_VEC):
                other = u.grid.get(i + dx, j + dy) if 0 <= i + dx < u.grid.width and 0 <= j + dy < u.grid.height else None
                if 0 <= i + dx < u.grid.width and 0 <= j + dy < u.grid.height and not (other is not None and other.type == "wall"):
                    atoms.add(Atom("next", (here, cell(i + dx, j + dy), DIRECTIONS[d])))
            if obj is None:
                atoms.update((Atom("empty", (here,)), Atom("clear", (here,))))
            elif obj.type == "door":
                name = names[id(obj)]
                doors.append((name, obj.color))
                atoms.add(Atom("door-at", (name, here)))
                if obj.is_open:
                    atoms.update((Atom("open", (name,)), Atom("clear", (here,))))
                if obj.is_locked:
                    atoms.add(Atom("locked", (name,)))
            else:
                atoms.add(Atom("thing-at", (names[id(obj)], here)))
    on_grid = {id(o) for o in u.grid.grid if o is not None} | ({id(u.carrying)} if u.carrying is not None else set())
    for name, obj in objects:  # box facts and key fits are static: an opened box keeps them, gone or not
        if obj.type == "box":
            atoms.add(Atom("is-box", (name,)))
            if obj.contains is None:
                atoms.add(Atom("hollow", (name,)))
            elif id(obj) in on_grid:  # still closed: what it holds is in it
                atoms.add(Atom("in-box", (names[id(obj.contains)], name)))
        elif obj.type == "key":
            keys.append((name, obj.color))
    for k, kc in keys:
        atoms.update(Atom("fits", (k, r)) for r, rc in doors if rc == kc)
    if u.carrying is not None:
        atoms.add(Atom("carrying", (names[id(u.carrying)],)))
    else:
        atoms.add(Atom("hand-empty", ()))
    return frozenset(atoms)


def _goal(instr: Any, names: dict[int, str]) -> str:
    """The PDDL goal of a mission's instruction, over the objects its descriptions matched at reset."""
    kind = type(instr).__name__
    if kind == "AndInstr":
        return f"(and {_goal(instr.instr_a, names)} {_goal(instr.instr_b, names)})"
    if kind in ("BeforeInstr", "AfterInstr"):
        raise PgtError(f"the mission orders its parts ({kind}): a PDDL goal over the final state cannot say that")
    objs = [names[id(o)] for o in instr.desc_move.obj_set] if kind == "PutNextInstr" else [names[id(o)] for o in instr.desc.obj_set]
    if kind == "GoToInstr":
        return "(or " + " ".join(
            f"(exists (?a ?b - cell ?d - dir) (and (agent-at ?a) (facing ?d) (next ?a ?b ?d) "
            f"({'door-at' if o.split('-')[1] == 'door' else 'thing-at'} {o} ?b)))" for o in objs) + ")"
    if kind == "PickupInstr":
        return "(or " + " ".join(f"(carrying {o})" for o in objs) + ")"
    if kind == "OpenInstr":
        return "(or " + " ".join(f"(open {o})" for o in objs) + ")"
    if kind == "PutNextInstr":
        fixed = [names[id(o)] for o in instr.desc_fixed.obj_set]
        return "(or " + " ".join(
            f"(exists (?a ?b - cell ?d - dir) (and (thing-at {m} ?a) (thing-at {f} ?b) (next ?a ?b ?d)))"
            for m in objs for f in fixed if m != f) + ")"
    raise PgtError(f"no PDDL goal for BabyAI instruction {kind}")


def problem_text(level: str, seed: int) -> str:
    """The PDDL problem of ``level`` reset with ``seed`` (the mission as its goal)."""
    env = make_level(level, seed)
    try:
        objects = named_objects(env)
        names = {id(o): n for n, o in objects}
        init = abstract(env, objects)
        goal = _goal(env.unwrapped.instrs, names)
        mission = env.unwrapped.mission
    finally:
        env.close()
    by_type: dict[str, list[str]] = {"cell": sorted({a.args[0] for a in init if a.predicate == "next"}),
                                     "thing": sorted(n for n in names.values() if not n.split("-")[1] == "door"),
                                     "door": sorted(n for n in names.values() if n.split("-")[1] == "door")}
    objects = "\n    ".join(f"{' '.join(v)} - {k}" for k, v in by_type.items() if v)
    facts = "\n    ".join(str(a) for a in sorted(init, key=str))
    return (f"; BabyAI level {level}, seed {seed}: \"{mission}\" (written by pgt babyai-problem from minigrid)\n"
            f"(define (problem {problem_name(level, seed)}) (:domain babyai)\n"
            f"  (:objects\n    {objects})\n  (:init\n    {facts})\n  (:goal {goal}))\n")
