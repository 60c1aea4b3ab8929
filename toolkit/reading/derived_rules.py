"""``(:derived ...)`` rules (PDDL 2.2 derived predicates) into the model, checked where they are written.

Both readers hand over the ``pddl`` package's ``DerivedPredicate`` objects (the
package keeps them in a set); :func:`read_derived` puts them back in file order,
converts head and body with the loader's :class:`~toolkit.reading.convert.Converter`
(so names, arity and types are checked as in actions), and :func:`check_derived`
refuses, located at the offending text, what PDDL 2.2 rules out: an action effect
on a derived predicate, and a cycle through negation (the rules must be
stratifiable, as Fast Downward's translator requires: ``translate/axiom_rules.py``,
``compute_axiom_layers``; VAL does not check it, and its top-down evaluation would
give such rules no fixed meaning).
"""

from __future__ import annotations

import re

from toolkit import model as m
from toolkit.errors import DerivedRuleError
from toolkit.reading.convert import Converter
from toolkit.reading.text import line_col, written_var
from toolkit.strata import strata

_DERIVED_RE = re.compile(r"\(\s*:derived\s*\(\s*([^\s()]+)", re.I)


def derived_starts(pderived, code: str) -> list[tuple[object, int]]:
    """The package's derived rules in file order, each with the offset of its ``(:derived``.

    The offset only locates errors; several rules of one predicate share their
    predicate's starts in order (the package's set keeps no file order).
    """
    spots: dict[str, list[int]] = {}
    for mt in _DERIVED_RE.finditer(code):
        spots.setdefault(mt.group(1).lower(), []).append(mt.start())
    by_name: dict[str, list] = {}
    for dp in sorted(pderived, key=str):
        by_name.setdefault(str(dp.predicate.name).lower(), []).append(dp)
    out = []
    for name, rules in by_name.items():
        starts = spots.get(name, [])
        for k, dp in enumerate(rules):
            out.append((dp, starts[k] if k < len(starts) else len(code)))
    return sorted(out, key=lambda pair: pair[1])


def read_derived(pdom, conv: Converter, code: str) -> tuple[m.DerivedRule, ...]:
    """Every ``(:derived ...)`` of the parsed domain as a :class:`~toolkit.model.DerivedRule`, in file order."""
    rules: list[m.DerivedRule] = []
    pderived = getattr(pdom, "derived_predicates", ()) or ()
    if not pderived:  # most domains: no scan of the file for (:derived
        return ()
    for dp, start in derived_starts(pderived, code):
        conv.at(start)
        head = conv._recover(lambda dp=dp: conv.atom(dp.predicate, {written_var(str(v.name)).lower():
                                                                  written_var(str(v.name)) for v in dp.predicate.terms}),
                             None)
        if head is None:
            continue
        decl = conv.predicates[head.predicate]
        params = []
        for (var, types), (_, declared) in zip(conv.params(dp.predicate.terms), decl.params):
            params.append((var, declared if types == ("object",) else types))  # untyped: the declaration's types
        scope = {v.lower(): v for v, _ in params}
        conv.used_requirements.add(":derived-predicates")
        rules.append(m.DerivedRule(head.predicate, tuple(params), conv.condition(dp.condition, scope)))
    return tuple(rules)


def check_derived(rules: tuple[m.DerivedRule, ...], actions: dict[str, m.ActionSchema], path: str,
                  text: str, code: str) -> None:
    """Refuse an action that changes a derived predicate and a cycle through negation, located."""
    if not rules:
        return
    derived = {r.predicate for r in rules}
    for action in actions.values():
        for pred in sorted(m.effect_predicates(action.effect) & derived):
            mt = re.search(r"\(\s*:action\s+" + re.escape(action.name) + r"(?![\w-])", code, re.I)
            line, col = line_col(text, mt.start()) if mt else (None, None)
            raise DerivedRuleError(path, line, col, f"action '{action.name}' changes the derived predicate '{pred}' "
                                                   "(PDDL 2.2: derived predicates are defined by their rules only)")
    result = strata(rules)
    if isinstance(result, tuple):
        head, used = result
        mt = re.search(r"\(\s*:derived\s*\(\s*" + re.escape(head) + r"(?![\w-])", code, re.I)
        line, col = line_col(text, mt.start()) if mt else (None, None)
        raise DerivedRuleError(path, line, col, f"derived predicate '{head}' depends negatively on '{used}', which "
                                               f"depends on '{head}': a cycle through negation (the rules must be "
                                               "stratifiable)")
