"""From the parsed formulas (:mod:`toolkit.reading.forms` or the ``pddl`` package's) to the toolkit's model, every name checked against its declaration.

A name resolves case-insensitively to its declared spelling (:class:`Scope`);
an unknown one is an error with did-you-mean suggestions, located at its use.
With a collector, a faulty atom is recorded and left out, so the rest converts.
"""

from __future__ import annotations

import re

from toolkit import model as m
from toolkit.errors import ArityError, TypeMismatchError, UnknownSymbolError, UnsupportedFeatureError
from toolkit.reading.collect import Errors
from toolkit.reading.forms import is_a, kind
from toolkit.reading.numeric import NumericConversion, is_comparison, is_update
from toolkit.reading.text import (ROOT, blank_comments, line_col, locate, located, name_pattern, type_use_pattern,
                                  written_var)

_NUMERIC_COMPARISON_RE = r"\(\s*(<=|>=|<|>)(?=[\s(])|\(\s*=\s*\("


def to_number(value: float) -> m.Number:
    return int(value) if float(value).is_integer() else float(value)


class Scope:
    """Case-insensitive name resolution against what a file declared."""

    def __init__(self, path: str, text: str, kind: str, names, errors: Errors | None = None) -> None:
        self.path, self.text, self.kind = path, text, kind
        self.by_lower = {n.lower(): n for n in names}
        self.errors = errors
        self.start = 0  # where the piece being converted begins, so each error points at its own use
        self.misses = 0  # names not found so far (each an error raised or recorded where it is used)
        self.tuples: dict = {}  # type tags -> type_tuple's answer, for tags that resolved without a miss

    def resolve(self, name: str, pattern: str | None = None, fallback: str | None = None) -> str:
        """The declared spelling of ``name``; an unknown one raises, or with a ``fallback`` is recorded."""
        hit = self.by_lower.get(name.lower())
        if hit is None:
            self.misses += 1
            where = located(self.path, self.text, pattern or name_pattern(name), self.start)
            if where == self.path and self.kind == "type":  # written against its dash: "home -K location"
                where = located(self.path, self.text, type_use_pattern(name), self.start)
            exc = UnknownSymbolError(self.kind, name, self.by_lower.values(), where)
            if fallback is None or self.errors is None:
                raise exc
            if name not in self.errors.invented_types:  # else reported already, where the parse stopped on it
                self.errors.add(exc)
            return fallback
        return hit


def type_tuple(tags, types: Scope) -> tuple[str, ...]:
    if not tags:
        return ("object",)
    key = frozenset(tags)  # the set is what counts (the answer is sorted); a frozenset is its own
    hit = types.tuples.get(key)  # a domain lists the same few type lists for hundreds of parameters
    if hit is not None:
        return hit
    misses = types.misses
    out = tuple(sorted({"object" if str(t).lower() in ("object", ROOT) else types.resolve(str(t), fallback="object")
                        for t in tags}))
    if types.misses == misses:  # no unknown type: the same answer, and no error, at every use
        types.tuples[key] = out
    return out


class Converter(NumericConversion):
    """Converts pddl-package formulas to toolkit formulas, checking every name."""

    def __init__(self, path: str, text: str, predicates: dict[str, m.PredicateDef],
                 objects: Scope, types: Scope, functions: dict[str, m.FunctionDef] | None = None,
                 errors: Errors | None = None) -> None:
        self.path, self.text = path, text
        self.predicates = predicates
        self.functions = functions or {}
        self.func_scope = Scope(path, text, "function", self.functions)
        self.pred_scope = Scope(path, text, "predicate", predicates)
        self.objects, self.types = objects, types
        self.errors = errors
        self.start = 0
        self.used_requirements: set[str] = set()
        self.numeric_effects: list[m.NumericEffect] = []

    def at(self, start: int) -> None:
        """Locate the errors that follow from ``start`` on (the action, :init or :goal being converted)."""
        self.start = self.pred_scope.start = self.objects.start = self.types.start = start

    def _recover(self, convert, fallback):
        """``convert()``, or with a collector the error recorded and ``fallback`` (the piece left out)."""
        if self.errors is None:
            return convert()
        try:
            return convert()
        except (UnknownSymbolError, ArityError, TypeMismatchError) as exc:
            self.errors.add(exc)
            return fallback

    def params(self, variables) -> tuple[m.Param, ...]:
        return tuple((written_var(str(v.name)), type_tuple(v.type_tags, self.types)) for v in variables)

    def term(self, t, scope: dict[str, str]) -> str:
        name = str(t.name)
        if type(t).__name__ == "Variable":
            key = written_var(name).lower()
            if key not in scope:
                where = located(self.path, self.text, re.escape(written_var(name)) + r"(?![\w-])", self.start)
                raise UnknownSymbolError("variable", written_var(name), scope.values(), where)
            return scope[key]
        return self.objects.resolve(name)

    def atom(self, p, scope: dict[str, str]) -> m.Pred:
        name = str(p.name)
        # The pattern that locates an unknown name is built only for one (an atom of a large :init costs less).
        pred = (self.pred_scope.by_lower.get(name.lower())
                or self.pred_scope.resolve(name, r"\(\s*" + re.escape(name) + r"(?![\w-])"))
        terms = tuple(self.term(t, scope) for t in p.terms)
        decl = self.predicates[pred]
        if len(terms) != decl.arity:
            # Point at the use with the wrong count (not the declaration), if we can find it.
            name = re.escape(str(p.name))
            where = located(self.path, self.text, r"\(\s*" + name + r"(?:\s+[^\s()]+){%d}\s*\)" % len(terms), self.start)
            if where == self.path:
                where = located(self.path, self.text, r"\(\s*" + name + r"(?![\w-])", self.start)
            raise ArityError("predicate", pred, decl.arity, len(terms), where)
        return m.Pred(pred, terms)

    def _scoped(self, variables, scope):
        params = self.params(sorted(variables, key=lambda v: str(v.name)))
        inner = dict(scope)
        inner.update({v.lower(): v for v, _ in params})
        return params, inner

    def condition(self, f, scope: dict[str, str]) -> m.Condition:
        if f is None:
            return m.TRUE
        shape = kind(f)
        if shape == "Predicate":  # a faulty atom is left out: TRUE adds no false alarms downstream
            return self._recover(lambda: self.atom(f, scope), m.TRUE)
        if shape == "EqualTo":
            self.used_requirements.add(":equality")
            return self._recover(lambda: m.Equals(self.term(f.left, scope), self.term(f.right, scope)), m.TRUE)
        if shape == "Not":
            self.used_requirements.add(":negative-preconditions")
            return m.Not(self.condition(f.argument, scope))
        if shape == "And":
            return m.And(tuple(self.condition(x, scope) for x in f.operands))
        if shape == "Or":
            self.used_requirements.add(":disjunctive-preconditions")
            return m.Or(tuple(self.condition(x, scope) for x in f.operands))
        if shape == "Imply":
            self.used_requirements.add(":disjunctive-preconditions")
            a, b = f.operands
            return m.Imply(self.condition(a, scope), self.condition(b, scope))
        if shape in ("ForallCondition", "ExistsCondition"):
            params, inner = self._scoped(f.variables, scope)
            body = self.condition(f.condition, inner)
            if shape == "ForallCondition":
                self.used_requirements.add(":universal-preconditions")
                return m.Forall(params, body)
            self.used_requirements.add(":existential-preconditions")
            return m.Exists(params, body)
        if shape == "OneOf":
            raise UnsupportedFeatureError(self.path, "non-deterministic effects (oneof)")
        if is_comparison(f):
            return self._recover(lambda: self.compare(f, scope), m.TRUE)
        if is_a(f, "FunctionExpression"):
            raise self.unsupported("numeric conditions", _NUMERIC_COMPARISON_RE)
        raise UnsupportedFeatureError(self.path, f"formula {type(f).__name__} ({f})")

    def unsupported(self, feature: str, pattern: str) -> UnsupportedFeatureError:
        # From the piece being converted on: a problem's goal comparison, not its :init values.
        line, col = locate(self.text, pattern, self.start)
        if line is None:
            line, col = locate(self.text, pattern)
        return UnsupportedFeatureError(self.path, feature, line, col)

    def fterm(self, f, scope: dict[str, str], before: str = "") -> m.FTerm:
        """A function term: declared function, known terms, right number of them.

        ``before`` (a regex) is what precedes a use, so that errors point at a use,
        not at the declaration.
        """
        spelled = str(f.name)
        # The pattern that locates a fault is built only for one (a numeric :init has thousands of terms).
        name = self.func_scope.by_lower.get(spelled.lower())
        if name is None:
            name = self.func_scope.resolve(spelled, before + r"\(\s*" + re.escape(spelled) + r"(?![\w-])")
        terms = tuple(self.term(t, scope) for t in f.terms)
        decl = self.functions[name]
        if len(terms) != len(decl.params):
            pattern = before + r"\(\s*" + re.escape(spelled) + r"(?![\w-])"
            exact = pattern + "".join(r"\s+" + name_pattern(str(t)) for t in f.terms) + r"\s*\)"  # this use, not the first
            where = located(self.path, self.text, exact, self.start)
            raise ArityError("function", name, len(decl.params), len(terms),
                             where if where != self.path else located(self.path, self.text, pattern))
        return m.FTerm(name, terms)

    def cost_term(self, f, scope: dict[str, str]) -> m.CostTerm:
        """The X of ``(increase (total-cost) X)``: a number or a static function term."""
        target = f.operands[0]
        if not (kind(target) == "NumericFunction" and str(target.name).lower() == m.TOTAL_COST
                and not target.terms):
            spelled = str(target.name)
            # ALFRED's domain counts its cost in (totalCost): action costs must be spelled (total-cost).
            renamed = (f": action costs increase (total-cost), spelled so; rename {spelled} to total-cost"
                       if re.sub(r"[-_]", "", spelled.lower()) == "totalcost" and not target.terms else "")
            raise self.unsupported(f"numeric effects other than action costs (increase {target}){renamed}",
                                   r"\(\s*increase\s*\(\s*" + re.escape(spelled) + r"(?![\w-])")
        value = f.operands[1]
        if kind(value) == "NumericValue":
            return to_number(value.value)
        if kind(value) == "NumericFunction" and str(value.name).lower() != m.TOTAL_COST:
            return self.fterm(value, scope, r"\(\s*increase\s*\(\s*total-cost\s*\)\s*")
        raise self.unsupported(f"cost expression {value} (action costs are a number or a static function term)",
                               r"\(\s*increase\s*\(\s*total-cost\s*\)\s*(\((?!\s*[\w-]+[^()]*\))|-)")

    def action_effect(self, f, scope: dict[str, str]
                      ) -> tuple[m.Effect, tuple[m.CostTerm, ...], tuple[m.NumericEffect, ...]]:
        """The boolean effect, its top-level ``(increase (total-cost) X)`` summands with X a number or a
        function term (FD's action costs), and every other numeric effect."""
        self.numeric_effects = []
        parts = list(f.operands) if kind(f) == "And" else [f]
        costs = tuple(self.cost_term(p, scope) for p in parts if self._is_cost(p))
        if costs:
            self.used_requirements.add(":action-costs")
            rest = [p for p in parts if not self._is_cost(p)]
            f = None if not rest else rest[0] if len(rest) == 1 else rest
        return self.effect(f, scope), costs, tuple(self.numeric_effects)

    def _is_cost(self, f) -> bool:
        """``(increase (total-cost) X)`` with X a number or a function term (else it is a numeric effect)."""
        if kind(f) != "Increase":
            return False
        target, value = f.operands
        if kind(target) != "NumericFunction" or target.terms:
            return False
        spelled = str(target.name).lower()
        if spelled != m.TOTAL_COST and (spelled in {k.lower() for k in self.functions}
                                        or re.sub(r"[-_]", "", spelled) != "totalcost"):
            return False  # a fluent of its own (the cost_term check names (totalCost) mis-spelled)
        return kind(value) == "NumericValue" or (kind(value) == "NumericFunction"
                                                 and str(value.name).lower() != m.TOTAL_COST)

    def effect(self, f, scope: dict[str, str], params: tuple[m.Param, ...] = (),
               conds: tuple[m.Condition, ...] = ()) -> m.Effect:
        """The boolean effect; numeric effects go to :attr:`numeric_effects` with their context."""
        if f is None:
            return m.AndEffect(())
        if isinstance(f, list):  # the parts of an (and ...) left when its cost increases are taken out
            return m.AndEffect(tuple(self.effect(x, scope, params, conds) for x in f))
        shape = kind(f)
        if shape == "Predicate":
            return self._recover(lambda: m.AddEffect(self.atom(f, scope)), m.AndEffect(()))
        if shape == "Not" and kind(f.argument) == "Predicate":
            return self._recover(lambda: m.DelEffect(self.atom(f.argument, scope)), m.AndEffect(()))
        if shape == "And":
            return m.AndEffect(tuple(self.effect(x, scope, params, conds) for x in f.operands))
        if shape == "When":
            self.used_requirements.add(":conditional-effects")
            cond = self.condition(f.condition, scope)
            return m.WhenEffect(cond, self.effect(f.effect, scope, params, (*conds, cond)))
        if shape == "Forall":
            self.used_requirements.add(":conditional-effects")
            inner_params, inner = self._scoped(f.variables, scope)
            return m.ForallEffect(inner_params, self.effect(f.effect, inner, (*params, *inner_params), conds))
        if is_update(f):
            self._recover(lambda: self.update(f, scope, params, conds), None)
            return m.AndEffect(())
        if is_a(f, "FunctionExpression"):
            raise self.unsupported(f"numeric effect {f}", r"\(\s*(increase|decrease|assign|scale-up|scale-down)\b")
        # An equality as an effect, (= ?x ?y) or (not (= ?x ?y)): point at it in this action's :effect.
        mt = re.compile(r":effect\b(?:(?!\(\s*:action\b)[\s\S])*?(\(\s*(?:not\s*\(\s*)?=)", re.I).search(
            blank_comments(self.text), self.start)
        line, col = line_col(self.text, mt.start(1)) if mt else (None, None)
        raise UnsupportedFeatureError(self.path, f"effect {f}", line, col)
