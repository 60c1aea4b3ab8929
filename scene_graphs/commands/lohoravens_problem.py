"""``pgt lohoravens-problem FAMILY --seed N``: a seeded LoHoRavens instance as a PDDL problem.

The problem belongs to the shipped ``lohoravens`` domain; its world
(``scene_graphs/lohoravens.py``) rebuilds the instance from the problem's name
and scores every action with LoHoRavens' own reward rules.
"""

from __future__ import annotations

import argparse

from toolkit import cli_args


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("lohoravens-problem", help="write a seeded LoHoRavens task instance as a PDDL problem",
                              description=__doc__.splitlines()[0])
    p.add_argument("family", help="a task family, e.g. put-hidden-blocks-in-two-layer-towers-into-matching-bowls")
    p.add_argument("--seed", type=int, default=0, help="the instance's seed (default 0)")
    p.add_argument("--out", type=cli_args.output_file, metavar="PATH", help="write here (default: standard output)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from scene_graphs.lohoravens import problem_text

    from scene_graphs.commands.output import write_or_print

    write_or_print(problem_text(args.family, args.seed), args.out)
    return 0
