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

Two kinds of evidence besides answers: the expected information of a question
(:meth:`EvidenceBelief.information`, which counts what an answer about one atom
says about the others through the groups, so a question about ``(clear b)`` is
scored for what it tells about ``(on a b)``), and an action that visibly did
nothing (:meth:`EvidenceBelief.observe_no_effect`: some precondition was false).
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


def _entropy(p: float) -> float:
    if p <= 0.0 or p >= 1.0:
        return 0.0
    return -(p * math.log2(p) + (1.0 - p) * math.log2(1.0 - p))


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

    def clear_groups(self) -> None:
        """Forget the groups (the evidence stays): they are to be derived again from the answers."""
        self.groups, self.groups_of = [], {}

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

    def observe_no_effect(self, literals: Sequence[tuple[Atom, bool]], silent_failure: float) -> None:
        """An action whose precondition is ``literals`` ran and visibly changed nothing.

        Either some literal was false (the world refused it) or all held and the
        action failed silently (P ``silent_failure``). With p_i = P(literal i holds)
        and Q_i the product of the others (taken as independent), the likelihood
        ratio for "literal i holds" is ``1 - Q_i (1 - silent_failure)`` against 1:
        a literal whose companions are surely true takes the blame, one beside a
        doubtful companion is barely touched.
        """
        tracked = [(a, v) for a, v in literals if a in self.logodds]
        sat = [self.prob(a) if v else 1.0 - self.prob(a) for a, v in tracked]
        for i, (atom, value) in enumerate(tracked):
            others = math.prod(p for j, p in enumerate(sat) if j != i)
            ratio = max(1.0 - others * (1.0 - silent_failure), 1e-12)
            self.logodds[atom] += math.log(ratio) if value else -math.log(ratio)

    def information(self, atom: Atom, targets: Sequence[Atom], reliability: float) -> float:
        """Expected reduction (bits) of the targets' summed entropy from one answer about ``atom``.

        The answer is right with P ``reliability``; through the invariant groups an
        answer about one atom moves its group-mates, so related atoms are scored too.
        """
        w = logit(min(max(reliability, 0.5), self.max_confidence))
        before = sum(_entropy(self.prob(t)) for t in targets)
        p_true = self.prob(atom)
        p_yes = p_true * reliability + (1.0 - p_true) * (1.0 - reliability)
        saved = self.logodds[atom]
        expected = 0.0
        for p_answer, shift in ((p_yes, w), (1.0 - p_yes, -w)):
            self.logodds[atom] = saved + shift
            expected += p_answer * sum(_entropy(self.prob(t)) for t in targets)
        self.logodds[atom] = saved
        return before - expected

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
        # fsum: exactly rounded whatever the order, and a group's atoms are a set whose order changes with
        # each process's hash seed; a plain sum's last bit broke ties between questions differently in a
        # Ray worker than in a forked local one, so the same episode asked other questions
        total = math.fsum(math.exp(v - top) for v in values)
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
