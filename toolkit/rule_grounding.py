"""The ground rules of a domain's derived predicates for one task: bodies with static facts decided.

Split from :mod:`toolkit.derived` (which evaluates the ground rules on states):
:func:`ground_rules` grounds each ``:derived`` rule for every type-correct head
tuple. Basic atoms that no action changes are static (as in Fast Downward's
translator): they are decided from the task's initial state while grounding, an
``and`` stops at its first false part and an ``or`` at its first true one, the
parts that static facts decide go first, conjuncts that do not mention an
``exists`` variable move out of it, and an ``exists`` ranges only over the values
its static atoms allow (a join over indexed static facts). What is left are the
small bodies the evaluation works on.
"""

from __future__ import annotations

import itertools
import re
from typing import Callable

from toolkit import model as m
from toolkit.derived_heads import reachable_heads
from toolkit.grounding import Bindings, GAnd, GLit, GNode, GOr, ground_condition
from toolkit.model import Atom

ObjectsOf = Callable[[tuple[str, ...]], tuple[str, ...]]
# The task's atom for (predicate, arguments): one object per ground atom, so the set operations of a
# state's closure find rule atoms in the state by identity (``Task.atom_table.atom``).
Intern = Callable[[str, tuple[str, ...]], Atom]


def _static_first(cond: m.Condition, static: frozenset[str]) -> m.Condition:
    """``cond`` with ``imply`` spelled as ``or`` and, in every ``and``/``or``, the parts that static facts
    and equalities decide placed first: grounding then stops at them before it expands the rest."""
    if isinstance(cond, m.Imply):
        return _static_first(m.Or((m.Not(cond.premise), cond.conclusion)), static)
    if isinstance(cond, m.Not):
        return m.Not(_static_first(cond.arg, static))
    if isinstance(cond, (m.And, m.Or)):
        parts = [_static_first(p, static) for p in cond.parts]
        parts.sort(key=lambda p: not _decided_statically(p, static))  # stable: the file's order otherwise
        return type(cond)(tuple(parts))
    if isinstance(cond, (m.Exists, m.Forall)):
        return _miniscope(type(cond)(cond.params, _static_first(cond.body, static)), static)
    return cond


def _miniscope(cond: m.Exists | m.Forall, static: frozenset[str]) -> m.Condition:
    """``(exists (?x) (and A B))`` as ``(and A (exists (?x) B))`` where ``A`` does not mention ``?x``
    (and ``forall`` over ``or`` the same way): equivalent, also over no objects, and ``A`` is then
    ground once per outer binding instead of once per ``?x``. The optical telegraphs' ``blocked-trans``
    nests three such ``exists`` over static guards of the outer variables."""
    joint = m.And if isinstance(cond, m.Exists) else m.Or
    if not isinstance(cond.body, joint):
        return cond
    bound = {v for v, _ in cond.params}
    outer = [p for p in cond.body.parts if not _mentions(p, bound)]
    if not outer:
        return cond
    inner = [p for p in cond.body.parts if _mentions(p, bound)]
    body = inner[0] if len(inner) == 1 else joint(tuple(inner))
    return _static_first(joint((*outer, type(cond)(cond.params, body))), static) if inner else joint(tuple(outer))


def _mentions(cond: m.Condition, names: set[str]) -> bool:
    """Whether ``cond`` mentions one of the variables ``names`` (read off its text: every kind of condition)."""
    return any(v in names for v in re.findall(r"\?[^\s()]+", str(cond)))


def _decided_statically(cond: m.Condition, static: frozenset[str]) -> bool:
    while isinstance(cond, m.Not):
        cond = cond.arg
    return isinstance(cond, m.Equals) or (isinstance(cond, m.Pred) and cond.predicate in static)


class _StaticFacts:
    """The static atoms true in the initial state, as (predicate, arguments), with indexes that give the
    values a variable can take in a static atom whose other arguments are known (a join, as the
    relaxed exploration and Fast Downward's translator instantiate rules)."""

    def __init__(self, facts: frozenset[tuple[str, tuple[str, ...]]]) -> None:
        self.facts = facts
        self._by_pred: dict[str, list[tuple[str, ...]]] = {}
        for pred, args in facts:
            self._by_pred.setdefault(pred, []).append(args)
        self._indexes: dict[tuple, dict[tuple[str, ...], set[str]]] = {}
        self._plans: dict[tuple, tuple[tuple[str, ...], dict[tuple[str, ...], set[str]]]] = {}
        self._order: dict[int, tuple[tuple[str, ...], dict[str, int]]] = {}  # by id: the tuple is kept alive
        # Derived predicates whose reachable heads are known (:func:`ground_rules`), and those heads: an atom of
        # one of them outside ``reached`` is false in every state that agrees with the static facts.
        self.derived: frozenset[str] = frozenset()
        self.reached: set[tuple[str, tuple[str, ...]]] = set()

    def __contains__(self, fact: tuple[str, tuple[str, ...]]) -> bool:
        return fact in self.facts

    def decided(self, pred: str, args: tuple[str, ...], positive: bool, static: frozenset[str]) -> bool | None:
        """The literal's value where the static facts or the reachable derived heads decide it, else None."""
        if pred in static:
            return ((pred, args) in self.facts) == positive
        if pred in self.derived and (pred, args) not in self.reached:
            return not positive  # a derived atom no state can make hold (toolkit.derived_heads)
        return None

    def values(self, pred: str, terms: tuple[str, ...], var: str, sub: dict[str, str]) -> set[str] | frozenset[str]:
        """The objects ``var`` can be for ``(pred terms)`` to be a true static atom under ``sub`` (do not
        change the set: it is the index's own)."""
        shape = (pred, terms, var, tuple([t in sub for t in terms]))
        plan = self._plans.get(shape)
        if plan is None:
            at = tuple(i for i, t in enumerate(terms) if t == var)
            known = tuple(i for i, t in enumerate(terms) if t != var and (not t.startswith("?") or t in sub))
            key = (pred, at, known)
            index = self._indexes.get(key)
            if index is None:
                index = self._indexes[key] = {}
                for args in self._by_pred.get(pred, ()):
                    if len(args) == len(terms) and len({args[i] for i in at}) == 1:
                        index.setdefault(tuple(args[i] for i in known), set()).add(args[at[0]])
            plan = self._plans[shape] = (tuple(terms[i] for i in known), index)
        known_terms, index = plan
        return index.get(tuple([sub.get(t, t) for t in known_terms]), _NONE)

    def restrict(self, objects: tuple[str, ...], fits: set[str] | frozenset[str]) -> tuple[str, ...]:
        """``objects`` (a type's, in their order) that are in ``fits``; a few fits among many objects
        (airport's blocked segments among 300) cost the few."""
        if len(fits) * 4 >= len(objects):
            return tuple([o for o in objects if o in fits])
        order = self._order.get(id(objects))
        if order is None or order[0] is not objects:
            order = self._order[id(objects)] = (objects, {o: i for i, o in enumerate(objects)})
        rank = order[1]
        return tuple(sorted([o for o in fits if o in rank], key=rank.__getitem__))


_NONE: frozenset[str] = frozenset()


def _candidates(cond: m.Condition, var: str, sub: dict[str, str], static: frozenset[str], facts: _StaticFacts,
                positive: bool) -> set[str] | None:
    """The values of ``var`` for which ``cond`` (``positive``: not negated) can hold, read off the static
    atoms it requires; None where nothing restricts them. A superset: the other values make it false."""
    if isinstance(cond, m.Pred):
        if positive and cond.predicate in static and var in cond.terms:
            return facts.values(cond.predicate, cond.terms, var, sub)
        return None
    if isinstance(cond, m.Not):
        return _candidates(cond.arg, var, sub, static, facts, not positive)
    if isinstance(cond, (m.And, m.Or)):
        found = [_candidates(p, var, sub, static, facts, positive) for p in cond.parts]
        if isinstance(cond, m.And) == positive:  # a conjunction: every part's restriction holds
            known = [c for c in found if c is not None]
            return known[0].intersection(*known[1:]) if known else None
        if any(c is None for c in found):  # a disjunction: one free branch frees it
            return None
        return set().union(*found)
    return None  # quantifiers, implications, equalities, numbers: no restriction read here


def _ground(cond: m.Condition, sub: dict[str, str], objects_of: ObjectsOf, static: frozenset[str],
            init: _StaticFacts, intern: Intern, positive: bool = True, bindings: Bindings | None = None) -> GNode:
    """A rule body ground in negation normal form with static literals decided as it goes (an ``and``
    stops at its first false part, an ``or`` at its first true one), so a body over static facts
    (psr's ``con`` and ``ext``, the philosophers' ``trans``) costs what is left, not every expansion.
    ``init`` holds the (predicate, arguments) of the static atoms true in the initial state. A quantifier
    ranges only over the values whose part static facts leave undecided: an ``exists`` over those where
    its body can hold, a ``forall`` over those where it can fail (the other parts are true). With
    ``bindings`` (not None) every literal records the quantifier bindings that made it, as
    :func:`toolkit.grounding.ground_condition` does for explanations."""
    if isinstance(cond, m.Pred):
        args = tuple([sub.get(t, t) for t in cond.terms])
        known = init.decided(cond.predicate, args, positive, static)
        if known is not None:
            return known
        if bindings is None:
            return GLit(intern(cond.predicate, args), positive)
        return GLit(intern(cond.predicate, args), positive, bindings)
    if isinstance(cond, m.Equals):
        return (sub.get(cond.left, cond.left) == sub.get(cond.right, cond.right)) == positive
    if isinstance(cond, m.Not):
        return _ground(cond.arg, sub, objects_of, static, init, intern, not positive, bindings)
    if isinstance(cond, m.Imply):
        return _ground(m.Or((m.Not(cond.premise), cond.conclusion)), sub, objects_of, static, init, intern, positive,
                       bindings)
    if isinstance(cond, (m.And, m.Or)):
        conj = isinstance(cond, m.And) == positive
        return _fold((_ground(p, sub, objects_of, static, init, intern, positive, bindings) for p in cond.parts),
                     conj, bindings)
    if isinstance(cond, (m.Forall, m.Exists)):
        names = [v for v, _ in cond.params]
        disjunction = isinstance(cond, m.Exists) == positive
        outer = {k: v for k, v in sub.items() if k not in names}
        domains = []
        for var, types in cond.params:
            objects = objects_of(types)
            # A disjunction keeps the values where its part (the body under ``positive``) can hold, a
            # conjunction those where it can fail, i.e. where the body under the other polarity can hold.
            fits = _candidates(cond.body, var, outer, static, init, positive if disjunction else not positive)
            if fits is not None:
                objects = init.restrict(objects, fits)
            domains.append(objects)

        def parts():
            for values in itertools.product(*domains):
                inner = dict(sub)
                inner.update(zip(names, values))
                yield _ground(cond.body, inner, objects_of, static, init, intern, positive,
                              None if bindings is None else bindings + tuple(zip(names, values)))

        return _fold(parts(), not disjunction, bindings)
    return ground_condition(cond, sub, objects_of, positive, bindings or ())  # a numeric comparison


def _fold(parts, conj: bool, bindings: Bindings | None = None) -> GNode:
    """``and`` (``conj``) or ``or`` of the parts, stopping at the first part that decides it (an ``or``
    records ``bindings``, the enclosing quantifier bindings, as ``ground_condition``'s does)."""
    out: list[GNode] = []
    for p in parts:
        if p is (not conj):
            return not conj
        if p is conj:
            continue
        if isinstance(p, GAnd if conj else GOr):
            out.extend(p.parts)
        else:
            out.append(p)
    if not out:
        return conj
    if len(out) == 1:
        return out[0]
    return GAnd(tuple(out)) if conj else GOr(tuple(out), bindings or ())


def ground_rules(domain: m.Domain, objects_of: ObjectsOf, init: frozenset[Atom],
                 intern: Intern = Atom) -> dict[Atom, list[GNode]]:
    """Each derived atom that can ever hold -> its ground rule bodies (one per rule that can make it hold).

    Only the heads the semi-naive fixpoint of :func:`toolkit.derived_heads.reachable_heads` reaches are ground
    (Fast Downward's translator grounds only the axiom heads its relaxed exploration reaches), in the order
    of the product of their parameter types; inside a body, a derived atom outside them is false. A rule with
    exact literal branches gets, per head, the disjunction of its join bindings' conjunctions; another is
    ground top-down per head."""
    static = m.static_predicates(domain)
    static_atoms = frozenset(a for a in init if a.predicate in static)
    facts = _StaticFacts(frozenset((a.predicate, a.args) for a in static_atoms))
    found = reachable_heads(domain, objects_of, static_atoms, static)
    facts.derived = domain.derived_predicates
    facts.reached = {(rule.predicate, args) for rule, heads in zip(domain.derived, found.heads) for args in heads}
    bodies: dict[Atom, list[GNode]] = {}
    for rule, heads, bindings in zip(domain.derived, found.heads, found.bindings):
        ranks = [{o: i for i, o in enumerate(objects_of(t))} for _, t in rule.params]
        order = sorted(heads, key=lambda vs: [r[v] for r, v in zip(ranks, vs)])
        if bindings is not None:
            per_head = _conjunctions(bindings, static, facts, intern)
            for values in order:
                node = _fold(iter(per_head.get(values, ())), False)
                if node is not False:
                    bodies.setdefault(intern(rule.predicate, values), []).append(node)
            continue
        names = [v for v, _ in rule.params]
        body = _static_first(rule.body, static)
        for values in order:
            node = _ground(body, dict(zip(names, values)), objects_of, static, facts, intern)
            if node is not False:
                bodies.setdefault(intern(rule.predicate, values), []).append(node)
    return bodies


def _conjunctions(bindings: list, static: frozenset[str], facts: _StaticFacts,
                  intern: Intern) -> dict[tuple[str, ...], list[GNode]]:
    """Head values -> the ground conjunctions of its join bindings (static literals decided, a derived atom
    no state can make hold read as false), in a stable order (the join's order follows set iteration)."""
    out: dict[tuple[str, ...], list[GNode]] = {}
    for head, (lits, _, _), names, values in sorted(bindings, key=lambda b: (b[0], b[3])):
        sub = dict(zip(names, values))
        parts: list[GNode] = []
        for pred, terms, positive in lits:
            args = tuple([sub.get(t, t) for t in terms])
            known = facts.decided(pred, args, positive, static)
            if known is False:
                break  # the conjunction cannot hold
            if known is None:
                parts.append(GLit(intern(pred, args), positive))
        else:
            out.setdefault(head, []).append(_fold(iter(parts), True))
    return out


class StaticView:
    """A task's static facts for grounding actions: a quantifier ranges only over the values its static
    atoms allow, and inside it static atoms are decided from the initial state.

    Fast Downward's translator does the same: static atoms are facts of its Datalog program, so a
    quantified condition becomes an axiom instantiated only by its join over them, and
    ``pddl/conditions.py`` (``Atom.instantiate``, ``NegatedAtom.instantiate``) drops a true static literal
    and raises ``Impossible`` for a false one, which ``pddl/effects.py`` (``Effect.instantiate``) turns
    into dropping the effect. Airport's ``move`` checks ``(forall (?s - segment) (imply (and (is-blocked
    ?s ?t ?s2 ?d2) ...) (not (occupied ?s))))`` over 300 segments of which a handful are blocked; each
    ground action keeps those few ``(not (occupied ?s))`` instead of a tree of 300 disjunctions.

    Only quantified parts are decided (a top-level static literal stays, so a report still names an unmet
    ``(can-move s1 s2 d)``). The ground actions then assume the task's initial static facts: in every state
    a plan can reach they are the facts, and a made-up state that contradicts them is read as if it did
    not (as :mod:`toolkit.derived` closes states).
    """

    def __init__(self, domain: m.Domain, init: frozenset[Atom]) -> None:
        self.static = m.static_predicates(domain)
        self.facts = _StaticFacts(frozenset((a.predicate, a.args) for a in init if a.predicate in self.static))
        self._first: dict[m.Condition, m.Condition] = {}

    def _prepared(self, cond: m.Condition) -> m.Condition:
        hit = self._first.get(cond)
        if hit is None:
            hit = self._first[cond] = _static_first(cond, self.static)
        return hit

    def quantifier(self, cond: m.Forall | m.Exists, sub: dict[str, str], objects_of: ObjectsOf, positive: bool,
                   bindings: Bindings) -> GNode:
        """A quantified condition ground over the values static facts leave open, static atoms decided.

        One that static facts make false is ground in full instead (it is false in every state a plan
        reaches either way): a report on the action then names its failing parts, not a bare contradiction."""
        node = _ground(self._prepared(cond), sub, objects_of, self.static, self.facts, Atom, positive, bindings)
        return ground_condition(cond, sub, objects_of, positive, bindings) if node is False else node

    def condition(self, cond: m.Condition, sub: dict[str, str], objects_of: ObjectsOf) -> GNode:
        """A condition ground with every static atom decided (a conditional effect's, inside a restricted
        ``forall``: :meth:`forall_values`)."""
        return _ground(self._prepared(cond), sub, objects_of, self.static, self.facts, Atom, True, ())

    def forall_values(self, eff: m.ForallEffect, sub: dict[str, str],
                      objects_of: ObjectsOf) -> list[tuple[str, ...]] | None:
        """The values of a ``(forall (?v..) (when C E))`` effect for which ``C`` can hold, read off the static
        atoms ``C`` requires of some ``?v``; None where none restricts them (the shape is checked, not the
        values: a restricted ``forall`` gives a list for every ``sub``, possibly empty)."""
        if not isinstance(eff.body, m.WhenEffect):
            return None
        cond = self._prepared(eff.body.condition)
        names = [v for v, _ in eff.params]
        outer = {k: v for k, v in sub.items() if k not in names}
        domains, restricted = [], False
        for var, types in eff.params:
            objects = objects_of(types)
            fits = _candidates(cond, var, outer, self.static, self.facts, True)
            if fits is not None:
                restricted = True
                objects = self.facts.restrict(objects, fits)
            domains.append(objects)
        return list(itertools.product(*domains)) if restricted else None
