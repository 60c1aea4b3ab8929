"""Rendering: golden hashes, pixel checks of key regions, determinism, visibility."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import pytest
from PIL import Image

from scene_graphs import make_world
from scene_graphs.render_blocks import layout
from toolkit.domains import shipped_domain, shipped_problem
from toolkit.model import Atom
from toolkit.task import load_task

GOLDEN = Path(__file__).parent / "data" / "render_golden.json"
# (domain, problem, plan prefix): fixed states whose PNG must not change by accident.
# Regenerate after an intended drawing change: python tests/worlds/test_world_render.py
STATES = [
    ("blocksworld", "simple_problem_0", []),
    ("blocksworld", "hard_problem_0", ["(moveBlock b c3)"]),
    ("household", "packing_food_for_work_0", []),
    ("household", "packing_food_for_work_0", ["(navigate-to fridge_1)", "(open-container fridge_1)",
                                              "(grasp sandwich_1)"]),
    ("household", "collect_misplaced_items_0", ["(navigate-to gym_shoe_1)"]),
]


def world_after(domain: str, problem: str, steps: list[str]):
    task = load_task(shipped_domain(domain), shipped_problem(domain, problem))
    world = make_world(task, seed=0)
    for s in steps:
        name, *args = s.strip("()").split()
        assert world.execute(task.action(name, args)).executed
    return task, world


def digest(png: bytes) -> str:
    return hashlib.sha256(png).hexdigest()


@pytest.mark.parametrize("domain,problem,steps", STATES, ids=[f"{d}/{p}/{len(s)}" for d, p, s in STATES])
def test_golden_hash(domain: str, problem: str, steps: list[str]) -> None:
    _, world = world_after(domain, problem, steps)
    png = world.observe().png()
    assert png == world.observe().png()  # deterministic
    assert digest(png) == json.loads(GOLDEN.read_text())[f"{domain}/{problem}/{len(steps)}"]


def test_block_fill_colour_and_position() -> None:
    task, world = world_after("blocksworld", "hard_problem_0", ["(moveBlock b c3)"])
    img = Image.open(io.BytesIO(world.observe().png())).convert("RGB")
    boxes = layout(world.graph)
    for block in ("r", "g", "b", "y", "p", "o"):
        x0, y0, x1, y1 = boxes[block]
        assert img.getpixel((x0 + 6, y0 + 6)) == world.graph.nodes[block]["colour"]  # corner: fill, not text
    # b now stands alone in c3, on the table: its box sits in c3's slot and on the table line
    assert boxes["b"][0] == boxes["c3"][0] and boxes["b"][3] == boxes["c3"][3]
    # columns left to right in leftOf order
    assert boxes["c1"][0] < boxes["c2"][0] < boxes["c3"][0] < boxes["c4"][0]


def test_household_closed_container_hides_contents() -> None:
    task, world = world_after("household", "packing_food_for_work_0", [])
    obs = world.observe()
    assert Atom("inside", ("sandwich_1", "fridge_1")) in obs.truth
    assert not obs.can_see(Atom("inside", ("sandwich_1", "fridge_1")))
    assert obs.can_see(Atom("open", ("fridge_1",))) and obs.can_see(Atom("ontop", ("apple_1", "countertop_1")))
    assert obs.can_see(Atom("holding", ("sandwich_1",)))
    _, world = world_after("household", "packing_food_for_work_0", ["(navigate-to fridge_1)", "(open-container fridge_1)"])
    assert world.observe().can_see(Atom("inside", ("sandwich_1", "fridge_1")))


def test_household_view_is_the_agents_room() -> None:
    _, world = world_after("household", "collect_misplaced_items_0", [])
    obs = world.observe()  # agent starts in the bedroom (layout file)
    assert obs.can_see(Atom("ontop", ("sock_1", "bed_1")))
    assert not obs.can_see(Atom("nextto", ("gym_shoe_1", "sofa_1")))
    _, world = world_after("household", "collect_misplaced_items_0", ["(navigate-to gym_shoe_1)"])
    obs = world.observe()
    assert obs.can_see(Atom("nextto", ("gym_shoe_1", "sofa_1"))) and not obs.can_see(Atom("ontop", ("sock_1", "bed_1")))
    assert obs.state_key != world_after("household", "collect_misplaced_items_0", [])[1].observe().state_key


def test_blocksworld_fully_visible() -> None:
    _, world = world_after("blocksworld", "simple_problem_0", [])
    assert world.observe().visible is None


if __name__ == "__main__":
    GOLDEN.write_text(json.dumps({f"{d}/{p}/{len(s)}": digest(world_after(d, p, s)[1].observe().png())
                                  for d, p, s in STATES}, indent=1) + "\n")
    print(f"wrote {GOLDEN}")
