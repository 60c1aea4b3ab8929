"""Applicable ground actions of a state without scanning every ground action.

Used by our A* (:mod:`toolkit.planners.search`) for every expansion and by
:meth:`toolkit.task.Task.applicable_actions`: on IPC tasks a state has a handful
of applicable actions among thousands of reachable ones, so looking only at the
actions keyed by the state's own atoms is what makes an expansion cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from toolkit.model import Atom

if TYPE_CHECKING:
    from toolkit.task import GroundAction


class SuccessorGenerator:
    """Each action is filed under one of its positive precondition atoms (the one
    shared by the fewest actions filed so far, so buckets stay small); a state
    only looks at the buckets of its own atoms, then checks the full precondition.
    Actions without positive precondition atoms are always checked.
    """

    def __init__(self, actions: Sequence[GroundAction]) -> None:
        self.by_atom: dict[Atom, list[tuple[int, GroundAction]]] = {}
        self.always: list[tuple[int, GroundAction]] = []
        for entry in enumerate(actions):
            pos = entry[1].precondition.pos
            if not pos:
                self.always.append(entry)
                continue
            key = min(pos, key=lambda a: (len(self.by_atom.get(a, ())), a))
            self.by_atom.setdefault(key, []).append(entry)

    def applicable(self, state: frozenset[Atom]) -> list[GroundAction]:
        """In the actions' own order, whatever the state's (hash-dependent) iteration order: same ties, same plans."""
        out = [e for e in self.always if e[1].is_applicable(state)]
        by_atom = self.by_atom
        for atom in state:
            bucket = by_atom.get(atom)
            if bucket:
                out.extend(e for e in bucket if e[1].is_applicable(state))
        out.sort(key=lambda e: e[0])
        return [a for _, a in out]
