"""The graph worlds agree with the PDDL core, atom for atom, on random walks."""

from __future__ import annotations

import random
from pathlib import Path

import importlib.util

import pytest

from scene_graphs import make_world
from toolkit.domains import shipped_domain
from toolkit.task import load_task

ROOT = Path(__file__).resolve().parents[2] / "pddl_domains"
# Every registered world's shipped problems; BabyAI's need minigrid (the babyai extra), else they skip.
WORLD_DOMAINS = ("blocksworld", "household", "babyai", "lohoravens")
CASES = [pytest.param(d, p, marks=pytest.mark.skipif(d == "babyai" and importlib.util.find_spec("minigrid") is None,
                                                     reason="needs minigrid (extra babyai)"))
         for d in WORLD_DOMAINS for p in sorted((ROOT / d / "problems").glob("*.pddl"))]
IDS = [f"{c.values[0]}/{c.values[1].stem}" for c in CASES]
EXHAUSTIVE = 3000  # above this many type-correct ground actions, check the relaxed-reachable ones
WALKS, STEPS = 10, 40


@pytest.mark.parametrize("domain,problem", CASES, ids=IDS)
def test_random_walks_agree_with_core(domain: str, problem: Path) -> None:
    task = load_task(shipped_domain(domain), problem)
    world = make_world(task, seed=0)
    all_actions = list(task.all_actions())
    walks = WALKS
    if len(all_actions) > EXHAUSTIVE:  # a grid's cells x cells x directions: no other action can ever apply
        all_actions, walks = list(task.reachable_actions()), 3
    rng = random.Random(problem.stem)
    steps = 0
    for walk in range(walks):
        world.reset(seed=walk)
        state = task.init
        assert world.true_state() == state
        for _ in range(STEPS):
            # the world's own precondition check agrees with PDDL for every action
            for action in all_actions:
                assert world.can_execute(action) == action.is_applicable(state), (str(action), sorted(map(str, state)))
            applicable = [a for a in all_actions if a.is_applicable(state)]
            if not applicable:
                break
            action = rng.choice(applicable)
            outcome = world.execute(action)
            state = action.apply(state)
            assert outcome.executed and outcome.failure is None
            assert world.true_state() == state, (str(action), sorted(map(str, world.true_state() ^ state)))
            assert outcome.observation.truth == state
            steps += 1
    assert steps >= walks * 10


def test_inapplicable_action_changes_nothing() -> None:
    task = load_task(shipped_domain("household"), ROOT / "household" / "problems" / "sorting_books_0.pddl")
    world = make_world(task)
    outcome = world.execute(task.action("grasp", ["hardback_1"]))  # not reachable yet
    assert not outcome.executed and world.true_state() == task.init
