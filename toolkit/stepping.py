"""Stepping one mutable state by deltas: a step costs what the action changes, not the state's size.

Every API hands out states as frozen values (a ``frozenset`` of atoms, a
:class:`~toolkit.fluents.FluentState` with fluent values). Building a new frozen
state per step copies the whole state: on nomystery p05 (16.5k facts) that is
milliseconds a step, where the action changes a handful of atoms. A hot loop
(validation) instead owns one :class:`WorkingState`, applies each step's delta
to it in place, and records the delta. From the record any earlier state can be
rebuilt when a caller asks for it (:meth:`Stepper.state_at`, used by the
reports' ``state_after``), and the last step can be undone (:meth:`Stepper.undo`).
A step its schema's step function takes (:mod:`toolkit.action_tier`) is not even
recorded until a record is read (:meth:`Stepper.took`): most validations read only
their verdict.

The semantics are PDDL's, as in :mod:`toolkit.semantics`: the effect (adds,
deletes, fired conditional effects, numeric updates) is computed in the old
state, then deletes are applied before adds. Derived predicates plug in through
``derive``: a function called after each step with the working state, which
brings its derived atoms up to date in place and returns the (added, removed)
derived atoms, so that they are recorded with the step's own change.
"""

from __future__ import annotations

from operator import itemgetter
from typing import TYPE_CHECKING, Callable, Iterable, Mapping, Sequence

from toolkit.fluent_slots import FluentIndex, SlotValues
from toolkit.fluents import FluentState, values_of
from toolkit.model import Atom, Number

if TYPE_CHECKING:
    from toolkit.task import GroundAction

# After a step, bring derived atoms up to date in the working state; returns (added, removed).
DeriveHook = Callable[["WorkingState"], "tuple[Iterable[Atom], Iterable[Atom]]"]
_EMPTY: frozenset[Atom] = frozenset()


class WorkingState(set):
    """The mutable state a stepper owns: its true atoms (the set itself) and, in a numeric task, the
    fluents' values: ``slots``, a list by the task's fluent numbers (``index``, a
    :class:`~toolkit.fluent_slots.FluentIndex`; ``None`` where a fluent has no value), which compiled
    actions read and write, and ``values``, the same list read as a mapping keyed by atom. Every reader of
    states (``holds``, ``explain``, :func:`toolkit.fluents.values_of`) reads it as it reads a frozen state."""

    __slots__ = ("slots", "index")

    def __init__(self, atoms: Iterable[Atom] = (), values: Mapping[Atom, Number] | None = None,
                 index: FluentIndex | None = None) -> None:
        set.__init__(self, atoms)  # not super(): a frame and a proxy fewer per run
        if values is None:
            self.slots = self.index = None
        else:
            index = index or FluentIndex(values)
            self.index, self.slots = index, index.slots_of(values)

    @property
    def values(self) -> SlotValues | None:
        """The values read as a mapping keyed by atom (a view of the list; None in a boolean task)."""
        return None if self.index is None else SlotValues(self.index, self.slots)

    def number_values(self, index: FluentIndex, slots: list | None = None) -> None:
        """Keep the values in a list by ``index``'s numbers (empty, or ``slots`` itself)."""
        self.index, self.slots = index, [None] * len(index.atoms) if slots is None else slots

    def copy_state(self) -> WorkingState:
        """An independent working copy (its own set and value list, the same index)."""
        out = WorkingState(self)
        if self.index is not None:
            out.number_values(self.index, list(self.slots))
        return out

    def frozen(self) -> frozenset[Atom]:
        """The state as the API's frozen value (a copy)."""
        if self.index is None:
            return frozenset(self)
        return FluentState.owning(self, self.index.as_dict(self.slots))


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
    and ``new_values``, the set fluents' values before and after as flat ``(number, value, number, value,
    ...)`` tuples (numbers of the working state's :class:`~toolkit.fluent_slots.FluentIndex`; the value
    ``None`` where a fluent had none: one tuple, not one per fluent, as a step builds one); both None when
    the step set no fluent. A tuple with named fields, as :class:`Effect`: the view of a step's record that
    :attr:`Stepper.changes` gives; the steps record the same four items as a plain tuple (making this
    subclass was a fifth of a validated step's whole cost)."""

    __slots__ = ()
    added = property(itemgetter(0))
    removed = property(itemgetter(1))
    old_values = property(itemgetter(2))
    new_values = property(itemgetter(3))

    def __new__(cls, added: frozenset[Atom], removed: frozenset[Atom],
                old_values: Sequence[object] | None = None, new_values: Sequence[object] | None = None) -> Change:
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

    # Steps taken without records (see took): (the run's steps' (action, _) pairs, how many of its first steps,
    # the working state's fluent index), until the records are read
    _untaken: tuple[Sequence[tuple], int, FluentIndex | None] | None = None

    def __init__(self, init: frozenset[Atom], derive: DeriveHook | None = None,
                 index: FluentIndex | None = None) -> None:
        self.init = init
        self.numeric = isinstance(init, FluentState)
        # ``index``: the task's fluent numbers (Task.fluent_index), which its compiled actions read by.
        self.state = WorkingState(init, init.values if self.numeric else None, index)  # type: ignore[attr-defined]
        # Every step's record, (added, removed, old_values, new_values) as a plain tuple (see Change; for a step
        # taken without one, a placeholder until read: see took)
        self.records: list[tuple] = []
        self.derive = derive
        self._cached: tuple[int, frozenset[Atom]] = (0, init)

    def took(self, pairs: Sequence[tuple], n: int) -> None:
        """Steps were taken by their schemas' step functions (:mod:`toolkit.action_tier`) without records: the
        first ``n``, the actions of ``pairs`` (``(action, _)``; their placeholders, None, put here), and any later
        one whose placeholder the caller put as its action itself (the validator: a run that reads only its
        verdict reads no record). The placeholders stay until a record is read (:meth:`changes`, :meth:`state_at`,
        :meth:`undo`), then the records are made by taking the steps again from ``init``: the same records."""
        self.records += [None] * n
        self._untaken = (pairs, n, self.state.index)

    def _take_again(self) -> None:
        """The records of the steps :meth:`took` left without: the run taken again from ``init``, a recorded step
        by its record, one without by its step function or (where it has none now: toolkit.verify._count_uses)
        the action's own path."""
        pairs, n, index = self._untaken  # type: ignore[misc]
        del self._untaken
        again = Stepper(self.init, self.derive, index)
        work, records = again.state, again.records
        for k, record in enumerate(self.records):
            if record.__class__ is tuple:
                self._forward(work, record)
                records.append(record)
                continue
            act = pairs[k][0] if k < n else record
            tier = act.tier
            if tier is None or not tier(work, records, act.args):
                again.advance(act)
        self.records[:] = records

    @property
    def changes(self) -> list[Change]:
        """Every step's record as a :class:`Change` (the records themselves, made Changes where they are not)."""
        if self._untaken is not None:
            self._take_again()
        records = self.records
        for k, record in enumerate(records):
            if record.__class__ is not Change:
                records[k] = _new(Change, record)
        return records  # type: ignore[return-value]

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
        return _new(Effect, (adds, dels, fired, *act.value_changes(state)))

    def apply(self, eff: Effect) -> None:
        """Apply an effect computed by :meth:`effect` in the current state: deletes, then adds, then values."""
        self._commit(eff[0], eff[1], eff[3])

    def advance(self, act: GroundAction) -> tuple[Sequence[str], Sequence[str]]:
        """:meth:`effect` and :meth:`apply` in one call, for a step whose precondition holds: returns the
        conditional effects that fired and the numeric effects that read a fluent without a value; where
        there are any (VAL refuses the step there) nothing is applied.

        The validator's path for an applicable step: no :class:`Effect` is built. In a numeric task the
        action's compiled code (:mod:`toolkit.fluent_writes`) computes every value in the old state and
        writes them into the working state's value list; for an action without conditional effects it
        does the whole step, record included, in one call.
        """
        if act.updates is not None:
            if self.derive is None and act.step_in_place(self.state, self.records):
                return _NOTHING, _NOTHING
            return self.advance_values(act)
        ground = act.ground_effect
        if ground.plain:
            self._commit(ground.adds, ground.dels, None)
            return _NOTHING, _NOTHING
        adds, dels, fired = ground.delta(self.state)
        self._commit(adds, dels, None)
        return fired, _NOTHING

    def advance_values(self, act: GroundAction) -> tuple[Sequence[str], Sequence[str]]:
        """:meth:`advance` of a numeric step, past the action's whole-step code (``step_in_place``): for a
        caller that tried that code itself and saw it decline (the validator), or a task with derived
        predicates, where it never applies."""
        state = self.state
        ground = act.ground_effect
        if ground.plain:
            adds, dels, fired = ground.adds, ground.dels, _NOTHING
        else:
            adds, dels, fired = ground.delta(state)
        written = act.write_values(state)  # None: not compiled for this state, or a value to report
        if written is None:
            new, undefined, _ = act.value_changes(state)
            if undefined:
                return fired, undefined
            self._commit(adds, dels, new)
            return fired, _NOTHING
        added, removed = _apply_atoms(state, adds, dels)
        if self.derive is not None:
            more_added, more_removed = self.derive(state)
            added, removed = added | frozenset(more_added), removed | frozenset(more_removed)
        self.records.append((frozenset(added), frozenset(removed), *written))
        return fired, _NOTHING

    def _commit(self, adds: frozenset[Atom] | set[Atom], dels: frozenset[Atom] | set[Atom],
                new: dict[Atom, Number] | None) -> None:
        state = self.state
        added, removed = _apply_atoms(state, adds, dels)
        old = None
        if new:
            if state.index is None:  # a numeric task run from a caller's plain set of atoms
                state.number_values(FluentIndex())
                self.numeric = True
            number, slots = state.index.number, state.slots
            pairs = [(number(k), v) for k, v in new.items()]
            if len(slots) < len(state.index.atoms):
                slots.extend([None] * (len(state.index.atoms) - len(slots)))
            old = tuple(x for i, _ in pairs for x in (i, slots[i]))
            for i, v in pairs:
                slots[i] = v
            new = tuple(x for pair in pairs for x in pair)  # type: ignore[assignment]
        else:
            new = None
        if self.derive is not None:
            more_added, more_removed = self.derive(state)
            added, removed = added | frozenset(more_added), removed | frozenset(more_removed)
        self.records.append((frozenset(added), frozenset(removed), old, new))

    def undo(self) -> None:
        """Take back the last step (the caller that needs the old state back)."""
        if self._untaken is not None:
            self._take_again()
        change = self.records.pop()
        self._rewind(self.state, change)
        if self._cached[0] > len(self.records):
            self._cached = (0, self.init)

    @staticmethod
    def _rewind(state: WorkingState, change: Change) -> None:
        added, removed, old_values, _ = change
        state.difference_update(added)
        state.update(removed)
        if old_values:
            _write_slots(state, old_values)

    @staticmethod
    def _forward(state: WorkingState, change: Change) -> None:
        added, removed, _, new_values = change
        state.difference_update(removed)
        state.update(added)
        if new_values:
            _write_slots(state, new_values)

    def snapshot(self) -> frozenset[Atom]:
        """The current state as a frozen value (a copy, O(state))."""
        return self.state_at(len(self.records))

    def state_at(self, k: int) -> frozenset[Atom]:
        """The frozen state after ``k`` steps (0: ``init``), rebuilt from the nearest known state.

        Walking the steps in order (a trace page, ``--states``) costs one replayed delta and one
        copy per state asked for.
        """
        records = self.records
        n = len(records)
        if not 0 <= k <= n:
            raise IndexError(f"state {k} of a run of {n} steps")
        at, frozen = self._cached
        if at == k:
            return frozen
        if k == n:  # the working state itself: one copy
            frozen = self.state.frozen()
            self._cached = (k, frozen)
            return frozen
        if self._untaken is not None:
            self._take_again()
        if n - k < abs(k - at):  # nearer the working state: walk back from it
            work = self.state.copy_state()
            for change in reversed(records[k:]):
                self._rewind(work, change)
        else:
            work = WorkingState(frozen, values_of(frozen) if self.numeric else None, self.state.index)
            if k > at:
                for change in records[at:k]:
                    self._forward(work, change)
            else:
                for change in reversed(records[k:at]):
                    self._rewind(work, change)
        frozen = work.frozen()
        self._cached = (k, frozen)
        return frozen


def _apply_atoms(state: WorkingState, adds: frozenset[Atom] | set[Atom], dels: frozenset[Atom] | set[Atom]
                 ) -> tuple[frozenset[Atom] | set[Atom], frozenset[Atom] | set[Atom]]:
    """Apply a step's atom changes to ``state`` in place; (what was added, what was removed), for the undo record.

    With frozensets from the ground effect (no conditional effect fired) the results are frozensets
    already, and frozenset() of one is the object itself: no copy on the common path.
    """
    removed = (dels & state) - adds if dels else _EMPTY
    added = adds - state if adds else _EMPTY
    if removed:
        state.difference_update(removed)
    if added:
        state.update(added)
    return added, removed


def _write_slots(state: WorkingState, flat: tuple) -> None:
    """Write a :class:`Change`'s flat ``(number, value, number, value, ...)`` values into ``state``'s list."""
    slots, pairs = state.slots, iter(flat)
    for i, v in zip(pairs, pairs):
        slots[i] = v
