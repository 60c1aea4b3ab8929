"""LoHoRavens' stacking families (``cliport/tasks/stack_blocks.py``, ``size_reasoning_tasks.py``) as seeded
symbolic instances over stack-level targets (:mod:`toolkit.scoring.lohoravens_stacks`).

Each builder reads one ``reset()`` of the official registry at ``task_difficulty_level = "easy"`` (the
``Task`` default). All score with the ``pose`` metric and ``consider_z_in_match`` (the ``Task`` default,
not changed by these classes), so a target is a :class:`Level` (base, height) and the heights are the
reset's own, slips included (they are kept: the reward is the official one). Where a reset can select no
block at all (a colour category, a size or a position that no block has), pgt draws again: the official
oracle then empties the goals at once and ``cliport/demos.py`` keeps only episodes whose total reward
exceeds 0.99, so such an instance is never an official one. ``StackBlocks.__init__`` reads ``get_colors()``
before ``mode`` is set, so ``self.all_color_names`` / ``self.block_color_names`` are ``TRAIN_COLORS``
whatever the mode; where a reset calls ``self.get_colors()`` itself it gets the mode's colours.
"""

from __future__ import annotations

import random
from typing import Callable

from toolkit.scoring.lohoravens import GoalStep
from toolkit.scoring.lohoravens_instance import EVAL_COLORS, TRAIN_COLORS, Instance
from toolkit.scoring.lohoravens_stacks import BIG_H, SMALL_H, Level, levels, stack_heights
from toolkit.scoring.lohoravens_zones import AREAS, COLOR_CATEGORIES

BOUNDS = ((0.25, 0.75), (-0.5, 0.5))  # Task.__init__: self.bounds (x, y)
VISIBLE_DIFF = 0.05  # Task.__init__: self.VISIBLE_DIFF
CATEGORIES = ("cool", "warm", "primary", "secondary")  # the resets' np.random.choice over color categories


def _mode_colors(mode: str) -> tuple[str, ...]:
    return TRAIN_COLORS if mode == "train" else EVAL_COLORS


def _ones(n: int, m: int | None = None) -> tuple[tuple[bool, ...], ...]:
    return tuple(tuple(True for _ in range(n if m is None else m)) for _ in range(n))


def _names(colors: list[str], big: list[bool]) -> tuple[str, ...]:
    """Block names: ``<colour>-block`` (``big-`` for 6 cm), numbered where a name repeats."""
    base = [f"{'big-' if b else ''}{c}-block" for c, b in zip(colors, big, strict=True)]
    if len(set(base)) == len(base):
        return tuple(base)
    seen: dict[str, int] = {}
    out = []
    for name in base:
        seen[name] = seen.get(name, 0) + 1
        out.append(f"{name}-{seen[name]}")
    return tuple(out)


def _position(rng: random.Random, size: float) -> tuple[float, float]:
    """A block's (x, y) in the workspace (``Task.get_random_pose``: inside the bounds, clear of the edges)."""
    (x0, x1), (y0, y1) = BOUNDS
    return round(rng.uniform(x0 + size, x1 - size), 3), round(rng.uniform(y0 + size, y1 - size), 3)


def _stack(family: str, seed: int, blocks: tuple[str, ...], places: tuple[str, ...], steps: tuple[GoalStep, ...],
           targets: tuple[Level, ...], layers: tuple, text: str, *, max_steps: int | None = None,
           on: tuple[tuple[str, str], ...] | None = None, positions: tuple = ()) -> Instance:
    return Instance(family, seed, blocks, (*places, "table"), on or tuple((b, "table") for b in blocks), steps,
                    len(blocks) + 2 if max_steps is None else max_steps, instruction=text, levels=targets,
                    layers=layers, positions=positions)


def same_color(rng: random.Random, mode: str, seed: int) -> Instance:
    """stack-blocks-of-same-color (StackBlockOfSameColor.reset): 1-3 colours with 2-3 / 4-6 / 6-9 small blocks,
    block i of colour i % n; a 10 cm zone per colour and one distractor zone of another colour (the reset
    raises without one); block i may take any level of its colour's zone (match_matrix[i][j::n] = 1); one
    step, weight 1; ``max_steps = n_blocks + 2``. Distractor blocks are left out (no step lists them)."""
    n_colors = rng.randint(1, 3)
    n_blocks = {1: rng.randint(2, 3), 2: rng.randint(4, 6), 3: rng.randint(6, 9)}[n_colors]
    # n_zones = np.random.randint(n, n + 2); with n_zones == n the reset raises (distractor_color_names stays
    # None and the distractor-block filter tests `c not in None`: TypeError, measured on the official
    # environment), so every official instance has one distractor zone
    n_zones = n_colors + 1
    names = rng.sample(_mode_colors(mode), n_colors)
    blocks = _names([names[i % n_colors] for i in range(n_blocks)], [False] * n_blocks)
    zones = [f"zone-{c}" for c in names]
    others = [c for c in _mode_colors(mode) if c not in names]
    distractors = list(dict.fromkeys(f"zone-{rng.choice(others)}" for _ in range(n_zones - n_colors)))
    # goal_poses[i]: zone i % n at height 0.02 + 0.04 * (i // n)
    per_zone = [stack_heights(len(range(c, n_blocks, n_colors)), SMALL_H) for c in range(n_colors)]
    targets = tuple(t for c in range(n_colors) for t in levels(zones[c], per_zone[c]))
    order = [f"{zones[i % n_colors]}/level-{i // n_colors + 1}" for i in range(n_blocks)]
    matches = tuple(tuple((i % n_colors) == (j % n_colors) for j in range(n_blocks)) for i in range(n_blocks))
    step = GoalStep(blocks, matches, tuple(order), "pose", 1.0)
    layers = tuple((zones[c], (blocks[c::n_colors],)) for c in range(n_colors))
    return _stack("stack-blocks-of-same-color", seed, blocks, (*zones, *distractors), (step,), targets, layers,
                  "stack all the blocks of the same color together on the same colored zone.")


def alternate(rng: random.Random, mode: str, seed: int) -> Instance:
    """stack-blocks-with-alternate-color (StackBlocksWithAlternateColor.reset): five small blocks of two
    colours (block i of colour i % 2) and a zone of any colour; block i may take the levels of its parity
    (match_matrix[i][0::2] or [1::2]); one step, weight 1; ``max_steps = 7``."""
    names = rng.sample(_mode_colors(mode), 2)
    zone = f"zone-{rng.choice(_mode_colors(mode))}"
    blocks = _names([names[i % 2] for i in range(5)], [False] * 5)
    targets = levels(zone, stack_heights(5, SMALL_H))
    matches = tuple(tuple(j % 2 == i % 2 for j in range(5)) for i in range(5))
    step = GoalStep(blocks, matches, tuple(t.name for t in targets), "pose", 1.0)
    # the PDDL goal: the colours alternate from the first colour up (each block on one of the other colour)
    layers = ((zone, tuple((b,) for b in (blocks[0], blocks[1], blocks[2], blocks[3], blocks[4]))),)
    return _stack("stack-blocks-with-alternate-color", seed, blocks, (zone,), (step,), targets, layers,
                  f"stack blocks with alternate colors on the {zone.removeprefix('zone-')} zone, "
                  f"starting with the {names[0]} color.")


def _one_zone(family: str, seed: int, zone: str, blocks: tuple[str, ...], chosen: tuple[str, ...], size: float,
              text: str, positions: tuple = ()) -> Instance:
    """One step (weight 1, np.ones) stacking ``chosen`` on ``zone`` at heights of blocks of ``size``."""
    targets = levels(zone, stack_heights(len(chosen), size))
    step = GoalStep(chosen, _ones(len(chosen)), tuple(t.name for t in targets), "pose", 1.0)
    return _stack(family, seed, blocks, (zone,), (step,), targets, ((zone, (chosen,)),), text,
                  positions=positions)


def by_color(rng: random.Random, mode: str, seed: int) -> Instance:
    """stack-blocks-by-color (StackBlocksByColor.reset): 4-7 small blocks of distinct colours, a zone of any
    colour; the blocks of a colour category (cool, warm, primary, secondary) stacked on it, any order."""
    while True:
        n = rng.randint(4, 7)
        colours = rng.sample(TRAIN_COLORS, n)
        category = rng.choice(CATEGORIES)
        zone = f"zone-{rng.choice(TRAIN_COLORS)}"
        blocks = _names(colours, [False] * n)
        chosen = tuple(b for b, c in zip(blocks, colours, strict=True) if c in COLOR_CATEGORIES[category.upper()])
        if chosen:
            return _one_zone("stack-blocks-by-color", seed, zone, blocks, chosen, SMALL_H,
                             f"stack only the blocks of {category} colors on the {zone.removeprefix('zone-')} zone.")


def by_color_and_size(rng: random.Random, mode: str, seed: int) -> Instance:
    """stack-blocks-by-color-and-size (StackBlocksByColorAndSize.reset): 4-7 blocks, colours drawn *with
    replacement* from the mode's colours, the first ``randint(0, n)`` of them 6 cm; the blocks of the chosen
    size and colour category stacked on the zone at that size's heights."""
    while True:
        n = rng.randint(4, 7)
        size = rng.choice(("bigger", "smaller"))
        category = rng.choice(CATEGORIES)
        colours = [rng.choice(_mode_colors(mode)) for _ in range(n)]
        zone = f"zone-{rng.choice(_mode_colors(mode))}"
        n_big = rng.randint(0, n)
        blocks = _names(colours, [i < n_big for i in range(n)])
        chosen = tuple(b for i, (b, c) in enumerate(zip(blocks, colours, strict=True))
                       if c in COLOR_CATEGORIES[category.upper()] and (i < n_big) == (size == "bigger"))
        if chosen:
            return _one_zone("stack-blocks-by-color-and-size", seed, zone, blocks, chosen,
                             BIG_H if size == "bigger" else SMALL_H,
                             f"stack only the {size} blocks of {category} color on the "
                             f"{zone.removeprefix('zone-')} zone.")


def by_color_in_size_order(rng: random.Random, mode: str, seed: int) -> Instance:
    """stack-blocks-by-color-in-size-order (StackBlocksByColorInSizeOrder.reset): 4-7 blocks of distinct
    colours, the first ``randint(0, n)`` 6 cm; the category's big blocks at big heights (step 1, np.ones,
    weight 1), then its small blocks at small heights on top of them (step 2, np.ones, weight 1). Step 1 alone
    brings the score to 1 ≥ 0.98, so ``done()`` holds before a small block moves (kept). Drawn again when
    either step would list no block (the official step with no object can never complete)."""
    while True:
        n = rng.randint(4, 7)
        colours = rng.sample(TRAIN_COLORS, n)
        category = rng.choice(CATEGORIES)
        zone = f"zone-{rng.choice(TRAIN_COLORS)}"
        n_big = rng.randint(0, n)
        blocks = _names(colours, [i < n_big for i in range(n)])
        chosen = [i for i, c in enumerate(colours) if c in COLOR_CATEGORIES[category.upper()]]
        bigs = tuple(blocks[i] for i in chosen if i < n_big)
        smalls = tuple(blocks[i] for i in chosen if i >= n_big)
        if bigs and smalls:
            break
    big_t = levels(zone, stack_heights(len(bigs), BIG_H))
    small_t = levels(zone, stack_heights(len(smalls), SMALL_H, BIG_H * len(bigs)), first=len(bigs) + 1)
    steps = (GoalStep(bigs, _ones(len(bigs)), tuple(t.name for t in big_t), "pose", 1.0),
             GoalStep(smalls, _ones(len(smalls)), tuple(t.name for t in small_t), "pose", 1.0))
    return _stack("stack-blocks-by-color-in-size-order", seed, blocks, (zone,), steps, big_t + small_t,
                  ((zone, (bigs, smalls)),),
                  f"stack only the blocks of {category} colors in ascending order from big to small on the "
                  f"{zone.removeprefix('zone-')} zone.")


def same_size(rng: random.Random, mode: str, seed: int) -> Instance:
    """stack-blocks-of-same-size (StackBlocksOfSameSize.reset): 1-4 big and 1-4 small blocks (colours sampled
    apart for each size, so a colour may be both), two zones coloured as the first big and the first small
    block; step 1 (weight 1): the big blocks at the first zone's big heights and the small ones at the
    second's small heights (block-diagonal ones); step 2 (weight 1): the big blocks again. Step 1 brings the
    score to 1, so ``done()`` holds then (kept). ``max_steps = n_big + n_small + 2``."""
    n_big, n_small = rng.randint(1, 4), rng.randint(1, 4)
    big_c, small_c = rng.sample(_mode_colors(mode), n_big), rng.sample(_mode_colors(mode), n_small)
    bigs, smalls = _names(big_c, [True] * n_big), _names(small_c, [False] * n_small)
    first = f"zone-{big_c[0]}"
    second = f"zone-{small_c[0]}" if small_c[0] != big_c[0] else f"zone-{small_c[0]}-2"
    big_t, small_t = levels(first, stack_heights(n_big, BIG_H)), levels(second, stack_heights(n_small, SMALL_H))
    n = n_big + n_small
    diag = tuple(tuple((i < n_big) == (j < n_big) for j in range(n)) for i in range(n))
    names = tuple(t.name for t in (*big_t, *small_t))
    steps = (GoalStep(bigs + smalls, diag, names, "pose", 1.0),
             GoalStep(bigs, _ones(n_big), names[:n_big], "pose", 1.0))
    return _stack("stack-blocks-of-same-size", seed, bigs + smalls, (first, second), steps, big_t + small_t,
                  ((first, (bigs,)), (second, (smalls,))),
                  f"Stack blocks of the same size on the {big_c[0]} zone and {small_c[0]} zone respectively.")


def _relative(rng: random.Random, mode: str, seed: int, sized: bool) -> Instance:
    family = "stack-blocks-by-relative-position-and-color" + ("-and-size" if sized else "")
    while True:
        n = rng.randint(4, 7)
        colours = rng.sample(TRAIN_COLORS, n)
        where = rng.choice(("left", "right", "top", "bottom"))
        size = rng.choice(("smaller", "bigger")) if sized else "smaller"
        zone = f"zone-{rng.choice(TRAIN_COLORS)}"
        n_big = rng.randint(0, n) if sized else 0
        blocks = _names(colours, [i < n_big for i in range(n)])
        xy = [_position(rng, BIG_H if i < n_big else SMALL_H) for i in range(n)]
        (x0, y0), d = xy[0], (0.0 if sized else VISIBLE_DIFF)
        # StackBlocksByRelativePositionAndColor: y + 0.05 < y0 is left, x + 0.05 < x0 is top;
        # ...AndColorAndSize: y < y0 left, x > x0 top, x < x0 bottom (its own reading of top and bottom)
        side = {"left": lambda x, y: y + d < y0, "right": lambda x, y: y - d > y0,
                "top": (lambda x, y: x > x0) if sized else (lambda x, y: x + d < x0),
                "bottom": (lambda x, y: x < x0) if sized else (lambda x, y: x - d > x0)}[where]
        chosen = tuple(b for i, (b, (x, y)) in enumerate(zip(blocks, xy, strict=True))
                       if side(x, y) and (not sized or (i < n_big) == (size == "bigger")))
        if chosen:
            break
    text = (f"stack all the {size} blocks on the {where} of the {colours[0]} block on the "
            f"{zone.removeprefix('zone-')} zone." if sized else
            f"stack all the blocks on the {where} of the {colours[0]} block on the {zone.removeprefix('zone-')} zone.")
    return _one_zone(family, seed, zone, blocks, chosen, BIG_H if size == "bigger" else SMALL_H, text,
                     tuple((b, x, y) for b, (x, y) in zip(blocks, xy, strict=True)))


def by_relative_position(rng: random.Random, mode: str, seed: int) -> Instance:
    """stack-blocks-by-relative-position-and-color (StackBlocksByRelativePositionAndColor.reset): 4-7 small
    blocks at random positions; those more than 5 cm (``VISIBLE_DIFF``) to one side of the first block stacked
    on the zone, any order. The positions are pgt's own draw, kept in the instance."""
    return _relative(rng, mode, seed, False)


def by_relative_position_and_size(rng: random.Random, mode: str, seed: int) -> Instance:
    """stack-blocks-by-relative-position-and-color-and-size (...AndColorAndSize.reset): the first
    ``randint(0, n)`` blocks 6 cm; those of the chosen size strictly to one side of the first block (no 5 cm
    margin; 'top' is larger x, 'bottom' smaller x, the reverse of the previous family) at that size's heights."""
    return _relative(rng, mode, seed, True)


def _absolute(rng: random.Random, mode: str, seed: int, sized: bool) -> Instance:
    family = ("stack-blocks-by-absolute-position-and-color-and-size" if sized
              else "stack-blocks-by-absolute-position-and-color-in-size-order")
    (x0, x1), (y0, y1) = BOUNDS
    cx, cy = x0 + (x1 - x0) / 2, y0 + (y1 - y0) / 2
    box = {"top left area": (x0, cx, y0, cy), "top right area": (x0, cx, cy, y1),
           "bottom left area": (cx, x1, y0, cy), "bottom right area": (cx, x1, cy, y1)}  # Task.area_boundary
    while True:
        n = rng.randint(4, 7)
        colours = rng.sample(TRAIN_COLORS, n)
        area = rng.choice(AREAS)
        size = rng.choice(("smaller", "bigger")) if sized else ""
        zone_colours = rng.sample(TRAIN_COLORS, rng.randint(2, 3))
        n_big = rng.randint(0, n)
        blocks = _names(colours, [i < n_big for i in range(n)])
        xy = [_position(rng, BIG_H if i < n_big else SMALL_H) for i in range(n)]
        ax0, ax1, ay0, ay1 = box[area]
        inside = [i for i, (x, y) in enumerate(xy) if ax0 <= x <= ax1 and ay0 <= y <= ay1]
        if sized:
            inside = [i for i in inside if (i < n_big) == (size == "bigger")]
        if inside:
            break
    zones = tuple(f"zone-{c}" for c in zone_colours)
    positions = tuple((b, x, y) for b, (x, y) in zip(blocks, xy, strict=True))
    if sized:
        chosen = tuple(blocks[i] for i in inside)
        return _one_zone(family, seed, zones[0], blocks, chosen, BIG_H if size == "bigger" else SMALL_H,
                         f"stack all the {size} blocks on the {area} on the {zone_colours[0]} zone.", positions)
    bigs = tuple(blocks[i] for i in inside if i < n_big)
    smalls = tuple(blocks[i] for i in inside if i >= n_big)
    # both sizes' heights start from the zone (the reset does not add the big blocks under the small ones):
    # with both sizes selected the small targets sit inside the big stack (kept; the score stays below 1)
    big_t = levels(zones[0], stack_heights(len(bigs), BIG_H))
    small_t = levels(zones[0], stack_heights(len(smalls), SMALL_H), first=len(bigs) + 1)
    n_sel = len(bigs) + len(smalls)
    diag = tuple(tuple((i < len(bigs)) == (j < len(bigs)) for j in range(n_sel)) for i in range(n_sel))
    step = GoalStep(bigs + smalls, diag, tuple(t.name for t in (*big_t, *small_t)), "pose", 1.0)
    return _stack(family, seed, blocks, zones, (step,), big_t + small_t, ((zones[0], (bigs, smalls)),),
                  f"stack all the blocks on the {area} on the {zone_colours[0]} zone in size order.",
                  positions=positions)


def by_absolute_position_in_size_order(rng: random.Random, mode: str, seed: int) -> Instance:
    """stack-blocks-by-absolute-position-and-color-in-size-order (...InSizeOrder.reset): 4-7 blocks at random
    positions, the first ``randint(0, n)`` 6 cm; 2-3 zones, the first the target; the blocks in the chosen
    quarter (``Task.area_boundary``), big ones to big heights and small ones to small heights, both counted
    from the zone (block-diagonal ones), one step, weight 1."""
    return _absolute(rng, mode, seed, False)


def by_absolute_position_and_size(rng: random.Random, mode: str, seed: int) -> Instance:
    """stack-blocks-by-absolute-position-and-color-and-size (...AndColorAndSize.reset): the blocks of the
    chosen size in the chosen quarter stacked on the first zone at that size's heights (np.ones, weight 1)."""
    return _absolute(rng, mode, seed, True)


def smaller_over_bigger(rng: random.Random, mode: str, seed: int) -> Instance:
    """stack-smaller-over-bigger-with-same-color (size_reasoning_tasks.py, StackSmallerOverBiggerWithSameColor
    .reset): 5-7 colours, a big and a small block of each; the small block of colour i to the pose over where
    the big one of colour i started (np.eye), weight 1, ``max_steps = n + 2``. The target height is
    ``0.06 + 0.04 // 2`` = 6 cm (floor division) where a small block on a big one rests at 8 cm, beyond the
    1.5 cm tolerance: no small block ever matches (kept). Each big block starts on its own spot
    (``<colour>-spot``), the base of its target."""
    n = rng.randint(5, 7)
    colours = rng.sample(_mode_colors(mode), n)
    bigs, smalls = _names(colours, [True] * n), _names(colours, [False] * n)
    spots = tuple(f"{c}-spot" for c in colours)
    targets = tuple(Level(f"{s}/level-2", s, BIG_H + SMALL_H // 2) for s in spots)
    step = GoalStep(smalls, tuple(tuple(i == j for j in range(n)) for i in range(n)),
                    tuple(t.name for t in targets), "pose", 1.0)
    blocks = tuple(b for pair in zip(bigs, smalls, strict=True) for b in pair)
    on = tuple((b, spots[i // 2] if i % 2 == 0 else "table") for i, b in enumerate(blocks))
    return _stack("stack-smaller-over-bigger-with-same-color", seed, blocks, spots, (step,), targets,
                  tuple((spots[i], ((bigs[i],), (smalls[i],))) for i in range(n)),
                  "stack all the smaller blocks over the bigger blocks of the same color.", max_steps=n + 2, on=on)


def smaller_over_bigger_in_zone(rng: random.Random, mode: str, seed: int) -> Instance:
    """stack-smaller-over-bigger-with-same-color-in-same-color-zone (...InSameColorZone.reset): 3-5 colours, a
    big and a small block and a zone of each; step 1 (1/2): big block i to zone i at height 6 cm; step 2
    (1/2): small block i at 10 cm (np.eye both); ``max_steps = 2 n + 3``. A big block on a zone rests at
    3 cm: 3 cm off its target, so step 1 never completes and nothing scores (kept)."""
    n = rng.randint(3, 5)
    colours = rng.sample(_mode_colors(mode), n)
    bigs, smalls = _names(colours, [True] * n), _names(colours, [False] * n)
    zones = tuple(f"zone-{c}" for c in colours)
    big_t = tuple(Level(f"{z}/level-1", z, BIG_H) for z in zones)
    small_t = tuple(Level(f"{z}/level-2", z, BIG_H + SMALL_H) for z in zones)
    eye = tuple(tuple(i == j for j in range(n)) for i in range(n))
    steps = (GoalStep(bigs, eye, tuple(t.name for t in big_t), "pose", 1 / 2),
             GoalStep(smalls, eye, tuple(t.name for t in small_t), "pose", 1 / 2))
    blocks = tuple(b for pair in zip(bigs, smalls, strict=True) for b in pair)
    return _stack("stack-smaller-over-bigger-with-same-color-in-same-color-zone", seed, blocks, zones, steps,
                  big_t + small_t, tuple((zones[i], ((bigs[i],), (smalls[i],))) for i in range(n)),
                  "stack all the smaller blocks over the bigger blocks of the same color in the zone with the "
                  "same color.", max_steps=2 * n + 3)


STACK_FAMILIES: dict[str, Callable[[random.Random, str, int], Instance]] = {
    "stack-blocks-of-same-color": same_color,
    "stack-blocks-with-alternate-color": alternate,
    "stack-blocks-by-color": by_color,
    "stack-blocks-by-color-and-size": by_color_and_size,
    "stack-blocks-by-color-in-size-order": by_color_in_size_order,
    "stack-blocks-of-same-size": same_size,
    "stack-blocks-by-relative-position-and-color": by_relative_position,
    "stack-blocks-by-relative-position-and-color-and-size": by_relative_position_and_size,
    "stack-blocks-by-absolute-position-and-color-in-size-order": by_absolute_position_in_size_order,
    "stack-blocks-by-absolute-position-and-color-and-size": by_absolute_position_and_size,
    "stack-smaller-over-bigger-with-same-color": smaller_over_bigger,
    "stack-smaller-over-bigger-with-same-color-in-same-color-zone": smaller_over_bigger_in_zone,
}
