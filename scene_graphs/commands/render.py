"""``pgt render``: draw a problem's world, and the state after each plan step, to PNGs.

This is how a user looks at what a VLM will see: ``step_000.png`` is the initial
state and ``step_NNN.png`` the state after step NNN. Steps run on the scene graph
(not on the PDDL core); a step whose preconditions fail in the world is reported
and leaves the state unchanged.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from toolkit.domains import add_task_arguments, load_task_args
from toolkit import cli_args
from toolkit.errors import PgtError


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "render", help="draw a problem's scene-graph world (and each plan step) to PNG files",
        description="Write step_000.png (initial state) and, with --plan, step_NNN.png after each step, "
                    "plus states.jsonl with the true and visible atoms of each image.")
    add_task_arguments(p)
    p.add_argument("--plan", type=cli_args.input_file, help="plan file to execute step by step")
    p.add_argument("--out", required=True, type=cli_args.output_dir, help="output folder (created)")
    p.add_argument("--layout", type=cli_args.input_file, help="household layout TOML (default: layouts/<problem>.toml beside the problems)")
    p.add_argument("--failure-prob", type=cli_args.probability, default=0.0, help="probability that an action fails (default 0)")
    p.add_argument("--seed", type=cli_args.seed, default=0, help="seed of the failure model (default 0)")
    add_render_arguments(p)
    p.set_defaults(func=run)


def add_render_arguments(p: argparse.ArgumentParser) -> None:
    """``--render-mode`` and ``--labels/--no-labels``: how household images are drawn (pgt render, run, compare)."""
    p.add_argument("--render-mode", choices=("schematic", "pictorial"), default="schematic",
                   help="household images: schematic (names in boxes, the default) or pictorial (pictograms and "
                        "colours, so a VLM must look rather than read; docs/worlds.md)")
    p.add_argument("--labels", action=argparse.BooleanOptionalAction, default=None,
                   help="write object names in the image (default: on for schematic, off for pictorial)")


def render_options(args: argparse.Namespace) -> tuple[str, bool]:
    """The checked (mode, labels) of :func:`add_render_arguments`' flags (a clear error for schematic --no-labels)."""
    from scene_graphs.views import check_render_mode

    # commands without the flags (pgt demo) draw the default view
    return check_render_mode(getattr(args, "render_mode", "schematic"), getattr(args, "labels", None))


def run(args: argparse.Namespace) -> int:
    from scene_graphs.registry import make_world
    from toolkit.commands.validate import read_text
    from toolkit.plans import read_plan_actions

    mode, labels = render_options(args)
    task = load_task_args(args)
    world = make_world(task, failure_prob=args.failure_prob, seed=args.seed, layout=args.layout,
                       render_mode=mode, labels=labels)
    actions = []
    if args.plan:
        actions = read_plan_actions(read_text(args.plan), task)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    obs = world.reset(seed=args.seed)
    if obs.render is None:  # a world without a view (a plug-in may have none)
        raise PgtError(f"the {task.domain.name} world draws no images; pgt render needs a world with a view")
    status = 0
    with open(out / "states.jsonl", "w") as log:
        for i in range(len(actions) + 1):
            note = ""
            if i > 0:
                outcome = world.execute(actions[i - 1])
                obs = outcome.observation
                note = ("not executed: preconditions do not hold in the world" if not outcome.executed
                        else f"failed: {outcome.failure}" if outcome.failure else "ok")
                status = status or (0 if outcome.executed else 1)
            path = out / f"step_{i:03d}.png"
            path.write_bytes(obs.png())
            log.write(json.dumps({
                "step": i, "action": str(actions[i - 1]) if i else None, "result": note or None,
                "image": path.name, "true": sorted(map(str, obs.truth)),
                "visible": None if obs.visible is None else sorted(map(str, obs.visible)),
            }) + "\n")
            print(f"{path}" + (f"  {actions[i - 1]}: {note}" if i else "  initial state"))
    if actions:
        print(f"goal {'holds' if task.goal_holds(world.true_state()) else 'does not hold'} in the final state")
    return status
