"""LLM-BabyBench's official metric definitions, on any PDDL task (``pgt score ... --metric babybench``).

The official evaluator runs the model's actions in the BabyAI environment, and
its numbers differ from pgt's own domain-general variants (``--metric pgt``) in
four ways, each reproduced here (seed paper, app. D.2-D.3 and its harness):

* Unknown actions are dropped before execution (the harness maps action names
  to the environment's action ids and skips the ones it does not know). Here: a
  step that names no ground action of the task (unknown name or object, wrong
  arity or type, unreadable text) is dropped and counted.
* An action that cannot take effect changes nothing (BabyAI's ``step`` never
  refuses one: moving into a wall leaves the agent where it is). Here: a step
  whose precondition is false is a no-op, counted as ``ignored``.
* Success is counted the first time the goal is reached (the episode ends
  there); later steps do not matter and are not counted.
* Efficiency is optimal length / steps taken to reach the goal, and **0 for a
  failed plan** (pgt's own ratio is undefined there and left out of the mean).

Predict (app. D.2, formulas 1-2): success is the predicted agent position equal
to the true one, and the distance is the Manhattan (L1) distance between them.
On a PDDL task the position is read from the atom of a named predicate
(``--position at-agent``): the integers in its argument names, in order
(``(at-agent x3 y5)``, ``(at-agent cell-3-5)`` and ``(at-agent c_3_5)`` all give
(3, 5)).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from toolkit.errors import PgtError
from toolkit.model import Atom  # noqa: F401 - the doctests build atoms
from toolkit.plans import parse_plan
from toolkit.scoring.metrics import manhattan
from toolkit.scoring.optimal import OptimalLength
from toolkit.scoring.predict import parse_state
from toolkit.task import Task


@dataclass(frozen=True)
class BabyPlanScore:
    success: bool
    steps_taken: int  # known steps executed up to (and including) the one that first reached the goal
    dropped: tuple[str, ...]  # steps naming no ground action of the task
    ignored: tuple[int, ...]  # 1-based indices of known steps whose precondition was false (no-ops)
    optimal: OptimalLength | None

    @property
    def efficiency(self) -> float | None:
        if not self.success:
            return 0.0
        length = self.optimal.length if self.optimal else None
        if length is None:
            return None
        return 1.0 if self.steps_taken == 0 else length / self.steps_taken

    def to_json(self) -> dict[str, Any]:
        return {"metric": "babybench", "success": self.success, "efficiency": self.efficiency,
                "steps_taken": self.steps_taken, "dropped_steps": list(self.dropped),
                "ignored_steps": list(self.ignored),
                "optimal_length": self.optimal.length if self.optimal else None,
                "optimal": self.optimal.to_json() if self.optimal else None}


def score_plan_babybench(task: Task, plan_text: str,
                         optimal: Callable[[], OptimalLength] | None = None) -> BabyPlanScore:
    """Run a plan the way LLM-BabyBench's harness does (see the module docstring)."""
    steps = parse_plan(plan_text, task).steps
    dropped = tuple(s.text for s in steps if s.action is None)
    state, taken, ignored = task.init, 0, []
    reached = task.goal_holds(state)
    for step in (s for s in steps if s.action is not None):
        if reached:
            break
        taken += 1
        if step.action.is_applicable(state):
            state = step.action.apply(state)
        else:
            ignored.append(step.index)
        reached = task.goal_holds(state)
    opt = optimal() if (optimal is not None and reached) else None
    return BabyPlanScore(reached, taken, dropped, tuple(ignored), opt)


_INT = re.compile(r"\d+")


def position_of(atoms, predicate: str) -> tuple[int, int] | None:
    """The (x, y) position in the one atom of ``predicate`` (case-insensitive); None if absent.

    >>> position_of({Atom("at-agent", ("x3", "y5"))}, "AT-AGENT")
    (3, 5)
    >>> position_of({Atom("at-agent", ("cell-3-5",))}, "at-agent")
    (3, 5)
    """
    hits = sorted(a for a in atoms if a.predicate.lower() == predicate.lower())
    if not hits:
        return None
    if len(hits) > 1:
        raise PgtError(f"position predicate {predicate} holds {len(hits)} times ({' '.join(map(str, hits))}); "
                       "name a predicate that places the agent alone")
    numbers = [int(n) for arg in hits[0].args for n in _INT.findall(arg)]
    if len(numbers) != 2:
        raise PgtError(f"cannot read an (x, y) position from {hits[0]}: its arguments hold {len(numbers)} integers")
    return numbers[0], numbers[1]


@dataclass(frozen=True)
class BabyPredictScore:
    true_position: tuple[int, int]
    predicted_position: tuple[int, int] | None

    @property
    def success(self) -> bool:
        return self.predicted_position == self.true_position

    @property
    def manhattan(self) -> int | None:
        """L1 distance; None when the prediction places the agent nowhere (it is then a failure)."""
        return None if self.predicted_position is None else manhattan(self.predicted_position, self.true_position)

    def to_json(self) -> dict[str, Any]:
        return {"metric": "babybench", "success": self.success, "manhattan": self.manhattan,
                "true_position": list(self.true_position),
                "predicted_position": list(self.predicted_position) if self.predicted_position else None}


def score_prediction_babybench(task: Task, actions: str, predicted: str, predicate: str) -> BabyPredictScore:
    """Run ``actions`` as the harness does (unknown dropped, no-ops ignored) and compare agent positions."""
    if predicate.lower() not in {p.lower() for p in task.domain.predicates}:
        raise PgtError(f"unknown position predicate '{predicate}' (the domain has {', '.join(sorted(task.domain.predicates))})")
    state = task.init
    for step in parse_plan(actions, task).steps:
        if step.action is not None and step.action.is_applicable(state):
            state = step.action.apply(state)
    true = position_of(state, predicate)
    if true is None:
        raise PgtError(f"no {predicate} atom in the state after the actions: the agent has no position")
    return BabyPredictScore(true, position_of(parse_state(predicted, task).atoms, predicate))


__all__ = ["BabyPlanScore", "BabyPredictScore", "position_of", "score_plan_babybench", "score_prediction_babybench"]
