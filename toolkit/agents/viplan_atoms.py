"""Which atoms ViPlan's grounder asks about for an action, and what it expects of each.

ViPlan's code (github.com/merlerm/ViPlan) walks unified-planning's lifted
precondition and effect trees with the action's bindings; these functions do the
same walk over pgt's model so the questions, and their count, are ViPlan's:

- **Preconditions** (``get_preconditions_predicates`` / ``get_predicates_for_question``
  in ``viplan/experiments/benchmark_igibson_plan.py``): every literal of the
  conjunction, a ``not`` flipping the expected value; a ``forall`` is expanded over
  the objects of its type *except objects already bound* in the walk (the action's
  arguments, and earlier ``forall`` values: ViPlan mutates one binding dict); an
  ``or`` is skipped (its disjuncts cannot be asked one by one). The Blocksworld
  script's older copy of the walk agrees on ViPlan-BW's plain conjunction. pgt
  also skips ``exists`` and ``imply`` (ViPlan's walk crashes on them, as on any
  variable it cannot bind) and equalities (not atoms).
- **Effects** (``get_effect_predicates``): every effect literal that fires,
  conditions evaluated in the world's *true* state before the action (ViPlan
  passes ``copy.deepcopy(env.state)``), adds expected true and deletes false.
  ViPlan keys questions by atom, so an atom asked twice is asked once; where one
  action both adds and deletes an atom pgt expects PDDL's outcome (add wins).
"""

from __future__ import annotations

from typing import Callable, Iterator

from toolkit import model as m
from toolkit.model import Atom
from toolkit.semantics import effect_delta
from toolkit.task import GroundAction, Task


def precondition_expectations(task: Task, action: GroundAction) -> list[tuple[Atom, bool]]:
    """ViPlan's precondition questions for ``action``: (atom, expected truth), deduplicated, in walk order."""
    binding: dict[str, str] = {var: arg for (var, _), arg in zip(action.schema.params, action.args)}
    out: dict[Atom, bool] = {}
    for atom, value in _walk(action.schema.precondition, binding, True, task.objects_of):
        out[atom] = value  # ViPlan's dict: a repeated atom keeps its first place, its last value
    return list(out.items())


def precondition_literals(task: Task, action: GroundAction) -> list[tuple[Atom, bool]]:
    """The literals ``action``'s precondition requires in PDDL's meaning, which a planner's plan satisfies.

    Unlike :func:`precondition_expectations` (the questions ViPlan asks), a ``forall`` covers
    every object of its type, the action's own arguments included: ``grasp(m)`` needs
    ``(not (holding m))`` though ViPlan never asks it. ``or`` and the rest are skipped.
    """
    binding: dict[str, str] = {var: arg for (var, _), arg in zip(action.schema.params, action.args)}
    out: dict[Atom, bool] = {}
    for atom, value in _walk(action.schema.precondition, binding, True, task.objects_of, skip_bound=False):
        out[atom] = value
    return list(out.items())


def _walk(node: m.Condition, binding: dict[str, str], value: bool,
          objects_of: Callable[[tuple[str, ...]], tuple[str, ...]], skip_bound: bool = True
          ) -> Iterator[tuple[Atom, bool]]:
    if isinstance(node, m.Pred):
        yield Atom(node.predicate, tuple(binding.get(t, t) for t in node.terms)), value
    elif isinstance(node, m.Not):
        yield from _walk(node.arg, binding, not value, objects_of, skip_bound)
    elif isinstance(node, m.And):
        for part in node.parts:
            yield from _walk(part, binding, value, objects_of, skip_bound)
    elif isinstance(node, m.Forall):
        yield from _forall(node.params, node.body, dict(binding) if not skip_bound else binding, value, objects_of,
                           skip_bound)
    # Or, Imply, Exists, Equals: nothing to ask one atom at a time (see the module docstring)


def _forall(params: tuple[m.Param, ...], body: m.Condition, binding: dict[str, str], value: bool,
            objects_of: Callable[[tuple[str, ...]], tuple[str, ...]], skip_bound: bool = True
            ) -> Iterator[tuple[Atom, bool]]:
    (var, types), rest = params[0], params[1:]
    for obj in objects_of(types):
        if skip_bound and obj in binding.values():  # ViPlan: `if str(value) in grounded_args.values(): continue`
            continue
        binding[var] = obj
        if rest:
            yield from _forall(rest, body, binding, value, objects_of, skip_bound)
        else:
            yield from _walk(body, binding, value, objects_of, skip_bound)


def effect_expectations(action: GroundAction, true_before: frozenset[Atom]) -> list[tuple[Atom, bool]]:
    """ViPlan's effect questions: the literals that fire in the true prior state, (atom, expected truth), sorted."""
    adds, dels, _ = effect_delta(action.effect, true_before)
    expected = {atom: False for atom in dels}
    expected.update({atom: True for atom in adds})
    return sorted(expected.items())
