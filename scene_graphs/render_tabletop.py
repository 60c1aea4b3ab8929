"""Draw LoHoRavens' symbolic tabletop as a PNG: a top-down view of its places and the blocks on them.

Made for a VLM reporter (and a person checking one): LoHoRavens' Reporter sees a
top-down RGB image (``eval_llm_vlm.py``), where a block under another is hidden.
pgt's picture keeps that: each tower shows only its top block, with its colour and
size (6 cm blocks are drawn larger); the blocks under it show only as stacked edges
(one per block below), never their colours, so "what is under the blue block?" must
be reasoned about, as in the benchmark. Places are cells in a fixed order: bowls as
rings of their colour, coloured zones as tinted squares, target poses and pyramid
slots as dashed squares, table quarters and the free table as labelled areas.
Labels name things as the Planner-Actor-Reporter instructions and a VLM's questions
do (:func:`toolkit.agents.par.display`: "green bowl", "1st target"; a block's label
drops the word "block"); they can be turned off so a VLM must look rather than read.
The output is a pure function of the state (byte-identical for the same state).
"""

from __future__ import annotations

import io

from scene_graphs.colours import NAMED, text_colour
from scene_graphs.fonts import font
from toolkit.agents.par import display

SMALL_PX, BIG_PX = 50, 66  # 4 cm and 6 cm blocks
CELL_H = 150
PAD = 18
BG = (236, 230, 218)  # the tabletop
INK = (40, 40, 40)
EXTRA = {"gold": (212, 175, 55)}


def _colour(name: str) -> tuple[int, int, int]:
    for word in name.replace("-", " ").split():
        if word in NAMED or word in EXTRA:
            return NAMED.get(word) or EXTRA[word]
    return (150, 150, 150)


def _towers(on: dict[str, str], place: str) -> list[list[str]]:
    """The towers standing on ``place``, each bottom to top, in name order of their bottom block."""
    above = {s: b for b, s in on.items()}
    out = []
    for base in sorted(b for b, s in on.items() if s == place):
        tower = [base]
        while tower[-1] in above:
            tower.append(above[tower[-1]])
        out.append(tower)
    return out


def _cell_width(towers: list[list[str]]) -> int:
    return max(150, PAD + sum(BIG_PX + 2 + 6 * (len(t) - 1) + PAD for t in towers))


def render_tabletop(places: tuple[str, ...], on: dict[str, str], *, labels: bool = True) -> bytes:
    """PNG bytes of the tabletop: ``places`` in order (the instance's), ``on`` each block's support."""
    from PIL import Image, ImageDraw

    cells = [(p, _towers(on, p)) for p in places]
    rows: list[list[tuple[str, list[list[str]]]]] = [[]]
    for cell in cells:  # rows of at most 900 px
        if rows[-1] and sum(_cell_width(t) for _, t in rows[-1]) + _cell_width(cell[1]) > 900:
            rows.append([])
        rows[-1].append(cell)
    width = max(sum(_cell_width(t) + PAD for _, t in row) for row in rows) + PAD
    label_h = 26 if labels else 0
    img = Image.new("RGB", (width, PAD + len(rows) * (CELL_H + label_h + PAD)), BG)
    draw = ImageDraw.Draw(img)
    name_font, label_font = font(12), font(15)
    y = PAD
    for row in rows:
        x = PAD
        for place, towers in row:
            w = _cell_width(towers)
            _draw_place(draw, place, (x, y, x + w, y + CELL_H))
            bx = x + PAD
            for tower in towers:
                bx = _draw_tower(draw, tower, bx, y + CELL_H // 2, name_font if labels else None) + PAD
            if labels:
                draw.text((x + w // 2, y + CELL_H + label_h // 2), display(place), fill=INK, font=label_font,
                          anchor="mm")
            x += w + PAD
        y += CELL_H + label_h + PAD
    out = io.BytesIO()
    img.save(out, format="PNG", optimize=False)
    return out.getvalue()


def _draw_place(draw: object, place: str, box: tuple[int, int, int, int]) -> None:
    x0, y0, x1, y1 = box
    if place.startswith("bowl-"):
        c = _colour(place)
        r = min(x1 - x0, y1 - y0) // 2 - 4
        cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
        ring = (x0 + 4, y0 + 4, x1 - 4, y1 - 4) if x1 - x0 > 160 else (cx - r, cy - r, cx + r, cy + r)
        draw.ellipse(ring, outline=(110, 110, 110), width=12)  # a grey rim keeps a white bowl visible
        draw.ellipse((ring[0] + 1, ring[1] + 1, ring[2] - 1, ring[3] - 1), outline=c, width=10)
    elif place.startswith("zone") or place.endswith("-zone"):
        c = _colour(place)
        tint = tuple(int(0.45 * v + 0.55 * 255) for v in c) if c != (150, 150, 150) else (205, 205, 190)
        draw.rectangle(box, fill=tint, outline=tuple(int(0.7 * v) for v in c), width=4)
    elif place == "table" or place.endswith("-area"):
        draw.rectangle(box, outline=(200, 190, 170), width=2)
    else:  # a target pose or a pyramid slot: a dashed square
        for i in range(x0, x1, 12):
            draw.line((i, y0, min(i + 6, x1), y0), fill=INK, width=2)
            draw.line((i, y1, min(i + 6, x1), y1), fill=INK, width=2)
        for j in range(y0, y1, 12):
            draw.line((x0, j, x0, min(j + 6, y1)), fill=INK, width=2)
            draw.line((x1, j, x1, min(j + 6, y1)), fill=INK, width=2)


def _draw_tower(draw: object, tower: list[str], x: int, cy: int, name_font: object | None) -> int:
    """The top block of ``tower`` seen from above, offset once per block under it; the right edge drawn."""
    below = len(tower) - 1
    for k in range(below):  # the edges of the blocks underneath: seen, their colours not
        side = BIG_PX if tower[k].startswith("big-") else SMALL_PX
        ox = x + 6 * k
        draw.rectangle((ox, cy - side // 2 + 6 * (below - k), ox + side, cy + side // 2 + 6 * (below - k)),
                       fill=(90, 90, 90), outline=(20, 20, 20), width=1)
    top = tower[-1]
    side = BIG_PX if top.startswith("big-") else SMALL_PX
    ox = x + 6 * below
    fill = _colour(top)
    draw.rectangle((ox, cy - side // 2, ox + side, cy + side // 2), fill=fill, outline=(0, 0, 0), width=2)
    if name_font is not None:
        draw.multiline_text((ox + side // 2, cy), display(top).removesuffix(" block").replace(" ", "\n"),
                            fill=text_colour(fill), font=name_font, anchor="mm", align="center")
    return ox + max(side, BIG_PX)
