"""Domain loading speed of two source trees, alternating, in one run (a script, not a test).

Why: issue 31 asks pgt's load of a numeric domain to be a fraction of its old cost, and
boolean domains must not get slower; on a shared machine only runs interleaved in time
compare. Each round runs one child process per tree (``PYTHONPATH`` the tree), before
then after; each child times ``loader.parse_domain`` of every file in CPU time
(``time.process_time``), the best of ``--calls`` calls, each on a fresh copy of the text
(a unique trailing comment, so nothing keyed by a file's text is reused). The figure of a
tree is its best over the rounds; the ratio is before / after.

Run: ``python -m benchmarks.bench_domain_load --before DIR --after DIR FILE...``
(``--rounds N``, ``--calls N``); DIR a checkout or ``git archive`` of a commit.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path


def child(files: list[str], calls: int) -> dict[str, float]:
    """Each file's best CPU seconds of ``calls`` parse_domain calls (imports from this process's PYTHONPATH)."""
    from toolkit import loader

    out = {}
    for path in files:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
        for k in range(3):  # warm: modules, the interpreter's caches
            loader.parse_domain(f"{text}\n; warm {k}", path)
        fresh = [f"{text}\n; copy {k}" for k in range(calls)]
        best = float("inf")
        for copy in fresh:
            start = time.process_time()
            loader.parse_domain(copy, path)
            best = min(best, time.process_time() - start)
        out[path] = best
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", type=Path, required=True)
    ap.add_argument("--after", type=Path, required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--calls", type=int, default=100)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("files", nargs="+")
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.files, args.calls)))
        return 0
    for tree in (args.before, args.after):
        if not (tree / "toolkit").is_dir():
            raise SystemExit(f"bench_domain_load: {tree}: no toolkit/ there (a checkout of the project)")
    best: dict[str, dict[str, float]] = {}
    for _ in range(args.rounds):
        for name, tree in (("before", args.before), ("after", args.after)):
            env = {**os.environ, "PYTHONPATH": str(tree.resolve())}
            done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", "--before", ".",
                                   "--after", ".", "--calls", str(args.calls), *args.files],
                                  cwd=tree, env=env, capture_output=True, text=True)
            if done.returncode != 0:
                raise SystemExit(f"bench_domain_load: the {name} tree failed: {done.stderr.strip()[-300:]}")
            for path, seconds in json.loads(done.stdout).items():
                slot = best.setdefault(path, {})
                slot[name] = min(slot.get(name, math.inf), seconds)
    print(f"bench_domain_load: parse_domain, CPU us, best of {args.calls} calls x {args.rounds} rounds "
          "(fresh text each call; rounds alternate before/after)")
    print(f"{'domain':<28} {'before':>9} {'after':>9} {'x':>6}")
    ratios = []
    for path, slot in best.items():
        ratio = slot["before"] / slot["after"]
        ratios.append(ratio)
        label = f"{Path(path).parent.name}/{Path(path).name}"[-28:]
        print(f"{label:<28} {slot['before'] * 1e6:9.0f} {slot['after'] * 1e6:9.0f} {ratio:5.2f}x")
    geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
    print(f"# {len(ratios)} files: before/after geometric mean {geo:.2f}x, lowest {min(ratios):.2f}x, "
          f"highest {max(ratios):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
