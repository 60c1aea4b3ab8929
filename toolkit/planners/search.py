"""Optimal search of our own: A* (and blind breadth-first) over the Task's stepping.

Why our own search: on ViPlan-size problems (column Blocksworld up to 6 blocks,
household tasks with a handful of objects) the reachable state space is small,
and a Python A* over the toolkit's compiled ground actions returns an optimal plan
in milliseconds, while a Fast Downward call pays a few hundred milliseconds of
fixed cost (two processes, a translation). Grounding loops replan after
every surprise, so this is the default; Fast Downward stays the general engine
(see :mod:`toolkit.planners.fd`).

The heuristic is admissible and domain independent ("predicate counting"): for
each predicate P, one action can make at most ``k_P`` atoms of P true (counted
over its unconditional and conditional adds), so ``ceil(unmet goal atoms of P /
k_P)`` more actions are needed; negative goal literals are counted the same way
against deletes; the heuristic is the maximum over predicates. On the column
Blocksworld it is the number of blocks outside their goal column.

With action costs (``(:metric minimize (total-cost))``) g counts cost, and the
count is multiplied by the cheapest action's cost, so it stays admissible (it is
blind where some action costs 0) and the search returns a cheapest plan.
"""

from __future__ import annotations

import heapq
import itertools
import math
import time
from collections import defaultdict
from dataclasses import dataclass

from toolkit.grounding import CompiledCondition
from toolkit.model import Atom
from toolkit.planners.base import derived_refusal, numeric_refusal
from toolkit.planners.base import (
    GoalArg, InitArg, PlanResult, PlanStatus, Stopwatch, compiled_goal, goal_condition, recheck, start_state,
)
from toolkit.reach import GroundingError
from toolkit.semantics import holds
from toolkit.successors import SuccessorGenerator
from toolkit.task import GroundAction, Task


@dataclass(frozen=True)
class _Compiled:
    actions: tuple[GroundAction, ...]
    max_adds: dict[str, int]
    max_dels: dict[str, int]
    min_cost: float  # the cheapest action's cost: the heuristic's unit
    successors: SuccessorGenerator


def _compile(task: Task, state0: frozenset[Atom], deadline: float | None = None) -> _Compiled:
    # Only relaxed-reachable actions from the start state can ever fire on the way.
    # An action whose cost function has no value in :init is undefined: never used.
    actions = tuple(a for a in task.grounding(state0, deadline=deadline).actions if a.cost is not None)
    if deadline is not None and time.perf_counter() > deadline:
        raise GroundingError("grounding ran past the time limit", timeout=True)
    max_adds: dict[str, int] = defaultdict(int)
    max_dels: dict[str, int] = defaultdict(int)
    for a in actions:
        adds: dict[str, set[Atom]] = defaultdict(set)
        dels: dict[str, set[Atom]] = defaultdict(set)
        for atom in a.effect.adds:
            adds[atom.predicate].add(atom)
        for atom in a.effect.dels:
            dels[atom.predicate].add(atom)
        for ce in a.effect.conditional:
            for atom in ce.adds:
                adds[atom.predicate].add(atom)
            for atom in ce.dels:
                dels[atom.predicate].add(atom)
        for p, s in adds.items():
            max_adds[p] = max(max_adds[p], len(s))
        for p, s in dels.items():
            max_dels[p] = max(max_dels[p], len(s))
    successors = SuccessorGenerator(actions)
    if deadline is not None and time.perf_counter() > deadline:
        raise GroundingError("indexing the ground actions ran past the time limit", timeout=True)
    return _Compiled(actions, dict(max_adds), dict(max_dels), min((a.cost for a in actions), default=1), successors)


def _heuristic(comp: _Compiled, goal: CompiledCondition):
    """A function state -> admissible lower bound (math.inf for a proven dead end)."""
    by_pos: dict[str, list[Atom]] = defaultdict(list)
    by_neg: dict[str, list[Atom]] = defaultdict(list)
    for a in goal.pos:
        by_pos[a.predicate].append(a)
    for a in goal.neg:
        by_neg[a.predicate].append(a)
    groups = [(frozenset(atoms), comp.max_adds.get(p, 0), True) for p, atoms in by_pos.items()]
    groups += [(frozenset(atoms), comp.max_dels.get(p, 0), False) for p, atoms in by_neg.items()]
    unit = comp.min_cost

    def h(state: frozenset[Atom]) -> float:
        best = 0.0
        for atoms, k, positive in groups:
            missing = len(atoms - state) if positive else len(atoms & state)
            if missing:
                if k == 0:
                    return math.inf
                best = max(best, -(-missing // k))
        if best == 0 and not holds(goal, state):
            return 1.0 * unit
        return best * unit

    return h


class AStarPlanner:
    """Optimal A* (cheapest plan; shortest without action costs) with the predicate-counting heuristic, or blind.

    Args:
        heuristic: ``"count"`` (default) or ``"blind"`` (breadth-first order).
        unknown_as: truth value given to unknown atoms when planning from a belief.
        max_states: give up with ``timeout`` after generating this many states.
        cpu_time: count the time limit in this thread's CPU seconds, not the wall clock's (studies:
            the same search then ends the same way however loaded the machine is).
    """

    def __init__(self, heuristic: str = "count", unknown_as: bool = False, max_states: int = 2_000_000,
                 cpu_time: bool = False) -> None:
        if heuristic not in ("count", "blind"):
            raise ValueError(f"unknown heuristic {heuristic!r}")
        self.heuristic = heuristic
        self.unknown_as = unknown_as
        self.max_states = max_states
        self.cpu_time = cpu_time
        self.name = "astar" if heuristic == "count" else "bfs"
        self.optimal = True
        self._compiled: dict[tuple[int, frozenset[Atom]], tuple[Task, _Compiled]] = {}

    def _for(self, task: Task, state0: frozenset[Atom], deadline: float | None = None) -> _Compiled:
        hit = self._compiled.get((id(task), state0))
        if hit is None or hit[0] is not task:
            hit = (task, _compile(task, state0, deadline))
            if len(self._compiled) > 32:
                self._compiled.clear()
            self._compiled[(id(task), state0)] = hit
        return hit[1]

    def config(self) -> str:
        return f"{self.name}(unknown_as={self.unknown_as})"

    def solve(self, task: Task, *, init: InitArg = None, goal: GoalArg = None, timeout: float = 60.0) -> PlanResult:
        clock = Stopwatch(timeout, cpu=self.cpu_time)
        refused = numeric_refusal(task, self.name, time.perf_counter()) or derived_refusal(task, self.name,
                                                                                            time.perf_counter())
        if refused is not None:
            return refused
        state0 = start_state(task, init, self.unknown_as)
        goal_cond = goal_condition(task, goal)
        cgoal = compiled_goal(task, goal_cond)
        try:
            comp = self._for(task, state0, clock.deadline)
        except GroundingError as exc:
            if not exc.timeout:
                raise
            return PlanResult(PlanStatus.TIMEOUT, (), clock.elapsed(), self.name,
                              message=f"no plan within {timeout:g}s ({exc})")
        h = _heuristic(comp, cgoal) if self.heuristic == "count" else (lambda s: 0.0)
        status, plan, expanded = self._search(comp.successors, state0, cgoal, h, clock)
        result = PlanResult(status, tuple(plan), clock.elapsed(), self.name, expanded=expanded,
                            optimal=status is PlanStatus.SOLVED)
        if status is PlanStatus.TIMEOUT:
            result = PlanResult(status, (), clock.elapsed(), self.name, expanded=expanded,
                                message=f"no plan within {timeout:g}s / {self.max_states} states")
        if status is PlanStatus.SOLVED:
            result = recheck(task, state0, goal_cond, plan, result)
        return result

    def _search(self, successors: SuccessorGenerator, state0, goal, h, clock: Stopwatch):
        h0 = h(state0)
        if h0 == math.inf:
            return PlanStatus.UNSOLVABLE, [], 0
        parent: dict[frozenset[Atom], tuple[frozenset[Atom] | None, GroundAction | None]] = {state0: (None, None)}
        best_g = {state0: 0}
        tie = itertools.count()
        frontier = [(h0, 0, next(tie), state0)]
        expanded = 0
        while frontier:
            _, neg_g, _, state = heapq.heappop(frontier)
            g = -neg_g
            if g > best_g[state]:
                continue
            if holds(goal, state):
                return PlanStatus.SOLVED, _path(parent, state), expanded
            expanded += 1
            # By the clock at every expansion (a perf_counter read is ~1% of one): on large tasks a
            # count-based check let one batch of expansions run tens of seconds past the limit.
            if clock.expired() or len(parent) > self.max_states:
                return PlanStatus.TIMEOUT, [], expanded
            for act in successors.applicable(state):
                nxt = act.apply(state)
                gn = g + act.cost
                if nxt in best_g and best_g[nxt] <= gn:
                    continue
                hn = h(nxt)
                if hn == math.inf:
                    continue
                best_g[nxt] = gn
                parent[nxt] = (state, act)
                heapq.heappush(frontier, (gn + hn, -gn, next(tie), nxt))
        return PlanStatus.UNSOLVABLE, [], expanded


def _path(parent, state) -> list[GroundAction]:
    out = []
    while True:
        prev, act = parent[state]
        if prev is None:
            break
        out.append(act)
        state = prev
    return out[::-1]
