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

from operator import itemgetter
from typing import TYPE_CHECKING, Callable, Iterable, Sequence

from toolkit.fluents import MISSING, FluentState, values_of
from toolkit.model import Atom, Number

if TYPE_CHECKING:
    from toolkit.task import GroundAction

# After a step, bring derived atoms up to date in the working state; returns (added, removed).
DeriveHook = Callable[["WorkingState"], "tuple[Iterable[Atom], Iterable[Atom]]"]
_MISSING = MISSING  # a fluent without a value before a step set it
_EMPTY: frozenset[Atom] = frozenset()


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


class Effect(tuple):
    """What one step would do, computed in the state before it (nothing applied yet): ``adds``, ``dels``,
    ``fired`` (the conditional effects that fire), ``values`` (the fluents it sets, numeric tasks; else
    None), ``undefined`` (numeric effects reading a fluent without a value: VAL refuses the step) and
    ``old_values`` (the set fluents' values before, as ``(fluent, value)`` pairs, where the action's
    compiled code read them; else None).

    A tuple with named fields, built by ``tuple.__new__`` (no Python ``__init__`` per step) and read
    through C getters: a step builds one, so its cost is the step's; and no dataclass, whose generated
    methods this start-up path (`pgt validate`) would compile at import.
    """

    __slots__ = ()
    adds = property(itemgetter(0))
    dels = property(itemgetter(1))
    fired = property(itemgetter(2))
    values = property(itemgetter(3))
    undefined = property(itemgetter(4))
    old_values = property(itemgetter(5))

    def __new__(cls, adds: frozenset[Atom] | set[Atom], dels: frozenset[Atom] | set[Atom], fired: Sequence[str],
                values: dict[Atom, Number] | None, undefined: Sequence[str],
                old_values: Sequence[tuple[Atom, object]] | None = None) -> Effect:
        return _new(cls, (adds, dels, fired, values, undefined, old_values))


class Change(tuple):
    """What one applied step did: ``added`` and ``removed`` (the atoms it really changed), ``old_values``
    (``(fluent, value)`` pairs, the value ``_MISSING`` where the fluent had none) and ``new_values`` (a
    dict keyed by fluent); both None when the step set no fluent. A tuple with named fields, as
    :class:`Effect`."""

    __slots__ = ()
    added = property(itemgetter(0))
    removed = property(itemgetter(1))
    old_values = property(itemgetter(2))
    new_values = property(itemgetter(3))

    def __new__(cls, added: frozenset[Atom], removed: frozenset[Atom],
                old_values: Sequence[tuple[Atom, object]] | None = None,
                new_values: dict[Atom, Number] | None = None) -> Change:
        return _new(cls, (added, removed, old_values, new_values))


_new = tuple.__new__
_NOTHING: tuple[str, ...] = ()


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
        # .copy(), not dict(): through a FluentState's read-only proxy dict() hashes every key again.
        self.state = WorkingState(init, values.copy() if self.numeric else None)
        self.changes: list[Change] = []
        self.derive = derive
        self._cached: tuple[int, frozenset[Atom]] = (0, init)

    def effect(self, act: GroundAction) -> Effect:
        """The step's effect in the current state (not applied): PDDL's rules, all in the old state."""
        state = self.state
        ground = act.ground_effect
        if ground.plain:  # no conditional effect: the ground effect's own sets (read, never changed)
            adds, dels, fired = ground.adds, ground.dels, _NOTHING
        else:
            adds, dels, fired = ground.delta(state)
        if act.updates is None:
            return _new(Effect, (adds, dels, fired, None, _NOTHING, None))
        # Compiled in a numeric task (toolkit.fluent_code), which also reads the old values for undo.
        return _new(Effect, (adds, dels, fired, *act.value_changes(state)))

    def apply(self, eff: Effect) -> None:
        """Apply an effect computed by :meth:`effect` in the current state: deletes, then adds, then values."""
        self._commit(eff[0], eff[1], eff[3], eff[5])

    def advance(self, act: GroundAction) -> tuple[Sequence[str], Sequence[str]]:
        """:meth:`effect` and :meth:`apply` in one call, for a step whose precondition holds: returns the
        conditional effects that fired and the numeric effects that read a fluent without a value; where
        there are any (VAL refuses the step there) nothing is applied.

        The validator's path for an applicable step: no :class:`Effect` is built, and the old values
        the action's compiled code read go straight into the record.
        """
        state = self.state
        ground = act.ground_effect
        if ground.plain:
            adds, dels, fired = ground.adds, ground.dels, _NOTHING
        else:
            adds, dels, fired = ground.delta(state)
        if act.updates is None:
            self._commit(adds, dels, None, None)
            return fired, _NOTHING
        new, undefined, old = act.value_changes(state)
        if undefined:
            return fired, undefined
        self._commit(adds, dels, new, old)
        return fired, _NOTHING

    def _commit(self, adds: frozenset[Atom] | set[Atom], dels: frozenset[Atom] | set[Atom],
                new: dict[Atom, Number] | None, old: Sequence[tuple[Atom, object]] | None) -> None:
        state = self.state
        # With frozensets from the ground effect (no conditional effect fired) the results are frozensets
        # already, and frozenset() of one is the object itself: no copy on the common path.
        removed = (dels & state) - adds if dels else _EMPTY
        added = adds - state if adds else _EMPTY
        if removed:
            state.difference_update(removed)
        if added:
            state.update(added)
        if new:
            current = state.values
            if current is None:  # a numeric task run from a caller's plain set of atoms
                current = state.values = {}
                self.numeric = True
            if old is None:
                get = current.get
                old = [(k, get(k, _MISSING)) for k in new]
            current.update(new)
        else:
            new = old = None
        if self.derive is not None:
            more_added, more_removed = self.derive(state)
            added, removed = added | frozenset(more_added), removed | frozenset(more_removed)
        self.changes.append(_new(Change, (frozenset(added), frozenset(removed), old, new)))

    def undo(self) -> None:
        """Take back the last step (the caller that needs the old state back)."""
        change = self.changes.pop()
        self._rewind(self.state, change)
        if self._cached[0] > len(self.changes):
            self._cached = (0, self.init)

    @staticmethod
    def _rewind(state: WorkingState, change: Change) -> None:
        added, removed, old_values, _ = change
        state.difference_update(added)
        state.update(removed)
        if old_values:
            values = state.values
            for k, v in old_values:
                if v is _MISSING:
                    values.pop(k, None)
                else:
                    values[k] = v

    @staticmethod
    def _forward(state: WorkingState, change: Change) -> None:
        added, removed, _, new_values = change
        state.difference_update(removed)
        state.update(added)
        if new_values:
            state.values.update(new_values)

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
            work = WorkingState(frozen, values_of(frozen).copy() if self.numeric else None)
            if k > at:
                for change in self.changes[at:k]:
                    self._forward(work, change)
            else:
                for change in reversed(self.changes[k:at]):
                    self._rewind(work, change)
        frozen = work.frozen()
        self._cached = (k, frozen)
        return frozen
