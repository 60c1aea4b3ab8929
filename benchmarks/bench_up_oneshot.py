"""The up-oneshot answer store: same episodes, fewer unified-planning calls; prints the speed-up and hit rate.

Run: ``python -m benchmarks.bench_up_oneshot [--suite viplan-bw/hard] [--calibration viplan-logs-bw-InternVL3-8B]
[--problems 3] [--seeds 2]``

One ``viplan-grounder`` study (noisy grounder, so beliefs are wrong and replans
many, as in the real grid) runs once untimed (imports, parses and the process's
other caches warm up), then three times in this process, each with a fresh
planner: without the store (``PGT_UP_PLAN_STORE=off``: only the per-process memo,
as before the store), with an empty store (what a study's workers share), and
again on the store the second run filled (a later study, or a resumed one). It
prints wall seconds, where the planner's answers came from (memo, store, planned by
UP) and the store's hit rate, the speed-up of each run against the first, and
whether the three runs wrote the same episodes, record for record (the timing
field aside). A different record is a failure (exit 1): the store must never
change a plan.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.episode import make_planner  # noqa: E402
from benchmarks.runner import run_study  # noqa: E402
from benchmarks.study_config import RunConfig  # noqa: E402
from toolkit.planners.up_oneshot import STORE_ENV  # noqa: E402


def _records(path: Path) -> list[bytes]:
    return sorted(re.sub(rb'"seconds": [0-9.e-]+', b'"seconds": 0', line) for line in path.read_bytes().splitlines())


def _arm(name: str, config: RunConfig, out: Path, store: str) -> tuple[float, dict[str, int], list[bytes]]:
    os.environ[STORE_ENV] = store
    make_planner.cache_clear()  # a fresh planner: empty memo, the store named above
    t0 = time.perf_counter()
    episodes = run_study(config, out / name, workers=1, progress=False)
    seconds = time.perf_counter() - t0
    return seconds, dict(make_planner("up-oneshot").answered), _records(episodes)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="viplan-bw/hard")
    parser.add_argument("--calibration", default="viplan-logs-bw-InternVL3-8B")
    parser.add_argument("--problems", type=int, default=3)
    parser.add_argument("--seeds", type=int, default=2)
    args = parser.parse_args(argv)
    config = RunConfig(suite=args.suite, protocol="viplan-grounder", grounder="noisy", calibration=args.calibration,
                       seeds=args.seeds, problems=args.problems, planner="up-oneshot")
    saved = os.environ.get(STORE_ENV)
    with tempfile.TemporaryDirectory(prefix="pgt-bench-up-") as tmp:
        out, store = Path(tmp), str(Path(tmp) / "plans.sqlite")
        # untimed warm-up: UP's import, the tasks' parses and the per-process caches beside the planner
        # (e.g. predictions_needed's plans) are paid here, so the three timed runs differ only by the store
        _arm("warm-up", config, out, "off")
        arms = [("no store", "off"), ("empty store", store), ("filled store", store)]
        results = [(name, *_arm(f"arm{i}", config, out, where)) for i, (name, where) in enumerate(arms)]
    if saved is None:
        os.environ.pop(STORE_ENV, None)
    else:
        os.environ[STORE_ENV] = saved
    base = results[0][1]
    print(f"{args.suite}, {args.calibration}, {args.problems} problems x {args.seeds} seeds "
          f"({len(results[0][3])} episodes), viplan-grounder with up-oneshot; one process, one worker")
    print(f"{'run':<14}{'seconds':>9}{'memo':>7}{'store':>7}{'planned':>9}{'store hit rate':>16}{'speed-up':>10}")
    for name, seconds, answered, _ in results:
        asked = answered.get("store", 0) + answered.get("planned", 0)
        rate = f"{answered.get('store', 0) / asked:.0%}" if asked and name != "no store" else "-"
        print(f"{name:<14}{seconds:>9.1f}{answered.get('memo', 0):>7}{answered.get('store', 0):>7}"
              f"{answered.get('planned', 0):>9}{rate:>16}{base / seconds:>9.1f}x")
    same = all(r[3] == results[0][3] for r in results[1:])
    print(json.dumps({"episodes identical across the three runs": same}))
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
