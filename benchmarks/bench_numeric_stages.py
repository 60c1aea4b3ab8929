"""Where pgt's validation of a new numeric file spends its time, stage by stage (a script, not a test).

Why: ``benchmarks/bench_numeric.py`` sets pgt's load+check against unified-planning's as one
figure; making it smaller needs to know which stage holds the time. This times, on fresh copies
of the files (:func:`benchmarks.bench_numeric.fresh_copies`: nothing keyed by a file's text is
reused), each stage of one validation as ``pgt validate`` runs it: the domain file read
(``loader.load_domain``), the problem file read (``loader.load_problem``), the task made
(``Task``) and the plan text checked (``check_plan``), on the seeded random walk that
``bench_numeric`` checks. CPU time, the best of ``--runs`` validations per stage; the stages of
one validation run back to back, so the total is the best whole validation, not a sum of bests.

Run: ``python -m benchmarks.bench_numeric_stages --ipc DIR`` (a checkout of
ipc2023-numeric/ipc2023-dataset; without it, pgt's own trucks-with-fuel test task).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.bench_numeric import fresh_copies, task_pairs, walk
from benchmarks.heldout import load_text

STAGES = ("domain", "problem", "task", "check", "total")


def stages(domain: Path, problem: Path, steps: int = 100, seed: int = 0, runs: int = 60) -> dict[str, float]:
    """The fewest CPU seconds of each stage (and of the whole validation) over ``runs`` validations of
    fresh copies of the files, plus the plan's ``steps`` and its ``distinct`` ground actions."""
    from toolkit import loader
    from toolkit.task import Task
    from toolkit.verify import check_plan

    dom = loader.load_domain(domain)
    task = Task(dom, loader.load_problem(problem, dom))
    plan = walk(task, steps, seed)
    text = "".join(f"{a}\n" for a in plan)
    best = dict.fromkeys(STAGES, float("inf"))
    with tempfile.TemporaryDirectory() as tmp:
        for dom_file, prob_file in fresh_copies(domain, problem, Path(tmp) / "copies", runs):
            t0 = time.process_time()
            fresh = loader.load_domain(dom_file)
            t1 = time.process_time()
            prob = loader.load_problem(prob_file, fresh)
            t2 = time.process_time()
            new_task = Task(fresh, prob)
            t3 = time.process_time()
            check_plan(new_task, text)
            t4 = time.process_time()
            for name, took in zip(STAGES, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t4 - t0)):
                best[name] = min(best[name], took)
    return {**best, "steps": len(plan), "distinct": len({str(a) for a in plan}), "schemas": len(dom.actions)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ipc", type=Path, help="a checkout of ipc2023-numeric/ipc2023-dataset")
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--runs", type=int, default=60)
    args = ap.parse_args(argv)
    pairs = task_pairs(args.ipc, "bench_numeric_stages")
    print(f"bench_numeric_stages: one validation of fresh copies of the files, stage by stage; CPU ms, best of "
          f"{args.runs}; seed {args.seed}, walks of up to {args.steps} steps; {load_text()}")
    print(f"{'domain':<24} {'domain':>7} {'problem':>7} {'task':>6} {'check':>6} {'total':>6} | "
          f"{'steps':>5} {'distinct':>8} {'schemas':>7}")
    for label, domain, problem in pairs:
        try:
            res = stages(domain, problem, args.steps, args.seed, args.runs)
        except Exception as exc:  # noqa: BLE001 - a file pgt refuses is reported, the others still run
            print(f"#   {label}: {type(exc).__name__}: {str(exc).splitlines()[0][:100]}")
            continue
        print(f"{label[:24]:<24} " + " ".join(f"{1000 * res[s]:>{w}.2f}" for s, w in zip(STAGES, (7, 7, 6, 6, 6)))
              + f" | {res['steps']:>5} {res['distinct']:>8} {res['schemas']:>7}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
