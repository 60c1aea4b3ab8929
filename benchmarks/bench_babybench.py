"""pgt's LLM-BabyBench scores against the benchmark's own evaluators, item by item (a script, not a test).

Why: ``pgt score babybench-batch`` claims to compute what ``evaluators/``
computes. This script makes items with the benchmark's own code (its bot writes
the Predict actions and the Plan reference, as ``generate/`` does), adds model
outputs of three kinds (right, slightly wrong, garbage: see
``benchmarks/babybench_driver.py``), runs the official evaluators on them in the
benchmark's own Python environment, runs pgt on the same items, and compares
every official key (an item the official evaluator refuses must be refused by
pgt too). It prints the agreement per task and output kind and the time each
side took.

Needs a snapshot of choukrani/llm-babybench (``--repo``: a git directory, e.g.
the one ``fetch github:choukrani/llm-babybench`` makes, or ``--code``: a
checkout) and a Python with minigrid for it (``--python``; make one with
``python -m venv /work/venvs/babybench && /work/venvs/babybench/bin/pip install
minigrid pandas``). Run: ``python -m benchmarks.bench_babybench --seeds 1-3``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path
from typing import Any

DRIVER = Path(__file__).with_name("babybench_driver.py")
DEFAULT_REPO = os.environ.get("PGT_BABYBENCH_REPO", "/work/.mirror/choukrani+llm-babybench/repo")
DEFAULT_PYTHON = os.environ.get("PGT_BABYBENCH_PYTHON", "/work/venvs/babybench/bin/python")
# The levels of generate/generate_predict.py and generate_decompose.py (ALL_ENVS), and of generate_plan.py.
PREDICT_LEVELS = ("BabyAI-GoToObj-v0", "BabyAI-GoToRedBallGrey-v0", "BabyAI-GoToRedBall-v0", "BabyAI-GoToLocal-v0",
                  "BabyAI-PutNextLocal-v0", "BabyAI-PickupLoc-v0", "BabyAI-GoToObjMaze-v0", "BabyAI-GoTo-v0",
                  "BabyAI-Pickup-v0", "BabyAI-UnblockPickup-v0", "BabyAI-Open-v0", "BabyAI-Synth-v0",
                  "BabyAI-SynthLoc-v0", "BabyAI-GoToSeq-v0", "BabyAI-SynthSeq-v0", "BabyAI-BossLevel-v0")
PLAN_LEVELS = tuple(f"CustomBabyAI-GoToRedBall-{s}-{n}Dists-v0" for s, ns in
                    (("Small", (4, 5, 6, 7)), ("Medium", (20, 40, 50, 60)), ("Large", (60, 80, 100, 120)),
                     ("Ultra", (120, 140, 160, 180))) for n in ns)


def checkout(repo: str, into: Path) -> Path:
    """A work tree of the snapshot's HEAD under ``into`` (``git archive``, nothing of it enters the project)."""
    data = subprocess.run(["git", f"--git-dir={repo}", "archive", "HEAD"], capture_output=True, check=True).stdout
    with tarfile.open(fileobj=BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    return into


def _json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def official(python: str, code: Path, args: list[str], stdin: str = "") -> list[dict[str, Any]]:
    """Run the driver in the benchmark's environment; its JSON lines (the checkout's own prints dropped)."""
    proc = subprocess.run([python, str(DRIVER), *args], cwd=code, input=stdin, capture_output=True, text=True)
    if proc.returncode:
        raise RuntimeError(f"the official driver failed: {proc.stderr[-2000:]}")
    return _json_lines(proc.stdout)


def pgt_scores(items: list[dict[str, Any]], code: Path) -> list[dict[str, Any]]:
    from toolkit.scoring.babybench_batch import score_items

    return list(score_items(list(enumerate(items, 1)), str(code)))


def compare(items: list[dict[str, Any]], ours: list[dict[str, Any]], theirs: list[dict[str, Any]]) -> list[str]:
    """Disagreements, one line each: a differing official key, or an error on one side only."""
    bad = []
    for item, o, t in zip(items, ours, theirs, strict=True):
        where = f"{item['task']} {item['env']} seed {item['seed']} {item.get('kind', '')}"
        if "error" in t or "error" in o:
            if ("error" in t) != ("error" in o):
                bad.append(f"{where}: official {t.get('error', 'scored')!r}, pgt {o.get('error', 'scored')!r}")
            continue
        for key, value in t.items():
            if o.get(key) != value or type(o.get(key)) is bool and type(value) is not bool:
                bad.append(f"{where}: {key} official {value!r}, pgt {o.get(key)!r}")
    return bad


def run(python: str, code: Path, specs: list[str]) -> tuple[list[dict], list[dict], list[dict], float, float]:
    items = official(python, code, ["generate", *specs])
    start = time.perf_counter()
    theirs = official(python, code, ["evaluate"], "".join(json.dumps(i) + "\n" for i in items))
    t_official = time.perf_counter() - start
    start = time.perf_counter()
    ours = pgt_scores(items, code)
    return items, ours, theirs, t_official, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", default=DEFAULT_REPO, help="git directory of a choukrani/llm-babybench snapshot")
    ap.add_argument("--code", help="a checkout of it instead (default: extracted from --repo)")
    ap.add_argument("--python", default=DEFAULT_PYTHON, help="a Python with minigrid for the official code")
    ap.add_argument("--seeds", default="1-3", help="seed range per level, e.g. 1-3")
    ap.add_argument("--levels", type=int, default=16, help="how many levels of each task (default all 16)")
    args = ap.parse_args(argv)
    specs = ([f"predict:{lv}:{args.seeds}" for lv in PREDICT_LEVELS[:args.levels]]
             + [f"plan:{lv}:{args.seeds}" for lv in PLAN_LEVELS[:args.levels]]
             + [f"decompose:{lv}:{args.seeds}" for lv in PREDICT_LEVELS[:args.levels]])
    with tempfile.TemporaryDirectory() as tmp:
        code = Path(args.code) if args.code else checkout(args.repo, Path(tmp))
        items, ours, theirs, t_off, t_pgt = run(args.python, code, specs)
    bad = compare(items, ours, theirs)
    groups: dict[tuple[str, str], list[int]] = {}
    for item, o, t in zip(items, ours, theirs):
        g = groups.setdefault((item["task"], item["kind"]), [0, 0, 0])
        g[0] += 1
        g[1] += "error" in t
    for line in bad:
        task, env, _, seed, kind = line.split(":")[0].split(" ")[:5]
        groups[(task, kind)][2] += 1
    print(f"{len(items)} items on {args.levels} level(s) per task, seeds {args.seeds}")
    print("| task | output kind | items | refused by the official evaluator | items where pgt differs |")
    print("|---|---|---:|---:|---:|")
    for (task, kind), (n, refused, differ) in sorted(groups.items()):
        print(f"| {task} | {kind} | {n} | {refused} | {differ} |")
    print(f"official evaluators {t_off:.2f} s, pgt {t_pgt:.2f} s (ratio {t_off / t_pgt:.2f})")
    for line in bad[:20]:
        print("DIFF", line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
