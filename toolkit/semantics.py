"""PDDL semantics on compiled ground structures: evaluate, explain, apply.

A state is a ``frozenset`` of true atoms (closed world). Applying an action
evaluates every conditional effect in the *old* state, then computes
``(state - deletes) | adds``: deletes before adds, so an atom both added and
deleted ends up true.
"""

from __future__ import annotations

from toolkit.records import record

from toolkit.fluents import GCompare
from toolkit.grounding import Bindings, CompiledCondition, CompiledEffect, GAnd, GLit, GNode, GOr
from toolkit.model import Atom


@record(slots=True)
class Unmet:
    """One reason a condition is false: a literal (or a disjunction) that fails.

    ``atom``/``positive`` are set for a single literal; a failing disjunction has
    ``atom`` None and its text in ``literal``. ``bindings`` are the quantified
    variables (``?x`` -> object) under which it fails.
    """

    literal: str
    atom: Atom | None = None
    positive: bool = True
    bindings: Bindings = ()
    detail: str = ""  # a numeric condition's values, e.g. "12 > 10"

    def __str__(self) -> str:
        if not self.bindings:
            return self.literal
        where = ", ".join(f"{v}={o}" for v, o in self.bindings)
        return f"{self.literal} [with {where}]"


def node_holds(node: GNode, state: frozenset[Atom]) -> bool:
    """Whether a ground condition tree holds in ``state`` (also the derived-rule fixpoint's body check)."""
    if node is True or node is False:
        return node
    if isinstance(node, GLit):
        return (node.atom in state) == node.positive
    if isinstance(node, GAnd):
        return all(node_holds(p, state) for p in node.parts)
    if isinstance(node, GCompare):
        return node.holds(state)
    return any(node_holds(p, state) for p in node.parts)


def holds(cond: CompiledCondition, state: frozenset[Atom]) -> bool:
    """Whether a compiled ground condition is true in ``state``."""
    if not cond.pos <= state or not state.isdisjoint(cond.neg):
        return False
    return cond.tree is None or node_holds(cond.tree, state)


def _explain_node(node: GNode, state: frozenset[Atom], out: list[Unmet]) -> None:
    if node is True:
        return
    if node is False:
        out.append(Unmet("(contradiction: can never hold)"))
    elif isinstance(node, GLit):
        if (node.atom in state) != node.positive:
            out.append(Unmet(str(node), node.atom, node.positive, node.bindings))
    elif isinstance(node, GAnd):
        for p in node.parts:
            _explain_node(p, state, out)
    elif isinstance(node, GCompare):
        why = node.why_not(state)
        if why is not None:
            out.append(Unmet(str(node), None, True, node.bindings, why))
    elif isinstance(node, GOr) and not node_holds(node, state):
        failing: list[Unmet] = []
        for p in node.parts:
            _explain_node(p, state, failing)
        if len(failing) == 1:
            out.append(failing[0])
        else:
            out.append(Unmet(str(node), None, True, node.bindings))


def _parts(node: GNode) -> int:
    if node is True:
        return 0
    if isinstance(node, GAnd):
        return sum(_parts(p) for p in node.parts)
    return 1  # a literal, comparison, disjunction or contradiction: one entry of explain()'s list


def condition_size(cond: CompiledCondition) -> int:
    """How many parts :func:`explain` can report for ``cond``: the ``N`` of "k of N conditions unmet".

    Conjunctions are counted by their parts at any depth, as :func:`explain` lists them
    (a numeric goal ``(and (<= ...) (<= ...) (<= ...))`` is three conditions, not one).
    """
    return len(cond.literals) + (0 if cond.tree is None else _parts(cond.tree))


def explain(cond: CompiledCondition, state: frozenset[Atom]) -> list[Unmet]:
    """Every literal (or disjunction) of ``cond`` that is false in ``state``; empty if it holds."""
    out: list[Unmet] = []
    for lit in cond.literals:
        if (lit.atom in state) != lit.positive:
            out.append(Unmet(str(lit), lit.atom, lit.positive, lit.bindings))
    if cond.tree is not None:
        _explain_node(cond.tree, state, out)
    return out


def effect_delta(effect: CompiledEffect, state: frozenset[Atom]) -> tuple[set[Atom], set[Atom], list[str]]:
    """Adds, deletes and the texts of the conditional effects that fire in ``state``."""
    adds, dels, fired = set(effect.adds), set(effect.dels), []
    for ce in effect.conditional:
        if ce.trigger is not None and ce.trigger not in state:
            continue
        if holds(ce.condition, state):
            adds |= ce.adds
            dels |= ce.dels
            fired.append(ce.text)
    return adds, dels, fired


def apply_effect(effect: CompiledEffect, state: frozenset[Atom]) -> frozenset[Atom]:
    """The successor state; does not check preconditions."""
    if not effect.conditional:
        return (state - effect.dels) | effect.adds
    adds, dels = effect.adds, effect.dels
    extra_adds: list[frozenset[Atom]] = []
    extra_dels: list[frozenset[Atom]] = []
    for ce in effect.conditional:
        if ce.trigger is not None and ce.trigger not in state:
            continue
        if holds(ce.condition, state):
            extra_adds.append(ce.adds)
            extra_dels.append(ce.dels)
    if extra_adds:
        adds = adds.union(*extra_adds)
        dels = dels.union(*extra_dels)
    return (state - dels) | adds
