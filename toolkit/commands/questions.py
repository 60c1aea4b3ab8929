"""``pgt questions``: every grounded atom of a problem with its yes/no question.

This is how a domain author reads the questions a VLM will be asked, and checks
the display names and fallbacks, before spending anything on a model.
"""

from __future__ import annotations

import argparse
import json

from pathlib import Path

from toolkit.domains import load_task_args, resolve_domain_arg
from toolkit import cli_args
from toolkit.errors import PgtError


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "questions", help="list every grounded atom of a problem with its yes/no question",
        description="List every grounded atom with its question and its truth in the initial state. "
                    "Templates come from questions.toml beside the domain; other predicates use the fallback.")
    p.add_argument("domain", help="domain file, folder with domain.pddl, or shipped domain name")
    p.add_argument("problem", nargs="?", help="problem file, or the name of a shipped problem of the domain "
                                              "(needed unless --init)")
    p.add_argument("--init", action="store_true", help="write a questions.toml skeleton beside the domain (three "
                   "phrasings per predicate, a name per type, a sentence per action) for you to edit")
    p.add_argument("--out", type=cli_args.output_file, help="--init: write the skeleton here instead")
    p.add_argument("--predicate", action="append", default=[], type=cli_args.non_empty, help="only this predicate (repeatable)")
    p.add_argument("--true-only", action="store_true", help="only atoms true in the initial state")
    p.add_argument("--actions", action="store_true", help="also list every ground action as text")
    p.add_argument("--json", action="store_true", help="JSON Lines output")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from toolkit.questions import QuestionBook

    if args.init:
        return init(args)
    if args.out:
        raise PgtError("--out is for --init (the skeleton's file); the questions are printed")
    if args.problem is None:
        raise PgtError("pgt questions needs a PROBLEM to list questions (or --init to write a questions.toml skeleton)")
    task = load_task_args(args)
    book = QuestionBook(task)
    preds = [_pred(task, p) for p in args.predicate] or [None]
    derived = task.domain.derived_predicates  # not perceived: the rules give them from the basic atoms
    atoms = [a for pred in preds for a in task.reachable_atoms(pred) if a.predicate not in derived]
    if args.true_only:
        atoms = [a for a in atoms if a in task.init]
    source = book.spec.path or "fallback (no questions.toml)"
    if not args.json:
        print(f"# {len(atoms)} atoms; templates: {source}")
        if task.numeric:  # questions are yes/no over atoms: a fluent's value is not one
            print(f"# numeric fluents ({', '.join(sorted(task.domain.functions))}) are not asked about: "
                  "questions cover the boolean atoms only")
        if derived:
            print(f"# derived predicates ({', '.join(sorted(derived))}) are not asked about: the domain's "
                  ":derived rules give them from the basic atoms asked here")
    for atom in atoms:
        truth = atom in task.init
        kind = "template" if book.has_template(atom.predicate) else "fallback"
        if args.json:
            print(json.dumps({"atom": str(atom), "question": book.question(atom), "truth": truth,
                              "source": kind}))
        else:
            print(f"{'T' if truth else 'F'}  {str(atom):<32} {book.question(atom)}")
    if args.actions:
        for action in task.reachable_actions():
            text = book.action_text(action)
            if args.json:
                print(json.dumps({"action": str(action), "text": text}))
            else:
                print(f"A  {str(action):<32} {text}")
    return 0


def _pred(task: object, name: str) -> str:
    from toolkit.errors import UnknownSymbolError

    known = task.domain.predicates  # type: ignore[attr-defined]
    hit = {k.lower(): k for k in known}.get(name.lower())
    if hit is None:
        raise UnknownSymbolError("predicate", name, known)
    return hit


def init(args: argparse.Namespace) -> int:
    """Write the skeleton; never over an existing file (an author's edits are not to be lost)."""
    from toolkit.question_skeleton import skeleton
    from toolkit.task import load_domain_cached

    path = resolve_domain_arg(args.domain)
    domain = load_domain_cached(str(path))
    out = Path(args.out) if args.out else Path(path).parent / "questions.toml"
    if out.exists():
        raise PgtError(f"{out} exists; edit it, or pass --out PATH to write the skeleton elsewhere")
    out.write_text(skeleton(domain), encoding="utf-8")
    print(f"wrote {out}: {len(domain.predicates)} predicates, {len(domain.actions)} actions; edit the wording, "
          f"then check it with pgt lint {args.domain}")
    return 0
