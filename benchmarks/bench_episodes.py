"""Oracle episodes per second from the CLI: 1 and 2 local workers and Ray with 2 CPUs, in one run.

Each figure is one ``pgt run`` process of its own (cold caches: it parses, plans and
counts questions itself), timed from start to exit, over about EPISODES episodes
(default 500: each problem of a suite run with as many seeds as that takes) with
the oracle grounder, per suite. The ratio of 2 to 1 local workers is the local
scaling figure (target >= 1.7x on 2 cores); Ray includes starting a local 2-CPU
cluster, which is what a one-machine Ray run costs. The default suites span what a
study runs: viplan-bw/simple (500 episodes in about 2 s, so Python's start and
exit weigh most there), all of viplan-bw, and all of viplan-hh.

The writer's CPU seconds (the ``pgt run`` process itself, not its workers) are the
serial part of a parallel run; they move far less than wall time when other work
shares the machine, so a change in the writer's cost shows even on a busy machine.
So do the local workers' CPU seconds (all of them together): more than the one
worker's run spends on its episodes is work a second process adds. Other work on
the machine during the runs is printed too (Linux: CPU time /proc/stat counts that
this benchmark's processes did not use), as cores' worth: a wall-clock speed-up
means little while other work holds a core.

Python's bytecode is compiled by an untimed one-episode run first, as an installed
package has it (``PYTHONDONTWRITEBYTECODE`` would otherwise recompile every module
in every timed run); that run warms no study cache, since each run is a new process.

Usage: python -m benchmarks.bench_episodes [EPISODES] [--suite S ...] [--repeat N] [--no-ray]
(with --repeat the runs alternate and medians are printed)
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.store import read_records

# runs the CLI, then prints its own CPU seconds (RUSAGE_SELF: without its workers) and those of the worker
# processes it waited for (RUSAGE_CHILDREN) on stderr
_TIMED = ("import resource, sys\n"
          "from toolkit.cli import main\n"
          "code = main(sys.argv[1:])\n"
          "usage = resource.getrusage(resource.RUSAGE_SELF)\n"
          "kids = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
          "print(f'writer-cpu {usage.ru_utime + usage.ru_stime:.4f} workers-cpu {kids.ru_utime + kids.ru_stime:.4f}',"
          " file=sys.stderr)\n"
          "sys.exit(code)\n")
RUNS = (("1 local worker", ("--workers", "1")), ("2 local workers", ("--workers", "2")),
        ("Ray, 2 CPUs", ("--executor", "ray", "--workers", "2")))


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


SUITES = ("viplan-bw/simple", "viplan-bw", "viplan-hh")


def _command(suite: str, seeds: int, out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-c", _TIMED, "run", "--suite", suite, "--grounder", "oracle",
            "--seeds", str(seeds), "--quiet", "--out", str(out), *extra]


def _seeds_for(suite: str, episodes: int) -> tuple[int, int]:
    """(seeds per problem, episodes) for about ``episodes`` episodes of ``suite``."""
    from benchmarks.study_config import RunConfig, episode_specs

    problems = len(episode_specs(RunConfig(suite=suite, grounder="oracle", seeds=1)))
    seeds = max(1, math.ceil(episodes / problems))
    return seeds, seeds * problems


def _run(suite: str, seeds: int, out: Path, *extra: str) -> tuple[float, float, float, float]:
    """(episodes per second, the writer's and its workers' CPU seconds, other work's cores) of one ``pgt run``."""
    machine = _machine_cpu()
    start = time.perf_counter()
    done = subprocess.run(_command(suite, seeds, out, *extra), check=True, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, env=_env())
    wall = time.perf_counter() - start
    rate = len(read_records(out / "episodes.jsonl")) / wall
    lines = [line.split() for line in done.stderr.splitlines() if line.startswith("writer-cpu ")]
    writer, workers = (float(lines[-1][1]), float(lines[-1][3])) if lines else (float("nan"), float("nan"))
    after = _machine_cpu()
    others = float("nan") if math.isnan(machine) else (after - machine - writer - workers) / wall
    return rate, writer, workers, max(others, 0.0)


def _machine_cpu() -> float:
    """CPU seconds every process on the machine has used since boot (NaN where /proc/stat is not there)."""
    try:
        with open("/proc/stat", encoding="ascii") as fh:
            fields = [int(x) for x in fh.readline().split()[1:]]
    except (OSError, ValueError):
        return float("nan")
    busy = sum(fields[:8]) - fields[3] - fields[4]  # all but idle and iowait (guest time is already in user)
    return busy / os.sysconf("SC_CLK_TCK")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("episodes", nargs="?", type=int, default=500, help="episodes per suite, about (default 500)")
    parser.add_argument("--suite", action="append", help=f"suite to run (repeatable; default {', '.join(SUITES)})")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each kind, alternating; medians printed")
    parser.add_argument("--no-ray", action="store_true", help="leave out the Ray run")
    args = parser.parse_args(argv)
    runs = RUNS[:2] if args.no_ray else RUNS
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(_command("viplan-bw/simple", 1, Path(tmp) / "warm-up", "--problems", "1", "--workers", "1"),
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_env())
        for suite in args.suite or SUITES:
            _bench_suite(suite, *_seeds_for(suite, args.episodes), runs, args.repeat, Path(tmp))


def _bench_suite(suite: str, seeds: int, episodes: int, runs: tuple, repeat: int, tmp: Path) -> None:
    rates: dict[str, list[float]] = {name: [] for name, _ in runs}
    cpus: dict[str, list[tuple[float, float, float]]] = {name: [] for name, _ in runs}  # writer, workers, others
    failed: set[str] = set()
    # local runs alternate; Ray's come after them all: a Ray cluster's teardown goes on after its driver
    # exits and slowed the next local run by a quarter (seen with the kinds alternating)
    order = sorted(((i, run) for i in range(repeat) for run in runs), key=lambda item: "local" not in item[1][0])
    for i, (name, extra) in order:
        if name in failed:
            continue
        out = tmp / f"{suite.replace('/', '-')}-{name.replace(' ', '-').replace(',', '')}-{i}"
        try:
            rate, *cpu = _run(suite, seeds, out, *extra)
        except subprocess.CalledProcessError as exc:
            tail = (exc.stderr or "").strip().splitlines()[-1:] or ["no message"]
            print(f"{suite}, {name}: failed ({tail[0]})")
            failed.add(name)
            continue
        rates[name].append(rate)
        cpus[name].append((cpu[0], cpu[1], cpu[2]))
    print(f"{suite}: {episodes} episodes ({seeds} seeds per problem)")
    for name, _ in runs:
        if rates[name]:
            writer, workers, others = (statistics.median(c[i] for c in cpus[name]) for i in range(3))
            local = f", workers CPU {workers:.2f} s" if "local" in name and workers > 0 else ""
            rate = statistics.median(rates[name])
            print(f"  {name}: {rate:.1f} episodes/s ({episodes / rate:.2f} s, writer CPU {writer:.2f} s{local}, "
                  f"other work {others:.1f} cores, median of {len(rates[name])})")
    if rates["1 local worker"] and rates["2 local workers"]:
        ratio = statistics.median(rates["2 local workers"]) / statistics.median(rates["1 local worker"])
        print(f"  2-worker speed-up {ratio:.2f}x (target >= 1.7x on 2 cores): {'PASS' if ratio >= 1.7 else 'MISS'}")


if __name__ == "__main__":
    main()
