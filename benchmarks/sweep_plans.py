"""Robustness sweep over plan corpora: LLM-written plans and problem files, checked as a user checks them.

Why: pgt is checked against LLM output nobody here wrote. A plan corpus such as LLM+P's
(``Cranial-XIX/llm-pddl``: GPT-written problem files, Fast Downward's plans for them,
and GPT's plans in English) keeps a folder per domain; this sweep pairs every plan with
its problem and domain by that folder's name and the plan's stem (``p07.pddl``,
``p07.pddl.1``, ``p07.sol`` all belong to ``p07.pddl``) and runs, each as its own process:

- ``pgt validate --json DOMAIN PROBLEM PLAN`` on every plan under each ``--plans`` folder,
  judged against VAL's ``Validate`` where VAL read the plan: a plan of PDDL lines whose
  step count VAL reports as pgt does. VAL reads no English (it sees an empty plan, so
  it calls a goal true in the initial state "valid"); there the outcome is ``skipped``
  with pgt's own verdict, counted in a line of its own;
- ``pgt lint DOMAIN PROBLEM`` on every problem under ``--lint`` folders (LLM-written
  problems): findings are the point of linting them, so the outcome is ``ok`` unless
  the process failed (traceback, crash, an unlocated refusal), with the error codes.

Outcomes are :mod:`benchmarks.sweep_ipc`'s. Run (LLM+P, a bare mirror read with ``--git``)::

    python -m benchmarks.sweep_plans --git /work/.mirror/Cranial-XIX+llm-pddl/repo --domains domains \\
        --plans experiments/run0/plans --plans experiments/run0/results --lint experiments/run0/problems --jobs 2
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import dataclasses
import json
import re
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.bench_startup import pgt_command
from benchmarks.sweep_ipc import OUTCOMES, Outcome, Ran, _is_domain, domain_for, extract, failure, read_outcomes, run

COMMANDS = ("validate", "lint")
_PLAN_SIZE = re.compile(r"Plan size:\s*(\d+)")


@dataclasses.dataclass(frozen=True)
class Item:
    """One plan to validate (``plan`` set) or one problem to lint (``plan`` None)."""

    name: str
    domain: Path | None
    problem: Path | None
    plan: Path | None = None


def _stem(path: Path) -> str:
    return path.name.split(".", 1)[0]


def find_problem(root: Path, folder: str, stem: str) -> Path | None:
    """``stem``.pddl in a folder called ``folder`` under ``root`` (the shallowest one), or None."""
    hits = sorted((p for p in root.rglob(f"{stem}.pddl") if p.parent.name == folder), key=lambda p: len(p.parts))
    return hits[0] if hits else None


def pair(root: Path, domains: Path, problems: Path, plan_roots: list[Path], lint_roots: list[Path]) -> list[Item]:
    """Every plan with its problem (under ``problems``) and domain (under ``domains``); every problem to lint."""
    known = {p for p in domains.rglob("*.pddl") if _is_domain(p)}

    def domain_of(folder: str, problem: Path | None) -> Path | None:
        beside = domains / folder / "domain.pddl"
        if beside in known:
            return beside
        return domain_for(problem, known) if problem is not None else None

    items = []
    for plans in plan_roots:
        for plan in sorted(p for p in plans.rglob("*") if p.is_file()):
            if plan.suffix in (".sas", ".txt", ".json", ".py") or plan.name.startswith("."):
                continue  # FD's translator output, VAL logs: not plans
            problem = find_problem(problems, plan.parent.name, _stem(plan))
            items.append(Item(plan.relative_to(root).as_posix(), domain_of(plan.parent.name, problem), problem, plan))
    for folder in lint_roots:
        for problem in sorted(folder.rglob("*.pddl")):
            if not _is_domain(problem):
                items.append(Item(problem.relative_to(root).as_posix(), domain_of(problem.parent.name, problem),
                                  problem))
    return items


def val_reading(val: Path, item: Item) -> tuple[bool | None, int | None]:
    """VAL's verdict and the number of steps it read (None, None where it gives no verdict)."""
    assert item.domain and item.problem and item.plan
    ran = run([str(val), "-v", str(item.domain), str(item.problem), str(item.plan)], 120)  # -v: "Plan size: N"
    size = _PLAN_SIZE.search(ran.out)
    steps = int(size.group(1)) if size else None
    if "Plan valid" in ran.out:
        return True, steps
    if "Plan failed" in ran.out or "Goal not satisfied" in ran.out or "Plan invalid" in ran.out:
        return False, steps
    return None, steps


def judge_validate(ran: Ran, val: tuple[bool | None, int | None]) -> tuple[str, str]:
    """A validate run's outcome: VAL is the reference only where it read the plan as pgt did."""
    judged = failure(ran)
    if judged is not None:
        return judged
    report = json.loads(ran.out)
    said = "valid" if report["valid"] else f"invalid ({report['reason']})"
    verdict, steps = val
    read = report.get("reading", {})
    english = read.get("read_as") not in (None, "pddl") or bool(read.get("skipped"))
    if verdict is None:
        return "skipped", f"pgt {said}; VAL gives no verdict"
    if english or steps != report["plan_length"]:
        return "skipped", f"pgt {said}; VAL read {steps} steps of a plan pgt read as {read.get('read_as')}"
    if verdict != report["valid"]:
        return "wrong", f"pgt {said}, VAL {'valid' if verdict else 'invalid'}: {report['message'][:150]}"
    return "ok", ""


def judge_lint(ran: Ran) -> tuple[str, str]:
    judged = failure(ran)
    if judged is not None:
        return judged
    findings = json.loads(ran.out)["findings"]
    errors = sorted({f["code"] for f in findings if f["severity"] == "error"})
    return "ok", f"errors: {', '.join(errors)}" if errors else ""


def sweep_item(item: Item, val: Path, limit: float) -> Outcome:
    command = "validate" if item.plan else "lint"
    if item.domain is None or item.problem is None:
        return Outcome(item.name, command, "skipped", 0.0, "no problem or domain file found for it")
    if item.plan is None:
        ran = run([*pgt_command(), "lint", "--json", str(item.domain), str(item.problem)], limit)
        outcome, detail = judge_lint(ran)
        return Outcome(item.name, command, outcome, round(ran.seconds, 3), detail)
    ran = run([*pgt_command(), "validate", "--json", str(item.domain), str(item.problem), str(item.plan)], limit)
    outcome, detail = judge_validate(ran, val_reading(val, item))
    return Outcome(item.name, command, outcome, round(ran.seconds, 3), detail)


def summary(outcomes: list[Outcome]) -> list[str]:
    """The outcome table, then pgt's own verdicts where VAL could not judge, then lint's error codes."""
    counts = collections.Counter((o.command, o.outcome) for o in outcomes)
    lines = [f"{'command':<11}" + "".join(f"{k:>10}" for k in OUTCOMES)]
    lines += [f"{c:<11}" + "".join(f"{counts[c, k]:>10}" for k in OUTCOMES) for c in COMMANDS]
    own = collections.Counter(re.sub(r"^pgt (valid|invalid \(\w+\)).*", r"\1", o.detail) for o in outcomes
                              if o.command == "validate" and o.outcome == "skipped" and o.detail.startswith("pgt "))
    if own:
        lines.append("# pgt's verdicts where VAL gives none: " + ", ".join(f"{k} {n}" for k, n in sorted(own.items())))
    codes = collections.Counter(code for o in outcomes if o.command == "lint" and o.detail.startswith("errors: ")
                                for code in o.detail.removeprefix("errors: ").split(", "))
    if codes:
        lines.append("# lint error codes (problems): " + ", ".join(f"{k} {n}" for k, n in sorted(codes.items())))
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root", nargs="?", type=Path, help="the corpus folder (or use --git)")
    ap.add_argument("--git", type=Path, metavar="GIT_DIR", help="read the tree of this bare git repository instead")
    ap.add_argument("--rev", default="HEAD", help="revision of --git (default HEAD)")
    ap.add_argument("--domains", default=".", help="folder (in the corpus) of domain folders, each with domain.pddl")
    ap.add_argument("--problems", help="folder of the problems plans are checked against (default --domains)")
    ap.add_argument("--plans", action="append", default=[], help="folder of plans, one folder per domain (repeatable)")
    ap.add_argument("--lint", action="append", default=[], help="folder of problems to lint (repeatable)")
    ap.add_argument("--limit", type=float, default=120.0, help="wall-clock limit of each process (default 120)")
    ap.add_argument("--jobs", type=int, default=1, help="processes at once")
    ap.add_argument("--out", type=Path, help="also append one JSON line per outcome; items already in it are kept")
    args = ap.parse_args(argv)
    if (args.root is None) == (args.git is None):
        ap.error("give the corpus folder or --git, not both")
    if not args.plans and not args.lint:
        ap.error("nothing to do: give --plans or --lint")
    from benchmarks.bench_validate import val_binary

    val = val_binary()
    with tempfile.TemporaryDirectory(prefix="sweep-plans-") as tmp:
        root = extract(args.git, args.rev, Path(tmp), suffixes=None)[0] if args.git else args.root
        folders = {name: root / name for name in (args.domains, args.problems or args.domains, *args.plans, *args.lint)}
        missing = [name for name, path in folders.items() if not path.is_dir()]
        if missing:
            ap.error(f"not a folder in the corpus: {', '.join(missing)}")
        items = pair(root, root / args.domains, root / (args.problems or args.domains),
                     [root / p for p in args.plans], [root / p for p in args.lint])
        outcomes = read_outcomes(args.out) if args.out and args.out.exists() else []
        done = {(o.case, o.command) for o in outcomes}
        todo = [i for i in items if (i.name, "validate" if i.plan else "lint") not in done]
        print(f"# {len(items)} items ({sum(1 for i in items if i.plan)} plans) in {args.git or root}; "
              f"{len(items) - len(todo)} already in {args.out}", flush=True)
        t0 = time.perf_counter()
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            for o in pool.map(lambda i: sweep_item(i, val, args.limit), todo):
                outcomes.append(o)
                if o.outcome not in ("ok", "skipped"):
                    print(f"  {o.outcome:<9} {o.command:<9} {o.case}: {o.detail}", flush=True)
                if args.out:
                    with open(args.out, "a") as out:
                        out.write(json.dumps(dataclasses.asdict(o)) + "\n")
    print(f"\n# outcomes over {len(outcomes)} items ({len(todo)} run now in {time.perf_counter() - t0:.0f} s)")
    for line in summary(outcomes):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
