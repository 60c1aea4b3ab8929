"""A fast reader for domain files of the plain shape almost every published domain has.

Reading a domain through the ``pddl`` package costs a fixed ~0.1 s per process
(loading the Lark grammar, a slow per-token parse, then the package's validation
of the whole domain), which on small problems is most of ``pgt``'s load time where
Fast Downward's translator reads the same file in a few milliseconds.

:func:`read_plain_domain` reads the grammar's domain rule (requirements, types,
constants, predicates, functions, actions with STRIPS, ADL and numeric bodies:
numeric conditions and effects through :mod:`toolkit.reading.plain_numeric`)
into forms with the shapes of the ``pddl`` objects the package's transformer builds
(:mod:`toolkit.reading.forms`, which spares ``pgt validate`` the package's import), made
from the same pieces in the same order, so the loader's conversion (name, arity and
type checks, error positions, warnings) runs unchanged on either. It is the
domain twin of :mod:`toolkit.plain_problem`: anything it does not fully
understand, and anything the full parser or the package's validation would
complain about (an undeclared type or constant, a name declared twice),
returns None and the caller takes the full parser, which
owns every error message (the one exception: a ``:derived`` head that names an
undeclared predicate or has another arity is read as written, for the loader's
own located message). The one repair both paths make is a type listed twice
under compatible parents (IPC's storage), read the same way with the same
warning. So this path only ever accepts what the full parser accepts, and
builds what it builds; ``tests/core/test_core_plain_domain.py`` checks that on
every IPC sample and shipped domain.
"""

from __future__ import annotations

from types import SimpleNamespace

from toolkit.plain_problem import _NAMES, ROOT, SExpr, _name, _NotPlain, _sexpr, _typed_list, typed_list
from toolkit.reading import forms, plain_numeric
from toolkit.reading.forms import Action, Constant, DerivedPredicate, EqualTo, Predicate, Variable
from toolkit.reading.text import blank_comments, line_col, listed_at, section

# The requirement keys the grammar knows (the loader's normalisation leaves only these).
_REQUIREMENTS = frozenset({
    ":strips", ":typing", ":negative-preconditions", ":disjunctive-preconditions", ":equality",
    ":existential-preconditions", ":universal-preconditions", ":quantified-preconditions",
    ":conditional-effects", ":adl", ":action-costs", ":numeric-fluents", ":fluents", ":derived-predicates",
})
_SECTIONS = (":requirements", ":types", ":constants", ":predicates", ":functions")


def read_plain_domain(code: str, lazy: bool = False) -> SimpleNamespace | None:
    """The parsed domain (name, types, constants, predicates, functions, actions) of comment-free ``code``, or None.

    ``code`` is the loader's normalised text, where ``- object`` names its placeholder
    root type, declared in ``:types`` like any other. A type listed twice under
    compatible parents is read as the full parser's repair reads it (see
    :func:`redeclared_parent`); ``redeclared`` maps each such type to the parent kept,
    for the loader's warning.

    The predicates and functions are read as words, ``predicate_words`` and ``function_words`` (each
    declaration's name and its variables' names and type tags), which the loader builds into the model
    (:func:`toolkit.reading.build.declaration_words`): a form per declaration and variable was made
    only to be read back.

    ``lazy``: the actions are left as s-expressions (``action_items``, with the ``reader`` of
    the declarations), for :mod:`toolkit.reading.direct_actions` to build into the model in one
    pass; :func:`with_action_forms` reads them as forms where it declines.
    """
    _NAMES.clear()  # the names this file's words are found to be (see plain_problem._NAMES)
    try:
        return _Reader().domain(_sexpr(code), lazy)
    except (_NotPlain, RecursionError, ValueError):
        return None


def with_action_forms(pdom: SimpleNamespace) -> SimpleNamespace | None:
    """A lazily read domain (:func:`read_plain_domain`) with its actions as forms, or None where they are not plain."""
    try:
        actions = [pdom.reader._action(a) for a in pdom.action_items]
    except (_NotPlain, RecursionError, ValueError):
        return None
    if len({str(a.name).lower() for a in actions}) != len(actions):
        return None
    return SimpleNamespace(**{**vars(pdom), "actions": actions})


def redeclared_parent(first: str | None, second: str | None) -> tuple[int, str] | None:
    """A type listed twice in ``:types``, under parent ``first`` then ``second`` (None: no parent).

    ``area - object`` and ``area - surface`` mean ``area - surface`` (every type is an
    object); the same parent twice is a plain repeat. Returns which listing to drop (0 or
    1) and the parent kept (lower case, ``object`` for the root); None for two different
    proper parents, which would need multiple inheritance: an error.
    """
    p1, p2 = ("object" if p is None or p.lower() in ("object", ROOT) else p.lower() for p in (first, second))
    if p1 == p2 or p2 == "object":
        return 1, p1
    if p1 == "object":
        return 0, p2
    return None


def type_twice(where: str, name: str, parent: str) -> str:
    return f"{where}: type '{name}' declared twice; kept as a subtype of {parent}"


def redeclared_warnings(path: str, text: str, redeclared: dict[str, str]) -> list[str]:
    """The warnings for the types the plain reader found listed twice, each at its second listing (as the full parser's).

    Here, not beside the full parser's repairs: a plain file such as IPC's storage must not import Lark for it."""
    code = blank_comments(text)
    sec = section(code, ":types") or (0, len(code))
    out = []
    for name, parent in redeclared.items():
        hits = [h for h in listed_at(name, code, sec[0]) if h < sec[1]]
        out.append(type_twice("{}:{}:{}".format(path, *line_col(text, hits[1 if len(hits) > 1 else 0])), name, parent))
    return out


class _Reader:
    """One domain's reading: the declared types, constants and the action parameters in scope."""

    def __init__(self) -> None:
        self.all_types: set[str] = set()
        self.constants: dict[str, Constant] = {}
        self.params: dict[str, Variable] = {}
        self.redeclared: dict[str, str] = {}  # a type listed twice in :types -> the parent kept
        self.known_tags: set[tuple[str, ...]] = set()  # type lists already found declared
        # a declaration's words after its name -> its variables' names and type tags
        self.skeletons: dict[tuple, list[tuple[str, tuple[str, ...]]]] = {}

    def domain(self, tree: list[SExpr], lazy: bool = False) -> SimpleNamespace:
        if len(tree) < 2 or tree[0] != "define":
            raise _NotPlain
        head = tree[1]
        if not (isinstance(head, list) and len(head) == 2 and head[0] == "domain"):
            raise _NotPlain
        sections: dict[str, list[SExpr]] = {}
        last = -1
        first = 2  # the first element after the sections
        for el in tree[2:]:
            if not (el.__class__ is list and el and el[0] in _SECTIONS):
                break
            at = _SECTIONS.index(el[0])
            if at <= last:
                raise _NotPlain  # repeated or out of the grammar's order
            last = at
            sections[el[0]] = el[1:]
            first += 1
        rest = tree[first:]
        # Words only, each a requirement the grammar knows (a list among them is no word: a TypeError). As
        # declared: the loader grants the missing ones to the full parser alone, so an empty list is fine.
        try:
            known = _REQUIREMENTS.issuperset(sections.get(":requirements", ()))
        except TypeError:
            known = False
        if not known:
            raise _NotPlain
        types = self._types(sections.get(":types", []))
        for n, tags in _typed_list(sections.get(":constants", []), False, either=False):
            self._check_tags(tags)
            self.constants[n.lower()] = Constant(n, tags[0] if tags else None)
        if ":predicates" in sections and not sections[":predicates"]:
            raise _NotPlain
        predicates = [self._declared(p) for p in sections.get(":predicates", [])]
        by_name = {name.lower(): pairs for name, pairs in predicates}
        if len(by_name) != len(predicates):
            raise _NotPlain
        functions = self._functions(sections[":functions"]) if ":functions" in sections else []
        items = [a for a in rest if not (isinstance(a, list) and a and a[0] == ":derived")]
        actions = None if lazy else [self._action(a) for a in items]
        derived = [self._derived(a, by_name) for a in rest if isinstance(a, list) and a and a[0] == ":derived"]
        if actions is not None and len({str(a.name).lower() for a in actions}) != len(actions):
            raise _NotPlain
        return SimpleNamespace(name=_name(head[1]), types=types, constants=list(self.constants.values()),
                               predicate_words=predicates, function_words=functions, actions=actions,
                               derived_predicates=list({str(d): d for d in derived}.values()),  # a set, as the package's
                               redeclared=self.redeclared, action_items=items, reader=self)

    # ---------------------------------------------------------------- declarations

    def _types(self, items: list[SExpr]) -> dict[str, str | None]:
        # ``object`` itself is a reserved word here (the loader renamed ``- object`` to its placeholder).
        types: dict[str, str | None] = {}
        listed: set[str] = set()  # the names of types, in lower case
        for n, tags in typed_list(items, lambda kind: (_name(kind),)):
            parent = tags[0] if tags else None
            if n.lower() not in listed:
                types[n] = parent
                listed.add(n.lower())
                continue
            # Listed twice, as IPC's storage does: the full parser's repair, with the same warning.
            choice = redeclared_parent(types[n], parent) if n in types and n not in self.redeclared else None
            if choice is None:
                raise _NotPlain  # another spelling, a third listing, two proper parents: the full parser decides
            types[n] = (types[n], parent)[1 - choice[0]]
            self.redeclared[n] = choice[1]
        self.all_types = listed | {p.lower() for p in types.values() if p is not None}
        if self._cyclic(types):
            raise _NotPlain  # the package's validation has its say
        return types

    @staticmethod
    def _cyclic(types: dict[str, str | None]) -> bool:
        parent = {c.lower(): p.lower() for c, p in types.items() if p is not None}
        for start in parent:
            seen, at = set(), start
            while at in parent:
                if at in seen:
                    return True
                seen.add(at)
                at = parent[at]
        return False

    def _check_tags(self, tags: tuple[str, ...]) -> None:
        """Every type used must be declared (else the full parser reports or repairs it)."""
        if tags and tags not in self.known_tags:
            if any(t.lower() not in self.all_types for t in tags):
                raise _NotPlain
            self.known_tags.add(tags)  # a domain lists the same few types hundreds of times

    def _pairs(self, items: list[SExpr], repeats: bool = False) -> list[tuple[str, tuple[str, ...]]]:
        """A variable list's names and type tags, every type declared."""
        pairs = var_list(items, repeats)
        for _, tags in pairs:
            self._check_tags(tags)
        return pairs

    def _variables(self, items: list[SExpr], repeats: bool = False) -> list[Variable]:
        return [Variable(n, tags) for n, tags in self._pairs(items, repeats)]

    def _declared(self, el: SExpr) -> tuple[str, list[tuple[str, tuple[str, ...]]]]:
        """A predicate's or function's declaration as its name and its variables' names and type tags."""
        if el.__class__ is not list or not el:
            raise _NotPlain
        if len(el) == 1:  # no variables (most of a numeric domain's functions)
            return _name(el[0]), []
        # A declaration's variables by their words: a domain repeats its lists ("?r - rover ?w - waypoint" in
        # several of rover's predicates), and the same words read alike.
        try:
            key = (*el[1:],)
            hit = self.skeletons.get(key)
        except TypeError:  # an (either ...) among the words
            key = hit = None
        if hit is None:
            hit = self._pairs(el[1:], repeats=True)
            if key is not None:
                self.skeletons[key] = hit
        return _name(el[0]), hit

    def _functions(self, items: list[SExpr]) -> list[tuple[str, list[tuple[str, tuple[str, ...]]]]]:
        """``(f ?x - t) ... - number`` as the functions declared, in :meth:`_declared`'s words (the package's
        dict of them to "number" or None; the loader reads only its keys)."""
        if not items:
            raise _NotPlain
        out: list[tuple[str, list[tuple[str, tuple[str, ...]]]]] = []
        pending = 0  # functions since the last "- number"
        for i, el in enumerate(items):
            if el.__class__ is str and (el == "-" or (i and items[i - 1] == "-")):
                if el == "-" and (i + 1 >= len(items) or items[i + 1] != "number" or not pending):
                    raise _NotPlain
                if el != "-":
                    pending = 0
                continue
            pending += 1
            out.append(("total-cost", []) if el == ["total-cost"] else self._declared(el))
        if len({name.lower() for name, _ in out}) != len(out):
            raise _NotPlain  # declared twice
        return out

    # ---------------------------------------------------------------- derived predicates

    def _derived(self, el: SExpr, declared: dict[str, list[tuple[str, tuple[str, ...]]]]) -> DerivedPredicate:
        """``(:derived (p ?x - t) gd)`` as the package's transformer builds it (``derived_predicates`` in
        ``pddl/parser/domain.py``): an untyped head variable takes the declaration's types. An undeclared
        head or one of another arity is read as written, so that the loader reports it in its own words
        (unknown predicate with did-you-mean, arity at the use) where the package would stop with its
        own message; a head typed otherwise than declared goes to the full parser, which checks it.
        ``declared``: each predicate's variables (:meth:`_declared`) by its lower-case name."""
        if not (len(el) == 3 and isinstance(el[1], list) and el[1]):
            raise _NotPlain
        decl = declared.get(_name(el[1][0]).lower())
        self.params = {}
        head = self._variables(el[1][1:])
        fits = decl is not None and len(head) == len(decl)
        if fits and any(v.type_tags and set(v.type_tags) != set(tags) for v, (_, tags) in zip(head, decl)):
            raise _NotPlain
        for k, v in enumerate(head):
            tags = decl[k][1] if fits and not v.type_tags else v.type_tags
            self.params[str(v.name).lower()] = Variable(str(v.name), tags)
        params = list(self.params.values())
        return DerivedPredicate(Predicate(_name(el[1][0]), *params), self._gd(el[2]))

    # ---------------------------------------------------------------- actions

    def _action(self, el: SExpr) -> Action:
        if not (isinstance(el, list) and len(el) >= 4 and el[0] == ":action" and el[2] == ":parameters"
                and isinstance(el[3], list)):
            raise _NotPlain
        self.params = {}
        for v in self._variables(el[3]):
            self.params[str(v.name).lower()] = v
        params = list(self.params.values())
        pre, eff = action_body(el)
        # An omitted part is the loader's empty (and); an empty () is the package's (or).
        precondition = forms.And() if pre is None else forms.Or() if pre == [] else self._gd(pre)
        effect = forms.And() if eff is None else forms.Or() if eff == [] else self._effect(eff)
        return Action(_name(el[1]), params, precondition=precondition, effect=effect)

    def _term(self, tok: SExpr):
        if not isinstance(tok, str):
            raise _NotPlain
        if tok.startswith("?"):
            n = _name(tok[1:])
            return self.params.get(n.lower()) or Variable(n, {})
        hit = self.constants.get(_name(tok).lower())
        if hit is None:
            raise _NotPlain  # an undeclared constant: the full parser says where
        return hit

    def _atom(self, el: SExpr):
        if not isinstance(el, list) or not el:
            raise _NotPlain
        if el[0] == "=":
            if len(el) != 3:
                raise _NotPlain
            return EqualTo(self._term(el[1]), self._term(el[2]))
        return Predicate(_name(el[0]), *[self._term(t) for t in el[1:]])

    def _gd(self, el: SExpr):
        if not isinstance(el, list) or not el:
            raise _NotPlain
        op = el[0]
        if op == "and":
            return forms.And(*[self._gd(x) for x in el[1:]])
        if op == "or":
            return forms.Or(*[self._gd(x) for x in el[1:]])
        if op == "not":
            if len(el) != 2:
                raise _NotPlain
            return forms.Not(self._gd(el[1]))
        if op == "imply":
            if len(el) != 3:
                raise _NotPlain
            return forms.Imply(self._gd(el[1]), self._gd(el[2]))
        if op in ("forall", "exists"):
            if len(el) != 3 or not isinstance(el[1], list):
                raise _NotPlain
            cls = forms.ForallCondition if op == "forall" else forms.ExistsCondition
            return cls(cond=self._gd(el[2]), variables=self._variables(el[1]))
        if isinstance(op, str) and op in plain_numeric.COMPARISONS and plain_numeric.is_comparison(el):
            return plain_numeric.comparison(el, self._f_head)
        return self._atom(el)

    def _effect(self, el: SExpr):
        if isinstance(el, list) and el and el[0] == "and":
            return forms.And(*[self._c_effect(x) for x in el[1:]])
        return self._c_effect(el)

    def _c_effect(self, el: SExpr):
        if isinstance(el, list) and el and el[0] == "forall":
            if len(el) != 3 or not isinstance(el[1], list):
                raise _NotPlain
            variables = self._variables(el[1])
            return forms.Forall(effect=self._effect(el[2]), variables=variables)
        if isinstance(el, list) and el and el[0] == "when":
            if len(el) != 3:
                raise _NotPlain
            cond = self._gd(el[1])
            if isinstance(el[2], list) and el[2] and el[2][0] == "and":
                return forms.When(cond, forms.And(*[self._p_effect(x) for x in el[2][1:]]))
            return forms.When(cond, self._p_effect(el[2]))
        return self._p_effect(el)

    def _p_effect(self, el: SExpr):
        if not isinstance(el, list) or not el or el[0] in ("and", "forall", "when", "oneof"):
            raise _NotPlain
        if el[0] == "not":
            if len(el) != 2:
                raise _NotPlain
            return forms.Not(self._atom(el[1]))
        if isinstance(el[0], str) and el[0] in plain_numeric.UPDATES:
            return plain_numeric.update(el, self._f_head)
        return self._atom(el)

    def _f_head(self, el: SExpr) -> forms.NumericFunction:
        if not isinstance(el, list) or not el:
            raise _NotPlain  # a bare name: rare, the full parser reads it
        fname = "total-cost" if el == ["total-cost"] else _name(el[0])
        return forms.NumericFunction(fname, *[self._term(t) for t in el[1:]])


# ------------------------------------------------------ shapes shared with the one-pass reader (direct_actions)


def action_body(el: list[SExpr]) -> tuple[SExpr | None, SExpr | None]:
    """An ``(:action name :parameters (...) ...)`` list's precondition and effect, each None where omitted;
    anything else after the parameters is not plain."""
    body = el[4:]
    parts: dict[str, SExpr] = {}
    for key in (":precondition", ":effect"):
        if body and body[0] == key:
            if len(body) < 2:
                raise _NotPlain
            parts[key], body = body[1], body[2:]
    if body:
        raise _NotPlain
    return parts.get(":precondition"), parts.get(":effect")


def var_list(items: list[SExpr], repeats: bool = False) -> list[tuple[str, tuple[str, ...]]]:
    """``?a ?b - t ?c`` as ``_typed_list(items, True, repeats=repeats)`` reads it (names without ``?``), in one
    loop for the usual shape (words only, a free-standing ``-`` before each single type); any other shape
    (``(either ...)``, a type glued to its dash, anything not plain) is read, or refused, by ``_typed_list``."""
    if len(items) % 3 == 0 and items[1::3].count("-") * 3 == len(items):  # "?a - t ?b - u": each its own type
        out = [(_name(v[1:]), (_name(t),)) for v, t in zip(items[0::3], items[2::3])
               if v.__class__ is str and t.__class__ is str and v[:1] == "?"]
        if len(out) * 3 == len(items):  # else a word of another kind: the loop below decides
            if len({n.lower() for n, _ in out}) != len(out):
                raise _NotPlain  # a duplicate, as below
            return out
    out = []
    seen: set[str] = set()
    pending = 0  # names since the last type
    tag_next = False
    for tok in items:
        if tok.__class__ is not str:
            return _typed_list(items, True, repeats=repeats)
        if tag_next:
            tags = (_name(tok),)
            for k in range(len(out) - pending, len(out)):
                out[k] = (out[k][0], tags)
            pending = 0
            tag_next = False
        elif tok == "-":
            if not pending:
                raise _NotPlain
            tag_next = True
        elif tok[:1] == "?":
            name = _name(tok[1:])
            out.append((name, ()))
            seen.add(name.lower())
            pending += 1
        else:
            return _typed_list(items, True, repeats=repeats)
    if tag_next:
        raise _NotPlain
    if len(seen) != len(out) and not (repeats and "-" not in items):
        raise _NotPlain  # a duplicate: the full parser reports (or repairs) it
    return out
