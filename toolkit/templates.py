"""Action templates: each schema compiled once per task, its ground actions made by substitution.

Split from :mod:`toolkit.grounding` (which grounds formulas one by one) so that the
fast stepping path can import :mod:`toolkit.semantics` at the top: ``grounding``
<- ``semantics`` <- ``templates``, no import circle. :class:`GroundEffect`
(:mod:`toolkit.ground_effect`) steps a state by the template's conditional effects
and falls back to :func:`toolkit.semantics.apply_effect` for the rare
non-conjunctive ones.
"""

from __future__ import annotations

import operator
import re
from collections import defaultdict
from typing import Callable

from toolkit import model as m
from toolkit.grounding import (NO_ATOMS, CompiledCondition, GAnd, GLit, GNode, ObjectsOf, StaticFacts, atom_set, combos,
                               compile_node, flat_literals, ground_condition)
from toolkit.fluents import GCompare, expr_builder
from toolkit.ground_effect import GroundEffect, eq_holds as _eq_holds
from toolkit.model import Atom

# ------------------------------------------------------------------ templates
#
# Grounding a schema formula by formula costs a walk over every quantifier for
# each ground action. A template walks the schema once per task instead: the
# quantifiers are expanded over the task's objects, the schema's parameters stay
# slots (ints), and every distinct atom pattern gets a position in a per-action
# atom vector. Grounding one action is then filling that vector (interned atoms,
# one dict lookup each) and checking the few equalities that involve parameters;
# the conditional effects themselves are shared by all ground actions of the
# schema and evaluated through the vector. ``CompiledEffect`` objects are built
# only when asked for (planners, lint), and agree with :func:`compile_effect`.

Slot = int  # a template term: an int is the index of a schema parameter, a str an object


class AtomTable:
    """One ``Atom`` object per ground atom of a task (so state lookups mostly hit by identity)."""

    __slots__ = ("_by_pred",)

    def __init__(self, atoms=()) -> None:
        # predicate -> its atoms by arguments; a defaultdict: a new predicate's table made in C, where a task's
        # every initial atom and fluent comes
        self._by_pred: defaultdict[str, dict[tuple[str, ...], Atom]] = defaultdict(dict)
        self.add_all(atoms)

    def add_all(self, atoms) -> None:
        """Intern ``atoms`` (an equal atom already here stays): a task's initial atoms and fluents."""
        by_pred = self._by_pred
        for a in atoms:
            by_pred[a.predicate].setdefault(a.args, a)

    def table(self, predicate: str) -> dict[tuple[str, ...], Atom]:
        return self._by_pred[predicate]

    def atom(self, predicate: str, args: tuple[str, ...]) -> Atom:
        t = self._by_pred[predicate]
        a = t.get(args)
        if a is None:
            a = t[args] = Atom(predicate, args)
        return a


def _terms(cond: m.Condition) -> frozenset[str]:
    """Every variable a lifted condition mentions (its quantifiers' included), read off its PDDL text:
    numeric comparisons and any later condition kind are covered without a case of their own."""
    return frozenset(re.findall(r"\?[^\s()]+", str(cond)))


def _has(eff: m.Effect, kind: type) -> bool:
    """Whether an effect of class ``kind`` (``m.ForallEffect``, ``m.WhenEffect``) is anywhere in ``eff``."""
    if isinstance(eff, kind):
        return True
    if isinstance(eff, m.AndEffect):
        return any(_has(p, kind) for p in eff.parts)
    if isinstance(eff, (m.ForallEffect, m.WhenEffect)):
        return _has(eff.body, kind)
    return False


class ActionTemplate:
    """One action schema compiled against one task's objects; :meth:`ground` makes its ground actions.

    With ``static`` (the task's :class:`toolkit.rule_grounding.StaticView`), quantified preconditions and
    ``forall`` effects restricted by static atoms are ground over the values the task's static facts allow,
    as :func:`toolkit.grounding.compile_condition` and ``compile_effect`` do with the same ``static``.
    """

    def __init__(self, schema: m.ActionSchema, objects_of: ObjectsOf, atoms: AtomTable,
                 static: StaticFacts | None = None) -> None:
        self.schema = schema
        self._static = static
        self._objects_of = objects_of
        self._atoms = atoms
        self._n_params = len(schema.params)
        self._pattern_pos: dict[tuple[str, tuple[Slot | str, ...]], int] = {}
        self._base: list[Atom | None] = []  # parameter-free atoms filled in; None where a slot is
        self._consts: list[str] = []
        self._const_pos: dict[str, int] = {}
        self._dyn: list[tuple[int, str, dict, Callable, bool]] = []  # (position, predicate, its atoms, getter, 1 term)
        slots: dict[str, Slot | str] = {var: i for i, (var, _) in enumerate(schema.params)}

        # Precondition: a conjunction of literals is templated; anything else is ground per action. (The split
        # is called directly, not through its memo: a schema is walked once, and the memo hashes the formula.)
        flat = _flat_literals(schema.precondition)
        self._pre_flat = flat is not None
        self._pre_lits: tuple[tuple[int, bool], ...] = ()
        self._pre_eqs: tuple = ()
        self._pre_false = False
        if flat is not None:
            lits, eqs, self._pre_false = self._template_literals(flat, slots)
            self._pre_lits, self._pre_eqs = tuple(lits), tuple(eqs)
            self._pre_pos = tuple(p for p, positive in lits if positive)
            self._pre_neg = tuple(p for p, positive in lits if not positive)
            self._lit_memo: dict[tuple[Atom, bool], GLit] = {}
        else:
            # Each part of the top-level conjunction is ground once per distinct value of the parameters it
            # mentions and shared (nodes are immutable): openstacks' make-product (?p ?avail) grounds its
            # ``forall (?o) (imply (includes ?o ?p) (started ?o))`` once per product, not once per action.
            parts = schema.precondition.parts if isinstance(schema.precondition, m.And) else (schema.precondition,)
            names = [var for var, _ in schema.params]
            # A conjunction of literals (maybe none) and numeric comparisons (most numeric schemas): the literals are
            # templated as a flat precondition's are (one interned atom each), only the comparisons are
            # ground per distinct value of the parameters they mention (see _ground_mixed).
            flats = [_flat_literals(p) for p in parts]
            others = [p for p, f in zip(parts, flats) if f is None]  # a literal part never equals one of these
            self._pre_mixed: tuple | None = None
            if others and all(isinstance(p.arg if isinstance(p, m.Not) else p, m.Compare) for p in others):
                lits, eqs, never = self._template_literals(tuple(x for f in flats if f for x in f), slots)
                self._pre_mixed = (tuple(p for p, positive in lits if positive),
                                   tuple(p for p, positive in lits if not positive), tuple(lits), tuple(eqs), never)
                self._lit_memo = {}
                parts = tuple(others)
                # ground_compare's GCompare for each comparison, built from the lifted expressions
                self._pre_compares = tuple(_compare_builder(p, slots) for p in parts)
            self._pre_parts = () if self._pre_mixed is not None else tuple(
                (part, tuple(i for i, var in enumerate(names) if var in _terms(part)), {}) for part in parts)

        # Effect: walk order is kept in ``_entries`` so materialized effects match compile_effect.
        self._adds: list[int] = []
        self._dels: list[int] = []
        self._entries: list[tuple[str, object]] = []  # ("c", a conditional effect) | ("d", index into _deferred)
        self._deferred: list[tuple[m.WhenEffect, dict[str, Slot | str], tuple[m.Condition, ...]]] = []
        self._walk(schema.effect, slots, (), self._adds, self._dels)
        ces = [ce for kind, ce in self._entries if kind == "c"]
        self._ces = tuple(ce for ce in ces if ce[0] >= 0)  # with a trigger, in the effect's order
        self._ces_nt = tuple(ce for ce in ces if ce[0] < 0)  # without (or equalities only)
        self._ces_eq = any(ce[6] for ce in ces)
        self._consts_t = tuple(self._consts)  # appended to the arguments when filling the atom vector
        # No conditional effect of any kind: a ground effect is its adds and deletes (GroundEffect's fast path).
        self._plain = not (ces or self._deferred)

    @classmethod
    def skeleton(cls, schema: m.ActionSchema) -> ActionTemplate | None:
        """The schema's template built once for every task of its domain, bound to each with :meth:`bound`;
        None where its shape depends on a task's objects (a ``forall`` effect is expanded over them).

        Why: the walk over the schema's formulas (literal positions, comparison builders, conditional
        effects) is the same for every task; only the atoms and the objects differ."""
        if _has(schema.effect, m.ForallEffect):
            return None
        return cls(schema, _no_objects, AtomTable(), None)

    def bound(self, objects_of: ObjectsOf, atoms: AtomTable, static: Callable[[], StaticFacts]) -> ActionTemplate:
        """This skeleton for one task: its atoms interned in the task's ``atoms``, its per-argument caches
        empty; ``static`` gives the task's static facts, asked for only where a part is ground per action."""
        out = object.__new__(ActionTemplate)
        out.__dict__.update(self.__dict__)
        out._objects_of, out._atoms = objects_of, atoms
        out._static = static() if self._deferred or (not self._pre_flat and self._pre_mixed is None) else None
        atom = atoms.atom
        out._base = [a if a is None else atom(a.predicate, a.args) for a in self._base]
        out._dyn = [(pos, pred, atoms.table(pred), getter, single) for pos, pred, _, getter, single in self._dyn]
        if self._pre_flat or self._pre_mixed is not None:
            out._lit_memo = {}
        else:
            out._pre_parts = tuple([(part, uses, {}) for part, uses, _ in self._pre_parts])
        return out

    @property
    def shared_shape(self) -> bool:
        """Whether every ground action's precondition has the schema's shape (literals from the atom vector,
        comparisons from the lifted expressions), so generated code can be shared (toolkit.fluent_shared)."""
        return self._pre_flat or self._pre_mixed is not None

    # ---------------------------------------------------------- building

    def _template_literals(self, flat, sub: dict) -> tuple[list, list, bool]:
        """Atom literals as (vector position, positive), equalities over slots, and whether a
        constant equality makes the conjunction impossible."""
        lits, eqs, never = [], [], False
        for is_eq, positive, pred, terms in flat:
            args = tuple([sub.get(t, t) for t in terms])
            if not is_eq:
                lits.append((self._pos(pred, args), positive))
            elif any(a.__class__ is int for a in args):
                eqs.append((args[0], args[1], positive))
            elif (args[0] == args[1]) != positive:
                never = True
        return lits, eqs, never

    def _pos(self, pred: str, terms: tuple[Slot | str, ...]) -> int:
        key = (pred, terms)
        pos = self._pattern_pos.get(key)
        if pos is None:
            pos = self._pattern_pos[key] = len(self._base)
            if any(t.__class__ is int for t in terms):
                self._base.append(None)
                idx = []
                for t in terms:
                    if t.__class__ is int:
                        idx.append(t)
                    else:
                        c = self._const_pos.get(t)
                        if c is None:
                            c = self._const_pos[t] = len(self._consts)
                            self._consts.append(t)
                        idx.append(self._n_params + c)
                getter = operator.itemgetter(*idx)
                self._dyn.append((pos, pred, self._atoms.table(pred), getter, len(idx) == 1))
            else:
                self._base.append(self._atoms.atom(pred, terms))
        return pos

    def _walk(self, eff: m.Effect, sub: dict[str, Slot | str], conds: tuple[m.Condition, ...],
              adds: list[int], dels: list[int]) -> None:
        if isinstance(eff, (m.AddEffect, m.DelEffect)):
            out = adds if isinstance(eff, m.AddEffect) else dels
            out.append(self._pos(eff.atom.predicate, tuple([sub.get(t, t) for t in eff.atom.terms])))
        elif isinstance(eff, m.AndEffect):
            for p in eff.parts:
                self._walk(p, sub, conds, adds, dels)
        elif isinstance(eff, m.ForallEffect):
            if self._static is not None and self._static.forall_values(eff, {}, self._objects_of) is not None:
                # Restricted by static atoms (airport's 300-segment ``(forall (?s) (when (is-blocked ?s ...)
                # ...))``): ground per action over the few values they allow, as compile_effect does.
                self._entries.append(("d", len(self._deferred)))
                self._deferred.append((eff, sub, conds))
                return
            for names, values in combos(eff.params, self._objects_of):
                inner = dict(sub)
                inner.update(zip(names, values))
                self._walk(eff.body, inner, conds, adds, dels)
        elif isinstance(eff, m.WhenEffect):
            flat = None if conds else _flat_literals(eff.condition)
            if flat is None or _has(eff.body, m.WhenEffect):  # rare shapes: ground per action, as compile_effect does
                self._entries.append(("d", len(self._deferred)))
                self._deferred.append((eff, sub, conds))
                return
            lits, eqs, never = self._template_literals(flat, sub)
            if never:
                return  # the condition can never hold: no effect
            c_adds: list[int] = []
            c_dels: list[int] = []
            self._walk(eff.body, sub, (), c_adds, c_dels)
            if not lits and not eqs:
                adds.extend(c_adds)
                dels.extend(c_dels)
                return
            if not (c_adds or c_dels):
                return
            positives = [p for p, positive in lits if positive]
            ce = (positives[0] if positives else -1, tuple(positives[1:]),
                  tuple(p for p, positive in lits if not positive), tuple(c_adds), tuple(c_dels),
                  tuple(lits), tuple(eqs), len(self._entries))
            self._entries.append(("c", ce))
        else:
            raise TypeError(f"not an effect: {eff!r}")

    # --------------------------------------------------------- grounding

    def ground(self, args: tuple[str, ...]) -> tuple[CompiledCondition, GroundEffect]:
        """The precondition and effect of the ground action with these (resolved, type-correct) arguments."""
        vec = self._base[:]
        if self._dyn:
            env = args + self._consts_t
            for pos, pred, table, getter, single in self._dyn:
                key = (getter(env),) if single else getter(env)
                a = table.get(key)
                if a is None:
                    a = table[key] = Atom(pred, key)
                vec[pos] = a
        vec = tuple(vec)
        return self._ground_pre(vec, args), GroundEffect(self, args, vec)

    def _pre_part(self, i: int, args: tuple[str, ...]) -> tuple[CompiledCondition, tuple[GNode, ...] | None]:
        """Part ``i`` of a non-flat precondition for these arguments, compiled, with its residual nodes in
        order (None: the part is false); ground once per distinct value of the parameters it mentions."""
        part, uses, cache = self._pre_parts[i]
        key = tuple([args[j] for j in uses])
        hit = cache.get(key)
        if hit is None:
            sub = {self.schema.params[j][0]: args[j] for j in uses}
            node = ground_condition(part, sub, self._objects_of, static=self._static)
            cc = compile_node(node)
            flat = () if node is True else node.parts if isinstance(node, GAnd) else (node,)
            hit = cache[key] = (cc, None if node is False else tuple(p for p in flat if not isinstance(p, GLit)))
        return hit

    def _ground_mixed(self, vec: tuple[Atom, ...], args: tuple[str, ...]) -> CompiledCondition:
        """A precondition of literals and comparisons, as compile_node(_mk_and(parts)) gives it: the literals
        (in formula order, the comparisons being no literals) from the atom vector, the comparisons in order
        as the residual tree, False where an equality fails or an atom is both required and excluded."""
        pos_at, neg_at, lit_at, eqs, never = self._pre_mixed
        if never or (eqs and not _eq_holds(eqs, args)):
            return _FALSE_CONDITION
        atom = self._atoms.atom
        rest = tuple([build(args, atom) for build in self._pre_compares])
        memo = self._lit_memo
        lits = []
        for p, positive in lit_at:
            key = (vec[p], positive)
            lit = memo.get(key)
            if lit is None:
                lit = memo[key] = GLit(vec[p], positive)
            lits.append(lit)
        pos = atom_set([vec[p] for p in pos_at])
        neg = atom_set([vec[p] for p in neg_at]) if neg_at else _NO_ATOMS
        tree = rest[0] if len(rest) == 1 else GAnd(rest)
        return CompiledCondition(pos, neg, tuple(lits), False if pos & neg else tree)

    def _ground_pre(self, vec: tuple[Atom, ...], args: tuple[str, ...]) -> CompiledCondition:
        if not self._pre_flat:  # as compile_node(_mk_and(parts)), from each part's cached split
            if self._pre_mixed is not None:
                return self._ground_mixed(vec, args)
            if len(self._pre_parts) == 1:
                return self._pre_part(0, args)[0]
            lits: tuple[GLit, ...] = ()
            rest: tuple[GNode, ...] = ()
            pos, neg = [], []
            for i in range(len(self._pre_parts)):
                part, split = self._pre_part(i, args)
                if split is None:
                    return _FALSE_CONDITION
                lits += part.literals
                rest += split
                if part.pos:
                    pos.append(part.pos)
                if part.neg:
                    neg.append(part.neg)
            tree = None if not rest else rest[0] if len(rest) == 1 else GAnd(rest)
            fpos = pos[0] if len(pos) == 1 else frozenset().union(*pos)
            fneg = neg[0] if len(neg) == 1 else frozenset().union(*neg)
            return CompiledCondition(fpos, fneg, lits, False if fpos & fneg else tree)
        if self._pre_false or (self._pre_eqs and not _eq_holds(self._pre_eqs, args)):
            return _FALSE_CONDITION
        if not self._pre_lits:
            return _TRUE_CONDITION
        # One literal object per (atom, sign), shared by every ground action of the schema that tests it
        # (literals are immutable values): a dictionary lookup instead of a record built per action.
        memo = self._lit_memo
        lits = []
        for p, positive in self._pre_lits:
            key = (vec[p], positive)
            lit = memo.get(key)
            if lit is None:
                lit = memo[key] = GLit(vec[p], positive)
            lits.append(lit)
        pos = atom_set([vec[p] for p in self._pre_pos])
        neg = atom_set([vec[p] for p in self._pre_neg]) if self._pre_neg else _NO_ATOMS
        return CompiledCondition(pos, neg, tuple(lits), False if pos & neg else None)


def _compare_builder(part: m.Condition, slots: dict[str, Slot | str]
                     ) -> Callable[[tuple[str, ...], Callable[[str, tuple[str, ...]], Atom]], GCompare]:
    """``(args, atom) -> ground_condition(part, {param: arg})`` for a (negated) comparison: its GCompare,
    its fluent atoms made through ``atom`` (a task's interned atoms)."""
    positive = not isinstance(part, m.Not)
    cmp = part if positive else part.arg
    left, right = expr_builder(cmp.left, slots), expr_builder(cmp.right, slots)
    op = cmp.op
    return lambda args, atom: GCompare(op, left(args, atom), right(args, atom), positive, ())


def _no_objects(types: tuple[str, ...]) -> tuple[str, ...]:
    """A skeleton's objects: none is asked for (a schema that would ask has no skeleton)."""
    raise AssertionError("a template skeleton grounds nothing over objects")


_NO_ATOMS: frozenset[Atom] = NO_ATOMS
_flat_literals = flat_literals.__wrapped__  # type: ignore[attr-defined]
_TRUE_CONDITION = CompiledCondition(frozenset(), frozenset(), ())
_FALSE_CONDITION = CompiledCondition(frozenset(), frozenset(), (), False)
