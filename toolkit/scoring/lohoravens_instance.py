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

from toolkit.scoring.lohoravens import GoalStep, Placement

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

    def start(self) -> Placement:
        """The start as the reward sees it: a block in a tower is on the table spot of its tower."""
        return Placement({b: s for b, s in self.on if s in self.places})

    def oracle(self) -> list[tuple[str, str]]:
        """The oracle's pick-and-place sequence: each step's objects, in order, to their first allowed target."""
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


