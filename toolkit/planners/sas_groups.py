"""Multi-valued variables for Fast Downward's search, chosen from pgt's own invariants.

Fast Downward's translator encodes a task with one finite-domain variable per
mutex group ("package p1 is at one place or in one vehicle"), not one binary
variable per atom: logistics98 prob01 has 14 variables there against 66 binary
ones. Its search runs on states of that encoding, and LM-cut and hmax see one
fact per value instead of an atom and its negation, so the same task searched
on binary variables costs more (logistics98 prob01: 16.5 s against 10.3 s).

This module makes the encoding the translator makes, from what pgt already
proved: the preserved patterns of :func:`toolkit.invariants.find_patterns`
instantiated on the task (FD: ``invariant_finder.get_groups``,
``fact_groups.instantiate_groups``), with FD's greedy cover
(``fact_groups.choose_groups``: the largest group first, its atoms removed from
the others, the atoms no group covers left binary) and its value names
(``build_translation_key``: the group's atoms, then ``<none of those>``).

Where pgt stays simpler than the translator, the atom stays binary instead:

- an atom negated in a precondition (FD multiplies such an operator out over
  the variable's other values) or in the goal (FD does the same:
  ``choose_groups``' ``negative_in_goal``);
- a group that an operator would have to change under a condition (a delete of
  an atom the precondition does not fix, which FD writes as a conditional
  effect ``var=atom -> var:=<none of those>``; LM-cut refuses those): the group
  is dropped and the cover chosen again.

The groups are only used when every action reachable from the start state was
checked by the invariant analysis (the state is one reachable from the initial
state, as along a replanning loop) and the start state satisfies each group.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable

from toolkit.invariants import find_patterns, groups
from toolkit.model import Atom
from toolkit.task import Task

NONE_OF_THOSE = "<none of those>"  # FD's name of the value "no atom of the group is true"


def candidate_groups(task: Task, state: frozenset[Atom], fluent: Iterable[Atom],
                     excluded: frozenset[Atom] = frozenset()) -> list[frozenset[Atom]]:
    """The ground mutex groups that hold from ``state``, over ``fluent`` atoms minus ``excluded``, sorted.

    Empty where the start state reaches an action the invariant analysis did not
    check (its preservation proof covers the actions reachable from the problem's
    initial state only).
    """
    reachable = task.grounding(state).actions
    if state != task.init and not set(reachable) <= set(task.reachable_actions()):
        return []
    fluent_set = set(fluent) - excluded
    out: set[frozenset[Atom]] = set()
    for group in groups(task, find_patterns(task)):
        if len(group.atoms & state) > 1:
            continue  # preserved, but this start state breaks it: no invariant here
        atoms = group.atoms & fluent_set
        if len(atoms) > 1:
            out.add(frozenset(atoms))
    return sorted(out, key=sorted)


def choose_groups(candidates: list[frozenset[Atom]], atoms: Iterable[Atom]) -> list[list[Atom]]:
    """FD's greedy cover (``fact_groups.choose_groups`` with partial encoding), deterministically.

    The largest remaining group becomes a variable and its atoms leave every other
    group, until no group of two atoms is left; each uncovered atom becomes a
    one-atom (binary) group. Ties go to the group first in sorted order.
    """
    remaining = [set(g) for g in candidates]
    by_atom: dict[Atom, list[int]] = {}
    for i, g in enumerate(remaining):
        for atom in g:
            by_atom.setdefault(atom, []).append(i)
    heap = [(-len(g), i) for i, g in enumerate(remaining)]
    heapq.heapify(heap)
    chosen: list[list[Atom]] = []
    covered: set[Atom] = set()
    while heap:
        size, i = heapq.heappop(heap)
        group = remaining[i]
        if -size != len(group):
            heapq.heappush(heap, (-len(group), i))  # shrank since it was queued
            continue
        if len(group) < 2:
            break
        chosen.append(sorted(group))
        covered |= group
        for atom in list(group):
            for j in by_atom[atom]:
                remaining[j].discard(atom)
    chosen += [[atom] for atom in sorted(set(atoms) - covered)]
    return chosen


class Encoding:
    """Atoms as (variable, value) pairs; a one-atom variable is binary (the atom, then its negation)."""

    def __init__(self, variables: list[list[Atom]]) -> None:
        self.variables = variables
        self.value: dict[Atom, tuple[int, int]] = {
            atom: (v, i) for v, atoms in enumerate(variables) for i, atom in enumerate(atoms)}

    def none_value(self, var: int) -> int:
        """The value "none of the group's atoms" (the negation, for a binary variable)."""
        return len(self.variables[var])

    def is_group(self, var: int) -> bool:
        return len(self.variables[var]) > 1

    def value_names(self, var: int, used_none: bool) -> list[str]:
        """FD's value names (``build_translation_key``); ``<none of those>`` only where it can hold."""
        atoms = self.variables[var]
        names = [f"Atom {atom.predicate}({', '.join(atom.args)})" for atom in atoms]
        if len(atoms) == 1:
            return [*names, "Negated" + names[0]]
        return [*names, NONE_OF_THOSE] if used_none else names

    def state_values(self, state: frozenset[Atom]) -> list[int]:
        out = [self.none_value(v) for v in range(len(self.variables))]
        for atom in state:
            hit = self.value.get(atom)
            if hit is not None:
                out[hit[0]] = hit[1]
        return out
