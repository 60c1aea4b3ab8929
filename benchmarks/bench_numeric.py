"""Numeric-fluent stepping and validation against unified-planning, from one run (a script, not a test).

Why: the boolean core steps and validates 100-1000x faster than unified-planning
(``benchmarks/bench_core.py``); numeric tasks must not fall back to UP's speed.
Work: seeded random applicable walks (applicability check + successor, fluent
values included) and plan validation of the walk's text, on pgt's hand-written
trucks-with-fuel domain (``tests/core/data/numeric``) and, with ``--ipc DIR`` (a
checkout of ipc2023-numeric/ipc2023-dataset; its files are read there, never
copied), on the first problem of every IPC 2023 numeric domain that both read.

UP's side is its ``SequentialSimulator`` (built once, not timed) and its
``PlanValidator`` on the same actions. Every walk is checked to be applicable in
both, and both validators must give the same verdict.
Run: ``python -m benchmarks.bench_numeric`` (``--steps``, ``--seed``, ``--ipc DIR``).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import warnings
from pathlib import Path

from benchmarks.bench_core import our_stepping, up_stepping
from benchmarks.heldout import load_text
from benchmarks.walks import random_walk


def up_refuses(sim, up_plan: list) -> int | None:
    """The first step UP's simulator finds inapplicable (1-based), or None."""
    state = sim.get_initial_state()
    for k, ai in enumerate(up_plan, 1):
        if not sim.is_applicable(state, ai):
            return k
        state = sim.apply_unsafe(state, ai)
    return None

DATA = Path(__file__).resolve().parents[1] / "tests" / "core" / "data" / "numeric"
TARGET = 100.0
OURS_RUNS, UP_RUNS = 500, 10  # one UP run is 100-1000x longer: the fewest runs that still find a quiet one


def cpu_best(fn, runs: int) -> float:
    """The fewest CPU seconds (``time.process_time``) one call of ``fn`` took, of ``runs`` calls.

    CPU time, not wall time: on a machine shared with other jobs a wall-clock run is stretched by
    every time slice given to another process, the longer run (UP's) far more often; the CPU time a
    run used is what the code costs. Both sides are measured this way.
    """
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def walk(task, steps: int, seed: int) -> list:
    return random_walk(task, random.Random(seed), steps)


def delta_stepping(plan: list, init) -> None:
    """Validation's stepping (:class:`toolkit.stepping.Stepper`): one mutable state, each applicable
    step's delta applied in place (``Stepper.advance``, as ``check_plan`` does)."""
    from toolkit.stepping import Stepper

    stepper = Stepper(init)
    for act in plan:
        if not act.is_applicable(stepper.state):
            raise AssertionError(f"{act} not applicable")
        if stepper.advance(act)[1]:
            raise AssertionError(f"{act} reads a fluent without a value")


def measure(domain: Path, problem: Path, steps: int, seed: int) -> dict[str, float] | None:
    from unified_planning.io import PDDLReader
    from unified_planning.plans import ActionInstance, SequentialPlan
    from unified_planning.shortcuts import PlanValidator, SequentialSimulator

    from toolkit import loader
    from toolkit.task import Task
    from toolkit.verify import check_plan

    dom = loader.load_domain(domain)
    task = Task(dom, loader.load_problem(problem, dom))
    plan = walk(task, steps, seed)
    state = task.init
    for k, act in enumerate(plan):  # validation stops where an effect reads a fluent without a value
        state, _, undefined = act.apply_checked(state)
        if undefined:
            plan = plan[:k]
            break
    if len(plan) < 2:
        return None
    text = "".join(f"{a}\n" for a in plan)
    try:
        up_problem = PDDLReader().parse_problem(str(domain), str(problem))
        up_plan = [ActionInstance(up_problem.action(a.name), [up_problem.object(o) for o in a.args]) for a in plan]
    except Exception as exc:  # noqa: BLE001 - a file UP cannot read is reported and skipped
        print(f"#   {domain.parent.name}: unified-planning cannot read it ({type(exc).__name__}: {str(exc)[:80]})")
        return None
    out = {"steps": len(plan)}
    out["ours_steps_s"] = len(plan) / cpu_best(lambda: delta_stepping(plan, task.init), OURS_RUNS)
    out["frozen_steps_s"] = len(plan) / cpu_best(lambda: our_stepping(plan, task.init), OURS_RUNS)
    with SequentialSimulator(problem=up_problem) as sim:
        refused = up_refuses(sim, up_plan)
        if refused is not None:  # VAL's tolerance: (> a b) holds for a = b in pgt and VAL, not in UP
            print(f"#   {domain.parent.name}: UP finds step {refused} ({plan[refused - 1]}) inapplicable, "
                  "pgt and VAL do not (VAL's 0.0001 tolerance in comparisons); not timed")
            return None
        out["up_steps_s"] = len(plan) / cpu_best(lambda: up_stepping(sim, up_plan), UP_RUNS)
    ours = check_plan(task, text)
    out["ours_validate_s"] = cpu_best(lambda: check_plan(Task(dom, task.problem), text), OURS_RUNS // 4)
    with PlanValidator(problem_kind=up_problem.kind) as validator:
        theirs = validator.validate(up_problem, SequentialPlan(up_plan))
        out["up_validate_s"] = cpu_best(lambda: validator.validate(up_problem, SequentialPlan(up_plan)), UP_RUNS)
    out["agree"] = float(ours.valid == (theirs.status.name == "VALID"))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--ipc", type=Path, help="a checkout of ipc2023-numeric/ipc2023-dataset")
    args = ap.parse_args(argv)
    warnings.filterwarnings("ignore")
    from unified_planning.shortcuts import get_environment

    get_environment().credits_stream = None
    pairs = [("trucks-fuel (pgt's test)", DATA / "domain.pddl", DATA / "problem.pddl")]
    if args.ipc and not args.ipc.is_dir():
        raise SystemExit(f"bench_numeric: --ipc {args.ipc}: no such folder (a checkout of ipc2023-numeric/ipc2023-dataset)")
    if args.ipc:
        pairs += [(d.name, d / "domain.pddl", d / "instances" / "pfile1.pddl")
                  for d in sorted(args.ipc.iterdir()) if (d / "domain.pddl").is_file()]
    print(f"bench_numeric: seed {args.seed}, random applicable walks of up to {args.steps} steps; "
          f"pgt vs unified-planning (target >= {TARGET:.0f}x); pgt steps one state by deltas as validation does "
          f"(frozen: a new frozen state per step, GroundAction.apply); CPU time, best of {OURS_RUNS} runs of the "
          f"walk for pgt (validation: {OURS_RUNS // 4}, a fresh Task each), {UP_RUNS} for UP; {load_text()}")
    print(f"{'domain':<26} {'steps':>5} {'pgt steps/s':>12} {'frozen':>9} {'UP steps/s':>11} {'x':>7} "
          f"{'pgt validate':>13} {'UP validate':>12} {'x':>7} {'agree':>5}")
    for label, domain, problem in pairs:
        try:
            res = measure(domain, problem, args.steps, args.seed)
        except Exception as exc:  # noqa: BLE001 - one domain's failure is reported, the others still run
            print(f"#   {label}: {type(exc).__name__}: {str(exc).splitlines()[0][:100]}")
            continue
        if res is None:
            continue
        step_x = res["ours_steps_s"] / res["up_steps_s"]
        val_x = res["up_validate_s"] / res["ours_validate_s"]
        print(f"{label:<26} {res['steps']:>5.0f} {res['ours_steps_s']:>12,.0f} {res['frozen_steps_s']:>9,.0f} "
              f"{res['up_steps_s']:>11,.0f} "
              f"{step_x:>6,.0f}x {1000 * res['ours_validate_s']:>10.2f} ms {1000 * res['up_validate_s']:>9.0f} ms "
              f"{val_x:>6,.0f}x {'yes' if res['agree'] else 'NO':>5}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
