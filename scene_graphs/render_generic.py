"""Draw any PDDL state as a picture: objects by type, facts as badges and labelled links.

Used for every domain that has no world of its own (an IPC domain, a user's
warehouse), so a VLM study and ``pgt validate --html`` always have an image. The
picture is meant to be *read*, by a person or a VLM:

- one lane per kind of object (its PDDL type, or in an untyped domain its type
  predicate: ferry's ``car`` and ``location``), lanes left to right by name,
  objects top to bottom by name (numbers as numbers: box2 before box10), a lane wrapping into more columns past
  :data:`PER_COLUMN` objects so 50 objects stay legible;
- each object is a card with its name; its unary facts are badges on the card
  (``empty-ferry`` has no argument and sits in the header);
- a binary fact is a labelled link on its first argument's card, ``at -> l4``,
  all targets of one relation on one (wrapped) line (an arrow drawn across the
  picture for each of them would cross dozens of others at 50 objects); facts of
  three or more arguments are written the same way;
- facts no action changes (:mod:`toolkit.known_facts`) are drawn in grey, after the
  others: they are the problem's, the same in every picture.

Type predicates are not drawn as badges (the lane says it). The layout depends
only on the task and the state, so the same state gives the same bytes.
"""

from __future__ import annotations

import io
import re
from collections import defaultdict

from scene_graphs.fonts import font
from toolkit.known_facts import static_predicates, type_predicates
from toolkit.model import Atom
from toolkit.task import Task

CARD_W, LINE_H, PAD, GAP, HEADER = 230, 20, 8, 14, 56
PER_COLUMN = 12  # objects per column of a lane before it wraps
BG, CARD, EDGE = (250, 250, 247), (255, 255, 255), (70, 70, 70)
FACT, STATIC, BADGE, LANE = (20, 20, 20), (150, 150, 150), (214, 232, 255), (236, 236, 230)


def natural(name: str) -> tuple:
    """Sort key that reads numbers as numbers: box2 before box10."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name))


def kinds(task: Task) -> dict[str, str]:
    """Each object's kind: its type, or in an untyped domain its (first) type predicate true in ``:init``."""
    out = {o: t for o, t in task.objects.items()}
    types = set(type_predicates(task.domain))
    for atom in sorted(task.init):
        if atom.predicate in types and out.get(atom.args[0]) == "object":
            out[atom.args[0]] = atom.predicate
    return out


def card_lines(task: Task, state: frozenset[Atom]) -> tuple[dict[str, list[tuple[str, bool, bool]]], list[str]]:
    """What each object's card says: ``(text, is_badge, is_static)`` lines, and the header's nullary facts."""
    static = set(static_predicates(task.domain))
    types = set(type_predicates(task.domain))
    lines: dict[str, list[tuple[str, bool, bool]]] = defaultdict(list)
    header: list[str] = []
    links: dict[tuple[str, str], list[str]] = defaultdict(list)  # (object, predicate) -> targets, one line each
    for atom in sorted(state, key=lambda a: (a.predicate in static, a.predicate, a.args)):
        if atom.predicate in types:
            continue
        if not atom.args:
            header.append(atom.predicate)
        elif len(atom.args) == 1:
            lines[atom.args[0]].append((atom.predicate, True, atom.predicate in static))
        else:
            links[(atom.args[0], atom.predicate)].append(" ".join(atom.args[1:]))
    for (obj, pred), targets in links.items():  # in the sort order above: changing facts first
        lines[obj].append((f"{pred} -> {', '.join(targets)}", False, pred in static))
    return lines, header


def render_state(task: Task, state: frozenset[Atom]) -> bytes:
    """PNG bytes of ``state`` of ``task`` (see the module docstring for what is drawn where)."""
    from PIL import Image, ImageDraw

    kind = kinds(task)
    lanes: dict[str, list[str]] = defaultdict(list)
    for obj in sorted(task.objects, key=natural):
        lanes[kind[obj]].append(obj)
    lines, header = card_lines(task, state)
    body = font(14)
    measure = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    wrapped = {obj: [(row, badge, static) for text, badge, static in entries
                     for row in ([text] if badge else _wrap(measure, text, body, CARD_W - 2 * PAD))]
               for obj, entries in lines.items()}

    def card_h(obj: str) -> int:
        return PAD * 2 + LINE_H * (1 + len(wrapped.get(obj, ())))

    columns: list[tuple[str, list[str]]] = []  # (lane title, its objects in this column)
    for name in sorted(lanes):
        objs = lanes[name]
        for i in range(0, len(objs), PER_COLUMN):
            columns.append((name if i == 0 else f"{name} (cont.)", objs[i:i + PER_COLUMN]))
    heights = [sum(card_h(o) + GAP for o in objs) for _, objs in columns] or [0]
    width = max(GAP + len(columns) * (CARD_W + GAP), 420)
    height = HEADER + LINE_H + GAP + max(heights) + GAP
    img = Image.new("RGB", (width, height), BG)
    draw = ImageDraw.Draw(img)
    title = f"{task.domain.name}: {task.problem.name}"
    draw.text((GAP, 10), title, fill=FACT, font=font(18))
    if header:
        draw.text((GAP, 34), "facts: " + ", ".join(header), fill=FACT, font=body)
    for c, (lane, objs) in enumerate(columns):
        x = GAP + c * (CARD_W + GAP)
        draw.rectangle((x - 4, HEADER, x + CARD_W + 4, height - 4), fill=LANE)
        draw.text((x + CARD_W // 2, HEADER + LINE_H // 2 + 2), lane, fill=FACT, font=font(16), anchor="mm")
        y = HEADER + LINE_H + GAP
        for obj in objs:
            h = card_h(obj)
            draw.rectangle((x, y, x + CARD_W, y + h), fill=CARD, outline=EDGE, width=2)
            draw.text((x + PAD, y + PAD), obj, fill=FACT, font=font(16))
            ly = y + PAD + LINE_H
            for text, badge, static in wrapped.get(obj, ()):
                colour = STATIC if static else FACT
                if badge:
                    w = int(draw.textlength(text, font=body)) + 12
                    draw.rounded_rectangle((x + PAD, ly, x + PAD + w, ly + LINE_H - 3), radius=7,
                                           fill=(240, 240, 240) if static else BADGE)
                    draw.text((x + PAD + 6, ly + 1), text, fill=colour, font=body)
                else:
                    draw.text((x + PAD, ly + 1), text, fill=colour, font=body)
                ly += LINE_H
            y += h + GAP
    out = io.BytesIO()
    img.save(out, format="PNG", optimize=False)
    return out.getvalue()


def _wrap(draw, text: str, fnt, width: int) -> list[str]:
    """``text`` broken at spaces into rows of at most ``width`` pixels (later rows indented)."""
    rows: list[str] = []
    row = ""
    for word in text.split(" "):
        trial = f"{row} {word}" if row else word
        if row and draw.textlength(trial, font=fnt) > width:
            rows.append(row)
            row = "    " + word
        else:
            row = trial
    rows.append(row)
    return rows
