"""Helpers shared by the core tests: shipped tasks, random walks, plan mutants, and
unified-planning as the reference validator.

Kept beside the tests (not in the package) because only the tests compare against
unified-planning; imported as a top-level module (pytest puts this folder on
``sys.path``).
"""

from __future__ import annotations

import dataclasses
import functools
import random
from pathlib import Path
from typing import Any

from benchmarks.walks import random_walk  # noqa: F401 - the tests' walks are the benchmarks'
from toolkit import model as m
from toolkit.domains import DOMAINS_ROOT
from toolkit.model import Atom
from toolkit.task import GroundAction, Task, load_domain_cached
from toolkit import loader

# ------------------------------------------------------------ shipped tasks


def shipped_pairs() -> list[tuple[str, str]]:
    """(domain name, problem stem) for every shipped problem, sorted."""
    out = []
    for dom in sorted(DOMAINS_ROOT.glob("*/domain.pddl")):
        for prob in sorted((dom.parent / "problems").glob("*.pddl")):
            out.append((dom.parent.name, prob.stem))
    return out


def paths(domain: str, problem: str) -> tuple[Path, Path]:
    folder = DOMAINS_ROOT / domain
    return folder / "domain.pddl", folder / "problems" / f"{problem}.pddl"


@functools.lru_cache(maxsize=None)
def shipped_task(domain: str, problem: str) -> Task:
    dpath, ppath = paths(domain, problem)
    dom = load_domain_cached(dpath)
    return Task(dom, loader.load_problem(ppath, dom))


def with_goal(task: Task, goal: m.Condition) -> Task:
    """The same task with another goal."""
    return Task(task.domain, dataclasses.replace(task.problem, goal=goal))


# ------------------------------------------------------------ plans




def final_state(task: Task, plan: list[GroundAction]) -> frozenset[Atom]:
    state = task.init
    for act in plan:
        state = act.apply(state)
    return state


def goal_from_state(task: Task, state: frozenset[Atom], rng: random.Random) -> m.Condition:
    """A goal that ``state`` satisfies: some of its atoms and the negation of some false atoms."""
    true_atoms = sorted(state)
    false_atoms = [a for a in task.all_atoms() if a not in state]
    pos = rng.sample(true_atoms, min(len(true_atoms), rng.randint(1, 4)))
    neg = rng.sample(false_atoms, min(len(false_atoms), rng.randint(0, 2)))
    parts: list[m.Condition] = [m.Pred(a.predicate, a.args) for a in pos]
    parts += [m.Not(m.Pred(a.predicate, a.args)) for a in neg]
    return m.And(tuple(parts))


def replace_argument(task: Task, act: GroundAction, rng: random.Random, type_correct: bool = True) -> tuple[str, tuple[str, ...]] | None:
    """(name, args) with one argument swapped for another object (of a fitting type, or not)."""
    if not act.args:
        return None
    i = rng.randrange(len(act.args))
    fitting = set(task.objects_of(act.schema.params[i][1]))
    pool = sorted(fitting - {act.args[i]}) if type_correct else sorted(set(task.objects) - fitting)
    if not pool:
        return None
    args = list(act.args)
    args[i] = rng.choice(pool)
    return act.name, tuple(args)


def mutants(task: Task, plan: list[GroundAction], rng: random.Random) -> list[tuple[str, list[GroundAction]]]:
    """Type-correct mutants of a plan: deleted step, swapped steps, replaced argument, truncated."""
    out: list[tuple[str, list[GroundAction]]] = []
    n = len(plan)
    if n >= 1:
        i = rng.randrange(n)
        out.append(("delete", plan[:i] + plan[i + 1:]))
        out.append(("truncate", plan[: rng.randrange(n)]))
        i = rng.randrange(n)
        repl = replace_argument(task, plan[i], rng)
        if repl is not None:
            out.append(("replace_arg", plan[:i] + [task.action(*repl)] + plan[i + 1:]))
    if n >= 2:
        i, j = sorted(rng.sample(range(n), 2))
        swapped = list(plan)
        swapped[i], swapped[j] = swapped[j], swapped[i]
        out.append(("swap", swapped))
    return out


# ------------------------------------------------------------ unified-planning


@functools.lru_cache(maxsize=None)
def up_problem(domain: str, problem: str) -> Any:
    """The problem read once by unified-planning's PDDLReader."""
    from unified_planning.io import PDDLReader
    from unified_planning.shortcuts import get_environment

    get_environment().credits_stream = None
    dpath, ppath = paths(domain, problem)
    return PDDLReader().parse_problem(str(dpath), str(ppath))


def up_with_goal(up_prob: Any, goal: m.Condition) -> Any:
    """A clone of a UP problem whose goal is ``goal`` (a conjunction of literals)."""
    from unified_planning.shortcuts import Not

    clone = up_prob.clone()
    clone.clear_goals()
    parts = goal.parts if isinstance(goal, m.And) else (goal,)
    for part in parts:
        negated = isinstance(part, m.Not)
        pred = part.arg if negated else part
        fluent = clone.fluent(pred.predicate.lower())
        expr = fluent(*(clone.object(t.lower()) for t in pred.terms))
        clone.add_goal(Not(expr) if negated else expr)
    return clone


@functools.lru_cache(maxsize=None)
def _kind_once(cls: type) -> type:
    """``cls`` whose ``kind`` is worked out once per object, each caller given its own copy.

    unified-planning recomputes ``Problem.kind`` on every read ("this property does a lot of computation,
    so it should be called as seldom as possible", unified_planning/model/problem.py ``Problem.kind``) and
    one validation reads it five times (the validator's factory, ``PlanValidatorMixin.validate``,
    ``SequentialSimulator.__init__``, ``SequentialPlanValidator._validate``): 40% of the differential
    tests' time. The kind only picks the engine and its support check; the verdict is the validator's own.
    A copy per read, as ``_validate`` changes the kind it reads."""

    class KindOnce(cls):  # type: ignore[misc, valid-type]
        @property
        def kind(self) -> Any:
            if "_kind_once" not in self.__dict__:
                self.__dict__["_kind_once"] = cls.kind.fget(self)
            return self.__dict__["_kind_once"].clone()

    KindOnce.__name__ = KindOnce.__qualname__ = cls.__name__
    return KindOnce


def up_validate(up_prob: Any, plan: list[GroundAction]) -> tuple[bool, int | None]:
    """unified-planning's verdict: (valid, first failing step or None).

    The validator's trace holds the initial state plus one state per executed step,
    so on failure its length is the 1-based index of the failing step
    (``len(plan) + 1`` when only the goal fails).
    """
    from unified_planning.engines import ValidationResultStatus
    from unified_planning.plans import ActionInstance, SequentialPlan
    from unified_planning.shortcuts import PlanValidator

    steps = [ActionInstance(up_prob.action(a.name.lower()), [up_prob.object(o.lower()) for o in a.args]) for a in plan]
    cls = up_prob.__class__
    up_prob.__class__ = _kind_once(cls)  # for this call only: the problem is not changed while it is validated
    try:
        with PlanValidator(problem_kind=up_prob.kind, plan_kind=SequentialPlan(steps).kind) as validator:
            res = validator.validate(up_prob, SequentialPlan(steps))
    finally:
        up_prob.__class__ = cls
        up_prob.__dict__.pop("_kind_once", None)
    if res.status == ValidationResultStatus.VALID:
        return True, None
    return False, len(res.trace)
