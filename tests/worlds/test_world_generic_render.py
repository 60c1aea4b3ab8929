"""The generic renderer: any PDDL state as a readable, deterministic picture, legible at 50 objects."""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image

from scene_graphs.render_generic import card_lines, kinds, render_state
from toolkit.task import load_task

WAREHOUSE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "warehouse"


def _task(tmp_path: Path, boxes: int):
    objects = " ".join(f"box{i}" for i in range(boxes))
    init = " ".join(f"(item-at box{i} shelf-{i % 4})" for i in range(boxes))
    (tmp_path / "p.pddl").write_text(
        f"(define (problem big) (:domain warehouse) (:objects r1 - robot {objects} - item dock shelf-0 shelf-1 "
        f"shelf-2 shelf-3 - location) (:init (robot-at r1 dock) (hand-free r1) {init} (connected dock shelf-0))"
        " (:goal (item-at box0 dock)))")
    return load_task(WAREHOUSE / "domain.pddl", tmp_path / "p.pddl")


def test_what_each_card_says() -> None:
    task = load_task(WAREHOUSE / "domain.pddl", WAREHOUSE / "problems/swap.pddl")
    lines, header = card_lines(task, task.init)
    assert ("hand-free", True, False) in lines["r1"]  # a unary fact: a badge
    assert ("robot-at -> dock", False, False) in lines["r1"]  # a relation: a labelled link
    assert ("connected -> dock, shelf-b", False, True) in lines["shelf-a"]  # static: grey, targets on one line
    assert header == [] and kinds(task)["box1"] == "item"


def test_same_state_same_bytes_other_state_other_picture() -> None:
    task = load_task(WAREHOUSE / "domain.pddl", WAREHOUSE / "problems/swap.pddl")
    first = render_state(task, task.init)
    assert first == render_state(task, task.init)
    step = task.action("drive", ["r1", "dock", "shelf-a"])
    assert render_state(task, step.apply(task.init)) != first


def test_fifty_objects_stay_legible(tmp_path: Path) -> None:
    """Cards keep their size (text at 14-16 px) and lanes wrap into columns: the picture grows, the text does not
    shrink; and it stays within what a VLM is sent at high detail without downscaling the text away."""
    task = _task(tmp_path, 44)
    assert len(task.objects) == 50
    img = Image.open(io.BytesIO(render_state(task, task.init)))
    width, height = img.size
    assert 900 <= width <= 2400 and height <= 1400, img.size
