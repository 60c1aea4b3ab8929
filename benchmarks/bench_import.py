"""Import apartment-scale VirtualHome scenes with and without task-relevant pruning.

Run: ``.venv/bin/python benchmarks/bench_import.py [--nodes 300] [--scenes 3] [--seed 0] [--timeout 30]``

Each generated scene has ``--nodes`` nodes (5 rooms, furniture, closed
containers, grabbable objects on furniture or inside containers, a character) in
the ``{init_graph, final_graph}`` shape, and a goal that moves one object into a
container and another onto a piece of furniture. For the whole scene and for the
``--prune goal`` scene it prints, from the same run: objects, initial atoms,
ground actions, and the time and length of an ``auto`` plan (our A*, then Fast
Downward beyond 100,000 states) within ``--timeout`` seconds.
"""

from __future__ import annotations

import argparse
import random
import time

from scene_graphs.importers import goal_literals, load_scene, prune, relevant_objects, to_problem
from toolkit import loader
from toolkit.domains import shipped_domain
from toolkit.planners import get_planner
from toolkit.task import Task

ROOMS = ("kitchen", "livingroom", "bedroom", "bathroom", "office")


def apartment(nodes: int = 300, seed: int = 0) -> dict:
    """A VirtualHome-style ``{init_graph, final_graph}`` scene of ``nodes`` nodes and its two-object goal."""
    rng = random.Random(seed)
    out: list[dict] = [{"id": 1, "class_name": "character", "category": "Characters", "properties": [], "states": []}]
    edges: list[dict] = []
    rooms = list(range(10, 10 + len(ROOMS)))
    out += [{"id": r, "class_name": name, "category": "Rooms", "properties": [], "states": []}
            for r, name in zip(rooms, ROOMS)]
    edges.append({"from_id": 1, "relation_type": "INSIDE", "to_id": rng.choice(rooms)})
    rest = nodes - len(out)
    n_furniture, n_containers = rest // 5, rest // 8
    furniture, containers, movables = [], [], []
    for i in range(rest):
        nid = 100 + i
        if i < n_furniture:
            out.append({"id": nid, "class_name": rng.choice(("table", "shelf", "desk", "counter")),
                        "category": "Furniture", "properties": ["SURFACES"], "states": []})
            furniture.append(nid)
        elif i < n_furniture + n_containers:
            out.append({"id": nid, "class_name": rng.choice(("cabinet", "fridge", "drawer", "box")),
                        "category": "Furniture", "properties": ["CAN_OPEN", "CONTAINERS"], "states": ["CLOSED"]})
            containers.append(nid)
        else:
            out.append({"id": nid, "class_name": rng.choice(("cup", "apple", "book", "plate", "towel")),
                        "category": "Props", "properties": ["GRABBABLE"], "states": []})
            movables.append(nid)
            where = rng.random() < 0.7
            edges.append({"from_id": nid, "relation_type": "ON" if where else "INSIDE",
                          "to_id": rng.choice(furniture if where else containers)})
        if nid in furniture or nid in containers:
            edges.append({"from_id": nid, "relation_type": "INSIDE", "to_id": rng.choice(rooms)})
    a, b = rng.sample(movables, 2)
    final = [e for e in edges if e["from_id"] not in (a, b) or e["to_id"] in rooms]
    final += [{"from_id": a, "relation_type": "INSIDE", "to_id": rng.choice(containers)},
              {"from_id": b, "relation_type": "ON", "to_id": rng.choice(furniture)}]
    return {"init_graph": {"nodes": out, "edges": edges}, "final_graph": {"nodes": out, "edges": final}}


def import_task(scene: dict, pruned: bool) -> Task:
    """The household task of a wrapper scene, whole or pruned to the goal."""
    report = load_scene(scene)
    lines = goal_literals(report, report.final)
    graph = prune(report.graph, relevant_objects(report.graph, lines)) if pruned else report.graph
    domain = loader.load_domain(shipped_domain("household"))
    return Task(domain, loader.parse_problem(to_problem(graph, "apartment", goal_lines=lines), domain))


def measure(scene: dict, pruned: bool, timeout: float) -> dict:
    t0 = time.perf_counter()
    task = import_task(scene, pruned)
    imported = time.perf_counter() - t0
    t0 = time.perf_counter()
    ground = sum(1 for _ in task.all_actions())
    grounding = time.perf_counter() - t0
    result = get_planner("auto").solve(task, timeout=timeout)
    return {"objects": len(task.problem.objects), "atoms": len(task.init), "ground": ground,
            "import_s": imported, "ground_s": grounding, "status": result.status.value,
            "length": len(result.plan) if result.solved else None, "plan_s": result.time, "planner": result.planner}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=300)
    ap.add_argument("--scenes", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=30.0)
    args = ap.parse_args()
    print(f"{'scene':>5} {'mode':>6} {'objects':>7} {'atoms':>6} {'ground':>7} {'status':>8} {'len':>4} "
          f"{'plan s':>7} planner")
    speedups = []
    for i in range(args.scenes):
        scene = apartment(args.nodes, args.seed + i)
        rows = {mode: measure(scene, mode == "pruned", args.timeout) for mode in ("whole", "pruned")}
        for mode, r in rows.items():
            print(f"{i:>5} {mode:>6} {r['objects']:>7} {r['atoms']:>6} {r['ground']:>7} {r['status']:>8} "
                  f"{r['length'] if r['length'] is not None else '-':>4} {r['plan_s']:>7.2f} {r['planner']}")
        if rows["whole"]["status"] == "solved":
            speedups.append(rows["whole"]["plan_s"] / max(rows["pruned"]["plan_s"], 1e-6))
            assert rows["whole"]["length"] == rows["pruned"]["length"], "pruning changed the optimal length"
    if speedups:
        print(f"plan time whole / pruned (solved scenes): x{min(speedups):.0f} .. x{max(speedups):.0f}")


if __name__ == "__main__":
    main()
