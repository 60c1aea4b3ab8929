"""``pgt import-scene``: turn a GraSIF / VirtualHome scene graph into household PDDL.

Writes ``<out>/problems/<name>.pddl`` and ``<out>/layouts/<name>.toml`` so the
result can be checked with ``pgt validate household <problem> <plan>`` and drawn
with ``pgt render household <problem>``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from toolkit import cli_args

from scene_graphs.schema import SceneGraphError


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "import-scene", help="convert a GraSIF/VirtualHome scene graph JSON into a household PDDL problem",
        description="Read a scene graph JSON and write an igibson-domain problem plus its layout file.")
    p.add_argument("scene", type=cli_args.input_file, help="scene graph JSON (VirtualHome nodes/edges or GraSIF nodes)")
    p.add_argument("--goal", type=cli_args.input_file,
                   help="goal scene graph JSON; the goal is what it adds to the start "
                        "(default: the scene's own final_graph, if it is an {init_graph, final_graph} file)")
    p.add_argument("--prune", choices=("none", "goal"), default="none",
                   help="goal: keep only the objects the goal and the actions it needs can touch "
                        "(task-relevant pruning; apartment-scale scenes then plan in seconds)")
    p.add_argument("--name", type=cli_args.non_empty, help="problem name (default: the JSON file's stem)")
    p.add_argument("--out", required=True, type=cli_args.output_dir, help="output folder (problems/ and layouts/ are created)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from scene_graphs.importers import load_scene, pddl_name, to_layout, to_problem

    from scene_graphs.importers import containers_from_use, goal_literals, prune, relevant_objects

    start = _naming(args.scene, load_scene, args.scene)
    goal = _naming(args.goal, load_scene, args.goal) if args.goal else start.final
    containers_from_use(start, goal)
    goal_lines = _naming(args.goal or args.scene, goal_literals, start, goal) if goal is not None else []
    graph = start.graph
    if args.prune == "goal":
        if goal is None:
            raise SceneGraphError("--prune goal needs a goal (--goal FILE or a final_graph in the scene)")
        graph = prune(graph, relevant_objects(graph, goal_lines))
    name = pddl_name(args.name or Path(args.scene).stem)
    out = Path(args.out)
    (out / "problems").mkdir(parents=True, exist_ok=True)
    (out / "layouts").mkdir(parents=True, exist_ok=True)
    problem = out / "problems" / f"{name}.pddl"
    problem.write_text(to_problem(graph, name, goal_lines=goal_lines, dropped=start.dropped))
    (out / "layouts" / f"{name}.toml").write_text(to_layout(graph))
    kinds: dict[str, int] = {}
    for _, kind in graph.nodes(data="kind"):
        kinds[kind] = kinds.get(kind, 0) + 1
    print(f"wrote {problem} and {out / 'layouts' / (name + '.toml')}")
    print("nodes: " + ", ".join(f"{v} {k}" for k, v in sorted(kinds.items()))
          + (f" (pruned from {start.graph.number_of_nodes()})" if graph is not start.graph else ""))
    print(f"goal: {len(goal_lines)} literal(s)" if goal is not None else "goal: none (no --goal, no final_graph)")
    if start.dropped:
        print("dropped relations without a PDDL counterpart: "
              + ", ".join(f"{k} x{v}" for k, v in sorted(start.dropped.items())))
    return 0


def _naming(path: str, read, *inputs):
    """``read(*inputs)``, with a scene graph error prefixed by the file it is about (once)."""
    try:
        return read(*inputs)
    except SceneGraphError as exc:
        if str(exc).startswith(f"{path}:"):
            raise
        raise SceneGraphError(f"{path}: {exc}", exc.node) from None
