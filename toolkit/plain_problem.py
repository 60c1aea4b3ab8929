"""A fast reader for problem files of the plain shape almost every generator writes.

The ``pddl`` package's Lark parser spends about 100 us per token; a large ``:init``
(visitall, parking, tidybot: thousands of atoms) then costs far more than the
grounding itself, where Fast Downward's translator reads the same file in a few
milliseconds. Most problem files are plain: typed object lists, an ``:init`` of
ground atoms, negated atoms and ``(= (f objs) number)`` values, a goal made of
``and``/``or``/``not`` over ground atoms and numeric comparisons, and a ``:metric`` over fluents
(:mod:`toolkit.reading.plain_numeric`).

:func:`read_plain_problem` reads exactly that shape into forms with the shapes of the ``pddl``
objects the Lark transformer builds (:mod:`toolkit.reading.forms`, which spares ``pgt validate``
the package's import), so the rest of the loader (name, arity and type
checks, error positions) runs unchanged. Anything else, including anything
malformed, returns None and the caller takes the full parser, which owns every
syntax error message; so this path can only ever accept what the grammar accepts.
"""

from __future__ import annotations

import functools
import re
from types import SimpleNamespace
from typing import Callable

from toolkit.reading import forms, plain_numeric
from toolkit.reading.forms import Constant, Predicate, Variable
from toolkit.reading.names import NAME_RE, NUMBER_RE
from toolkit.reading.words import SExpr, _NotPlain, _sexpr, _sexpr_words  # noqa: F401 - the readers' word lists

# The loader's spelling of the root type ``object`` in typed lists while parsing (the pddl package
# refuses ``- object``); every reader maps it back to ``object``.
ROOT = "pgtrootobject"
# The grammar's NAME (as pgt widens it: toolkit/reading/names.py) and NUMBER terminals.
_NAME = NAME_RE
_NUMBER = NUMBER_RE
# Words the grammar reserves: a name spelled like one goes to the full parser.
KEYWORDS = frozenset({"and", "assign", "decrease", "define", "domain", "either", "exists", "forall", "imply",
                       "increase", "maximize", "minimize", "not", "number", "object", "oneof", "or", "problem",
                       "scale-down", "scale-up", "total-cost", "when"})

class PlainProblem(SimpleNamespace):
    """A plain problem: ``name``, ``domain_name``, ``objects``, ``goal``, ``metric`` as parsed forms, and
    its ``:init`` twice: ``atoms``, the positive atoms as words (each predicate word's ``(arg, ...)``), which the
    loader turns into the model directly when every name checks out (linear in the file), and
    ``init``, the whole section as parsed forms, built only when the loader needs them to report a
    fault where it is; its values as ``value_heads`` (words) and ``value_numbers`` (``small_ints``: each an ``int``
    of fewer than 300 characters, its own model value); the goal and the metric
    likewise as words (``raw_goal``, checked unless the reader was told not to; ``raw_metric``) and
    ``goal`` as forms on demand.
    """

    @functools.cached_property
    def by_name(self) -> dict[str, Constant]:
        """The objects as parsed forms by lower-case name (their ``type_tags`` one type or none)."""
        return {n.lower(): Constant(n, type_tag=tags[0] if tags else None) for n, tags in self.object_pairs}

    @functools.cached_property
    def objects(self) -> list[Constant]:
        return list(self.by_name.values())

    @functools.cached_property
    def init(self) -> set:
        return {_init_element(el, self.by_name) for el in self.raw_init}

    @functools.cached_property
    def goal(self):
        """The goal as parsed forms, built only when the loader converts it through the checked path
        (:mod:`toolkit.reading.plain_goal` reads ``raw_goal``, the checked words, when every name checks out)."""
        return _goal(self.raw_goal, self.by_name)

    def check_goal(self) -> None:
        """Raises :class:`_NotPlain` where the goal is not of the plain shape (its words' checks, building
        nothing): the verdict of a reader called with ``check_goal=False``, asked for where the goal's
        direct reading (:mod:`toolkit.reading.plain_goal`) declines."""
        _goal(self.raw_goal, self.listed, build=False, names=self.names)

    def besides_atoms(self) -> list:
        """The ``:init`` elements that are no positive atom (values, negated atoms), as parsed forms."""
        return [_init_element(el, self.by_name) for el in self.raw_others]


def read_plain_problem(code: str, root: str, check_goal: bool = True) -> SimpleNamespace | None:
    """The parsed problem (name, domain_name, objects, init, goal, metric) of comment-free ``code``, or None.

    ``root`` is the placeholder the loader writes for the type ``object``. Without ``check_goal`` the goal's
    shape is left to the caller, which reads it (:mod:`toolkit.reading.plain_goal`, checking as it goes)
    or asks :meth:`PlainProblem.check_goal`.
    """
    _NAMES.clear()  # a file's own names only: a new file's words are each checked once
    try:
        return _problem(_sexpr(code), root, check_goal)
    except (_NotPlain, RecursionError):
        return None


# Words of the file being read already found to be names (a file repeats its names: one check each). Emptied
# as each file's reading starts (read_plain_problem, plain_domain.read_plain_domain): a file read again, or
# another file of the same names, checks its words anew, as a new file's are.
_NAMES: set[str] = set()


def _name(tok: SExpr) -> str:
    if tok.__class__ is str and tok in _NAMES:
        return tok  # type: ignore[return-value]
    if not isinstance(tok, str) or not _NAME.match(tok) or tok.lower() in KEYWORDS:
        raise _NotPlain
    _NAMES.add(tok)
    return tok


def _problem(tree: list[SExpr], root: str, check_goal: bool = True) -> SimpleNamespace:
    if len(tree) < 5 or tree[0] != "define":
        raise _NotPlain
    head, dom = tree[1], tree[2]
    if not (isinstance(head, list) and len(head) == 2 and head[0] == "problem"):
        raise _NotPlain
    if not (isinstance(dom, list) and len(dom) == 2 and dom[0] == ":domain"):
        raise _NotPlain
    sections: dict[str, list[SExpr]] = {}
    order = (":objects", ":init", ":goal", ":metric")
    last = -1
    for sec in tree[3:]:
        if not isinstance(sec, list) or not sec or sec[0] not in order or order.index(sec[0]) <= last:
            raise _NotPlain  # :requirements, :constraints, repeats, disorder: the full parser decides
        last = order.index(sec[0])
        sections[sec[0]] = sec[1:]
    if ":init" not in sections or ":goal" not in sections or len(sections[":goal"]) != 1:
        raise _NotPlain
    pairs = typed_list(sections.get(":objects", []), lambda kind: (kind if kind == root else _name(kind),))
    listed = {n.lower() for n, _ in pairs}  # names ignore case, as the grammar's lookup does
    if len(listed) != len(pairs):
        raise _NotPlain  # a duplicate (names ignore case): the full parser reports it where it is
    raw_init = sections[":init"]
    atoms: dict[str, list[tuple[str, ...]]] = {}  # the positive atoms' arguments, by predicate word
    others: list[SExpr] = []
    # The values (= (f args) number): each head's words (f, (args)), each number's word, the (total-cost)s' places
    heads: list[tuple[str, tuple[str, ...]]] = []
    number_words: list[str] = []
    costs: list[int] = []
    # Words already checked as names (each distinct word is checked once): the objects', as listed, to begin with
    names: set[str] = {n for n, _ in pairs}
    known = names.issuperset
    for el in raw_init:  # check the shape now (the full parser takes anything else); build the forms on demand
        if el.__class__ is list and el:
            if el[0] == "=":  # a value (as _atom_words tells it, without raising)
                fterm = el[1] if len(el) == 3 else None
                try:  # a head of names known already (its number checked with the others', below)
                    known_head = fterm.__class__ is list and fterm and el[2].__class__ is str and known(fterm)
                except TypeError:  # a list among its words
                    known_head = False
                if not known_head:
                    _check_element(el, listed, names)  # raises where it is not plain; else its names are known now
                if len(fterm) == 1 and fterm[0].lower() == "total-cost":
                    costs.append(len(heads))
                heads.append((fterm[0], tuple(fterm[1:])))
                number_words.append(el[2])
                others.append(el)
                continue
            if el[0] == "not":
                _check_element(el, listed, names)
                others.append(el)
                continue
            try:
                if known(el):  # every word seen before (never "=" nor "not"): one C call per atom
                    group = atoms.get(el[0])
                    if group is None:
                        group = atoms[el[0]] = []
                    group.append(tuple(el[1:]))
                    continue
            except TypeError:  # a nested list: not plain, as _atom_words finds below
                pass
        pred, args = _atom_words(el, listed, names)  # (a value or a negation went above: never None here)
        atoms.setdefault(pred, []).append(args)
    numbers, small_ints = plain_numeric.init_numbers(number_words)
    raw_goal = sections[":goal"][0]
    if check_goal:
        _goal(raw_goal, listed, build=False, names=names)  # the shape, checked now: the forms only if asked for
    return PlainProblem(name=_name(head[1]), domain_name=_name(dom[1]), object_pairs=pairs, raw_init=raw_init,
                        atoms=atoms, raw_others=others, value_heads=heads, value_numbers=numbers, small_ints=small_ints,
                        cost_not_zero=any(numbers[i] != 0 for i in costs), raw_goal=raw_goal, listed=listed, names=names,
                        metric=_metric(sections.get(":metric")), raw_metric=sections.get(":metric"))


def typed_list(items: list[SExpr], kind: Callable[[SExpr], tuple[str, ...]],
               name: Callable[[SExpr], str] = _name) -> list[tuple[str, tuple[str, ...]]]:
    """``a b - t c`` as [(a, (t,)), (b, (t,)), (c, ())], in the file's order, repeats kept.

    ``name`` reads each listed name and ``kind`` the type after a ``-`` (both raise
    :class:`_NotPlain` on anything else); a ``-`` after no name or at the end is not plain.
    """
    out: list[tuple[str, tuple[str, ...]]] = []
    pending: list[str] = []
    try:  # one C scan for a word glued to its dash ("-place"); an (either ...) among the items: look word by word
        glued = _GLUED_DASH.search(" ".join(items)) is not None
    except TypeError:
        glued = any(isinstance(t, str) and t[:1] == "-" and len(t) > 1 for t in items)
    if glued:
        items = _split_dashes(items)
    words = iter(items)
    for tok in words:
        if tok == "-":
            tag = next(words, _END)
            if tag is _END or not pending:
                raise _NotPlain
            tags = kind(tag)
            out += [(n, tags) for n in pending]
            pending = []
            continue
        pending.append(name(tok))
    return out + [(n, ()) for n in pending]


_GLUED_DASH = re.compile(r"(?<!\S)-\S")  # a word that starts with "-" and goes on
_END = object()


def _split_dashes(items: list[SExpr]) -> list[SExpr]:
    """``rover -object waypoint -place`` as the grammar's lexer reads it (IPC's rover and tpp write so): a name
    never starts with ``-``, so ``-place`` is the separator and ``place``; ``-object`` names the root type, which
    the loader's normalisation spells :data:`ROOT` only after a free-standing ``-``."""
    out: list[SExpr] = []
    for t in items:
        if isinstance(t, str) and t[:1] == "-" and len(t) > 1:
            out += ["-", ROOT if t[1:].lower() == "object" else t[1:]]
        else:
            out.append(t)
    return out


def _typed_list(items: list[SExpr], variables: bool, either: bool = True,
                repeats: bool = False) -> list[tuple[str, tuple[str, ...]]]:
    """``a b - t c`` as [(a, (t,)), (b, (t,)), (c, ())]; ``?x`` names when ``variables`` (without the ``?``).

    A name listed twice (unless ``repeats`` and the list is untyped, as in logistics'
    ``(in ?obj ?obj)``, which the package keeps), or anything beyond names, ``-`` and
    (where allowed) ``(either ...)``, is not plain.
    """
    def kind(tok: SExpr) -> tuple[str, ...]:
        if not isinstance(tok, list):
            return (_name(tok),)
        if not (either and len(tok) > 1 and tok[0] == "either"):
            raise _NotPlain
        tags = tuple(_name(k) for k in tok[1:])
        if len({t.lower() for t in tags}) != len(tags):
            raise _NotPlain
        return tags

    out = typed_list(items, kind, _variable if variables else _name)
    if not (repeats and "-" not in items) and len({n.lower() for n, _ in out}) != len(out):
        raise _NotPlain  # a duplicate: the full parser reports (or repairs) it
    return out


def _variable(tok: SExpr) -> str:
    if not (isinstance(tok, str) and tok.startswith("?")):
        raise _NotPlain
    return _name(tok[1:])



def _atom(el: SExpr, by_name: dict[str, Constant]) -> Predicate:
    if not isinstance(el, list) or not el:
        raise _NotPlain
    return Predicate(_name(el[0]), *[_object(a, by_name) for a in el[1:]])


def _atom_words(el: SExpr, by_name, names: set[str]) -> tuple[str, tuple[str, ...]] | None:
    """A positive initial atom as words, checked as :func:`_atom` checks it; None for ``(= ...)`` and
    ``(not ...)`` (raises :class:`_NotPlain` where :func:`_atom` would). ``names``: words known to be names;
    ``by_name``: the objects' lower-case names (a set, or the forms by name)."""
    if not isinstance(el, list) or not el:
        raise _NotPlain
    try:
        if names.issuperset(el):  # every word seen before (never "=" nor "not"): one C call per atom
            return el[0], tuple(el[1:])
    except TypeError:  # a nested list: a value or a negation, read below
        pass
    if el[0] == "=" or el[0] == "not":
        return None
    for tok in el:
        if not isinstance(tok, str):
            raise _NotPlain
        if tok not in names:
            if tok.lower() not in by_name:  # the objects' names were checked as names when listed
                _name(tok)
            names.add(tok)
    return el[0], tuple(el[1:])


def _object(tok: SExpr, by_name: dict[str, Constant]) -> Constant:
    hit = by_name.get(tok.lower()) if isinstance(tok, str) else None
    return hit if hit is not None else Constant(_name(tok))


def _check_element(el: SExpr, by_name, names: frozenset[str] | set[str] = frozenset()) -> None:
    """Raises :class:`_NotPlain` where :func:`_init_element` would, for a value or a negated atom, without
    building its forms (the loader reads the values from the words; the forms only for a fault).
    ``names``: words known to be names (a function term of them is checked at once)."""
    if el[0] == "=":
        if len(el) != 3 or el[1].__class__ is not list or not el[1] or el[2].__class__ is not str:
            raise _NotPlain
        word = el[2]
        if not _NUMBER.match(word) or word.count(".") > 1:
            raise _NotPlain
        float(word) if "." in word else int(word)  # as _init_element converts it
        head = el[1]
        try:
            if names.issuperset(head):
                return  # every word a name already (lists are no words: a TypeError)
        except TypeError:
            pass
        cost = isinstance(head[0], str) and head[0].lower() == "total-cost" and len(head) == 1
        if not cost:
            _name(head[0])
        for a in head[1:]:
            _name(a)
        if names.__class__ is set:
            names.update(head[1:] if cost else head)  # names now (total-cost is none: a keyword)
        return
    if len(el) != 2:  # (not ...): _atom_words read every other shape
        raise _NotPlain
    atom = el[1]
    if not isinstance(atom, list) or not atom:
        raise _NotPlain
    _name(atom[0])
    for tok in atom[1:]:
        if not (isinstance(tok, str) and tok.lower() in by_name):
            _name(tok)


def _init_element(el: SExpr, by_name: dict[str, Constant]):
    if isinstance(el, list) and el and el[0] == "=":
        if len(el) != 3 or not isinstance(el[1], list) or not el[1] or not isinstance(el[2], str):
            raise _NotPlain
        if not _NUMBER.match(el[2]) or el[2].count(".") > 1:
            raise _NotPlain  # the grammar's NUMBER takes 1.2.3, which is no number: the full parser reports it
        value = float(el[2]) if "." in el[2] else int(el[2])
        head = el[1]
        fname = head[0] if isinstance(head[0], str) and head[0].lower() == "total-cost" and len(head) == 1 else _name(head[0])
        return forms.FunctionEqualTo(forms.NumericFunction(fname, *[Constant(_name(a)) for a in head[1:]]), forms.NumericValue(value))
    if isinstance(el, list) and el and el[0] == "not":
        if len(el) != 2:
            raise _NotPlain
        return forms.Not(_atom(el[1], by_name))
    return _atom(el, by_name)


def _goal(el: SExpr, by_name, bound: frozenset[str] = frozenset(), build: bool = True,
          names: frozenset[str] | set[str] = frozenset()):
    """A goal description: ``and``/``or``/``not``/``imply`` over atoms and equalities of objects, and
    ``forall``/``exists`` (ADL goals such as miconic-fulladl's ``(forall (?p - passenger) (served ?p))``),
    whose variables are the only ones a term may name (``bound``, lower case); anything else is not plain.
    Without ``build``, only the checks (the same ones: the plain reader's verdict) and None, and ``by_name``
    may be the set of the objects' lower-case names; ``names``: words of this file known to be names."""
    if not isinstance(el, list) or not el:
        raise _NotPlain
    op = el[0]
    if op == "and" or op == "or":
        parts = [_goal(x, by_name, bound, build, names) for x in el[1:]]
        if not build:
            return None
        return forms.And(*parts) if op == "and" else forms.Or(*parts)
    if op == "not" or op == "imply":
        if len(el) != (2 if op == "not" else 3):
            raise _NotPlain
        if not build:
            for x in el[1:]:
                _goal(x, by_name, bound, False, names)
            return None
        return (forms.Not(_goal(el[1], by_name, bound)) if op == "not"
                else forms.Imply(_goal(el[1], by_name, bound), _goal(el[2], by_name, bound)))
    if op == "forall" or op == "exists":
        if len(el) != 3 or not isinstance(el[1], list):
            raise _NotPlain
        variables = [Variable(n, tags) for n, tags in _typed_list(el[1], True)]
        inner = bound | {str(v.name).lower() for v in variables}
        cond = _goal(el[2], by_name, inner, build, names)
        if not build:
            return None
        cls = forms.ForallCondition if op == "forall" else forms.ExistsCondition
        return cls(cond=cond, variables=variables)
    if isinstance(op, str) and op in plain_numeric.COMPARISONS and plain_numeric.is_comparison(el):
        if not build:
            if len(el) != 3:
                raise _NotPlain
            _check_f_exp(el[1], by_name, bound, names)
            _check_f_exp(el[2], by_name, bound, names)
            return None
        return plain_numeric.comparison(el, lambda head: _goal_function(head, by_name, bound))
    if op == "=":
        if len(el) != 3:
            raise _NotPlain
        if not build:
            _check_term(el[1], by_name, bound, names)
            _check_term(el[2], by_name, bound, names)
            return None
        return forms.EqualTo(_goal_term(el[1], by_name, bound), _goal_term(el[2], by_name, bound))
    if not build:
        try:
            if names.issuperset(el):
                return None  # an atom of words known to be names (lists are no words: a TypeError)
        except TypeError:
            pass
        _name(op)
        for t in el[1:]:
            _check_term(t, by_name, bound, names)
        return None
    return Predicate(_name(op), *[_goal_term(t, by_name, bound) for t in el[1:]])


def _check_term(tok: SExpr, by_name, bound: frozenset[str], names: frozenset[str] | set[str] = frozenset()) -> None:
    """Raises :class:`_NotPlain` where :func:`_goal_term` would, building nothing (``by_name``: a set or dict
    of the objects' lower-case names; ``names``: words known to be names)."""
    if tok.__class__ is str:
        if tok in names or tok in _NAMES or tok.lower() in by_name:
            return  # a listed object (names checked when listed) or a word known to be a name
        if tok.startswith("?"):
            if _variable(tok).lower() not in bound:
                raise _NotPlain
            return
    _name(tok)


def _check_f_exp(el: SExpr, by_name, bound: frozenset[str], names: frozenset[str] | set[str] = frozenset()) -> None:
    """Raises :class:`_NotPlain` where :func:`toolkit.reading.plain_numeric.f_exp` would with the goal's
    function terms, building nothing (its checks, one by one: the plain reader's verdict on a goal)."""
    if el.__class__ is str:
        if not _NUMBER.match(el) or el.count(".") > 1:
            raise _NotPlain
        return
    if not el or not isinstance(el[0], str):
        raise _NotPlain
    op, n = el[0], len(el) - 1
    if op == "-" or op == "/":
        if not (n == 2 or (n == 1 and op == "-")):
            raise _NotPlain
    elif op == "+" or op == "*":
        if n < 2:
            raise _NotPlain
    else:
        _check_function(el, by_name, bound, names)
        return
    for x in el[1:]:
        _check_f_exp(x, by_name, bound, names)


def _check_function(el: list, by_name, bound: frozenset[str], names: frozenset[str] | set[str] = frozenset()) -> None:
    """Raises :class:`_NotPlain` where :func:`_goal_function` would, building nothing."""
    try:
        if names.issuperset(el):
            return  # a function and arguments known to be names (never total-cost: a keyword)
    except TypeError:
        pass
    _function_name(el)
    for t in el[1:]:
        _check_term(t, by_name, bound, names)


def _goal_term(tok: SExpr, by_name: dict[str, Constant], bound: frozenset[str]):
    """An object, or a variable of an enclosing quantifier (a free one goes to the full parser)."""
    if isinstance(tok, str) and tok.startswith("?"):
        name = _variable(tok)
        if name.lower() not in bound:
            raise _NotPlain
        return Variable(name, ())
    return _object(tok, by_name)


def _goal_function(el: list, by_name: dict[str, Constant], bound: frozenset[str]) -> forms.NumericFunction:
    """A function term in a goal comparison (the domain transformer's ``f_head``, its terms the problem's
    ``constant`` rule: objects, or variables of an enclosing quantifier)."""
    return forms.NumericFunction(_function_name(el), *[_goal_term(t, by_name, bound) for t in el[1:]])


def _function_name(el: list) -> str:
    if not el:
        raise _NotPlain  # (a bare name as a function term is rare: the full parser reads it)
    return "total-cost" if el == ["total-cost"] else _name(el[0])


def _metric_function(el: list) -> forms.NumericFunction:
    """``basic_function_term`` of ``metric_f_exp``: the problem transformer's fresh, untyped ``Constant`` per name."""
    return forms.NumericFunction(_function_name(el), *[Constant(_name(a)) for a in el[1:]])


def _metric(items: list[SExpr] | None):
    """``(:metric minimize|maximize metric_f_exp)`` as the problem transformer's ``metric_spec`` builds it."""
    if items is None:
        return None
    if len(items) != 2 or items[0] not in ("minimize", "maximize"):
        raise _NotPlain
    return forms.Metric(plain_numeric.f_exp(items[1], _metric_function), items[0])
