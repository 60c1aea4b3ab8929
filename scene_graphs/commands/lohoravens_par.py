"""``pgt lohoravens-par FAMILY``: offline Planner-Actor-Reporter episodes with LoHoRavens' metrics.

A seeded noisy oracle planner (``--wrong``: a wrong target, ``--skip``: an
unusable reply), the tabletop world as actor (``--action-failure``: a
pick-and-place that moves nothing), an oracle or noisy reporter
(``--accuracy``), seeds 0..N-1 of the family. One JSON line per episode, then
the mean reward and success rate with standard errors, as LoHoRavens' evaluation
reports ``mean_reward`` (``cliport/eval_llm_vlm.py``) and ``done()``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from toolkit import cli_args


def _probability(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be in [0, 1], got {text}")
    return value


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("lohoravens-par", help="offline LoHoRavens Planner-Actor-Reporter episodes, "
                              "scored with LoHoRavens' reward and success", description=__doc__.splitlines()[0])
    p.add_argument("family", help="a task family (pgt lohoravens-problem lists them on a wrong name)")
    p.add_argument("--seeds", type=int, default=10, help="episodes: instances 0..N-1 (default 10)")
    p.add_argument("--wrong", type=_probability, default=0.0, help="chance the planner names a wrong target")
    p.add_argument("--skip", type=_probability, default=0.0, help="chance the planner's reply is unusable")
    p.add_argument("--action-failure", type=_probability, default=0.0, help="chance a pick-and-place moves nothing")
    p.add_argument("--accuracy", type=_probability, help="a noisy reporter with this accuracy (default: oracle)")
    p.add_argument("--json", action="store_true", help="also print the summary as a last JSON line")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from grounders.calibration import ErrorModel
    from grounders.noisy import NoisyOracle
    from grounders.oracle import Oracle
    from scene_graphs import make_world
    from scene_graphs.lohoravens import problem_text
    from toolkit.agents.par import NoisyOraclePlanner, run_par
    from toolkit.domains import shipped_domain
    from toolkit.scoring.metrics import mean_stderr
    from toolkit.task import load_task

    episodes = []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(args.seeds):
            path = Path(tmp) / f"{seed}.pddl"
            path.write_text(problem_text(args.family, seed), encoding="utf-8")
            world = make_world(load_task(shipped_domain("lohoravens"), path), failure_prob=args.action_failure,
                               seed=seed)
            reporter = Oracle() if args.accuracy is None else NoisyOracle(ErrorModel.uniform(args.accuracy), seed=seed)
            ep = run_par(world, NoisyOraclePlanner(world, args.wrong, args.skip, seed), reporter).to_json()
            episodes.append(ep)
            print(json.dumps(ep), flush=True)
    reward, reward_se, n = mean_stderr(e["total_reward"] for e in episodes)
    success, success_se, _ = mean_stderr(e["success"] for e in episodes)
    fmt = lambda m, se: f"{m:.3f}" + ("" if se is None else f" ± {se:.3f}")  # noqa: E731
    print(f"{args.family}: {n} episodes, mean reward {fmt(reward, reward_se)}, success {fmt(success, success_se)}")
    if args.json:
        print(json.dumps({"summary": True, "episodes": n, "mean_reward": reward, "mean_reward_stderr": reward_se,
                          "success": success, "success_stderr": success_se}))
    return 0
