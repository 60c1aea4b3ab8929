"""LoHoRavens' zone families as seeded symbolic instances: moving blocks between the table's quarters, the
blocks of a colour that occurs an even number of times into the zone of that colour, all blocks onto a zone.

Each builder reads one ``reset()`` of the official registry (Shengqiang-Zhang/LoHo-Ravens,
``cliport/tasks/move_blocks.py``, ``arithmetic_reasoning.py`` and ``stack_blocks.py``). They score with the
``zone`` metric: the share of the listed blocks' points inside the zone
(:func:`toolkit.scoring.lohoravens.step_reward`), so a 6 cm block weighs 27 points
against a 4 cm block's 8.

Geometry becomes names: a quarter of the table is ``top-left-area`` etc.; the target
quarter's zone is ``<quarter>-zone``; a coloured zone is ``zone-<colour>``. What the names
cannot say: ``MoveBlocks.get_target_poses_and_area_info`` makes the target zone 1.2 times
the quarter, so a block near the border of a neighbouring quarter can start with a few
points inside it; pgt starts every block wholly in its source quarter
(``benchmarks/bench_lohoravens_official.py`` measures the difference on official
instances, where it reads each block's start points).
"""

from __future__ import annotations

import random
from typing import Callable

from toolkit.scoring.lohoravens import GoalStep, box_points
from toolkit.scoring.lohoravens_instance import BIG, SMALL, TRAIN_COLORS, Instance, colors

AREAS = ("top left area", "top right area", "bottom left area", "bottom right area")  # MoveBlocks.areas
# cliport/tasks/color_reasoning.py, COLOR_CATEGORY_NAMES
COLOR_CATEGORIES = {"COOL": ("blue", "green", "cyan", "purple", "gray"),
                    "WARM": ("red", "yellow", "orange", "brown", "pink", "gold"),
                    "PRIMARY": ("blue", "red", "yellow"), "SECONDARY": ("orange", "green", "purple")}


def _move(rng: random.Random, seed: int, family: str, by_color: bool, by_size: bool) -> Instance:
    """The four MoveBlocksBetweenAbsolutePositions* resets (easy level, the default ``task_difficulty_level``).

    Source and target quarters: two distinct of :data:`AREAS`. ``n_move = randint(3, 6)`` (3-5), capped by the
    selectable colours: all colours, or the union of 1-4 random categories of :data:`COLOR_CATEGORIES`
    (``...ByColor``); ``...BySize`` draws 'smaller' (4 cm) or 'bigger' (6 cm) blocks. One zone step, weight 1,
    ``np.eye(n_move)``; ``max_steps = n_move + 7``. ``MoveBlocks.__init__`` reads ``get_colors()`` before
    ``mode`` is set, so these families always draw ``TRAIN_COLORS``.
    """
    src, tgt = rng.sample(AREAS, 2)
    big = by_size and rng.choice(("smaller", "bigger")) == "bigger"
    selectable, chosen = list(TRAIN_COLORS), []
    if by_color:
        chosen = rng.sample(sorted(COLOR_CATEGORIES), rng.randint(1, len(COLOR_CATEGORIES)))
        selectable = list(dict.fromkeys(c for cat in chosen for c in COLOR_CATEGORIES[cat]))
    n_move = min(rng.randint(3, 5), len(selectable))
    picked = rng.sample(selectable, n_move)
    blocks = tuple(f"{'big-' if big else ''}{c}-block" for c in picked)
    source, zone = src.replace(" ", "-"), tgt.replace(" ", "-") + "-zone"
    # the official matches are np.eye(n_move) over the target poses; the zone metric reads only the zone
    step = GoalStep(blocks, tuple((True,) for _ in blocks), (zone,), "zone", 1.0,
                    tuple(box_points(BIG if big else SMALL) for _ in blocks))
    # the lang_templates of the four classes
    kind = f"{'bigger' if big else 'smaller'} " if by_size else ""
    of = f" of {' or '.join(c.lower() for c in chosen)} color" if by_color else ""
    text = f"Move all the {kind}blocks{of} on the {src} to the {tgt}."
    return Instance(family, seed, blocks, (source, zone, "table"), tuple((b, source) for b in blocks), (step,),
                    n_move + 7, instruction=text)


def move_blocks(rng: random.Random, mode: str, seed: int) -> Instance:
    """move-blocks-between-absolute-positions (MoveBlocksBetweenAbsolutePositions.reset)."""
    return _move(rng, seed, "move-blocks-between-absolute-positions", False, False)


def move_blocks_by_color(rng: random.Random, mode: str, seed: int) -> Instance:
    """move-blocks-between-absolute-positions-by-color (MoveBlocksBetweenAbsolutePositionsByColor.reset)."""
    return _move(rng, seed, "move-blocks-between-absolute-positions-by-color", True, False)


def move_blocks_by_size(rng: random.Random, mode: str, seed: int) -> Instance:
    """move-blocks-between-absolute-positions-by-size (MoveBlocksBetweenAbsolutePositionsBySize.reset)."""
    return _move(rng, seed, "move-blocks-between-absolute-positions-by-size", False, True)


def move_blocks_by_size_and_color(rng: random.Random, mode: str, seed: int) -> Instance:
    """move-blocks-between-absolute-positions-by-size-and-color (...BySizeAndColor.reset)."""
    return _move(rng, seed, "move-blocks-between-absolute-positions-by-size-and-color", True, True)


def even_blocks(rng: random.Random, mode: str, seed: int) -> Instance:
    """put-even-blocks-in-same-color-zone (arithmetic_reasoning.py, PutEvenBlockInSameColorZone.reset).

    ``n_colors`` 2-3 colours, ``n_blocks`` from ``randint(n_colors + 1, min(4 n_colors, 10))`` redrawn while
    every colour would occur an odd number of times; block i has colour ``i % n_colors``; a 15 cm zone per
    colour. The goal steps (one per colour that occurs an even number of times, each weighted 1 / their count,
    or 1 when one) list that colour's blocks against its zone, in the official branches: when ``n_blocks %
    n_colors == 2`` with an even quotient, the step's reward reads zone 0 while its target (where the oracle
    puts the blocks) is the last colour's zone, so that step never completes (the official code's own slip,
    kept as the reward computes it).
    """
    n_colors = rng.randint(2, 3)
    draw = lambda: rng.randrange(n_colors + 1, min(4 * n_colors, 10))  # noqa: E731  (np.random.randint: high excluded)
    n_blocks = draw()
    while n_blocks % n_colors == 0 and (n_blocks // n_colors) % 2 == 1:
        n_blocks = draw()
    names = colors(rng, mode, n_colors)
    blocks = tuple(f"{names[i % n_colors]}-block-{i // n_colors + 1}" for i in range(n_blocks))
    zones = tuple(f"zone-{c}" for c in names)
    q, r = divmod(n_blocks, n_colors)
    pts = box_points(SMALL)

    def step(colour: int, weight: float, zone: int | None = None) -> GoalStep:
        objs = blocks[colour::n_colors]
        return GoalStep(objs, tuple((True,) for _ in objs), (zones[colour if zone is None else zone],), "zone",
                        weight, tuple(pts for _ in objs))

    oracle: tuple[tuple[str, str], ...] = ()
    if r == 0:  # q even (the redraw excludes q odd)
        steps = tuple(step(i, 1 / n_colors) for i in range(n_colors))
    elif r == 1:
        steps = (step(0, 1),) if q % 2 == 1 else tuple(step(i, 1 / (n_colors - 1)) for i in range(1, n_colors))
    elif q % 2 == 1:  # r == 2
        steps = tuple(step(i, 1 / (n_colors - 1)) for i in range(n_colors - 1))
    else:
        steps = (step(n_colors - 1, 1, zone=0),)
        oracle = tuple((b, zones[n_colors - 1]) for b in steps[0].objects)
    return Instance("put-even-blocks-in-same-color-zone", seed, blocks, (*zones, "table"),
                    tuple((b, "table") for b in blocks), steps, n_blocks + 2, oracle,
                    "Put the blocks of an even number in the zone with the matching color.")


def stack_on_zone(rng: random.Random, mode: str, seed: int) -> Instance:
    """stack-all-blocks-on-a-zone (stack_blocks.py, StackAllBlocksOnAZone.reset): 3-5 blocks of distinct colours
    and a 10 cm zone of any colour (both from ``TRAIN_COLORS``: ``StackBlocks.__init__`` reads ``get_colors()``
    before ``mode`` is set); one ``zone_with_z_match`` step over the stack's levels (np.ones), weight 1;
    ``input_manipulate_order``; ``max_steps = n_blocks + 2``. Symbolically the step is the zone share (see
    :mod:`toolkit.scoring.lohoravens`): the reward asks the blocks into the zone, stacking is how 3-5 blocks
    fit a 10 cm zone."""
    n = rng.randint(3, 5)
    blocks = tuple(f"{c}-block" for c in rng.sample(TRAIN_COLORS, n))
    zone = f"zone-{rng.choice(TRAIN_COLORS)}"
    step = GoalStep(blocks, tuple((True,) for _ in blocks), (zone,), "zone_with_z_match", 1.0,
                    tuple(box_points(SMALL) for _ in blocks))
    return Instance("stack-all-blocks-on-a-zone", seed, blocks, (zone, "table"), tuple((b, "table") for b in blocks),
                    (step,), n + 2, instruction=f"Stack all the blocks on the {zone.removeprefix('zone-')} zone.")


def stack_on_zone_with_details(rng: random.Random, mode: str, seed: int) -> Instance:
    """stack-all-blocks-on-a-zone-with-details (StackAllBlocksOnAZoneWithDetails.reset): the same instance and
    goal step, with the step-by-step instructions the class writes: the first block on the zone, each next one
    on the one before. The official reset never gets there: its parent's reset formats the subclass's template
    without ``step_instructions`` and raises ``KeyError`` (measured on the official environment), so no official
    instance exists; pgt's is the one the class describes, told to the planner as its language goal."""
    inst = stack_on_zone(rng, mode, seed)
    zone = inst.steps[0].targets[0].removeprefix("zone-")
    colours = [b.removesuffix("-block") for b in inst.blocks]
    steps = [f"Pick up the {colours[0]} block and place it on the {zone} zone."]
    steps += [f"Pick up the {colours[i]} block and place it on the {colours[i - 1]} block."
              for i in range(1, len(colours))]
    text = (f"The goal is that stack all the blocks on the {zone} zone. "
            f"The step-by-step instructions are: {' '.join(steps)}")
    return Instance("stack-all-blocks-on-a-zone-with-details", seed, inst.blocks, inst.places, inst.on, inst.steps,
                    inst.max_steps, instruction=text)


ZONE_FAMILIES: dict[str, Callable[[random.Random, str, int], Instance]] = {
    "move-blocks-between-absolute-positions": move_blocks,
    "move-blocks-between-absolute-positions-by-color": move_blocks_by_color,
    "move-blocks-between-absolute-positions-by-size": move_blocks_by_size,
    "move-blocks-between-absolute-positions-by-size-and-color": move_blocks_by_size_and_color,
    "put-even-blocks-in-same-color-zone": even_blocks,
    "stack-all-blocks-on-a-zone": stack_on_zone,
    "stack-all-blocks-on-a-zone-with-details": stack_on_zone_with_details,
}
