"""A LoHoRavens instance as pgt keeps it: objects, start, goal steps (order, weights, matches), the oracle's moves.

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

from toolkit.scoring import lohoravens_stacks as stacks
from toolkit.scoring.lohoravens import GoalStep, Placement, RewardTrace
from toolkit.scoring.lohoravens_stacks import Level

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
    # Where the oracle puts an object when that is not its step's first allowed target (the oracle aims at the
    # goal's ``targs`` while the reward reads ``params``' zones; the two differ in one branch of
    # PutEvenBlockInSameColorZone.reset).
    oracle_places: tuple[tuple[str, str], ...] = ()
    instruction: str = ""  # the task's language goal (lang_goals[0] after reset), what the PAR planner is told
    # Stack-level pose targets (the stacking families; their steps' targets name these):
    # toolkit/scoring/lohoravens_stacks.py computes which of them a block's pose matches.
    levels: tuple[Level, ...] = ()
    # The PDDL goal of a stacking family: per base, the groups of blocks bottom-up (any order within a group).
    layers: tuple[tuple[str, tuple[tuple[str, ...], ...]], ...] = ()
    # (block, second block under it): a block bridging two blocks (the hidden pyramid's upper rows).
    leans: tuple[tuple[str, str], ...] = ()
    # (block, x, y) metres, where the reset's selection reads positions (the relative/absolute position families)
    positions: tuple[tuple[str, float, float], ...] = ()

    def start(self) -> Placement:
        """The start as the reward sees it: a block in a tower is on the table spot of its tower."""
        return self.placement(dict(self.on))

    def placement(self, on: dict[str, str]) -> Placement:
        """The reward's view of a support relation: each block at the place its tower stands on (the bowl tasks
        match in the plane only, ``consider_z_in_match = False``), and the stack levels it matches."""
        return stacks.placement(on, self.blocks, self.levels)

    def trace(self, moves: list[tuple[str, str]]) -> list[float]:
        """The cumulative score after each ``(block, what it is put on)``, as the world scores it."""
        on, tracker, out = dict(self.on), RewardTrace(list(self.steps)), []
        for block, dest in moves:
            on[block] = dest
            tracker.reward(self.placement(on))
            out.append(tracker.rewards)
        return out

    def oracle(self) -> list[tuple[str, str]]:
        """The oracle's pick-and-place sequence: each step's objects, in order, to their first allowed target
        (over stack levels: :func:`toolkit.scoring.lohoravens_stacks.oracle`, each move to what it lands on)."""
        if self.levels:
            return stacks.oracle(dict(self.on), self.blocks, self.steps, self.levels, self.max_steps)
        moves, override = [], dict(self.oracle_places)
        for step in self.steps:
            for i, obj in enumerate(step.objects):
                j = next(j for j, ok in enumerate(step.matches[i]) if ok)
                moves.append((obj, override.get(obj, step.targets[j])))
        return moves


def eye(n: int) -> tuple[tuple[bool, ...], ...]:
    return tuple(tuple(i == j for j in range(n)) for i in range(n))


def colors(rng: random.Random, mode: str, n: int) -> list[str]:
    return rng.sample(TRAIN_COLORS if mode == "train" else EVAL_COLORS, n)


