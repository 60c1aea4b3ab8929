"""Runs *inside LLM-BabyBench's own environment* (its checkout as the working folder, its venv's Python).

Not part of pgt: ``benchmarks/bench_babybench.py`` starts it as a subprocess so the
official code runs unchanged, with its own imports. Two commands:

* ``generate LEVEL:SEEDS ...``: items as the benchmark's ``generate/`` scripts
  make them (actions and expert plans from its ``omniscient_babyai_bot``
  processor) with model outputs of three kinds (right, slightly wrong,
  garbage), one JSON line each on stdout;
* ``evaluate``: JSON Lines items on stdin, the official evaluator's dict for
  each on stdout (``{"error": ...}`` where the evaluator raises).

Uses only the standard library and what the checkout imports. The checkout prints a line
when it registers its levels: readers keep the lines that are JSON objects.
"""

from __future__ import annotations

import json
import sys
import traceback


def _env(level: str, seed: int):
    from runner.env_loader import make_env  # registers the custom levels, then gym.make + reset(seed)

    return make_env(level, seed)


def _outputs_predict(level: str, seed: int, actions: str) -> list[tuple[str, str]]:
    from copy import deepcopy

    from evaluators.utils import str_action_seq_to_int

    env = _env(level, seed)
    run = deepcopy(env)
    for a in str_action_seq_to_int(actions):
        _, _, term, trunc, _ = run.step(a)
        if term or trunc:
            break
    (x, y), d = tuple(int(v) for v in run.unwrapped.agent_pos), int(run.unwrapped.agent_dir)
    return [("right", f"(({x}, {y}), {d})"), ("wrong-direction", f"(({x}, {y}), {(d + 1) % 4})"),
            ("off-by-one", f"The agent ends at (({x + 1}, {y}), {d})."),
            ("three-integers", f"x {x} y {y} dir {d}"), ("garbage", "I cannot tell."), ("two-integers", f"({x}, {y})")]


def _outputs_plan(actions: str) -> list[tuple[str, str]]:
    steps = [a.strip() for a in actions.split(",") if a.strip()]
    return [("right", actions), ("right-then-more", actions + ", left, forward"),
            ("upper-case-and-junk", ", ".join([s.upper() for s in steps] + ["jump"])),
            ("truncated", ", ".join(steps[:-1])), ("one-step-dropped", ", ".join(steps[1:])),
            ("garbage", "Go to the red ball."), ("spaces", " ".join(steps))]


def _outputs_decompose(level: str, seed: int) -> list[tuple[str, str]]:
    env = _env(level, seed)
    u = env.unwrapped
    targets = []
    for i in range(u.grid.width):
        for j in range(u.grid.height):
            cell = u.grid.get(i, j)
            if cell is not None and cell.type in ("ball", "box", "key"):
                targets.append((i, j))
    first = targets[0] if targets else (1, 1)
    return [("goto-first-object", f"(GoNextToSubgoal, ({first[0]}, {first[1]}))"),
            ("goto-and-pickup", f"(GoNextToSubgoal, ({first[0]}, {first[1]}))\n(PickupSubgoal)"),
            ("near-miss", f"(GoNextToSubgoal, ({first[0] + 1}, {first[1]}))"),
            ("unknown-subgoal", "(FlySubgoal, (1, 1))"), ("garbage", "")]


def generate(specs: list[str]) -> None:
    from custom.custom_minigrid_envs.register import register_envs
    from processors import get_processor

    register_envs()

    processor = get_processor("omniscient_babyai_bot")
    for spec in specs:
        task, level, seeds = spec.split(":")
        lo, hi = (int(v) for v in seeds.split("-"))
        for seed in range(lo, hi + 1):
            try:
                if task == "predict":
                    actions = processor.process(level, seed, task="predict")
                    outs = _outputs_predict(level, seed, actions)
                    extra = {"actions": actions}
                elif task == "plan":
                    optimal = processor.process(level, seed, task="plan")
                    outs, extra = _outputs_plan(optimal), {"optimal": optimal}
                else:
                    outs, extra = _outputs_decompose(level, seed), {}
            except Exception as exc:  # a level the bot cannot solve: no items
                print(f"skip {task} {level} {seed}: {exc}", file=sys.stderr)
                continue
            for kind, output in outs:
                print(json.dumps({"task": task, "env": level, "seed": seed, "kind": kind, "output": output, **extra}))


def evaluate() -> None:
    from custom.custom_minigrid_envs.register import register_envs
    from evaluators import get_evaluator

    register_envs()  # as runner/env_loader.py does before any evaluator runs
    for line in sys.stdin:
        if not line.strip():
            continue
        item = json.loads(line)
        try:
            ev = get_evaluator(item["task"])
            if item["task"] == "predict":
                res = ev.evaluate(item["env"], item["seed"], str_action_seq=item["actions"], predicted_output=item["output"])
            elif item["task"] == "plan":
                res = ev.evaluate(item["env"], item["seed"], optimal_action_seq=item["optimal"], llm_action_seq=item["output"])
            else:
                res = ev.evaluate(_env(item["env"], item["seed"]), llm_output=item["output"])
            res = {k: (bool(v) if type(v).__name__ == "bool_" else v) for k, v in res.items()}
        except Exception as exc:
            res = {"error": f"{type(exc).__name__}: {exc}", "where": traceback.format_exc(limit=-1).strip().splitlines()[-3:]}
        print(json.dumps(res, default=float), flush=True)


if __name__ == "__main__":
    sys.path.insert(0, ".")  # the checkout's packages (evaluators, custom, processors, runner)
    if sys.argv[1] == "generate":
        generate(sys.argv[2:])
    else:
        evaluate()
