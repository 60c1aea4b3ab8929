"""Print the toolkit model back to canonical PDDL text.

Used to hand a task to external planners (Fast Downward through
unified-planning's PDDL reader) and as the stable domain key of the plan cache:
the same domain gives the same text whatever its original formatting.
"""

from __future__ import annotations

import hashlib
import re
from typing import Mapping

from toolkit import model as m
from toolkit.model import Atom


def distinct(names: list[str]) -> list[str]:
    """The names with repeats made unique by a positional suffix.

    PDDL lets a declaration repeat a parameter name (logistics' ``(in ?obj ?obj)``);
    planners and UP key parameters by name and would lose one.
    """
    out: list[str] = []
    for i, name in enumerate(names):
        while name in out:
            name = f"{name}_{i}"
        out.append(name)
    return out


def _declared(params: tuple[m.Param, ...]) -> str:
    """Declared (predicate or function) parameters, names made distinct: only arity and types matter."""
    return m.format_params(tuple(zip(distinct([v for v, _ in params]), (t for _, t in params))))


def _typed(names_types: list[tuple[str, str]]) -> str:
    by_type: dict[str, list[str]] = {}
    for name, t in names_types:
        by_type.setdefault(t, []).append(name)
    return " ".join(f"{' '.join(sorted(ns))} - {t}" for t, ns in sorted(by_type.items()))


# Fast Downward refuses a type named "number" (its name for function values; IPC 2004's promela
# domains declare one). Types never appear in a plan, so the planners get it under another name.
_NUMBER = "number"
_NUMBER_RENAMED = "pgt_number_type"


def _reserved_renamed(domain: m.Domain, text: str) -> str:
    """``text`` with the type ``number`` (where the domain declares one) renamed, in typed lists and ``either``."""
    if _NUMBER not in domain.types:
        return text
    text = re.sub(r"\(either [^()]*\)", lambda mt: re.sub(r"(?<= )number(?![\w-])", _NUMBER_RENAMED, mt.group()), text)
    return re.sub(r"(?<=- )number(?![\w-])", _NUMBER_RENAMED, text)


def domain_to_pddl(domain: m.Domain) -> str:
    """The domain as canonical PDDL (requirements made explicit and complete)."""
    reqs = ":strips :typing :negative-preconditions :disjunctive-preconditions :equality " \
           ":quantified-preconditions :conditional-effects" + (" :action-costs" if domain.has_costs else "") \
           + (" :derived-predicates" if domain.derived else "")
    lines = [f"(define (domain {domain.name})", f"  (:requirements {reqs})"]
    if domain.types:
        types = _typed(sorted(domain.types.items()))
        if _NUMBER in domain.types:  # a declared name here, not only a "- parent"
            types = re.sub(r"(?<![\w-])number(?![\w-])", _NUMBER_RENAMED, types)
        lines.append(f"  (:types {types})")
    if domain.constants:
        lines.append(f"  (:constants {_typed(sorted(domain.constants.items()))})")
    preds = " ".join(f"({p.name}{' ' + _declared(p.params) if p.params else ''})"
                     for p in domain.predicates.values())
    lines.append(f"  (:predicates {preds})")
    if domain.functions:
        funcs = " ".join(f"({f.name}{' ' + _reserved_renamed(domain, _declared(f.params)) if f.params else ''})"
                         " - number" for f in domain.functions.values())  # the value type, never renamed
        lines.append(f"  (:functions {funcs})")
    lines += [f"  {rule}" for rule in domain.derived]
    for a in domain.actions.values():
        lines.append(f"  (:action {a.name}")
        lines.append(f"    :parameters ({m.format_params(a.params)})")
        lines.append(f"    :precondition {a.precondition}")
        lines.append(f"    :effect {a.effect_text()})")
    lines.append(")")
    return "\n".join(line if line.startswith("  (:functions") else _reserved_renamed(domain, line)
                     for line in lines) + "\n"


def problem_to_pddl(domain: m.Domain, objects: dict[str, str], init: frozenset[Atom], goal: m.Condition,
                    name: str = "p", costs: Mapping[Atom, m.Number] | None = None) -> str:
    """A problem with the given objects (not constants), initial state and goal.

    ``costs`` (the static cost function values) makes it an action-cost problem:
    those values, ``(= (total-cost) 0)`` and ``(:metric minimize (total-cost))``.
    """
    objs = {o: t for o, t in objects.items() if o not in domain.constants}
    init_text = " ".join(str(a) for a in sorted(init) if a.predicate not in domain.derived_predicates)
    metric = ""
    if costs is not None:
        values = {**costs, Atom(m.TOTAL_COST, ()): 0}
        init_text += "".join(f" (= {a} {m.format_number(v)})" for a, v in sorted(values.items()))
        metric = f"\n  (:metric minimize ({m.TOTAL_COST}))"
    return (f"(define (problem {name}) (:domain {domain.name})\n"
            f"  (:objects {_reserved_renamed(domain, _typed(sorted(objs.items())))})\n"
            f"  (:init {init_text})\n"
            f"  (:goal {goal}){metric})\n")


def domain_key(domain: m.Domain) -> str:
    """A short stable hash of the domain's canonical text."""
    return hashlib.sha256(domain_to_pddl(domain).encode()).hexdigest()[:16]
