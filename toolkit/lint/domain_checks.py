"""Lint checks on a loaded domain (and the names its problems use).

Checks: undeclared requirements (from the loader's warnings) and declared but
unused ones; unused predicates, types and constants; static predicates (info);
effects that add and delete the same atom unconditionally.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from toolkit import model as m
from toolkit.lint.findings import Finding, Severity, at, from_warning
from toolkit.fluents import functions_in
from toolkit.loader import locate, name_pattern

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO


def walk_condition(c: m.Condition) -> Iterator[m.Condition]:
    yield c
    if isinstance(c, m.Not):
        yield from walk_condition(c.arg)
    elif isinstance(c, (m.And, m.Or)):
        for p in c.parts:
            yield from walk_condition(p)
    elif isinstance(c, m.Imply):
        yield from walk_condition(c.premise)
        yield from walk_condition(c.conclusion)
    elif isinstance(c, (m.Exists, m.Forall)):
        yield from walk_condition(c.body)


def walk_effect(e: m.Effect) -> Iterator[m.Effect | m.Condition]:
    """Effect nodes, plus every node of the conditions of ``when`` effects."""
    yield e
    if isinstance(e, m.AndEffect):
        for p in e.parts:
            yield from walk_effect(p)
    elif isinstance(e, m.ForallEffect):
        yield from walk_effect(e.body)
    elif isinstance(e, m.WhenEffect):
        yield from walk_condition(e.condition)
        yield from walk_effect(e.body)


def requirements_used(domain: m.Domain, goals: tuple[m.Condition, ...] = ()) -> set[str]:
    """The requirements the domain (and problem goals) actually need."""
    used = {":strips"}
    if domain.types or any(t != ("object",) for p in domain.predicates.values() for _, t in p.params):
        used.add(":typing")
    conds: list[m.Condition] = [*goals, *(r.body for r in domain.derived)]
    if domain.derived:
        used.add(":derived-predicates")
    for a in domain.actions.values():
        conds.append(a.precondition)
        for node in walk_effect(a.effect):
            if isinstance(node, (m.WhenEffect, m.ForallEffect)):
                used.add(":conditional-effects")
            elif not isinstance(node, (m.AddEffect, m.DelEffect, m.AndEffect)):
                conds.append(node)  # a when-condition's nodes
    for c in conds:
        for node in walk_condition(c):
            if isinstance(node, m.Not):
                used.add(":negative-preconditions")
            elif isinstance(node, (m.Or, m.Imply)):
                used.add(":disjunctive-preconditions")
            elif isinstance(node, m.Equals):
                used.add(":equality")
            elif isinstance(node, m.Exists):
                used |= {":existential-preconditions", ":quantified-preconditions"}
            elif isinstance(node, m.Forall):
                used |= {":universal-preconditions", ":quantified-preconditions"}
    if domain.has_costs:
        used.add(":action-costs")
    if domain.numeric or any(isinstance(n, m.Compare) for g in goals for n in walk_condition(g)):
        used |= {":numeric-fluents", ":fluents"}  # PDDL 3.1's :fluents covers numeric fluents
    if used & {":negative-preconditions", ":disjunctive-preconditions", ":equality", ":quantified-preconditions",
               ":conditional-effects"}:
        used.add(":adl")
    return used


def functions_used(domain: m.Domain, problems=()) -> set[str]:
    """The functions that actions (conditions, numeric effects, costs) and problems (goals, metric) use."""
    used: set[str] = set()
    conds = [a.precondition for a in domain.actions.values()]
    conds += [e.condition for a in domain.actions.values() for e in a.numeric]
    conds += [p.goal for p in problems]
    for c in conds:
        for node in walk_condition(c):
            if isinstance(node, m.Compare):
                used.update(functions_in(node.left), functions_in(node.right))
    for a in domain.actions.values():
        used.update(t.function for t in a.cost if isinstance(t, m.FTerm))
        for e in a.numeric:
            used.update(functions_in(e.target), functions_in(e.value))
    for p in problems:
        if p.metric_expr is not None:
            used.update(functions_in(p.metric_expr))
        if p.metric:
            used.add(m.TOTAL_COST)
    return used


def _names_in(domain: m.Domain) -> tuple[set[str], set[str], set[str], set[str]]:
    """Predicates read, predicates written, types used and terms used by the actions."""
    read, written, types, terms = set(), set(), set(), set()
    for a in domain.actions.values():
        types.update(t for _, ts in a.params for t in ts)
        for node in (*walk_condition(a.precondition), *walk_effect(a.effect)):
            if isinstance(node, m.Pred):
                read.add(node.predicate)
                terms.update(node.terms)
            elif isinstance(node, (m.AddEffect, m.DelEffect)):
                written.add(node.atom.predicate)
                terms.update(node.atom.terms)
            elif isinstance(node, m.Equals):
                terms.update((node.left, node.right))
            elif isinstance(node, m.Compare):
                terms.update(_expr_terms(node.left), _expr_terms(node.right))
            elif isinstance(node, (m.Exists, m.Forall, m.ForallEffect)):
                types.update(t for _, ts in node.params for t in ts)
        # a constant named in a function term is used (settlers' (available coal ?v))
        for e in a.numeric:
            terms.update(_expr_terms(e.target), _expr_terms(e.value))
            terms.update(t for n in walk_condition(e.condition) if isinstance(n, m.Compare)
                         for t in (*_expr_terms(n.left), *_expr_terms(n.right)))
        terms.update(t for c in a.cost if isinstance(c, m.FTerm) for t in c.terms)
    for r in domain.derived:  # a rule reads its body; its head is written by the rule, not by an action
        types.update(t for _, ts in r.params for t in ts)
        for node in walk_condition(r.body):
            if isinstance(node, m.Pred):
                read.add(node.predicate)
                terms.update(node.terms)
            elif isinstance(node, m.Equals):
                terms.update((node.left, node.right))
            elif isinstance(node, (m.Exists, m.Forall)):
                types.update(t for _, ts in node.params for t in ts)
    for p in domain.predicates.values():
        types.update(t for _, ts in p.params for t in ts)
    types.update(domain.constants.values())
    return read, written, types, terms


def _expr_terms(e: m.NumExpr) -> Iterator[str]:
    """The terms (variables and constants) of the function terms of a numeric expression."""
    if isinstance(e, m.FTerm):
        yield from e.terms
    elif isinstance(e, m.Arith):
        for arg in e.args:
            yield from _expr_terms(arg)


def _section(text: str, name: str) -> int:
    line, _ = locate(text, r"\(\s*:" + name + r"\b")
    if line is None:
        return 0
    return sum(len(x) + 1 for x in text.split("\n")[: line - 1])


def check_domain(domain: m.Domain, problems: tuple[m.Problem, ...] = ()) -> list[Finding]:
    """All domain-level findings (``problems`` count as users of names)."""
    out: list[Finding] = []
    path, text = domain.path, domain.source
    req_pat = r"\(\s*:requirements\b"
    for w in domain.warnings:
        mt = re.search(r"uses (:[\w-]+) without declaring it", w)
        if mt:
            out.append(at(W, "requirement-undeclared", f"uses {mt.group(1)} without declaring it in :requirements",
                          path, text, req_pat, f"add {mt.group(1)} to (:requirements ...)"))
        elif "is a parent in :types but is not declared" in w:
            out.append(from_warning("undeclared-type", w, path, "list it in (:types ...) too, e.g. as NAME - object"))
        elif "uses types without declaring :typing" in w:
            out.append(at(W, "requirement-undeclared", "uses types without declaring :typing in :requirements",
                          path, text, req_pat, "add :typing to (:requirements ...)"))
        elif "not declared in the domain's :constants" in w:
            continue  # an error to lint: lint_texts reports it from the load's borrowed names
        else:  # every other thing the loader read past (sections out of order, an ignored requirement, ...)
            out.append(from_warning("domain-warning", w, path,
                                    "pgt read past it as VAL does; fix it for tools that are stricter"))
    for note in domain.notes:
        out.append(Finding(I, "keyword-case", note.split(": ", 1)[-1], path, hint="write PDDL keywords in lower case"))
    used_reqs = requirements_used(domain, tuple(p.goal for p in problems))
    for r in sorted(domain.requirements - used_reqs):
        out.append(at(W, "requirement-unused", f"requirement {r} is declared but not used", path, text,
                      re.escape(r) + r"(?![\w-])", f"remove {r} from (:requirements ...)"))

    read, written, types_used, terms = _names_in(domain)
    in_problems = {a.predicate for p in problems for a in p.init}
    for p in problems:
        in_problems |= {n.predicate for n in walk_condition(p.goal) if isinstance(n, m.Pred)}
        terms |= {t for n in walk_condition(p.goal) if isinstance(n, m.Pred) for t in n.terms}
        terms |= {o for a in p.init for o in a.args}
        types_used |= set(p.objects.values())
    pstart = _section(text, "predicates")
    for name in domain.predicates:
        pat = r"\(\s*" + re.escape(name) + r"(?![\w-])"
        if name not in read and name not in written and name not in in_problems:
            if problems:
                out.append(at(W, "unused-predicate", f"predicate {name} is declared but never used", path, text,
                              pat, f"use ({name} ...) in an action, or delete its declaration", pstart))
            else:
                out.append(at(I, "unused-predicate", f"predicate {name} is not used by any action", path, text,
                              pat, "pass problem files to see whether problems use it", pstart))
        elif name not in written and name in read | in_problems and name not in domain.derived_predicates:
            out.append(at(I, "static-predicate", f"predicate {name} is static: no action changes it", path, text,
                          pat, "fine for fixed facts; if it should change, add it to an action's effect", pstart))
    needed = set()
    for t in types_used:
        needed.update(domain.ancestors(t))
    tstart = _section(text, "types")
    for t in domain.types:
        if t not in needed:
            out.append(at(W, "unused-type", f"type {t} is declared but never used", path, text,
                          name_pattern(t),
                          "use it for a parameter or object, or delete it from (:types ...)", tstart))
    cstart = _section(text, "constants")
    for c in domain.constants:
        if c not in terms:
            out.append(at(W, "unused-constant", f"constant {c} is declared but never used", path, text,
                          name_pattern(c),
                          "use it in an action or problem, or delete it from (:constants ...)", cstart))
    fstart = _section(text, "functions")
    used_functions = functions_used(domain, problems)
    for f in domain.functions:
        if f not in used_functions and (problems or f != m.TOTAL_COST):
            out.append(at(W if problems else I, "unused-function",
                          f"function {f} is declared but never used" if problems
                          else f"function {f} is not used by any action", path, text,
                          r"\(\s*" + re.escape(f) + r"(?![\w-])",
                          f"use ({f} ...) in a condition, an effect or a :metric, or delete its declaration", fstart))
    for a in domain.actions.values():
        out.extend(_add_delete_conflicts(domain, a))
    return out


def _top_effects(e: m.Effect) -> Iterator[m.Effect]:
    if isinstance(e, m.AndEffect):
        for p in e.parts:
            yield from _top_effects(p)
    else:
        yield e


def _add_delete_conflicts(domain: m.Domain, action: m.ActionSchema) -> list[Finding]:
    tops = list(_top_effects(action.effect))
    adds = {e.atom for e in tops if isinstance(e, m.AddEffect)}
    out = []
    for e in tops:
        if isinstance(e, m.DelEffect) and e.atom in adds:
            start = _effect_offset(domain.source, action.name)
            out.append(at(W, "add-delete-conflict",
                          f"action {action.name} adds and deletes {e.atom} unconditionally (PDDL applies deletes "
                          "first, so it always ends true)", domain.path, domain.source,
                          r"\(\s*not\s*\(\s*" + re.escape(e.atom.predicate) + r"(?![\w-])",
                          f"remove (not {e.atom}) or {e.atom} from the effect of {action.name}", start))
    return out


def _effect_offset(text: str, action: str) -> int:
    """Offset of the ``:effect`` keyword of an action (0 if not found)."""
    from toolkit.loader import _blank_comments

    code = _blank_comments(text)
    mt = re.search(r"\(\s*:action\s+" + re.escape(action) + r"(?![\w-])", code, re.I)
    eff = re.compile(r":effect\b", re.I).search(code, mt.end()) if mt else None
    return eff.start() if eff else 0
