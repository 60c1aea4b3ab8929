"""The pictorial household view: pictures instead of names, so a VLM has to look, not read.

Same room, same placement rules as the schematic view (:mod:`scene_graphs.render_household`),
drawn with :mod:`scene_graphs.pictograms`: furniture as furniture, objects as
icons whose shape is the category and whose colour tells instances apart. Objects
on top of something stand on it; objects next to it stand in the lane beside it;
an **open** container shows its door swung open and its whole contents in a light
cavity, a **closed** one a shut front with a handle and nothing of what is inside.
Within reach = green frame; the held object is in the gripper at the top right.

Without labels the image holds no text at all, so what the picture cannot show by
position (a second relation of an object, something next to an object in a pile,
furniture standing on furniture, something on top of a container's content) is
simply not shown: :func:`hidden_atoms` lists those true atoms and the world drops
them from ``Observation.visible``, so grounders answer ``not_visible`` exactly
where the picture is silent. With ``labels`` names are written beside the icons
and those relations as notes, as in the schematic view.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import networkx as nx

from scene_graphs import pictograms as pg
from scene_graphs.fonts import font
from scene_graphs.household import AGENT, in_view
from scene_graphs.schema import targets
from toolkit.model import Atom

ICON, FURN_W, FURN_H, BOX_H, SLOT_W = 44, 150, 70, 130, 280
LANE_X = FURN_W + 44  # the lane starts right of the open door's swing
HEADER, MARGIN, COLS = 78, 16, 3
BG, FLOOR_C, WALL_C = (246, 243, 236), (150, 120, 90), (232, 226, 214)
CAVITY_C, REACH_C = (252, 250, 240), (20, 160, 40)


@dataclass
class Scene:
    """Where each object of the room is drawn, before any pixel is set."""

    statics: list[str]
    piles: dict[str, list[str]]  # static -> movables stacked on it, bottom first
    lanes: dict[str, list[str]]  # static -> movables next to it, bottom first
    contents: dict[str, list[str]]  # open container -> movables inside it
    loose: list[str]  # movables with no drawable relation
    held: list[str]
    reach: set[str]
    shown: set[tuple[str, str, str]]  # (obj, rel, target) relations the picture shows by position


def plan_scene(g: nx.MultiDiGraph) -> Scene:
    """Assign every object in view a place in the picture, and record what those places show."""
    from scene_graphs.render_household import primary

    view = set(in_view(g))
    held = targets(g, AGENT, "holds")
    statics = sorted(o for o in view if g.nodes[o]["kind"] != "movable")
    movables = sorted(o for o in view if g.nodes[o]["kind"] == "movable" and o not in held)
    place = {m: primary(g, m, view) for m in movables}
    shown: set[tuple[str, str, str]] = set()

    def stack(base: str) -> list[str]:
        out: list[str] = []
        for m in movables:
            if place[m] == ("ontop", base):
                shown.add((m, "ontop", base))
                out += [m] + stack(m)
        return out

    piles = {s: stack(s) for s in statics}
    contents = {s: [m for m in movables if place[m] == ("inside", s)] for s in statics
                if g.nodes[s]["kind"] == "container" and g.nodes[s].get("open")}
    for c, inside in contents.items():
        shown.update((m, "inside", c) for m in inside)
    lanes = {s: [m for m in movables if place[m] == ("nextto", s)] for s in statics}
    for s, lane in lanes.items():
        shown.update((m, "nextto", s) for m in lane)
    placed = {m for group in (*piles.values(), *contents.values(), *lanes.values()) for m in group}
    loose = [m for m in movables if m not in placed]
    return Scene(statics, piles, lanes, contents, loose, held, set(targets(g, AGENT, "reaches")), shown)


def hidden_atoms(g: nx.MultiDiGraph) -> set[Atom]:
    """True relation atoms between objects in view that the label-free picture does not show."""
    scene = plan_scene(g)
    view = set(in_view(g))
    out = set()
    for obj in view:
        for rel in ("ontop", "nextto", "inside"):
            for t in targets(g, obj, rel):
                if t in view and (obj, rel, t) not in scene.shown:
                    out.add(Atom(rel, (obj, t)))
    return out


class _Painter:
    def __init__(self, g: nx.MultiDiGraph, d, labels: bool) -> None:
        self.g, self.d, self.labels = g, d, labels
        objects = [n for n, k in g.nodes(data="kind") if k in ("furniture", "container", "movable")]
        self.colours = pg.instance_colours(objects)
        # a category is known when it has a pictogram for the kind the object is (a box may be either)
        table = {"movable": pg.MOVABLES, "furniture": pg.FURNITURE, "container": pg.CONTAINERS}
        unknown = sorted({pg.category(o) for o in objects if pg.category(o) not in table[g.nodes[o]["kind"]]})
        self.glyphs = {c: pg.glyph_for(i) for i, c in enumerate(unknown)}
        self.f = font(13)

    def colour(self, obj: str) -> tuple[int, int, int]:
        return pg.colour_rgb(self.colours.get(obj), pg.default_colour(pg.category(obj)))

    def frame(self, box, reachable: bool) -> None:
        if reachable:
            self.d.rectangle((box[0] - 4, box[1] - 4, box[2] + 4, box[3] + 4), outline=REACH_C, width=4)

    def label(self, xy, text: str, anchor: str = "lm") -> None:
        if self.labels:
            self.d.text(xy, text, fill=(0, 0, 0), font=self.f, anchor=anchor)

    def movable(self, box, m: str, reachable: bool) -> None:
        cat = pg.category(m)
        pg.draw_movable(self.d, box, cat, self.colour(m), self.glyphs.get(cat))
        self.frame(box, reachable)

    def furniture(self, box, s: str) -> None:
        cat = pg.category(s)
        if cat in pg.FURNITURE:
            pg.FURNITURE[cat][0](self.d, box, self.colour(s))
        else:  # a plain block with the category's glyph as an emblem
            self.d.rectangle(box, fill=self.colour(s) if s in self.colours and self.colours[s] else (205, 195, 175),
                             outline=pg.INK, width=2)
            cx, cy = (box[0] + box[2]) // 2, (box[1] + box[3]) // 2
            pg.draw_glyph(self.d, (cx - 18, cy - 18, cx + 18, cy + 18), self.glyphs.get(cat, pg.glyph_for(0)),
                          (250, 250, 250))

    def container(self, box, c: str, is_open: bool) -> tuple[int, int, int, int]:
        """The body; returns the cavity box (meaningful when open)."""
        cat = pg.category(c)
        marks, body = pg.CONTAINERS.get(cat, ("none", (205, 195, 175)))
        body = self.colour(c) if self.colours.get(c) else body
        d, (x0, y0, x1, y1) = self.d, box
        d.rectangle(box, fill=body, outline=pg.INK, width=3)
        cav = (x0 + 8, y0 + 8, x1 - 8, y1 - 8)
        if is_open:
            d.rectangle(cav, fill=CAVITY_C, outline=pg.darker(body), width=2)
            # the door swung open: a skewed panel hinged on the right edge
            d.polygon([(x1, y0), (x1 + 34, y0 + 14), (x1 + 34, y1 - 14), (x1, y1)], fill=body, outline=pg.INK,
                      width=2)
            d.rectangle((x1 + 24, (y0 + y1) // 2 - 10, x1 + 29, (y0 + y1) // 2 + 10), fill=pg.INK)
            return cav
        d.rectangle(cav, fill=pg.darker(body, .85), outline=pg.INK, width=2)
        mid = (y0 + y1) // 2
        if marks in ("drawers", "files"):
            rows = 3 if marks == "drawers" else 4
            for k in range(1, rows):
                y = cav[1] + k * (cav[3] - cav[1]) // rows
                d.line((cav[0], y, cav[2], y), fill=pg.INK, width=2)
            for k in range(rows):
                y = cav[1] + (2 * k + 1) * (cav[3] - cav[1]) // (2 * rows)
                d.rectangle(((x0 + x1) // 2 - 14, y - 3, (x0 + x1) // 2 + 14, y + 3), fill=pg.INK)
        elif marks == "freezer":
            y = cav[1] + (cav[3] - cav[1]) // 3
            d.line((cav[0], y, cav[2], y), fill=pg.INK, width=2)
            d.rectangle((cav[2] - 14, cav[1] + 10, cav[2] - 8, y - 10), fill=pg.INK)
            d.rectangle((cav[2] - 14, y + 10, cav[2] - 8, y + 50), fill=pg.INK)
        elif marks in ("flaps", "weave"):
            d.line((cav[0], cav[1] + 16, cav[2], cav[1] + 16), fill=pg.INK, width=2)
            d.line(((x0 + x1) // 2, cav[1], (x0 + x1) // 2, cav[1] + 16), fill=pg.INK, width=2)
        elif marks == "stars":
            for cx in (x0 + 40, x0 + 75, x0 + 110):
                pg.draw_glyph(d, (cx - 12, mid - 12, cx + 12, mid + 12), ("star", "none"), (250, 230, 80))
        else:  # doors, or an unknown container: two doors with handles
            d.line(((x0 + x1) // 2, cav[1], (x0 + x1) // 2, cav[3]), fill=pg.INK, width=2)
            for hx in ((x0 + x1) // 2 - 12, (x0 + x1) // 2 + 7):
                d.rectangle((hx, mid - 12, hx + 5, mid + 12), fill=pg.INK)
        if cat not in pg.CONTAINERS:
            pg.draw_glyph(d, (x0 + 12, y0 + 12, x0 + 40, y0 + 40), self.glyphs.get(cat, pg.glyph_for(0)),
                          (250, 250, 250))
        return cav


def render_pictorial(g: nx.MultiDiGraph, labels: bool = False) -> bytes:
    """PNG bytes of the agent's current room, drawn as pictures (``labels``: names written beside them)."""
    from PIL import Image, ImageDraw

    sc = plan_scene(g)
    heights = []
    for s in sc.statics:
        base = _container_h(len(sc.contents.get(s, ()))) if g.nodes[s]["kind"] == "container" else FURN_H
        heights += [base + len(sc.piles[s]) * ICON, len(sc.lanes[s]) * ICON]
    floor_y = HEADER + 30 + max(heights + [len(sc.loose) * ICON, 170])
    slots = sc.statics + (["(floor)"] if sc.loose else [])
    notes = _notes(g, sc) if labels else []
    width = max(760, 2 * MARGIN + len(slots) * SLOT_W)
    img = Image.new("RGB", (width, floor_y + 60 + 20 * len(notes)), BG)
    d = ImageDraw.Draw(img)
    d.rectangle((0, HEADER - 8, width, floor_y), fill=WALL_C)
    d.rectangle((0, floor_y, width, img.height), fill=(220, 205, 180))
    d.line((0, floor_y, width, floor_y), fill=FLOOR_C, width=4)
    p = _Painter(g, d, labels)
    _hand(p, width, sc)
    for i, s in enumerate(slots):
        x0 = MARGIN + i * SLOT_W
        if s == "(floor)":
            for k, m in enumerate(sc.loose):
                p.movable((x0, floor_y - (k + 1) * ICON, x0 + ICON, floor_y - k * ICON - 2), m, m in sc.reach)
                p.label((x0 + ICON + 6, floor_y - k * ICON - ICON // 2), m)
            continue
        if g.nodes[s]["kind"] == "container":
            is_open = bool(g.nodes[s].get("open"))
            box = (x0, floor_y - _container_h(len(sc.contents.get(s, ()))), x0 + FURN_W, floor_y)
            cav = p.container(box, s, is_open)
            for k, m in enumerate(sc.contents.get(s, ())):
                cx, cy = cav[0] + 3 + (k % COLS) * (ICON + 2), cav[1] + 4 + (k // COLS) * (ICON + 2)
                p.movable((cx, cy, cx + ICON - 4, cy + ICON - 4), m, m in sc.reach)
            if labels and sc.contents.get(s):
                p.label((x0, floor_y + 34), "in: " + ", ".join(sc.contents[s]))
            top = box[1]
        else:
            box = (x0, floor_y - FURN_H, x0 + FURN_W, floor_y)
            p.furniture(box, s)
            top = box[1] + round(FURN_H * pg.SURFACE.get(pg.category(s), 0.0))
        p.frame(box, s in sc.reach)
        p.label((x0 + FURN_W // 2, floor_y + 16), s, anchor="mm")
        for k, m in enumerate(sc.piles[s]):
            ib = (x0 + 8, top - (k + 1) * ICON - 4, x0 + 8 + ICON, top - k * ICON - 6)
            p.movable(ib, m, m in sc.reach)
            p.label((ib[2] + 8, (ib[1] + ib[3]) // 2), m)
        for k, m in enumerate(sc.lanes[s]):
            lx = x0 + LANE_X
            p.movable((lx, floor_y - (k + 1) * ICON, lx + ICON, floor_y - k * ICON - 4), m, m in sc.reach)
            p.label((lx + ICON + 6, floor_y - k * ICON - ICON // 2), m)
    for j, note in enumerate(notes):
        d.text((MARGIN, floor_y + 52 + 20 * j), note, fill=(0, 0, 0), font=p.f)
    out = io.BytesIO()
    img.save(out, format="PNG", optimize=False)
    return out.getvalue()


def _container_h(n_contents: int) -> int:
    return max(BOX_H, 20 + -(-n_contents // COLS) * (ICON + 2))


def _hand(p: _Painter, width: int, sc: Scene) -> None:
    """The robot's gripper at the top right, with the held object between its claws."""
    d, x = p.d, width - MARGIN - 120
    d.rectangle((x + 50, 0, x + 70, 14), fill=(110, 110, 120), outline=pg.INK, width=2)  # wrist
    d.rectangle((x + 10, 14, x + 110, 24), fill=(110, 110, 120), outline=pg.INK, width=2)
    for cx in (x + 10, x + 100):
        d.rectangle((cx, 24, cx + 10, 70), fill=(110, 110, 120), outline=pg.INK, width=2)
    if sc.held:
        p.movable((x + 26, 22, x + 26 + ICON + 24, 22 + ICON + 4), sc.held[0], sc.held[0] in sc.reach)
        p.label((x - 8, 46), sc.held[0], anchor="rm")


def _notes(g: nx.MultiDiGraph, sc: Scene) -> list[str]:
    from scene_graphs.render_household import PHRASE

    return [f"{a.args[0]} {PHRASE[a.predicate]} {a.args[1]}." for a in sorted(hidden_atoms(g))]
