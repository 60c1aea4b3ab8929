"""LLM-BabyBench's metric definitions as its evaluators compute them, on any PDDL task (``--metric babybench``).

The official evaluators (choukrani/llm-babybench ``evaluators/plan.py``
``PlanEvaluator.evaluate``, ``evaluators/predict.py`` ``PredictEvaluator.evaluate``)
step the model's actions in a BabyAI level; on a PDDL task pgt steps them in
the task, keeping each rule of that code (on BabyAI levels themselves,
``pgt score babybench-batch`` runs minigrid: :mod:`toolkit.scoring.babybench_tasks`):

* Unknown actions are dropped before execution (``evaluators/utils.py``
  ``str_action_seq_to_int`` keeps only the names it knows). Here: a step that
  names no ground action of the task is dropped and listed.
* An action that cannot take effect changes nothing (minigrid's ``step`` never
  refuses one). Here: a step whose precondition is false is a no-op, ``ignored``.
* Success (``CR``) is the episode terminating: the goal holding after some
  step; the run stops there. A goal true before any step is not a success
  (no step, no termination).
* Efficiency (``llm_efficiency``) is the reference length over **all** the
  parsed actions, also those after the goal, and 0 for a failed plan. The
  reference is the bot's action count in the benchmark; here the optimal
  length. pgt's own variant, over the steps up to the goal, is ``pgt_efficiency``.

Predict: the answer is read as PDDL atoms (the position and direction
predicates), else as the benchmark's ``((x, y), direction)``
(``parse_state_prediction``); an answer with neither is an error, as the
evaluator raises. ``success`` needs position **and direction** equal
(``--direction PRED``); ``manhattan`` is the L1 distance of the positions
(``evaluators/metrics.py``). pgt's position-only success is
``pgt_position_success``. Positions are the integers in the position atom's
arguments (``(at-agent x3 y5)``, ``(at-agent cell-3-5)`` → (3, 5)); directions
the integer in the direction atom's argument or its name (east/right 0,
south/down 1, west/left 2, north/up 3: minigrid's ``agent_dir``).
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
    parsed: int = 0  # known steps in the whole plan, also after the goal (the official denominator)

    @property
    def efficiency(self) -> float | None:
        """The official ``llm_efficiency``: reference length / all parsed actions, 0 for a failed plan."""
        if not self.success or self.parsed == 0:
            return 0.0
        length = self.optimal.length if self.optimal else None
        return None if length is None else length / self.parsed

    @property
    def pgt_efficiency(self) -> float | None:
        """pgt's variant: reference length / the steps taken up to the goal (steps after it not charged)."""
        if not self.success:
            return 0.0
        length = self.optimal.length if self.optimal else None
        return None if length is None else length / self.steps_taken

    def to_json(self) -> dict[str, Any]:
        return {"metric": "babybench", "success": self.success, "efficiency": self.efficiency,
                "pgt_efficiency": self.pgt_efficiency, "parsed_steps": self.parsed,
                "steps_taken": self.steps_taken, "dropped_steps": list(self.dropped),
                "ignored_steps": list(self.ignored),
                "optimal_length": self.optimal.length if self.optimal else None,
                "optimal": self.optimal.to_json() if self.optimal else None}


def score_plan_babybench(task: Task, plan_text: str,
                         optimal: Callable[[], OptimalLength] | None = None) -> BabyPlanScore:
    """Run a plan the way LLM-BabyBench's harness does (see the module docstring)."""
    steps = parse_plan(plan_text, task).steps
    dropped = tuple(s.text for s in steps if s.action is None)
    known = [s for s in steps if s.action is not None]
    state, taken, ignored = task.init, 0, []
    reached = False  # only a step can end the episode (evaluators/plan.py: CR is `terminated`)
    for step in known:
        if reached:
            break
        taken += 1
        if step.action.is_applicable(state):
            state = step.action.apply(state)
        else:
            ignored.append(step.index)
        reached = task.goal_holds(state)
    opt = optimal() if (optimal is not None and reached) else None
    return BabyPlanScore(reached, taken, dropped, tuple(ignored), opt, len(known))


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


_DIRECTION_NAMES = {"east": 0, "right": 0, "south": 1, "down": 1, "west": 2, "left": 2, "north": 3, "up": 3}


def direction_of(atoms, predicate: str) -> int | None:
    """minigrid's direction (0 east .. 3 north) in the one atom of ``predicate``; None if absent.

    >>> direction_of({Atom("facing", ("north",))}, "facing"), direction_of({Atom("facing", ("d1",))}, "facing")
    (3, 1)
    """
    hits = sorted(a for a in atoms if a.predicate.lower() == predicate.lower())
    if not hits:
        return None
    if len(hits) > 1:
        raise PgtError(f"direction predicate {predicate} holds {len(hits)} times ({' '.join(map(str, hits))})")
    for arg in hits[0].args:
        if arg.lower() in _DIRECTION_NAMES:
            return _DIRECTION_NAMES[arg.lower()]
    numbers = [int(n) for arg in hits[0].args for n in _INT.findall(arg)]
    if len(numbers) != 1 or not 0 <= numbers[0] <= 3:
        raise PgtError(f"cannot read a direction from {hits[0]}: name it east/south/west/north or 0-3")
    return numbers[0]


@dataclass(frozen=True)
class BabyPredictScore:
    true_position: tuple[int, int]
    true_direction: int
    predicted_position: tuple[int, int]
    predicted_direction: int

    @property
    def success(self) -> bool:
        """The official ``success``: position and direction equal (evaluators/predict.py)."""
        return (self.predicted_position, self.predicted_direction) == (self.true_position, self.true_direction)

    @property
    def manhattan(self) -> int:
        """L1 distance of the positions; the direction does not count (evaluators/metrics.py)."""
        return manhattan(self.predicted_position, self.true_position)

    def to_json(self) -> dict[str, Any]:
        return {"metric": "babybench", "success": self.success, "manhattan": self.manhattan,
                "pgt_position_success": self.predicted_position == self.true_position,
                "true_state": [list(self.true_position), self.true_direction],
                "predicted_state": [list(self.predicted_position), self.predicted_direction]}


def score_prediction_babybench(task: Task, actions: str, predicted: str, predicate: str,
                               direction: str) -> BabyPredictScore:
    """Run ``actions`` as the harness does (unknown dropped, no-ops ignored) and compare agent states."""
    from toolkit.scoring.babybench_tasks import parse_state_prediction

    known = {p.lower() for p in task.domain.predicates}
    for what, name in (("position", predicate), ("direction", direction)):
        if name.lower() not in known:
            raise PgtError(f"unknown {what} predicate '{name}' (the domain has {', '.join(sorted(task.domain.predicates))})")
    state = task.init
    for step in parse_plan(actions, task).steps:
        if step.action is not None and step.action.is_applicable(state):
            state = step.action.apply(state)
    true, true_dir = position_of(state, predicate), direction_of(state, direction)
    if true is None or true_dir is None:
        raise PgtError(f"no {predicate if true is None else direction} atom in the state after the actions")
    atoms = parse_state(predicted, task).atoms
    pos, facing = position_of(atoms, predicate), direction_of(atoms, direction)
    if pos is None or facing is None:
        official = parse_state_prediction(predicted)
        if official is None:
            raise PgtError(f"no agent state in the prediction: neither ({predicate} ...) with ({direction} ...) "
                           "nor ((x, y), direction) (the official evaluator refuses it)")
        pos, facing = official
    return BabyPredictScore(true, true_dir, pos, facing)


__all__ = ["BabyPlanScore", "BabyPredictScore", "direction_of", "position_of", "score_plan_babybench", "score_prediction_babybench"]
