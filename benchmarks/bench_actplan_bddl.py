"""How many of ActPlan-1K's BDDL problems pgt loads, and where it refuses the others.

ActPlan-1K (HKUST-KnowComp/ActPlan-1K) ships 169 problems under
``bddl/activity_definitions/<activity>/problem<N>.bddl`` with ``domain_igibson.bddl``.
Get them with ``git clone`` (or ``git archive`` of a snapshot) and run::

    python benchmarks/bench_actplan_bddl.py PATH/bddl/activity_definitions

It prints the count loaded, the count refused, each refusal (file:line:col: why) and
the time per problem. ``PGT_ACTPLAN_BDDL=PATH/bddl/activity_definitions pytest
tests/core/test_bddl.py`` runs the same sweep as a test (>= 95 % load).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from toolkit import loader
from toolkit.errors import PgtError


def sweep(root: Path) -> tuple[int, list[str]]:
    """(problems loaded, refusal messages) over ``root/*/problem*.bddl`` against ``root/domain_igibson.bddl``."""
    domain = loader.load_domain(root / "domain_igibson.bddl")
    loaded, refused = 0, []
    for path in sorted(root.glob("*/problem*.bddl")):
        try:
            loader.load_problem(path, domain)
            loaded += 1
        except PgtError as exc:
            refused.append(str(exc))
    return loaded, refused


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not (Path(argv[0]) / "domain_igibson.bddl").is_file():
        print(__doc__)
        return 2
    start = time.perf_counter()
    loaded, refused = sweep(Path(argv[0]))
    took = time.perf_counter() - start
    total = loaded + len(refused)
    print(f"loaded {loaded} of {total} ({loaded / total:.1%}), refused {len(refused)}; "
          f"{took / total * 1000:.0f} ms per problem")
    for msg in refused:
        print(f"  refused: {msg}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
