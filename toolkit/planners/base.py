"""The planner protocol and the pieces every planner shares.

A planner takes a :class:`~toolkit.task.Task` and returns a :class:`PlanResult`:
data, never an exception, for every expected outcome (solved, unsolvable,
timeout, unsupported, crashed). Planners may start from any state or
:class:`~toolkit.belief.BeliefState` and aim at any goal; the helpers here turn
those arguments into a concrete start state and a compiled goal, and re-check
every plan with :func:`toolkit.verify.check_plan` before it is returned, so a
buggy planner (or a bug in a translation) can never hand out a wrong plan.

Belief policy: a planner plans on one concrete state. From a belief it takes the
most likely state; atoms whose probability is exactly 0.5 (unknown) are taken as
false by default (closed world, ``unknown_as=False``) or as true
(``unknown_as=True``); atoms the belief does not mention are false.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Iterable, Protocol, Sequence, Union, runtime_checkable

from toolkit import model as m
from toolkit.belief import BeliefState
from toolkit.grounding import CompiledCondition, compile_condition
from toolkit.model import Atom
from toolkit.task import GroundAction, Task

GoalArg = Union[m.Condition, Iterable[Atom], None]
InitArg = Union[frozenset[Atom], BeliefState, None]


class PlanStatus(str, Enum):
    """How a planner call ended."""

    SOLVED = "solved"
    UNSOLVABLE = "unsolvable"
    TIMEOUT = "timeout"
    UNSUPPORTED = "unsupported"
    CRASHED = "crashed"


@dataclass(frozen=True)
class PlanResult:
    """The outcome of one planner call.

    ``plan`` is empty unless ``status`` is ``solved``. ``planner`` names the
    configuration (for example ``astar`` or ``fd:astar(hmax())``); ``time`` is
    wall-clock seconds of this call (a cache hit reports its own lookup time).
    """

    status: PlanStatus
    plan: tuple[GroundAction, ...] = ()
    time: float = 0.0
    planner: str = ""
    message: str = ""
    stderr_tail: str = ""
    cached: bool = False
    expanded: int | None = None
    optimal: bool = False

    @property
    def solved(self) -> bool:
        return self.status is PlanStatus.SOLVED

    @property
    def cost(self) -> m.Number | None:
        """The plan's cost: summed (total-cost) increases under the cost metric, else its length."""
        return sum(a.cost or 0 for a in self.plan) if self.solved else None

    def plan_text(self) -> str:
        return "".join(f"{a}\n" for a in self.plan)

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status.value, "planner": self.planner, "length": len(self.plan) if self.solved else None,
            "cost": self.cost, "plan": [str(a) for a in self.plan], "time": round(self.time, 6), "cached": self.cached,
            "optimal": self.optimal, "expanded": self.expanded, "message": self.message,
            "stderr_tail": self.stderr_tail,
        }

    def __str__(self) -> str:
        if self.solved:
            return f"{self.planner}: solved, {len(self.plan)} steps in {self.time:.3f}s"
        return f"{self.planner}: {self.status.value}" + (f": {self.message}" if self.message else "")


@runtime_checkable
class Planner(Protocol):
    """Anything that can plan for a task; see :class:`PlanResult` for the outcomes."""

    name: str
    optimal: bool  # whether every plan it returns is optimal

    def solve(self, task: Task, *, init: InitArg = None, goal: GoalArg = None,
              timeout: float = 60.0) -> PlanResult:
        ...


NUMERIC_PLANNER = "enhsp"


def numeric_refusal(task: Task, planner: str, t0: float) -> PlanResult | None:
    """An ``unsupported`` result for a task with numeric fluents (this planner's search is boolean), else None."""
    if not task.numeric:
        return None
    hint = (f"; --planner {NUMERIC_PLANNER} plans numeric tasks (ENHSP, the `numeric` extra)"
            if planner != NUMERIC_PLANNER else "")
    return PlanResult(PlanStatus.UNSUPPORTED, (), time.perf_counter() - t0, planner,
                      f"the task has numeric fluents (PDDL 2.1) and {planner} plans boolean tasks only{hint}")


def derived_refusal(task: Task, planner: str, t0: float) -> PlanResult | None:
    """An ``unsupported`` result for a task with derived predicates where this planner's search has no
    axioms (pgt's own search, unified-planning's engines), else None: Fast Downward plans them."""
    if task.derived is None:
        return None
    return PlanResult(PlanStatus.UNSUPPORTED, (), time.perf_counter() - t0, planner,
                      f"the domain has derived predicates (:derived) and {planner} has no axioms; --planner fd-lama, "
                      "fd-opt or auto plans them (Fast Downward reads axioms)")


def start_state(task: Task, init: InitArg, unknown_as: bool = False) -> frozenset[Atom]:
    """The concrete state a planner starts from (see the module docstring for beliefs)."""
    if init is None:
        return task.init
    if isinstance(init, BeliefState):
        return init.most_likely_state(unknown_as=unknown_as)
    return frozenset(init)


def goal_condition(task: Task, goal: GoalArg) -> m.Condition:
    """The goal as a lifted-free condition: the problem's own, a condition, or atoms."""
    if goal is None:
        return task.problem.goal
    if isinstance(goal, (m.Pred, m.Equals, m.Not, m.And, m.Or, m.Imply, m.Exists, m.Forall)):
        return goal
    atoms = sorted(Atom.parse(a) if isinstance(a, str) else a for a in goal)
    return m.And(tuple(m.Pred(a.predicate, a.args) for a in atoms))


def compiled_goal(task: Task, goal: m.Condition) -> CompiledCondition:
    if goal is task.problem.goal:
        return task.goal
    return compile_condition(goal, {}, task.objects_of)


def subtask(task: Task, state: frozenset[Atom], goal: m.Condition) -> Task:
    """A task with the same domain and objects but another initial state and goal."""
    if state == task.init and goal is task.problem.goal:
        return task
    return Task(task.domain, dataclasses.replace(task.problem, init=frozenset(state), goal=goal))


def recheck(task: Task, state: frozenset[Atom], goal: m.Condition, plan: Sequence[GroundAction],
            result: PlanResult) -> PlanResult:
    """Return ``result`` if its plan is valid from ``state`` to ``goal``, else a ``crashed`` result.

    A replay of the compiled actions decides; only a failing plan pays for the
    validator (and its import), which says why.
    """
    from toolkit.semantics import holds

    cur = state
    for act in plan:
        if act.cost is None or not act.is_applicable(cur):
            break
        cur = act.apply(cur)
    else:
        if holds(compiled_goal(task, goal), cur):
            return result
    from toolkit.verify import check_plan

    report = check_plan(subtask(task, state, goal), list(plan), init=frozenset(state))
    if report.valid:
        return result
    return dataclasses.replace(result, status=PlanStatus.CRASHED, plan=(),
                               message=f"planner returned an invalid plan, refused: {report.message}")


@dataclass
class Stopwatch:
    """A time limit, by the wall clock or (``cpu``) by the calling thread's CPU seconds.

    A CPU limit counts the work done, not the waiting for a busy machine's cores:
    a study's outcome (solved, or out of time) then never depends on the load.
    :meth:`elapsed` and :attr:`deadline` stay on the wall clock either way.
    """

    timeout: float
    cpu: bool = False
    start: float = field(default_factory=time.perf_counter)
    cpu_start: float = field(default_factory=time.thread_time)

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def used(self) -> float:
        """The seconds the limit counts: CPU seconds of this thread with ``cpu``, else wall seconds."""
        return time.thread_time() - self.cpu_start if self.cpu else self.elapsed()

    def expired(self) -> bool:
        return self.used() > self.timeout

    @property
    def deadline(self) -> float:
        """The limit as a ``time.perf_counter()`` value (what grounding checks)."""
        return self.start + self.timeout
