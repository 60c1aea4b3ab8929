"""``pgt validate-batch INPUT.jsonl``: validate many plans, e.g. from an LLM study.

Each input line is ``{"id": ..., "domain": PATH, "problem": PATH, "plan": TEXT}``,
optionally with ``"objects": PATH`` (object descriptions for English plans).
The plan text may be a whole model reply. Output: one JSON line per input (``id``,
``valid``, ``failed_step``, ``reason``, ``message``, ``reading``, ...), then a summary. Bad input on one line is reported on that line
and the batch goes on. Domains and problems are loaded once per path.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path
from typing import Any, Iterator

from toolkit import loader
from toolkit.commands.validate import english_reader, read_text
from toolkit.domains import resolve_domain_arg
from toolkit.errors import PgtError
from toolkit.task import Task, load_domain_cached
from toolkit.verify import check_plan


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("validate-batch", help="validate a JSON Lines batch of plans",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input", help="JSON Lines file ('-' for standard input)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON too (last line)")
    p.add_argument("--continue", dest="keep_going", action="store_true", help="report every violation per plan")
    p.set_defaults(func=run)


class TaskCache:
    """Tasks by (domain path, problem path); paths relative to the input file's folder."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.tasks: dict[tuple[str, str], Task] = {}

    def _path(self, value: Any, field: str) -> str:
        if not isinstance(value, str) or not value:
            raise PgtError(f"'{field}' must be a path string")
        p = Path(value)
        if not p.is_absolute() and not p.exists() and (self.base / p).exists():
            p = self.base / p
        return str(p)

    def get(self, domain: Any, problem: Any) -> Task:
        key = (self._path(domain, "domain"), self._path(problem, "problem"))
        if key not in self.tasks:
            dom = load_domain_cached(resolve_domain_arg(key[0]))
            self.tasks[key] = Task(dom, loader.load_problem(key[1], dom))
        return self.tasks[key]


def validate_records(lines: Iterator[str], base: Path, keep_going: bool = False) -> Iterator[dict[str, Any]]:
    cache = TaskCache(base)
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        out: dict[str, Any] = {"id": None, "line": lineno}
        try:
            rec = json.loads(line)
            if not isinstance(rec, dict):
                raise PgtError("each line must be a JSON object")
            out["id"] = rec.get("id", lineno)
            plan = rec.get("plan")
            if isinstance(plan, list):
                plan = json.dumps(plan)
            if not isinstance(plan, str):
                raise PgtError("'plan' must be text (or a JSON list of steps)")
            task = cache.get(rec.get("domain"), rec.get("problem"))
            objects = rec.get("objects")
            reader = english_reader(task, cache._path(objects, "objects")) if objects is not None else None
            report = check_plan(task, plan, keep_going=keep_going, action_text=reader)
            data = report.to_json()
            data.pop("steps")
            out.update(data)
        except json.JSONDecodeError as exc:
            out.update(valid=False, failed_step=None, reason="bad_input", message=f"line {lineno}: not JSON: {exc.msg}")
        except PgtError as exc:
            out.update(valid=False, failed_step=None, reason="bad_input", message=f"line {lineno}: {exc}")
        yield out


def summarize(results: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(results)
    valid = sum(1 for r in results if r["valid"])
    reasons = collections.Counter(r["reason"] for r in results if not r["valid"])
    return {"summary": True, "plans": n, "valid": valid, "valid_share": (valid / n) if n else 0.0,
            "reasons": dict(sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])))}


def run(args: argparse.Namespace) -> int:
    if args.input == "-":
        lines, base = iter(sys.stdin.read().splitlines()), Path.cwd()
    else:
        lines, base = iter(read_text(args.input).splitlines()), Path(args.input).resolve().parent
    results = []
    for out in validate_records(lines, base, args.keep_going):
        results.append(out)
        print(json.dumps(out), flush=True)
    summary = summarize(results)
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"# {summary['valid']} of {summary['plans']} plans valid ({summary['valid_share']:.1%})", file=sys.stderr)
        for reason, count in summary["reasons"].items():
            print(f"#   {reason}: {count}", file=sys.stderr)
    return 0 if summary["valid"] == summary["plans"] else 1
