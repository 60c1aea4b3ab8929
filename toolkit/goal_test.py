"""A numeric goal tested over the working state's fluent numbers, and explained only where it fails.

Why: a fresh task ground its whole goal (:func:`toolkit.grounding.compile_condition`: an atom per fluent
term, a ``GCompare`` per comparison) and a plan check explained it at the end through a mapping view of
the values (a Python call and an atom hash per fluent read), then printed every failing comparison
through its ground node; on IPC 2023's block-grouping (a goal of 16 comparisons and disjunctions) that
was a third of checking a plan against a fresh task. Here each distinct fluent of the goal is numbered
once (the task's :class:`~toolkit.fluent_slots.FluentIndex`, as the compiled actions read them), each
comparison reads the value list by number, and only a failing part is put into words.

Taken, in a numeric task: a conjunction (at any depth) of atoms, negated atoms, comparisons, negated
comparisons, and disjunctions of two or more of those: every IPC 2023 numeric goal. Anything else
(quantifiers, equalities, implications, a contradiction), a boolean task's goal, and a state not
numbered by the task's index (a frozen state), goes to the compiled goal
(:attr:`toolkit.task.Task.goal`) as before. With no variable, a lifted formula prints as its ground
node does, so the texts are the lifted formulas' own; a comparison reading a fluent with no value is
explained by its ground node (``tests/core/test_core_goal_test.py`` holds the two paths together).

What the test is made of (:class:`GoalShape`) is kept per Problem object, as :mod:`toolkit.schema_memo`
keeps a domain's: a fresh task of a problem numbers the fluents of its ``:init`` as every other does,
and checks by identity that it does before it shares the shape; a fresh file gives a fresh Problem.
"""

from __future__ import annotations

import weakref
from typing import Union

from toolkit import model as m
from toolkit.fluent_slots import FluentIndex
from toolkit.fluents import _FAILED_AS, _HOLDS, arith
from toolkit.grounding import ground_condition
from toolkit.model import Atom
from toolkit.semantics import Unmet, _explain_node

# An expression by fluent number: a fluent's number (int), a constant as a 1-tuple ``(value,)``, or
# arithmetic as ``(op, parts)``.
Code = Union[int, tuple]


class GoalShape:
    """What a goal's test is made of, the same for every task of its problem (kept per Problem object):
    ``literals`` (atom, positive) in formula order (``explain`` lists them first) and their sets; ``parts``,
    the rest in formula order, each a comparison (op, left, right, positive, formula) or a disjunction
    (alternatives, formula) of comparisons and literals; ``fluents``, the (number, index atom) pairs it
    reads by, which a task's index must hold to share it (:meth:`fits`); ``texts``, a failing part's text
    by its place, made on first use."""

    __slots__ = ("literals", "pos", "neg", "parts", "size", "width", "fluents", "texts")

    def __init__(self, literals: list[tuple[Atom, bool]], parts: list[tuple], fluents: list[tuple[int, Atom]]) -> None:
        self.literals = tuple(literals)
        self.pos = frozenset([a for a, positive in literals if positive])
        self.neg = frozenset([a for a, positive in literals if not positive])
        self.parts = tuple(parts)
        self.size = len(literals) + len(parts)  # toolkit.semantics.condition_size of the compiled goal
        self.width = max([n for n, _ in fluents], default=-1) + 1  # a value list shorter lacks a fluent read
        self.fluents = tuple(fluents)
        self.texts: list[str | None] = [None] * len(parts)

    def fits(self, index: FluentIndex) -> bool:
        """Whether ``index`` numbers the fluents as the index this was made by (a fresh task of the problem
        numbers its :init values' own atoms in their order, so it does)."""
        atoms = index.atoms
        if len(atoms) < self.width:
            return False
        for n, atom in self.fluents:
            if atoms[n] is not atom:
                return False
        return True


class GoalTest:
    """A task's goal over its fluent numbers (see the module): :meth:`holds` and :meth:`unmet` are
    :func:`toolkit.semantics.holds` and :func:`~toolkit.semantics.explain` of the compiled goal in a
    working state (``slots``: its value list, :meth:`slots_of`)."""

    __slots__ = ("shape", "index", "size")

    def __init__(self, shape: GoalShape, index: FluentIndex) -> None:
        self.shape, self.index, self.size = shape, index, shape.size

    def slots_of(self, state: frozenset[Atom]) -> list | None:
        """The state's value list where it is numbered by this goal's index (a working state), else None."""
        if getattr(state, "index", None) is self.index:
            slots = state.slots  # type: ignore[attr-defined]
            if len(slots) >= self.shape.width:  # else made before the index numbered a fluent the goal reads
                return slots
        return None

    def holds(self, state: frozenset[Atom], slots: list) -> bool:
        shape = self.shape
        if not shape.pos <= state or not state.isdisjoint(shape.neg):
            return False
        for part in shape.parts:
            if not (_compare(part, slots) if len(part) == 5 else _any(part[0], state, slots)):
                return False
        return True

    def unmet(self, state: frozenset[Atom], slots: list) -> list[Unmet]:
        shape = self.shape
        out: list[Unmet] = []
        for atom, positive in shape.literals:
            if (atom in state) != positive:
                out.append(Unmet(str(atom) if positive else f"(not {atom})", atom, positive))
        texts = shape.texts
        for i, part in enumerate(shape.parts):
            if len(part) == 2:  # a disjunction: false where each of its (two or more) alternatives is
                if not _any(part[0], state, slots):
                    out.append(Unmet(texts[i] or _text(texts, i, part[1])))
                continue
            op, left, right, positive, formula = part
            lhs = slots[left] if left.__class__ is int else _value(left, slots)
            rhs = slots[right] if right.__class__ is int else _value(right, slots)
            if lhs is None or rhs is None:  # names the fluent without a value, as the ground node does
                _explain_node(ground_condition(formula, {}, _no_objects), state, out)
            elif _HOLDS[op](lhs - rhs) != positive:
                shown = _FAILED_AS[op] if positive else op
                out.append(Unmet(texts[i] or _text(texts, i, formula), None, True, (),
                                 f"{m.format_number(lhs)} {shown} {m.format_number(rhs)}"))
        return out


def _text(texts: list, i: int, formula: m.Condition) -> str:
    text = texts[i] = str(formula)
    return text


_SHAPES: dict[int, GoalShape | None] = {}  # id(problem) -> its goal's shape (None: declined), while it lives
_UNSEEN = object()


def goal_test(problem: m.Problem, index: FluentIndex) -> GoalTest | None:
    """The problem's goal over ``index``'s numbers; None where the goal is not one this module takes (its
    shape kept per Problem object: see the module)."""
    key = id(problem)
    shape = _SHAPES.get(key, _UNSEEN)
    if shape is _UNSEEN or (shape is not None and not shape.fits(index)):
        shape, general = goal_shape(problem.goal, index)
        if general and key not in _SHAPES:  # the first task's is kept (one numbered otherwise makes its own)
            weakref.finalize(problem, _SHAPES.pop, key, None)
            _SHAPES[key] = shape
    return None if shape is None else GoalTest(shape, index)


def goal_shape(goal: m.Condition, index: FluentIndex) -> tuple[GoalShape | None, bool]:
    """The goal's shape over ``index``'s numbers (None: not one this module takes), and whether that answer
    holds for any index (not where this one lacks a fluent the goal reads: another task's may number it)."""
    build = _Build(index)
    if not build.members(goal):
        return None, not build.unnumbered
    shape = GoalShape(build.literals, build.parts, [(n, index.atoms[n]) for n in build.numbers.values()])
    if shape.pos & shape.neg:  # (and p (not p)): the compiled goal says "contradiction"
        return None, True
    return shape, True


class _Build:
    """A goal's members sorted into literals and parts as the compiled goal sorts them, its expressions as
    :data:`Code` over the index's numbers (a goal may have hundreds of members: few calls each)."""

    __slots__ = ("ids", "numbers", "literals", "parts", "unnumbered")

    def __init__(self, index: FluentIndex) -> None:
        self.ids = index.ids
        self.numbers: dict[tuple[str, tuple[str, ...]], int] = {}  # a fluent term met again is not looked up again
        self.literals: list[tuple[Atom, bool]] = []
        self.parts: list[tuple] = []
        self.unnumbered = False  # a fluent the index does not number (no value in :init, no action set it yet)

    def members(self, cond: m.Condition) -> bool:
        """Add a conjunction's members (at any depth); False where one is not one this module takes."""
        for part in cond.parts if cond.__class__ is m.And else (cond,):
            cls = part.__class__
            if cls is m.Compare:
                one = self.compare(part, True, part)
            elif cls is m.And:
                if not self.members(part):
                    return False
                continue
            elif cls is m.Or:
                alternatives = [self.alternative(p) for p in part.parts]
                if len(alternatives) < 2 or None in alternatives:
                    return False
                one = (tuple(alternatives), part)
            else:
                one = self.alternative(part)
            if one is None:
                return False
            (self.literals if len(one) == 2 and one[0].__class__ is Atom else self.parts).append(one)
        return True

    def alternative(self, cond: m.Condition) -> tuple | None:
        """An atom, a comparison or the negation of one, as a literal (atom, positive) or a comparison."""
        positive, inner = (False, cond.arg) if cond.__class__ is m.Not else (True, cond)
        cls = inner.__class__
        if cls is m.Compare:
            return self.compare(inner, positive, cond)
        if cls is m.Pred:
            return (Atom(inner.predicate, inner.terms), positive)
        return None

    def compare(self, c: m.Compare, positive: bool, formula: m.Condition) -> tuple | None:
        left, right = self.code(c.left), self.code(c.right)
        if left is None or right is None:
            return None
        return (c.op, left, right, positive, formula)

    def code(self, e: m.NumExpr) -> Code | None:
        cls = e.__class__
        if cls is m.FTerm:
            key = (e.function, e.terms)
            n = self.numbers.get(key)
            if n is None:
                n = self.ids.get(Atom(e.function, e.terms))
                if n is None:  # the compiled goal reads it
                    self.unnumbered = True
                    return None
                self.numbers[key] = n
            return n
        if cls is m.Arith:
            parts = [self.code(a) for a in e.args]
            return None if None in parts else (e.op, tuple(parts))
        if cls is int or cls is float:
            return (e,)
        return None


def _compare(part: tuple, slots: list) -> bool:
    op, left, right, positive, _ = part
    lhs = slots[left] if left.__class__ is int else _value(left, slots)
    rhs = slots[right] if right.__class__ is int else _value(right, slots)
    if lhs is None or rhs is None:  # a fluent without a value: false, negated or not (GCompare.holds)
        return False
    return _HOLDS[op](lhs - rhs) == positive


def _any(alternatives: tuple, state: frozenset[Atom], slots: list) -> bool:
    for alt in alternatives:
        if _compare(alt, slots) if len(alt) == 5 else (alt[0] in state) == alt[1]:
            return True
    return False


def _value(e: Code, slots: list):
    """:func:`toolkit.fluents.evaluate` by number: the same arithmetic; None where a fluent has no value."""
    if e.__class__ is int:
        return slots[e]
    if len(e) == 1:
        return e[0]
    op, parts = e
    args = []
    for p in parts:
        v = _value(p, slots)
        if v is None:
            return None
        args.append(v)
    return arith(op, args)


def _no_objects(types: tuple[str, ...]) -> tuple[str, ...]:
    return ()  # a goal this module takes has no quantifier to range over objects
