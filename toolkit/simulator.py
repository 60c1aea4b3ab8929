"""A world with no pictures: the PDDL core itself as an :class:`~toolkit.protocols.Environment`.

Useful for any domain without a scene-graph world (the classic domains), for
offline studies with oracle grounders, and for testing agent loops. Actions whose
preconditions do not hold in the true state do nothing (``executed`` False). An
optional failure probability makes an executed action silently do nothing.
"""

from __future__ import annotations

import random

from toolkit.model import Atom
from toolkit.protocols import Observation, StepOutcome
from toolkit.task import GroundAction, Task


class SymbolicEnvironment:
    """Fully observable, image-free world driven by the toolkit's own semantics."""

    def __init__(self, task: Task, failure_prob: float = 0.0, seed: int | None = None) -> None:
        if not 0.0 <= failure_prob <= 1.0:
            raise ValueError("failure_prob must be in [0, 1]")
        self.task = task
        self.failure_prob = failure_prob
        self._seed = seed
        self._rng = random.Random(seed)
        self._state: frozenset[Atom] = task.init
        self._step = 0

    def reset(self, seed: int | None = None) -> Observation:
        self._rng = random.Random(self._seed if seed is None else seed)
        self._state = self.task.init
        self._step = 0
        return self.observe()

    def observe(self) -> Observation:
        return Observation(self._step, self._state, None, None, self._state)

    def true_state(self) -> frozenset[Atom]:
        return self._state

    def execute(self, action: GroundAction) -> StepOutcome:
        self._step += 1
        if not action.is_applicable(self._state):
            return StepOutcome(str(action), False, None, self.observe())
        if self.failure_prob and self._rng.random() < self.failure_prob:
            return StepOutcome(str(action), True, "no_effect", self.observe())
        self._state = action.apply(self._state)
        return StepOutcome(str(action), True, None, self.observe())
