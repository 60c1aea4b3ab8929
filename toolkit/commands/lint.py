"""``pgt lint DOMAIN [PROBLEM...]``: find mistakes in a domain and its problems.

Each finding has a severity, a location (file:line:column), a code and a fix
hint. Load errors (syntax, undeclared names, arity, types) stop at the first one
per file: fix it and run again. Exit codes: 0 clean (info findings only),
1 errors or warnings, 2 bad input (a file that cannot be read).
"""

from __future__ import annotations

import argparse
import json

from toolkit.domains import add_typing_option, resolve_domain_arg


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("lint", help="find mistakes in a domain and its problems, with fix hints",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("domain", help="domain file, folder, or shipped domain name")
    p.add_argument("problems", nargs="*", help="problem files (enable reachability checks)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_typing_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from toolkit.lint import lint

    report = lint(resolve_domain_arg(args.domain), args.problems, typing=args.typing)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        for f in report.findings:
            print(f)
        print(("clean: " if not report.findings else "") + report.summary())
    return report.exit_code
