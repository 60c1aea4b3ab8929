"""The pictorial household view: distinct pictograms, open vs closed, no names without labels, determinism."""

from __future__ import annotations

import functools
import glob
import io
import re

import pytest
from PIL import Image, ImageChops, ImageDraw

from scene_graphs import pictograms as pg
from scene_graphs.household import AGENT, HouseholdWorld
from scene_graphs.registry import make_world
from scene_graphs.render_pictorial import hidden_atoms, render_pictorial
from scene_graphs.schema import SceneGraphError, add_rel
from toolkit.domains import shipped_domain, shipped_problem
from toolkit.model import Atom
from toolkit.task import load_task

SHIPPED = sorted(glob.glob("pddl_domains/household/problems/*.pddl"))
SUITE = sorted(glob.glob("benchmarks/suites/viplan-hh/*/*.pddl"))
HH_PROBLEMS = SHIPPED + SUITE
# the domain's problems and the first of each suite split run by default; the other 72 suite problems with --runslow
FIRST = {min(p for p in SUITE if p.split("/")[-2] == split) for split in {p.split("/")[-2] for p in SUITE}}
CONTRACT = [pytest.param(p, marks=() if p in SHIPPED or p in FIRST else pytest.mark.slow) for p in HH_PROBLEMS]


@functools.lru_cache(maxsize=None)
def _load(path: str):
    return load_task(shipped_domain("household"), path)


def _task(name: str = "sorting_groceries_0"):
    return load_task(shipped_domain("household"), shipped_problem("household", name))


def _icon(cat: str) -> bytes:
    img = Image.new("RGB", (48, 48), (255, 255, 255))
    d = ImageDraw.Draw(img)
    if cat in pg.FURNITURE:
        pg.FURNITURE[cat][0](d, (4, 10, 44, 44), pg.default_colour(cat))
    else:
        pg.draw_movable(d, (2, 2, 46, 46), cat, pg.default_colour(cat))
    return img.tobytes()


def test_every_category_has_a_distinct_pictogram() -> None:
    cats = sorted(set(pg.MOVABLES) | set(pg.FURNITURE) - {"counter"})  # counter is drawn as a countertop
    icons = {c: _icon(c) for c in cats}
    blank = Image.new("RGB", (48, 48), (255, 255, 255)).tobytes()
    assert all(v != blank for v in icons.values())
    assert len(set(icons.values())) == len(cats)
    glyphs = {pg.glyph_for(i) for i in range(len(pg.GLYPH_SHAPES) * len(pg.GLYPH_MARKS))}
    assert len(glyphs) == len(pg.GLYPH_SHAPES) * len(pg.GLYPH_MARKS)


def test_every_shipped_category_has_a_drawn_pictogram() -> None:
    """Shipped suites and every item/place of the generator's task families (tasks.toml)."""
    import tomllib

    table = {"movable": pg.MOVABLES, "object": pg.FURNITURE, "container": pg.CONTAINERS}
    for path in HH_PROBLEMS:  # the :objects block read directly: loading 81 tasks takes seconds
        block = re.search(r"\(:objects(.*?)\)", open(path).read(), re.S).group(1)
        objects = [(o, typ) for names, typ in re.findall(r"([\w\s-]*?)\s-\s(\w+)", block) for o in names.split()]
        assert objects, path
        for obj, typ in objects:
            assert pg.category(obj) in table[typ], (path, obj)
    families = tomllib.loads(open("pddl_domains/household/tasks.toml").read())
    for fam in families.values():
        assert set(fam["items"]) <= set(pg.MOVABLES)
        for place in fam["sources"] + fam["targets"]:
            kind = pg.CONTAINERS if place.get("container") else pg.FURNITURE
            assert place["place"] in kind, place


def test_instances_of_a_category_get_distinct_colours_and_names() -> None:
    names = pg.picture_names(["spoon_1", "spoon_2", "spoon_3", "bowl_1"])
    assert names == {"spoon_1": ["the red spoon"], "spoon_2": ["the blue spoon"], "spoon_3": ["the green spoon"],
                     "bowl_1": ["the bowl"]}


def test_open_and_closed_containers_differ_and_closed_hides_contents() -> None:
    task = _task()
    world = HouseholdWorld(task, render_mode="pictorial")
    world.reset()
    closed = world.observe()
    world.execute(task.action("navigate-to", ["cabinet_1"]))
    before = world.observe().png()
    world.execute(task.action("open-container", ["cabinet_1"]))
    after = world.observe().png()
    assert before != after
    diff = ImageChops.difference(Image.open(io.BytesIO(before)).convert("RGB"), Image.open(io.BytesIO(after)).convert("RGB"))
    assert diff.getbbox() is not None
    assert closed.png() != after


def test_no_labels_means_no_names() -> None:
    """Renaming every object leaves the label-free image unchanged; with labels it changes."""
    task = _task()
    g = HouseholdWorld(task).graph
    mapping = {n: f"{n}x" for n, k in g.nodes(data="kind") if k in ("furniture", "container", "movable")}
    import networkx as nx

    renamed = nx.relabel_nodes(g, {n: m.replace("_1x", "_7") for n, m in mapping.items()})
    assert render_pictorial(g, labels=False) == render_pictorial(renamed, labels=False)
    assert render_pictorial(g, labels=True) != render_pictorial(renamed, labels=True)


def test_same_scene_same_bytes() -> None:
    a = make_world(_task("packing_food_for_work_0"), render_mode="pictorial").reset().png()
    b = make_world(_task("packing_food_for_work_0"), render_mode="pictorial").reset().png()
    assert a == b


def test_hidden_relations_are_not_visible_without_labels() -> None:
    """packing_food_for_work_0 has a carton on the countertop: position cannot show it, so it is not visible."""
    task = _task("packing_food_for_work_0")
    on = Atom("ontop", ("carton_1", "countertop_1"))
    bare = make_world(task, render_mode="pictorial", labels=False)
    labelled = make_world(task, render_mode="pictorial", labels=True)
    assert on in bare.reset().truth and not bare.observe().can_see(on)
    assert labelled.reset().can_see(on)
    assert on in hidden_atoms(bare.graph)


def test_second_relation_of_a_movable_is_hidden() -> None:
    world = HouseholdWorld(_task(), render_mode="pictorial")
    g = world.graph
    movable = next(n for n, k in sorted(g.nodes(data="kind")) if k == "movable" and world.observe().can_see(Atom("holding", (n,))))
    add_rel(g, movable, "countertop_1", "nextto")
    assert AGENT in g
    hidden = hidden_atoms(g)
    assert all(a.args[0] == movable for a in hidden)


def test_schematic_cannot_drop_labels() -> None:
    with pytest.raises(SceneGraphError, match="--no-labels"):
        make_world(_task(), render_mode="schematic", labels=False)
    with pytest.raises(SceneGraphError, match="unknown render mode"):
        make_world(_task(), render_mode="photo")


@pytest.mark.parametrize("path", CONTRACT, ids=lambda p: p.split("/")[-2] + "/" + p.split("/")[-1])
def test_every_shipped_household_problem_renders_in_both_modes(path: str) -> None:
    task = _load(path)
    for mode, labels in (("schematic", True), ("pictorial", False), ("pictorial", True)):
        png = make_world(task, render_mode=mode, labels=labels).reset().png()
        assert Image.open(io.BytesIO(png)).size[0] >= 760
