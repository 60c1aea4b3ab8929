"""Generate the ViPlan suites as files (fixed seeds), validated solvable at the stated lengths.

Run ``python -m benchmarks.build_suites`` to rebuild ``benchmarks/suites/``; the
output is byte-stable for the seeds below. Splits follow the ViPlan paper:
Blocksworld Table 5 (simple 3 blocks / 4 columns / 3-5 optimal steps; medium
5 / 5 / 5-10; hard 6 / 4 / 8-15) and household Table 6 (task families and
minimal action counts, +-1 step so every family yields enough distinct
problems; the paper's "locking every door/window" tasks cannot be written in its
own PDDL domain, which has no lock predicate, so their share goes to the other
simple families).
"""

from __future__ import annotations

import sys
from pathlib import Path

from toolkit.generators.blocksworld import generate_blocksworld
from toolkit.generators.household import generate_household

ROOT = Path(__file__).resolve().parent / "suites"

BW = {"simple": (3, 4, 3, 5, 101), "medium": (5, 5, 5, 10, 202), "hard": (6, 4, 8, 15, 303)}
# split -> [(family, instances, minimal actions)] after ViPlan Table 6
HH = {
    "simple": [("cleaning_out_drawers", 9, 5), ("packing_food_for_work", 8, 5), ("sorting_books", 8, 4)],
    "medium": [("cleaning_out_drawers", 2, 10), ("collecting_misplaced_items", 4, 8), ("packing_food_for_work", 4, 10),
               ("putting_away_toys", 5, 8), ("sorting_books", 4, 8), ("sorting_groceries", 6, 10)],
    "hard": [("cleaning_out_drawers", 5, 15), ("organizing_boxes_in_garage", 5, 11), ("organizing_file_cabinet", 4, 14),
             ("putting_away_toys", 4, 12), ("sorting_groceries", 7, 13)],
}
HH_STEPS = {"simple": 10, "medium": 20, "hard": 30}


def _write(folder: Path, problems) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.pddl"):
        old.unlink()
    for p in problems:
        (folder / f"{p.name}.pddl").write_text(p.text, encoding="utf-8")


def build_blocksworld() -> None:
    meta = ['domain = "blocksworld"', "", "[splits]"]
    for split, (blocks, cols, lo, hi, seed) in BW.items():
        problems = generate_blocksworld(blocks, cols, lo, hi, 25, seed, prefix=split)
        _write(ROOT / "viplan-bw" / split, problems)
        meta.append(f'{split} = {{ max_steps = 20, blocks = {blocks}, columns = {cols}, plan_length = "{lo}-{hi}" }}')
        print(f"viplan-bw/{split}: lengths {sorted(p.optimal_length for p in problems)}", file=sys.stderr)
    (ROOT / "viplan-bw" / "suite.toml").write_text("\n".join(meta) + "\n", encoding="utf-8")


def build_household() -> None:
    meta = ['domain = "household"', "", "[splits]"]
    for split, families in HH.items():
        problems = []
        for i, (family, count, length) in enumerate(families):
            problems += generate_household(family, max(1, length - 1), length + 1, count, seed=1000 * (i + 1) + len(split),
                                           prefix=f"{split}_{family}")
        _write(ROOT / "viplan-hh" / split, problems)
        meta.append(f"{split} = {{ max_steps = {HH_STEPS[split]} }}")
        print(f"viplan-hh/{split}: lengths {sorted(p.optimal_length for p in problems)}", file=sys.stderr)
    (ROOT / "viplan-hh" / "suite.toml").write_text("\n".join(meta) + "\n", encoding="utf-8")


if __name__ == "__main__":
    build_blocksworld()
    build_household()
