"""Draw a column Blocksworld graph as a PNG: coloured blocks stacked in labelled columns.

Made so a person (or a VLM) can answer every predicate question from the picture:
columns are drawn left to right in their order with the label under each, blocks
carry their colour and their name, and stacks rest on a visible table line, so
``on``, ``inColumn``, ``clear``, ``leftOf`` and ``rightOf`` can all be read off.
The output is a pure function of the graph (byte-identical for the same state).
"""

from __future__ import annotations

import io

import networkx as nx

from scene_graphs.colours import text_colour
from scene_graphs.fonts import font

BLOCK = 64  # block side in pixels
GAP = 28  # space between columns
MARGIN = 24
LABEL_H = 36
BG = (250, 250, 247)
TABLE = (120, 85, 50)


def layout(g: nx.MultiDiGraph) -> dict[str, tuple[int, int, int, int]]:
    """Pixel box ``(x0, y0, x1, y1)`` of every block and column slot (column boxes span the slot)."""
    from scene_graphs.blocksworld import column_stack

    columns = sorted((n for n, k in g.nodes(data="kind") if k == "column"), key=lambda n: g.nodes[n]["index"])
    height = max([len(column_stack(g, c)) for c in columns] + [3])
    table_y = MARGIN + height * BLOCK
    boxes: dict[str, tuple[int, int, int, int]] = {}
    for i, col in enumerate(columns):
        x0 = MARGIN + i * (BLOCK + GAP)
        boxes[col] = (x0, MARGIN, x0 + BLOCK, table_y)
        for level, block in enumerate(column_stack(g, col)):
            y1 = table_y - level * BLOCK
            boxes[block] = (x0, y1 - BLOCK, x0 + BLOCK, y1)
    return boxes


def render_blocks(g: nx.MultiDiGraph) -> bytes:
    """PNG bytes of the column view."""
    from PIL import Image, ImageDraw

    columns = sorted((n for n, k in g.nodes(data="kind") if k == "column"), key=lambda n: g.nodes[n]["index"])
    boxes = layout(g)
    table_y = boxes[columns[0]][3] if columns else MARGIN + 3 * BLOCK
    width = 2 * MARGIN + len(columns) * BLOCK + max(len(columns) - 1, 0) * GAP
    img = Image.new("RGB", (max(width, 160), table_y + 8 + LABEL_H + MARGIN // 2), BG)
    draw = ImageDraw.Draw(img)
    name_font, label_font = font(18), font(20)
    for col in columns:
        x0, y0, x1, _ = boxes[col]
        draw.rectangle((x0 - 4, y0, x1 + 4, table_y), outline=(215, 215, 210))  # the column's slot
        draw.rectangle((x0 - 8, table_y, x1 + 8, table_y + 8), fill=TABLE)
        label = str(g.nodes[col].get("label", col))
        draw.text(((x0 + x1) // 2, table_y + 10 + LABEL_H // 2), label, fill=(0, 0, 0), font=label_font, anchor="mm")
    for node, data in sorted(g.nodes(data=True)):
        if data["kind"] != "block" or node not in boxes:
            continue
        x0, y0, x1, y1 = boxes[node]
        fill = tuple(data["colour"])
        draw.rectangle((x0, y0, x1 - 1, y1 - 1), fill=fill, outline=(0, 0, 0), width=2)
        draw.text(((x0 + x1) // 2, (y0 + y1) // 2), str(data.get("label", node)), fill=text_colour(fill),
                  font=name_font, anchor="mm")
    out = io.BytesIO()
    img.save(out, format="PNG", optimize=False)
    return out.getvalue()
