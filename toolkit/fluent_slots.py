"""Fluent values by number: a working state keeps its values in a list, not a dict keyed by atom.

Why: a dict keyed by :class:`~toolkit.model.Atom` hashes its key on every read and
write, and ``Atom.__hash__`` is a Python call; a numeric step reads and writes a
few fluents, so those calls were a third of a step. A task numbers its fluent atoms
once (:class:`FluentIndex`); the stepper's working state holds their values in a
list by that number (``None``: no value), which the compiled actions
(:mod:`toolkit.fluent_code`) read and write with integer subscripts.

Every other reader keeps reading a mapping keyed by atom: :class:`SlotValues` is
that view of the list (the interpreter, the failure explanations and a frozen copy
read it; none of them runs per step).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Iterable, Iterator

from toolkit.model import Atom, Number

_MAPPINGS = (dict, MappingProxyType)


class FluentIndex:
    """The fluent atoms of one task, numbered 0, 1, ... in the order first met (it grows, never renumbers).

    >>> index = FluentIndex([Atom("fuel", ("t1",))])
    >>> index.number(Atom("fuel", ("t2",))), index.slots_of({Atom("fuel", ("t2",)): 5})
    (1, [None, 5])
    """

    __slots__ = ("ids", "atoms", "_last")

    def __init__(self, atoms: Iterable[Atom] = ()) -> None:
        # numbered in the order first met (a mapping's keys, a task's values, are distinct: each hashed once);
        # a task's own mapping told by its class first (isinstance of the ABC costs 0.4 us per call on a proxy)
        distinct = atoms.__class__ in _MAPPINGS or isinstance(atoms, Mapping)
        self.atoms: list[Atom] = list(atoms) if distinct else list(dict.fromkeys(atoms))
        self.ids: dict[Atom, int] = dict(zip(self.atoms, range(len(self.atoms))))
        self._last: tuple[object, list] = (None, [])  # the last frozen values numbered, and their list

    def __getstate__(self) -> tuple[dict[Atom, int], list[Atom]]:
        """Pickled without the last numbered values (a read-only proxy, which pickle refuses)."""
        return self.ids, self.atoms

    def __setstate__(self, state: tuple[dict[Atom, int], list[Atom]]) -> None:
        self.ids, self.atoms = state
        self._last = (None, [])

    def number(self, atom: Atom) -> int:
        """The fluent's number (a new one for an atom not met before)."""
        i = self.ids.get(atom)
        if i is None:
            i = self.ids[atom] = len(self.atoms)
            self.atoms.append(atom)
        return i

    def canonical(self, atom: Atom) -> Atom:
        """The index's own object for ``atom``: a dict keyed by it finds the key by identity."""
        return self.atoms[self.number(atom)]

    def slots_of(self, values: Mapping[Atom, Number]) -> list:
        """The values as a list by number (``None`` where a fluent has no value).

        A frozen state's values (a read-only proxy, never changed) numbered last time are copied from
        that list: a validator starts every plan from the task's initial state, and numbering hashes
        every fluent atom (a Python call each) where a list copy is one C call.
        """
        last, slots = self._last
        if values is last and len(slots) == len(self.atoms):
            return slots.copy()
        if len(values) == len(self.atoms) and list(values) == self.atoms:  # keyed in the index's own order
            out = list(values.values())                                    # (a task's initial values)
            if None not in out:
                if type(values) is MappingProxyType:
                    self._last = (values, out.copy())
                return out
        out = [None] * len(self.atoms)
        ids = self.ids
        for atom, value in values.items():
            i = ids.get(atom)
            if i is None:
                i = self.number(atom)
                out.extend([None] * (i + 1 - len(out)))
            out[i] = value
        if type(values) is MappingProxyType:
            self._last = (values, out.copy())
        return out

    def as_dict(self, slots: list) -> dict[Atom, Number]:
        """The values of a list by number, as a dict keyed by atom (the fluents with a value)."""
        return {atom: value for atom, value in zip(self.atoms, slots) if value is not None}


class SlotValues(Mapping):
    """A working state's value list read as a mapping keyed by fluent atom (no copy; follows the list)."""

    __slots__ = ("index", "slots")

    def __init__(self, index: FluentIndex, slots: list) -> None:
        self.index, self.slots = index, slots

    def __getitem__(self, atom: Atom) -> Number:
        i = self.index.ids.get(atom)
        value = None if i is None or i >= len(self.slots) else self.slots[i]
        if value is None:
            raise KeyError(atom)
        return value

    def get(self, atom: Atom, default: object = None) -> object:
        i = self.index.ids.get(atom)
        value = None if i is None or i >= len(self.slots) else self.slots[i]
        return default if value is None else value

    def __contains__(self, atom: object) -> bool:
        return self.get(atom) is not None  # type: ignore[arg-type]

    def __iter__(self) -> Iterator[Atom]:
        return (atom for atom, value in zip(self.index.atoms, self.slots) if value is not None)

    def __len__(self) -> int:
        return sum(value is not None for value in self.slots)

    def copy(self) -> dict[Atom, Number]:
        return self.index.as_dict(self.slots)

    def __repr__(self) -> str:
        return f"SlotValues({self.copy()!r})"
