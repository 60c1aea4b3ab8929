"""``pgt lohoravens-par FAMILY``: Planner-Actor-Reporter episodes with LoHoRavens' metrics.

The planner: a seeded noisy oracle (``--wrong``: a wrong target, ``--skip``: an
unusable reply) for offline studies, or ``--planner llm``: a chat model behind an
OpenAI-compatible endpoint (``--model``, ``--base-url``, ``OPENAI_API_KEY``) given
LoHoRavens' own prompt (:mod:`toolkit.agents.par_prompts`; ``--feedback``). The
tabletop world is the actor (``--action-failure``: a pick-and-place that moves
nothing). The reporter: the oracle, a noisy one (``--accuracy``), or ``--reporter
vlm``: a VLM asked about the rendered tabletop image. Seeds 0..N-1 of the family.
One JSON line per episode, then the mean reward and success rate with standard
errors, as LoHoRavens' evaluation reports ``mean_reward``
(``cliport/eval_llm_vlm.py``) and ``done()``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path



def _probability(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be in [0, 1], got {text}")
    return value


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("lohoravens-par", help="LoHoRavens Planner-Actor-Reporter episodes (a noisy oracle "
                              "or an LLM plans), scored with LoHoRavens' reward and success",
                              description=__doc__.splitlines()[0].replace("``", ""))
    p.add_argument("family", help="a task family (a wrong name lists them)")
    p.add_argument("--seeds", type=int, default=10, help="episodes: instances 0..N-1 (default 10)")
    p.add_argument("--wrong", type=_probability, default=0.0, help="chance the planner names a wrong target")
    p.add_argument("--skip", type=_probability, default=0.0, help="chance the planner's reply is unusable")
    p.add_argument("--action-failure", type=_probability, default=0.0, help="chance a pick-and-place moves nothing")
    p.add_argument("--accuracy", type=_probability, help="a noisy reporter with this accuracy (default: oracle)")
    p.add_argument("--planner", choices=("noisy-oracle", "llm"), default="noisy-oracle",
                   help="the seeded noisy oracle (default) or a chat model through the endpoint")
    p.add_argument("--reporter", choices=("oracle", "noisy", "vlm"),
                   help="oracle (default), noisy (with --accuracy) or a VLM over the rendered image")
    p.add_argument("--feedback", choices=("official", "delivered"), default="official",
                   help="official: the LLM planner sees the reporter's words only as eval_llm_vlm.py passes them "
                        "(not at all after the start); delivered: pgt passes them under the prompt's keys")
    p.add_argument("--model", help="the chat model (default: PGT_VLM_MODEL / OPENAI_MODEL)")
    p.add_argument("--base-url", help="the OpenAI-compatible endpoint (default: OPENAI_BASE_URL)")
    p.add_argument("--json", action="store_true", help="also print the summary as a last JSON line")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from scene_graphs import make_world
    from scene_graphs.lohoravens import problem_text
    from toolkit.agents.par import run_par
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
            ep = run_par(world, _planner(args, world, seed), _reporter(args, world.task, seed)).to_json()
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


def _planner(args: argparse.Namespace, world: object, seed: int) -> object:
    from toolkit.agents.par import LLMStepPlanner, NoisyOraclePlanner

    if args.planner == "noisy-oracle":
        return NoisyOraclePlanner(world, args.wrong, args.skip, seed)
    from grounders.vlm import VLMConfig

    client = VLMConfig.from_env(model=args.model, base_url=args.base_url).client()
    # cliport/llm.py get_next_step_gpt_planner_config: temperature 0, max_tokens 256
    return LLMStepPlanner(lambda messages: client.complete(messages, temperature=0.0, max_tokens=256).text,
                          feedback=args.feedback)


def _reporter(args: argparse.Namespace, task: object, seed: int) -> object:
    from grounders.calibration import ErrorModel
    from grounders.noisy import NoisyOracle
    from grounders.oracle import Oracle

    reporter = args.reporter or ("oracle" if args.accuracy is None else "noisy")
    if reporter == "vlm":
        from types import SimpleNamespace

        from grounders.factory import build_grounder

        config = SimpleNamespace(grounder="vlm", model=args.model, base_url=args.base_url, cot=False)
        return build_grounder(config, task, "test", seed)
    if reporter == "noisy":
        return NoisyOracle(ErrorModel.uniform(0.9 if args.accuracy is None else args.accuracy), seed=seed)
    return Oracle()
