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
from toolkit.reading.text import init_location
from toolkit.scoring.lohoravens import Placement, RewardTrace
from toolkit.scoring.lohoravens_families import Instance, make_instance
from toolkit.task import GroundAction, Task

NAME = re.compile(r"^lohoravens-(?P<family>.+)-seed-(?P<seed>\d+)$", re.IGNORECASE)


def problem_text(family: str, seed: int) -> str:
    """A seeded instance of ``family`` as a problem of the ``lohoravens`` domain (the goal: every step done)."""
    inst = make_instance(family, seed)
    init = sorted(str(a) for a in _atoms(dict(inst.on), inst.blocks, dict(inst.leans)))
    goal = _layer_goal(inst) if inst.layers else []
    for step in () if inst.layers else inst.steps:
        for i, obj in enumerate(step.objects):
            allowed = [t for t, ok in zip(step.targets, step.matches[i]) if ok]
            goal.append(f"(on {obj} {allowed[0]})" if len(allowed) == 1
                        else "(or " + " ".join(f"(on {obj} {t})" for t in allowed) + ")")
    return (f"; LoHoRavens {family}, seed {seed} (written by pgt; goal steps and weights in the world)\n"
            f"(define (problem lohoravens-{family}-seed-{seed}) (:domain lohoravens)\n"
            f"  (:objects {' '.join(inst.blocks)} - block {' '.join(inst.places)} - place)\n"
            f"  (:init {' '.join(init)})\n  (:goal (and {' '.join(goal)})))\n")


def _layer_goal(inst: Instance) -> list[str]:
    """A stacking family's goal: per base, its groups bottom-up, each block on a block of its group or of the
    group under it (the first group: on the base), one tower only (no other block directly on the base). Since
    a block carries one block at most, that is one tower with the groups in order. It asks one arrangement the
    reward accepts; where the official heights make the reward unreachable (kept, see the families) it is the
    arrangement the instruction asks for."""
    goal = []
    for base, groups in inst.layers:
        below: tuple[str, ...] = (base,)
        for group in (g for g in groups if g):
            for obj in group:
                under = [*below, *(o for o in group if o != obj)]
                goal.append(f"(on {obj} {under[0]})" if len(under) == 1
                            else "(or " + " ".join(f"(on {obj} {u})" for u in under) + ")")
            if below == (base,):
                goal += [f"(not (on {b} {base}))" for b in inst.blocks if b not in group]
                goal += [f"(not (and (on {a} {base}) (on {b} {base})))" for k, a in enumerate(group)
                         for b in group[k + 1:]]
            below = group
    return goal


def _atoms(on: dict[str, str], blocks: tuple[str, ...], leans: dict[str, str]) -> frozenset[Atom]:
    below = set(on.values())
    return frozenset({Atom("on", (b, s)) for b, s in on.items()}
                     | {Atom("clear", (b,)) for b in blocks if b not in below}
                     | {Atom("leans-on", (b, s)) for b, s in leans.items()}
                     | {Atom("leaning", (b,)) for b in leans} | {Atom("leaned-on", (s,)) for s in leans.values()})


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
        self.leans = dict(self.instance.leans)
        self.step = 0
        self.rewards = RewardTrace(list(self.instance.steps))
        self.trace: list[float] = []
        if self.true_state() != self.task.init:
            raise PgtError(f"{init_location(self.task.problem.path)}: the problem is not {self.instance.family} seed "
                           f"{self.instance.seed} as pgt makes it; rewrite it with pgt lohoravens-problem")
        return self.observe()

    def true_state(self) -> frozenset[Atom]:
        return self.task.respell(_atoms(self.on, self.instance.blocks, self.leans))

    def observe(self) -> Observation:
        from scene_graphs.render_tabletop import render_tabletop

        truth = self.true_state()
        on, places, labels = dict(self.on), self.instance.places, self.labels
        return Observation(step=self.step, truth=truth, visible=None,
                           render=lambda: render_tabletop(places, on, labels=labels), state_key=truth)

    def can_execute(self, action: GroundAction) -> bool:
        """Whether the pick-and-place can happen: the block is clear (nothing on it, nothing leaning on it) and
        where the action says; a leaning block is taken off by the unlean-* actions, naming what it leans on."""
        unlean = action.name.startswith("unlean-")
        args = tuple(a.lower() for a in action.args)  # the world's names are lower case; PDDL's are any case
        if len(args) != (4 if unlean else 3):
            return False
        block, source, dest = args[0], args[1], args[-1]
        if unlean and self.leans.get(block) != args[2] or not unlean and block in self.leans:
            return False
        places = set(self.instance.places)
        leaned = set(self.leans.values())
        if self.on.get(block) != source or block in self.on.values() or block in leaned or block == dest:
            return False
        kind = {"put-on-place": (True, True), "unstack-to-place": (False, True), "stack": (True, False),
                "restack": (False, False), "unlean-to-place": (False, True),
                "unlean-onto": (False, False)}.get(action.name)
        if kind is None or (source in places) != kind[0] or (dest in places) != kind[1]:
            return False
        if dest in places:
            return source != dest
        return dest not in self.on.values() and dest not in leaned and dest != source and dest not in args[2:-1]

    def execute(self, action: GroundAction) -> StepOutcome:
        """One pick-and-place, then one call of the official reward rules (also after a failed one)."""
        failure: str | None = None
        executed = self.can_execute(action)
        if executed:
            if self.failure_prob > 0.0 and self._rng.random() < self.failure_prob:
                failure = "no_effect"
            else:
                block, dest = action.args[0].lower(), action.args[-1].lower()
                self.on[block] = dest
                self.leans.pop(block, None)
        self._score()
        return StepOutcome(action=str(action), executed=executed, failure=failure, observation=self.observe())

    def idle(self) -> None:
        """A pick-and-place that moved nothing (the actor could not act on the instruction): the environment
        still steps, so the reward rules are called once (and may pop a finished step)."""
        self._score()

    def _score(self) -> None:
        """One environment step's ``task.reward()``; once ``done()`` holds the official loop has ended the
        episode (``eval_llm_vlm.py``, ``demos.py`` break on done), so a pgt run that goes on to its own goal
        leaves the reward where ``done()`` found it."""
        self.step += 1
        if not self.rewards.done():
            self.rewards.reward(self.placement())
        self.trace.append(self.rewards.rewards)

    def support_of(self, block: str) -> str | None:
        """What ``block`` rests on now (a place or a block)."""
        return self.on.get(block)

    def move_action(self, block: str, dest: str) -> GroundAction:
        """The domain's action that picks ``block`` from where it is now and places it on ``dest``."""
        source, lean = self.on[block], self.leans.get(block)
        places = set(self.instance.places)
        if lean is not None:  # a block bridging two (the hidden pyramid): taken off both
            return self.task.action("unlean-to-place" if dest in places else "unlean-onto", [block, source, lean, dest])
        kind = {(True, True): "put-on-place", (False, True): "unstack-to-place", (True, False): "stack",
                (False, False): "restack"}[(source in places, dest in places)]
        return self.task.action(kind, [block, source, dest])

    def leans_on(self, block: str) -> str | None:
        """The block ``block`` leans on (a pyramid's upper block), if any."""
        return self.leans.get(block)

    def placement(self) -> Placement:
        """The reward's view (:meth:`Instance.placement`): each block at the place its tower stands on, and
        the stack levels it matches."""
        return self.instance.placement(self.on)

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
