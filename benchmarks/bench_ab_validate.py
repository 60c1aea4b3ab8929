"""Validation speed of two source trees, alternating, in one run (a script, not a test).

Why: a change to the stepping path (numeric or not) must not slow boolean validation
down, and on a shared machine only runs interleaved in time compare. Each round runs
one child process per tree (``PYTHONPATH`` the tree), before then after, and each child
times ``check_plan`` in CPU seconds (best of several): seeded 200-step walks of the
shipped Blocksworld problem, and, per ``--pddl DOMAIN,PROBLEM`` pair, 100-step walks
validated with a fresh ``Task`` each (parse of the plan, grounding caches, stepping), and
*+load*: the pair's files read and one walk checked, per call, each call on texts of its own.

Run: ``python -m benchmarks.bench_ab_validate --before DIR --after DIR`` (``--rounds N``,
``--pddl D,P`` repeated); DIR a checkout or ``git archive`` of a commit. The child mode
(``--child``) is what each round runs.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path


def _best(fn, runs: int) -> float:
    """``bench_numeric.cpu_best``, written here because this file runs against older trees that lack it."""
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def child(pairs: list[str]) -> str:
    """One tree's figures in ms: blocksworld, then per pair its check and its load + check (imports from this
    process's PYTHONPATH)."""
    from benchmarks.walks import random_walk
    from toolkit import loader
    from toolkit.domains import shipped_domain, shipped_problem
    from toolkit.task import Task, load_task
    from toolkit.verify import check_plan

    def texts(task, n: int, steps: int, seed: int) -> list[str]:
        rng = random.Random(seed)
        return ["".join(f"{a}\n" for a in random_walk(task, rng, steps)) for _ in range(n)]

    bw = load_task(shipped_domain("blocksworld"), shipped_problem("blocksworld", "simple_problem_0"))
    bw_texts = texts(bw, 20, 200, 5)
    out = [_best(lambda: [check_plan(bw, t) for t in bw_texts], 5)]
    for pair in pairs:
        dom_path, prob_path = pair.split(",")
        dom = loader.load_domain(dom_path)
        problem = loader.load_problem(prob_path, dom)
        plan_texts = texts(Task(dom, problem), 5, 100, 1)
        out.append(_best(lambda: [check_plan(Task(dom, problem), t) for t in plan_texts], 3))
        # load + check of one plan as a new file gets it: each of 5 calls reads a text of its own (a unique
        # trailing comment), so no memo keyed by a file's text or kept per Domain object answers
        texts_of = [Path(dom_path).read_text(), Path(prob_path).read_text()]
        fresh = iter([[f"{t}\n; copy {k}\n" for t in texts_of] for k in range(15)])

        def load_check() -> None:
            dtext, ptext = next(fresh)
            d = loader.parse_domain(dtext, dom_path)
            check_plan(Task(d, loader.parse_problem(ptext, d, prob_path)), plan_texts[0])

        out.append(_best(lambda: [load_check() for _ in range(5)], 3) / 5)
    return " ".join(f"{1000 * x:9.1f}" for x in out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", type=Path)
    ap.add_argument("--after", type=Path)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--pddl", action="append", default=[], help="DOMAIN,PROBLEM (repeatable)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(child(args.pddl))
        return 0
    if args.before is None or args.after is None:
        ap.error("--before DIR and --after DIR are required")
    from benchmarks.ab_trees import alternate, checked_trees  # the parent's only: the child runs in any tree

    checked_trees("bench_ab_validate", args.before, args.after)
    print("bench_ab_validate: check_plan, CPU ms, best of 5 (blocksworld 20 x 200 steps) / 3 (each --pddl, "
          "5 x 100 steps, fresh Task; +load: domain and problem read from fresh texts, then one walk checked, per "
          "call); rounds alternate before/after")
    print(f"{'round':<6} {'tree':<7} {'blocksworld':>11} " + " ".join(
        f"{Path(p.split(',')[0]).parent.name[:12]:>12} {'+load':>9}" for p in args.pddl))
    for k, name, done in alternate(__file__, args.before, args.after, args.rounds,
                                   [x for p in args.pddl for x in ("--pddl", p)]):
        line = done.stdout.strip() if done.returncode == 0 else f"failed: {done.stderr.strip()[-200:]}"
        print(f"{k:<6} {name:<7} {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
