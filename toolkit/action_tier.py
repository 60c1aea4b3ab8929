"""A schema's whole validated step as one generated function of the action's arguments.

Why: checking a plan against a fresh task built every distinct ground action the plan
names (its atoms, precondition, effect, numeric updates, and the compiled test and step
bound to them: 15-40 us each), and a plan names most of them once or twice (IPC 2023's
hydropower: 75 distinct actions in 100 steps). Here each schema gets one function, made
once per domain from the schema itself and bound once per task, that takes the action's
objects and does what the bound ground action's compiled test and step do together
(:func:`toolkit.fluent_shared.shared_check`, :func:`toolkit.fluent_writes.compile_step`): the precondition's atoms
looked up in the task's atom table, its fluents' numbers in the task's fluent index, the
values computed with the generated code's own arithmetic (:class:`toolkit.fluent_code.Source`'s
expressions, :func:`~toolkit.fluent_code.updated_value`, VAL's tolerance and int-if-integral),
deletes then adds, and the stepper's record of the step (:class:`~toolkit.stepping.Change`'s items) appended.
The validator keeps no record (:meth:`~toolkit.stepping.Stepper.took`): there the atoms are deleted and added
one by one, with no set made (a third of a step that changes atoms).

It answers True (the step is done) or False with nothing changed: the precondition is
false, or anything is out of the ordinary (a fluent without a value or a number, an atom
or fluent the task never made, two updates that may set one fluent, a state that is not a
working state of the task). The validator then takes the ground action's own path
(:mod:`toolkit.verify`), which reports the step. A schema gets no function at all where
its shape is not the plain one: conditional or quantified effects, a precondition with
quantifiers or disjunctions, numeric effects under ``forall`` or ``when``, derived
predicates in the domain. The text is made straight from the schema, with no template (a
check on a freshly read domain makes it once per schema it steps: it must cost less than
the ground actions it spares). ``tests/core/test_core_action_tier.py`` holds the two paths
to the same reports, step states and records.
"""

from __future__ import annotations

from typing import Callable

from toolkit import model as m
from toolkit.fluent_code import _COMPARE, INTEGRAL, Unsupported, arith_text, build_factory, updated_value
from toolkit.fluent_slots import FluentIndex
from toolkit.model import Atom
from toolkit.templates import AtomTable

# (working state, the stepper's record or None (none kept: Stepper.took), the action's arguments) -> whether the
# step was done
TierStep = Callable[[frozenset, "list | None", tuple], bool]
_E: frozenset[Atom] = frozenset()
_NAMES = {"_E": _E, "_A": Atom}
_PAD = "            "  # inside the function's try
Made = "tuple[Callable[..., TierStep], list[object], list[tuple[int, str, object]]]"
_P = tuple(f"_p{i}" for i in range(256))  # the factory's parameter names, made once
_INTEGRALS = tuple(_PAD + INTEGRAL.format(x=f"x{k}") for k in range(64))  # an update's int-if-integral line, made once
_XS = tuple(f"x{k}" for k in range(64))  # the locals holding the updates' new values, named once
_INF = float("inf")
_TESTS = {op: tuple(test.split("{d}")) for op, test in _COMPARE.items()}  # a comparison's text around its difference
_ARGS = tuple(f"a{i}" for i in range(64))  # the locals holding the action's objects, named once


class _Text:
    """The parameters and locals of one step function being written. An atom or fluent is named by its
    schema terms; ``slots`` gives a parameter variable's local (``a0``, ``a1``, ...), an object's name is
    a parameter of the factory."""

    def __init__(self, slots: dict[str, str]) -> None:
        self.slots = slots  # parameter variable -> the local holding its object
        self.free = slots.keys().isdisjoint  # (terms) -> whether they hold no parameter variable
        self.order = tuple(slots)  # the parameter variables in order: terms equal to them are the arguments
        self.unpacked = False  # whether the text reads a parameter's local (a0, a1, ...), not only ``a`` itself
        # The task's fluent index, every function's first parameter (_p0)
        self.params: list[object] = [None]
        self.wanted: list[tuple[int, str, object]] = [(0, "index", None)]  # see bind
        self.needs: dict[tuple[str, object], str] = {}  # (kind, key) -> the name of a task's own parameter
        self.numbers: dict[tuple[str, tuple], str] = {}  # (function, terms) -> its number's name
        self.reads: list[str] = []  # the lines computing fluents' numbers, inside the try

    def param(self, value: object) -> str:
        params = self.params
        params.append(value)
        n = len(params) - 1
        return _P[n] if n < 256 else f"_p{n}"

    def need(self, kind: str, key: object = None) -> str:
        """The name of a parameter each task gives (see bind), one per kind and key: ``need("table", p)`` the
        task's table of the atoms of predicate ``p`` (:meth:`AtomTable.table`)."""
        name = self.needs.get((kind, key))
        if name is None:
            self.wanted.append((len(self.params), kind, key))
            name = self.needs[kind, key] = self.param(None)
        return name

    def term(self, term: str) -> str:
        """A term as an expression: its parameter's local, or an object's name as a parameter."""
        local = self.slots.get(term)
        if local is None:
            return self.param(term)
        self.unpacked = True
        return local

    def key(self, terms: tuple[str, ...]) -> str:
        """The tuple of an atom's arguments as an expression over the function's ``a0, a1, ...``: the
        action's arguments themselves (``a``) where the terms are the parameters in order."""
        if terms == self.order:
            return "a"
        text = "("
        for t in terms:
            text += f"{self.term(t)}, "
        return text + ")"

    def number(self, function: str, terms: tuple[str, ...]) -> str:
        """The name of a fluent's number: the task's own (no parameter), else a local computed in the try,
        read from the task's numbers of the function's fluents by arguments (:class:`Numbers`)."""
        numbers = self.numbers
        hit = numbers.get((function, terms))
        if hit is None:
            if self.free(terms):
                hit = self.need("number", Atom(function, terms))
            else:
                hit = f"n{len(numbers)}"
                self.reads.append(f"{_PAD}{hit} = {self.need('numbers', function)}[{self.key(terms)}]")
            numbers[function, terms] = hit
        return hit

    def expr(self, e: m.NumExpr) -> str:
        """:meth:`toolkit.fluent_code.Source.expr` of the expression ground on the arguments, read by number."""
        cls = e.__class__
        if cls is m.FTerm:
            return f"v[{self.number(e.function, e.terms)}]"
        if cls is m.Arith:
            return arith_text(e.op, [self.expr(a) for a in e.args])
        if cls is int or (cls is float and -_INF < e < _INF):  # written as itself (repr reads back exactly)
            return repr(e)
        if isinstance(e, (int, float)) and not isinstance(e, bool):
            return self.param(e)
        raise Unsupported(cls.__name__)


def tier_source(schema: m.ActionSchema, numeric: bool) -> Made | None:
    """The schema's step function as a factory, its parameters (None where each task gives its own) and what
    each task gives (position, kind, key); None: the schema has no tier (see the module)."""
    try:
        return _source(schema, numeric)
    except Unsupported:  # a part the tier has no rule for: the schema gets no step function
        return None


def _source(schema: m.ActionSchema, numeric: bool) -> Made:
    if not numeric and schema.numeric:
        raise Unsupported("numeric effects")
    n = len(schema.params)
    args = _ARGS[:n] if n <= 64 else tuple(f"a{i}" for i in range(n))
    out = _Text(dict(zip([var for var, _ in schema.params], args)))
    free = out.free
    pos: dict[tuple[str, tuple], None] = {}  # the precondition's atoms (predicate, terms), in order, once each
    neg: dict[tuple[str, tuple], None] = {}
    eqs: list[str] = []
    tests: list[str] = []
    pre = schema.precondition
    for part in pre.parts if pre.__class__ is m.And else (pre,):  # ActionTemplate's flat and mixed shapes
        positive = part.__class__ is not m.Not
        inner = part if positive else part.arg
        cls = inner.__class__
        if cls is m.Pred:
            (pos if positive else neg)[inner.predicate, inner.terms] = None
        elif cls is m.Equals:
            x, y = inner.left, inner.right
            if free((x, y)):
                if (x == y) != positive:
                    raise Unsupported("never applicable")
            else:
                eqs.append(f"        if {out.term(x)} {'!=' if positive else '=='} {out.term(y)}: return False")
        elif cls is m.Compare and numeric:
            head, tail = _TESTS[inner.op]
            test = f"{head}({out.expr(inner.left)} - {out.expr(inner.right)}){tail}"
            tests.append(f"{_PAD}if not ({test}): return False" if positive else f"{_PAD}if {test}: return False")
        else:
            raise Unsupported(cls.__name__)
    adds: list[tuple[str, tuple]] = []
    dels: list[tuple[str, tuple]] = []
    _effects(schema.effect, adds, dels)
    lines, writes, tail = _updates(schema, out) if schema.numeric else ([], [], "(), ()" if numeric else "None, None")
    body = ["    def _f(s, rec, a):"]
    if numeric:
        body.append("        if s.index is not _p0: return False")
    unpack_at = len(body)  # the arguments' locals, where the text reads them (known once it is written)
    body += eqs
    atoms: dict[tuple, str] = {}  # atom -> the local holding it (t0, t1, ...) or its parameter
    constant = tuple([a for a in pos if free(a[1])])
    if constant:
        body.append(f"        if not {out.need('atoms', constant)} <= s: return False")
    for a in pos:
        if not free(a[1]):
            t = atoms[a] = f"t{len(atoms)}"
            body += [f"        {t} = {out.need('table', a[0])}.get({out.key(a[1])})",
                     f"        if {t} is None or {t} not in s: return False"]
    constant = tuple([a for a in neg if free(a[1])])
    if constant:
        body.append(f"        if not s.isdisjoint({out.need('atoms', constant)}): return False")
    for a in neg:
        if not free(a[1]):
            _intern(out, a, atoms, body)
            body.append(f"        if {atoms[a]} in s: return False")
    for a in adds:
        _intern(out, a, atoms, body)
    for a in dels:
        _intern(out, a, atoms, body)
    if tests or lines:
        body += ["        v = s.slots", "        try:", *out.reads, *tests, *lines,
                 "        except Exception:", "            return False", *writes]
    if adds or dels:  # no record kept (Stepper.took): each atom deleted, then added, in place, with no set made
        body += ["        if rec is None:", *_in_place(adds, dels, atoms), "            return True"]
    added = removed = "_E"
    add_set = _set(out, adds, atoms) if adds else "_E"
    if dels and add_set.startswith("frozenset("):  # made by the step and read twice: made once
        body.append(f"        A = {add_set}")
        add_set = "A"
    if dels:
        dropped = _set(out, dels, atoms)
        if not all(a in pos for a in dels):  # an atom the precondition has is in the state (tested above)
            dropped = f"({dropped} & s)"
        body += [f"        r = {dropped} - {add_set}" if adds else f"        r = {dropped}", "        if r: s.difference_update(r)"]
        removed = "r"
    if adds:
        body += [f"        d = {add_set} - s", "        if d: s.update(d)"]
        added = "d"
    record = f"rec.append(({added}, {removed}, {tail}))"
    body += [f"        {record}" if adds or dels else f"        if rec is not None: {record}", "        return True"]
    if out.unpacked:
        body.insert(unpack_at, f"        {''.join([f'{v}, ' for v in args])}= a")
    return build_factory(out, "\n".join(body), _NAMES), out.params, out.wanted  # type: ignore[arg-type]  (one exec per text)


def _effects(eff: m.Effect, adds: list, dels: list) -> None:
    """The atoms a plain effect adds and deletes (ActionTemplate._walk's order); anything else: no tier."""
    cls = eff.__class__
    if cls is m.AndEffect:
        for part in eff.parts:
            _effects(part, adds, dels)
    elif cls is m.AddEffect:
        adds.append((eff.atom.predicate, eff.atom.terms))
    elif cls is m.DelEffect:
        dels.append((eff.atom.predicate, eff.atom.terms))
    else:
        raise Unsupported(cls.__name__)


def _updates(schema: m.ActionSchema, out: _Text) -> tuple[list[str], list[str], str]:
    """:func:`toolkit.fluent_writes._computed`'s lines for the schema's numeric effects (each fluent's old value
    read once, every value computed in the old state, then written), the writes, the record's pairs, and
    (first) the tests that give up where two updates of different lifted fluents may set one fluent
    (``(f ?x)`` and ``(f ?y)`` at ``?x = ?y``: the ground action's own step merges them)."""
    lines, writes = [], []
    olds: dict[str, str] = {}  # target's number name -> the local holding its old value
    targets: dict[tuple, str] = {}  # lifted target (function, terms) -> its number's name
    numbers = []
    functions: set[str] = set()  # the targets' functions: updates of one function may meet
    meet = False
    for eff in schema.numeric:
        condition = eff.condition
        if eff.params or condition.__class__ is not m.And or condition.parts:  # not m.TRUE: no record __eq__
            raise Unsupported("a quantified or conditional numeric effect")
        function, terms = eff.target.function, eff.target.terms
        if (function, terms) not in targets:
            meet = meet or function in functions
            functions.add(function)
        number = targets[function, terms] = out.number(function, terms)
        numbers.append(number)
        if number not in olds:
            old = olds[number] = f"o{len(olds)}"
            lines.append(f"{_PAD}{old} = v[{number}]")
    if meet:
        free = out.free
        lifted = list(targets)
        apart = [f"{_PAD}if {targets[x]} == {targets[y]}: return False" for i, x in enumerate(lifted)
                 for y in lifted[i + 1:] if x[0] == y[0] and not (free(x[1]) and free(y[1]))]
        lines[:0] = apart
    last: dict[str, str] = {}
    for k, (eff, number) in enumerate(zip(schema.numeric, numbers)):
        x, old = _XS[k] if k < 64 else f"x{k}", olds[number]
        value = updated_value(eff, out.expr(eff.value), lambda: f"(0 if {old} is None else {old})")  # type: ignore[arg-type]
        check = f"; {x} + 0" if eff.op == "assign" and eff.value.__class__ is m.FTerm else ""
        lines += [f"{_PAD}{x} = {value}{check}", _INTEGRALS[k] if k < 64 else _PAD + INTEGRAL.format(x=x)]
        writes.append(f"        v[{number}] = {x}")
        last[number] = x
    tail = f"({''.join([f'{n}, {o}, ' for n, o in olds.items()])}), ({''.join([f'{n}, {x}, ' for n, x in last.items()])})"
    return lines, writes, tail


def _intern(out: _Text, atom: tuple[str, tuple], atoms: dict[tuple, str], body: list[str]) -> None:
    """The lines that make the local holding the task's atom object (made and kept in its table where new, as
    :meth:`ActionTemplate.ground` does), unless it is made already; a constant atom is a parameter."""
    if atom in atoms:
        return
    if out.free(atom[1]):
        atoms[atom] = out.need("atom", atom)
        return
    t = atoms[atom] = f"t{len(atoms)}"
    table = out.need("table", atom[0])
    body += [f"        k{t} = {out.key(atom[1])}", f"        {t} = {table}.get(k{t})",
             f"        if {t} is None: {t} = {table}[k{t}] = _A({out.param(atom[0])}, k{t})"]


def _in_place(adds: list[tuple[str, tuple]], dels: list[tuple[str, tuple]], atoms: dict[tuple, str]) -> list[str]:
    """The lines that delete the step's atoms, then add its atoms, one by one (PDDL's order: an atom both deleted
    and added stays)."""
    return ([f"            s.discard({atoms[a]})" for a in dict.fromkeys(dels)]
            + [f"            s.add({atoms[a]})" for a in dict.fromkeys(adds)])


def _set(out: _Text, atoms_at: list[tuple[str, tuple]], atoms: dict[tuple, str]) -> str:
    """The frozenset of these atoms as an expression."""
    free = out.free
    for a in atoms_at:
        if not free(a[1]):
            return f"frozenset(({''.join([f'{atoms[a]}, ' for a in atoms_at])}))"
    return out.need("atoms", tuple(atoms_at))


class Numbers(dict):
    """One function's fluent numbers in a task by their arguments, as the task's step functions read them:
    found through the atom (a Python hash per read) the first time, then kept (a fluent's number never
    changes); a KeyError where the task has no such fluent or no number for it, with nothing kept. Made by
    :func:`bind` (``atoms``: the task's atoms of the function by arguments; ``ids``: its fluent numbers)."""

    __slots__ = ("atoms", "ids")
    atoms: dict[tuple[str, ...], Atom]
    ids: dict[Atom, int]

    def __missing__(self, args: tuple[str, ...]) -> int:
        number = self[args] = self.ids[self.atoms[args]]
        return number


_new_dict = dict.__new__


def bind(made: Made, index: FluentIndex, table: AtomTable, numbers: dict[str, Numbers]) -> TierStep | None:
    """The schema's step function for one task (its fluent ``index`` and atom ``table``, and ``numbers``, the
    task's :class:`Numbers` by function, which its step functions share); None where a fluent without
    parameters has no number in the task (the ground action's own step then numbers it)."""
    factory, params, wanted = made  # type: ignore[misc]
    values = params.copy()
    for at, kind, key in wanted:  # the kinds most schemas want first: a fresh task binds each schema it steps
        if kind == "numbers":
            known = numbers.get(key)
            if known is None:  # made without a Python __init__ (two frames, a super() call)
                known = numbers[key] = _new_dict(Numbers)
                known.atoms, known.ids = table.table(key), index.ids
            values[at] = known
        elif kind == "index":
            values[at] = index
        elif kind == "table":
            values[at] = table.table(key)
        elif kind == "atom":
            values[at] = table.atom(*key)
        elif kind == "atoms":
            values[at] = frozenset([table.atom(*a) for a in key])
        else:  # "number"
            number = index.ids.get(key)
            if number is None:
                return None
            values[at] = number
    return factory(*values)
