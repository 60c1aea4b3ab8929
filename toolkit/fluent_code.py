"""A ground action's numeric precondition and effects compiled once into straight-line Python.

Why: interpreting a numeric condition walks its expression tree node by node
(:func:`toolkit.fluents.evaluate`, one call and several ``isinstance`` tests per node) on
every step; a plan's step spends most of its time there. Here each ground action of
a numeric task gets two functions, built on its first use:

- ``check(state)``: exactly :func:`toolkit.semantics.holds` of its precondition;
- ``changes(state)``: exactly :func:`toolkit.fluent_effects.update_values` of its
  numeric effects, every value computed in the old state (PDDL 2.1, section 7.2), and
  the targets' old values for the stepper's undo record.

The generated check reads a stepper's working state by fluent number (its value list,
``state.slots``: :mod:`toolkit.fluent_slots`) and a frozen state's ``values`` dict with
the task's own atom objects, so a lookup hits by identity; the stepper's own writes
by number are :mod:`toolkit.fluent_writes`. Both do the arithmetic of :func:`toolkit.fluents.evaluate` in the same order and types: an
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
from toolkit.fluent_slots import FluentIndex
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
_NAMES = tuple(f"_p{i}" for i in range(64))  # parameter names, made once (an action has a few dozen at most)
_HEADS: dict[int, str] = {}  # number of parameters -> the factory's "def _make(...):" line


class Unsupported(Exception):
    """A node the generator has no rule for: the action keeps the interpreter."""


def arith_text(op: str, args: list[str]) -> str:
    """``evaluate``'s arithmetic over operands already written as Python expressions (``_div`` is VAL's
    division: see the generated code's names)."""
    if op == "-" and len(args) == 1:
        return f"(-{args[0]})"
    # evaluate's float(first argument), as a multiplication: exactly float()'s value (an int rounded as
    # float() rounds it, -0.0 kept, too large an int an OverflowError as there) without a builtin call
    out = f"({args[0]} * 1.0)"
    for a in args[1:]:
        if op == "/":
            out = f"_div({out}, {a})"
        elif op in _OPS:
            out = f"({out} {_OPS[op]} {a})"
        else:
            raise Unsupported(op)
    return out


class Source:
    """The parameters (atoms, numbers, conditions) of one function being generated; with ``slots`` set,
    a fluent is read from a working state's value list by its number, else from a dict by its atom."""

    def __init__(self, index: FluentIndex, table: AtomTable | None = None) -> None:
        self.index, self.table = index, table
        self.params: list[object] = []
        self.slots = False

    def atoms(self, atoms: frozenset[Atom]) -> str:
        """A set of atoms made of the task's own atom objects (a state lookup then hits by identity)."""
        if self.table is not None:
            atoms = frozenset([self.table.atom(a.predicate, a.args) for a in atoms])
        return self.param(atoms)

    def param(self, value: object) -> str:
        params = self.params
        params.append(value)
        n = len(params) - 1
        return _NAMES[n] if n < len(_NAMES) else f"_p{n}"

    def fluent(self, atom: Atom) -> str:
        if self.slots:
            return f"v[{self.param(self.index.number(atom))}]"
        return f"v[{self.param(self.index.canonical(atom))}]"

    def in_slots(self, make: Callable[[], str]) -> str:
        """``make()`` with fluents read by number."""
        self.slots = True
        try:
            return make()
        finally:
            self.slots = False

    def expr(self, e) -> str:
        """``evaluate(e, v)`` as a Python expression (a missing fluent raises KeyError)."""
        if e.__class__ is Atom:
            return self.fluent(e)
        if e.__class__ is GArith:
            return arith_text(e.op, [self.expr(a) for a in e.args])
        if isinstance(e, (int, float)) and not isinstance(e, bool):
            return self.param(e)
        raise Unsupported(type(e).__name__)

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
        raise Unsupported(type(n).__name__)


def build_function(source: Source, body: str, names: dict[str, object] | None = None) -> Callable:
    """The function ``_f`` defined by ``body`` over the source's parameters; one ``exec`` per text, which
    also sees ``names`` (a module's own globals; the text must name the module's use)."""
    return build_factory(source, body, names)(*source.params)


def build_factory(source: Source, body: str, names: dict[str, object] | None = None) -> Callable[..., Callable]:
    """The factory ``_make(_p0, _p1, ...)`` that returns the function ``_f`` of ``body`` over the given
    parameters (:func:`build_function` calls it with the source's own; a schema's other ground actions
    call it with theirs: :mod:`toolkit.fluent_shared`)."""
    n = len(source.params)
    head = _HEADS.get(n)
    if head is None:
        head = _HEADS[n] = f"def _make({', '.join(f'_p{i}' for i in range(n))}):\n"
    text = f"{head}{body}\n    return _f\n"
    factory = _FACTORIES.get(text)
    if factory is None:
        scope: dict[str, object] = {}
        exec(compile(text, "<pgt numeric action>", "exec"), {**_GLOBALS, **(names or {})}, scope)  # noqa: S102
        factory = _FACTORIES[text] = scope["_make"]
    return factory


def compile_check(cond: CompiledCondition, index: FluentIndex, table: AtomTable | None = None) -> Check:
    """``holds(cond, state)`` as one function; the interpreter where the generator has no rule.

    ``index`` numbers the task's fluents (a working state of the task holds their values in a list by
    number, read here by subscript; a frozen state's dict is read with the index's own atom objects),
    ``table`` holds the task's atom objects (both grow with the atoms first met here)."""
    src = Source(index, table)
    if cond.tree is None:  # literals only: the generated function's two set tests, as a closure (no text)
        return _literal_check(src.atoms(cond.pos) if cond.pos else None, src.atoms(cond.neg) if cond.neg else None,
                              src.params)
    fallback = src.param(cond)
    lines = ["    def _f(s):"]
    if cond.pos:
        lines.append(f"        if not {src.atoms(cond.pos)} <= s: return False")
    if cond.neg:
        lines.append(f"        if not s.isdisjoint({src.atoms(cond.neg)}): return False")
    try:
        test = "True" if cond.tree is None else src.node(cond.tree)
        by_number = src.in_slots(lambda: src.node(cond.tree)) if "v[" in test else ""
    except Unsupported:
        return lambda state: holds(cond, state)
    if "v[" in test:
        # A value list (None: no value) fails as the dict does, by an exception: None in arithmetic, a
        # number past the list's end. FluentState.index is None; a plain set has none (AttributeError).
        lines += ["        try:", f"            if s.index is {src.param(index)}:", "                v = s.slots",
                  f"                return {by_number}", "            v = s.values", f"            return {test}",
                  "        except Exception:",  # a fluent without a value, a state without values: as holds says
                  f"            return _holds({fallback}, s)"]
    else:
        lines.append(f"        return {test}")
    return build_function(src, "\n".join(lines))


def _literal_check(pos: str | None, neg: str | None, params: list) -> Check:
    """``holds`` of a condition of literals only: ``pos <= s and s.isdisjoint(neg)`` (each only where
    there are such literals), exactly the text compile_check would generate for it."""
    return literal_check(params[0] if pos is not None else None, params[-1] if neg is not None else None)


def literal_check(p: frozenset[Atom] | None, n: frozenset[Atom] | None) -> Check:
    """``pos <= s and s.isdisjoint(neg)`` as a closure, for the sets given (None: no such literals); a
    condition ground from a schema's template passes its own sets (already the task's atom objects)."""
    if p is not None and n is not None:
        return lambda s: p <= s and s.isdisjoint(n)
    if p is not None:
        return lambda s: p <= s
    if n is not None:
        return lambda s: s.isdisjoint(n)
    return lambda s: True


# update_values' int-if-integral, tested as cheaply as an int (the common value) allows
INTEGRAL = ("if {x}.__class__ is not int and isinstance({x}, float) and {x}.is_integer() and -_BIG < {x} < _BIG: "
             "{x} = int({x})")


def updated_value(u: GroundUpdate, value: str, current: Callable[[], str]) -> str:
    """The update's new value as an expression over ``value`` and (not for ``assign``) ``current()``, the
    target's old value with a target without one counting as 0 (VAL's State::update; toolkit.fluent_effects)."""
    if u.op == "assign":
        return value
    cur = current()
    if u.op == "increase":
        return f"{cur} + {value}"
    if u.op == "decrease":
        return f"{cur} - {value}"
    if u.op == "scale-up":
        return f"{cur} * {value}"
    if u.op == "scale-down":
        return f"_div({cur}, {value})"
    raise Unsupported(u.op)


def _old_or_zero(src: Source, olds: dict[Atom, str], target: Atom) -> str:
    old = olds.get(target)
    return f"(0 if {old} is _M else {old})" if old else f"v.get({src.param(target)}, 0)"


def compile_changes(updates: tuple[GroundUpdate, ...], index: FluentIndex) -> Changes:
    """``update_values(updates, state)`` as one function: every value read in the old state first.

    It returns ``(changes, undefined, old)``: ``old`` is the targets' values before the step, as
    ``(fluent, value)`` pairs (``MISSING`` for a fluent without one), read with the values the
    updates need anyway, for a stepper's undo record; None where some update is conditional (the
    stepper reads them itself) or the interpreter answered.
    """
    if not updates:
        return lambda state: ({}, (), ())
    src = Source(index)
    fallback = src.param(updates)
    lines = ["    def _f(s):", "        try:", "            v = s.values"]
    plain = all(u.condition is None for u in updates)
    olds: dict[Atom, str] = {}  # target -> the local holding its old value (unconditional updates only)
    if plain:
        for u in updates:
            target = index.canonical(u.target)
            if target not in olds:
                olds[target] = f"o{len(olds)}"
                lines.append(f"            {olds[target]} = v.get({src.param(target)}, _M)")
    lines.append("            c = {}")
    try:
        for u in updates:
            target = index.canonical(u.target)
            pad = "            "
            if u.condition is not None:
                lines.append(f"{pad}if _holds({src.param(u.condition)}, s):")
                pad += "    "
            lines.append(f"{pad}x = {updated_value(u, src.expr(u.value), lambda: _old_or_zero(src, olds, target))}")
            # update_values' int-if-integral, tested as cheaply as an int (the common value) allows
            lines.append(f"{pad}{INTEGRAL.format(x='x')}")
            lines.append(f"{pad}c[{src.param(target)}] = x")
    except Unsupported:
        return lambda state: (*update_values(updates, state), None)
    old_pairs = "(" + "".join(f"({src.param(t)}, {o}), " for t, o in olds.items()) + ")" if plain else "None"
    lines += [f"            return c, (), {old_pairs}", "        except Exception:",  # an undefined read
              f"            return (*_up({fallback}, s), None)"]  # the interpreter's values and report
    return build_function(src, "\n".join(lines))

