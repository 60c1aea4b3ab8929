"""BDDL goal formulas as ground PDDL formulas, quantifier by quantifier as BEHAVIOR evaluates them.

BEHAVIOR never keeps a quantifier lifted: ``bddl/condition_evaluation.py`` (v1.0.1)
builds one child per object of the quantified category (``Universal``,
``Existential``, ``NQuantifier``, ``ForPairs``, ``ForNPairs``) and evaluates the
children. This module does the same expansion and writes the result as a ground
PDDL formula, so each counting quantifier keeps BEHAVIOR's exact meaning:

* ``forall`` / ``exists``: every / some child (``all`` / ``any`` of the child values);
* ``forn (N)``: **exactly** N children hold (``NQuantifier.evaluate``: ``sum(...) == N``);
* ``forpairs``: a matrix of children, one row per object of the first category and
  one column per object of the second (the object itself left out of its own row);
  true when at least L rows and at least L columns have a true child, L = min(rows,
  columns) (``ForPairs.evaluate``);
* ``fornpairs (N)``: the same with N for L (``ForNPairs.evaluate``).

A term is resolved as ``BinaryAtomicFormula`` resolves it (``logic_base.py``): the
``?`` stripped, then a quantified variable's object, else an object of the problem
by that name (so ``?candle.n.01_1``, never bound, is the object ``candle.n.01_1``),
else refused.
"""

from __future__ import annotations

import itertools
import math
from typing import Callable, Union

from toolkit.bddl.sexpr import Node
from toolkit.errors import PgtError, closest

# A formula: True, False, or (op, ...) with op in atom / not / and / or / imply.
Formula = Union[bool, tuple]
LIMIT = 200_000  # literals in one expanded goal; past this the goal is refused, not written


class BddlError(PgtError):
    """A BDDL construct pgt cannot express, located in its file."""

    def __init__(self, path: str, node: Node | None, detail: str) -> None:
        where = path if node is None else node.where(path)
        self.path, self.line, self.column = path, node.line if node else None, node.col if node else None
        super().__init__(f"{where}: {detail}")


def conj(parts: list[Formula]) -> Formula:
    kept = [p for p in parts if p is not True]
    if any(p is False for p in kept):
        return False
    return True if not kept else kept[0] if len(kept) == 1 else ("and", kept)


def disj(parts: list[Formula]) -> Formula:
    kept = [p for p in parts if p is not False]
    if any(p is True for p in kept):
        return True
    return False if not kept else kept[0] if len(kept) == 1 else ("or", kept)


def neg(part: Formula) -> Formula:
    if isinstance(part, bool):
        return not part
    return part[1] if part[0] == "not" else ("not", part)


def at_least(k: int, parts: list[Formula], budget: Callable[[int], None]) -> Formula:
    """At least ``k`` of ``parts`` hold, as a disjunction over the k-subsets.

    >>> at_least(1, [("atom", "(a)"), ("atom", "(b)")], lambda n: None)[0]
    'or'
    """
    if k <= 0:
        return True
    if k > len(parts):
        return False
    if k == len(parts):
        return conj(parts)
    budget(math.comb(len(parts), k) * k)
    return disj([conj(list(c)) for c in itertools.combinations(parts, k)])


def exactly(k: int, parts: list[Formula], budget: Callable[[int], None]) -> Formula:
    """Exactly ``k`` of ``parts`` hold (BEHAVIOR's ``forn``)."""
    if k < 0 or k > len(parts):
        return False
    budget(math.comb(len(parts), k) * len(parts))
    options = []
    for chosen in itertools.combinations(range(len(parts)), k):
        picked = set(chosen)
        options.append(conj([parts[i] if i in picked else neg(parts[i]) for i in range(len(parts))]))
    return disj(options)


def text(f: Formula) -> str:
    """A formula as PDDL text (True as ``(and)``)."""
    if f is True:
        return "(and)"
    if f is False:
        raise ValueError("False has no PDDL text")
    op = f[0]
    if op == "atom":
        return f[1]
    if op == "not":
        return f"(not {text(f[1])})"
    if op == "imply":
        return f"(imply {text(f[1])} {text(f[2])})"
    return f"({op} " + " ".join(text(p) for p in f[1]) + ")"


class GoalTranslator:
    """Expands one problem's goal over its objects; ``rename`` maps a BDDL name to its PDDL spelling."""

    def __init__(self, path: str, categories: dict[str, list[str]], rename: Callable[[str], str]) -> None:
        self.path, self.categories, self.rename = path, categories, rename
        self.objects = {o for objs in categories.values() for o in objs}
        self.size = 0

    def _budget(self, n: int, node: Node) -> None:
        self.size += n
        if self.size > LIMIT:
            raise BddlError(self.path, node, f"{node.items[0].text if node.is_list else node.text} expands to "
                            f"more than {LIMIT} literals over this problem's objects")

    def _category(self, node: Node, where: Node) -> tuple[str, list[str]]:
        """``(?v - category)`` as (variable label, the category's objects in declaration order)."""
        parts = [i.text for i in node.items] if node.is_list else []
        if len(parts) != 3 or None in parts or parts[1] != "-":
            raise BddlError(self.path, node, f"expected (?variable - category), got {node.show()}")
        label, cat = parts[0].strip("?"), parts[2]
        if cat not in self.categories:
            hint = closest(cat, self.categories)
            raise BddlError(self.path, node.items[2], f"unknown category {cat!r} in {where.items[0].text}"
                            + (f"; did you mean {', '.join(hint)}?" if hint else ""))
        return label, self.categories[cat]

    def _count(self, node: Node) -> int:
        n = node.items[1]
        word = n.items[0].text if n.is_list and len(n.items) == 1 else n.text
        if word is None or not word.isdigit():
            raise BddlError(self.path, n, f"{node.items[0].text} needs a count such as (2), got {n.show()}")
        return int(word)

    def _term(self, tok: Node, env: dict[str, str]) -> str:
        if tok.is_list:
            raise BddlError(self.path, tok, f"expected a name, got {tok.show()}")
        name = tok.text.strip("?")
        if name in env:
            return env[name]
        if name in self.objects:
            return name
        hint = closest(name, [*env, *self.objects])
        raise BddlError(self.path, tok, f"{tok.text!r} is neither a quantified variable nor an object of the problem"
                        + (f"; did you mean {', '.join(hint)}?" if hint else ""))

    def formula(self, node: Node, env: dict[str, str]) -> Formula:
        """The ground formula of ``node`` under the variable bindings ``env`` (label -> object)."""
        head = node.head()
        if head is None:
            raise BddlError(self.path, node, f"expected a formula, got {node.show()}")
        args = node.items[1:]
        if head in ("and", "or"):
            parts = [self.formula(a, env) for a in args]
            return conj(parts) if head == "and" else disj(parts)
        if head == "not":
            if len(args) != 1:
                raise BddlError(self.path, node, f"not takes one formula, got {len(args)}")
            return neg(self.formula(args[0], env))
        if head == "imply":
            if len(args) != 2:
                raise BddlError(self.path, node, f"imply takes two formulas, got {len(args)}")
            ante, cons = self.formula(args[0], env), self.formula(args[1], env)
            return disj([neg(ante), cons])
        if head in ("forall", "exists"):
            if len(args) != 2:
                raise BddlError(self.path, node, f"{head} takes (?v - category) and a formula")
            label, objs = self._category(args[0], node)
            children = [self.formula(args[1], {**env, label: o}) for o in objs]
            self._budget(len(children), node)
            return conj(children) if head == "forall" else disj(children)
        if head == "forn":
            if len(args) != 3:
                raise BddlError(self.path, node, "forn takes (N), (?v - category) and a formula")
            n = self._count(node)
            label, objs = self._category(args[1], node)
            return exactly(n, [self.formula(args[2], {**env, label: o}) for o in objs],
                           lambda k: self._budget(k, node))
        if head in ("forpairs", "fornpairs"):
            return self._pairs(node, env)
        if any(a.is_list for a in args):
            raise BddlError(self.path, node, f"unknown connective or quantifier {head!r} (BDDL has and, or, not, "
                            "imply, forall, exists, forn, forpairs, fornpairs)")
        atom = "(" + " ".join([head, *(self.rename(self._term(a, env)) for a in args)]) + ")"
        self._budget(1, node)
        return ("atom", atom)

    def _pairs(self, node: Node, env: dict[str, str]) -> Formula:
        head, args = node.items[0].text, node.items[1:]
        counted = head == "fornpairs"
        if len(args) != (4 if counted else 3):
            raise BddlError(self.path, node, f"{head} takes {'(N), ' if counted else ''}two (?v - category) and a formula")
        first, second, body = args[-3], args[-2], args[-1]
        label1, objs1 = self._category(first, node)
        label2, objs2 = self._category(second, node)
        rows = [[self.formula(body, {**env, label1: a, label2: b}) for b in objs2 if b != a] for a in objs1]
        width = len(rows[0])
        if any(len(r) != width for r in rows):
            raise BddlError(self.path, node, f"{head} over categories that share objects gives rows of unequal "
                            "length, which BEHAVIOR's evaluator cannot build")
        need = min(len(rows), width)
        if counted:
            n = self._count(node)
            if n > need:  # ForNPairs.get_ground_options asserts N <= L
                raise BddlError(self.path, node, f"fornpairs asks for {n} pairs, only {need} can be formed")
            need = n
        budget = lambda k: self._budget(k, node)  # noqa: E731
        row_any = [disj(r) for r in rows]
        col_any = [disj([r[j] for r in rows]) for j in range(width)]
        return conj([at_least(need, row_any, budget), at_least(need, col_any, budget)])
