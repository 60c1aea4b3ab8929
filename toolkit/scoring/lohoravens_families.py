"""LoHoRavens task families as symbolic instances: objects, start, goal steps (order, weights, matches).

Each builder reads one ``reset()`` of the official task registry
(Shengqiang-Zhang/LoHo-Ravens ``cliport/tasks/__init__.py`` ``names``) and keeps
what the reward depends on: which objects each goal step lists, the
``matches`` matrix, the target each may take, the metric and ``max_reward``.
Geometry becomes names: a bowl is ``bowl-<colour>``, a random target pose is
``target-<k>``, a zone is ``zone``; blocks are ``<colour>-block`` (``big-`` for
the 6 cm ones). Counts are drawn in the official ranges from pgt's own seeded
RNG; colours from the official ``TRAIN_COLORS`` / ``EVAL_COLORS``
(``cliport/utils/utils.py``). Distractor blocks, which no goal step lists and
so never change a reward, are left out.

The oracle's order (``Task.oracle``): the hidden-block tasks set
``input_manipulate_order`` (objects in the step's order); the others pick the
object farthest from its target first, which has no symbolic counterpart:
here they also go in the step's order.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable

from toolkit.errors import PgtError, closest
from toolkit.scoring.lohoravens import GoalStep, Placement, box_points

TRAIN_COLORS = ("blue", "red", "green", "yellow", "brown", "gray", "cyan")
EVAL_COLORS = ("blue", "red", "green", "orange", "purple", "pink", "white")
SMALL, BIG = (0.04, 0.04, 0.04), (0.06, 0.06, 0.06)  # PutBlockIntoBowl.smaller/bigger_block_size


@dataclass(frozen=True)
class Instance:
    family: str
    seed: int
    blocks: tuple[str, ...]
    places: tuple[str, ...]  # bowls, target slots, zones and 'table'
    on: tuple[tuple[str, str], ...]  # (block, what it rests on: a place or a block), at the start
    steps: tuple[GoalStep, ...]
    max_steps: int = 20  # the task's max_steps: the Planner-Actor-Reporter loop's budget (Task.__init__: 20)

    def start(self) -> Placement:
        """The start as the reward sees it: a block in a tower is on the table spot of its tower."""
        return Placement({b: s for b, s in self.on if s in self.places})

    def oracle(self) -> list[tuple[str, str]]:
        """The oracle's pick-and-place sequence: each step's objects, in order, to their first allowed target."""
        moves = []
        for step in self.steps:
            for i, obj in enumerate(step.objects):
                j = next(j for j, ok in enumerate(step.matches[i]) if ok)
                moves.append((obj, step.targets[j]))
        return moves


def _eye(n: int) -> tuple[tuple[bool, ...], ...]:
    return tuple(tuple(i == j for j in range(n)) for i in range(n))


def _colors(rng: random.Random, mode: str, n: int) -> list[str]:
    return rng.sample(TRAIN_COLORS if mode == "train" else EVAL_COLORS, n)


def matching_bowl(rng: random.Random, mode: str, seed: int) -> Instance:
    """put-block-into-matching-bowl (put_block_in_bowl.py, PutBlockInMatchingBowl.reset): 5-7 bowls,
    5..n_bowls blocks; one pose step, block i to bowl i (np.eye), weight 1."""
    n_bowls = rng.randint(5, 7)
    n_blocks = rng.randint(5, n_bowls)
    colors = _colors(rng, mode, n_bowls)
    blocks, bowls = [f"{c}-block" for c in colors[:n_blocks]], [f"bowl-{c}" for c in colors]
    step = GoalStep(tuple(blocks), tuple(tuple(i == j for j in range(n_bowls)) for i in range(n_blocks)),
                    tuple(bowls), "pose", 1.0)
    return Instance("put-block-into-matching-bowl", seed, tuple(blocks), (*bowls, "table"),
                    tuple((b, "table") for b in blocks), (step,), n_blocks + 2)  # "Only one mistake allowed."


def _towers(rng: random.Random, mode: str, seed: int, family: str, layers: int, n_blocks: int,
            weights: tuple[float, float], reverse_tops: bool, only_first: bool) -> Instance:
    colors = _colors(rng, mode, n_blocks)
    blocks = [f"{'big-' if i % layers else ''}{c}-block" for i, c in enumerate(colors)]
    on = []
    for i, b in enumerate(blocks):
        on.append((b, "table") if i % layers == 0 else (b, blocks[i - 1]))
    n_towers = 1 if only_first else n_blocks // layers
    tops = [blocks[t * layers + j] for t in range(n_towers) for j in range(1, layers)]
    hidden = [blocks[t * layers] for t in range(n_towers)]
    bowls = [f"bowl-{c}" for c in colors]
    targets = [f"target-{k + 1}" for k in range(len(tops))]
    first = GoalStep(tuple(tops[::-1] if reverse_tops else tops), _eye(len(tops)), tuple(targets), "pose", weights[0])
    second = GoalStep(tuple(hidden), _eye(len(hidden)), tuple(f"bowl-{colors[t * layers]}" for t in range(n_towers)),
                      "pose", weights[1])
    # max_steps = len(selected_blocks) + 2 in each of these reset()s
    budget = (2 if only_first else n_blocks) + 2
    return Instance(family, seed, tuple(blocks), (*bowls, *targets, "table"), tuple(on), (first, second), budget)


def hidden_block(rng: random.Random, mode: str, seed: int) -> Instance:
    """put-hidden-block-into-matching-bowl (PutHiddenBlockIntoMatchingBowl.reset): 4-7 blocks, block 1 (6 cm)
    on block 0; steps: block 1 to a target pose (0.001), block 0 to the bowl of its colour (0.999)."""
    n = rng.randint(4, 7)
    inst = _towers(rng, mode, seed, "put-hidden-block-into-matching-bowl", 2, n, (0.001, 0.999), False, True)
    on = tuple((b, "table") if i > 1 else pair for i, (pair, b) in enumerate(zip(inst.on, inst.blocks)))
    return Instance(inst.family, seed, inst.blocks, inst.places, on, inst.steps, inst.max_steps)


def two_layer(rng: random.Random, mode: str, seed: int) -> Instance:
    """put-hidden-blocks-in-two-layer-towers-into-matching-bowls (PutHiddenBlocksInTwoLayerTowersIntoMatchingBowls
    .reset): 4-7 blocks, odd ones (6 cm) on the even ones; tops to target poses (0.02), then the hidden blocks to
    the bowls of their colours (0.98)."""
    return _towers(rng, mode, seed, "put-hidden-blocks-in-two-layer-towers-into-matching-bowls", 2,
                   rng.randint(4, 7), (0.02, 0.98), False, False)


def three_layer(rng: random.Random, mode: str, seed: int) -> Instance:
    """put-hidden-blocks-in-three-layer-towers-into-matching-bowls (...ThreeLayerTowers...reset): 6-7 blocks in
    towers of three; the tops, **in reverse order** (top_blocks[::-1] against targets in order), to target poses
    (0.02), then the hidden blocks to their bowls (0.98)."""
    return _towers(rng, mode, seed, "put-hidden-blocks-in-three-layer-towers-into-matching-bowls", 3,
                   rng.randint(6, 7), (0.02, 0.98), True, False)


def pyramid(rng: random.Random, mode: str, seed: int) -> Instance:
    """stack-block-pyramid (stack_block_pyramid.py, StackBlockPyramid.reset): six blocks in fixed colours; the
    bottom row (any of 3 slots each, np.ones) 1/2, the middle row 1/3, the top 1/6."""
    colors = ("purple", "blue", "green", "yellow", "orange", "red")
    blocks = tuple(f"{c}-block" for c in colors)
    slots = tuple(f"pyramid-{k + 1}" for k in range(6))
    ones = lambda n: tuple(tuple(True for _ in range(n)) for _ in range(n))  # noqa: E731
    steps = (GoalStep(blocks[:3], ones(3), slots[:3], "pose", 1 / 2),
             GoalStep(blocks[3:5], ones(2), slots[3:5], "pose", 1 / 3),
             GoalStep(blocks[5:], ones(1), slots[5:], "pose", 1 / 6))
    return Instance("stack-block-pyramid", seed, blocks, (*slots, "table"), tuple((b, "table") for b in blocks), steps,
                    12)


def corner(rng: random.Random, mode: str, seed: int) -> Instance:
    """put-all-block-on-corner (PutAllBlockOnCorner.reset): 1-4 blocks; one zone step, weight 1, the share of
    the blocks' points in the zone."""
    colors = _colors(rng, mode, rng.randint(1, 4))
    blocks = tuple(f"{c}-block" for c in colors)
    step = GoalStep(blocks, tuple((True,) for _ in blocks), ("zone",), "zone", 1.0,
                    tuple(box_points(SMALL) for _ in blocks))
    return Instance("put-all-block-on-corner", seed, blocks, ("zone", "table"), tuple((b, "table") for b in blocks),
                    (step,), len(blocks) + 1)


FAMILIES: dict[str, Callable[[random.Random, str, int], Instance]] = {
    "put-block-into-matching-bowl": matching_bowl,
    "put-hidden-block-into-matching-bowl": hidden_block,
    "put-hidden-blocks-in-two-layer-towers-into-matching-bowls": two_layer,
    "put-hidden-blocks-in-three-layer-towers-into-matching-bowls": three_layer,
    "stack-block-pyramid": pyramid,
    "put-all-block-on-corner": corner,
}


def make_instance(family: str, seed: int, mode: str = "test") -> Instance:
    """A seeded instance of ``family`` (``mode`` 'train' draws TRAIN_COLORS, else EVAL_COLORS)."""
    if family not in FAMILIES:
        hint = closest(family, FAMILIES)
        raise PgtError(f"unknown LoHoRavens task family '{family}'" + (f"; did you mean {hint[0]}?" if hint else ""))
    return FAMILIES[family](random.Random(f"{family}/{seed}/{mode}"), mode, seed)
