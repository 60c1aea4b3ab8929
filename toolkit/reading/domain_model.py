"""A read domain (the plain reader's forms or the full parser's ``pddl`` objects) assembled into a :class:`~toolkit.model.Domain`.

The declarations (types, constants, predicates, functions), the actions in file order, the
derived rules, and the warnings about undeclared requirements: what
:func:`toolkit.loader.read_domain` builds from either reader. :func:`direct_domain` is the
same assembly for a plain domain whose actions :class:`~toolkit.reading.direct_actions.DirectActions`
builds in one pass; it declines (None) on anything that would be reported or read otherwise,
and the loader's two-pass path then reads the file, with every message it owns.
"""

from __future__ import annotations

from types import SimpleNamespace

from toolkit import model as m
from toolkit.errors import PgtError
from toolkit.plain_domain import redeclared_warnings
from toolkit.plain_problem import _NotPlain
from toolkit.reading.build import (action_starts, declaration_words, declared_params, fold_costs, functions_of,
                                   none_if_empty, predicate_comments, types_of)
from toolkit.reading.collect import Errors, record_duplicates
from toolkit.reading.convert import Converter, Scope, type_tuple
from toolkit.reading.derived_rules import check_derived, read_derived
from toolkit.reading.direct_actions import DirectActions
from toolkit.reading.text import ROOT, blank_comments, located, name_pattern, offset_of


def direct_domain(text: str, path: str, pdom: SimpleNamespace, declared: frozenset[str], warnings: list[str],
                  notes: list[str], errors: Errors) -> m.Domain | None:
    """The domain of a lazily read plain domain (``read_plain_domain(code, lazy=True)``), its actions built in
    one pass; None where anything is not plain or would be an error (``errors``, the load's collector, untouched)."""
    if errors.items or errors.invented_types or errors.borrowed:
        return None
    scratch = Errors(path)
    scratch.warnings = list(errors.warnings)
    try:
        if pdom.redeclared:
            scratch.warnings += redeclared_warnings(path, text, pdom.redeclared)
        domain = assemble(text, path, pdom, declared, list(warnings), notes, scratch, direct=True)
    except (_NotPlain, PgtError, RecursionError):
        return None
    if scratch.items or scratch.borrowed:
        return None
    return domain


def assemble(text: str, path: str, pdom, declared: frozenset[str], warnings: list[str], notes: list[str],
             errors: Errors, direct: bool = False) -> m.Domain:
    """The model of a read domain; ``direct``: ``pdom``'s actions are s-expressions for :class:`DirectActions`."""
    warnings += errors.warnings
    if not direct:  # the plain reader refuses what it would find (a name or variable listed twice)
        record_duplicates(text, path, errors)
    types = {t: p for t, p in types_of(pdom).items() if t not in errors.invented_types}
    # Where the errors and warnings about types point from: sought only where one is possible (the one-pass
    # path declines at any error, and warns here only of an undeclared parent).
    declared_types = {t.lower() for t in types} | {"object", ROOT}
    undeclared = dict.fromkeys(p for p in types.values() if p and p.lower() not in declared_types)
    code = blank_comments(text)
    types_at = offset_of(code, r"\(\s*:types\b") if undeclared or not direct else 0
    for parent in undeclared:
        # IPC 2014's tetris writes "one_square two_straight - pieces" and never lists pieces:
        # FD and VAL read it as a type under object, and so do we (lint warns).
        types[parent] = "object"
        declared_types.add(parent.lower())
        where = located(path, text, name_pattern(parent), types_at)
        warnings.append(f"{where}: type '{parent}' is a parent in :types but is not declared; read as a subtype of object")
    type_scope = Scope(path, text, "type", [*types, "object"], errors)
    type_scope.start = types_at
    for child, parent in types.items():
        if parent != "object":
            types[child] = type_scope.resolve(parent, fallback="object")
    constants = {str(c.name): type_tuple(c.type_tags, type_scope)[0]
                 for c in sorted(pdom.constants, key=lambda c: str(c.name))}
    declarations = declaration_words(pdom, "predicate")
    comments = predicate_comments(text) if declarations else {}  # (the scan of the text only for a predicate's)
    predicates: dict[str, m.PredicateDef] = {}
    for name, variables in declarations:
        predicates[name] = m.PredicateDef(name, declared_params(variables, type_scope), comments.get(name.lower(), ""))
    functions = functions_of(pdom, type_scope, path, text)
    conv = Converter(path, text, predicates, Scope(path, text, "constant", constants, errors), type_scope,
                     functions, errors)
    if direct:
        actions = DirectActions(pdom.reader, conv).actions(pdom.action_items)
    else:
        actions = {}
        # Keep the file's order of actions (the pddl package returns a set).
        for a, start in action_starts(pdom.actions, code):
            conv.at(start)
            params = conv.params(a.parameters)
            scope = {v.lower(): v for v, _ in params}
            pre = conv.condition(none_if_empty(a.precondition), scope)
            eff, cost, numeric = conv.action_effect(none_if_empty(a.effect), scope)
            actions.setdefault(str(a.name), m.ActionSchema(str(a.name), params, pre, eff, cost, numeric))  # the first wins
    if conv.uses_numbers:  # numeric fluents: total-cost is a fluent like the others, its increases effects
        for name in [name for name, a in actions.items() if a.cost]:
            actions[name] = fold_costs(actions[name])
    derived = read_derived(pdom, conv, code)
    check_derived(derived, actions, path, text, code)
    for r in sorted(conv.used_requirements):
        implied = ({":adl", ":quantified-preconditions"} if "preconditions" in r and ("universal" in r or "existential" in r)
                   else set() if r in (":action-costs", ":derived-predicates")
                   else {":fluents"} if r == ":numeric-fluents" else {":adl"})
        if r not in declared and not (declared & implied):
            warnings.append(f"{path}: uses {r} without declaring it in :requirements")
    if (types or any(t != ("object",) for p in predicates.values() for _, t in p.params)) and ":typing" not in declared and ":adl" not in declared:
        warnings.append(f"{path}: uses types without declaring :typing in :requirements")
    return m.Domain(str(pdom.name), frozenset(declared), types, constants, predicates, actions,
                    path, text, tuple(warnings), functions, tuple(notes), conv.uses_numbers, derived,
                    frozenset(e.name for e in errors.borrowed))
