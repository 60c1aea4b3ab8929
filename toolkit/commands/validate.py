"""``pgt validate DOMAIN PROBLEM PLAN``: check a plan and explain the outcome.

Exit codes: 0 valid, 1 invalid plan, 2 bad input (unreadable or malformed files).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from toolkit.domains import add_typing_option, resolve_domain_arg
from toolkit.errors import PgtError
from toolkit.task import Task, load_domain_cached
from toolkit import loader
from toolkit.verify import PlanReport, check_plan, describe_unmet


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("validate", help="check a plan against a domain and problem, explaining any failure",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("domain", help="domain file, folder, or shipped domain name (e.g. blocksworld)")
    p.add_argument("problem", help="problem file")
    p.add_argument("plan", help="plan file ('-' for standard input): PDDL lines, call style, JSON or fenced markdown")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--continue", dest="keep_going", action="store_true",
                   help="continue past failures and report every violation")
    p.add_argument("--states", action="store_true", help="include the state after each step (with --json)")
    add_typing_option(p)
    p.set_defaults(func=run)


def read_text(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PgtError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None


def load(domain_arg: str, problem_path: str, typing: str = "strict") -> Task:
    domain = load_domain_cached(resolve_domain_arg(domain_arg))
    return Task(domain, loader.load_problem(problem_path, domain, typing))


def human(report: PlanReport) -> str:
    lines = []
    for step in report.steps:
        mark = "ok " if step.applicable else "ERR"
        lines.append(f"  {mark} {step.index:>3}. {step.action or step.text}")
        for u in step.unmet:
            lines.append(f"            unmet: {describe_unmet(u)}")
    head = "VALID" if report.valid else f"INVALID ({report.reason.value})"
    lines.append(f"{head}: {report.message}")
    if not report.valid and report.goal_unmet and report.reason and report.reason.value != "goal_unmet":
        lines.append(f"goal gap at that point: {len(report.goal_unmet)} of {report.goal_size} goal condition(s) unmet: "
                     + ", ".join(report.goal_unmet))
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    task = load(args.domain, args.problem, args.typing)
    for w in (*task.domain.warnings, *task.problem.warnings):
        print(f"warning: {w}", file=sys.stderr)
    report = check_plan(task, read_text(args.plan), keep_going=args.keep_going)
    if args.json:
        print(json.dumps(report.to_json(with_states=args.states), indent=2))
    else:
        print(human(report))
    return 0 if report.valid else 1
