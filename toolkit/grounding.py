"""Compile lifted formulas into ground, fast-to-evaluate structures.

A ground condition is put in negation normal form and split into a conjunction of
literals (checked with two set operations) plus, only when the formula needs it,
a residual tree of and/or nodes. Each literal remembers the quantifier bindings
that produced it, so explanations can say *which* ``?x`` made a ``forall`` fail.

A ground effect is a list of unconditional adds and deletes plus conditional
effects, each with its own compiled condition. Every conditional effect is
evaluated in the old state (PDDL semantics); see :mod:`toolkit.semantics`.

:func:`compile_condition` and :func:`compile_effect` ground one action by walking
its formulas. :class:`ActionTemplate` (what :class:`toolkit.task.Task` uses) (in
:mod:`toolkit.templates`) walks each schema once per task and grounds an action by substitution; the two agree
exactly (``tests/core/test_core_templates.py``).

The templates live in :mod:`toolkit.templates`, which imports this module and
:mod:`toolkit.semantics`; this module imports neither, so the layers run one way:
``grounding`` (formulas to ground structures) <- ``semantics`` (evaluate, apply)
<- ``templates`` (per-schema grounding and fast stepping).
"""

from __future__ import annotations

import functools
import itertools
from toolkit.compact import EMPTY, compact_set
from toolkit.records import field, record
from typing import Callable, Protocol, Union

from toolkit import model as m
from toolkit.fluents import GCompare, ground_compare
from toolkit.model import Atom

Bindings = tuple[tuple[str, str], ...]
ObjectsOf = Callable[[tuple[str, ...]], tuple[str, ...]]


@record(slots=True)
class GLit:
    """A ground literal with the quantifier bindings that produced it."""

    atom: Atom
    positive: bool
    bindings: Bindings = ()

    def __str__(self) -> str:
        return str(self.atom) if self.positive else f"(not {self.atom})"


@record(slots=True)
class GAnd:
    parts: tuple[GNode, ...]

    def __str__(self) -> str:
        return f"(and {' '.join(map(str, self.parts))})"


@record(slots=True)
class GOr:
    parts: tuple[GNode, ...]
    bindings: Bindings = ()

    def __str__(self) -> str:
        return f"(or {' '.join(map(str, self.parts))})"


GNode = Union[GLit, GAnd, GOr, GCompare, bool]


@record(slots=True)
class CompiledCondition:
    """``pos <= state and not (neg & state) and tree``; ``tree`` is None when trivial."""

    pos: frozenset[Atom]
    neg: frozenset[Atom]
    literals: tuple[GLit, ...]  # the conjunction's literals, in formula order
    tree: GNode | None = None  # residual disjunctive part, or False if unsatisfiable

    @property
    def is_conjunctive(self) -> bool:
        return self.tree is None


@record(slots=True)
class ConditionalEffect:
    condition: CompiledCondition
    adds: frozenset[Atom]
    dels: frozenset[Atom]
    trigger: Atom | None  # a positive condition atom, tested first as a cheap filter
    node: GNode = field(compare=False, default=True)  # the ground condition, for explanations

    @property
    def text(self) -> str:
        """``(when <condition> <effect>)``, built only when asked (reports), not at grounding."""
        return f"(when {self.node} {effect_text(self.adds, self.dels)})"


@record(slots=True)
class CompiledEffect:
    adds: frozenset[Atom]
    dels: frozenset[Atom]
    conditional: tuple[ConditionalEffect, ...]


# ---------------------------------------------------------------- conditions


# The compact sets ground actions hold (toolkit.compact), under the names grounding code reads.
NO_ATOMS: frozenset[Atom] = EMPTY
atom_set = compact_set


def _subst(term: str, sub: dict[str, str]) -> str:
    return sub.get(term, term)  # only variables ("?x") are keys


def combos(params: tuple[m.Param, ...], objects_of: ObjectsOf):
    names = [v for v, _ in params]
    for values in itertools.product(*(objects_of(t) for _, t in params)):
        yield names, values


class StaticFacts(Protocol):
    """Static facts that decide quantified parts while grounding (:class:`toolkit.rule_grounding.StaticView`;
    a protocol here so that this module imports no grounding of its own callers)."""

    def quantifier(self, cond: m.Forall | m.Exists, sub: dict[str, str], objects_of: ObjectsOf, positive: bool,
                   bindings: Bindings) -> GNode: ...

    def condition(self, cond: m.Condition, sub: dict[str, str], objects_of: ObjectsOf) -> GNode: ...

    def forall_values(self, eff: m.ForallEffect, sub: dict[str, str],
                      objects_of: ObjectsOf) -> list[tuple[str, ...]] | None: ...


def ground_condition(cond: m.Condition, sub: dict[str, str], objects_of: ObjectsOf,
                     positive: bool = True, bindings: Bindings = (), static: StaticFacts | None = None) -> GNode:
    """Ground a lifted condition in negation normal form (``positive`` = not negated); with ``static``, each
    quantified part ranges only over what the task's static facts leave open (``StaticFacts.quantifier``)."""
    cls = cond.__class__  # the common kinds first, by class (a goal of hundreds of comparisons comes here)
    if cls is m.Compare:
        return ground_compare(cond, sub, positive, bindings)
    if cls is m.And:
        parts = tuple([ground_condition(p, sub, objects_of, positive, bindings, static) for p in cond.parts])
        return _mk_and(parts) if positive else _mk_or(parts, bindings)
    if isinstance(cond, m.Pred):
        return GLit(Atom(cond.predicate, tuple([sub.get(t, t) for t in cond.terms])), positive, bindings)
    if isinstance(cond, m.Equals):
        same = _subst(cond.left, sub) == _subst(cond.right, sub)
        return same if positive else not same
    if isinstance(cond, m.Not):
        return ground_condition(cond.arg, sub, objects_of, not positive, bindings, static)
    if isinstance(cond, m.Imply):
        as_or = m.Or((m.Not(cond.premise), cond.conclusion))
        return ground_condition(as_or, sub, objects_of, positive, bindings, static)
    if isinstance(cond, (m.And, m.Or)):
        parts = tuple([ground_condition(p, sub, objects_of, positive, bindings, static) for p in cond.parts])
        conj = isinstance(cond, m.And) == positive
        return _mk_and(parts) if conj else _mk_or(parts, bindings)
    if isinstance(cond, m.Compare):  # numeric fluents: evaluated on the state's values
        return ground_compare(cond, sub, positive, bindings)
    if isinstance(cond, (m.Forall, m.Exists)):
        if static is not None:
            return static.quantifier(cond, sub, objects_of, positive, bindings)
        parts = []
        for names, values in combos(cond.params, objects_of):
            inner = dict(sub)
            inner.update(zip(names, values))
            parts.append(ground_condition(cond.body, inner, objects_of, positive,
                                          bindings + tuple(zip(names, values))))
        conj = isinstance(cond, m.Forall) == positive
        return _mk_and(tuple(parts)) if conj else _mk_or(tuple(parts), bindings)
    raise TypeError(f"not a condition: {cond!r}")


def _mk_and(parts: tuple[GNode, ...]) -> GNode:
    flat: list[GNode] = []
    for p in parts:
        if p is False:
            return False
        if p is True:
            continue
        flat.extend(p.parts if isinstance(p, GAnd) else (p,))
    return True if not flat else flat[0] if len(flat) == 1 else GAnd(tuple(flat))


def _mk_or(parts: tuple[GNode, ...], bindings: Bindings) -> GNode:
    flat: list[GNode] = []
    for p in parts:
        if p is True:
            return True
        if p is False:
            continue
        flat.extend(p.parts if isinstance(p, GOr) else (p,))
    return False if not flat else flat[0] if len(flat) == 1 else GOr(tuple(flat), bindings)


def compile_node(node: GNode) -> CompiledCondition:
    """Split a ground NNF node into literal sets plus a residual tree."""
    if node is True:
        return CompiledCondition(frozenset(), frozenset(), ())
    if node is False:
        return CompiledCondition(frozenset(), frozenset(), (), False)
    parts = node.parts if isinstance(node, GAnd) else (node,)
    lits = tuple([p for p in parts if p.__class__ is GLit])
    rest = tuple([p for p in parts if p.__class__ is not GLit])
    tree = None if not rest else rest[0] if len(rest) == 1 else GAnd(rest)
    pos = frozenset([lit.atom for lit in lits if lit.positive])
    neg = frozenset([lit.atom for lit in lits if not lit.positive])
    if pos & neg:  # (and p (not p)) can never hold
        tree = False
    return CompiledCondition(pos, neg, lits, tree)


def compile_condition(cond: m.Condition, sub: dict[str, str], objects_of: ObjectsOf,
                      static: StaticFacts | None = None) -> CompiledCondition:
    return compile_node(ground_condition(cond, sub, objects_of, static=static))


# ------------------------------------------------------------------- effects


def compile_effect(effect: m.Effect, sub: dict[str, str], objects_of: ObjectsOf,
                   static: StaticFacts | None = None) -> CompiledEffect:
    """Ground an effect: unconditional adds/deletes plus conditional effects (``static``: see :func:`walk_effect`)."""
    adds: set[Atom] = set()
    dels: set[Atom] = set()
    conditional: list[ConditionalEffect] = []
    walk_effect(effect, sub, (), objects_of, adds, dels, conditional, static)
    return CompiledEffect(frozenset(adds), frozenset(dels), tuple(conditional))


def walk_effect(effect: m.Effect, sub: dict[str, str], conds: tuple[m.Condition, ...], objects_of: ObjectsOf,
                adds: set[Atom], dels: set[Atom], conditional: list[ConditionalEffect],
                static: StaticFacts | None = None) -> None:
    """Ground ``effect`` under ``sub`` (and the enclosing ``when`` conditions ``conds``) into the three outputs.

    With ``static``, a ``(forall (?v) (when C E))`` whose ``C`` requires a static atom of ``?v`` ranges only
    over the values the task's static facts allow, and ``C``'s static atoms are decided there
    (``StaticFacts.forall_values``, ``StaticFacts.condition``); quantified conditions are ground the same way.
    """

    def walk(eff: m.Effect, sub: dict[str, str], conds: tuple[m.Condition, ...],
             out_adds: set[Atom], out_dels: set[Atom], decided: bool = False) -> None:
        if isinstance(eff, m.AddEffect):
            out_adds.add(Atom(eff.atom.predicate, tuple([sub.get(t, t) for t in eff.atom.terms])))
        elif isinstance(eff, m.DelEffect):
            out_dels.add(Atom(eff.atom.predicate, tuple([sub.get(t, t) for t in eff.atom.terms])))
        elif isinstance(eff, m.AndEffect):
            for p in eff.parts:
                walk(p, sub, conds, out_adds, out_dels)
        elif isinstance(eff, m.ForallEffect):
            values = None if static is None or conds else static.forall_values(eff, sub, objects_of)
            names = [v for v, _ in eff.params]
            for vals in (values if values is not None else (v for _, v in combos(eff.params, objects_of))):
                inner = dict(sub)
                inner.update(zip(names, vals))
                walk(eff.body, inner, conds, out_adds, out_dels, values is not None)
        elif isinstance(eff, m.WhenEffect):
            flat = None if conds or decided else flat_literals(eff.condition)
            if flat is not None:  # fast path: a conjunction of literals (the common case)
                when_literals(flat, eff.body, sub)
                return
            if decided:  # inside a forall restricted by static facts: they are decided here
                node = static.condition(eff.condition, sub, objects_of)  # type: ignore[union-attr]
            else:
                node = ground_condition(m.And((*conds, eff.condition)) if conds else eff.condition, sub, objects_of,
                                        static=static)
            if node is False:
                return
            c_adds: set[Atom] = set()
            c_dels: set[Atom] = set()
            walk(eff.body, sub, (*conds, eff.condition), c_adds, c_dels)
            if node is True:
                adds.update(c_adds)
                dels.update(c_dels)
                return
            cc = compile_node(node)
            if cc.tree is False or not (c_adds or c_dels):
                return
            trigger = next((lit.atom for lit in cc.literals if lit.positive), None)
            conditional.append(ConditionalEffect(cc, frozenset(c_adds), frozenset(c_dels), trigger, node))
        else:
            raise TypeError(f"not an effect: {eff!r}")

    def when_literals(flat: tuple[tuple[bool, bool, str, tuple[str, ...]], ...], body: m.Effect,
                      sub: dict[str, str]) -> None:
        lits: list[GLit] = []
        for is_eq, positive, pred, terms in flat:
            args = tuple([sub.get(t, t) for t in terms])
            if is_eq:
                if (args[0] == args[1]) != positive:
                    return  # the condition can never hold: no effect
                continue
            lits.append(GLit(Atom(pred, args), positive))
        c_adds: set[Atom] = set()
        c_dels: set[Atom] = set()
        walk(body, sub, (), c_adds, c_dels)
        if not lits:
            adds.update(c_adds)
            dels.update(c_dels)
            return
        if not (c_adds or c_dels):
            return
        conditional.extend(flat_conditional(lits, c_adds, c_dels))

    walk(effect, sub, conds, adds, dels)


def flat_conditional(lits: list[GLit] | tuple[GLit, ...], c_adds, c_dels) -> tuple[ConditionalEffect, ...]:
    """The conditional effect of a conjunction of ground literals (none if it is a contradiction)."""
    pos = frozenset([lit.atom for lit in lits if lit.positive])
    neg = frozenset([lit.atom for lit in lits if not lit.positive])
    if pos & neg:
        return ()  # (and p (not p)) can never hold
    lits = tuple(lits)
    node: GNode = lits[0] if len(lits) == 1 else GAnd(lits)
    trigger = next((lit.atom for lit in lits if lit.positive), None)
    return (ConditionalEffect(CompiledCondition(pos, neg, lits), frozenset(c_adds), frozenset(c_dels),
                              trigger, node),)


@functools.lru_cache(maxsize=4096)
def flat_literals(cond: m.Condition) -> tuple[tuple[bool, bool, str, tuple[str, ...]], ...] | None:
    """A conjunction of (possibly negated) atoms and equalities as (is_eq, positive, predicate, terms); else None.

    A pure memo over immutable lifted conditions: grounding a conditional effect
    then costs one atom per literal instead of a walk over the formula.
    """
    parts = cond.parts if isinstance(cond, m.And) else (cond,)
    out = []
    for part in parts:
        positive = not isinstance(part, m.Not)
        inner = part.arg if not positive else part
        if isinstance(inner, m.Pred):
            out.append((False, positive, inner.predicate, inner.terms))
        elif isinstance(inner, m.Equals):
            out.append((True, positive, "=", (inner.left, inner.right)))
        else:
            return None
    return tuple(out)


def effect_text(adds: frozenset[Atom], dels: frozenset[Atom]) -> str:
    parts = [f"(not {a})" for a in sorted(dels)] + [str(a) for a in sorted(adds)]
    return parts[0] if len(parts) == 1 else f"(and {' '.join(parts)})"
