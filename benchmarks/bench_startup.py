"""Start-up cost of ``pgt validate`` against a bare Python start, from one run (a script, not a test).

Why: scripts and LLM loops call ``pgt validate`` once per plan, so its fixed cost
(interpreter, imports, grammar) is paid on every call. The CLI imports only the
module of the subcommand that runs and reads plain PDDL files without Lark (a
file that needs the full parser loads its grammar from the disk cache), so a call
should cost at most 3x ``python -c pass`` (target, issue #33).

Measured here, alternating so that machine load hits both alike: ``python -c
pass``, ``pgt --version``, ``pgt validate`` of the golden plan of ViPlan's
hard Blocksworld problem (after one warm-up call, which fills the grammar cache),
and, on a held-out problem (logistics98 prob01 from a mirror of
aibasel/downward-benchmarks, a seeded 20-step walk), ``pgt validate`` and VAL's
``Validate`` (the ``bench`` extra; left out without it or without the mirror).
The machine load is printed with the figures.
Prints the median wall time of each and the ratios. The calls run with
Python's bytecode cache on, as a normal install has it (``PYTHONDONTWRITEBYTECODE``
is dropped from their environment; the warm-up call writes the cache).

Run: ``python -m benchmarks.bench_startup`` (``--repeat N``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.heldout import load_text

from toolkit.domains import DOMAINS_ROOT

TARGET_RATIO = 3.0
PROBLEM = "hard_problem_0"


def pgt_command() -> list[str]:
    """The ``pgt`` console script beside this interpreter (as users run it), else ``-m toolkit.cli``."""
    script = Path(sys.executable).parent / "pgt"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "toolkit.cli"]


def child_env() -> dict[str, str]:
    """This environment with the bytecode cache on (a sandbox may turn it off; users' installs have it)."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def wall(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=child_env())
    elapsed = time.perf_counter() - t0
    if done.returncode not in (0, 1):  # 1: an invalid plan (the held-out walk need not reach the goal)
        raise SystemExit(f"bench_startup: {' '.join(cmd)} exited {done.returncode}: {done.stderr.strip()}")
    return elapsed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=15, help="calls of each command (median reported)")
    args = ap.parse_args(argv)
    folder = DOMAINS_ROOT / "blocksworld"
    plan = folder / "golden" / "valid" / f"{PROBLEM}.plan"
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "pgt --version": [*pgt_command(), "--version"],
        "pgt validate": [*pgt_command(), "validate", str(folder / "domain.pddl"),
                         str(folder / "problems" / f"{PROBLEM}.pddl"), str(plan)],
    }
    tmp = tempfile.TemporaryDirectory()
    commands.update(_heldout(Path(tmp.name)))
    for cmd in commands.values():
        wall(cmd)  # warm-up: fills the grammar cache and the OS file cache
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.repeat):
        for name, cmd in commands.items():
            times[name].append(wall(cmd))
    base = statistics.median(times["python -c pass"])
    print(f"# start-up, median of {args.repeat} calls each, interleaved (blocksworld {PROBLEM}, "
          f"{len(plan.read_text().split())} plan tokens; held-out: logistics98 prob01, 20 steps); {load_text()}")
    print(f"{'command':<16} {'median ms':>10} {'x python -c pass':>17}")
    for name, ts in times.items():
        med = statistics.median(ts)
        print(f"{name:<16} {med * 1000:>10.1f} {med / base:>17.1f}")
    for name in (n for n in times if n.startswith("pgt validate")):
        ratio = statistics.median(times[name]) / base
        verdict = "meets" if ratio <= TARGET_RATIO else "MISSES"
        print(f"{name} / python -c pass = {ratio:.1f}x ({verdict} the target of at most {TARGET_RATIO:g}x)")
    tmp.cleanup()
    return 0


def _heldout(folder: Path) -> dict[str, list[str]]:
    """``pgt validate`` and VAL on logistics98 prob01 with a seeded 20-step walk (none without the mirror)."""
    import random

    from benchmarks.heldout import DOWNWARD_BENCHMARKS, mirror_pair
    from benchmarks.val_peer import val_binary
    from toolkit.plans import format_plan
    from toolkit.task import load_task

    try:
        dom, prob = mirror_pair(DOWNWARD_BENCHMARKS, "logistics98/domain.pddl", "logistics98/prob01.pddl", folder)
    except SystemExit as exc:
        print(f"# held-out problem left out: {exc}")
        return {}
    task, rng, state, plan = load_task(dom, prob), random.Random(0), None, []
    state = task.init
    for _ in range(20):
        plan.append(rng.choice(task.applicable_actions(state)))
        state = plan[-1].apply(state)
    plan_file = folder / "walk.plan"
    plan_file.write_text(format_plan(plan))
    out = {"pgt validate (held-out)": [*pgt_command(), "validate", str(dom), str(prob), str(plan_file)]}
    val = val_binary()
    if val is not None:
        out["VAL (held-out)"] = [str(val), str(dom), str(prob), str(plan_file)]
    return out


if __name__ == "__main__":
    sys.exit(main())
