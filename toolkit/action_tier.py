"""A schema's whole validated step as one generated function of the action's arguments.

Why: checking a plan against a fresh task built every distinct ground action the plan
names (its atoms, precondition, effect, numeric updates, and the compiled test and step
bound to them: 15-40 us each), and a plan names most of them once or twice (IPC 2023's
hydropower: 75 distinct actions in 100 steps). Here each schema gets one function, made
once per domain from the schema's template (:class:`toolkit.templates.ActionTemplate`'s
skeleton) and bound once per task, that takes the action's objects and does what the
bound ground action's compiled test and step do together (:func:`toolkit.fluent_shared.
shared_check`, :func:`toolkit.fluent_writes.compile_step`): the precondition's atoms
looked up in the task's atom table, its fluents' numbers in the task's fluent index, the
values computed by :func:`toolkit.fluent_writes._computed`'s own text, deletes then adds,
and the stepper's :class:`~toolkit.stepping.Change` appended.

It answers True (the step is done) or False with nothing changed: the precondition is
false, or anything is out of the ordinary (a fluent without a value or a number, an atom
or fluent the task never made, two updates that may set one fluent, a state that is not a
working state of the task). The validator then takes the ground action's own path
(:mod:`toolkit.verify`), which reports the step. A schema gets no function at all where
its shape is not the plain one: conditional or quantified effects, a precondition with
quantifiers or disjunctions, numeric effects under ``forall`` or ``when``, derived
predicates in the domain. ``tests/core/test_core_action_tier.py`` holds the two paths to
the same reports, step states and records.
"""

from __future__ import annotations

from typing import Callable

from toolkit import model as m
from toolkit.fluent_code import Source, Unsupported, build_factory
from toolkit.fluent_effects import GroundUpdate, UpdateTemplate
from toolkit.fluent_slots import FluentIndex
from toolkit.fluent_writes import _computed
from toolkit.fluents import GCompare, ground_expr
from toolkit.grounding import flat_literals
from toolkit.model import Atom
from toolkit.stepping import Change
from toolkit.templates import ActionTemplate, AtomTable

# (working state, the stepper's record, the action's arguments) -> whether the step was done
TierStep = Callable[[frozenset, list, tuple], bool]
_MARK = "\x00"  # a lifted term: the marker and the parameter's number (no PDDL name holds a NUL)
_E: frozenset[Atom] = frozenset()
_NAMES = {"_n": tuple.__new__, "_C": Change, "_E": _E, "_A": Atom}


class _Need:
    """A parameter the function's factory takes from each task: ``kind`` and its ``key`` (see :func:`bind`)."""

    __slots__ = ("kind", "key")

    def __init__(self, kind: str, key: object) -> None:
        self.kind, self.key = kind, key


class _Local(str):
    """A name in the generated text for a value the function computes (a fluent's number), or a task's parameter."""


class _TierSource(Source):
    """:class:`toolkit.fluent_code.Source` over lifted expressions: a fluent's number is a local the
    function computes from its arguments (or, for a fluent without parameters, the task's own number)."""

    def __init__(self) -> None:
        super().__init__(FluentIndex())
        self.slots = True
        self.index = self  # type: ignore[assignment]  # Source and _computed number fluents through number()
        self.needs: dict[tuple[str, object], str] = {}
        self.numbers: dict[Atom, _Local] = {}
        self.reads: list[str] = []  # the lines computing the fluents' numbers, inside the try

    def param(self, value: object) -> str:
        return str(value) if value.__class__ is _Local else super().param(value)

    def need(self, kind: str, key: object = None) -> str:
        name = self.needs.get((kind, key))
        if name is None:
            name = self.needs[kind, key] = super().param(_Need(kind, key))
        return name

    def key(self, args: tuple[str, ...]) -> str:
        """The tuple of an atom's arguments as an expression over the function's ``a0, a1, ...``."""
        terms = [f"a{t[1:]}" if t[:1] == _MARK else self.param(t) for t in args]
        return f"({terms[0]},)" if len(terms) == 1 else f"({', '.join(terms)})"

    def number(self, atom: Atom) -> _Local:
        hit = self.numbers.get(atom)
        if hit is None:
            if not any(t[:1] == _MARK for t in atom.args):
                hit = _Local(self.need("number", atom))
            else:
                hit = _Local(f"n{len(self.reads)}")
                self.reads.append(f"            {hit} = {self.need('ids')}[{self.need('table', atom.predicate)}"
                                  f"[{self.key(atom.args)}]]")
            self.numbers[atom] = hit
        return hit


def tier_source(schema: m.ActionSchema, skeleton: ActionTemplate | None, updates: UpdateTemplate | None,
                numeric: bool) -> tuple[Callable[..., TierStep], list[object]] | None:
    """The schema's step function as a factory and its parameters (None: the schema has no tier, see the module)."""
    t = skeleton
    if t is None or not t._plain:
        return None
    if t._pre_flat:
        if t._pre_false:
            return None
        lits, eqs, compares = t._pre_lits, t._pre_eqs, ()
    elif t._pre_mixed is not None:
        _, _, lits, eqs, never = t._pre_mixed
        if never:
            return None
        parts = schema.precondition.parts if isinstance(schema.precondition, m.And) else (schema.precondition,)
        compares = tuple(p for p in parts if flat_literals(p) is None)
    else:
        return None
    if (updates is not None and not updates.plain) or (not numeric and schema.numeric):
        return None
    sub = {var: f"{_MARK}{i}" for i, (var, _) in enumerate(schema.params)}
    pattern = {pos: (pred, tuple([f"{_MARK}{x}" if x.__class__ is int else x for x in terms]))
               for (pred, terms), pos in t._pattern_pos.items()}
    src = _TierSource()
    try:
        tests = [f"            if not {src.node(_lifted_compare(c, sub))}: return False" for c in compares]
        lifted = tuple(GroundUpdate(e.op, ground_expr(e.target, sub), ground_expr(e.value, sub), None)
                       for e in schema.numeric) if numeric else ()
        lines, writes, old, new = _computed(src, lifted, src) if lifted else ([], [], "()", "()")
    except Unsupported:
        return None
    body = ["    def _f(s, rec, a):"]
    if numeric:
        body.append(f"        if s.index is not {src.need('index')}: return False")
    if schema.params:
        body.append(f"        {''.join(f'a{i}, ' for i in range(len(schema.params)))}= a")
    for x, y, positive in eqs:
        left, right = (f"a{v}" if v.__class__ is int else src.param(v) for v in (x, y))
        body.append(f"        if {left} {'!=' if positive else '=='} {right}: return False")
    atoms: dict[int, str] = {}  # position -> the local holding its atom (t0, t1, ...: _computed's are o0, x0, ...)
    const_pos = [pattern[p] for p, positive in lits if positive and _constant(pattern[p])]
    if const_pos:
        body.append(f"        if not {src.need('atoms', tuple(const_pos))} <= s: return False")
    for p, positive in lits:
        pred, args = pattern[p]
        if positive and not _constant(pattern[p]) and p not in atoms:
            atoms[p] = f"t{p}"
            body += [f"        t{p} = {src.need('table', pred)}.get({src.key(args)})",
                     f"        if t{p} is None or t{p} not in s: return False"]
    const_neg = [pattern[p] for p, positive in lits if not positive and _constant(pattern[p])]
    if const_neg:
        body.append(f"        if not s.isdisjoint({src.need('atoms', tuple(const_neg))}): return False")
    for p, positive in lits:
        if not positive and not _constant(pattern[p]):
            body += _intern(src, p, pattern[p], atoms)
            body.append(f"        if t{p} in s: return False")
    for p in (*t._adds, *t._dels):
        body += _intern(src, p, pattern[p], atoms)
    if numeric and (tests or lines):
        body += ["        v = s.slots", "        try:", *src.reads, *_apart(src, lifted), *tests, *lines,
                 "        except Exception:", "            return False", *writes]
    elif tests:
        return None  # comparisons in a task without values: never applicable, as the interpreter says
    added = removed = "_E"
    adds, dels = _set(src, t._adds, pattern, atoms), _set(src, t._dels, pattern, atoms)
    if dels:
        body += [f"        r = ({dels} & s) - {adds or '_E'}", "        if r: s.difference_update(r)"]
        removed = "r"
    if adds:
        body += [f"        d = {adds} - s", "        if d: s.update(d)"]
        added = "d"
    tail = f"{old}, {new}" if numeric else "None, None"
    body += [f"        rec.append(_n(_C, ({added}, {removed}, {tail})))", "        return True"]
    return build_factory(src, "\n".join(body), _NAMES), src.params


def _constant(atom: tuple[str, tuple[str, ...]]) -> bool:
    return not any(x[:1] == _MARK for x in atom[1])


def _lifted_compare(part: m.Condition, sub: dict[str, str]) -> GCompare:
    positive = not isinstance(part, m.Not)
    cmp = part if positive else part.arg
    return GCompare(cmp.op, ground_expr(cmp.left, sub), ground_expr(cmp.right, sub), positive)


def _intern(src: _TierSource, p: int, atom: tuple[str, tuple[str, ...]], atoms: dict[int, str]) -> list[str]:
    """Lines that make ``t{p}``, the task's atom object at position ``p`` (made and kept in its table where
    new, as :meth:`ActionTemplate.ground` does), unless it is made already or constant."""
    if p in atoms or _constant(atom):
        return []
    atoms[p] = f"t{p}"
    table = src.need("table", atom[0])
    return [f"        k{p} = {src.key(atom[1])}", f"        t{p} = {table}.get(k{p})",
            f"        if t{p} is None: t{p} = {table}[k{p}] = _A({src.param(atom[0])}, k{p})"]


def _set(src: _TierSource, positions: list[int], pattern: dict, atoms: dict[int, str]) -> str:
    """The frozenset of the atoms at ``positions`` as an expression ('' where there are none)."""
    if not positions:
        return ""
    if all(_constant(pattern[p]) for p in positions):
        return src.need("atoms", tuple(pattern[p] for p in positions))
    items = [atoms[p] if p in atoms else src.need("atom", pattern[p]) for p in positions]
    return f"frozenset(({', '.join(items)},))"


def _apart(src: _TierSource, updates: tuple[GroundUpdate, ...]) -> list[str]:
    """Give up where two updates of different lifted fluents may set one fluent (``(f ?x)`` and ``(f ?y)`` at
    ``?x = ?y``): the ground action's own step merges them."""
    targets = list(dict.fromkeys(u.target for u in updates))
    out = []
    for i, x in enumerate(targets):
        for y in targets[i + 1:]:
            if x.predicate == y.predicate and not (_constant((x.predicate, x.args)) and _constant((y.predicate, y.args))):
                out.append(f"            if {src.number(x)} == {src.number(y)}: return False")
    return out


def bind(made: tuple[Callable[..., TierStep], list[object]], index: FluentIndex, table: AtomTable) -> TierStep | None:
    """The schema's step function for one task (its fluent ``index`` and atom ``table``); None where a fluent
    without parameters has no number in the task (the ground action's own step then numbers it)."""
    factory, params = made
    values = []
    for p in params:
        if p.__class__ is not _Need:
            values.append(p)
            continue
        kind, key = p.kind, p.key  # type: ignore[attr-defined]
        if kind == "table":
            values.append(table.table(key))
        elif kind == "index":
            values.append(index)
        elif kind == "ids":
            values.append(index.ids)
        elif kind == "atom":
            values.append(table.atom(*key))
        elif kind == "atoms":
            values.append(frozenset([table.atom(*a) for a in key]))
        else:  # "number"
            number = index.ids.get(key)
            if number is None:
                return None
            values.append(number)
    return factory(*values)
