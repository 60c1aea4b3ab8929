"""A numeric schema's generated code, shared by its ground actions: text made once per shape, bound per action.

Why: :mod:`toolkit.fluent_code` and :mod:`toolkit.fluent_writes` generate each ground
action's precondition test and step as text, then look the text up among the
factories already compiled. Building that text was most of the cost of a numeric
ground action's first use (hydropower's 75 distinct actions of a 100-step plan: about
a third of checking the plan against a fresh task), and every ground action of a
schema built the same text with other parameters.

Where a schema's ground actions share one shape, they share the text here:

- **precondition**: from :class:`toolkit.templates.ActionTemplate`'s flat or mixed path
  (literals, equalities and comparisons at the top level; the comparisons built from
  the lifted expressions), every ground action's residual tree is the schema's
  comparisons, with its own fluents and numbers. The literals are tested by a closure
  (as :func:`toolkit.fluent_code.compile_check` does for a literal-only condition)
  before the comparisons' generated function;
- **step**: from a plain :class:`toolkit.fluent_effects.UpdateTemplate` (no ``forall``,
  no ``when``), every ground action's updates are the schema's expressions; what
  still varies (which updates set the same fluent, as ``(increase (f ?x) 1)`` and
  ``(decrease (f ?y) 1)`` at ``?x = ?y``; whether the action adds and deletes atoms)
  is part of the key.

The first ground action of a shape generates the text (the generators' own code); every
action's parameters are then gathered by a walk over its tree in the generator's
order, with no text. ``tests/core/test_core_fluent_code.py`` checks for every ground
action of its tasks that the parameters and text are the ones the generator gives it.
"""

from __future__ import annotations

from typing import Callable

from toolkit.fluent_code import Check, Source, Unsupported, build_factory, compile_check, literal_check
from toolkit.fluent_effects import GroundUpdate
from toolkit.fluent_slots import FluentIndex
from toolkit.fluent_writes import Step, compile_step, never_step, step_factory
from toolkit.fluents import GArith
from toolkit.grounding import CompiledCondition, GAnd
from toolkit.model import Atom
from toolkit.semantics import holds
from toolkit.templates import AtomTable

_NO_RULE = object()


class SchemaCode:
    """The factories one schema's ground actions share in one task (see the module's docstring)."""

    __slots__ = ("share_check", "share_step", "check", "steps")

    def __init__(self, share_check: bool, share_step: bool) -> None:
        self.share_check, self.share_step = share_check, share_step
        self.check: object = None  # (factory, reads fluents) or _NO_RULE, made by the first ground action
        self.steps: dict[tuple, object] = {}  # shape -> factory or _NO_RULE

    def __getstate__(self) -> tuple[bool, bool]:
        """Pickled without the factories (made again on first use in the other process)."""
        return self.share_check, self.share_step

    def __setstate__(self, state: tuple[bool, bool]) -> None:
        self.__init__(*state)  # type: ignore[misc]


def shared_check(cond: CompiledCondition, index: FluentIndex, table: AtomTable | None, code: SchemaCode) -> Check:
    """``holds(cond, state)``: ``compile_check``'s answer, its comparisons' text shared by the schema."""
    tree = cond.tree
    if tree is None and code.share_check:  # literals from the template's atom vector: the table's own objects
        return literal_check(cond.pos or None, cond.neg or None)
    if tree is None or tree is False or not code.share_check:
        return compile_check(cond, index, table)
    made = code.check
    if made is None:
        source = tree_source(cond, index, table)
        made = code.check = _NO_RULE if source is None else source[:2]
    if made is _NO_RULE:
        return lambda state: holds(cond, state)
    factory, reads_fluents = made  # type: ignore[misc]
    params = check_params(cond, index, reads_fluents)
    test = factory(*params)
    pos, neg = cond.pos, cond.neg
    if pos and neg:
        return lambda s: pos <= s and s.isdisjoint(neg) and test(s)
    if pos:
        return lambda s: pos <= s and test(s)
    if neg:
        return lambda s: s.isdisjoint(neg) and test(s)
    return test


def check_params(cond: CompiledCondition, index: FluentIndex, reads_fluents: bool) -> list:
    """The comparisons' function's parameters, in the generator's order: the condition (the interpreter's
    fallback), the values read from a dict (fluents as the index's atoms), the same read by number, the index."""
    params: list = [cond]
    if not reads_fluents:
        _leaves(cond.tree, index.canonical, params)
        return params
    numbers: list = []  # both lists in one walk: a fluent's number, then the index's atom by it
    for part in cond.tree.parts if cond.tree.__class__ is GAnd else (cond.tree,):
        _both_leaves(part.left, index, params, numbers)
        _both_leaves(part.right, index, params, numbers)
    params += numbers
    params.append(index)
    return params


def _both_leaves(e, index: FluentIndex, atoms: list, numbers: list) -> None:
    """:func:`_expr_leaves` by ``index.canonical`` into ``atoms`` and by ``index.number`` into ``numbers``."""
    if e.__class__ is Atom:
        n = index.ids.get(e)
        if n is None:
            n = index.number(e)
        atoms.append(index.atoms[n])
        numbers.append(n)
    elif e.__class__ is GArith:
        for a in e.args:
            _both_leaves(a, index, atoms, numbers)
    else:
        atoms.append(e)
        numbers.append(e)


def tree_source(cond: CompiledCondition, index: FluentIndex, table: AtomTable | None
                ) -> tuple[Callable[..., Check], bool, list] | None:
    """The comparisons' test as ``compile_check`` writes it (after its literal tests): its factory, whether
    it reads fluents, and this condition's own parameters (None: no rule)."""
    src = Source(index, table)
    fallback = src.param(cond)
    try:
        test = src.node(cond.tree)
        by_number = src.in_slots(lambda: src.node(cond.tree)) if "v[" in test else ""
    except Unsupported:
        return None
    lines = ["    def _f(s):"]
    if by_number:
        lines += ["        try:", f"            if s.index is {src.param(index)}:", "                v = s.slots",
                  f"                return {by_number}", "            v = s.values", f"            return {test}",
                  "        except Exception:", f"            return _holds({fallback}, s)"]
    else:
        lines.append(f"        return {test}")
    return build_factory(src, "\n".join(lines)), bool(by_number), src.params


def _leaves(node, fluent: Callable[[Atom], object], out: list) -> None:
    """The parameters :meth:`Source.node` takes from a tree of comparisons, in its order."""
    for part in node.parts if node.__class__ is GAnd else (node,):
        _expr_leaves(part.left, fluent, out)
        _expr_leaves(part.right, fluent, out)


def _expr_leaves(e, fluent: Callable[[Atom], object], out: list) -> None:
    if e.__class__ is Atom:
        out.append(fluent(e))
    elif e.__class__ is GArith:
        for a in e.args:
            _expr_leaves(a, fluent, out)
    else:
        out.append(e)


def shared_step(updates: tuple[GroundUpdate, ...], index: FluentIndex, adds: frozenset[Atom],
                dels: frozenset[Atom], code: SchemaCode) -> Step:
    """``compile_step``'s function, its text shared by the schema's ground actions of one shape."""
    if not updates or not code.share_step:
        return compile_step(updates, index, adds, dels)
    numbers = [index.number(u.target) for u in updates]
    shape = (tuple([numbers.index(n) for n in numbers]), bool(adds), bool(dels))
    made = code.steps.get(shape)
    if made is None:
        made = code.steps[shape] = step_factory(updates, index, adds, dels) or _NO_RULE
    if made is _NO_RULE:
        return never_step
    return made(*step_params(updates, index, adds, dels, numbers))  # type: ignore[operator]


def step_params(updates: tuple[GroundUpdate, ...], index: FluentIndex, adds: frozenset[Atom],
                dels: frozenset[Atom], numbers: list[int]) -> list:
    """``step_text``'s parameters in its order: the index, the set fluents' numbers (each once, first
    use first), each update's value read by number, then the deletes and adds."""
    params: list = [index]
    seen: set[int] = set()
    for n in numbers:
        if n not in seen:
            seen.add(n)
            params.append(n)
    for u in updates:
        _expr_leaves(u.value, index.number, params)
    if dels:
        params += [dels, adds]
    if adds:
        params.append(adds)
    return params
