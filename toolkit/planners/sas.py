"""The task pgt already grounded, written as Fast Downward's SAS input (no second translation).

``pgt plan`` grounds every task anyway (the default planner decides from the
grounded size), so running FD's translator afterwards parses and grounds the
same task a second time: about 0.3 s per call, most of FD's own time on small
IPC tasks. Where the grounded task is plain STRIPS (conjunctive preconditions
and goal, no conditional effects, integer action costs) it maps one-to-one
onto SAS with one binary variable per fluent atom, which FD's search reads
directly. Anything else returns None and goes through FD's translator as
before, so the fast path never changes what can be solved.

Binary variables without the translator's mutex groups give the same
optimal plan costs (LM-cut and hmax are computed on the same facts); the
plan is re-checked against the task like any other.
"""

from __future__ import annotations

from typing import Iterable

from toolkit import model as m
from toolkit.model import Atom
from toolkit.grounding import CompiledEffect
from toolkit.planners.base import compiled_goal
from toolkit.task import GroundAction, Task


def _atom_name(atom: Atom) -> str:
    return f"{atom.predicate}({', '.join(atom.args)})"


def _is_int(cost: m.Number | None) -> bool:
    return cost is not None and cost >= 0 and float(cost).is_integer()


def task_to_sas(task: Task, state: frozenset[Atom], goal: m.Condition) -> str | None:
    """``output.sas`` text for the task from ``state`` to ``goal``, or None where it is not plain STRIPS."""
    if task.derived is not None:
        return None  # axioms: Fast Downward's translator writes them
    actions = task.grounding(state).actions
    goal_c = compiled_goal(task, goal)
    if not goal_c.is_conjunctive:
        return None
    effects = []
    for act in actions:
        eff = act.effect  # built on first use: fetched once per action
        if eff.conditional or not act.precondition.is_conjunctive or (act.cost is not None and not _is_int(act.cost)):
            return None
        effects.append(eff)
    fluent = sorted({atom for eff in effects for atom in (*eff.adds, *eff.dels)})
    var = {atom: i for i, atom in enumerate(fluent)}
    goal_pairs = []
    for atoms, value in ((goal_c.pos, 0), (goal_c.neg, 1)):
        for atom in atoms:
            if atom in var:
                goal_pairs.append((var[atom], value))
            elif (atom in state) != (value == 0):
                return None  # a static goal literal that is false: leave the verdict to FD's translator
    ops = [op for op in (_operator(act, eff, var, state) for act, eff in zip(actions, effects) if act.cost is not None)
           if op is not None]
    out = ["begin_version", "3", "end_version", "begin_metric", "1" if task.uses_costs else "0", "end_metric",
           str(len(fluent))]
    for i, atom in enumerate(fluent):
        name = _atom_name(atom)
        out.append(f"begin_variable\nvar{i}\n-1\n2\nAtom {name}\nNegatedAtom {name}\nend_variable")
    out += ["0", "begin_state", *("0" if atom in state else "1" for atom in fluent), "end_state",
            "begin_goal", str(len(goal_pairs)), *(f"{v} {val}" for v, val in sorted(goal_pairs)), "end_goal",
            str(len(ops)), *ops, "0"]  # no axioms
    return "\n".join(out) + "\n"


def _operator(act: GroundAction, eff: CompiledEffect, var: dict[Atom, int], state: frozenset[Atom]) -> str | None:
    """One ``begin_operator`` block, or None where it can never fire or changes nothing."""
    pre: dict[int, int] = {}
    for atoms, value in ((act.precondition.pos, 0), (act.precondition.neg, 1)):
        for atom in atoms:
            v = var.get(atom)
            if v is not None:
                if pre.get(v, value) != value:
                    return None  # p and not p
                pre[v] = value
            elif (atom in state) != (value == 0):
                return None
    post: dict[int, int] = {var[a]: 1 for a in eff.dels}
    for a in eff.adds:  # add after delete, as in PDDL
        post[var[a]] = 0
    # An effect that restates its own precondition changes nothing: it stays a prevail condition.
    post = {v: val for v, val in post.items() if pre.get(v) != val}
    if not post:
        return None  # changes nothing: no optimal plan uses it (and FD's search refuses it)
    prevail = sorted((v, val) for v, val in pre.items() if v not in post)
    cost = int(act.cost) if act.cost is not None else 1
    lines = ["begin_operator", f"{act.name} {' '.join(act.args)}".rstrip(), str(len(prevail))]
    lines += [f"{v} {val}" for v, val in prevail]
    lines.append(str(len(post)))
    lines += [f"0 {v} {pre.get(v, -1)} {val}" for v, val in sorted(post.items())]
    lines += [str(cost), "end_operator"]
    return "\n".join(lines)


def sas_variables(text: str) -> Iterable[str]:
    """The atom names of a SAS file's variables (for tests and debugging)."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line == "begin_variable":
            yield lines[i + 4].removeprefix("Atom ")
