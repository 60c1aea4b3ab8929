"""Numeric fluents (PDDL 2.1 level 2): states with fluent values, numeric conditions and effects.

A task whose domain compares numbers or changes fluents has states of type
:class:`FluentState`: a ``frozenset`` of true atoms (so every boolean function of
the toolkit reads it unchanged) that also carries the fluents' values. It is a
frozen, hashable value like every state at an API boundary; stepping builds the
next one from the old state's atoms and values.

The numbers follow VAL, the reference validator (KCL-Planning/VAL):

- values are floating point (``State::evaluate`` in ``libraries/VAL/src/State.cpp``
  computes ``+ - * /`` and unary minus on doubles; a division by zero gives
  infinity or NaN, as IEEE arithmetic does, and no error);
- a comparison holds within 0.0001 (``Comparison::evaluateAtPointError`` in
  ``libraries/VAL/src/Proposition.cpp``: ``lhs - rhs`` against ``tooSmall``, so
  ``(> a b)`` holds when ``a - b > -0.0001``);
- reading a fluent that has no value is an error of the plan (``State::evaluateFE``
  throws ``BadAccessError``): pgt reports the condition unmet, naming the fluent;
  but the target of ``increase``/``decrease``/``scale-*`` without a value counts as 0
  (``State::update`` reads it through ``std::map::operator[]``);
- all of an action's effects are computed in the old state (PDDL 2.1, section 7.2).

Questions, grounders and the relaxed grounding read the boolean atoms only: a
numeric condition counts as possibly true there (an over-approximation, never a
missed action).
"""

from __future__ import annotations

import math
from collections import ChainMap
from toolkit.records import record
from types import MappingProxyType
from typing import Callable, Mapping, Union

from toolkit import model as m
from toolkit.model import Atom

# VAL's tolerance for comparisons (Comparison::evaluateAtPointError, tooSmall).
TOLERANCE = 0.0001
MISSING = object()  # the "value" of a fluent that has none, in a stepper's record of old values
Values = Mapping[Atom, float]


class FluentState(frozenset):
    """The true atoms (the frozenset itself) and the fluents' values (``values``); hashable, immutable.

    Set operations return plain frozensets of atoms: boolean code never sees the values.

    >>> s = FluentState({Atom("at", ("t", "a"))}, {Atom("fuel", ("t",)): 3})
    >>> Atom("at", ("t", "a")) in s, s.values[Atom("fuel", ("t",))]
    (True, 3)
    """

    __slots__ = ("values", "_fhash")
    index = None  # no fluent numbering (toolkit.fluent_slots): compiled actions read ``values`` by atom

    def __new__(cls, atoms=(), values: Mapping[Atom, m.Number] | None = None) -> FluentState:
        if values.__class__ is MappingProxyType:  # a problem's values: its dict copied in one C call, where
            own = values.copy()                   # dict() reads a proxy key by key (a Python __hash__ each)
            return cls.owning(atoms, own if own.__class__ is dict else dict(own))
        return cls.owning(atoms, dict(values or {}))

    @classmethod
    def owning(cls, atoms, values: dict[Atom, m.Number]) -> FluentState:
        """A state over ``values`` itself, not a copy: for a stepper that built a fresh dict and hands it over."""
        self = frozenset.__new__(cls, atoms)
        self.values = MappingProxyType(values)
        self._fhash = None
        return self

    def __init__(self, atoms=(), values=None) -> None:  # frozenset.__new__ did the work
        pass

    def __hash__(self) -> int:
        if self._fhash is None:  # without values, the hash (and equality) of its atoms
            self._fhash = hash((frozenset.__hash__(self), frozenset(self.values.items()))) if self.values \
                else frozenset.__hash__(self)
        return self._fhash

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FluentState):
            return frozenset.__eq__(self, other) and self.values == other.values
        return not self.values and frozenset.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __reduce__(self):
        return (FluentState, (frozenset(self), dict(self.values)))

    def __repr__(self) -> str:
        return f"FluentState({set(self)!r}, {dict(self.values)!r})"


def values_of(state: frozenset[Atom]) -> Values:
    """The fluent values of a state (none for a boolean one)."""
    values = getattr(state, "values", None)
    return _NONE if values is None else values


_NONE: Values = MappingProxyType({})

# ------------------------------------------------------------ ground expressions


@record(slots=True)
class GArith:
    op: str
    args: tuple[GExpr, ...]

    def __str__(self) -> str:
        return f"({self.op} {' '.join(map(expr_text, self.args))})"


GExpr = Union[int, float, Atom, GArith]


def expr_text(e: GExpr) -> str:
    return str(e) if isinstance(e, (Atom, GArith)) else m.format_number(e)


class Undefined(Exception):
    """A fluent read before it has a value (VAL's BadAccessError)."""

    def __init__(self, fluent: Atom) -> None:
        super().__init__(str(fluent))
        self.fluent = fluent


def ground_expr(e: m.NumExpr, sub: Mapping[str, str]) -> GExpr:
    """The expression with variables replaced by objects: function terms become fluent atoms."""
    cls = e.__class__
    if cls is m.FTerm:  # a goal's or metric's term (no variables) keeps its own tuple of names
        return Atom(e.function, tuple([sub.get(t, t) for t in e.terms]) if sub else e.terms)
    if cls is m.Arith:
        return GArith(e.op, tuple([ground_expr(a, sub) for a in e.args]))
    return e


def expr_builder(e: m.NumExpr, slots: Mapping[str, int]
                 ) -> Callable[[tuple[str, ...], Callable[[str, tuple[str, ...]], Atom]], GExpr]:
    """``(args, atom) -> ground_expr(e, {param: arg})`` for a lifted expression whose parameters ``slots``
    numbers: the expression walked once (a schema's, for every task of its domain), its function terms
    made through ``atom`` (the calling task's interned atoms)."""
    if isinstance(e, m.FTerm):
        name = e.function
        terms = tuple(slots.get(t, t) for t in e.terms)
        if not any(t.__class__ is int for t in terms):
            return lambda args, atom: atom(name, terms)  # type: ignore[arg-type]
        return lambda args, atom: atom(name, tuple([args[t] if t.__class__ is int else t for t in terms]))
    if isinstance(e, m.Arith):
        parts = [expr_builder(a, slots) for a in e.args]
        op = e.op
        return lambda args, atom: GArith(op, tuple([b(args, atom) for b in parts]))
    return lambda args, atom: e


def evaluate(e: GExpr, values: Values) -> float:
    """The value of a ground expression (raises :class:`Undefined` for a fluent without one)."""
    cls = e.__class__
    if cls is int or cls is float:
        return e
    if cls is Atom:
        v = values.get(e)
        if v is None:
            raise Undefined(e)
        return v
    if cls is GArith:
        return arith(e.op, [evaluate(a, values) for a in e.args])
    return e


def arith(op: str, args: list[float]) -> float:
    """The value of ``(op args...)`` on the operands' values: unary minus negates, else a left fold in
    floating point (VAL's long doubles), division by :func:`divide`."""
    if op == "-" and len(args) == 1:
        return -args[0]
    out = float(args[0])
    for a in args[1:]:
        out = _ARITH[op](out, a)
    return out


def divide(a: float, b: float) -> float:
    """IEEE division, as VAL's long doubles divide: x/0 is +-inf, 0/0 is NaN."""
    if b == 0:
        return math.nan if a == 0 or math.isnan(a) else math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


_ARITH: dict[str, Callable[[float, float], float]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "/": divide}
# Comparison::evaluateAtPointError: d = lhs - rhs.
_HOLDS: dict[str, Callable[[float], bool]] = {
    ">": lambda d: d > -TOLERANCE, ">=": lambda d: d >= -TOLERANCE, "<": lambda d: d < TOLERANCE,
    "<=": lambda d: d <= TOLERANCE, "=": lambda d: -TOLERANCE < d < TOLERANCE}
_FAILED_AS = {">": "<=", ">=": "<", "<": ">=", "<=": ">", "=": "!="}  # what the values show when it fails


@record(slots=True)
class GCompare:
    """A ground numeric condition (negated when ``positive`` is False), a node of a compiled condition."""

    op: str
    left: GExpr
    right: GExpr
    positive: bool = True
    bindings: tuple[tuple[str, str], ...] = ()

    def __str__(self) -> str:
        text = f"({self.op} {expr_text(self.left)} {expr_text(self.right)})"
        return text if self.positive else f"(not {text})"

    @property
    def parts(self) -> tuple[bool]:
        """To a walker of boolean trees (relaxed reachability, literal listings), one part that may hold."""
        return (True,)

    def holds(self, state: frozenset[Atom]) -> bool:
        values = values_of(state)
        try:
            d = evaluate(self.left, values) - evaluate(self.right, values)
        except Undefined:
            return False
        return _HOLDS[self.op](d) == self.positive

    def why_not(self, state: frozenset[Atom]) -> str | None:
        """None where it holds, else why it fails, with the values: ``12 > 10``, or the fluent without a value."""
        values = values_of(state)
        try:
            lhs = evaluate(self.left, values)
            rhs = evaluate(self.right, values)
        except Undefined as exc:
            return f"{exc.fluent} has no value"
        if _HOLDS[self.op](lhs - rhs) == self.positive:
            return None
        op = _FAILED_AS[self.op] if self.positive else self.op
        return f"{m.format_number(lhs)} {op} {m.format_number(rhs)}"


def ground_compare(c: m.Compare, sub: Mapping[str, str], positive: bool, bindings) -> GCompare:
    return GCompare(c.op, ground_expr(c.left, sub), ground_expr(c.right, sub), positive, bindings)


def functions_in(expr: m.NumExpr):
    """The function names an expression reads."""
    if isinstance(expr, m.FTerm):
        yield expr.function
    elif isinstance(expr, m.Arith):
        for a in expr.args:
            yield from functions_in(a)


_TOTAL_TIME = Atom(m.TOTAL_TIME, ())


def metric_value(expr: m.NumExpr, state: frozenset[Atom], steps: int = 0) -> float | None:
    """The metric's value in a state reached in ``steps`` steps (None where a fluent it reads has no value);
    ``(total-time)``, unless the domain declares it, is ``steps`` (:data:`toolkit.model.TOTAL_TIME`)."""
    values = values_of(state)
    if _TOTAL_TIME not in values:
        values = ChainMap(values, {_TOTAL_TIME: steps})
    try:
        value = evaluate(ground_expr(expr, {}), values)
    except Undefined:
        return None
    return int(value) if isinstance(value, float) and value.is_integer() and abs(value) < 2 ** 53 else value
