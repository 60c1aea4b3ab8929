"""Failure model: observed rates match the configured probability (binomial bounds)."""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest

from scene_graphs import make_world
from toolkit.domains import shipped_domain, shipped_problem
from toolkit.task import load_task


def within(count: int, n: int, p: float, z: float = 4.5) -> bool:
    """``count`` out of ``n`` is within z standard deviations of ``n * p``."""
    return abs(count - n * p) <= z * math.sqrt(n * p * (1 - p)) + 1


def run_walk(domain: str, problem: str, p: float, seed: int, steps: int) -> Counter:
    task = load_task(shipped_domain(domain), shipped_problem(domain, problem))
    world = make_world(task, failure_prob=p, seed=seed)
    actions, rng, seen = list(task.all_actions()), random.Random(seed), Counter()
    world.reset(seed=seed)
    for _ in range(steps):
        state = world.true_state()
        options = [a for a in actions if a.is_applicable(state)]
        out = world.execute(rng.choice(options))
        assert out.executed
        seen["executed"] += 1
        seen[out.failure or "ok"] += 1
        if out.failure in ("dropped_near_target", "dropped_near_start"):
            _, block, target = out.action.strip("()").split()
            now = next(a.args[1] for a in world.true_state() if a.predicate == "inColumn" and a.args[0] == block)
            assert now != target  # dropped in the wrong column
    return seen


@pytest.mark.parametrize("p", [0.1, 0.3])
def test_blocksworld_failure_rates_match(p: float) -> None:
    seen = run_walk("blocksworld", "medium_problem_0", p, seed=7, steps=3000)
    n, failed = seen["executed"], seen["executed"] - seen["ok"]
    assert within(failed, n, p)
    # of the failures: half no effect, a quarter near the target, a quarter near the start
    assert within(seen["no_effect"], failed, 0.5)
    assert within(seen["dropped_near_target"], failed, 0.25)
    assert within(seen["dropped_near_start"], failed, 0.25)


def test_household_failure_rate_and_names() -> None:
    seen = run_walk("household", "packing_food_for_work_0", 0.2, seed=3, steps=3000)
    n, failed = seen["executed"], seen["executed"] - seen["ok"]
    assert within(failed, n, 0.2)
    names = set(seen) - {"executed", "ok"}
    assert names <= {"grasp_failed", "landed_next_to", "landed_on_top", "slipped", "stayed_closed",
                     "stayed_open", "navigation_failed"}
    assert {"grasp_failed", "navigation_failed"} <= names


def test_zero_probability_never_fails_and_seed_is_deterministic() -> None:
    assert run_walk("blocksworld", "hard_problem_0", 0.0, seed=1, steps=300)["ok"] == 300
    assert run_walk("household", "sorting_groceries_0", 0.3, seed=5, steps=400) == \
        run_walk("household", "sorting_groceries_0", 0.3, seed=5, steps=400)


def test_failed_place_on_lands_next_to() -> None:
    task = load_task(shipped_domain("household"), shipped_problem("household", "sorting_books_0"))
    world = make_world(task, failure_prob=1.0, seed=0)
    world.failure_prob = 0.0
    for step in ("(navigate-to hardback_1)", "(grasp hardback_1)", "(navigate-to shelf_1)"):
        world.execute(task.action(step.strip("()").split()[0], step.strip("()").split()[1:]))
    world.failure_prob = 1.0
    out = world.execute(task.action("place-on", ["hardback_1", "shelf_1"]))
    assert out.failure == "landed_next_to"
    assert {str(a) for a in world.true_state()} >= {"(nextto hardback_1 shelf_1)"}
    assert "(ontop hardback_1 shelf_1)" not in {str(a) for a in world.true_state()}
