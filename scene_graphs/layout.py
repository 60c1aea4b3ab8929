"""Household layouts: which room each piece of furniture is in, where the agent starts.

PDDL problems of the household domain say nothing about rooms. A layout file next
to the problems (``layouts/<problem>.toml``) adds them::

    agent_room = "kitchen"          # optional; where the agent starts
    [rooms]
    kitchen = ["fridge_1", "countertop_1"]
    living_room = ["sofa_1"]

Anything a layout leaves out gets a deterministic default, so every problem file of
the domain works without one: furniture and containers go to a room chosen by
keywords in their names (``fridge`` -> kitchen, ``bed`` -> bedroom, else
living_room); a container on top of furniture shares that furniture's room; the
agent starts in the room with the most movable objects (ties: by name).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from toolkit.errors import PgtError
from toolkit.task import Task

ROOM_KEYWORDS: dict[str, tuple[str, ...]] = {
    "kitchen": ("fridge", "refrigerator", "countertop", "counter", "sink", "cabinet", "stove", "oven",
                "microwave", "dishwasher", "carton", "pantry", "kitchen"),
    "bedroom": ("bed", "wardrobe", "closet", "dresser", "nightstand", "bedroom"),
    "bathroom": ("toilet", "bathtub", "shower", "bathroom"),
}
DEFAULT_ROOM = "living_room"


class LayoutError(PgtError):
    """A layout file that cannot be read or names unknown objects."""


@dataclass(frozen=True)
class Layout:
    """Room of every non-movable object, and the agent's starting room."""

    rooms: Mapping[str, str]  # object -> room
    agent_room: str
    source: str = "default"  # the layout file's path, or "default"


def guess_room(name: str) -> str | None:
    """Room a furniture name suggests, if any.

    >>> guess_room("kitchen_cabinet_2"), guess_room("bed_1"), guess_room("shelf_1")
    ('kitchen', 'bedroom', None)
    """
    words = set(re.split(r"[^a-z]+", name.lower()))
    for room, keys in ROOM_KEYWORDS.items():
        if words & set(keys):
            return room
    return None


def layout_path_for(task: Task) -> Path | None:
    """``layouts/<problem file stem>.toml`` beside the problem's folder, if it exists."""
    if task.problem.path in ("", "<string>"):
        return None
    p = Path(task.problem.path)
    for candidate in (p.parent.parent / "layouts" / f"{p.stem}.toml", p.parent / "layouts" / f"{p.stem}.toml"):
        if candidate.is_file():
            return candidate
    return None


def load_layout(task: Task, path: str | Path | None = None) -> Layout:
    """The task's layout: from ``path``, from the file beside the problem, or the default.

    Raises:
        LayoutError: unreadable TOML, unknown objects, or a movable object given a room.
    """
    path = Path(path) if path is not None else layout_path_for(task)
    data: dict = {}
    if path is not None:
        try:
            data = tomllib.loads(Path(path).read_text())
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise LayoutError(f"{path}: cannot read layout: {exc}") from exc
    movables = set(task.objects_of(("movable",)))
    statics = [o for o in sorted(task.objects) if o not in movables]
    rooms: dict[str, str] = {}
    for room, members in (data.get("rooms") or {}).items():
        if not isinstance(members, list):
            raise LayoutError(f"{path}: rooms.{room} must be a list of object names")
        for obj in members:
            if obj not in task.objects:
                raise LayoutError(f"{path}: rooms.{room} names unknown object {obj!r}; "
                                  f"objects are {', '.join(sorted(task.objects))}")
            if obj in movables:
                raise LayoutError(f"{path}: rooms.{room} lists movable {obj!r}; movables go where "
                                  "the problem puts them (ontop/inside/nextto)")
            rooms[obj] = room
    supports = {a.args[0]: a.args[1] for a in sorted(task.init, reverse=True)
                if a.predicate in ("ontop", "inside") and a.args[0] not in movables}
    for obj in statics:  # keyword guess first, then the room of what it stands on
        if obj not in rooms and guess_room(obj) is not None and obj not in supports:
            rooms[obj] = guess_room(obj)  # type: ignore[assignment]
    for obj in statics:
        seen = {obj}
        cur = obj
        while cur not in rooms and cur in supports and supports[cur] not in seen:
            cur = supports[cur]
            seen.add(cur)
        rooms.setdefault(obj, rooms.get(cur) or guess_room(obj) or DEFAULT_ROOM)
    agent_room = data.get("agent_room")
    if agent_room is None:
        agent_room = default_agent_room(task, rooms)
    elif not isinstance(agent_room, str) or (rooms and agent_room not in {*rooms.values(), *(data.get("rooms") or {})}):
        # A room listed with no objects (``bedroom = []``) is a room: the agent may start in an empty one.
        raise LayoutError(f"{path}: agent_room {agent_room!r} is not a room of this layout")
    return Layout(rooms=rooms, agent_room=agent_room, source=str(path) if path else "default")


def default_agent_room(task: Task, rooms: Mapping[str, str]) -> str:
    """The room with the most movables in it (ties by name); a reachable object's room wins."""
    for atom in sorted(task.init):
        if atom.predicate == "reachable" and atom.args[0] in rooms:
            return rooms[atom.args[0]]
    counts: dict[str, int] = {r: 0 for r in rooms.values()}
    for atom in task.init:
        if atom.predicate in ("ontop", "inside", "nextto") and atom.args[1] in rooms:
            counts[rooms[atom.args[1]]] += 1
    if not counts:
        return DEFAULT_ROOM
    return sorted(counts, key=lambda r: (-counts[r], r))[0]
