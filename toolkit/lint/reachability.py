"""Relaxed reachability: which actions can ever fire and which goal atoms can ever hold.

Delete relaxation over the toolkit's own compiled ground actions: starting from
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


def relaxed_reachability(task: Task) -> tuple[set[Atom], list[GroundAction], list[GroundAction]]:
    """Reached atoms, actions that can fire, and actions that never can."""
    reached = set(task.init)
    pending = list(task.all_actions())
    fired: list[GroundAction] = []
    active: list[tuple[GroundAction, list]] = []
    changed = True
    while changed:
        changed = False
        rest = []
        for act in pending:
            if relaxed_holds(act.precondition, reached):
                fired.append(act)
                before = len(reached)
                reached |= act.effect.adds
                changed |= len(reached) != before
                active.append((act, list(act.effect.conditional)))
            else:
                rest.append(act)
        pending = rest
        for i, (act, conds) in enumerate(active):
            left = []
            for ce in conds:
                if relaxed_holds(ce.condition, reached):
                    before = len(reached)
                    reached |= ce.adds
                    changed |= len(reached) != before
                else:
                    left.append(ce)
            active[i] = (act, left)
    return reached, fired, pending
