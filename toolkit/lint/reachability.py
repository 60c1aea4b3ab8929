"""Relaxed reachability: which actions can ever fire and which goal atoms can ever hold.

Delete relaxation (computed by :mod:`toolkit.reach`, the toolkit's one grounder): starting from
the initial state, keep adding the adds of every action whose positive
precondition atoms have been reached (negative literals are assumed satisfiable,
which over-approximates), including conditional effects whose conditions are
relaxed-reachable. An action that never fires here can never fire at all; a
positive goal atom never reached can never become true. This is sound for the
"never" claims, which are the only ones lint makes.

Why not tarski: its grounder and reachability analysis run through the external
clingo/gringo ASP solver and a second PDDL parser with its own fragment; the
toolkit already compiles ground actions with the exact semantics the verifier
uses, and the shipped problems ground in milliseconds.
"""

from __future__ import annotations

import itertools

from toolkit.grounding import CompiledCondition, GAnd, GLit, GNode
from toolkit.model import Atom
from toolkit.task import GroundAction, Task


def _relaxed(node: GNode, reached: set[Atom]) -> bool:
    if node is True or node is False:
        return node
    if isinstance(node, GLit):
        return not node.positive or node.atom in reached
    if isinstance(node, GAnd):
        return all(_relaxed(p, reached) for p in node.parts)
    return any(_relaxed(p, reached) for p in node.parts)


def relaxed_holds(cond: CompiledCondition, reached: set[Atom]) -> bool:
    if not cond.pos <= reached:
        return False
    return cond.tree is None or _relaxed(cond.tree, reached)


_SAMPLE = 2000  # type-consistent instances inspected per never-applicable schema, for the hint


def relaxed_reachability(task: Task) -> tuple[set[Atom], list[GroundAction], list[GroundAction]]:
    """Reached atoms, actions that can fire, and (a bounded sample of) instances of schemas that never fire.

    The fixpoint itself is :meth:`toolkit.task.Task.grounding` (one grounding for the
    whole toolkit); a schema with no reachable instance gets up to ``_SAMPLE`` of its
    type-consistent instances back, so findings can show which precondition atom is missing.
    """
    grounding = task.grounding()
    reached = set(grounding.atoms)
    fired = list(grounding.actions)
    fired_schemas = {a.name for a in fired}
    never: list[GroundAction] = []
    for schema in task.domain.actions.values():
        if schema.name in fired_schemas:
            continue
        combos = itertools.product(*(task.objects_of(t) for _, t in schema.params))
        never.extend(task.instantiate(schema.name, args) for args in itertools.islice(combos, _SAMPLE))
    return reached, fired, never
