"""Draw the agent's current room of a household graph as a schematic PNG.

Each piece of furniture or container in the room gets a slot: the furniture drawn
on the floor line with its name, objects on top of it stacked above it, objects
next to it in a lane beside it. Open containers are white boxes showing their
contents; closed ones are dark boxes marked CLOSED whose contents are not drawn.
Objects within the agent's reach have a thick green frame; the held object is in
the "hand" box at the top right. Relations that position cannot show (a second
relation of the same object, furniture standing on furniture) are written as
notes under the picture, so every visible atom can be read from the image. The
output is a pure function of the graph.
"""

from __future__ import annotations

import io

import networkx as nx

from scene_graphs.fonts import font
from scene_graphs.household import AGENT, agent_room, in_view
from scene_graphs.schema import targets

SLOT_W, FURN_W, LANE_W = 270, 140, 112
ITEM_H, FURN_H, BOX_H = 30, 56, 120
HEADER, MARGIN = 70, 16
BG, FLOOR_C = (248, 247, 242), (150, 120, 90)
FURN_C, ITEM_C, CLOSED_C = (214, 188, 140), (170, 205, 240), (70, 72, 92)
REACH_C = (20, 160, 40)
PHRASE = {"ontop": "is on top of", "nextto": "is next to", "inside": "is inside"}


def primary(g: nx.MultiDiGraph, obj: str, view: set[str]) -> tuple[str, str] | None:
    """Where a movable is drawn: its first ontop, else inside, else nextto target in view."""
    for rel in ("ontop", "inside", "nextto"):
        for t in targets(g, obj, rel):
            if t in view and t != obj:
                return rel, t
    return None


def render_household(g: nx.MultiDiGraph) -> bytes:
    """PNG bytes of the agent's current room."""
    from PIL import Image, ImageDraw

    view = set(in_view(g))
    held = targets(g, AGENT, "holds")
    reach = set(targets(g, AGENT, "reaches"))
    statics = sorted(o for o in view if g.nodes[o]["kind"] != "movable")
    movables = sorted(o for o in view if g.nodes[o]["kind"] == "movable" and o not in held)
    place = {m: primary(g, m, view) for m in movables}
    # a movable standing (transitively) on a movable that is not placed cannot be drawn by position
    loose = [m for m in movables if place[m] is None or _root(place, m) is None]
    slots = statics + (["(floor)"] if loose else [])

    def pile(s: str) -> list[str]:
        out: list[str] = []
        for m in movables:
            if place[m] == ("ontop", s) and m not in loose:
                out += [m] + pile(m)
        return out

    def lane(s: str) -> list[str]:
        out = [m for m in movables if place[m] == ("nextto", s) and m not in loose]
        for m in list(pile(s)) + list(out):
            out += lane(m)
        return out

    piles = {s: pile(s) for s in statics}
    lanes = {s: lane(s) for s in statics}
    tallest = max([len(piles[s]) * ITEM_H + (BOX_H if g.nodes[s]["kind"] == "container" else FURN_H)
                   for s in statics] + [len(lanes[s]) * ITEM_H for s in statics] + [len(loose) * ITEM_H, 160])
    floor_y = HEADER + 40 + tallest
    notes = _notes(g, view, place, held)
    width = max(760, 2 * MARGIN + len(slots) * SLOT_W)
    img = Image.new("RGB", (width, floor_y + 40 + 22 * (len(notes) + 1) + MARGIN), BG)
    d = ImageDraw.Draw(img)
    f_big, f, f_small = font(22), font(15), font(13)
    room = g.nodes[agent_room(g)]["label"]
    at = g.nodes[AGENT].get("at")
    d.text((MARGIN, 12), f"Room: {room}", fill=(0, 0, 0), font=f_big)
    d.text((MARGIN, 42), f"Agent is at: {at}" if at else "Agent has not moved yet", fill=(60, 60, 60), font=f)
    hx = width - MARGIN - 250
    d.rectangle((hx, 8, hx + 250, 60), outline=(0, 0, 0), width=2, fill=(255, 255, 255))
    d.text((hx + 8, 26), "Holding:", fill=(0, 0, 0), font=f)
    if held:
        _item(d, (hx + 82, 16, hx + 242, 52), held[0], held[0] in reach, f)
    else:
        d.text((hx + 82, 26), "nothing", fill=(120, 120, 120), font=f)
    d.line((0, floor_y, width, floor_y), fill=FLOOR_C, width=4)
    for i, s in enumerate(slots):
        x0 = MARGIN + i * SLOT_W
        if s == "(floor)":
            d.text((x0, floor_y + 8), "loose (no relation)", fill=(80, 80, 80), font=f_small)
            for k, m in enumerate(loose):
                _item(d, (x0, floor_y - (k + 1) * ITEM_H, x0 + FURN_W, floor_y - k * ITEM_H), m, m in reach, f)
            continue
        top = _static(g, d, s, x0, floor_y, s in reach, movables, place, reach, f, f_small)
        for k, m in enumerate(piles[s]):
            _item(d, (x0 + 6, top - (k + 1) * ITEM_H, x0 + FURN_W - 6, top - k * ITEM_H), m, m in reach, f)
        lx = x0 + FURN_W + 8
        if lanes[s]:
            d.text((lx, floor_y + 8), f"next to {s}" if len(s) < 12 else "next to", fill=(80, 80, 80), font=f_small)
        for k, m in enumerate(lanes[s]):
            _item(d, (lx, floor_y - (k + 1) * ITEM_H, lx + LANE_W, floor_y - k * ITEM_H), m, m in reach, f)
    y = floor_y + 30
    d.text((MARGIN, y), "Green frame = within the agent's reach.", fill=REACH_C, font=f_small)
    for note in notes:
        y += 22
        d.text((MARGIN, y), note, fill=(0, 0, 0), font=f)
    out = io.BytesIO()
    img.save(out, format="PNG", optimize=False)
    return out.getvalue()


def _root(place: dict, m: str, depth: int = 0) -> str | None:
    """The static object a movable's placement chain ends at (None: a cycle or a loose base)."""
    while depth < 50:
        p = place.get(m)
        if p is None:
            return m if m not in place else None
        m, depth = p[1], depth + 1
    return None


def _item(d, box: tuple[int, int, int, int], name: str, reachable: bool, f) -> None:
    d.rectangle(box, fill=ITEM_C, outline=REACH_C if reachable else (40, 40, 40), width=4 if reachable else 1)
    d.text(((box[0] + box[2]) // 2, (box[1] + box[3]) // 2), name, fill=(0, 0, 0), font=f, anchor="mm")


def _static(g, d, s, x0, floor_y, reachable, movables, place, reach, f, f_small) -> int:
    """Draw a piece of furniture or a container; return the y where things on top start."""
    outline, width = (REACH_C, 5) if reachable else ((30, 30, 30), 2)
    if g.nodes[s]["kind"] != "container":
        box = (x0, floor_y - FURN_H, x0 + FURN_W, floor_y)
        d.rectangle(box, fill=FURN_C, outline=outline, width=width)
        d.text(((box[0] + box[2]) // 2, (box[1] + box[3]) // 2), s, fill=(0, 0, 0), font=f, anchor="mm")
        return box[1]
    box = (x0, floor_y - BOX_H, x0 + FURN_W, floor_y)
    if g.nodes[s].get("open"):
        d.rectangle(box, fill=(255, 255, 255), outline=outline, width=width)
        d.text((box[0] + 8, box[1] + 6), f"{s} (OPEN)", fill=(0, 0, 0), font=f_small)
        contents = [m for m in movables if place[m] == ("inside", s)]
        for k, m in enumerate(contents[:3]):
            y = box[1] + 26 + k * ITEM_H
            _item(d, (box[0] + 10, y, box[2] - 10, y + ITEM_H - 4), m, m in reach, f_small)
        if len(contents) > 3:
            d.text((box[0] + 10, box[3] - 16), f"+{len(contents) - 3} more (see notes)", fill=(0, 0, 0), font=f_small)
    else:
        d.rectangle(box, fill=CLOSED_C, outline=outline, width=width)
        d.text(((box[0] + box[2]) // 2, box[1] + 40), s, fill=(255, 255, 255), font=f, anchor="mm")
        d.text(((box[0] + box[2]) // 2, box[1] + 72), "CLOSED", fill=(255, 255, 255), font=f, anchor="mm")
    return box[1]


def _notes(g: nx.MultiDiGraph, view: set[str], place: dict, held: list[str]) -> list[str]:
    """Relations among objects in view that the picture does not show by position."""
    notes = []
    for obj in sorted(view):
        for rel in ("ontop", "nextto", "inside"):
            for t in targets(g, obj, rel):
                if t in view and place.get(obj) != (rel, t):
                    notes.append(f"{obj} {PHRASE[rel]} {t}.")
    contents = [m for m in place if place[m] and place[m][0] == "inside"]
    for c in sorted({place[m][1] for m in contents}):
        inside = [m for m in contents if place[m] == ("inside", c)]
        if len(inside) > 3:
            notes.append(f"Inside {c}: {', '.join(inside)}.")
    return notes
