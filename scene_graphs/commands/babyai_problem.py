"""``pgt babyai-problem LEVEL --seed N``: a BabyAI level, as minigrid makes it, written as a PDDL problem.

The problem belongs to the shipped ``babyai`` domain; ``pgt validate babyai
PROBLEM PLAN``, ``pgt plan`` and ``pgt run`` studies then work on it, and the
world (``scene_graphs/babyai.py``) rebuilds the level from the problem's name.
"""

from __future__ import annotations

import argparse

from toolkit import cli_args


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("babyai-problem", help="write a BabyAI level and seed as a PDDL problem (needs minigrid)",
                              description=__doc__.splitlines()[0])
    p.add_argument("level", help="a BabyAI level id, e.g. BabyAI-GoToObj-v0 (LLM-BabyBench's custom levels too)")
    p.add_argument("--seed", type=int, default=0, help="the level's seed (default 0)")
    p.add_argument("--out", type=cli_args.output_file, metavar="PATH", help="write here (default: standard output)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from scene_graphs.babyai_problem import problem_text

    from scene_graphs.commands.output import write_or_print

    write_or_print(problem_text(args.level, args.seed), args.out)
    return 0
