"""Derived predicates (PDDL 2.2 axioms) on states: the stratified least fixpoint, and why an atom fails.

A state of a domain with ``:derived`` rules carries its derived atoms: the
stepping code calls :meth:`DerivedRules.closure` on every state it makes (the
initial one and each successor), which drops the derived atoms it had and
recomputes them from the basic ones. Conditions, goals and reports then read
derived atoms like any other, so nothing else in the semantics changes. That
one call is the whole interface (``Task.derive``): a stepper that steps by
deltas calls it on the state it hands out.

The rules are ground once per task (:mod:`toolkit.rule_grounding`): each rule
for every type-correct head tuple, with basic atoms that no action changes
(static facts, as in Fast Downward's translator) decided from the task's
initial state, which leaves small bodies. (So a state is closed against the
task's static facts: a made-up state that contradicts them, which no plan can
reach, is closed as if it did not.)
Bodies are put in disjunctive normal form where that stays small. A state is
then closed stratum by stratum (negation only reads lower strata, which are
final by then): each conjunction whose basic and lower-stratum literals hold is
counted down as the atoms of its own stratum that it waits on turn true, the
evaluation of Fast Downward's axiom evaluator (``search/axioms.cc``); a body
too large for normal form is evaluated as a tree, again when an atom it uses
turns true. This is the least fixpoint that FD computes and that VAL's top-down
evaluation with cycle cutting finds for stratified rules
(``DerivedGoal::evaluate`` in ``libraries/VAL/src/Proposition.cpp``).
"""

from __future__ import annotations

from typing import Callable

from toolkit import model as m
from toolkit.fluents import FluentState
from toolkit.grounding import GAnd, GLit, GNode, GOr
from toolkit.model import Atom
from toolkit.rule_grounding import Intern, ObjectsOf, ground_rules
from toolkit.semantics import node_holds
from toolkit.strata import strata


def _dnf(node: GNode) -> list[tuple[frozenset[Atom], frozenset[Atom]]] | None:
    """``node`` as a disjunction of (positive atoms, negative atoms) conjunctions; None past
    :data:`_MAX_CONJUNCTS` or for a numeric comparison (the body is then evaluated as a tree)."""
    if node is True:
        return [(frozenset(), frozenset())]
    if node is False:
        return []
    if isinstance(node, GLit):
        return [(frozenset((node.atom,)), frozenset())] if node.positive else [(frozenset(), frozenset((node.atom,)))]
    if isinstance(node, GOr):
        out: list[tuple[frozenset[Atom], frozenset[Atom]]] = []
        for p in node.parts:
            alts = _dnf(p)
            if alts is None or len(out) + len(alts) > _MAX_CONJUNCTS:
                return None
            out += alts
        return out
    if isinstance(node, GAnd):
        acc = [(frozenset(), frozenset())]
        for p in node.parts:
            alts = _dnf(p)
            if alts is None or len(acc) * len(alts) > _MAX_CONJUNCTS:
                return None
            acc = [(p1 | p2, n1 | n2) for p1, n1 in acc for p2, n2 in alts if (p1 | p2).isdisjoint(n1 | n2)]
        return acc
    return None


_MAX_CONJUNCTS = 64


def _positive_atoms(node: GNode, out: set[Atom]) -> None:
    if isinstance(node, GLit):
        if node.positive:
            out.add(node.atom)
    elif isinstance(node, (GAnd, GOr)):
        for p in node.parts:
            _positive_atoms(p, out)


class _Stratum:
    """One stratum's ground rules: conjunctions counted down as their atoms of this stratum turn true
    (Fast Downward's axiom evaluator, ``search/axioms.cc``), and the bodies too large for that as trees."""

    __slots__ = ("rules", "waiting", "trees", "tree_users")

    def __init__(self) -> None:
        # (head, atoms that must already hold (basic, lower strata), atoms that must not, atoms of this stratum)
        self.rules: list[tuple[Atom, frozenset[Atom], frozenset[Atom], frozenset[Atom]]] = []
        self.waiting: dict[Atom, list[int]] = {}  # an atom of this stratum -> the rules that wait on it
        self.trees: list[tuple[Atom, GNode]] = []
        self.tree_users: dict[Atom, list[int]] = {}  # an atom of this stratum -> the trees that use it

    def add(self, head: Atom, node: GNode, here: Callable[[Atom], bool]) -> None:
        conjuncts = _dnf(node)
        if conjuncts is None:
            used: set[Atom] = set()
            _positive_atoms(node, used)
            for a in used:
                if here(a):
                    self.tree_users.setdefault(a, []).append(len(self.trees))
            self.trees.append((head, node))
            return
        for pos, neg in conjuncts:
            waits = frozenset(a for a in pos if here(a))
            for a in waits:
                self.waiting.setdefault(a, []).append(len(self.rules))
            self.rules.append((head, pos - waits, neg, waits))

    def close(self, view: set[Atom], out: set[Atom]) -> None:
        """Add to ``view`` (and ``out``) every atom of this stratum that its rules derive over ``view``."""
        count: dict[int, int] = {}
        todo: list[Atom] = []
        for i, (head, fixed, neg, waits) in enumerate(self.rules):
            if fixed <= view and view.isdisjoint(neg):
                if waits:
                    count[i] = len(waits)
                else:
                    todo.append(head)
        todo = [h for h in dict.fromkeys(todo)]
        for h in todo:
            view.add(h)
        for head, node in self.trees:
            if head not in view and node_holds(node, view):
                view.add(head)
                todo.append(head)
        while todo:
            a = todo.pop()
            out.add(a)
            for i in self.waiting.get(a, ()):
                c = count.get(i)
                if c is not None:
                    count[i] = c - 1
                    if c == 1:
                        head = self.rules[i][0]
                        if head not in view:
                            view.add(head)
                            todo.append(head)
            for j in self.tree_users.get(a, ()):
                head, node = self.trees[j]
                if head not in view and node_holds(node, view):
                    view.add(head)
                    todo.append(head)


class DerivedRules:
    """A domain's ``:derived`` rules ground for one task; :meth:`closure` puts a state's derived atoms in it."""

    def __init__(self, domain: m.Domain, objects_of: ObjectsOf, init: frozenset[Atom], intern: Intern = Atom) -> None:
        self.predicates = domain.derived_predicates
        levels = strata(domain.derived)
        assert isinstance(levels, dict), "the loader refuses rules that are not stratifiable"
        # head atom -> its ground bodies (one per rule and head tuple that can hold at all), for explanations
        bodies = ground_rules(domain, objects_of, init, intern)
        self.bodies = bodies
        self.size = sum(len(b) for b in bodies.values())
        self._strata: list[_Stratum] = []
        for level in sorted(set(levels.values())):
            stratum = _Stratum()

            def here(a: Atom, level: int = level) -> bool:
                return a.predicate in self.predicates and levels[a.predicate] == level

            for head, nodes in bodies.items():
                if levels[head.predicate] == level:
                    for node in nodes:
                        stratum.add(head, node, here)
            self._strata.append(stratum)

    def derive(self, basic: frozenset[Atom]) -> set[Atom]:
        """The derived atoms that hold over the basic atoms ``basic`` (a state without derived atoms)."""
        view = set(basic) if not isinstance(basic, FluentState) else _FluentView(basic)
        out: set[Atom] = set()
        for stratum in self._strata:
            stratum.close(view, out)
        return out

    def closure(self, state: frozenset[Atom]) -> frozenset[Atom]:
        """``state`` with its derived atoms recomputed from its basic atoms (a FluentState keeps its values)."""
        basic = frozenset(a for a in state if a.predicate not in self.predicates)
        if isinstance(state, FluentState):
            basic = FluentState.owning(basic, dict(state.values))
            return FluentState.owning(basic | self.derive(basic), dict(state.values))
        return basic | self.derive(basic)

    def why_not(self, atom: Atom, state: frozenset[Atom]) -> str:
        """What would make the false derived ``atom`` hold in ``state``: the fewest basic literals that,
        made true, satisfy one of its ground rule bodies (each ``or`` takes its cheapest branch; a false
        derived atom in a body is opened up the same way, to :data:`_WHY_DEPTH` levels)."""
        best = self._missing_for(atom, state, frozenset(), 0, {})
        if best is None:
            return "derived; no rule can make it hold in this task"
        shown = " and ".join(best[:4]) + (f" (and {len(best) - 4} more)" if len(best) > 4 else "")
        return f"derived; it would hold with {shown}" if best else "derived"

    def _missing_for(self, atom: Atom, state, open_: frozenset[Atom], depth: int,
                     memo: dict[Atom, list[str] | None]) -> list[str] | None:
        """The cheapest fix of ``atom`` (memoised per question: each derived atom is opened once)."""
        if atom in memo:
            return memo[atom]
        best: list[str] | None = None
        for node in self.bodies.get(atom, ()):
            missing = self._missing(node, state, open_ | {atom}, depth, memo)
            if best is None or len(missing) < len(best):
                best = missing
        memo[atom] = best
        return best

    def _missing(self, node: GNode, state, open_: frozenset[Atom], depth: int,
                 memo: dict[Atom, list[str] | None]) -> list[str]:
        """The literals of ``node`` to make true for it to hold in ``state`` (``or``: its cheapest branch)."""
        if node is True:
            return []
        if node is False:
            return ["(a contradiction)"]
        if isinstance(node, GLit):
            if (node.atom in state) == node.positive:
                return []
            if node.positive and node.atom.predicate in self.predicates and node.atom not in open_ \
                    and depth < _WHY_DEPTH:
                inner = self._missing_for(node.atom, state, open_, depth + 1, memo)
                if inner:
                    return inner
            return [str(node)]
        if isinstance(node, GAnd):
            return [lit for p in node.parts for lit in self._missing(p, state, open_, depth, memo)]
        if isinstance(node, GOr):
            return min((self._missing(p, state, open_, depth, memo) for p in node.parts), key=len)
        return [] if node.holds(state) else [str(node)]


_WHY_DEPTH = 4


class _FluentView(set):
    """A mutable set of atoms that also answers ``values`` (numeric comparisons in rule bodies)."""

    def __init__(self, state: FluentState) -> None:
        super().__init__(state)
        self.values = state.values


def derived_rules_of(domain: m.Domain, objects_of: ObjectsOf, init: frozenset[Atom],
                     intern: Intern = Atom) -> DerivedRules | None:
    """The task's ground rules, or None for a domain without ``:derived`` (nothing to compute)."""
    return DerivedRules(domain, objects_of, init, intern) if domain.derived else None

