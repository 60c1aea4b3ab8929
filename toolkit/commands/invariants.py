"""``pgt invariants``: the mutual exclusions a domain's actions preserve, checked on a problem.

A domain author sees which "exactly one" / "at most one" facts the action model
guarantees (and so which answers a grounding agent can cross-check), and whether a
problem's initial state respects them: a preserved group that the initial state
breaks usually means a typo in ``:init``.
"""

from __future__ import annotations

import argparse
import json

from toolkit.domains import add_task_arguments, load_task_args


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "invariants", help="mutual exclusions the actions preserve, and whether a problem's init respects them",
        description="Derive invariant groups (at most / exactly one true atom) from the ground actions of a problem, "
                    "then check them on its initial state.")
    add_task_arguments(p)
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from toolkit.invariants import find_patterns, groups, invariants_of, violations

    task = load_task_args(args)
    holding = invariants_of(task)
    holding_members = {p.members for p in holding}
    rows = []
    for pattern in find_patterns(task):
        broken = [g for g in groups(task, [pattern]) if violations(g, task.init)]
        rows.append({"pattern": str(pattern), "holds_initially": pattern.members in holding_members,
                     "groups": len(groups(task, [pattern])),
                     "broken_in_init": [f"{', '.join(g.key) or '-'}: {sorted(map(str, g.atoms & task.init))}"
                                        for g in broken][:5]})
    if args.json:
        print(json.dumps({"domain": task.domain.name, "problem": task.problem.name,
                          "invariants": [str(p) for p in holding], "preserved": rows}, indent=2))
        return 0
    print(f"# {task.domain.name} / {task.problem.name}: {len(holding)} invariants hold in the initial state")
    for p in holding:
        n = len(groups(task, [p]))
        print(f"  {p}  ({n} group{'s' if n != 1 else ''})")
    other = [r for r in rows if not r["holds_initially"]]
    if other:
        print("# preserved by every action, but not true initially (no constraint for this problem):")
        for r in other:
            where = f"; e.g. {r['broken_in_init'][0]}" if r["broken_in_init"] else ""
            print(f"  {r['pattern']}{where}")
    return 0
