"""Oracle episodes per second on viplan-bw/simple with 2 workers (target >= 10/s).

Runs the ViPlan grounder protocol with the oracle grounder over the 25 simple
problems x SEEDS seeds, once with 1 worker and once with 2, and prints both rates.
Usage: python -m benchmarks.bench_episodes [SEEDS]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from benchmarks.runner import RunConfig, read_records, run_study


def main(seeds: int = 4) -> None:
    config = RunConfig(suite="viplan-bw/simple", grounder="oracle", seeds=seeds)
    rates = {}
    for workers in (1, 2):
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            episodes = run_study(config, Path(tmp) / "run", workers=workers, progress=False)
            elapsed = time.perf_counter() - start
            records = read_records(episodes)
            rates[workers] = len(records) / elapsed
            inside = sum(r["seconds"] for r in records) / len(records)
            print(f"{workers} worker(s): {len(records)} episodes in {elapsed:.2f} s = {rates[workers]:.1f} episodes/s "
                  f"(mean {inside * 1000:.1f} ms inside an episode; success {sum(r['success'] for r in records)}/{len(records)})")
    print(f"target >= 10 episodes/s with 2 workers: {'PASS' if rates[2] >= 10 else 'MISS'}; "
          f"2-worker speed-up {rates[2] / rates[1]:.2f}x")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 4)
