"""``pgt solve-all DOMAIN PROBLEM...``: run a planner on every problem and tabulate.

One line per problem: status, plan length, time. A problem that fails to load is
reported as ``error`` and the run goes on. Exit codes: 0 all solved, 1 some not
solved (or not loadable), 2 bad input (the domain itself).
"""

from __future__ import annotations

import argparse
import json

from toolkit import loader
from toolkit import model as m
from toolkit.commands.plan import add_planner_options, explained, make_planner
from toolkit.domains import add_typing_option, resolve_domain_arg
from toolkit.errors import PgtError
from toolkit.task import Task, load_domain_cached
from toolkit import cli_args


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("solve-all", help="run a planner on many problems: status, length, time",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("domain", help="domain file, folder, or shipped domain name")
    p.add_argument("problems", nargs="+", type=cli_args.input_file, help="problem files")
    add_planner_options(p)
    add_typing_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    domain = load_domain_cached(resolve_domain_arg(args.domain))
    planner = make_planner(args)
    rows = []
    for path in args.problems:
        try:
            task = Task(domain, loader.load_problem(path, domain, args.typing))
        except PgtError as exc:
            rows.append({"problem": path, "status": "error", "length": None, "cost": None, "time": 0.0, "message": str(exc)})
            continue
        r = explained(planner, planner.solve(task, timeout=args.timeout))
        rows.append({"problem": path, **r.to_json()})
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        width = max(len(r["problem"]) for r in rows)
        costs = domain.has_costs  # a cost column only where actions have costs
        print(f"{'problem':<{width}}  {'status':<11} {'length':>6}{'   cost' if costs else ''} {'time':>8}")
        for r in rows:
            length = "-" if r["length"] is None else str(r["length"])
            cost = "" if not costs else f" {'-' if r['cost'] is None else m.format_number(r['cost']):>6}"
            note = f"  {r['message']}" if r["status"] != "solved" and r.get("message") else ""
            print(f"{r['problem']:<{width}}  {r['status']:<11} {length:>6}{cost} {r['time']:>7.3f}s{note}")
        solved = sum(r["status"] == "solved" for r in rows)
        print(f"{solved}/{len(rows)} solved")
    return 0 if all(r["status"] == "solved" for r in rows) else 1
