"""The strata of a domain's derived predicates: which must be final before which.

A pure function of the model (no parser, no semantics), shared by the loader,
which refuses rules that are not stratifiable, and :mod:`toolkit.derived`, which
closes a state stratum by stratum.
"""

from __future__ import annotations

from toolkit import model as m


def body_uses(cond: m.Condition, positive: bool, out: set[tuple[str, bool]]) -> None:
    """Collect (predicate, occurs positively) for every atom of ``cond`` in negation normal form."""
    if isinstance(cond, m.Pred):
        out.add((cond.predicate, positive))
    elif isinstance(cond, m.Not):
        body_uses(cond.arg, not positive, out)
    elif isinstance(cond, (m.And, m.Or)):
        for p in cond.parts:
            body_uses(p, positive, out)
    elif isinstance(cond, m.Imply):
        body_uses(cond.premise, not positive, out)
        body_uses(cond.conclusion, positive, out)
    elif isinstance(cond, (m.Exists, m.Forall)):
        body_uses(cond.body, positive, out)


def strata(rules: tuple[m.DerivedRule, ...]) -> dict[str, int] | tuple[str, str]:
    """Each derived predicate's stratum (0 first), or (head, used) of a rule on a cycle through negation.

    A predicate sits at least as high as every derived predicate its rules use
    positively and strictly higher than those they use negatively (the textbook
    iteration, as ``compute_axiom_layers`` in Fast Downward's translator). A level
    past the number of predicates means a cycle through negation.
    """
    derived = {r.predicate for r in rules}
    edges: list[tuple[str, str, bool]] = []
    for r in rules:
        uses: set[tuple[str, bool]] = set()
        body_uses(r.body, True, uses)
        edges += [(r.predicate, p, pos) for p, pos in sorted(uses) if p in derived]
    level = dict.fromkeys(derived, 0)
    changed = True
    while changed:
        changed = False
        for head, used, pos in edges:
            need = level[used] + (0 if pos else 1)
            if level[head] < need:
                level[head] = need
                changed = True
                if need > len(derived):  # some negative edge lies on a cycle: name it
                    return next(((h, u) for h, u, p in edges if not p and _reaches(edges, u, h)), (head, used))
    return level


def _reaches(edges: list[tuple[str, str, bool]], start: str, goal: str) -> bool:
    seen, todo = {start}, [start]
    while todo:
        at = todo.pop()
        if at == goal:
            return True
        for h, u, _ in edges:
            if h == at and u not in seen:
                seen.add(u)
                todo.append(u)
    return False
