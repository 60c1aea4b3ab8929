"""Building worlds from problems written by others, schema validation, import, CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scene_graphs import SceneGraphError, make_world, validate_graph
from scene_graphs.importers import load_scene, to_layout, to_problem
from scene_graphs.layout import LayoutError
from scene_graphs.schema import add_rel, new_graph
import argparse

from scene_graphs.commands import render as render_cmd
from toolkit.domains import shipped_domain
from toolkit.errors import PgtError
from toolkit.task import load_task

DATA = Path(__file__).parent / "data"
FOREIGN_BW = """(define (problem foreign) (:domain blocksworld)
  (:objects red blue tiny - block left middle right - column)
  (:init (inColumn red middle) (inColumn blue middle) (on blue red) (clear blue)
         (inColumn tiny right) (clear tiny)
         (leftOf left middle) (leftOf left right) (leftOf middle right)
         (rightOf middle left) (rightOf right left) (rightOf right middle))
  (:goal (on red blue)))"""


def write(tmp_path: Path, text: str, name: str = "p.pddl") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_foreign_blocksworld_problem(tmp_path: Path) -> None:
    task = load_task(shipped_domain("blocksworld"), write(tmp_path, FOREIGN_BW))
    world = make_world(task)
    assert world.true_state() == task.init  # transitive leftOf facts kept as such
    assert [c for c in world.columns] == ["left", "middle", "right"]  # order from facts, not names
    assert world.graph.nodes["red"]["colour"] == (220, 40, 40)
    assert world.graph.nodes["tiny"]["colour"] not in {(220, 40, 40), (40, 90, 220)}
    a = task.action("moveBlock", ["blue", "left"])
    world.execute(a)
    assert world.true_state() == a.apply(task.init)


def test_inconsistent_blocksworld_problem_is_refused(tmp_path: Path) -> None:
    text = FOREIGN_BW.replace("(clear blue)", "")  # blue is the top of its stack: clear must hold
    task = load_task(shipped_domain("blocksworld"), write(tmp_path, text))
    with pytest.raises(SceneGraphError, match="clear blue"):
        make_world(task)


def test_household_problem_without_layout_gets_default(tmp_path: Path) -> None:
    text = """(define (problem mine) (:domain igibson)
      (:objects mug_1 - movable dishwasher_1 - container bed_1 desk_1 - object)
      (:init (ontop mug_1 desk_1) (reachable mug_1) (holding mug_1))
      (:goal (inside mug_1 dishwasher_1)))"""
    task = load_task(shipped_domain("household"), write(tmp_path, text))
    world = make_world(task)
    assert world.true_state() == task.init
    assert world.layout.rooms["dishwasher_1"] == "kitchen" and world.layout.rooms["bed_1"] == "bedroom"
    (tmp_path / "layouts").mkdir()
    (tmp_path / "layouts" / "bad.toml").write_text('[rooms]\nkitchen = ["nope_1"]\n')
    with pytest.raises(LayoutError, match="nope_1"):
        make_world(task, layout=tmp_path / "layouts" / "bad.toml")


def test_validate_graph_names_the_node() -> None:
    g = new_graph()
    g.add_node("cup", kind="movable")
    g.add_node("kitchen", kind="room")
    add_rel(g, "cup", "kitchen", "inside")  # inside needs a container
    with pytest.raises(SceneGraphError, match="'kitchen'") as err:
        validate_graph(g)
    assert isinstance(err.value, PgtError) and err.value.node == "kitchen"


@pytest.mark.parametrize("scene", ["virtualhome_kitchen.json", "grasif_living_room.json"])
def test_import_round_trip(tmp_path: Path, scene: str) -> None:
    report = load_scene(DATA / scene)
    (tmp_path / "problems").mkdir()
    (tmp_path / "layouts").mkdir()
    problem = write(tmp_path / "problems", to_problem(report.graph, "scene"), "scene.pddl")
    (tmp_path / "layouts" / "scene.toml").write_text(to_layout(report.graph))
    task = load_task(shipped_domain("household"), problem)
    world = make_world(task)
    assert world.true_state() == task.init
    assert any(a.predicate == "inside" for a in task.init)


def test_import_rejects_dangling_reference() -> None:
    data = json.loads((DATA / "grasif_living_room.json").read_text())
    data["nodes"]["objects"][0]["related_to"] = "piano-9"
    with pytest.raises(SceneGraphError, match="piano_9"):
        load_scene(data)


def test_cli_render_writes_each_step(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    root = Path(__file__).resolve().parents[2] / "pddl_domains" / "household"
    rc = run_cli(["render", "household", "sorting_books_0", "--plan", str(root / "golden/valid/sorting_books_0.plan"),
                  "--out", str(tmp_path)])
    steps = len([ln for ln in (root / "golden/valid/sorting_books_0.plan").read_text().splitlines() if ln.strip()])
    assert rc == 0
    pngs = sorted(p.name for p in tmp_path.glob("*.png"))
    assert pngs[0] == "step_000.png" and len(pngs) == steps + 1
    log = [json.loads(line) for line in (tmp_path / "states.jsonl").read_text().splitlines()]
    assert "goal holds" in capsys.readouterr().out and log[-1]["step"] == steps
    with pytest.raises(PgtError, match="sorting_books_0"):
        run_cli(["render", "household", "sorting_books", "--out", str(tmp_path)])


def run_cli(argv: list[str]) -> int:
    """Parse with only this subcommand registered (independent of other subcommands' state)."""
    parser = argparse.ArgumentParser(prog="pgt")
    render_cmd.register(parser.add_subparsers())
    args = parser.parse_args(argv)
    return args.func(args)
