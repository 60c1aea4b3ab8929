"""``pgt generate DOMAIN --count N --seed S ... --out DIR``: write seeded PDDL problems.

Column Blocksworld: ``--blocks N --columns M --min-length A --max-length B`` (or
``--split simple|medium|hard`` for the ViPlan sizes). Household (igibson):
``--task FAMILY --min-length A --max-length B`` (families from
pddl_domains/household/tasks.toml; ``--task list`` lists them). Lengths are
optimal plan lengths, checked with the optimal planner. The same seed writes the
same bytes. Exit codes: 0 written, 2 bad input or too few problems in range.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from toolkit.domains import resolve_domain_arg
from toolkit.errors import PgtError
from toolkit.task import load_domain_cached
from toolkit import cli_args


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("generate", help="generate seeded problems with an optimal plan-length range",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("domain", help="blocksworld or household (name, folder or domain file)")
    p.add_argument("--count", type=cli_args.count, default=10, help="number of problems")
    p.add_argument("--seed", type=cli_args.seed, default=0, help="random seed")
    p.add_argument("--blocks", type=cli_args.count, help="number of blocks (blocksworld)")
    p.add_argument("--columns", type=cli_args.count, help="number of columns (blocksworld, 2 to 100)")
    p.add_argument("--split", choices=["simple", "medium", "hard"], help="ViPlan split sizes (blocksworld)")
    p.add_argument("--task", help="task family (household); 'list' to list them")
    p.add_argument("--min-length", type=cli_args.non_negative, help="minimum optimal plan length")
    p.add_argument("--max-length", type=cli_args.count, help="maximum optimal plan length")
    p.add_argument("--prefix", type=cli_args.non_empty, help="file name prefix (default: split, 'problem' or the family)")
    p.add_argument("--out", type=cli_args.output_dir, help="output folder (created if missing)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from toolkit.generators import SPLITS, generate_blocksworld, generate_household, load_families

    domain = load_domain_cached(resolve_domain_arg(args.domain))
    if not args.out and not (domain.name == "igibson" and args.task in (None, "list")):
        raise PgtError("give --out DIR")
    if args.min_length is not None and args.max_length is not None and args.min_length > args.max_length:
        raise PgtError(f"--min-length {args.min_length} is above --max-length {args.max_length}")
    if domain.name == "igibson":
        families = load_families()
        if args.task in (None, "list"):
            for key, fam in families.items():
                print(f"{key:<28} {fam.title}")
            return 0 if args.task == "list" else 2
        problems = generate_household(args.task, args.min_length or 1, args.max_length or 30, args.count, args.seed,
                                      args.prefix)
    elif domain.name == "blocksworld":
        blocks, columns, lo, hi = SPLITS[args.split] if args.split else (None, None, None, None)
        blocks, columns = args.blocks or blocks, args.columns or columns
        if blocks is None or columns is None:
            raise PgtError("give --blocks and --columns (or --split simple|medium|hard)")
        lo = args.min_length if args.min_length is not None else (lo if lo is not None else 1)
        hi = args.max_length if args.max_length is not None else (hi if hi is not None else 30)
        problems = generate_blocksworld(blocks, columns, lo, hi, args.count, args.seed,
                                        args.prefix or args.split or "problem")
    else:
        raise PgtError(f"no generator for domain '{domain.name}' (generators: blocksworld, household)")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for p in problems:
        (out / f"{p.name}.pddl").write_text(p.text, encoding="utf-8")
        print(f"{out / (p.name + '.pddl')}  optimal length {p.optimal_length}")
    return 0
