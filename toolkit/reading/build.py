"""The pieces of a domain and a problem that the readers hand over as parsed forms (:mod:`toolkit.reading.forms`, or the ``pddl`` package's objects from the full parser).

Types, functions, actions in file order, initial literals in file order, the
metric, and the type check of an atom's arguments: what :mod:`toolkit.loader`
assembles into a :class:`~toolkit.model.Domain` or :class:`~toolkit.model.Problem`.
"""

from __future__ import annotations

import re
from operator import itemgetter

from toolkit import model as m
from toolkit.records import replace
from toolkit.errors import PddlSyntaxError, TypeMismatchError
from toolkit.reading.convert import Scope, type_tuple
from toolkit.reading.forms import kind
from toolkit.reading.text import ROOT, blank_comments, locate, written_var


_PREDICATES_RE = re.compile(r"\(\s*:predicates\b", re.I)
_PAST_PREDICATES_RE = re.compile(r"\(\s*:(action|functions|derived|constraints)\b", re.I)
_COMMENTED_RE = re.compile(r"\s*\(\s*(\w[\w-]*)[^;]*\)\s*;+\s*(.+?)\s*$")


def predicate_comments(text: str) -> dict[str, str]:
    """Trailing ``;;`` comments on predicate declarations, by lower-case name."""
    comments: dict[str, str] = {}
    sec = _PREDICATES_RE.search(text)
    if not sec:
        return comments
    # The lines up to the first that holds an (:action, (:functions ... (one not across lines): split only those.
    end = next((mt.end() for mt in _PAST_PREDICATES_RE.finditer(text, sec.end()) if len(mt.group().splitlines()) == 1),
               len(text))
    for line in text[sec.end():end].splitlines():  # each pattern tried only on a line with its ":" or ";"
        if ":" in line and _PAST_PREDICATES_RE.search(line):
            break
        mt = _COMMENTED_RE.match(line) if ";" in line else None
        if mt:
            comments[mt.group(1).lower()] = mt.group(2)
    return comments


def types_of(pdom) -> dict[str, str]:
    types = {}
    for child, parent in sorted(dict(pdom.types).items(), key=lambda kv: str(kv[0])):
        if str(child).lower() not in ("object", ROOT):
            types[str(child)] = str(parent) if parent and str(parent) != ROOT else "object"
    return types


def none_if_empty(f):
    """The pddl package reads an empty ``:precondition ()``/``:effect ()`` as ``(or)``; PDDL means none."""
    return None if kind(f) == "Or" and not f.operands else f


def declaration_words(pdom, what: str) -> list[tuple[str, list]]:
    """A read domain's predicates (``what`` "predicate") or functions ("function") as (name, [(variable, type
    tags)]) sorted by name: the plain reader's words as read, the full parser's from its objects."""
    words = getattr(pdom, what + "_words", None)
    if words is None:
        words = [(str(d.name), [(str(v.name), v.type_tags) for v in d.terms]) for d in getattr(pdom, what + "s")]
    return sorted(words, key=_name_of)


_name_of = itemgetter(0)


def declared_params(variables: list, type_scope: Scope) -> tuple[m.Param, ...]:
    """A declaration's variables (:func:`declaration_words`) as the model's parameters (most functions have none)."""
    return tuple([(written_var(v), type_tuple(tags, type_scope)) for v, tags in variables]) if variables else ()


def functions_of(pdom, type_scope: Scope, path: str, text: str) -> dict[str, m.FunctionDef]:
    """The declared functions: ``total-cost`` (no arguments) and static cost functions."""
    functions: dict[str, m.FunctionDef] = {}
    for name, variables in declaration_words(pdom, "function"):
        params = declared_params(variables, type_scope) if variables else ()  # (most functions have none)
        if name.lower() == m.TOTAL_COST:
            if params:
                raise PddlSyntaxError(path, *locate(text, r"\(\s*total-cost\s+[?\w]"), "total-cost takes no arguments")
            name = m.TOTAL_COST
        functions[name] = m.FunctionDef(name, params)
    return functions


def action_starts(pactions, code: str) -> list[tuple[object, int]]:
    """The pddl package's actions (a set) in file order, each with the offset of its ``(:action``.

    Actions declared twice are told apart by their parameter names, then by their text.
    """
    starts: dict[str, list[tuple[int, list[str]]]] = {}
    for mt in re.finditer(r"\(\s*:action\s+([^\s()]+)\s*(?::parameters\s*\(([^)]*)\))?", code, re.I):
        names = [w.lower() for w in re.findall(r"\?([^\s()]+)", mt.group(2) or "")]
        starts.setdefault(mt.group(1).lower(), []).append((mt.start(), names))
    actions = list(pactions)
    names = [str(a.name).lower() for a in actions]
    if len(set(names)) != len(names) or not starts.keys() >= set(names):
        actions.sort(key=str)  # the order decides which twin takes which spot, and ties: the printed form
    out = []
    for a in actions:
        spots = starts.get(str(a.name).lower()) or [(1 << 30, [])]
        names = [written_var(str(v.name))[1:].lower() for v in a.parameters]
        spot = next((s for s in spots if s[1] == names), spots[0])
        if len(spots) > 1:
            spots.remove(spot)
        out.append((a, spot[0]))
    return sorted(out, key=lambda pair: pair[1])


def in_file_order(literals, text: str) -> list:
    """Initial literals in the order the file states them (the pddl package returns a set).

    Errors are found in a fixed order, so the first one reported is the first in the file.
    """
    code = blank_comments(text)
    block = re.search(r"\(\s*:init\b", code, re.I)
    first: dict[str, int] = {}
    for mt in re.finditer(r"\(\s*([^\s()]+)((?:\s+[^\s()]+)*)\s*\)", code[block.end():] if block else ""):
        first.setdefault(" ".join([mt.group(1), *mt.group(2).split()]).lower(), mt.start())

    def key(lit) -> tuple[int, str]:
        inner = lit.argument if kind(lit) == "Not" else lit
        words = [str(getattr(inner, "name", inner)), *(str(t.name) for t in getattr(inner, "terms", ()))]
        return first.get(" ".join(words).lower(), len(code)), str(lit)

    return sorted(literals, key=key)


def read_metric(metric, path: str, text: str, numeric: bool = False) -> bool | None:
    """True for ``(:metric minimize (total-cost))`` in a domain without numeric fluents (action costs),
    False without a metric, None for a metric over fluents (the caller converts its expression)."""
    if metric is None:
        return False
    expr = metric.expression
    if (not numeric and str(metric.optimization).lower() == "minimize" and kind(expr) == "NumericFunction"
            and str(expr.name).lower() == m.TOTAL_COST and not expr.terms):
        return True
    return None


def fold_costs(action: m.ActionSchema) -> m.ActionSchema:
    """The action with its cost summands as ``(increase (total-cost) X)`` numeric effects (numeric domains)."""
    if not action.cost:
        return action
    folded = tuple(m.NumericEffect("increase", m.FTerm(m.TOTAL_COST), term) for term in action.cost)
    return replace(action, cost=(), numeric=(*folded, *action.numeric))


def ground_preds(c: m.Condition):
    """The atoms of a condition whose arguments are all objects (quantified ones are typed by their variable)."""
    if isinstance(c, m.Pred):
        if not any(m.is_var(t) for t in c.terms):
            yield c
    elif isinstance(c, m.Not):
        yield from ground_preds(c.arg)
    elif isinstance(c, (m.And, m.Or)):
        for part in c.parts:
            yield from ground_preds(part)
    elif isinstance(c, m.Imply):
        yield from ground_preds(c.premise)
        yield from ground_preds(c.conclusion)


def check_types(domain: m.Domain, objects, pred: m.Pred, path: str, text: str, lenient: list[str] | None,
                 start: int = 0, untyped: set[str] = frozenset(),
                 params: tuple[tuple[str, tuple[str, ...]], ...] | None = None) -> None:
    """Raise on an argument of the wrong type, or (``lenient`` collecting warnings) note it and go on.

    The position is that of the first use at or after ``start`` (the goal's atoms are sought in the goal).
    ``params`` are the declared parameters when ``pred`` is a function term, e.g. ``(dist a b)`` in :init.
    """
    decl_params = domain.predicates[pred.predicate].params if params is None else params
    for obj, (_, types) in zip(pred.terms, decl_params):
        if obj not in untyped and not any(domain.is_subtype(objects[obj], t) for t in types):
            line, col = locate(text, r"\(\s*" + re.escape(pred.predicate) + r"\s[^)]*\b" + re.escape(obj), start)
            err = TypeMismatchError(obj, objects[obj], " or ".join(types), path if line is None else f"{path}:{line}:{col}")
            if lenient is None:
                raise err
            lenient.append(f"{err} in {pred} (kept: --typing lenient)")
