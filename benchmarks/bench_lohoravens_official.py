"""pgt's LoHoRavens reward trace against the official pybullet environment, step by step (a script, not a test).

Why: :mod:`toolkit.scoring.lohoravens` claims to compute ``Task.reward()`` /
``Task.done()`` on a symbolic tabletop. This script runs the official
environment and scripted oracle (``benchmarks/lohoravens_official_runner.py``,
in its own venv: torch, kornia, meshcat, pybullet) on seeded instances of each
family, reads back the goal steps, the symbolic moves (which object went to
which target) and the official cumulative reward and ``done()`` after each
``env.step``, then scores the same moves with pgt's :func:`trace` and compares
every step: the oracle's order, its prefixes (every step of the trace is a
truncated sequence) and reordered sequences the physics allows. It also checks
that the goal-step structure the official reset made (metric, weight, matches
pattern per step; see :func:`structure`) is one pgt's seeded builder of the
family makes (:func:`pgt_structures`). Where the traces differ, ``rules`` says
whether pgt's rules give the official trace on the placement the physics made
(each zone object's points inside, as the official scene counted them): then the
difference is the world model's (a block that lands partly outside a zone), not
the reward rules'.

Needs a snapshot of Shengqiang-Zhang/LoHo-Ravens (``--repo``, the git directory
``fetch`` makes) and a venv for it (``--python``; make it with ``python -m venv
/work/venvs/lohoravens && /work/venvs/lohoravens/bin/pip install torch torchvision
kornia meshcat pybullet matplotlib omegaconf opencv-python-headless transforms3d
gym imageio scikit-image absl-py ftfy regex``). Or ``--records FILE`` re-scores a
JSON-lines file the runner wrote. Run: ``python -m benchmarks.bench_lohoravens_official
--families put-hidden-blocks-in-two-layer-towers-into-matching-bowls``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from functools import lru_cache
from pathlib import Path
from typing import Any

from toolkit.scoring import lohoravens_stacks as stacks
from toolkit.scoring.lohoravens import DONE_THRESHOLD, GoalStep, Placement, RewardTrace
from toolkit.scoring.lohoravens_stacks import Level
from toolkit.scoring.lohoravens_families import FAMILIES, make_instance

RUNNER = Path(__file__).with_name("lohoravens_official_runner.py")
DEFAULT_REPO = os.environ.get("PGT_LOHORAVENS_REPO", "/work/.mirror/Shengqiang-Zhang+LoHo-Ravens/repo")
DEFAULT_PYTHON = os.environ.get("PGT_LOHORAVENS_PYTHON", "/work/venvs/lohoravens/bin/python")


def checkout(repo: str, into: Path) -> Path:
    """The task, environment and utility packages of the snapshot's HEAD under ``into`` (``git archive``)."""
    paths = ["cliport/__init__.py", "cliport/tasks", "cliport/environments", "cliport/utils"]
    archive = subprocess.run(["git", f"--git-dir={repo}", "archive", "HEAD", *paths], capture_output=True,
                             check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def run_official(python: str, snapshot: Path, families: list[str], seeds: list[int], reorders: int,
                 timeout: float | None = None) -> list[dict[str, Any]]:
    """The runner's records (it writes them to a file: pybullet prints to the same standard output)."""
    records = snapshot / "runs.jsonl"
    cmd = [python, str(RUNNER), "--snapshot", str(snapshot), "--families", *families,
           "--seeds", *map(str, seeds), "--reorders", str(reorders), "--out", str(records)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if out.returncode != 0:
        raise RuntimeError(f"official runner failed: {out.stderr.strip().splitlines()[-1:]}")
    return read_records(records)


def read_records(path: Path) -> list[dict[str, Any]]:
    """The runner's JSON lines."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("{")]


def goal_steps(record: dict[str, Any]) -> list[GoalStep]:
    """The record's goal steps as pgt's :class:`GoalStep` s (a zone step's matches are over its target poses,
    which the zone metric does not read: pgt's have one column per zone)."""
    out = []
    for s in record["steps"]:
        matches = (tuple(tuple(r) for r in s["matches"]) if s["metric"] == "pose"
                   else tuple(tuple(True for _ in s["targets"]) for _ in s["objects"]))
        out.append(GoalStep(tuple(s["objects"]), matches, tuple(s["targets"]), s["metric"], s["max_reward"],
                            tuple(s.get("points", ()))))
    return out


def stacks_levels(record: dict[str, Any]) -> bool:
    """Whether the record's family is one pgt scores over stack levels (its pose targets are heights over a
    base: :mod:`toolkit.scoring.lohoravens_stacks`)."""
    return record["family"] in FAMILIES and bool(make_instance(record["family"], 0).levels) and "scene" in record


def stacked_states(record: dict[str, Any]) -> list[Placement]:
    """pgt's stacking world on the record's moves: each pose target a :class:`Level` over the column (1 cm in
    the plane, ``pos_eps``) it stands in; a block already standing in a column at the start (the big blocks
    under ``StackSmallerOverBiggerWithSameColor``'s targets) stands on that column; a move to a target puts
    the block on the top of its column's tower, as the oracle's place pose drops it; the height of each block
    from the scene's sizes. The placement after each move, as :func:`toolkit.scoring.lohoravens_stacks.placement`
    reads it."""
    xyz = {}
    for s in record["steps"]:
        for name, t in zip(s["targets"], s.get("target_xyz", []), strict=False):
            xyz.setdefault(name, t)
    columns: list[tuple[float, float]] = []

    def column(x: float, y: float) -> str | None:
        return next((f"col{k + 1}" for k, (cx, cy) in enumerate(columns) if math.hypot(cx - x, cy - y) < 0.01), None)

    for x, y, _z in xyz.values():
        if column(x, y) is None:
            columns.append((x, y))
    targets = tuple(Level(name, column(x, y) or "", z) for name, (x, y, z) in xyz.items())
    sizes = {o: v[3] for o, v in record["scene"].items()}
    on = {}
    for obj, (x, y, z, h) in record["scene"].items():
        col = column(x, y)
        on[obj] = col if col is not None and abs(z - h / 2) < 0.005 else "table"
    blocks = tuple(on)
    level = {t.name: t for t in targets}
    out = []
    for obj, place in record["moves"]:
        rest_of = {b: s for b, s in on.items() if b != obj}
        on[obj] = stacks.top_of(rest_of, level[place].base) if place in level else place
        out.append(stacks.placement(on, blocks, targets, sizes))
    return out


def zone_moves(record: dict[str, Any]) -> list[tuple[str, str]]:
    """The record's moves, a zone step's target named as its zone: runners before the zone_with_z_match fix
    named the level pose the oracle aimed at (``t<k>``) instead; the aimed pose (``aims``) over one of a
    one-zone step's target poses (``zone_targets``) names that zone."""
    out = []
    known = {t for s in record["steps"] for t in s["targets"]}
    for k, (obj, place) in enumerate(record["moves"]):
        if place not in known and record.get("aims"):
            x, y = record["aims"][k][0][:2]
            for s in record["steps"]:
                hits = [t for t in s.get("zone_targets", []) if math.hypot(t[0] - x, t[1] - y) < 0.01]
                if hits and len(s["targets"]) == 1:
                    place = s["targets"][0]
                    break
        out.append((obj, place))
    return out


def pgt_trace(record: dict[str, Any]) -> tuple[list[float], list[bool]]:
    """pgt's cumulative reward and ``done()`` after each of the record's moves: the plain trace (each object at
    the target it was moved to), or, for the stacking families, pgt's stacking world (:func:`stacked_states`)."""
    steps = goal_steps(record)
    start = Placement(dict(record["start"]), {(o, z): n for o, z, n in record.get("start_points", [])})
    if stacks_levels(record):
        states = stacked_states(record)
    else:
        states, state = [], Placement(dict(start.at), dict(start.in_zone))
        for obj, place in zone_moves(record):
            state.at[obj] = place
            state.in_zone = {k: v for k, v in state.in_zone.items() if k[0] != obj}
            states.append(Placement(dict(state.at), dict(state.in_zone)))
    return _scores(steps, states)


def _scores(steps: list[GoalStep], states: list[Placement]) -> tuple[list[float], list[bool]]:
    tracker, scores, done = RewardTrace(steps), [], []
    for state in states:
        tracker.reward(state)
        scores.append(tracker.rewards)
        done.append(tracker.done())
    return scores, done


def pgt_trace_given_physics(record: dict[str, Any]) -> list[float] | None:
    """pgt's reward rules on the placement the physics made. Equal to the official trace where only the world
    model (where a block lands) differs, not the rules. The placement is the scene after
    each step as the runner read it (``matched``: the pose targets each object matches by ``Task.is_match``;
    ``partial_points``: each zone object's points inside). None for records without them (older ones)."""
    partial, matched = record.get("partial_points"), record.get("matched")
    if not (partial and any(partial)) and not (matched and any(matched)):  # older records
        return None
    steps = goal_steps(record)
    tracker = RewardTrace(steps)
    out = []
    for k in range(len(record["moves"])):
        # the scene read as the reward reads it: every pose target each object matches, every zone object's
        # points inside; pgt's rules decide the rest
        state = Placement({}, {(o, z): n for o, z, n in (partial[k] if partial else [])},
                          {o: frozenset(t) for o, t in (matched[k] if matched else {}).items()})
        tracker.reward(state)
        out.append(tracker.rewards)
    return out


def _pattern(matches: Any) -> str:
    rows = [list(r) for r in matches]
    if all(all(r) for r in rows):
        return "ones"
    if all(sum(r) == 1 and r.index(True) == i for i, r in enumerate(rows)):
        return "eye"
    return "other"


def structure(steps: list[Any]) -> list[tuple[str, float, str]]:
    """Per goal step: metric, weight (3 decimals), matches pattern (pose steps; the zone metric reads no matches):
    what the family fixes, not the counts."""
    out = []
    for s in steps:
        metric, weight, matches = ((s["metric"], s["max_reward"], s["matches"]) if isinstance(s, dict)
                                   else (s.metric, s.max_reward, s.matches))
        out.append((metric, round(float(weight), 3), _pattern(matches) if metric == "pose" else "zone"))
    return out


@lru_cache(maxsize=None)
def pgt_structures(family: str, seeds: int = 300) -> frozenset[tuple[tuple[str, float, str], ...]]:
    """The goal-step structures pgt's seeded builder makes for ``family`` over ``seeds`` seeds: an official
    instance's structure must be one of them (its counts and branch come from another RNG)."""
    return frozenset(tuple(structure(list(make_instance(family, s).steps))) for s in range(seeds))


def compare(records: list[dict[str, Any]], tol: float = 1e-6) -> list[dict[str, Any]]:
    """One row per record: steps compared, steps equal (reward and done), the first difference."""
    rows = []
    for rec in records:
        if "error" in rec:
            rows.append({"family": rec["family"], "seed": rec["seed"], "order": "error", "steps": 0, "equal": 0,
                         "first_diff": None, "official": [], "pgt": [], "structure": None, "rules_equal": None,
                         "error": rec["error"]})
            continue
        mine, done = pgt_trace(rec)
        equal = [abs(a - b) <= tol and d == e for a, b, d, e in zip(mine, rec["official"], done, rec["done"],
                                                                       strict=True)]
        first = next((i for i, ok in enumerate(equal) if not ok), None)
        ours = pgt_structures(rec["family"]) if rec["family"] in FAMILIES else None
        physics = pgt_trace_given_physics(rec)
        rows.append({"family": rec["family"], "seed": rec["seed"], "order": rec["order"], "steps": len(equal),
                     "equal": sum(equal), "first_diff": first, "official": rec["official"], "pgt": mine,
                     "rules_equal": None if physics is None else all(
                         abs(a - b) <= tol for a, b in zip(physics, rec["official"], strict=True)),
                     "structure": None if ours is None else tuple(structure(rec["steps"])) in ours})
    return rows


def markdown(rows: list[dict[str, Any]]) -> str:
    """One table row per family: the oracle's and the reordering's steps equal, whether pgt's rules on the
    official scene give the official trace, and the official oracle trace."""
    out = ["| family | oracle: steps equal | reordered: steps equal | rules on the official scene | "
           "official trace (oracle) |", "|---|---:|---:|---|---|"]
    by_seed: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for r in rows:
        by_seed.setdefault((r["family"], r["seed"]), []).append(r)
    useful = {f for (f, _), runs in by_seed.items() if any(r["steps"] for r in runs)}
    for (family, _seed), runs in by_seed.items():
        # a seed whose reset raised or selected no block (the oracle stops at once) gives way to one that did not
        if family in useful and not any(r["steps"] for r in runs):
            continue
        oracle = next((r for r in runs if r["order"] == "oracle"), None)
        other = [r for r in runs if r["order"].startswith("reordered")]
        if oracle is None and not other:
            out.append(f"| `{family}` | - | - | - | {runs[0].get('error', 'no run')} |")
            continue
        rules = {r["rules_equal"] for r in (*other, *([oracle] if oracle else []))}
        seed = (oracle or other[0])["seed"]
        out.append(f"| `{family}` (seed {seed}) | "
                   + (f"{oracle['equal']}/{oracle['steps']}" if oracle else "-") + " | "
                   + (" ".join(f"{r['equal']}/{r['steps']}" for r in other) or "-") + " | "
                   + ("equal" if rules == {True} else "differ" if False in rules else "-") + " | "
                   + (" ".join(f"{v:.3f}" for v in oracle["official"]) if oracle else "-") + " |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--families", nargs="+", default=sorted(FAMILIES))
    ap.add_argument("--seeds", nargs="+", type=int, default=[10001])
    ap.add_argument("--reorders", type=int, default=1)
    ap.add_argument("--repo", default=DEFAULT_REPO)
    ap.add_argument("--python", default=DEFAULT_PYTHON)
    ap.add_argument("--records", help="re-score a JSON-lines file the runner wrote instead of running it")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON lines")
    ap.add_argument("--markdown", action="store_true", help="print one table row per family (docs/scoring.md)")
    args = ap.parse_args(argv)
    started = time.perf_counter()
    if args.records:
        records = read_records(Path(args.records))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            records = run_official(args.python, checkout(args.repo, Path(tmp)), args.families, args.seeds,
                                   args.reorders)
    official_s = time.perf_counter() - started
    rows = compare(records)
    if args.json:
        for row in rows:
            print(json.dumps(row))
    elif args.markdown:
        print(markdown(rows))
    else:
        print(f"{'family':62} {'seed':>6} {'order':12} {'equal':>7}  structure  rules  official trace / pgt trace")
        for r in rows:
            trail = " ".join(f"{v:.3f}" for v in r["official"])
            diff = "" if r["first_diff"] is None else f"  pgt: {' '.join(f'{v:.3f}' for v in r['pgt'])}"
            print(f"{r['family']:62} {r['seed']:>6} {r['order']:12} {r['equal']:>3}/{r['steps']:<3}  "
                  f"{str(r['structure']):9}  {str(r['rules_equal']):5}  {trail}{diff}{r.get('error', '')}")
        total, same = sum(r["steps"] for r in rows), sum(r["equal"] for r in rows)
        print(f"\n{same}/{total} steps equal over {len(rows)} runs ({len({r['family'] for r in rows})} families); "
              f"official runs {official_s:.0f} s; done() threshold {DONE_THRESHOLD}")
    return 0 if all(r["equal"] == r["steps"] and "error" not in r for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
