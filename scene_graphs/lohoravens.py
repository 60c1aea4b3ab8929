"""LoHoRavens' tabletop as a symbolic pgt world, scored by the official reward rules after every action.

Why symbolic: LoHoRavens' long-horizon tasks are judged by *which block rests
where*, through ``Task.reward()``'s goal steps (:mod:`toolkit.scoring.lohoravens`);
the physics only decides whether a pick-and-place lands. So the world is the
blocks' support relation; each action is one pick-and-place; after each, the
world calls the official reward rules once, as ``Environment.step`` calls
``task.reward()`` (``cliport/environments/environment.py``), so
:meth:`LohoWorld.score` is the trace the official loop would report, and
:meth:`LohoWorld.done` its ``task.done()``.

The task family and seed come from the problem's name
(``lohoravens-<family>-seed-<N>``, as :func:`problem_text` writes it).
Failure model: with ``failure_prob`` an executable pick-and-place does nothing
(``no_effect``), seeded. For the reward, a block stacked on others counts as at
its tower's place (the bowl tasks match positions in the plane only:
``consider_z_in_match = False``).
"""

from __future__ import annotations

import random
import re
from typing import Any

from toolkit.errors import PgtError
from toolkit.model import Atom
from toolkit.protocols import Observation, StepOutcome
from toolkit.scoring.lohoravens import Placement, RewardTrace
from toolkit.scoring.lohoravens_families import Instance, make_instance
from toolkit.task import GroundAction, Task

NAME = re.compile(r"^lohoravens-(?P<family>.+)-seed-(?P<seed>\d+)$", re.IGNORECASE)


def problem_text(family: str, seed: int) -> str:
    """A seeded instance of ``family`` as a problem of the ``lohoravens`` domain (the goal: every step done)."""
    inst = make_instance(family, seed)
    init = sorted(str(a) for a in _atoms(dict(inst.on), inst.blocks))
    goal = []
    for step in inst.steps:
        for i, obj in enumerate(step.objects):
            allowed = [t for t, ok in zip(step.targets, step.matches[i]) if ok]
            goal.append(f"(on {obj} {allowed[0]})" if len(allowed) == 1
                        else "(or " + " ".join(f"(on {obj} {t})" for t in allowed) + ")")
    return (f"; LoHoRavens {family}, seed {seed} (written by pgt; goal steps and weights in the world)\n"
            f"(define (problem lohoravens-{family}-seed-{seed}) (:domain lohoravens)\n"
            f"  (:objects {' '.join(inst.blocks)} - block {' '.join(inst.places)} - place)\n"
            f"  (:init {' '.join(init)})\n  (:goal (and {' '.join(goal)})))\n")


def _atoms(on: dict[str, str], blocks: tuple[str, ...]) -> frozenset[Atom]:
    below = set(on.values())
    return frozenset({Atom("on", (b, s)) for b, s in on.items()} | {Atom("clear", (b,)) for b in blocks if b not in below})


class LohoWorld:
    """The tabletop of one LoHoRavens instance behind the ``Environment`` protocol."""

    domain_name = "lohoravens"

    def __init__(self, task: Task, *, failure_prob: float = 0.0, seed: int | None = None, labels: bool | None = None,
                 **_: Any) -> None:
        if not 0.0 <= failure_prob <= 1.0:
            raise PgtError(f"failure probability must be in [0, 1], got {failure_prob}")
        match = NAME.match(task.problem.name)
        if not match:
            raise PgtError(f"LoHoRavens problem '{task.problem.name}' does not name its family and seed "
                           "(lohoravens-FAMILY-seed-N)")
        self.task = task
        self.instance: Instance = make_instance(match["family"].lower(), int(match["seed"]))
        self.failure_prob = failure_prob
        self.labels = True if labels is None else labels
        self._seed = seed
        self.reset(seed)

    def reset(self, seed: int | None = None) -> Observation:
        if seed is not None:
            self._seed = seed
        self._rng = random.Random(self._seed)
        self.on = dict(self.instance.on)
        self.step = 0
        self.rewards = RewardTrace(list(self.instance.steps))
        self.trace: list[float] = []
        if self.true_state() != self.task.init:
            raise PgtError(f"{self.task.problem.path}: the problem is not {self.instance.family} seed "
                           f"{self.instance.seed} as pgt makes it; rewrite it with pgt lohoravens-problem")
        return self.observe()

    def true_state(self) -> frozenset[Atom]:
        return _atoms(self.on, self.instance.blocks)

    def observe(self) -> Observation:
        from scene_graphs.render_tabletop import render_tabletop

        truth = self.true_state()
        on, places, labels = dict(self.on), self.instance.places, self.labels
        return Observation(step=self.step, truth=truth, visible=None,
                           render=lambda: render_tabletop(places, on, labels=labels), state_key=truth)

    def can_execute(self, action: GroundAction) -> bool:
        """Whether the pick-and-place can happen: the block is clear and where the action says."""
        block, source, dest = action.args
        places = set(self.instance.places)
        if self.on.get(block) != source or block in self.on.values() or block == dest:
            return False
        kind = {"put-on-place": (True, True), "unstack-to-place": (False, True), "stack": (True, False),
                "restack": (False, False)}.get(action.name)
        if kind is None or (source in places) != kind[0] or (dest in places) != kind[1]:
            return False
        if dest in places:
            return source != dest
        return dest not in self.on.values() and dest != source

    def execute(self, action: GroundAction) -> StepOutcome:
        """One pick-and-place, then one call of the official reward rules (also after a failed one)."""
        failure: str | None = None
        executed = self.can_execute(action)
        if executed:
            if self.failure_prob > 0.0 and self._rng.random() < self.failure_prob:
                failure = "no_effect"
            else:
                self.on[action.args[0]] = action.args[2]
        self.step += 1
        self.rewards.reward(self.placement())
        self.trace.append(self.rewards.rewards)
        return StepOutcome(action=str(action), executed=executed, failure=failure, observation=self.observe())

    def idle(self) -> None:
        """A pick-and-place that moved nothing (the actor could not act on the instruction): the environment
        still steps, so the reward rules are called once (and may pop a finished step)."""
        self.step += 1
        self.rewards.reward(self.placement())
        self.trace.append(self.rewards.rewards)

    def support_of(self, block: str) -> str | None:
        """What ``block`` rests on now (a place or a block)."""
        return self.on.get(block)

    def placement(self) -> Placement:
        """Each block at the place its tower stands on (the reward's view)."""
        at = {}
        for block in self.instance.blocks:
            base = self.on[block]
            while base in self.on:
                base = self.on[base]
            at[block] = base
        return Placement(at)

    def score(self) -> float:
        """LoHoRavens' partial reward so far (``Task._rewards``)."""
        return self.rewards.rewards

    def done(self) -> bool:
        """LoHoRavens' binary success (``Task.done()``: no step left, or the score ≥ 0.98)."""
        return self.rewards.done()

    def benchmark_metrics(self) -> dict[str, Any]:
        """What a ``pgt run`` episode records beside its own metrics: LoHoRavens' partial reward, ``done()``
        and the reward after every action, as the official loop sums them."""
        return {"benchmark": "lohoravens", "family": self.instance.family, "total_reward": self.score(),
                "success": self.done(), "reward_trace": list(self.trace), "max_steps": self.instance.max_steps}
