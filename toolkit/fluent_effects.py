"""Numeric effects of ground actions: grounded once per action, applied in the old state (PDDL 2.1).

The value side (states with fluent values, expressions, VAL's number rules) is
:mod:`toolkit.fluents`; this module joins it to the boolean grounding
(:mod:`toolkit.grounding`) for the ``when`` conditions around numeric effects.
"""

from __future__ import annotations

import itertools
from typing import Callable

from toolkit.records import record

from toolkit import model as m
from toolkit.fluents import (FluentState, GExpr, Undefined, divide, evaluate, expr_builder, expr_text, ground_expr,
                             values_of)
from toolkit.grounding import compile_condition
from toolkit.model import Atom
from toolkit.semantics import holds


@record(slots=True)
class GroundUpdate:
    """One ground numeric effect; ``condition`` (a compiled condition) is None when unconditional."""

    op: str
    target: Atom
    value: GExpr
    condition: object = None

    def __str__(self) -> str:
        return f"({self.op} {self.target} {expr_text(self.value)})"


def ground_updates(schema: m.ActionSchema, args: tuple[str, ...], objects_of) -> tuple[GroundUpdate, ...]:
    """The numeric effects of the ground action, ``forall`` expanded, ``when`` compiled."""
    base = {var: obj for (var, _), obj in zip(schema.params, args)}
    out = []
    for eff in schema.numeric:
        names = [v for v, _ in eff.params]
        for objs in itertools.product(*(objects_of(t) for _, t in eff.params)):
            sub = {**base, **dict(zip(names, objs))}
            cond = None if eff.condition == m.TRUE else compile_condition(eff.condition, sub, objects_of)
            target = ground_expr(eff.target, sub)
            out.append(GroundUpdate(eff.op, target, ground_expr(eff.value, sub), cond))
    return tuple(out)


class UpdateTemplate:
    """One schema's numeric effects, ground by substitution: the lifted expressions are walked once per
    domain (:mod:`toolkit.schema_memo`), not once per ground action (a numeric plan of 75 distinct actions
    walked them 75 times).

    :meth:`ground` gives exactly :func:`ground_updates`' tuple for a schema whose numeric effects are
    neither under ``forall`` nor under ``when`` (the IPC 2023 numeric domains' shape; others take
    :func:`ground_updates` itself). Fluent atoms are made through the task's ``atom`` (its interned
    objects, so the compiled code's lookups by atom hit by identity).
    """

    __slots__ = ("schema", "plain", "_parts")

    def __init__(self, schema: m.ActionSchema) -> None:
        self.schema = schema
        self.plain = all(not eff.params and eff.condition == m.TRUE for eff in schema.numeric)
        slots = {var: i for i, (var, _) in enumerate(schema.params)}
        self._parts = tuple((eff.op, expr_builder(eff.target, slots), expr_builder(eff.value, slots))
                            for eff in schema.numeric) if self.plain else ()

    def ground(self, args: tuple[str, ...], objects_of, atom: Callable[[str, tuple[str, ...]], Atom]
               ) -> tuple[GroundUpdate, ...]:
        if not self.plain:
            return ground_updates(self.schema, args, objects_of)
        return tuple([GroundUpdate(op, target(args, atom), value(args, atom), None) for op, target, value in self._parts])


def update_values(updates: tuple[GroundUpdate, ...], old: frozenset[Atom]) -> tuple[dict[Atom, m.Number], list[str]]:
    """The fluents' new values, every update computed in the ``old`` state (PDDL 2.1), and the updates
    that did not apply because a fluent they read has no value (the caller reports them; VAL stops
    the plan there). Only the changed fluents are returned: a stepper applies them as a delta.
    """
    values = values_of(old)
    changes: dict[Atom, m.Number] = {}
    undefined = []
    for u in updates:
        if u.condition is not None and not holds(u.condition, old):
            continue
        try:
            v = evaluate(u.value, values)
            if u.op != "assign":
                # VAL's State::update reads the target through std::map's operator[]: a fluent
                # without a value counts as 0 there (only the value expression must be defined).
                cur = values.get(u.target, 0)
                v = (cur + v if u.op == "increase" else cur - v if u.op == "decrease"
                     else cur * v if u.op == "scale-up" else divide(cur, v))
        except Undefined as exc:
            undefined.append(f"{u}: {exc.fluent} has no value")
            continue
        changes[u.target] = int(v) if isinstance(v, float) and v.is_integer() and abs(v) < 2 ** 53 else v
    return changes, undefined


def with_values(old: frozenset[Atom], atoms: frozenset[Atom], changes: dict[Atom, m.Number]) -> FluentState:
    """The successor: ``atoms`` (the boolean successor) with the ``old`` state's values and ``changes``
    (from :func:`update_values`, or an action's compiled equivalent) over them."""
    new = values_of(old).copy()  # a C copy of the dict under the proxy: no key hashed again
    new.update(changes)
    return FluentState.owning(atoms, new)
