"""A belief over atoms built from noisy yes/no evidence and invariant groups.

Every tracked atom carries the log-odds of the evidence about it (0: no idea).
An answer with confidence ``c`` (the grounder's P(verdict right)) adds
``+-log(c / (1 - c))``. Atoms in an invariant group (:mod:`toolkit.invariants`)
are not independent: under "exactly one" the posterior of atom ``i`` is
``exp(L_i) / sum_j exp(L_j)``, under "at most one" the sum also counts the
"none" case. So a second "yes" in an exactly-one group makes both atoms
uncertain, which is what sends the agent back to ask again. An atom in several
groups takes its least certain group posterior (conservative: it can only cause
an extra question, never a false certainty).
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence

from toolkit.invariants import Group
from toolkit.model import Atom


def logit(p: float) -> float:
    return math.log(p / (1.0 - p))


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x > -700 else 0.0


class EvidenceBelief:
    """Mutable per-episode belief: log-odds per atom plus invariant groups."""

    def __init__(self, atoms: Iterable[Atom], groups: Sequence[Group], max_confidence: float = 0.999) -> None:
        self.logodds: dict[Atom, float] = {a: 0.0 for a in atoms}
        self.max_confidence = max_confidence
        self.groups: list[Group] = []
        self.groups_of: dict[Atom, list[Group]] = {}
        for g in groups:
            self.add_group(g)

    def add_group(self, group: Group) -> None:
        if not group.atoms <= self.logodds.keys():
            return  # a group over untracked atoms would count unknowns as evidence
        self.groups.append(group)
        for a in group.atoms:
            self.groups_of.setdefault(a, []).append(group)

    def __contains__(self, atom: Atom) -> bool:
        return atom in self.logodds

    # ------------------------------------------------------------ evidence

    def weight(self, confidence: float) -> float:
        """Log-odds of one answer; 0 for a coin flip, capped so no answer is infinitely sure.

        A confidence below 0.5 (a predicate the grounder gets wrong more often than
        right, as in some ViPlan-HH calibrations) gives a negative weight: the
        answer is evidence for the opposite.
        """
        c = min(max(confidence, 1.0 - self.max_confidence), self.max_confidence)
        return logit(c)

    def observe(self, atom: Atom, value: bool, confidence: float) -> None:
        w = self.weight(confidence)
        self.logodds[atom] += w if value else -w

    def set(self, atom: Atom, value: bool, confidence: float) -> None:
        """Replace all evidence about ``atom`` (a prediction, or privileged information)."""
        w = self.weight(confidence)
        self.logodds[atom] = w if value else -w

    def weaken(self, atoms: Iterable[Atom], factor: float) -> None:
        """Scale old evidence down: the world may have changed these atoms behind our back."""
        for a in atoms:
            self.logodds[a] *= factor

    # ------------------------------------------------------------ posterior

    def prob(self, atom: Atom) -> float:
        """P(atom is true) under the evidence and the invariant groups."""
        in_groups = self.groups_of.get(atom)
        if not in_groups:
            return sigmoid(self.logodds[atom])
        return min((self._group_prob(atom, g) for g in in_groups), key=lambda p: abs(p - 0.5))

    def _group_prob(self, atom: Atom, group: Group) -> float:
        values = [self.logodds[a] for a in group.atoms]
        if not group.pattern.exactly_one:
            values.append(0.0)  # "none of them"
        top = max(values)
        total = sum(math.exp(v - top) for v in values)
        return math.exp(self.logodds[atom] - top) / total

    def confidence(self, atom: Atom) -> float:
        """P(the most likely value of ``atom`` is right)."""
        p = self.prob(atom)
        return max(p, 1.0 - p)

    def state(self) -> frozenset[Atom]:
        """The most likely state; each exactly-one group gets its most likely atom even when unsure."""
        true = {a for a in self.logodds if self.prob(a) > 0.5}
        for g in self.groups:
            if g.pattern.exactly_one and not g.atoms & true:
                true.add(max(sorted(g.atoms), key=self.logodds.__getitem__))
        return frozenset(true)
