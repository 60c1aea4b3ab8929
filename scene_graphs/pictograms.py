"""Pictograms of household objects, drawn with Pillow primitives, and the colours that tell instances apart.

The pictorial render mode (:mod:`scene_graphs.render_household`) draws objects as
pictures instead of names, so a VLM must *see* that a spoon lies on the table
rather than read ``spoon_1`` next to ``table_1``. The category of an object is its
instance base (``toy_car_2`` -> ``toy_car``); its **shape** says the category and
its **fill colour** says which instance it is when a scene has several of the
category ("the red spoon", "the blue spoon"). A single instance keeps its
category's own colour and is asked about as "the spoon". Questions name objects
the same way (:func:`picture_names`), so prompts stay answerable without labels.

Categories without a drawn pictogram (imported scenes name anything) get a
generic glyph: one of six outlines with one of four inner marks, assigned in
category-name order per scene, so categories stay distinct within an image even
though the glyph carries no meaning of its own (see docs/worlds.md).

Everything is a pure function of names: same scene, same pixels. No assets.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable

from scene_graphs.colours import NAMED, RGB

Box = tuple[int, int, int, int]
Painter = Callable[..., None]
_SUFFIX = re.compile(r"^(?P<base>.+?)_\d+$")
INK: RGB = (40, 40, 40)

# Instance colours, by name, in the order they are handed out. Pairs a VLM names
# easily and that differ in hue, not only in lightness.
INSTANCE_COLOURS: tuple[str, ...] = ("red", "blue", "green", "yellow", "purple", "orange", "pink", "cyan",
                                     "brown", "black", "white", "gray")


def category(obj: str) -> str:
    """The object category an instance name stands for.

    >>> category("toy_car_2"), category("fridge_1"), category("tv")
    ('toy_car', 'fridge', 'tv')
    """
    hit = _SUFFIX.match(obj)
    return (hit.group("base") if hit else obj).lower()


def instance_colours(objects: Iterable[str]) -> dict[str, str | None]:
    """Colour word per object: None for the only one of its category, else a distinct colour per instance."""
    by_cat: dict[str, list[str]] = {}
    for o in sorted(objects):
        by_cat.setdefault(category(o), []).append(o)
    out: dict[str, str | None] = {}
    for members in by_cat.values():
        for i, o in enumerate(members):
            out[o] = None if len(members) == 1 else INSTANCE_COLOURS[i % len(INSTANCE_COLOURS)]
    return out


def picture_names(objects: Iterable[str]) -> dict[str, list[str]]:
    """How questions name each object when the image is pictorial: ``["the red spoon"]`` or ``["the spoon"]``.

    >>> picture_names(["spoon_1", "spoon_2", "fridge_1"])["spoon_2"], picture_names(["fridge_1"])["fridge_1"]
    (['the blue spoon'], ['the fridge'])
    """
    colours = instance_colours(objects)
    return {o: [f"the {c + ' ' if c else ''}{category(o).replace('_', ' ')}"] for o, c in colours.items()}


# ------------------------------------------------------------------ primitives

def _inset(box: Box, fx: float, fy: float | None = None) -> Box:
    x0, y0, x1, y1 = box
    fy = fx if fy is None else fy
    dx, dy = (x1 - x0) * fx, (y1 - y0) * fy
    return (round(x0 + dx), round(y0 + dy), round(x1 - dx), round(y1 - dy))


def _sq(box: Box) -> Box:
    """The largest centred square inside ``box``."""
    x0, y0, x1, y1 = box
    s = min(x1 - x0, y1 - y0)
    cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
    return (cx - s // 2, cy - s // 2, cx + s // 2, cy + s // 2)


def _pt(box: Box, fx: float, fy: float) -> tuple[int, int]:
    x0, y0, x1, y1 = box
    return (round(x0 + (x1 - x0) * fx), round(y0 + (y1 - y0) * fy))


def _rect(d, box: Box, a: tuple[float, float], b: tuple[float, float], **kw) -> None:
    d.rectangle((*_pt(box, *a), *_pt(box, *b)), **kw)


def _ell(d, box: Box, a: tuple[float, float], b: tuple[float, float], **kw) -> None:
    d.ellipse((*_pt(box, *a), *_pt(box, *b)), **kw)


def _poly(d, box: Box, pts: Iterable[tuple[float, float]], **kw) -> None:
    d.polygon([_pt(box, *p) for p in pts], **kw)


def darker(c: RGB, f: float = 0.6) -> RGB:
    return (int(c[0] * f), int(c[1] * f), int(c[2] * f))


# --------------------------------------------------------------- movable icons
# Each painter draws inside a square box in fill colour ``c`` with dark outlines.

def _book(d, b, c):  # hardback / paperback / notebook / magazine / folder differ by proportions and marks
    _rect(d, b, (.2, .1), (.8, .9), fill=c, outline=INK, width=2)
    _rect(d, b, (.2, .1), (.32, .9), fill=darker(c), outline=INK, width=1)


def _paperback(d, b, c):
    _rect(d, b, (.25, .18), (.75, .85), fill=c, outline=INK, width=1)
    _rect(d, b, (.35, .3), (.65, .45), fill=(250, 250, 250))


def _notebook(d, b, c):
    _rect(d, b, (.22, .1), (.78, .9), fill=c, outline=INK, width=2)
    for k in range(5):
        y = .18 + k * .15
        _ell(d, b, (.16, y), (.28, y + .07), outline=INK, width=1)


def _magazine(d, b, c):
    _rect(d, b, (.15, .1), (.85, .9), fill=c, outline=INK, width=1)
    for k in range(3):
        _rect(d, b, (.25, .55 + k * .1), (.75, .58 + k * .1), fill=INK)


def _folder(d, b, c):
    _poly(d, b, [(.1, .3), (.4, .3), (.45, .22), (.9, .22), (.9, .85), (.1, .85)], fill=c, outline=INK, width=2)


def _envelope(d, b, c):
    _rect(d, b, (.1, .25), (.9, .78), fill=c, outline=INK, width=2)
    d.line([_pt(b, .1, .25), _pt(b, .5, .55), _pt(b, .9, .25)], fill=INK, width=2)


def _spoon(d, b, c):
    _ell(d, b, (.35, .08), (.65, .45), fill=c, outline=INK, width=2)
    _rect(d, b, (.46, .43), (.54, .92), fill=c, outline=INK, width=1)


def _knife(d, b, c):
    _poly(d, b, [(.42, .06), (.6, .2), (.58, .58), (.42, .58)], fill=(215, 215, 220), outline=INK, width=2)
    _rect(d, b, (.4, .58), (.6, .94), fill=c, outline=INK, width=1)


def _plate(d, b, c):
    _ell(d, b, (.05, .3), (.95, .75), fill=c, outline=INK, width=2)
    _ell(d, b, (.25, .4), (.75, .65), outline=darker(c, .75), width=2)


def _bowl(d, b, c):
    d.pieslice((*_pt(b, .08, .05), *_pt(b, .92, .85)), 0, 180, fill=c, outline=INK, width=2)
    _rect(d, b, (.35, .84), (.65, .92), fill=darker(c))


def _cup(d, b, c):
    _ell(d, b, (.58, .32), (.9, .68), outline=INK, width=4)
    _rect(d, b, (.15, .2), (.68, .88), fill=c, outline=INK, width=2)


def _ball(d, b, c):
    _ell(d, b, (.12, .12), (.88, .88), fill=c, outline=INK, width=2)
    d.arc((*_pt(b, .12, .3), *_pt(b, .88, .7)), 0, 180, fill=INK, width=2)


def _apple(d, b, c):
    _ell(d, b, (.12, .22), (.88, .92), fill=c, outline=INK, width=2)
    _rect(d, b, (.47, .06), (.53, .26), fill=(100, 70, 30))
    _ell(d, b, (.54, .06), (.78, .2), fill=(60, 150, 50))


def _cookie(d, b, c):
    _ell(d, b, (.1, .1), (.9, .9), fill=c, outline=INK, width=2)
    for x, y in ((.35, .35), (.6, .4), (.45, .62), (.68, .65), (.3, .58)):
        _ell(d, b, (x - .05, y - .05), (x + .05, y + .05), fill=(70, 40, 20))


def _sandwich(d, b, c):
    _poly(d, b, [(.1, .85), (.9, .85), (.5, .12)], fill=(235, 205, 150), outline=INK, width=2)
    _poly(d, b, [(.2, .7), (.8, .7), (.74, .6), (.26, .6)], fill=c)


def _bottle(d, b, c):  # juice / milk: a bottle with a label band
    _rect(d, b, (.4, .05), (.6, .22), fill=c, outline=INK, width=1)
    _rect(d, b, (.28, .22), (.72, .95), fill=c, outline=INK, width=2)
    _rect(d, b, (.28, .48), (.72, .68), fill=(250, 250, 250))


def _milk(d, b, c):  # a gable-top milk carton
    _poly(d, b, [(.25, .3), (.5, .08), (.75, .3)], fill=(250, 250, 250), outline=INK, width=2)
    _rect(d, b, (.25, .3), (.75, .95), fill=(250, 250, 250), outline=INK, width=2)
    _rect(d, b, (.25, .5), (.75, .75), fill=c)


def _eggs(d, b, c):
    _rect(d, b, (.05, .55), (.95, .9), fill=(200, 190, 170), outline=INK, width=2)
    for x in (.1, .4, .7):
        _ell(d, b, (x, .2), (x + .22, .62), fill=c, outline=INK, width=1)


def _cereal(d, b, c):
    _rect(d, b, (.2, .05), (.8, .95), fill=c, outline=INK, width=2)
    _ell(d, b, (.3, .35), (.7, .65), fill=(250, 230, 120), outline=INK, width=1)


def _pasta(d, b, c):  # a tall jar with a wavy band
    _rect(d, b, (.28, .08), (.72, .2), fill=darker(c), outline=INK, width=1)
    _rect(d, b, (.22, .2), (.78, .95), fill=(245, 230, 170), outline=INK, width=2)
    for k in range(3):
        d.arc((*_pt(b, .28, .35 + k * .18), *_pt(b, .72, .5 + k * .18)), 0, 180, fill=c, width=3)


def _chips(d, b, c):  # a crinkled bag
    _poly(d, b, [(.2, .1), (.8, .1), (.85, .9), (.15, .9)], fill=c, outline=INK, width=2)
    for y in (.1, .9):
        d.line([_pt(b, x / 10, y + (.04 if k % 2 else -.04)) for k, x in enumerate(range(2, 9))], fill=INK, width=1)
    _ell(d, b, (.35, .4), (.65, .65), fill=(250, 220, 90))


def _toy_car(d, b, c):
    _rect(d, b, (.05, .45), (.95, .72), fill=c, outline=INK, width=2)
    _poly(d, b, [(.25, .45), (.35, .22), (.65, .22), (.75, .45)], fill=c, outline=INK, width=2)
    for x in (.15, .65):
        _ell(d, b, (x, .62), (x + .2, .86), fill=INK)


def _teddy_bear(d, b, c):
    for x in (.2, .62):
        _ell(d, b, (x, .04), (x + .18, .22), fill=c, outline=INK, width=1)
    _ell(d, b, (.25, .08), (.75, .5), fill=c, outline=INK, width=2)
    _ell(d, b, (.2, .45), (.8, .96), fill=c, outline=INK, width=2)
    for x in (.38, .56):
        _ell(d, b, (x, .22), (x + .06, .28), fill=INK)


def _gym_shoe(d, b, c):
    _poly(d, b, [(.05, .45), (.4, .45), (.55, .6), (.95, .65), (.95, .85), (.05, .85)], fill=c, outline=INK,
          width=2)
    _rect(d, b, (.05, .8), (.95, .88), fill=(250, 250, 250), outline=INK, width=1)


def _puzzle(d, b, c):
    _rect(d, b, (.15, .25), (.75, .85), fill=c, outline=INK, width=2)
    _ell(d, b, (.35, .08), (.55, .3), fill=c, outline=INK, width=2)
    _ell(d, b, (.7, .45), (.92, .65), fill=c, outline=INK, width=2)


def _toolbox(d, b, c):
    d.arc((*_pt(b, .3, .12), *_pt(b, .7, .5)), 180, 360, fill=INK, width=4)
    _rect(d, b, (.08, .3), (.92, .88), fill=c, outline=INK, width=2)
    _rect(d, b, (.08, .48), (.92, .54), fill=INK)


def _paint_can(d, b, c):
    _rect(d, b, (.2, .25), (.8, .92), fill=(190, 190, 195), outline=INK, width=2)
    _ell(d, b, (.2, .17), (.8, .33), fill=c, outline=INK, width=2)
    _poly(d, b, [(.2, .3), (.35, .3), (.32, .6), (.24, .6)], fill=c)


def _phone(d, b, c):
    _rect(d, b, (.3, .05), (.7, .95), fill=c, outline=INK, width=2)
    _rect(d, b, (.35, .14), (.65, .78), fill=(40, 60, 90))
    _ell(d, b, (.45, .82), (.55, .9), fill=INK)


def _keys(d, b, c):
    _ell(d, b, (.1, .1), (.5, .5), outline=c, width=5)
    d.line([_pt(b, .4, .4), _pt(b, .88, .88)], fill=c, width=6)
    d.line([_pt(b, .72, .72), _pt(b, .82, .62)], fill=c, width=5)


def _toy(d, b, c):  # a spinning top
    _poly(d, b, [(.1, .4), (.9, .4), (.5, .92)], fill=c, outline=INK, width=2)
    _rect(d, b, (.45, .1), (.55, .4), fill=INK)


def _box(d, b, c):  # a cardboard box with tape
    _rect(d, b, (.08, .25), (.92, .9), fill=c, outline=INK, width=2)
    _rect(d, b, (.44, .25), (.56, .9), fill=darker(c, .8))


def _crate(d, b, c):  # slatted wooden crate
    _rect(d, b, (.08, .2), (.92, .9), fill=c, outline=INK, width=2)
    for y in (.43, .66):
        d.line([_pt(b, .08, y), _pt(b, .92, y)], fill=INK, width=2)
    d.line([_pt(b, .08, .2), _pt(b, .92, .9)], fill=darker(c), width=3)


def _document(d, b, c):  # a sheet with a folded corner and lines
    _poly(d, b, [(.22, .06), (.62, .06), (.8, .24), (.8, .94), (.22, .94)], fill=c, outline=INK, width=2)
    for k in range(4):
        _rect(d, b, (.3, .35 + k * .14), (.72, .38 + k * .14), fill=INK)


def _binder(d, b, c):  # a ring binder seen from the spine
    _rect(d, b, (.25, .06), (.75, .94), fill=c, outline=INK, width=2)
    _ell(d, b, (.4, .6), (.6, .8), outline=INK, width=3)
    _rect(d, b, (.33, .15), (.67, .4), fill=(250, 250, 250), outline=INK, width=1)


def _cheese(d, b, c):  # a wedge with holes
    _poly(d, b, [(.05, .8), (.95, .8), (.95, .35), (.05, .65)], fill=c, outline=INK, width=2)
    for x, y in ((.35, .68), (.7, .55), (.82, .7)):
        _ell(d, b, (x - .05, y - .05), (x + .05, y + .05), fill=darker(c, .75))


def _sock(d, b, c):
    _poly(d, b, [(.35, .05), (.65, .05), (.65, .6), (.9, .75), (.85, .95), (.4, .95), (.35, .75)], fill=c,
          outline=INK, width=2)
    _rect(d, b, (.35, .05), (.65, .15), fill=(250, 250, 250), outline=INK, width=1)


def _glasses(d, b, c):
    for x in (.05, .55):
        _ell(d, b, (x, .35), (x + .4, .7), fill=(220, 235, 245), outline=c, width=4)
    d.line([_pt(b, .45, .48), _pt(b, .55, .48)], fill=c, width=4)


MOVABLES: dict[str, tuple[Painter, RGB]] = {
    "box": (_box, (200, 160, 110)), "crate": (_crate, (190, 150, 90)), "document": (_document, (250, 250, 250)),
    "binder": (_binder, (40, 120, 80)), "cheese": (_cheese, (245, 200, 60)), "sock": (_sock, (120, 90, 200)),
    "glasses": (_glasses, (40, 40, 40)),
    "hardback": (_book, (150, 40, 40)), "paperback": (_paperback, (230, 160, 60)),
    "notebook": (_notebook, (60, 110, 200)), "magazine": (_magazine, (230, 90, 160)),
    "folder": (_folder, (240, 200, 80)), "envelope": (_envelope, (250, 245, 225)),
    "spoon": (_spoon, (185, 185, 195)), "knife": (_knife, (120, 80, 40)), "plate": (_plate, (240, 240, 235)),
    "bowl": (_bowl, (110, 170, 220)), "cup": (_cup, (240, 240, 235)), "ball": (_ball, (240, 120, 40)),
    "apple": (_apple, (210, 40, 40)), "cookie": (_cookie, (200, 150, 80)), "sandwich": (_sandwich, (120, 190, 80)),
    "juice": (_bottle, (250, 165, 30)), "milk": (_milk, (80, 140, 230)), "eggs": (_eggs, (245, 235, 215)),
    "cereal": (_cereal, (230, 120, 40)), "pasta": (_pasta, (200, 80, 40)), "chips": (_chips, (220, 50, 50)),
    "toy_car": (_toy_car, (220, 40, 40)), "teddy_bear": (_teddy_bear, (170, 110, 60)),
    "gym_shoe": (_gym_shoe, (70, 110, 220)), "puzzle": (_puzzle, (80, 180, 90)),
    "toolbox": (_toolbox, (210, 40, 40)), "paint_can": (_paint_can, (60, 120, 220)),
    "phone": (_phone, (50, 50, 55)), "keys": (_keys, (200, 170, 40)), "toy": (_toy, (150, 70, 190)),
}


# ------------------------------------------------------------- furniture icons
# Painters draw inside the furniture's full slot box (wider than tall).

def _table(d, b, c):
    _rect(d, b, (0, 0), (1, .2), fill=c, outline=INK, width=2)
    for x in (.06, .86):
        _rect(d, b, (x, .2), (x + .08, 1), fill=darker(c), outline=INK, width=1)


def _countertop(d, b, c):
    _rect(d, b, (0, .25), (1, 1), fill=c, outline=INK, width=2)
    _rect(d, b, (-.02, 0), (1.02, .25), fill=(90, 90, 95), outline=INK, width=2)
    d.line([_pt(b, .5, .3), _pt(b, .5, .95)], fill=INK, width=2)
    for x in (.42, .54):
        _rect(d, b, (x, .45), (x + .04, .7), fill=INK)


def _sink(d, b, c):
    _rect(d, b, (0, .25), (1, 1), fill=c, outline=INK, width=2)
    _rect(d, b, (0, .1), (1, .25), fill=(230, 230, 235), outline=INK, width=2)
    _rect(d, b, (.25, .12), (.75, .22), fill=(120, 150, 170))
    _rect(d, b, (.47, -.05), (.53, .12), fill=(160, 160, 170), outline=INK, width=1)


def _shelf(d, b, c):
    for x in (0, .92):
        _rect(d, b, (x, 0), (x + .08, 1), fill=c, outline=INK, width=1)
    for y in (0, .45, .9):
        _rect(d, b, (0, y), (1, y + .1), fill=c, outline=INK, width=1)


def _bed(d, b, c):
    _rect(d, b, (0, 0), (.1, 1), fill=darker(c), outline=INK, width=2)
    _rect(d, b, (.1, .3), (1, .8), fill=c, outline=INK, width=2)
    _ell(d, b, (.13, .12), (.35, .38), fill=(250, 250, 250), outline=INK, width=1)
    _rect(d, b, (.1, .8), (1, 1), fill=darker(c), outline=INK, width=1)


def _sofa(d, b, c):
    _rect(d, b, (.08, 0), (.92, .55), fill=darker(c, .8), outline=INK, width=2)
    _rect(d, b, (0, .35), (1, .85), fill=c, outline=INK, width=2)
    for x in (0, .88):
        _rect(d, b, (x, .2), (x + .12, .85), fill=darker(c, .8), outline=INK, width=2)
    for x in (.05, .9):
        _rect(d, b, (x, .85), (x + .05, 1), fill=INK)


def _workbench(d, b, c):
    _rect(d, b, (0, 0), (1, .22), fill=c, outline=INK, width=2)
    for x in (.05, .88):
        _rect(d, b, (x, .22), (x + .07, 1), fill=(90, 90, 95), outline=INK, width=1)
    _rect(d, b, (.05, .7), (.95, .78), fill=(90, 90, 95))
    _rect(d, b, (.7, .05), (.85, .16), fill=(200, 60, 40))  # a vice


def _floor(d, b, c):  # a striped rug lying on the floor line
    _rect(d, b, (0, .75), (1, 1), fill=c, outline=INK, width=2)
    for x in (.2, .4, .6, .8):
        _rect(d, b, (x, .75), (x + .06, 1), fill=darker(c, .8))


def _car(d, b, c):  # a car parked on the floor line
    _rect(d, b, (0, .45), (1, .85), fill=c, outline=INK, width=2)
    _poly(d, b, [(.2, .45), (.32, .1), (.7, .1), (.82, .45)], fill=c, outline=INK, width=2)
    _poly(d, b, [(.28, .42), (.36, .16), (.66, .16), (.74, .42)], fill=(190, 215, 235))
    for x in (.1, .7):
        _ell(d, b, (x, .7), (x + .2, 1), fill=INK)


def _desk(d, b, c):  # a top, a drawer block on the right and one leg on the left
    _rect(d, b, (0, 0), (1, .18), fill=c, outline=INK, width=2)
    _rect(d, b, (.62, .18), (1, 1), fill=darker(c, .85), outline=INK, width=2)
    for y in (.45, .72):
        d.line([_pt(b, .62, y), _pt(b, 1, y)], fill=INK, width=2)
    _rect(d, b, (.03, .18), (.1, 1), fill=darker(c), outline=INK, width=1)


FURNITURE: dict[str, tuple[Painter, RGB]] = {
    "car": (_car, (70, 90, 160)), "desk": (_desk, (160, 110, 70)),
    "table": (_table, (190, 140, 90)), "countertop": (_countertop, (225, 215, 195)),
    "counter": (_countertop, (225, 215, 195)), "sink": (_sink, (200, 200, 210)), "shelf": (_shelf, (170, 120, 70)),
    "bed": (_bed, (120, 150, 210)), "sofa": (_sofa, (150, 60, 60)), "workbench": (_workbench, (200, 170, 110)),
    "floor": (_floor, (170, 190, 150)),
}

# Where the standing surface of a piece of furniture is, as a fraction of its box's height from the top
# (things on top of it are drawn standing there): a rug lies low, a bed's mattress is below its headboard.
SURFACE: dict[str, float] = {"floor": .75, "bed": .3, "sofa": .35, "car": .1, "sink": .1}

# Containers: body colour and the marks on a closed front (drawers, freezer line, lid flaps).
CONTAINERS: dict[str, tuple[str, RGB]] = {
    "fridge": ("freezer", (235, 240, 245)), "drawer": ("drawers", (180, 130, 80)),
    "cabinet": ("doors", (150, 100, 60)), "toy_box": ("stars", (230, 80, 150)),
    "carton": ("flaps", (200, 160, 110)), "file_cabinet": ("files", (150, 155, 165)),
    "box": ("flaps", (190, 150, 100)), "basket": ("weave", (200, 170, 110)), "bag": ("weave", (90, 150, 110)),
}


# ------------------------------------------------------------- generic glyphs

GLYPH_SHAPES = ("circle", "square", "triangle", "diamond", "hexagon", "star")
GLYPH_MARKS = ("none", "dot", "bar", "ring")


def glyph_for(index: int) -> tuple[str, str]:
    """The (outline, inner mark) of the index-th category without a drawn pictogram."""
    return GLYPH_SHAPES[index % len(GLYPH_SHAPES)], GLYPH_MARKS[(index // len(GLYPH_SHAPES)) % len(GLYPH_MARKS)]


def draw_glyph(d, box: Box, glyph: tuple[str, str], c: RGB) -> None:
    b = _sq(_inset(box, .05))
    shape, mark = glyph
    pts = {"triangle": [(.5, .05), (.95, .92), (.05, .92)], "diamond": [(.5, .02), (.98, .5), (.5, .98), (.02, .5)],
           "hexagon": [(.25, .05), (.75, .05), (1, .5), (.75, .95), (.25, .95), (0, .5)],
           "star": [(.5, 0), (.62, .35), (1, .38), (.7, .6), (.8, 1), (.5, .78), (.2, 1), (.3, .6), (0, .38),
                    (.38, .35)]}
    if shape == "circle":
        _ell(d, b, (.05, .05), (.95, .95), fill=c, outline=INK, width=2)
    elif shape == "square":
        _rect(d, b, (.08, .08), (.92, .92), fill=c, outline=INK, width=2)
    else:
        _poly(d, b, pts[shape], fill=c, outline=INK, width=2)
    if mark == "dot":
        _ell(d, b, (.4, .45), (.6, .65), fill=INK)
    elif mark == "bar":
        _rect(d, b, (.3, .5), (.7, .6), fill=INK)
    elif mark == "ring":
        _ell(d, b, (.33, .38), (.67, .72), outline=INK, width=3)


def colour_rgb(word: str | None, default: RGB) -> RGB:
    return default if word is None else NAMED[word]


def draw_movable(d, box: Box, cat: str, colour: RGB, glyph: tuple[str, str] | None = None) -> None:
    """A movable's pictogram (or its generic glyph) centred in ``box``."""
    if cat in MOVABLES:
        MOVABLES[cat][0](d, _sq(_inset(box, .04)), colour)
    else:
        draw_glyph(d, box, glyph or glyph_for(0), colour)


def default_colour(cat: str) -> RGB:
    for table in (MOVABLES, FURNITURE):
        if cat in table:
            return table[cat][1]  # type: ignore[index]
    if cat in CONTAINERS:
        return CONTAINERS[cat][1]
    return (200, 200, 200)
