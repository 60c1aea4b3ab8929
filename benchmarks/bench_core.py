"""Speed of the PDDL core against unified-planning, from one run (a script, not a test).

Why: every study and agent loop steps states and validates plans thousands of
times; the core must be orders of magnitude faster than unified-planning's
simulator on the same work, or the offline studies are not cheap. This prints,
on ViPlan Blocksworld problems (10 blocks in 6 columns; and 40 blocks for
stepping), with a seeded 200-step random applicable plan:

* state stepping (applicability check + successor) vs ``SequentialSimulator``;
* plan validation from plan text (``check_plan``; with a fresh Task, which grounds
  every action it meets, and with a reused Task as ``validate-batch`` does) vs
  ``PlanValidator``;
* domain + problem load time, first in the process (Lark grammar build) and warm.

Targets: stepping >= 1000x, validation >= 100x, warm load <= 10 ms.

Run: ``python -m benchmarks.bench_core`` (``--seed``, ``--steps``).
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from toolkit import model as m
from toolkit.domains import shipped_domain, shipped_problem

TARGET_STEP, TARGET_VALIDATE, TARGET_LOAD_MS = 1000.0, 100.0, 10.0


def viplan_problem(n_blocks: int, n_columns: int, seed: int) -> m.Problem:
    """A ViPlan-style column Blocksworld problem: random towers, random goal towers."""
    rng = random.Random(seed)
    blocks = [f"b{i}" for i in range(1, n_blocks + 1)]
    columns = [f"c{i}" for i in range(1, n_columns + 1)]

    def towers() -> list[m.Atom]:
        atoms, tops = [], {}
        for b in rng.sample(blocks, len(blocks)):
            c = rng.choice(columns)
            atoms.append(m.Atom("inColumn", (b, c)))
            if c in tops:
                atoms.append(m.Atom("on", (b, tops[c])))
            tops[c] = b
        return atoms + [m.Atom("clear", (b,)) for b in tops.values()]

    layout = [m.Atom(rel, (x, y)) for a, b in zip(columns, columns[1:])
              for rel, x, y in (("rightOf", b, a), ("leftOf", a, b))]
    goal = m.And(tuple(m.Pred(a.predicate, a.args) for a in towers()))
    objects = {**{b: "block" for b in blocks}, **{c: "column" for c in columns}}
    return m.Problem(f"viplan-{n_blocks}b-{n_columns}c", "blocksworld", objects,
                     frozenset(towers() + layout), goal)


def random_plan(task: Any, steps: int, seed: int) -> list[Any]:
    rng, state, plan = random.Random(seed), task.init, []
    for _ in range(steps):
        act = rng.choice(task.applicable_actions(state))
        plan.append(act)
        state = act.apply(state)
    return plan


def timed(fn: Callable[[], Any], min_time: float = 0.3, repeat: int = 3) -> float:
    """Best seconds per call of ``fn`` (calls repeated until ``min_time`` passed, best of ``repeat``)."""
    best = float("inf")
    for _ in range(repeat):
        calls, start = 0, time.perf_counter()
        while True:
            fn()
            calls += 1
            elapsed = time.perf_counter() - start
            if elapsed >= min_time:
                break
        best = min(best, elapsed / calls)
    return best


def our_stepping(plan: list[Any], init: frozenset) -> None:
    state = init
    for act in plan:
        if not act.is_applicable(state):
            raise AssertionError(f"{act} not applicable")
        state = act.apply(state)


def up_stepping(sim: Any, up_plan: list[Any]) -> None:
    """The same work with a ready ``SequentialSimulator`` (its construction is not timed)."""
    state = sim.get_initial_state()
    for ai in up_plan:
        if not sim.is_applicable(state, ai):
            raise AssertionError(f"UP: {ai} not applicable")
        state = sim.apply_unsafe(state, ai)


def up_objects(up_problem: Any, plan: list[Any]) -> list[Any]:
    from unified_planning.plans import ActionInstance

    return [ActionInstance(up_problem.action(a.name.lower()), [up_problem.object(o.lower()) for o in a.args])
            for a in plan]


def write_files(folder: Path, problem: m.Problem) -> tuple[Path, Path]:
    from toolkit.loader import load_domain
    from toolkit.writer import write_problem

    dpath, ppath = folder / "domain.pddl", folder / f"{problem.name}.pddl"
    dpath.write_text(shipped_domain("blocksworld").read_text())
    ppath.write_text(write_problem(problem))
    load_domain(dpath)  # the written files must load (checked, not timed)
    return dpath, ppath


def measure(n_blocks: int, n_columns: int, steps: int, seed: int, folder: Path, validate: bool) -> dict[str, float]:
    from unified_planning.io import PDDLReader
    from unified_planning.shortcuts import PlanValidator
    from unified_planning.plans import SequentialPlan

    from toolkit.loader import load_domain, load_problem
    from toolkit.plans import format_plan
    from toolkit.task import Task
    from toolkit.verify import check_plan

    dpath, ppath = write_files(folder, viplan_problem(n_blocks, n_columns, seed))
    domain = load_domain(dpath)
    problem = load_problem(ppath, domain)
    task = Task(domain, problem)
    plan = random_plan(task, steps, seed)
    text = format_plan(plan)
    up_problem = PDDLReader().parse_problem(str(dpath), str(ppath))
    up_plan = up_objects(up_problem, plan)

    out: dict[str, float] = {}
    cold = Task(domain, problem)
    start = time.perf_counter()
    our_stepping([cold.action(a.name, a.args) for a in plan], cold.init)
    out["ours_cold_steps_s"] = steps / (time.perf_counter() - start)
    out["ours_steps_s"] = steps / timed(lambda: our_stepping(plan, task.init))
    from unified_planning.shortcuts import SequentialSimulator

    with SequentialSimulator(problem=up_problem) as sim:
        out["up_steps_s"] = steps / timed(lambda: up_stepping(sim, up_plan), min_time=0.0,
                                          repeat=1 if n_blocks > 20 else 2)
    if validate:
        def ours_validate() -> None:
            report = check_plan(Task(domain, problem), text)
            assert report.failed_step == steps + 1 or report.valid, report.message

        def up_validate() -> None:
            with PlanValidator(problem_kind=up_problem.kind) as validator:
                res = validator.validate(up_problem, SequentialPlan(up_plan))
            assert len(res.trace) == steps + 1

        def ours_validate_warm() -> None:  # as validate-batch does: one Task per problem, many plans
            report = check_plan(task, text)
            assert report.failed_step == steps + 1 or report.valid, report.message

        out["ours_validate_s"] = timed(ours_validate)
        out["ours_validate_warm_s"] = timed(ours_validate_warm)
        out["up_validate_s"] = timed(up_validate, min_time=0.0, repeat=2)
        out["load_warm_ms"] = 1000 * statistics.median(
            _load_once(dpath, ppath) for _ in range(20))
    return out


def _load_once(dpath: Path, ppath: Path) -> float:
    from toolkit.loader import load_domain, load_problem

    start = time.perf_counter()
    load_problem(ppath, load_domain(dpath))
    return time.perf_counter() - start


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--steps", type=int, default=200)
    args = parser.parse_args(argv)

    # First load in this process: includes building the pddl package's Lark grammar.
    start = time.perf_counter()
    from toolkit.loader import load_domain, load_problem
    import_s = time.perf_counter() - start
    start = time.perf_counter()
    load_problem(shipped_problem("blocksworld", "hard_problem_0"), load_domain(shipped_domain("blocksworld")))
    first_ms = 1000 * (time.perf_counter() - start)

    from unified_planning.shortcuts import get_environment
    get_environment().credits_stream = None
    with tempfile.TemporaryDirectory() as tmp:
        small = measure(10, 6, args.steps, args.seed, Path(tmp), validate=True)
        big = measure(40, 6, args.steps, args.seed, Path(tmp), validate=False)

    rows = []
    for label, res in (("10 blocks, 6 columns", small), ("40 blocks, 6 columns", big)):
        ratio = res["ours_steps_s"] / res["up_steps_s"]
        rows.append((f"stepping, {label}", f"{res['ours_steps_s']:,.0f} steps/s",
                     f"{res['up_steps_s']:,.0f} steps/s", f"{ratio:,.0f}x", ">= 1000x", verdict(ratio >= TARGET_STEP)))
        rows.append((f"  first pass (grounding incl.), {label}", f"{res['ours_cold_steps_s']:,.0f} steps/s",
                     "", f"{res['ours_cold_steps_s'] / res['up_steps_s']:,.0f}x", "", ""))
    ratio = small["up_validate_s"] / small["ours_validate_s"]
    rows.append((f"validate {args.steps}-step plan text, 10 blocks (fresh Task)", f"{1000 * small['ours_validate_s']:.2f} ms",
                 f"{1000 * small['up_validate_s']:.0f} ms", f"{ratio:,.0f}x", ">= 100x", verdict(ratio >= TARGET_VALIDATE)))
    ratio = small["up_validate_s"] / small["ours_validate_warm_s"]
    rows.append(("  same, Task reused (validate-batch)", f"{1000 * small['ours_validate_warm_s']:.2f} ms",
                 f"{1000 * small['up_validate_s']:.0f} ms", f"{ratio:,.0f}x", ">= 100x", verdict(ratio >= TARGET_VALIDATE)))
    rows.append(("load domain+problem, 10 blocks, warm", f"{small['load_warm_ms']:.2f} ms", "", "", "<= 10 ms",
                 verdict(small["load_warm_ms"] <= TARGET_LOAD_MS)))
    rows.append(("load domain+problem, first in process", f"{first_ms:.0f} ms", "", "", "(grammar build)", ""))
    rows.append(("import toolkit.loader", f"{1000 * import_s:.0f} ms", "", "", "", ""))

    head = ("measure", "pgt", "unified-planning", "ratio", "target", "")
    widths = [max(len(str(r[i])) for r in (head, *rows)) for i in range(len(head))]
    print(f"bench_core: seed {args.seed}, {args.steps}-step random applicable plans (ViPlan Blocksworld)")
    for r in (head, tuple("-" * w for w in widths), *rows):
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
