"""A plain domain's actions built straight into the model, in one pass over their s-expressions.

Why: the plain reader (:mod:`toolkit.plain_domain`) built each action as forms shaped like
the ``pddl`` package's objects (:mod:`toolkit.reading.forms`: hashed through their lowered
printed text, flattened and de-duplicated as the package does), and the converter
(:mod:`toolkit.reading.convert`) then walked those forms again into the model: together
about two thirds of loading an IPC numeric domain. :class:`DirectActions` reads each
action once, with the plain reader's shape rules and the converter's checks, through the
same tables (the converter's scopes and declarations, the reader's declared types and
constants), so that it builds exactly what the two passes build.

It only reads what is plain and error-free: any shape the plain reader would refuse, any
name, arity or type the converter would report, a repeated operand of an ``and`` other than
an atom or equality (the package's forms drop repeats by their printed text, which only for
those is equal exactly when the model is), a ``(or)`` without operands (read as "no
precondition" at the top) raise :class:`~toolkit.plain_problem._NotPlain`, and the loader
takes the two-pass path, which owns every message. ``tests/core/test_core_direct_domain.py`` compares the two
on every domain file at hand.
"""

from __future__ import annotations

from toolkit import model as m
from toolkit.plain_domain import action_body, var_list
from toolkit.plain_problem import SExpr, _name, _NotPlain
from toolkit.reading import plain_numeric
from toolkit.reading.convert import Converter, to_number, type_tuple
from toolkit.reading.names import NUMBER_RE
from toolkit.reading.text import written_var

_ARITH = frozenset({"-", "+", "*", "/"})
_NOT_PRIMITIVE = frozenset({"and", "forall", "when", "oneof"})  # the plain reader's _p_effect refuses these
_NO_EFFECT = m.AndEffect(())


class DirectActions:
    """Builds :class:`~toolkit.model.ActionSchema` from ``(:action ...)`` s-expressions for one domain.

    ``reader`` is the plain reader of the domain's declarations (its type check of a type list,
    its declared constants); ``conv`` the loader's converter over the same declarations, whose
    scopes resolve every name, and whose ``used_requirements`` and ``uses_numbers`` this fills
    as its conversion would.
    """

    def __init__(self, reader, conv: Converter) -> None:
        self.check_tags = reader._check_tags
        self.conv = conv
        self.preds = conv.pred_scope.by_lower
        self.decls = conv.predicates
        self.consts = conv.objects.by_lower
        self.funcs = conv.func_scope.by_lower
        self.fdecls = conv.functions
        self.types = conv.types
        self.reqs = conv.used_requirements
        self.numeric: list[m.NumericEffect] = []
        # Each declaration's arity by its declared name (a PredicateDef's is a property: a call per atom).
        self.arity = {name: len(d.params) for name, d in self.decls.items()}
        self.farity = {name: len(d.params) for name, d in self.fdecls.items()}
        # A parameter list as read, by its words: a domain repeats its lists ("(?b - boat)" in 7 of sailing's
        # 8 actions); the same words give the same parameters, and a fault declines the whole file.
        self.lists: dict[tuple, tuple[m.Param, ...]] = {}
        self.scopes: dict[tuple[m.Param, ...], dict[str, str]] = {}  # an action's parameters -> its names in scope

    def actions(self, items: list[SExpr]) -> dict[str, m.ActionSchema]:
        """Every action, in file order; raises :class:`_NotPlain` on anything the two-pass path must read."""
        out: dict[str, m.ActionSchema] = {}
        seen: set[str] = set()
        for el in items:
            try:
                action = self.action(el)
            except TypeError:  # a list where a word is due (a dict key): not plain
                raise _NotPlain from None
            low = action.name.lower()
            if low in seen:
                raise _NotPlain  # declared twice: the plain reader refuses it
            seen.add(low)
            out[action.name] = action
        return out

    def action(self, el: SExpr) -> m.ActionSchema:
        if not (el.__class__ is list and len(el) >= 4 and el[0] == ":action" and el[2] == ":parameters"
                and el[3].__class__ is list):
            raise _NotPlain
        name = _name(el[1])
        params = self.params(el[3], False)
        scope = self.scopes.get(params)  # (read, never written: actions with the same parameters share one)
        if scope is None:
            scope = self.scopes[params] = dict(self.consts)  # declared constants by their lower case, then variables
            scope.update({v.lower(): v for v, _ in params})
        if len(el) == 8 and el[4] == ":precondition" and el[6] == ":effect":  # the usual action: both parts
            pre, eff = el[5], el[7]
        else:
            pre, eff = action_body(el)
        # An omitted precondition is the loader's empty (and); an empty () the package's (or): no precondition.
        precondition = m.TRUE if pre is None or pre == [] else self.gd(pre, scope)
        self.numeric = []
        effect, cost = self.action_effect(eff, scope)
        return m.ActionSchema(name, params, precondition, effect, cost, tuple(self.numeric))

    def params(self, items: list[SExpr], ordered: bool) -> tuple[m.Param, ...]:
        """A typed variable list as model parameters (``ordered``: sorted by name, as the converter's quantifiers)."""
        try:
            key = (ordered, *items)
            hit = self.lists.get(key)
        except TypeError:  # an (either ...) among the words: read each time
            key = hit = None
        if hit is None:
            hit = self._params(items, ordered)
            if key is not None:
                self.lists[key] = hit
        return hit

    def _params(self, items: list[SExpr], ordered: bool) -> tuple[m.Param, ...]:
        pairs = var_list(items)
        if ordered:
            pairs.sort(key=lambda pair: pair[0])
        out = []
        for n, tags in pairs:
            self.check_tags(tags)
            out.append((written_var(n), type_tuple(tags, self.types)))
        return tuple(out)

    # ---------------------------------------------------------------- conditions (the converter's ``condition``)

    def gd(self, el: SExpr, scope: dict[str, str]) -> m.Condition:
        if el.__class__ is not list or not el:
            raise _NotPlain
        op = el[0]
        pred = self.preds.get(op)  # a declared predicate as written (no keyword is a name): the atom at once
        if pred is not None:
            return self.pred(pred, el, scope)
        # A comparison next (no connective is one): most conditions of a numeric domain.
        if op.__class__ is str and op in plain_numeric.COMPARISONS and (op != "=" or plain_numeric.is_comparison(el)):
            if len(el) != 3:
                raise _NotPlain
            self.reqs.add(":numeric-fluents")
            self.conv.uses_numbers = True
            return m.Compare(op, self.num(el[1], scope), self.num(el[2], scope))
        if op == "and" or op == "or":
            cls = m.And if op == "and" else m.Or
            parts = _flat([self.gd(x, scope) for x in el[1:]], cls)
            if len(parts) == 1:  # the package's and/or of one operand is the operand
                return parts[0]
            if op == "and":
                return m.And(parts)
            if not parts:
                raise _NotPlain  # (or): "no precondition" at the top, a false condition inside
            self.reqs.add(":disjunctive-preconditions")
            return m.Or(parts)
        if op == "not":
            if len(el) != 2:
                raise _NotPlain
            self.reqs.add(":negative-preconditions")
            return m.Not(self.gd(el[1], scope))
        if op == "imply":
            if len(el) != 3:
                raise _NotPlain
            self.reqs.add(":disjunctive-preconditions")
            return m.Imply(self.gd(el[1], scope), self.gd(el[2], scope))
        if op == "forall" or op == "exists":
            if len(el) != 3 or el[1].__class__ is not list:
                raise _NotPlain
            params = self.params(el[1], True)
            inner = dict(scope)
            inner.update({v.lower(): v for v, _ in params})
            body = self.gd(el[2], inner)
            if op == "forall":
                self.reqs.add(":universal-preconditions")
                return m.Forall(params, body)
            self.reqs.add(":existential-preconditions")
            return m.Exists(params, body)
        if op == "=":
            if len(el) != 3:
                raise _NotPlain
            self.reqs.add(":equality")
            return m.Equals(self.term(el[1], scope), self.term(el[2], scope))
        return self.atom(el, scope)

    def atom(self, el: SExpr, scope: dict[str, str]) -> m.Pred:
        """A predicate atom (no ``=``: an equality where an atom is due is the converter's error)."""
        if el.__class__ is not list or not el:
            raise _NotPlain
        # A word in lower case as declared or bound is its own key (a name, as the lower case of one); others
        # take the full checks.
        pred = self.preds.get(el[0]) or self.preds.get(_name(el[0]).lower())
        if pred is None:
            raise _NotPlain
        return self.pred(pred, el, scope)

    def pred(self, pred: str, el: list[SExpr], scope: dict[str, str]) -> m.Pred:
        """The atom ``el`` of the declared predicate ``pred``."""
        terms = tuple(map(scope.get, el[1:]))  # the usual atom: every argument as bound or declared, as many as due
        if None in terms or len(terms) != self.arity[pred]:
            terms = self.terms(el, scope, self.arity[pred])
        return m.Pred(pred, terms)

    def terms(self, el: list[SExpr], scope: dict[str, str], arity: int) -> tuple[str, ...]:
        """The arguments of the atom or fluent ``el``, which must be ``arity`` many (each by :meth:`term`), where
        the callers' lookup in ``scope`` alone did not find them all."""
        terms = tuple([scope.get(t) or self.term(t, scope) for t in el[1:]])
        if len(terms) != arity:
            raise _NotPlain
        return terms

    def term(self, tok: SExpr, scope: dict[str, str]) -> str:
        """A variable in scope or a declared constant, by the converter's lookup (``scope`` holds both, by lower case)."""
        if tok.__class__ is not str:
            raise _NotPlain
        if tok[:1] == "?":
            hit = scope.get(written_var(_name(tok[1:])).lower())
        else:
            hit = scope.get(_name(tok).lower())
        if hit is None:
            raise _NotPlain  # an unknown variable, an undeclared constant
        return hit

    # ---------------------------------------------------------------- numbers (plain_numeric's shapes, numeric.py's model)

    def num(self, el: SExpr, scope: dict[str, str]) -> m.NumExpr:
        if el.__class__ is str:  # the usual small count at once (what _number gives it)
            return int(el) if el.isdigit() and el.isascii() and len(el) < 16 else _number(el)
        if not el or el[0].__class__ is not str:
            raise _NotPlain
        op, n = el[0], len(el) - 1
        name = self.funcs.get(op)  # a declared function as written, its arguments in scope: the term at once
        if name is not None:
            terms = tuple(map(scope.get, el[1:]))
            if n == self.farity[name] and None not in terms:
                return m.FTerm(name, terms)
        if op in _ARITH:
            if (op == "-" and n not in (1, 2)) or (op == "/" and n != 2) or n < 1 or (op in "+*" and n < 2):
                raise _NotPlain
            return m.Arith(op, tuple([self.num(x, scope) for x in el[1:]]))
        return self.fterm(el, scope)

    def fterm(self, el: SExpr, scope: dict[str, str]) -> m.FTerm:
        if el.__class__ is not list or not el:
            raise _NotPlain
        name = self.funcs.get(el[0])  # total-cost with arguments: refused below, by its arity
        if name is None:
            name = self.funcs.get(("total-cost" if el == ["total-cost"] else _name(el[0])).lower())
            if name is None:
                raise _NotPlain
        terms = tuple(map(scope.get, el[1:]))  # the usual term: every argument as bound or declared, as many as due
        if None in terms or len(terms) != self.farity[name]:
            terms = self.terms(el, scope, self.farity[name])
        return m.FTerm(name, terms)

    # ---------------------------------------------------------------- effects (the converter's ``action_effect``)

    def action_effect(self, el: SExpr | None, scope: dict[str, str]) -> tuple[m.Effect, tuple[m.CostTerm, ...]]:
        """The boolean effect and the top-level ``(increase (total-cost) X)`` summands; numeric effects go to
        :attr:`numeric`."""
        if el is None or el == []:
            return m.AndEffect(()), ()
        is_and = el.__class__ is list and el[0] == "and"
        entries: list[tuple[object, m.CostTerm | None, m.Effect | None]] = []  # (key, cost, effect) per operand
        preds = self.preds
        for item in el[1:] if is_and else [el]:
            if item.__class__ is list and item and item[0].__class__ is str:
                # An atom or its negation, as p_effect reads them (no keyword is a name: neither is a cost, a
                # forall, a when or an update), without the tests for those.
                pred = preds.get(item[0])
                if pred is not None:
                    eff = m.AddEffect(self.pred(pred, item, scope))
                    entries.append(((eff, ()), None, eff))
                    continue
                if item[0] == "not" and len(item) == 2:
                    eff = m.DelEffect(self.atom(item[1], scope))
                    entries.append(((eff, ()), None, eff))
                    continue
            op = item[0] if item.__class__ is list and item else None
            cost = self.cost(item, scope) if op == "increase" else None
            if cost is not None:
                entries.append((("cost", cost), cost, None))
            elif op.__class__ is str and op in plain_numeric.UPDATES:  # an update (no forall nor when), unconditional
                entries.append(((_NO_EFFECT, (self.update(item, scope, (), m.TRUE),)), None, _NO_EFFECT))
            else:
                before = len(self.numeric)
                eff = self.c_effect(item, scope, (), ())
                entries.append(((eff, tuple(self.numeric[before:])), None, eff))
        if len(entries) > 1:
            entries = [entries[k] for k in _first([key for key, _, _ in entries])]
        costs = [cost for _, cost, _ in entries if cost is not None]
        effects = [eff for _, cost, eff in entries if cost is None]
        if costs:
            self.reqs.add(":action-costs")
        if costs or not is_and or len(entries) == 1:  # the package's and of one operand is the operand
            return (effects[0] if len(effects) == 1 else m.AndEffect(tuple(effects))), tuple(costs)
        return m.AndEffect(tuple(effects)), ()

    def each(self, items: list[SExpr], scope: dict[str, str], params: tuple[m.Param, ...],
             conds: tuple[m.Condition, ...], primitive: bool = False) -> list[m.Effect]:
        """The effects of ``items`` (``primitive``: a ``when``'s body, no nesting), a repeated one dropped as the
        package's ``and`` drops it (an effect and the numeric effects it made tell them apart)."""
        out = []
        keys = []
        for item in items:
            before = len(self.numeric)
            eff = self.p_effect(item, scope, params, conds) if primitive else self.c_effect(item, scope, params, conds)
            out.append(eff)
            keys.append((eff, tuple(self.numeric[before:])))
        return [out[k] for k in _first(keys)] if len(keys) > 1 else out

    def body(self, el: SExpr, scope: dict[str, str], params: tuple[m.Param, ...], conds: tuple[m.Condition, ...],
             primitive: bool) -> m.Effect:
        """An ``(and ...)`` of effects or one effect: the package's and of one operand is the operand."""
        if el.__class__ is list and el and el[0] == "and":
            parts = self.each(el[1:], scope, params, conds, primitive)
            return parts[0] if len(parts) == 1 else m.AndEffect(tuple(parts))
        if primitive:
            return self.p_effect(el, scope, params, conds)
        return self.c_effect(el, scope, params, conds)

    def c_effect(self, el: SExpr, scope: dict[str, str], params: tuple[m.Param, ...],
                 conds: tuple[m.Condition, ...]) -> m.Effect:
        if el.__class__ is list and el and el[0] == "forall":
            if len(el) != 3 or el[1].__class__ is not list:
                raise _NotPlain
            inner_params = self.params(el[1], True)
            inner = dict(scope)
            inner.update({v.lower(): v for v, _ in inner_params})
            self.reqs.add(":conditional-effects")
            return m.ForallEffect(inner_params, self.body(el[2], inner, (*params, *inner_params), conds, False))
        if el.__class__ is list and el and el[0] == "when":
            if len(el) != 3:
                raise _NotPlain
            self.reqs.add(":conditional-effects")
            cond = self.gd(el[1], scope)
            return m.WhenEffect(cond, self.body(el[2], scope, params, (*conds, cond), True))
        return self.p_effect(el, scope, params, conds)

    def p_effect(self, el: SExpr, scope: dict[str, str], params: tuple[m.Param, ...],
                 conds: tuple[m.Condition, ...]) -> m.Effect:
        if el.__class__ is not list or not el:
            raise _NotPlain
        op = el[0]
        if op.__class__ is str and op in _NOT_PRIMITIVE:
            raise _NotPlain
        if op == "not":
            if len(el) != 2:
                raise _NotPlain
            return m.DelEffect(self.atom(el[1], scope))
        if op.__class__ is str and op in plain_numeric.UPDATES:
            self.update(el, scope, params, conds[0] if len(conds) == 1 else m.And(conds) if conds else m.TRUE)
            return _NO_EFFECT  # the update's place among the effects (a record: one serves every place)
        return m.AddEffect(self.atom(el, scope))

    def update(self, el: list[SExpr], scope: dict[str, str], params: tuple[m.Param, ...],
               cond: m.Condition) -> m.NumericEffect:
        """The numeric effect ``(op f_head f_exp)`` (``el[0]`` an update), added to :attr:`numeric`."""
        if len(el) != 3 or el[1].__class__ is not list:
            raise _NotPlain
        op = el[0]
        target = self.fterm(el[1], scope)
        value = self.num(el[2], scope)
        if not (op == "increase" and target.function == m.TOTAL_COST):
            self.reqs.add(":numeric-fluents")
            self.conv.uses_numbers = True
        effect = m.NumericEffect(op, target, value, params, cond)
        self.numeric.append(effect)
        return effect

    def cost(self, el: SExpr, scope: dict[str, str]) -> m.CostTerm | None:
        """X of ``(increase (total-cost) X)`` with X a number or a function term other than total-cost (the
        converter's ``_is_cost`` and ``cost_term``), else None: a numeric effect like any other."""
        if not (el.__class__ is list and len(el) == 3 and el[0] == "increase" and el[1].__class__ is list
                and len(el[1]) == 1):
            return None
        spelled = "total-cost" if el[1] == ["total-cost"] else _name(el[1][0])
        if spelled.lower() != m.TOTAL_COST:
            if spelled.lower() not in self.funcs:
                raise _NotPlain  # (totalCost) undeclared: the converter's message names it
            return None
        value = el[2]
        if value.__class__ is str:
            return _number(value)
        if not value or value[0].__class__ is not str or value[0] in _ARITH:
            return None
        if ("total-cost" if value == ["total-cost"] else _name(value[0])).lower() == m.TOTAL_COST:
            return None
        return self.fterm(value, scope)


def _flat(parts: list[m.Condition], cls: type) -> tuple[m.Condition, ...]:
    """``parts`` with nested ones of ``cls`` lifted in, as the package's and/or; a repeated operand, which the
    package drops, raises (equal forms give equal conditions, so distinct conditions had distinct forms)."""
    out: list[m.Condition] = []
    for part in parts:
        if part.__class__ is cls:
            out.extend(part.parts)
        else:
            out.append(part)
    return tuple([out[k] for k in _first(out)] if len(out) > 1 else out)


def _shallow(x) -> object:
    """A key equal for equal pieces, hashed in C (a model record hashes its tree in Python: 1 us for a (not atom))."""
    if x.__class__ is tuple:  # an effect and the numeric effects it made, or ("cost", term)
        eff, more = x
        if more.__class__ is tuple and more:
            return "num", more[0].op, more[0].target.function, more[0].target.terms
        x = eff
    c = x.__class__
    if c is m.Pred:
        return x.predicate, x.terms
    if c is m.Not or c is m.AddEffect or c is m.DelEffect:
        inner = x.arg if c is m.Not else x.atom
        if inner.__class__ is m.Pred:
            return c.__name__, inner.predicate, inner.terms
    if c is m.Compare:  # a numeric precondition's comparisons (two of them told apart without hashing the records)
        return "Compare", x.op, _side(x.left), _side(x.right)
    return c.__name__


def _side(x) -> object:
    """A key equal for equal numeric expressions, hashed in C (a number is its own: 1 and 1.0 are equal)."""
    c = x.__class__
    if c is m.FTerm:
        return x.function, x.terms
    if c is m.Arith:
        return (x.op, *[_side(a) for a in x.args])
    return x


def _first(keys: list) -> range | list[int]:
    """The positions of the first of each distinct key, as the package's and/or keeps its operands; raises
    :class:`_NotPlain` where a repeated piece is not an atom, an equality or their negation, whose forms are
    equal exactly when the pieces are (a number written 1 and 1.0, or quantified types, could differ)."""
    n = len(keys)
    if n < 2:
        return range(n)
    if n <= 3:  # two or three pieces (most and's): compared pair by pair
        if _differ(keys[0], keys[1]) and (n == 2 or (_differ(keys[2], keys[0]) and _differ(keys[2], keys[1]))):
            return range(n)
    else:
        shallow = [_shallow(k) for k in keys]
        if len(set(shallow)) == n or len(set(keys)) == n:
            return range(n)
    seen: set = set()
    kept = []
    for k, key in enumerate(keys):
        if key in seen:
            if not _simple(key):
                raise _NotPlain
            continue
        seen.add(key)
        kept.append(k)
    return kept


def _differ(a, b) -> bool:
    """``a != b`` for two pieces' keys, told by their classes where those differ (an effect's key by its effect's):
    records of two classes are never equal, and comparing them asks each one's __eq__ in Python, then both again."""
    cls = a.__class__
    if cls is not b.__class__ or (cls is tuple and a[0].__class__ is not b[0].__class__):
        return True
    return a != b


def _simple(key) -> bool:
    if key.__class__ is tuple:  # (effect, numeric effects it made) or ("cost", term)
        eff, more = key
        if more != ():
            return False
        key = eff
    c = key.__class__
    if c is m.Not or c is m.AddEffect or c is m.DelEffect:
        key = key.arg if c is m.Not else key.atom
        c = key.__class__
    return c is m.Pred or c is m.Equals


def _number(tok: str) -> m.Number:
    """The grammar's NUMBER as the plain reader reads it (one dot at most) and the converter stores it."""
    if tok.isdigit() and tok.isascii() and len(tok) < 16:  # the usual small count: what the general path gives
        return int(tok)
    if not NUMBER_RE.match(tok) or tok.count(".") > 1:
        raise _NotPlain
    return to_number(float(tok) if "." in tok else int(tok))
