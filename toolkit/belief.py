"""Belief states: each atom true, false or unknown, optionally with a probability.

Used for partial observability and noisy grounding. Atoms absent from the belief
are unknown. Probabilities are P(atom is true).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Iterable, Mapping

from toolkit.model import Atom


@dataclass(frozen=True)
class BeliefState:
    """An immutable three-valued belief over atoms.

    >>> b = BeliefState.from_state({Atom("clear", ("a",))}, [Atom("clear", ("a",)), Atom("clear", ("b",))])
    >>> b.value(Atom("clear", ("a",))), b.value(Atom("clear", ("b",))), b.value(Atom("on", ("a", "b")))
    (True, False, None)
    """

    probs: Mapping[Atom, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        bad = [a for a, p in self.probs.items() if not 0.0 <= p <= 1.0]
        if bad:
            raise ValueError(f"probabilities must be in [0, 1]: {bad[0]}")
        object.__setattr__(self, "probs", MappingProxyType(dict(self.probs)))

    @classmethod
    def from_state(cls, state: Iterable[Atom], universe: Iterable[Atom]) -> BeliefState:
        """Certain belief: atoms of ``state`` true, the rest of ``universe`` false."""
        true = frozenset(state)
        return cls({a: 1.0 if a in true else 0.0 for a in (*universe, *true)})

    @classmethod
    def from_values(cls, values: Mapping[Atom, bool | None]) -> BeliefState:
        return cls({a: 1.0 if v else 0.0 for a, v in values.items() if v is not None})

    def probability(self, atom: Atom) -> float | None:
        return self.probs.get(atom)

    def value(self, atom: Atom, threshold: float = 0.5) -> bool | None:
        """True/False when known (p above/below ``threshold``), None when unknown or exactly undecided."""
        p = self.probs.get(atom)
        if p is None or p == threshold:
            return None
        return p > threshold

    @property
    def true_atoms(self) -> frozenset[Atom]:
        return frozenset(a for a, p in self.probs.items() if p > 0.5)

    @property
    def unknown_atoms(self) -> frozenset[Atom]:
        return frozenset(a for a, p in self.probs.items() if p == 0.5)

    def most_likely_state(self, unknown_as: bool = False) -> frozenset[Atom]:
        """The closed-world state: atoms with p > 0.5, plus unknown ones if ``unknown_as``."""
        extra = self.unknown_atoms if unknown_as else frozenset()
        return self.true_atoms | extra

    def updated(self, values: Mapping[Atom, float]) -> BeliefState:
        merged = dict(self.probs)
        merged.update(values)
        return BeliefState(merged)

    def forget(self, atoms: Iterable[Atom]) -> BeliefState:
        merged = dict(self.probs)
        for a in atoms:
            merged.pop(a, None)
        return BeliefState(merged)
