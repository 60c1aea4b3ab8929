"""Run LoHoRavens' official pybullet environment and scripted oracle; print each run as one JSON line.

Why a separate script: the official task code imports torch, kornia, meshcat and
pybullet, which pgt does not depend on. This script runs under its own venv
(``/work/venvs/lohoravens``, see docs/scoring.md) with the official snapshot's
``cliport`` package on ``sys.path``; :mod:`bench_lohoravens_official` reads its
output and scores the same moves with pgt.

For each (family, seed) it:

1. builds the task as ``cliport/demos.py`` ``main`` does (``tasks.names[...]()``,
   ``mode``, ``np.random.seed`` / ``random.seed``, ``env.set_task``, ``env.reset``);
2. writes the goal steps as pgt reads them: objects named ``o<id>``, pose targets
   named by their pose (the same pose in two steps is one name), zones ``zone<k>``,
   points per object as ``get_box_object_points`` gives them;
3. runs the oracle (``Task.oracle``) for ``task.max_steps`` steps as ``demos.py`` does,
   recording after each ``env.step`` the cumulative ``task._rewards`` and ``done``,
   and the move as a symbolic (object, target) pair: the picked object is the top one
   under ``pose0``; the target the one the placed object's intended pose lands on;
4. replays, on a fresh reset with the same seed, ``--reorders`` random orders of the
   oracle's moves that respect what is physically possible (a block under another moves
   after it; a target resting on another target is filled after it), driving
   ``env.step`` with the pick pose at the object and the place pose at the target, as
   the oracle builds them.

Two things are replaced. ``Environment._get_obs`` (by an empty observation): it renders the
agent cameras, which neither the oracle (it renders its own) nor the reward reads. And the
environment module's wall clock, by :class:`StepClock`: ``Environment.movej`` gives up a motion
after 5 s of wall time, and ``Environment.step`` stops letting objects settle after 5 s, so on a
loaded machine (2 cores shared by many processes) a move is cut short and the episode ends
(``step`` returns done on a timeout) where a free machine completes it; counted in loop turns
the outcome no longer depends on the machine's load.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from typing import Any


def _setup(snapshot: str) -> Any:
    import types

    sys.path.insert(0, snapshot)
    # cliport/__init__.py imports the learning agents (pytorch_lightning, transformers); the tasks and the
    # environment need none of them, so the package is registered without running its __init__.
    package = types.ModuleType("cliport")
    package.__path__ = [os.path.join(snapshot, "cliport")]
    sys.modules["cliport"] = package
    from cliport import tasks
    from cliport.environments.environment import Environment

    Environment._get_obs = lambda self: {"color": (), "depth": ()}  # see the module docstring
    sys.modules[Environment.__module__].time = StepClock()  # see the module docstring
    return tasks, Environment


class StepClock:
    """The environment module's clock: 1 ms per reading, so ``Environment.movej``'s and ``Environment.step``'s
    5 s timeouts are 5,000 loop turns (simulation steps) on any machine, loaded or not."""

    def __init__(self) -> None:
        self.now = 0.0

    def time(self) -> float:
        self.now += 0.001
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def _key(pose: Any) -> tuple[float, float, float]:
    return tuple(round(float(v), 4) for v in pose[0])


class Run:
    """One official instance: its goal steps under pgt's names, and the moves made on it."""

    def __init__(self, env: Any, task: Any) -> None:
        import numpy as np
        import pybullet as p

        self.env, self.task, self.p, self.np = env, task, p, np
        self.names: dict[tuple[float, float, float], str] = {}
        self.zones: list[tuple[Any, Any]] = []
        self.steps = []
        for objs, matches, targs, _rep, _rot, metric, params, max_reward in task.goals:
            step: dict[str, Any] = {"objects": [f"o{o[0]}" for o in objs], "metric": metric,
                                    "max_reward": float(max_reward),
                                    "matches": [[bool(v) for v in row] for row in np.asarray(matches)]}
            if metric == "pose":
                step["targets"] = [self._target(t) for t in targs]
                step["target_xyz"] = [list(map(float, t[0])) for t in targs]
            else:
                obj_pts, zones = params
                step["targets"] = [self._zone(z) for z in zones]
                step["objects"] = [f"o{i}" for i in obj_pts]
                step["points"] = [int(np.asarray(obj_pts[i]).shape[1]) for i in obj_pts]
                step["zone_targets"] = [list(map(float, t[0])) for t in targs]
            self.steps.append(step)
        self.goal_ids = sorted({int(o[1:]) for s in self.steps for o in s["objects"]})
        self.consider_z = bool(task.consider_z_in_match)
        # each goal object's height (its bounding box): pgt's stacking geometry needs it
        self.heights = {f"o{i}": round(float(p.getAABB(i)[1][2] - p.getAABB(i)[0][2]), 4) for i in self.goal_ids}
        self.start = {f"o{i}": self.where(i) for i in self.goal_ids}
        # every movable object at the start, [x, y, z, height]: what a stack target stands over (a block no step
        # lists, such as the big blocks under StackSmallerOverBiggerWithSameColor's targets)
        self.scene = {f"o{i}": [*(round(float(v), 4) for v in p.getBasePositionAndOrientation(i)[0]),
                                round(float(p.getAABB(i)[1][2] - p.getAABB(i)[0][2]), 4)]
                      for i in env.obj_ids["rigid"]}
        self.start_points = self.zone_points(task.goals)

    def zone_points(self, goals: list, every: bool = False) -> list[list[Any]]:
        """Objects partly inside a zone (``every``: all the zone steps' objects): ``[object, zone, points
        inside]`` (``Task.reward``'s count), for the zone steps of ``goals``."""
        from cliport.utils import utils

        out = []
        for _objs, _m, _t, _r, _rot, metric, params, _w in goals:
            if metric not in ("zone", "zone_with_z_match"):
                continue
            obj_pts, zones = params
            for zone in zones:
                name, (zpose, zsize) = self._zone(zone), zone
                for oid, pts in obj_pts.items():
                    to_zone = utils.multiply(utils.invert(zpose), self.p.getBasePositionAndOrientation(oid))
                    local = self.np.asarray(utils.apply(to_zone, pts))
                    n = int(self.np.sum((abs(local[0]) < zsize[0] / 2) & (abs(local[1]) < zsize[1] / 2)))
                    if every or 0 < n < pts.shape[1]:
                        out.append([f"o{oid}", name, n])
        return out

    def matched(self, goals: list) -> dict[str, list[str]]:
        """Every pose target each goal object matches now (``Task.is_match`` with the object's symmetry and the
        task's ``consider_z_in_match``): the scene's own placement, read the way the reward reads it."""
        out: dict[str, list[str]] = {}
        for objs, _m, targs, _r, _rot, metric, _params, _w in goals:
            if metric != "pose":
                continue
            for oid, (symmetry, _) in objs:
                pose = self.p.getBasePositionAndOrientation(oid)
                hits = out.setdefault(f"o{oid}", [])
                for targ in targs:
                    name = self._target(targ)
                    if name not in hits and self.task.is_match(pose, targ, symmetry, consider_z=self.consider_z):
                        hits.append(name)
        return out

    def _target(self, pose: Any) -> str:
        return self.names.setdefault(_key(pose), f"t{len(self.names) + 1}")

    def _zone(self, zone: Any) -> str:
        for k, (pose, size) in enumerate(self.zones):
            if _key(pose) == _key(zone[0]) and tuple(size) == tuple(zone[1]):
                return f"zone{k + 1}"
        self.zones.append(zone)
        return f"zone{len(self.zones)}"

    def where(self, obj_id: int) -> str:
        """The object's symbolic place: a pose target it matches, a zone it lies in wholly, else 'table'."""
        pose = self.p.getBasePositionAndOrientation(obj_id)
        for step in self.task.goals:
            if step[5] != "pose":
                continue
            for targ in step[2]:
                if self.task.is_match(pose, targ, self.np.pi / 2, consider_z=self.task.consider_z_in_match):
                    return self._target(targ)
        for k, (zpose, zsize) in enumerate(self.zones):
            inside = self._inside(pose[0], zpose, zsize)
            if inside:
                return f"zone{k + 1}"
        return "table"

    def _inside(self, xyz: Any, zpose: Any, zsize: Any) -> bool:
        from cliport.utils import utils

        local = self.np.asarray(utils.apply(utils.invert(zpose), self.np.float32(xyz))).reshape(-1)
        return abs(local[0]) < zsize[0] / 2 and abs(local[1]) < zsize[1] / 2

    def picked(self, pose0: Any) -> int:
        """The object under ``pose0`` in the oracle's own segmentation (``Task.get_true_image``), as it chose it."""
        from cliport.utils import utils

        _, _, mask = self.task.get_true_image(self.env)
        u, v = utils.xyz_to_pix(pose0[0], self.task.bounds, self.task.pix_size)
        return int(mask[min(max(u, 0), mask.shape[0] - 1), min(max(v, 0), mask.shape[1] - 1)])

    def intended_pose(self, obj_id: int, act: dict) -> Any:
        """The pose the oracle's place pose puts the object in (``pose1`` times the grasp, as ``Task.oracle``
        built it): position and orientation (pose targets match the yaw too, ``Task.is_match``)."""
        from cliport.utils import utils

        obj_pose = self.p.getBasePositionAndOrientation(obj_id)
        obj_to_pick = utils.multiply(utils.invert(act["pose0"]), obj_pose)
        return utils.multiply(act["pose1"], obj_to_pick)

    def intended(self, obj_id: int, act: dict) -> Any:
        """The position of :meth:`intended_pose`."""
        return self.np.float32(self.intended_pose(obj_id, act)[0])

    def target_of(self, obj_id: int, act: dict) -> str:
        """Where the oracle means the object to go: the goal target nearest the object's intended pose."""
        xyz = self.intended(obj_id, act)
        step = self.task.goals[0]
        if step[5] in ("zone", "zone_with_z_match"):
            for k, (zpose, zsize) in enumerate(self.zones):
                if self._inside(xyz, zpose, zsize):
                    return f"zone{k + 1}"
            return "table"
        dists = [float(self.np.linalg.norm(self.np.float32(t[0]) - xyz)) for t in step[2]]
        return self._target(step[2][int(self.np.argmin(dists))])


def _reset(env: Any, tasks: Any, family: str, seed: int, mode: str) -> Any:
    import numpy as np

    task = tasks.names[family]()
    task.mode = mode
    task.task_difficulty_level = "easy"
    np.random.seed(seed)
    random.seed(seed)
    env.set_task(task)
    env.reset()
    return task


def oracle_run(env: Any, tasks: Any, family: str, seed: int, mode: str) -> dict:
    task = _reset(env, tasks, family, seed, mode)
    run = Run(env, task)
    agent = task.oracle(env)
    moves, aims, official, done_flags, partial, matched = [], [], [], [], [], []
    goals = list(task.goals)  # the steps as reset made them (the task pops them as they complete)
    info = env.info
    for _ in range(task.max_steps):
        act = agent.act(None, info)
        if act is None:  # the oracle found no visible object to pick (it empties the goals)
            break
        obj = run.picked(act["pose0"])
        moves.append([f"o{obj}", run.target_of(obj, act)])
        aim = run.intended_pose(obj, act)
        aims.append([[float(v) for v in aim[0]], [float(v) for v in aim[1]]])
        _obs, _reward, done, info = env.step(act)
        official.append(float(task._rewards))
        done_flags.append(bool(done))
        partial.append(run.zone_points(goals, every=True))
        matched.append(run.matched(goals))
        if done:
            break
    return {"consider_z": run.consider_z, "heights": run.heights, "matched": matched, "scene": run.scene,
            "family": family, "seed": seed, "mode": mode, "order": "oracle", "steps": run.steps,
            "start": run.start, "start_points": run.start_points, "moves": moves, "aims": aims, "official": official, "done": done_flags,
            "partial_points": partial, "max_steps": int(task.max_steps)}


def _feasible_order(rec: dict, env: Any, rng: random.Random) -> list[int]:
    """A random order of the oracle's moves that the physics allows (see the module docstring)."""
    import numpy as np
    import pybullet as p

    pos = {o: np.float32(p.getBasePositionAndOrientation(int(o[1:]))[0]) for o, _ in rec["moves"]}
    txyz = {}
    for step in rec["steps"]:
        for name, xyz in zip(step["targets"], step.get("target_xyz", []), strict=False):
            txyz[name] = np.float32(xyz)

    def above(a: Any, b: Any) -> bool:
        return bool(np.hypot(*(a[:2] - b[:2])) < 0.03 and a[2] > b[2] + 0.01)

    moves = [tuple(m) for m in rec["moves"]]
    left, out = list(range(len(moves))), []
    while left:
        ok = []
        for i in left:
            obj, targ = moves[i]
            blocked = any(above(pos[moves[k][0]], pos[obj]) for k in left if k != i)
            under = targ in txyz and any(moves[k][1] in txyz and above(txyz[targ], txyz[moves[k][1]])
                                         for k in left if k != i)
            if not blocked and not under:
                ok.append(i)
        i = rng.choice(ok or left)
        out.append(i)
        left.remove(i)
    return out


def restacked(rec: dict, order: list[int], rng: random.Random) -> list[tuple[str, str, Any]]:
    """The moves in ``order``, where a stack's levels are filled: the objects of one goal step that may take
    the same targets (one ``matches`` row) swap levels at random. The levels must still be filled bottom-up,
    so only who goes where can change; each object is aimed at its new level's pose (the aims are object
    poses, the same for any block of one size)."""
    moves = [(rec["moves"][i][0], rec["moves"][i][1], rec["aims"][i]) for i in order]
    rows = {}
    for k, step in enumerate(rec["steps"]):
        if step["metric"] != "pose":
            continue
        for obj, row in zip(step["objects"], step["matches"], strict=True):
            rows.setdefault(obj, (k, tuple(row), rec.get("heights", {}).get(obj)))
    groups: dict[Any, list[int]] = {}
    for n, (obj, _t, _a) in enumerate(moves):
        if obj in rows:
            groups.setdefault(rows[obj], []).append(n)
    out = list(moves)
    for slots in groups.values():
        objs = [moves[n][0] for n in slots]
        rng.shuffle(objs)
        for n, obj in zip(slots, objs, strict=True):
            out[n] = (obj, moves[n][1], moves[n][2])
    return out


def replay(env: Any, tasks: Any, rec: dict, moves: list[tuple[str, str, Any]], name: str) -> dict:
    """``moves`` (object, target, aimed object pose) driven through ``env.step``: the pick pose on the object,
    the place pose at the pose the oracle aimed an object at, with the oracle's pose arithmetic
    (``Task.oracle``)."""
    import numpy as np
    import pybullet as p
    from cliport.utils import utils

    task = _reset(env, tasks, rec["family"], rec["seed"], rec["mode"])
    run = Run(env, task)
    goals = list(task.goals)
    official, done_flags, made, aims, partial, matched = [], [], [], [], [], []
    for obj, targ, aim in moves:
        oid = int(obj[1:])
        obj_pose = p.getBasePositionAndOrientation(oid)
        # the oracle picks at a pixel of the object's mask, at the height map's height there (Task.oracle)
        _, hmap, _ = task.get_true_image(env)
        pix = utils.xyz_to_pix(obj_pose[0], task.bounds, task.pix_size)
        pick = (np.asarray(utils.pix_to_xyz(pix, hmap, task.bounds, task.pix_size)), np.asarray((0, 0, 0, 1)))
        euler = utils.quatXYZW_to_eulerXYZ(obj_pose[1])
        obj_pose = (obj_pose[0], utils.eulerXYZ_to_quatXYZW((0, 0, euler[2])))
        pick_to_obj = utils.invert(utils.multiply(utils.invert(pick), obj_pose))
        place = utils.multiply(tuple(map(tuple, aim)), pick_to_obj)
        _obs, _r, done, _info = env.step({"pose0": pick, "pose1": (np.asarray(place[0]), np.asarray(place[1]))})
        made.append([obj, targ])
        aims.append(aim)
        official.append(float(task._rewards))
        done_flags.append(bool(done))
        partial.append(run.zone_points(goals, every=True))
        matched.append(run.matched(goals))
        if done:
            break
    return {**rec, "order": name, "moves": made, "aims": aims, "official": official, "done": done_flags,
            "partial_points": partial, "matched": matched}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--snapshot", required=True, help="a checkout of Shengqiang-Zhang/LoHo-Ravens")
    ap.add_argument("--families", nargs="+", required=True)
    ap.add_argument("--seeds", nargs="+", type=int, default=[10001])
    ap.add_argument("--mode", default="test")
    ap.add_argument("--reorders", type=int, default=1)
    ap.add_argument("--out", required=True, help="JSON-lines file to append the runs to (pybullet prints to stdout)")
    args = ap.parse_args(argv)
    tasks, Environment = _setup(args.snapshot)
    env = Environment(os.path.join(args.snapshot, "cliport/environments/assets"), disp=False, hz=480,
                      record_cfg={"save_video": False, "blender_render": False})  # cfg/data.yaml record
    out = open(args.out, "a", encoding="utf-8")  # noqa: SIM115  (one file for the whole run)

    def emit(record: dict) -> None:
        out.write(json.dumps(record) + "\n")
        out.flush()

    for family in args.families:
        for seed in args.seeds:
            try:
                rec = oracle_run(env, tasks, family, seed, args.mode)
                emit(rec)
                rng = random.Random(seed)
                for k in range(args.reorders):
                    _reset(env, tasks, family, seed, args.mode)
                    # each object's first move only: the oracle repeats a move that did not land (a toppled
                    # stack), which a reordering of a failed run would only repeat out of place
                    firsts = [n for n, m in enumerate(rec["moves"]) if m[0] not in {x[0] for x in rec["moves"][:n]}]
                    rec = {**rec, "moves": [rec["moves"][n] for n in firsts], "aims": [rec["aims"][n] for n in firsts]}
                    oracle = [(m[0], m[1], a) for m, a in zip(rec["moves"], rec["aims"], strict=True)]
                    for _ in range(50):  # an order other than the oracle's, where the physics allows one
                        moves = restacked(rec, _feasible_order(rec, env, rng), rng)
                        if moves != oracle:
                            break
                    emit(replay(env, tasks, rec, moves, f"reordered-{k + 1}"))
            except Exception as exc:  # one family's failure is reported, the others still run
                emit({"family": family, "seed": seed, "error": f"{type(exc).__name__}: {exc}"})
    out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
