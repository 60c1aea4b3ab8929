"""Numeric-fluent stepping and validation against unified-planning, from one run (a script, not a test).

Why: the boolean core steps and validates 100-1000x faster than unified-planning
(``benchmarks/bench_core.py``); numeric tasks must not fall back to UP's speed.
Work: seeded random applicable walks (applicability check + successor, fluent
values included) and plan validation of the walk's text, on pgt's hand-written
trucks-with-fuel domain (``tests/core/data/numeric``) and, with ``--ipc DIR`` (a
checkout of ipc2023-numeric/ipc2023-dataset; its files are read there, never
copied), on the first problem of every IPC 2023 numeric domain that both read.

Stepping: UP's side is its ``SequentialSimulator`` (built once, not timed); pgt's is
``Stepper.advance`` over the task's working state, as validation steps; the steppers' repeats are
interleaved as the validation figures' are (below). Validation is
timed phase by phase, each side given the same files and the same plan text: *load*
(domain and problem files into each side's model: pgt's loader, UP's ``PDDLReader``; every
repeat reads a copy of its own, :func:`fresh_copies`, so nothing keyed by a file's text is reused)
and *check* (the text read and checked against the loaded problem, with the set-up each
validator does per call: pgt's ``check_plan`` on a fresh ``Task``, whose ground actions
are made and compiled on first use; UP's ``parse_plan_string`` and
``SequentialPlanValidator.validate``, which builds a ``SequentialSimulator`` in every
call); *load+check*, pgt's headline figure, is the two in one call on fresh copies of the
files (a Domain object the check phase's repeats reuse keeps its per-domain memos; a new file
gets none), against UP's two phases summed. The five are timed together, their repeats interleaved over
:data:`ROUNDS` rounds (:func:`interleaved_best`), so that a slow spell of the shared machine falls on both
sides alike. Every walk is checked to be applicable in both,
and both validators must give the same verdict. These phase figures are *warm*: each is the best of repeated calls in
one process, and pgt's process-wide memos carry over between the repeats (compiled
factories of generated numeric code by their text, words already found to be names); the
*cold* column is pgt's load + check as a fresh process's first call (:func:`cold_first_call`), set against UP's warm figures.
Run: ``python -m benchmarks.bench_numeric`` (``--steps``, ``--seed``, ``--ipc DIR``).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Callable

from benchmarks.bench_core import our_stepping, up_stepping
from benchmarks.heldout import load_text
from benchmarks.walks import random_walk


def task_pairs(ipc: Path | None, script: str) -> list[tuple[str, Path, Path]]:
    """(label, domain, problem) of pgt's own numeric test task and, with ``ipc`` (a checkout of
    ipc2023-numeric/ipc2023-dataset), the first problem of every IPC 2023 numeric domain."""
    pairs = [("trucks-fuel (pgt's test)", DATA / "domain.pddl", DATA / "problem.pddl")]
    if ipc and not ipc.is_dir():
        raise SystemExit(f"{script}: --ipc {ipc}: no such folder (a checkout of ipc2023-numeric/ipc2023-dataset)")
    if ipc:
        pairs += [(d.name, d / "domain.pddl", d / "instances" / "pfile1.pddl")
                  for d in sorted(ipc.iterdir()) if (d / "domain.pddl").is_file()]
    return pairs


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
OURS_RUNS, UP_RUNS = 500, 12  # one UP run is 100-1000x longer: the fewest runs that still find a quiet one
LOAD_RUNS, UP_LOAD_RUNS = 40, 4  # reading the files: a few ms for pgt, 10-100x that for UP


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


ROUNDS = 4  # the validation figures' repeats are spread over this many rounds, every side in each


def interleaved_best(jobs: dict[str, tuple[Callable[[], object], int]], rounds: int | None = None) -> dict[str, float]:
    """:func:`cpu_best` of every job, their repeats interleaved: ``rounds`` rounds, each running every job
    its share of its runs in turn.

    Why: the machine is shared; a slow spell of a few seconds makes every run in it up to 2x slower.
    Timed one after the other, pgt's repeats (a few ms in all) can fall wholly inside such a spell while
    UP's (seconds) average over it, and the ratio moves 1.7x between runs. Interleaved, every side's
    repeats span the same seconds, and each side's best comes from the machine's quiet moments.
    """
    rounds = rounds or ROUNDS
    best = dict.fromkeys(jobs, float("inf"))
    for r in range(rounds):
        for name, (fn, runs) in jobs.items():
            share = runs // rounds + (r < runs % rounds)  # runs spread as evenly as they divide
            if share:
                best[name] = min(best[name], cpu_best(fn, share))
    return best


COLD_RUNS = 3  # fresh processes per domain for the first-call figure

_COLD = """
import sys, time
from toolkit import loader
from toolkit.task import Task
from toolkit.verify import check_plan
domain, problem, plan = sys.argv[1:4]
text = open(plan).read()
start = time.process_time()
dom = loader.load_domain(domain)
report = check_plan(Task(dom, loader.load_problem(problem, dom)), text)
print(time.process_time() - start, report.valid)
"""


def cold_first_call(domain: Path, problem: Path, text: str) -> float:
    """pgt's load + check as a user's first call gets it: in a fresh process (the modules imported
    first, not timed), nothing any earlier call left behind; the fewest CPU seconds of
    :data:`COLD_RUNS` processes.

    Why: the warm figures repeat the call in one process, and process-wide memos carry over between
    the repeats: the compiled factories of generated numeric code by their text
    (``toolkit.fluent_code``), the last texts' comment-blanked code (``toolkit.reading.text``), Python's own regular-expression cache.
    """
    import os
    import subprocess

    with tempfile.NamedTemporaryFile("w", suffix=".plan", delete=False) as fh:
        fh.write(text)
    try:
        import toolkit

        root = str(Path(toolkit.__file__).resolve().parents[1])  # the tree being measured, as this process imports it
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (root, os.environ.get("PYTHONPATH"))))}
        best = float("inf")
        for _ in range(COLD_RUNS):
            out = subprocess.run([sys.executable, "-c", _COLD, str(domain), str(problem), fh.name], env=env,
                                 capture_output=True, text=True, check=True)
            best = min(best, float(out.stdout.split()[0]))
        return best
    finally:
        os.unlink(fh.name)


def fresh_copies(domain: Path, problem: Path, folder: Path, n: int) -> list[tuple[Path, Path]]:
    """``n`` copies of the two files, each ending in its own comment line: every timed load reads a text
    it has not read before, as a user's load of a new file does, so that no memo keyed by a file's text
    (``toolkit.reading.text``'s comment-blanked code) carries over between the repeats."""
    folder.mkdir(parents=True)
    pairs = []
    for k in range(n):
        pair = folder / f"domain{k}.pddl", folder / f"problem{k}.pddl"
        for src, dst in zip((domain, problem), pair):
            dst.write_bytes(src.read_bytes() + f"\n; copy {k}\n".encode())
        pairs.append(pair)
    return pairs


def _load_pair(domain: Path, problem: Path) -> None:
    from toolkit import loader

    loader.load_problem(problem, loader.load_domain(domain))


def _validate_files(domain: Path, problem: Path, text: str) -> None:
    from toolkit import loader
    from toolkit.task import Task
    from toolkit.verify import check_plan

    dom = loader.load_domain(domain)
    check_plan(Task(dom, loader.load_problem(problem, dom)), text)


def walk(task, steps: int, seed: int) -> list:
    return random_walk(task, random.Random(seed), steps)


def delta_stepping(plan: list, init, index) -> None:
    """Validation's stepping (:class:`toolkit.stepping.Stepper`): one mutable state, the fluents' values
    in a list by the task's fluent numbers (``index``), each applicable step's delta applied in place
    (``Stepper.advance``, as ``check_plan`` does)."""
    from toolkit.stepping import Stepper

    stepper = Stepper(init, None, index)
    for act in plan:
        if not act.is_applicable(stepper.state):
            raise AssertionError(f"{act} not applicable")
        if stepper.advance(act)[1]:
            raise AssertionError(f"{act} reads a fluent without a value")


def measure(domain: Path, problem: Path, steps: int, seed: int) -> dict[str, float] | None:
    from unified_planning.io import PDDLReader
    from unified_planning.plans import ActionInstance
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
    with SequentialSimulator(problem=up_problem) as sim:
        refused = up_refuses(sim, up_plan)
        if refused is not None:  # VAL's tolerance: (> a b) holds for a = b in pgt and VAL, not in UP
            print(f"#   {domain.parent.name}: UP finds step {refused} ({plan[refused - 1]}) inapplicable, "
                  "pgt and VAL do not (VAL's 0.0001 tolerance in comparisons); not timed")
            return None
        # the three steppers' repeats interleaved, as the validation figures' are (interleaved_best)
        best = interleaved_best({
            "ours_steps_s": (lambda: delta_stepping(plan, task.init, task.fluent_index), OURS_RUNS),
            "frozen_steps_s": (lambda: our_stepping(plan, task.init), OURS_RUNS),
            "up_steps_s": (lambda: up_stepping(sim, up_plan), UP_RUNS),
        })
    out.update({name: len(plan) / seconds for name, seconds in best.items()})
    # Validation, phase by phase, each side given the same files and the same plan text:
    # load: domain and problem files read into each side's model;
    # check: the plan text read and checked against the loaded problem, with the per-problem set-up
    # each side's validator does per call (pgt: a fresh Task, its ground-action cache empty; UP: the
    # SequentialSimulator its SequentialPlanValidator builds in every validate call);
    # load+check: pgt's two in one call on fresh copies of the files, with nothing the two phases'
    # repeats share (a Domain object reused by the check phase keeps its per-domain memos).
    reader = PDDLReader()
    ours = check_plan(task, text)
    with tempfile.TemporaryDirectory() as tmp, PlanValidator(problem_kind=up_problem.kind) as validator:
        theirs = validator.validate(up_problem, reader.parse_plan_string(up_problem, text))
        ours_files = iter(fresh_copies(domain, problem, Path(tmp) / "pgt", LOAD_RUNS))
        both_files = iter(fresh_copies(domain, problem, Path(tmp) / "pgt-both", LOAD_RUNS))
        up_files = iter(fresh_copies(domain, problem, Path(tmp) / "up", UP_LOAD_RUNS))
        out.update(interleaved_best({
            "ours_load_s": (lambda: _load_pair(*next(ours_files)), LOAD_RUNS),
            "ours_both_s": (lambda: _validate_files(*next(both_files), text), LOAD_RUNS),
            "ours_check_s": (lambda: check_plan(Task(dom, task.problem), text), OURS_RUNS // 4),
            "up_load_s": (lambda: reader.parse_problem(*map(str, next(up_files))), UP_LOAD_RUNS),
            "up_check_s": (lambda: validator.validate(up_problem, reader.parse_plan_string(up_problem, text)),
                           UP_RUNS),
        }))
    out["agree"] = float(ours.valid == (theirs.status.name == "VALID"))
    out["ours_cold_s"] = cold_first_call(domain, problem, text)
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
    pairs = task_pairs(args.ipc, "bench_numeric")
    print(f"bench_numeric: seed {args.seed}, random applicable walks of up to {args.steps} steps; "
          f"pgt vs unified-planning (target >= {TARGET:.0f}x); CPU time; {load_text()}")
    print(f"stepping: best of {OURS_RUNS} runs of the walk for pgt, {UP_RUNS} for UP (a ready SequentialSimulator: "
          f"is_applicable + apply_unsafe), interleaved over {ROUNDS} rounds; pgt steps one working state as validation does (Stepper.advance; "
          "frozen: a new frozen state per step, GroundAction.apply)")
    print(f"validation by phase, each side given the same files and plan text: load = domain + problem files "
          f"read, each repeat a fresh copy of the files (best of {LOAD_RUNS} / {UP_LOAD_RUNS}); check = the plan text read and checked against the loaded "
          f"problem with each validator's per-call set-up (pgt: check_plan on a fresh Task; UP: parse_plan_string + "
          f"SequentialPlanValidator.validate, which builds its simulator per call; best of {OURS_RUNS // 4} / "
          f"{UP_RUNS}); load+check = pgt's load and check in one call on a fresh copy of the files (nothing "
          f"shared with the phases' repeats), against UP's two phases summed; the repeats of all five interleaved "
          f"over {ROUNDS} rounds. Warm: these repeat the call in one process, and the process-wide memos carry over between repeats (generated numeric code compiled by its text); cold = pgt's load+check as a "
          f"fresh process's first call (modules imported, not timed; best of {COLD_RUNS} processes), "
          f"against UP's warm load+check")
    print(f"{'domain':<19} {'steps':>5} {'pgt st/s':>9} {'frozen':>8} {'UP st/s':>8} {'x':>5} | "
          f"{'load ms pgt':>11} {'UP':>6} {'x':>4} | {'check ms pgt':>12} {'UP':>6} {'x':>4} | "
          f"{'load+check x':>12} {'agree':>5} | {'cold ms':>7} {'x':>4}")
    rows = []
    for label, domain, problem in pairs:
        try:
            res = measure(domain, problem, args.steps, args.seed)
        except Exception as exc:  # noqa: BLE001 - one domain's failure is reported, the others still run
            print(f"#   {label}: {type(exc).__name__}: {str(exc).splitlines()[0][:100]}")
            continue
        if res is None:
            continue
        rows.append(res)
        step_x = res["ours_steps_s"] / res["up_steps_s"]
        load_x = res["up_load_s"] / res["ours_load_s"]
        check_x = res["up_check_s"] / res["ours_check_s"]
        both_x = (res["up_load_s"] + res["up_check_s"]) / res["ours_both_s"]
        cold_x = (res["up_load_s"] + res["up_check_s"]) / res["ours_cold_s"]
        res["x"] = (step_x, load_x, check_x, both_x, cold_x)
        print(f"{label[:19]:<19} {res['steps']:>5.0f} {res['ours_steps_s']:>9,.0f} {res['frozen_steps_s']:>8,.0f} "
              f"{res['up_steps_s']:>8,.0f} {step_x:>4,.0f}x | {1000 * res['ours_load_s']:>11.2f} "
              f"{1000 * res['up_load_s']:>6.0f} {load_x:>3.0f}x | {1000 * res['ours_check_s']:>12.2f} "
              f"{1000 * res['up_check_s']:>6.0f} {check_x:>3.0f}x | {both_x:>11.0f}x {'yes' if res['agree'] else 'NO':>5} | "
              f"{1000 * res['ours_cold_s']:>7.2f} {cold_x:>3.0f}x")
    if rows:
        names = ("stepping", "load", "check", "load+check", "cold load+check")
        spans = ", ".join(f"{n} {min(r['x'][k] for r in rows):.0f}-{max(r['x'][k] for r in rows):.0f}x"
                          for k, n in enumerate(names))
        both = sorted(r["x"][3] for r in rows)
        print(f"# load+check: median {statistics.median(both):.0f}x, "
              f"worst {both[0]:.0f}x (target >= {TARGET:.0f}x: met on {sum(x >= TARGET for x in both)} of {len(both)})")
        cold = sorted(r["x"][4] for r in rows)
        print(f"# cold (a fresh process's first load+check, against UP's warm best): median "
              f"{statistics.median(cold):.0f}x, worst {cold[0]:.0f}x (met on {sum(x >= TARGET for x in cold)} of {len(cold)})")
        met = sum(r["x"][0] >= TARGET for r in rows)
        print(f"# {len(rows)} domains: {spans}; stepping >= {TARGET:.0f}x on {met} of {len(rows)}; "
              f"verdicts agree on {sum(r['agree'] == 1.0 for r in rows)} of {len(rows)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
