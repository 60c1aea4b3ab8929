"""``pgt validate DOMAIN PROBLEM PLAN``: check a plan and explain the outcome.

Exit codes: 0 valid, 1 invalid plan, 2 bad input (unreadable or malformed files).
"""

from __future__ import annotations

import argparse
import os
import sys

from toolkit.domains import add_typing_option, resolve_domain_arg
from toolkit.errors import PgtError
from toolkit.task import Task, load_domain_cached
from toolkit import loader
from toolkit.plan_steps import ActionTextParser
from toolkit.verify import PlanReport, brief_formula, check_plan, describe_unmet
from toolkit import cli_args, textfile


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("validate", help="check a plan against a domain and problem, explaining any failure",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("domain", help="domain file, folder, or shipped domain name (e.g. blocksworld)")
    p.add_argument("problem", type=cli_args.input_file, help="problem file")
    p.add_argument("plan", type=cli_args.input_file, help="plan file ('-' for standard input): PDDL lines, call style, "
                   "JSON, English sentences, or a whole model reply (the plan is found in it)")
    p.add_argument("--objects", metavar="FILE", type=cli_args.input_file,
                   help="TOML file of object descriptions for reading English plans (a = \"the red block\")")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--continue", dest="keep_going", action="store_true",
                   help="continue past failures and report every violation")
    p.add_argument("--states", action="store_true", help="include the state after each step (with --json)")
    p.add_argument("--html", metavar="OUT.html", help="also write a self-contained trace page: each step's status, "
                   "state diff, unmet preconditions, goal gap and (where the domain has a world renderer) pictures")
    add_typing_option(p)
    p.set_defaults(func=run)


def read_text(path: str, comment: str | None = ";") -> str:
    """A plan or batch file's text (``-``: standard input); see :func:`toolkit.textfile.read_text`."""
    if path == "-":
        return sys.stdin.read()
    return textfile.read_text(path, comment)


def load(domain_arg: str, problem_path: str, typing: str = "strict") -> Task:
    domain = load_domain_cached(resolve_domain_arg(domain_arg))
    return Task(domain, loader.load_problem(problem_path, domain, typing))


# Task -> {(objects file, mtime, size): (reader, note)}; a weakref.WeakKeyDictionary made on first use.
_READERS: dict = {}


def english_reader(task: Task, objects: str | None, notes: list[str] | None = None) -> ActionTextParser | None:
    """The English step reader with a problem's ``--objects`` descriptions (None: the domain's own).

    Built once per task and file version: a batch that gives every line the corpus's one
    objects file builds one reader per problem, not one per line. The note about names the
    problem lacks (see :func:`load_object_descriptions`) is appended to ``notes``.
    """
    if objects is None:
        return None
    try:
        st = os.stat(objects)
        key = (str(objects), st.st_mtime_ns, st.st_size)
    except OSError:
        key = (str(objects), -1, -1)  # load_object_descriptions says why it cannot be read
    if "readers" not in _READERS:
        import weakref

        _READERS["readers"] = weakref.WeakKeyDictionary()
    per_task = _READERS["readers"].setdefault(task, {})
    hit = per_task.get(key)
    if hit is None:
        from toolkit.question_file import lacking_note, load_object_descriptions
        from toolkit.questions import QuestionBook

        lacking: list[str] = []
        book = QuestionBook(task, objects=load_object_descriptions(objects, task.objects, lacking))
        hit = per_task[key] = (book.language.parse, lacking_note(objects, lacking))
    if notes is not None and hit[1]:
        notes.append(hit[1])
    return hit[0]


def human(report: PlanReport) -> str:
    lines = []
    for step in report.steps:
        mark = "ok " if step.applicable else "ERR"
        shown = step.action or step.text
        if step.read_as == "natural-language" or (step.action and step.line and step.action != step.text):
            shown += f"   <- line {step.line}: {step.text}" if step.line else ""
        lines.append(f"  {mark} {step.index:>3}. {shown}")
        for u in step.unmet:
            lines.append(f"            unmet: {describe_unmet(u)}")
    head = "VALID" if report.valid else f"INVALID ({report.reason.value})"
    lines.append(f"{head}: {report.message}")
    note = report.parsed.note() if report.parsed is not None else ""
    if note:
        lines.append(f"note: {note}")
    if not report.valid and report.goal_unmet and report.reason and report.steps and report.reason.value != "goal_unmet":
        lines.append(f"goal gap at that point: {len(report.goal_unmet)} of {report.goal_size} goal condition(s) unmet: "
                     + ", ".join(brief_formula(u) for u in report.goal_unmet))
    return "\n".join(lines)


def _state_pictures(task: Task, parsed, report: PlanReport) -> list[bytes | None] | None:
    """A world's pictures of the states, or None where no world renders the domain (or worlds are not installed)."""
    import importlib

    from toolkit.cli import STATE_PICTURES

    try:
        pictures = importlib.import_module(STATE_PICTURES)
    except ImportError:
        return None
    return pictures.state_images(task, parsed, report)


def write_html(out: str, task: Task, plan_text: str, report: PlanReport, reader=None) -> None:
    from toolkit.plans import parse_plan
    from toolkit.trace_html import write_trace

    parsed = parse_plan(plan_text, task, reader)
    try:
        write_trace(out, task, parsed, report, _state_pictures(task, parsed, report))
    except OSError as exc:
        raise PgtError(f"cannot write {out}: {exc.strerror or exc}") from None
    print(f"trace page written to {out}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    task = load(args.domain, args.problem, args.typing)
    for w in (*task.domain.warnings, *task.problem.warnings):
        print(f"warning: {w}", file=sys.stderr)
    plan_text = read_text(args.plan)
    notes: list[str] = []
    reader = english_reader(task, args.objects, notes)
    report = check_plan(task, plan_text, keep_going=args.keep_going, action_text=reader)
    if args.html:
        write_html(args.html, task, plan_text, report, reader)
    if args.json:
        import json

        data = report.to_json(with_states=args.states)
        if notes:
            data["reading"]["notes"] = notes
        print(json.dumps(data, indent=2))
    else:
        print("\n".join([human(report), *(f"note: {n}" for n in notes)]))
    return 0 if report.valid else 1
