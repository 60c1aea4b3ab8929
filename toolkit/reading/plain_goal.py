"""A plain problem's goal and metric straight from its checked words into the model, when every name checks out.

Why: building the goal as parsed forms (:mod:`toolkit.reading.forms`: an ``and`` hashes each operand
through its printed text) and converting them (:mod:`toolkit.reading.convert`) was most of a
small numeric problem's load, 10-20 comparisons costing more than the rest of the file. The plain
reader (:mod:`toolkit.plain_problem`) has checked the other sections' words; the goal's shape is checked
here as it is read (the reader's own check, ``plain_problem._goal``, was a second walk of the same
words), and :class:`~toolkit.plain_problem._NotPlain` tells the loader to take the full parser after all.
Each name is looked up as the converter looks it up (any case, to its declared spelling), and the
model is built as the converter builds it.

Like :func:`toolkit.loader._checked_atoms` for ``:init``, this path declines (None) at anything
unusual: an unknown name, a wrong arity, an argument of a type that does not fit, a quantifier,
and the shapes the forms rewrite other than ``(and x)`` (a nested ``and`` in an ``and``, a repeated
operand, an empty ``and``/``or``). The loader then converts the forms through the
checked path, which reports each fault where it is; so a goal read here is one that path reads
without a fault, to the same model (``tests/core/test_core_plain_goal.py`` compares the two).
"""

from __future__ import annotations

from itertools import repeat

from toolkit import model as m
from toolkit.plain_problem import _check_term as check_term, _function_name as function_name, _name as name_word, _NotPlain
from toolkit.reading.convert import to_number
from toolkit.reading.names import NUMBER_RE
from toolkit.reading.plain_numeric import COMPARISONS, is_comparison

_ARITH = frozenset({"+", "-", "*", "/"})
_NONE = (None, None)
_NONE_SET: frozenset[str] = frozenset()
_NO_VARIABLES: frozenset[str] = frozenset()  # a goal read here has no quantifier: no variable is bound
_UNSEEN = object()


def _predicate_name(el: list) -> str:
    return name_word(el[0])


class _Fault(Exception):
    """A name, arity or type the checked path reports: decline."""


class PlainGoal:
    """The name lookups of one problem (objects and domain constants ``objects``, by lower case), shared
    by its ``:init`` atoms and values (:meth:`resolved`), its goal and its metric."""

    def __init__(self, domain: m.Domain, objects: dict[str, str], untyped: set[str], listed: set[str] = _NONE_SET,
                 names: set[str] = _NONE_SET) -> None:
        self.domain, self.objects, self.untyped = domain, objects, untyped
        # The plain reader's lower-case object names and the words it found to be names (the goal's checks)
        self.listed, self.names, self.known = listed, names, names.issuperset
        self.by_lower = {o.lower(): o for o in objects}
        # lower case -> (the declared name, its declaration), as the converter's scopes resolve a name
        self.predicates = {n.lower(): (n, d) for n, d in domain.predicates.items()}
        self.functions = {n.lower(): (n, d) for n, d in domain.functions.items()}
        self.fits: dict[tuple[str, tuple[str, ...]], bool] = {}  # (an object's type, parameter types) -> fits
        self.uses_numbers = False  # a comparison was read (the problem's ``numeric``)
        self.terms: dict[tuple[str, ...], m.FTerm] = {}  # a function term's words -> its model (one per problem)

    def resolved(self, items: list[tuple[str, tuple[str, ...]]], functions: bool = False) -> list[m.Atom] | None:
        """``(name, args)`` words as the model's atoms, in order, when every name is a declared predicate (or
        with ``functions`` function, any case) with its arity over declared objects of fitting types; None at
        the first fault.

        Linear in the file: one dictionary lookup per word, one subtype test per (word, parameter types).
        """
        by_lower = self.functions if functions else self.predicates
        groups: dict[str, list[tuple[str, ...]]] = {}
        for name, args in items:
            group = groups.get(name)
            if group is None:
                group = groups[name] = []
            group.append(args)
        declared = self._declared(groups, by_lower)
        if declared is _UNSEEN:
            return self._resolved_words(items, by_lower)
        if declared is None:
            return None
        make = m.Atom
        return [make(declared[name], args) for name, args in items]

    def grouped(self, groups: dict[str, list[tuple[str, ...]]]) -> set[m.Atom] | None:
        """:meth:`resolved` of atoms given by predicate word (the plain reader's ``:init`` atoms), as a set."""
        declared = self._declared(groups, self.predicates)
        if declared is _UNSEEN:
            out = self._resolved_words([(n, args) for n, group in groups.items() for args in group], self.predicates)
            return None if out is None else set(out)
        if declared is None:
            return None
        out: set[m.Atom] = set()
        for name, group in groups.items():
            out.update(map(m.Atom, repeat(declared[name]), group))
        return out

    def _resolved_words(self, items: list[tuple[str, tuple[str, ...]]], by_lower: dict) -> list[m.Atom] | None:
        """:meth:`resolved` word by word (some argument spelled otherwise than its object is declared)."""
        objs, untyped, objects, fits = self.by_lower, self.untyped, self.objects, self.fits
        # Each distinct name word resolved once, to its declared name and, per parameter, the memo of the
        # words already checked against that parameter's types (word -> object, or None: no fit).
        decls: dict[str, tuple[str, tuple[tuple[tuple[str, ...], dict[str, str | None]], ...]] | None] = {}
        by_types: dict[tuple[str, ...], dict[str, str | None]] = {}
        out: list[m.Atom] = []
        add, make = out.append, m.Atom
        for name, args in items:
            decl = decls.get(name, _UNSEEN)
            if decl is _UNSEEN:
                n, d = by_lower.get(name.lower(), _NONE)
                decl = decls[name] = None if d is None else (
                    n, tuple((types, by_types.setdefault(types, {})) for _, types in d.params))
            if decl is None or len(args) != len(decl[1]):
                return None
            terms = []
            for arg, (types, memo) in zip(args, decl[1]):
                obj = memo.get(arg, _UNSEEN)
                if obj is _UNSEEN:
                    obj = objs.get(arg.lower())
                    if obj is not None and obj not in untyped:
                        key = (objects[obj], types)
                        fit = fits.get(key)
                        if fit is None:
                            fit = fits[key] = any(self.domain.is_subtype(key[0], t) for t in types)
                        if not fit:
                            obj = None
                    memo[arg] = obj
                if obj is None:
                    return None
                terms.append(obj)
            add(make(decl[0], tuple(terms)))
        return out

    def _declared(self, groups: dict[str, list[tuple[str, ...]]], by_lower: dict) -> dict[str, str] | None | object:
        """Each name word's declared name, where every argument is an object spelled as declared (nearly every
        file): the arguments of each name checked per distinct word and position in C (sets), not per atom in
        Python; None at a fault; ``_UNSEEN`` where some argument is spelled otherwise (the word-by-word loop,
        :meth:`_resolved_words`, resolves it)."""
        objects = self.objects
        if len(self.by_lower) != len(objects):
            return _UNSEEN  # two objects alike but for case: the loop picks the one the converter picks
        declared: dict[str, str] = {}
        untyped, fits, fit = self.untyped, self.fits, self._fits
        for name, group in groups.items():
            n, d = by_lower.get(name.lower(), _NONE)
            if d is None:
                return None
            arity = len(d.params)
            if set(map(len, group)) != {arity}:
                return None
            for column, (_, types) in zip(zip(*group), d.params):
                for word in set(column):
                    typ = objects.get(word)
                    if typ is None:
                        return _UNSEEN
                    if word not in untyped and not (fits.get((typ, types)) or fit(typ, types)):
                        return None
            declared[name] = n
        return declared

    def goal(self, raw) -> m.Condition | None:
        """The model of the plain problem's goal ``raw`` (its words, their shape checked as they are read), or
        None where the checked path must read it; raises :class:`~toolkit.plain_problem._NotPlain` where the
        plain reader would have refused the file (a goal it was told not to check, ``check_goal=False``)."""
        try:
            return self._condition(raw)
        except _Fault:
            return None

    def metric(self, raw: list) -> m.NumExpr | None:
        """The model of the expression of a plain ``(:metric direction expression)``'s words, or None."""
        try:
            return self._num(raw[1])
        except (_Fault, _NotPlain):  # (the plain reader checked the metric: no _NotPlain comes)
            return None

    def _condition(self, el) -> m.Condition:
        """The model of a goal description, its shape checked as it is read: :class:`_NotPlain` where the
        plain reader's check (``plain_problem._goal``) refuses it, :class:`_Fault` where the checked path
        must read it (a fault, or a shape the forms rewrite: that check then gives the verdict)."""
        if el.__class__ is not list or not el:
            raise _NotPlain
        op = el[0]
        if op == "and" or op == "or":
            if len(el) < 2:
                raise _Fault  # an empty one: the checked path
            parts = tuple([self._condition(x) for x in el[1:]])  # (each a list of words: else _NotPlain)
            if op in [x[0] for x in el[1:]]:
                raise _Fault  # a nested one the forms lift into it: the checked path
            if len(parts) == 1:
                return parts[0]  # one operand is the formula itself (forms._Monotone)
            if not _distinct(parts):  # a repeated operand, which the forms keep once (equal models: words
                raise _Fault          # equal but for case, or numbers written "1" and "1.0")
            return m.And(parts) if op == "and" else m.Or(parts)
        if op == "not" or op == "imply":
            if len(el) != (2 if op == "not" else 3):
                raise _NotPlain
            if op == "not":
                return m.Not(self._condition(el[1]))
            return m.Imply(self._condition(el[1]), self._condition(el[2]))
        if op.__class__ is not str:
            raise _NotPlain
        if op in COMPARISONS and (op != "=" or (len(el) == 3 and el[1].__class__ is list and el[2].__class__ is list)
                                  or is_comparison(el)):  # (of two expressions at once; it raises at an ambiguous "=")
            if len(el) != 3:
                raise _NotPlain
            self.uses_numbers = True
            return m.Compare(op, self._num(el[1]), self._num(el[2]))
        if op == "=":  # of two words (is_comparison)
            self._check_words(el)
            return m.Equals(self._object(el[1]), self._object(el[2]))
        if op == "forall" or op == "exists":
            raise _Fault  # variables: the checked path
        self._check_words(el, _predicate_name)
        name, decl = self.predicates.get(op.lower(), _NONE)
        if decl is None or len(el) - 1 != len(decl.params):
            raise _Fault
        terms = tuple([self._object(t) for t in el[1:]])
        for obj, (_, types) in zip(terms, decl.params):  # as build.check_types tests each ground atom
            if obj not in self.untyped and not self._fits(self.objects[obj], types):
                raise _Fault
        return m.Pred(name, terms)

    def _check_words(self, el: list, head=None) -> None:
        """Raises :class:`_NotPlain` where the plain reader refuses ``el``'s words as ``plain_problem._goal``
        checks them: ``head(el)`` for its first (a predicate's name, or a function's), then each term."""
        try:
            if self.known(el):
                return  # every word known to be a name (a list is no word: a TypeError)
        except TypeError:
            pass
        if head is not None:
            head(el)
        for t in el[1:]:
            check_term(t, self.listed, _NO_VARIABLES, self.names)

    def _fits(self, typ: str, types: tuple[str, ...]) -> bool:
        key = (typ, types)
        fit = self.fits.get(key)
        if fit is None:
            fit = self.fits[key] = typ in types or any(self.domain.is_subtype(typ, t) for t in types)
        return fit

    def _object(self, word: str) -> str:
        obj = self.by_lower.get(word.lower())
        if obj is None:
            raise _Fault
        return obj

    def _num(self, el) -> m.NumExpr:
        """An ``f_exp`` as :meth:`toolkit.reading.numeric.NumericConversion.num_expr` builds it, its shape
        checked as ``plain_problem._check_f_exp`` checks it."""
        if el.__class__ is str:
            if el.isdigit() and el.isascii() and len(el) < 300:
                return int(el)  # the usual small count at once (what the lines below give it)
            if not NUMBER_RE.match(el) or el.count(".") > 1:
                raise _NotPlain
            # plain_numeric.number's value, then as num_expr (to_number: an integer of fewer than 300 digits is
            # its own value)
            return int(el) if "." not in el and len(el) < 300 else to_number(float(el) if "." in el else int(el))
        if not el or el[0].__class__ is not str:
            raise _NotPlain
        op = el[0]
        if op in _ARITH:  # (- x), (+ a b ...): no function is so named (not a name)
            n = len(el) - 1
            if (n != 2 and not (n == 1 and op == "-")) if op == "-" or op == "/" else n < 2:
                raise _NotPlain
            return m.Arith(op, tuple([self._num(x) for x in el[1:]]))
        try:  # a goal names its terms again and again (block-grouping: 40 reads of 10 terms)
            key = tuple(el)
            term = self.terms.get(key)
        except TypeError:  # a list among its words
            raise _NotPlain from None
        if term is None:
            term = self.terms[key] = self._fterm(el)
        return term

    def _fterm(self, el: list) -> m.FTerm:
        if not self.known(el):  # (words only: _num hashed them) every word known to be a name, or each checked
            self._check_words(el, function_name)
        name, decl = self.functions.get(el[0].lower(), _NONE)
        if decl is None or len(el) - 1 != len(decl.params):
            raise _Fault
        by_lower = self.by_lower
        terms = tuple([by_lower.get(t.lower()) for t in el[1:]])
        if None in terms:
            raise _Fault
        return m.FTerm(name, terms)


def _distinct(parts: tuple[m.Condition, ...]) -> bool:
    """Whether no two of an and's or or's operands are equal: two compared, more by their keys (:func:`_key`), hashed
    in C (a model record hashes its tree in Python: most of reading block-grouping's goal of 16 comparisons)."""
    if len(parts) == 2:
        return parts[0] != parts[1]
    return len(set(map(_key, parts))) == len(parts)


def _key(c: m.Condition) -> object:
    """A key of the condition ``c``, equal to another's exactly where the conditions are equal: a comparison (a
    function term on a side by its words), an atom, a negation, an and or an or by its parts (each kind marked by
    a word with "(", which no name has), any other condition itself."""
    cls = c.__class__
    if cls is m.Compare:
        left, right = c.left, c.right
        return ("(cmp", c.op, (left.function, left.terms) if left.__class__ is m.FTerm else left,
                (right.function, right.terms) if right.__class__ is m.FTerm else right)
    if cls is m.Pred:
        return c.predicate, c.terms
    if cls is m.Not:
        return "(not", _key(c.arg)
    if cls is m.Or or cls is m.And:
        return ("(or" if cls is m.Or else "(and", *map(_key, c.parts))
    return c
