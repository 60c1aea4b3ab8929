"""``pgt plan DOMAIN PROBLEM``: find a plan (every plan is re-checked before it is printed).

Prints the plan, one ``(action args)`` per line, then a ``;`` comment line with the
planner, status, length and time. Exit codes: 0 solved, 1 no plan (unsolvable,
timeout, unsupported, crashed), 2 bad input.

The default planner is optimal. When optimal search runs out of time, no plan is
printed and the message says how to get one; ``--fallback satisficing`` instead
gives the optimal search 3/4 of ``--timeout`` and lama-first the rest, and marks
such a plan "not proven optimal".
"""

from __future__ import annotations

import argparse
import json
import sys

from toolkit import loader
from toolkit import model as m
from toolkit.domains import add_typing_option, resolve_domain_arg
from toolkit.task import Task, load_domain_cached
from toolkit import cli_args


def add_planner_options(p: argparse.ArgumentParser) -> None:
    from toolkit.planners import DEFAULT_PLANNER, PLANNERS
    from toolkit.planners.fallback import FALLBACKS

    p.add_argument("--planner", default=DEFAULT_PLANNER, choices=list(PLANNERS),
                   help=f"planner (default {DEFAULT_PLANNER}: optimal; own A* on small tasks, Fast Downward A* with LM-cut (hmax with conditional effects) otherwise)")
    p.add_argument("--timeout", type=cli_args.seconds, default=60.0, metavar="S", help="time limit per problem in seconds")
    p.add_argument("--cache", type=cli_args.output_file, metavar="FILE", help="SQLite plan cache shared across runs and processes")
    p.add_argument("--fallback", choices=FALLBACKS, default="none",
                   help="when optimal search runs out of time: report it (none, default) or plan with lama-first "
                        "in the last quarter of --timeout (satisficing; the plan is marked not proven optimal)")
    p.add_argument("--json", action="store_true", help="print JSON")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("plan", help="find a plan for a problem", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("domain", help="domain file, folder, or shipped domain name (e.g. blocksworld)")
    p.add_argument("problem", type=cli_args.input_file, help="problem file")
    add_planner_options(p)
    add_typing_option(p)
    p.set_defaults(func=run)


def make_planner(args: argparse.Namespace):
    from toolkit.planners import get_planner

    planner = get_planner(args.planner)
    if args.fallback == "satisficing" and planner.optimal:
        from toolkit.planners.fallback import FallbackPlanner

        planner = FallbackPlanner(planner, get_planner("fd-lama"))
    if not args.cache:
        return planner
    # The cache (sqlite3, datetime: ~12 ms) is imported only when asked for: most calls plan once.
    from toolkit.planners.cache import CachedPlanner, PlanCache

    return CachedPlanner(planner, PlanCache(path=args.cache))


def explained(planner, result):
    """``result``, its message saying what to do when an optimal planner ran out of time."""
    import dataclasses

    from toolkit.planners import PlanStatus
    from toolkit.planners.fallback import timeout_hint

    inner = getattr(planner, "planner", planner)  # through a cache
    if result.status is PlanStatus.TIMEOUT and inner.optimal:
        return dataclasses.replace(result, message=timeout_hint(result))
    return result


def run(args: argparse.Namespace) -> int:
    domain = load_domain_cached(resolve_domain_arg(args.domain))
    task = Task(domain, loader.load_problem(args.problem, domain, args.typing))
    for w in task.problem.warnings:
        print(f"warning: {w}", file=sys.stderr)
    planner = make_planner(args)
    result = explained(planner, planner.solve(task, timeout=args.timeout))
    if args.json:
        print(json.dumps({"problem": args.problem, **result.to_json()}, indent=2))
    else:
        sys.stdout.write(result.plan_text())
        extra = " (optimal)" if result.optimal else " (not proven optimal)" if result.solved else ""
        if result.solved and task.uses_costs:
            extra = f", total cost {m.format_number(result.cost)}{extra}"
        print(f"; {result}{extra}" + (" [cached]" if result.cached else ""))
        if result.stderr_tail:
            print(f"--- planner output (tail) ---\n{result.stderr_tail}", file=sys.stderr)
    return 0 if result.solved else 1
