"""Oracle episodes per second from the CLI: 1 and 2 local workers and Ray with 2 CPUs, in one run.

Each figure is one ``pgt run`` process of its own (cold caches: it parses, plans and
counts questions itself), timed from start to exit, over the 25 viplan-bw/simple
problems x SEEDS seeds with the oracle grounder. The ratio of 2 to 1 local workers
is the local scaling figure (target >= 1.7x on 2 cores); Ray includes starting a
local 2-CPU cluster, which is what a one-machine Ray run costs.
Usage: python -m benchmarks.bench_episodes [SEEDS] (default 20: 500 episodes)
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.store import read_records


def _run(seeds: int, out: Path, *extra: str) -> float:
    """Episodes per second of one ``pgt run`` process."""
    command = [sys.executable, "-m", "toolkit.cli", "run", "--suite", "viplan-bw/simple", "--grounder", "oracle",
               "--seeds", str(seeds), "--quiet", "--out", str(out), *extra]
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return len(read_records(out / "episodes.jsonl")) / (time.perf_counter() - start)


def main(seeds: int = 20) -> None:
    rates: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, extra in (("1 local worker", ("--workers", "1")), ("2 local workers", ("--workers", "2")),
                            ("Ray, 2 CPUs", ("--executor", "ray", "--workers", "2"))):
            try:
                rates[name] = _run(seeds, Path(tmp) / name.replace(" ", "-").replace(",", ""), *extra)
            except subprocess.CalledProcessError:
                print(f"{name}: failed (is Ray installed? pip install -e \".[ray]\")")
                continue
            print(f"{name}: {rates[name]:.1f} episodes/s ({25 * seeds} episodes)")
    if "1 local worker" in rates and "2 local workers" in rates:
        ratio = rates["2 local workers"] / rates["1 local worker"]
        print(f"2-worker speed-up {ratio:.2f}x (target >= 1.7x on 2 cores): {'PASS' if ratio >= 1.7 else 'MISS'}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
