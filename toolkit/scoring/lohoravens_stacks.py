"""Stacks on LoHoRavens' symbolic tabletop: where a block's pose ends up, which stack-level targets it matches,
and the official oracle's moves over such targets.

Why geometry in a symbolic world: the stacking families (``cliport/tasks/stack_blocks.py``,
``size_reasoning_tasks.py``) score with the ``pose`` metric and ``consider_z_in_match`` (the ``Task``
default), so a block matches a target only when its height is within ``height_eps`` (1.5 cm) of the
target's. The targets are poses over a base (a zone, or where a block started) at heights the reset
computes, sometimes not where a block placed there comes to rest (a 4 cm block on a 6 cm one rests at 8 cm;
``StackSmallerOverBiggerWithSameColor`` aims at ``0.06 + 0.04 // 2`` = 6 cm). So pgt keeps each target as a
:class:`Level` (base, height) and computes a block's height from what it rests on (the sizes below it plus
half its own), as the physics would stack them. A base that holds more than one tower holds none at its
centre (the targets' 1 cm tolerance in the plane), so no tower there matches.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from toolkit.scoring.lohoravens import Placement, RewardTrace

if TYPE_CHECKING:
    from toolkit.scoring.lohoravens import GoalStep

HEIGHT_EPS = 0.015  # cliport/tasks/task.py, Task.__init__: self.height_eps (Task.is_match, consider_z)
SMALL_H, BIG_H = 0.04, 0.06  # StackBlocks.__init__: smaller_block_size, bigger_block_size


def height(block: str, sizes: dict[str, float] | None = None) -> float:
    """A block's height: ``sizes[block]`` where given, else from its name (``big-`` blocks are the 6 cm ones)."""
    if sizes and block in sizes:
        return sizes[block]
    return BIG_H if block.startswith("big-") else SMALL_H


@dataclass(frozen=True)
class Level:
    """A stack-level pose target: over ``base`` (a place) at height ``z`` metres (its centre, as the reset's
    goal pose gives it)."""

    name: str
    base: str
    z: float


def levels(base: str, heights: list[float], first: int = 1) -> tuple[Level, ...]:
    """Targets over ``base`` at the given heights, named ``<base>/level-<k>`` from ``first``."""
    return tuple(Level(f"{base}/level-{k}", base, z) for k, z in enumerate(heights, start=first))


def stack_heights(n: int, size: float, start: float = 0.0) -> list[float]:
    """The reset's goal heights for ``n`` blocks of one size stacked from ``start``: ``size / 2 + size * i``."""
    return [round(start + size / 2 + size * i, 6) for i in range(n)]


def rest(on: dict[str, str], block: str, sizes: dict[str, float] | None = None) -> tuple[str, float]:
    """The place under ``block``'s tower and the height of ``block``'s centre."""
    z, below = height(block, sizes) / 2, on[block]
    while below in on:
        z += height(below, sizes)
        below = on[below]
    return below, z


def placement(on: dict[str, str], blocks: tuple[str, ...], targets: tuple[Level, ...],
              sizes: dict[str, float] | None = None) -> Placement:
    """The reward's view: each block at the place its tower stands on, and the level targets it matches."""
    towers: dict[str, int] = {}
    for block in blocks:
        if on[block] not in on:
            towers[on[block]] = towers.get(on[block], 0) + 1
    at, matched = {}, {}
    for block in blocks:
        base, z = rest(on, block, sizes)
        at[block] = base
        if towers.get(base) == 1:
            hits = frozenset(t.name for t in targets if t.base == base and abs(z - t.z) < HEIGHT_EPS)
            if hits:
                matched[block] = hits
    return Placement(at, {}, matched)


def top_of(on: dict[str, str], base: str) -> str:
    """What a block placed at ``base``'s centre lands on: the top of the one tower there, else ``base``."""
    roots = [b for b, s in on.items() if s == base]
    if len(roots) != 1:
        return base
    top = roots[0]
    while (above := next((b for b, s in on.items() if s == top), None)) is not None:
        top = above
    return top


def oracle(on: dict[str, str], blocks: tuple[str, ...], steps: tuple[GoalStep, ...], targets: tuple[Level, ...],
           max_steps: int) -> list[tuple[str, str]]:
    """``Task.oracle`` over level targets, as ``(block, what it is put on)``: objects in the step's order
    (``input_manipulate_order``); an object that matches an allowed target, and that target, are set aside;
    the next object goes to its nearest free allowed target (in its column, the nearest height) and lands
    on the top of the tower there. Stops when the steps are done, after ``max_steps`` moves, or when the
    next move would put a block back where it is (a target it cannot reach: the official oracle repeats it)."""
    on, tracker, moves = dict(on), RewardTrace(list(steps)), []
    by_name = {t.name: t for t in targets}
    while tracker.goals and not tracker.done() and len(moves) < max_steps:
        step, state = tracker.goals[0], placement(on, blocks, targets)
        free = set(range(len(step.targets)))
        done = set()
        for i, obj in enumerate(step.objects):
            for j, ok in enumerate(step.matches[i]):
                if ok and step.targets[j] in state.matched.get(obj, ()):
                    done.add(i)
                    free.discard(j)
        pick = None
        for i, obj in enumerate(step.objects):
            allowed = [j for j, ok in enumerate(step.matches[i]) if ok and j in free]
            if i not in done and allowed:
                base, z = rest(on, obj)
                pick = obj, min(allowed, key=lambda j: (by_name[step.targets[j]].base != base,
                                                       abs(by_name[step.targets[j]].z - z)))
                break
        if pick is None:  # the official oracle empties the goals: nothing left to pick
            break
        obj, j = pick
        dest = top_of({b: s for b, s in on.items() if b != obj}, by_name[step.targets[j]].base)
        if dest == on[obj]:  # it is there already, short of its target: the official oracle would repeat
            break  # this move to the step budget, each time scoring the same
        on[obj] = dest
        moves.append((obj, on[obj]))
        tracker.reward(placement(on, blocks, targets))
    return moves
