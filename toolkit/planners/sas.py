"""The task pgt already grounded, written as Fast Downward's SAS input (no second translation).

``pgt plan`` grounds every task anyway (the default planner decides from the
grounded size), so running FD's translator afterwards parses and grounds the
same task a second time: about 0.3 s per call, most of FD's own time on small
IPC tasks. Where the grounded task is plain STRIPS (conjunctive preconditions
and goal, no conditional effects, integer action costs) it maps one-to-one
onto SAS with one binary variable per fluent atom, which FD's search reads
directly. Anything else returns None and goes through FD's translator as
before, so the fast path never changes what can be solved.

Variables are multi-valued where pgt's invariants prove mutex groups
(:mod:`toolkit.planners.sas_groups`: the encoding FD's translator makes, so its
search runs on the same kind of states), binary for every other atom; the mutex
groups are written too, for the configurations that read them (lama-first's
landmarks). The plan is re-checked against the task like any other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from toolkit import model as m
from toolkit.model import Atom
from toolkit.grounding import CompiledEffect
from toolkit.planners.base import compiled_goal
from toolkit.planners.sas_groups import Encoding, candidate_groups, choose_groups
from toolkit.task import GroundAction, Task


def _is_int(cost: m.Number | None) -> bool:
    return cost is not None and cost >= 0 and float(cost).is_integer()


class _Conditional(Exception):
    """An operator would change this variable under a condition: its group must stay binary atoms."""

    def __init__(self, var: int) -> None:
        super().__init__(var)
        self.var = var


def task_to_sas(task: Task, state: frozenset[Atom], goal: m.Condition, mutexes: bool = True) -> str | None:
    """``output.sas`` text for the task from ``state`` to ``goal``, or None where it is not plain STRIPS.

    With ``mutexes`` (the default) the encoding FD's translator makes: atoms of one
    proven mutex group share a variable, and variables the goal does not depend on
    are left out; without, every fluent atom is its own binary variable.
    """
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
    fluent_set = set(fluent)
    for atoms in (goal_c.pos, goal_c.neg):
        for atom in atoms:
            if atom not in fluent_set and (atom in state) != (atoms is goal_c.pos):
                return None  # a static goal literal that is false: leave the verdict to FD's translator
    used = [(act, eff) for act, eff in zip(actions, effects) if act.cost is not None]
    candidates: list[frozenset[Atom]] = []
    if mutexes:
        negated = frozenset(goal_c.neg).union(*(act.precondition.neg for act, _ in used))
        candidates = candidate_groups(task, state, fluent, negated)
    while True:
        enc = Encoding(choose_groups(candidates, fluent))
        ops, conditional = [], set()
        for act, eff in used:
            try:
                op = _operator(act, eff, enc, state)
            except _Conditional as exc:  # FD would write a conditional effect: this group stays binary
                conditional.add(frozenset(enc.variables[exc.var]))
                continue
            if op is not None:
                ops.append(op)
        if not conditional:
            break
        # The variable's atoms are its source group's less those an earlier choice took: drop every group
        # holding them (the source among them, so this ends), all at once (one more pass, not one per group).
        candidates = [g for g in candidates if not any(g >= atoms for atoms in conditional)]
    goal_values: dict[int, int] = {}
    for atoms, negated in ((goal_c.pos, False), (goal_c.neg, True)):
        for atom in atoms:
            if atom in enc.value:
                v, val = enc.value[atom][0], 1 if negated else enc.value[atom][1]  # negated: binary
                if goal_values.setdefault(v, val) != val:
                    return _UNSOLVABLE  # two values of one variable (FD: "Goal violates a mutex")
    kept = _necessary(ops, goal_values) if mutexes else set(range(len(enc.variables)))
    order = sorted(kept)
    new = {v: i for i, v in enumerate(order)}
    ops = [op for op in ops if not op.post.keys().isdisjoint(kept)]
    init = enc.state_values(state)
    with_none = {v for v in order if init[v] == enc.none_value(v)}
    with_none.update(v for op in ops for v, val in op.post.items() if val == enc.none_value(v))
    out = ["begin_version", "3", "end_version", "begin_metric", "1" if task.uses_costs else "0", "end_metric",
           str(len(order))]
    for v in order:
        names = enc.value_names(v, v in with_none)
        out.append(f"begin_variable\nvar{new[v]}\n-1\n{len(names)}\n" + "\n".join(names) + "\nend_variable")
    mutex_groups = [facts for facts in ([(new[v], val) for v, val in sorted(enc.value[a] for a in g) if v in new]
                                        for g in candidates) if len({v for v, _ in facts}) > 1]
    out.append(str(len(mutex_groups)))
    for facts in mutex_groups:
        out += ["begin_mutex_group", str(len(facts)), *(f"{v} {val}" for v, val in facts), "end_mutex_group"]
    out += ["begin_state", *(str(init[v]) for v in order), "end_state",
            "begin_goal", str(len(goal_values)), *(f"{new[v]} {val}" for v, val in sorted(goal_values.items())),
            "end_goal", str(len(ops)), *(op.text(new) for op in ops), "0"]  # no axioms
    return "\n".join(out) + "\n"


def _necessary(ops: list[_Op], goal: dict[int, int]) -> set[int]:
    """The variables the goal depends on: goal variables and their ancestors in the causal graph.

    FD's translator keeps only these (``variable_order.CausalGraph``,
    ``calculate_important_vars``: pre -> effect arcs, prevail and precondition
    variables as sources); an operator left without effects on them is dropped.
    """
    preds: dict[int, set[int]] = {}
    for op in ops:
        for target in op.post:
            preds.setdefault(target, set()).update(v for v in op.pre if v != target)
    necessary: set[int] = set()
    stack = list(goal)
    while stack:
        v = stack.pop()
        if v not in necessary:
            necessary.add(v)
            stack.extend(preds.get(v, ()))
    return necessary


@dataclass(frozen=True)
class _Op:
    """One SAS operator: precondition and effect values by variable."""

    name: str
    pre: dict[int, int]
    post: dict[int, int]
    cost: int

    def text(self, new: dict[int, int]) -> str:
        """The ``begin_operator`` block, variables renumbered by ``new`` (effects on others left out)."""
        post = sorted((new[v], self.pre.get(v, -1), val) for v, val in self.post.items() if v in new)
        prevail = sorted((new[v], val) for v, val in self.pre.items() if v not in self.post and v in new)
        lines = ["begin_operator", self.name, str(len(prevail)), *(f"{v} {val}" for v, val in prevail),
                 str(len(post)), *(f"0 {v} {pre} {val}" for v, pre, val in post), str(self.cost), "end_operator"]
        return "\n".join(lines)


# FD's translator's task for a goal that violates a mutex (``unsolvable_sas_task``): one binary
# variable, a goal value the initial state lacks, no operators.
_UNSOLVABLE = "\n".join([
    "begin_version", "3", "end_version", "begin_metric", "0", "end_metric", "1",
    "begin_variable", "var0", "-1", "2", "Atom unsolvable()", "NegatedAtom unsolvable()", "end_variable",
    "0", "begin_state", "1", "end_state", "begin_goal", "1", "0 0", "end_goal", "0", "0"]) + "\n"


def _operator(act: GroundAction, eff: CompiledEffect, enc: Encoding,
              state: frozenset[Atom]) -> _Op | None:
    """One operator, or None where it can never fire or changes nothing.

    The effects follow FD's ``translate_strips_operator_aux``: an add sets the
    atom's value; a delete sets ``<none of those>`` where the precondition says the
    atom is true, and is nothing where the precondition fixes another value of the
    group (the atom is false then); a delete the precondition leaves open would be
    FD's conditional effect and raises :class:`_Conditional`.
    """
    pre: dict[int, int] = {}
    for atoms, negated in ((act.precondition.pos, False), (act.precondition.neg, True)):
        for atom in atoms:
            hit = enc.value.get(atom)
            if hit is None:
                if (atom in state) == negated:
                    return None  # a static literal that is false
                continue
            v, val = hit
            if negated:
                val = 1  # negated atoms are binary variables (never grouped)
            if pre.get(v, val) != val:
                return None  # two values of one variable, or p and not p
            pre[v] = val
    post: dict[int, int] = {}
    added_vars = {enc.value[a][0] for a in eff.adds}
    for atom in eff.dels:
        v, val = enc.value[atom]
        if v in added_vars:
            continue  # an add of the group sets the variable anyway (add after delete, as in PDDL)
        if not enc.is_group(v) or pre.get(v) == val:
            post[v] = enc.none_value(v)
        elif v not in pre:
            raise _Conditional(v)
        # else: the precondition fixes another value of the group, so the atom is false: nothing to delete
    adds: dict[int, int] = {}
    for atom in eff.adds:
        v, val = enc.value[atom]
        if adds.setdefault(v, val) != val:
            raise _Conditional(v)  # two atoms of one group at once (never, by the invariant): stay binary
        post[v] = val
    # An effect that restates its own precondition changes nothing: it stays a prevail condition.
    post = {v: val for v, val in post.items() if pre.get(v) != val}
    if not post:
        return None  # changes nothing: no optimal plan uses it (and FD's search refuses it)
    return _Op(f"{act.name} {' '.join(act.args)}".rstrip(), pre, post, int(act.cost) if act.cost is not None else 1)


def sas_variables(text: str) -> Iterable[list[str]]:
    """Each variable of a SAS file as the atom names of its values (for tests and debugging)."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line == "begin_variable":
            size = int(lines[i + 3])
            yield [name.removeprefix("Atom ") for name in lines[i + 4:i + 4 + size] if name.startswith("Atom ")]
