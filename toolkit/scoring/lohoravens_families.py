"""LoHoRavens task families of the official registry as seeded symbolic instances (the bowl, tower and pyramid
families; the zone families are in :mod:`toolkit.scoring.lohoravens_zones`, the stacking ones in
:mod:`toolkit.scoring.lohoravens_stacking`).

Each builder reads one ``reset()`` of the official task registry
(Shengqiang-Zhang/LoHo-Ravens ``cliport/tasks/__init__.py`` ``names``); see
:mod:`toolkit.scoring.lohoravens_instance` for what an instance keeps.
"""

from __future__ import annotations

import random
from typing import Callable

from toolkit.errors import PgtError, closest
from toolkit.scoring.lohoravens import GoalStep, box_points
from toolkit.scoring.lohoravens_instance import SMALL, Instance
from toolkit.scoring.lohoravens_instance import colors as _colors
from toolkit.scoring.lohoravens_instance import eye as _eye
from toolkit.scoring.lohoravens_stacking import STACK_FAMILIES
from toolkit.scoring.lohoravens_zones import ZONE_FAMILIES

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
                    tuple((b, "table") for b in blocks), (step,), n_blocks + 2,  # "Only one mistake allowed."
                    instruction="put the blocks in the bowls with matching colors.")


def matching_bowl_with_details(rng: random.Random, mode: str, seed: int) -> Instance:
    """put-blocks-into-matching-bowls-with-details (PutBlockIntoMatchingBowlWithDetails.reset): the matching-bowl
    task with ``input_manipulate_order`` and step-by-step instructions in its language goal, one per *bowl*
    colour, so where there are fewer blocks than bowls it also names blocks that are not there (kept)."""
    inst = matching_bowl(rng, mode, seed)
    colours = [b.removeprefix("bowl-") for b in inst.places if b.startswith("bowl-")]
    steps = " ".join(f"Pick up the {c} block and place it on the {c} bowl." for c in colours)
    text = ("The goal is that Put the blocks in the bowls with matching colors. "
            f"The step-by-step instructions are: {steps}")
    return Instance("put-blocks-into-matching-bowls-with-details", seed, inst.blocks, inst.places, inst.on,
                    inst.steps, inst.max_steps, instruction=text)


def mismatching_bowl(rng: random.Random, mode: str, seed: int) -> Instance:
    """put-block-into-mismatching-bowl (PutBlockInMismatchingBowl.reset): 5-7 bowls, 5..n_bowls blocks coloured
    as the first bowls; one pose step, weight 1, ``1 - np.eye``: block i may go to any bowl but bowl i (two
    blocks in one bowl both count). The matrix is n_blocks square while there are n_bowls bowls: the bowls past
    the n-th block's colour are allowed to no block."""
    n_bowls = rng.randint(5, 7)
    n_blocks = rng.randint(5, n_bowls)
    colors = _colors(rng, mode, n_bowls)
    blocks, bowls = [f"{c}-block" for c in colors[:n_blocks]], [f"bowl-{c}" for c in colors]
    step = GoalStep(tuple(blocks), tuple(tuple(i != j for j in range(n_blocks)) for i in range(n_blocks)),
                    tuple(bowls[:n_blocks]), "pose", 1.0)
    return Instance("put-block-into-mismatching-bowl", seed, tuple(blocks), (*bowls, "table"),
                    tuple((b, "table") for b in blocks), (step,), n_blocks + 2,
                    instruction="put the blocks in the bowls with mismatched colors.")


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
    layers_word = {2: "two-layer", 3: "three-layer"}[layers]
    text = (f"put the {colors[0]} block under the {colors[1]} block into the bowl with matching color."
            if only_first else
            f"put all the hidden blocks in the {layers_word} stacked towers into the bowls with matching colors.")
    return Instance(family, seed, tuple(blocks), (*bowls, *targets, "table"), tuple(on), (first, second), budget,
                    instruction=text)


def hidden_block(rng: random.Random, mode: str, seed: int) -> Instance:
    """put-hidden-block-into-matching-bowl (PutHiddenBlockIntoMatchingBowl.reset): 4-7 blocks, block 1 (6 cm)
    on block 0; steps: block 1 to a target pose (0.001), block 0 to the bowl of its colour (0.999)."""
    n = rng.randint(4, 7)
    inst = _towers(rng, mode, seed, "put-hidden-block-into-matching-bowl", 2, n, (0.001, 0.999), False, True)
    on = tuple((b, "table") if i > 1 else pair for i, (pair, b) in enumerate(zip(inst.on, inst.blocks)))
    return Instance(inst.family, seed, inst.blocks, inst.places, on, inst.steps, inst.max_steps,
                    instruction=inst.instruction)


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


def hidden_pyramid(rng: random.Random, mode: str, seed: int) -> Instance:
    """put-hidden-blocks-in-pyramid-into-matching-bowls (PutHiddenBlocksInPyramidIntoMatchingBowls.reset): 3-5
    bowls coloured as the first blocks, 6-7 blocks of one size (4 or 6 cm) of distinct colours, the first six
    in a pyramid: blocks 0-2 in a row, 3 on 0 and 1, 4 on 1 and 2, 5 on 3 and 4 (the seventh stands apart and
    no step lists it: left out); step 1 (0.02): the upper blocks, **in reverse** (``blocks[3:6][::-1]``), to
    three target poses (np.eye); step 2 (0.98): blocks 0-2 to the bowls of their colours (np.eye);
    ``max_steps = 3 + 3 + 2``. A block on two blocks rests ``on`` the first and ``leans`` on the second."""
    n_bowls = rng.randint(3, 5)
    n_blocks = rng.randint(6, 7)
    colors = _colors(rng, mode, n_blocks)
    big = rng.choice((True, False))
    blocks = tuple(f"{'big-' if big else ''}{c}-block" for c in colors[:6])
    bowls = tuple(f"bowl-{c}" for c in colors[:n_bowls])
    targets = ("target-1", "target-2", "target-3")
    on = tuple((b, "table") for b in blocks[:3]) + ((blocks[3], blocks[0]), (blocks[4], blocks[1]),
                                                   (blocks[5], blocks[3]))
    leans = ((blocks[3], blocks[1]), (blocks[4], blocks[2]), (blocks[5], blocks[4]))
    steps = (GoalStep(blocks[3:6][::-1], _eye(3), targets, "pose", 0.02),
             GoalStep(blocks[:3], _eye(3), bowls[:3], "pose", 0.98))
    return Instance("put-hidden-blocks-in-pyramid-into-matching-bowls", seed, blocks, (*bowls, *targets, "table"),
                    on, steps, 3 + 3 + 2, leans=leans,
                    instruction="put all the hidden blocks on the first layer of the pyramid into the bowls with "
                                "matching colors.")


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
                    12, instruction="make the bottom row with the green, blue and purple blocks")


def corner(rng: random.Random, mode: str, seed: int) -> Instance:
    """put-all-block-on-corner (PutAllBlockOnCorner.reset): 1-4 blocks; one zone step, weight 1, the share of
    the blocks' points in the zone."""
    colors = _colors(rng, mode, rng.randint(1, 4))
    blocks = tuple(f"{c}-block" for c in colors)
    step = GoalStep(blocks, tuple((True,) for _ in blocks), ("zone",), "zone", 1.0,
                    tuple(box_points(SMALL) for _ in blocks))
    return Instance("put-all-block-on-corner", seed, blocks, ("zone", "table"), tuple((b, "table") for b in blocks),
                    (step,), len(blocks) + 1, instruction="put all the blocks on the zone")


FAMILIES: dict[str, Callable[[random.Random, str, int], Instance]] = {
    "put-block-into-matching-bowl": matching_bowl,
    "put-hidden-block-into-matching-bowl": hidden_block,
    "put-hidden-blocks-in-two-layer-towers-into-matching-bowls": two_layer,
    "put-hidden-blocks-in-three-layer-towers-into-matching-bowls": three_layer,
    "stack-block-pyramid": pyramid,
    "put-all-block-on-corner": corner,
    "put-block-into-mismatching-bowl": mismatching_bowl,
    "put-blocks-into-matching-bowls-with-details": matching_bowl_with_details,
    "put-hidden-blocks-in-pyramid-into-matching-bowls": hidden_pyramid,
    **ZONE_FAMILIES,
    **STACK_FAMILIES,
}


def make_instance(family: str, seed: int, mode: str = "test") -> Instance:
    """A seeded instance of ``family`` (``mode`` 'train' draws TRAIN_COLORS, else EVAL_COLORS)."""
    if family not in FAMILIES:
        hint = closest(family, FAMILIES)
        raise PgtError(f"unknown LoHoRavens task family '{family}'" + (
            f"; did you mean {hint[0]}?" if hint else f"; the families: {', '.join(sorted(FAMILIES))}"))
    return FAMILIES[family](random.Random(f"{family}/{seed}/{mode}"), mode, seed)
