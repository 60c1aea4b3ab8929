"""A ground action's numeric precondition and effects compiled once into straight-line Python.

Why: interpreting a numeric condition walks its expression tree node by node
(:func:`toolkit.fluents.evaluate`, one call and several ``isinstance`` tests per node) on
every step; a plan's step spends most of its time there. Here each ground action of
a numeric task gets two functions, built on its first use:

- ``check(state)``: exactly :func:`toolkit.semantics.holds` of its precondition;
- ``changes(state)``: exactly :func:`toolkit.fluent_effects.update_values` of its
  numeric effects, every value computed in the old state (PDDL 2.1, section 7.2), and
  the targets' old values for the stepper's undo record.

The generated code reads the fluents' values (``state.values``, a dict keyed by
fluent atom) with the task's own key objects, so a lookup hits by identity, and does
the arithmetic of :func:`toolkit.fluents.evaluate` in the same order and types: an
arithmetic node starts from ``float`` of its first argument, ``/`` is VAL's IEEE
division (:func:`toolkit.fluents.divide`), a comparison holds within VAL's 0.0001, and
an integral result is stored as an int. Anything out of the ordinary (a fluent
without a value, a state without values, any error) leaves the compiled code for
the interpreter, which gives the step its exact answer and its message; so the two
paths cannot differ (``tests/core/test_core_fluent_code.py`` checks it on random walks).

The source text is built with every atom and number as a parameter, so ground
actions of one shape (usually all of a schema) share one ``exec``: grounding an
action costs a tree walk and a closure, not a compilation.
"""

from __future__ import annotations

from typing import Callable, Sequence

from toolkit.fluent_effects import GroundUpdate, update_values
from toolkit.fluents import MISSING, TOLERANCE, GArith, GCompare, divide
from toolkit.grounding import CompiledCondition, GAnd, GLit, GOr
from toolkit.model import Atom, Number
from toolkit.semantics import holds
from toolkit.templates import AtomTable

Check = Callable[[frozenset[Atom]], bool]
Changes = Callable[[frozenset[Atom]], "tuple[dict[Atom, Number], Sequence[str], Sequence[tuple[Atom, object]] | None]"]

_BIG = float(2 ** 53)  # update_values stores an integral float below 2**53 as an int
# toolkit.fluents._HOLDS, on d = lhs - rhs (VAL's Comparison::evaluateAtPointError).
_COMPARE = {op: test.replace("_TOL", repr(TOLERANCE)) for op, test in {
    ">": "{d} > -_TOL", ">=": "{d} >= -_TOL", "<": "{d} < _TOL", "<=": "{d} <= _TOL", "=": "-_TOL < {d} < _TOL"}.items()}
_OPS = {"+": "+", "-": "-", "*": "*"}
_GLOBALS = {"_BIG": _BIG, "_M": MISSING, "_div": divide, "_holds": holds, "_up": update_values,
            "isinstance": isinstance}
_FACTORIES: dict[str, Callable[..., Callable]] = {}  # source text -> factory: one exec per shape


class _Unsupported(Exception):
    """A node the generator has no rule for: the action keeps the interpreter."""


class _Source:
    """The parameters (atoms, numbers, conditions) of one function being generated."""

    def __init__(self, keys: dict[Atom, Atom], table: AtomTable | None = None) -> None:
        self.keys, self.table = keys, table
        self.params: list[object] = []

    def atoms(self, atoms: frozenset[Atom]) -> str:
        """A set of atoms made of the task's own atom objects (a state lookup then hits by identity)."""
        if self.table is not None:
            atoms = frozenset([self.table.atom(a.predicate, a.args) for a in atoms])
        return self.param(atoms)

    def param(self, value: object) -> str:
        self.params.append(value)
        return f"_p{len(self.params) - 1}"

    def fluent(self, atom: Atom) -> str:
        return f"v[{self.param(self.keys.setdefault(atom, atom))}]"

    def expr(self, e) -> str:
        """``evaluate(e, v)`` as a Python expression (a missing fluent raises KeyError)."""
        if e.__class__ is Atom:
            return self.fluent(e)
        if e.__class__ is GArith:
            args = [self.expr(a) for a in e.args]
            if e.op == "-" and len(args) == 1:
                return f"(-{args[0]})"
            # evaluate's float(first argument), as a multiplication: exactly float()'s value (an int
            # rounded as float() rounds it, -0.0 kept, too large an int an OverflowError as there)
            # without a builtin call
            out = f"({args[0]} * 1.0)"
            for a in args[1:]:
                if e.op == "/":
                    out = f"_div({out}, {a})"
                elif e.op in _OPS:
                    out = f"({out} {_OPS[e.op]} {a})"
                else:
                    raise _Unsupported(e.op)
            return out
        if isinstance(e, (int, float)) and not isinstance(e, bool):
            return self.param(e)
        raise _Unsupported(type(e).__name__)

    def node(self, n) -> str:
        """``_eval(n, s)`` of :mod:`toolkit.semantics` as a Python expression."""
        if n is True or n is False:
            return str(n)
        if n.__class__ is GLit:
            atom = n.atom if self.table is None else self.table.atom(n.atom.predicate, n.atom.args)
            return f"({self.param(atom)} {'in' if n.positive else 'not in'} s)"
        if n.__class__ is GAnd:
            return "(" + " and ".join(self.node(p) for p in n.parts) + ")" if n.parts else "True"
        if n.__class__ is GOr:
            return "(" + " or ".join(self.node(p) for p in n.parts) + ")" if n.parts else "False"
        if n.__class__ is GCompare:
            test = _COMPARE[n.op].format(d=f"({self.expr(n.left)} - {self.expr(n.right)})")
            return f"({test})" if n.positive else f"(not ({test}))"
        raise _Unsupported(type(n).__name__)


def _build(source: _Source, body: str) -> Callable:
    names = ", ".join(f"_p{i}" for i in range(len(source.params)))
    text = f"def _make({names}):\n{body}\n    return _f\n"
    factory = _FACTORIES.get(text)
    if factory is None:
        scope: dict[str, object] = {}
        exec(compile(text, "<pgt numeric action>", "exec"), dict(_GLOBALS), scope)  # noqa: S102 - our own text
        factory = _FACTORIES[text] = scope["_make"]
    return factory(*source.params)


def compile_check(cond: CompiledCondition, keys: dict[Atom, Atom], table: AtomTable | None = None) -> Check:
    """``holds(cond, state)`` as one function; the interpreter where the generator has no rule.

    ``keys`` maps each fluent atom to the object the states' values are keyed by, ``table`` holds the
    task's atom objects (both grow with the atoms first met here)."""
    src = _Source(keys, table)
    fallback = src.param(cond)
    lines = ["    def _f(s):"]
    if cond.pos:
        lines.append(f"        if not {src.atoms(cond.pos)} <= s: return False")
    if cond.neg:
        lines.append(f"        if not s.isdisjoint({src.atoms(cond.neg)}): return False")
    try:
        test = "True" if cond.tree is None else src.node(cond.tree)
    except _Unsupported:
        return lambda state: holds(cond, state)
    if "v[" in test:
        lines += ["        try:", "            v = s.values", f"            return {test}",
                  "        except Exception:",  # a fluent without a value, a state without values: as holds says
                  f"            return _holds({fallback}, s)"]
    else:
        lines.append(f"        return {test}")
    return _build(src, "\n".join(lines))


def compile_changes(updates: tuple[GroundUpdate, ...], keys: dict[Atom, Atom]) -> Changes:
    """``update_values(updates, state)`` as one function: every value read in the old state first.

    It returns ``(changes, undefined, old)``: ``old`` is the targets' values before the step, as
    ``(fluent, value)`` pairs (``MISSING`` for a fluent without one), read with the values the
    updates need anyway, for a stepper's undo record; None where some update is conditional (the
    stepper reads them itself) or the interpreter answered.
    """
    if not updates:
        return lambda state: ({}, (), ())
    src = _Source(keys)
    fallback = src.param(updates)
    lines = ["    def _f(s):", "        try:", "            v = s.values"]
    plain = all(u.condition is None for u in updates)
    olds: dict[Atom, str] = {}  # target -> the local holding its old value (unconditional updates only)
    if plain:
        for u in updates:
            target = keys.setdefault(u.target, u.target)
            if target not in olds:
                olds[target] = f"o{len(olds)}"
                lines.append(f"            {olds[target]} = v.get({src.param(target)}, _M)")
    lines.append("            c = {}")
    try:
        for u in updates:
            target = keys.setdefault(u.target, u.target)
            pad = "            "
            if u.condition is not None:
                lines.append(f"{pad}if _holds({src.param(u.condition)}, s):")
                pad += "    "
            value = src.expr(u.value)
            if u.op == "assign":
                lines.append(f"{pad}x = {value}")
            else:
                # VAL's State::update: a target without a value counts as 0 (toolkit.fluent_effects).
                old = olds.get(target)
                cur = f"(0 if {old} is _M else {old})" if old else f"v.get({src.param(target)}, 0)"
                if u.op == "increase":
                    lines.append(f"{pad}x = {cur} + {value}")
                elif u.op == "decrease":
                    lines.append(f"{pad}x = {cur} - {value}")
                elif u.op == "scale-up":
                    lines.append(f"{pad}x = {cur} * {value}")
                elif u.op == "scale-down":
                    lines.append(f"{pad}x = _div({cur}, {value})")
                else:
                    raise _Unsupported(u.op)
            # update_values' int-if-integral, tested as cheaply as an int (the common value) allows
            lines.append(f"{pad}if x.__class__ is not int and isinstance(x, float) and x.is_integer() "
                         "and -_BIG < x < _BIG: x = int(x)")
            lines.append(f"{pad}c[{src.param(target)}] = x")
    except _Unsupported:
        return lambda state: (*update_values(updates, state), None)
    old_pairs = "(" + "".join(f"({src.param(t)}, {o}), " for t, o in olds.items()) + ")" if plain else "None"
    lines += [f"            return c, (), {old_pairs}", "        except Exception:",  # an undefined read
              f"            return (*_up({fallback}, s), None)"]  # the interpreter's values and report
    return _build(src, "\n".join(lines))
