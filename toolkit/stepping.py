"""Stepping one mutable state by deltas: a step costs what the action changes, not the state's size.

Every API hands out states as frozen values (a ``frozenset`` of atoms, a
:class:`~toolkit.fluents.FluentState` with fluent values). Building a new frozen
state per step copies the whole state: on nomystery p05 (16.5k facts) that is
milliseconds a step, where the action changes a handful of atoms. A hot loop
(validation) instead owns one :class:`WorkingState`, applies each step's delta
to it in place, and records the delta. From the record any earlier state can be
rebuilt when a caller asks for it (:meth:`Stepper.state_at`, used by the
reports' ``state_after``), and the last step can be undone (:meth:`Stepper.undo`).

The semantics are PDDL's, as in :mod:`toolkit.semantics`: the effect (adds,
deletes, fired conditional effects, numeric updates) is computed in the old
state, then deletes are applied before adds. Derived predicates plug in through
``derive``: a function called after each step with the working state, which
brings its derived atoms up to date in place and returns the (added, removed)
derived atoms, so that they are recorded with the step's own change.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterable

from toolkit.fluent_effects import update_values
from toolkit.fluents import FluentState, values_of
from toolkit.model import Atom, Number

if TYPE_CHECKING:
    from toolkit.task import GroundAction

# After a step, bring derived atoms up to date in the working state; returns (added, removed).
DeriveHook = Callable[["WorkingState"], "tuple[Iterable[Atom], Iterable[Atom]]"]
_MISSING = object()  # a fluent without a value before a step set it


class WorkingState(set):
    """The mutable state a stepper owns: its true atoms (the set itself) and, in a numeric task, the
    fluents' values (``values``, a dict). Every reader of states (``holds``, ``explain``,
    :func:`toolkit.fluents.values_of`) reads it as it reads a frozen state."""

    __slots__ = ("values",)

    def __init__(self, atoms: Iterable[Atom] = (), values: dict[Atom, Number] | None = None) -> None:
        super().__init__(atoms)
        self.values = values

    def frozen(self) -> frozenset[Atom]:
        """The state as the API's frozen value (a copy)."""
        if self.values is None:
            return frozenset(self)
        return FluentState.owning(self, dict(self.values))


class Effect:
    """What one step would do, computed in the state before it (nothing applied yet).

    A plain slotted class, not a dataclass: this module is on `pgt validate`'s start-up path, where
    each dataclass costs its generated methods' compilation at import.
    """

    __slots__ = ("adds", "dels", "fired", "values", "undefined")

    def __init__(self, adds: frozenset[Atom] | set[Atom], dels: frozenset[Atom] | set[Atom], fired: list[str],
                 values: dict[Atom, Number] | None, undefined: list[str]) -> None:
        self.adds, self.dels = adds, dels
        self.fired = fired  # the conditional effects that fire
        self.values = values  # the fluents it sets (numeric tasks)
        self.undefined = undefined  # numeric effects reading a fluent without a value (VAL refuses the step)


class Change:
    """What one applied step did: the atoms it really added and removed, the fluents' old and new values."""

    __slots__ = ("added", "removed", "old_values", "new_values")

    def __init__(self, added: frozenset[Atom], removed: frozenset[Atom],
                 old_values: tuple[tuple[Atom, object], ...] = (),
                 new_values: tuple[tuple[Atom, Number], ...] = ()) -> None:
        self.added, self.removed, self.old_values, self.new_values = added, removed, old_values, new_values


class Stepper:
    """One mutable state stepped by deltas from ``init``, with the record of every change.

    >>> from toolkit.domains import shipped_domain, shipped_problem
    >>> from toolkit.task import load_task
    >>> task = load_task(shipped_domain("blocksworld"), shipped_problem("blocksworld", "simple_problem_0"))
    >>> stepper = Stepper(task.init)
    >>> act = task.applicable_actions(task.init)[0]
    >>> stepper.apply(stepper.effect(act))
    >>> stepper.state_at(1) == act.apply(task.init), stepper.state_at(0) == task.init
    (True, True)
    >>> stepper.undo(); stepper.state == task.init
    True
    """

    def __init__(self, init: frozenset[Atom], derive: DeriveHook | None = None) -> None:
        self.init = init
        values = values_of(init)
        self.numeric = isinstance(init, FluentState)
        self.state = WorkingState(init, dict(values) if self.numeric else None)
        self.changes: list[Change] = []
        self.derive = derive
        self._cached: tuple[int, frozenset[Atom]] = (0, init)

    def effect(self, act: GroundAction) -> Effect:
        """The step's effect in the current state (not applied): PDDL's rules, all in the old state."""
        adds, dels, fired = act.ground_effect.delta(self.state)
        if act.updates is None:
            return Effect(adds, dels, fired, None, [])
        changes, undefined = update_values(act.updates, self.state)
        return Effect(adds, dels, fired, changes, undefined)

    def apply(self, eff: Effect) -> None:
        """Apply an effect computed by :meth:`effect` in the current state: deletes, then adds, then values."""
        state = self.state
        removed = (eff.dels & state) - eff.adds if eff.dels else frozenset()
        added = eff.adds - state if eff.adds else frozenset()
        state.difference_update(removed)
        state.update(added)
        old_values: tuple[tuple[Atom, object], ...] = ()
        new_values: tuple[tuple[Atom, Number], ...] = ()
        if eff.values:
            if state.values is None:  # a numeric task run from a caller's plain set of atoms
                state.values, self.numeric = {}, True
            current = state.values
            old_values = tuple((k, current.get(k, _MISSING)) for k in eff.values)
            new_values = tuple(eff.values.items())
            current.update(eff.values)
        if self.derive is not None:
            more_added, more_removed = self.derive(state)
            added, removed = added | frozenset(more_added), removed | frozenset(more_removed)
        self.changes.append(Change(frozenset(added), frozenset(removed), old_values, new_values))

    def undo(self) -> None:
        """Take back the last step (the caller that needs the old state back)."""
        change = self.changes.pop()
        self._rewind(self.state, change)
        if self._cached[0] > len(self.changes):
            self._cached = (0, self.init)

    @staticmethod
    def _rewind(state: WorkingState, change: Change) -> None:
        state.difference_update(change.added)
        state.update(change.removed)
        for k, v in reversed(change.old_values):
            if v is _MISSING:
                state.values.pop(k, None)
            else:
                state.values[k] = v

    @staticmethod
    def _forward(state: WorkingState, change: Change) -> None:
        state.difference_update(change.removed)
        state.update(change.added)
        if change.new_values:
            state.values.update(change.new_values)

    def snapshot(self) -> frozenset[Atom]:
        """The current state as a frozen value (a copy, O(state))."""
        return self.state_at(len(self.changes))

    def state_at(self, k: int) -> frozenset[Atom]:
        """The frozen state after ``k`` steps (0: ``init``), rebuilt from the nearest known state.

        Walking the steps in order (a trace page, ``--states``) costs one replayed delta and one
        copy per state asked for.
        """
        n = len(self.changes)
        if not 0 <= k <= n:
            raise IndexError(f"state {k} of a run of {n} steps")
        at, frozen = self._cached
        if at == k:
            return frozen
        if k == n:  # the working state itself: one copy
            frozen = self.state.frozen()
            self._cached = (k, frozen)
            return frozen
        if n - k < abs(k - at):  # nearer the working state: walk back from it
            work = WorkingState(self.state, dict(self.state.values) if self.numeric else None)
            for change in reversed(self.changes[k:]):
                self._rewind(work, change)
        else:
            work = WorkingState(frozen, dict(values_of(frozen)) if self.numeric else None)
            if k > at:
                for change in self.changes[at:k]:
                    self._forward(work, change)
            else:
                for change in reversed(self.changes[k:at]):
                    self._rewind(work, change)
        frozen = work.frozen()
        self._cached = (k, frozen)
        return frozen
