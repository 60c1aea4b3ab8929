"""Which atoms ``pgt-grounder`` keeps a belief about, and which of them its first survey leaves unasked.

Kept apart from :mod:`toolkit.agents.belief_agent` (the episode loop): both are questions about
the task alone, answered once per episode from the grounded actions, and the tests read them
directly.
"""

from __future__ import annotations

from toolkit.agents.base import condition_literals
from toolkit.model import Atom
from toolkit.task import Task


def goal_only_predicates(task: Task) -> frozenset[str]:
    """Predicates the goal mentions but no precondition or effect condition reads.

    Their initial value decides nothing but whether the plan must achieve them, so
    the survey leaves them unasked (believed false: the plan achieves them, and the
    effect checks and the goal check look at them then). Were one already true and
    not achievable again, no plan would exist and the second opinion asks it.
    None in a domain with derived rules: a rule body may read a goal predicate for a precondition.
    """
    if task.domain.derived:
        return frozenset()
    read = {a.predicate for action in task.reachable_actions()
            for cond in (action.precondition, *(c.condition for c in action.effect.conditional))
            for a, _ in condition_literals(cond)}
    return frozenset(a.predicate for a, _ in condition_literals(task.goal)) - read


def relevant_atoms(task: Task) -> list[Atom]:
    """Atoms of predicates that some precondition, effect condition or the goal mentions."""
    conditions = [task.goal]
    for action in task.reachable_actions():
        conditions.append(action.precondition)
        conditions += [c.condition for c in action.effect.conditional]
    names = {a.predicate for cond in conditions for a, _ in condition_literals(cond)}
    # Derived atoms are not asked: the rules give them from the basic atoms (see _Episode.state).
    names -= task.domain.derived_predicates
    return [a for a in task.reachable_atoms() if a.predicate in names]
