"""Random plans for differential checks: applicable walks from the initial state, and their mutants.

Shared by the benchmarks that compare pgt's verdicts with VAL's or unified-planning's
(derived predicates, numeric fluents, validation speed, the plan reader) and by the
tests that pin the same comparisons on small samples.
"""

from __future__ import annotations

import random
from typing import Any


def random_walk(task: Any, rng: random.Random, length: int) -> list[Any]:
    """Up to ``length`` actions, each drawn among those applicable in the state so far (stops at a dead end)."""
    state, plan = task.init, []
    for _ in range(length):
        options = task.applicable_actions(state)
        if not options:
            break
        plan.append(rng.choice(options))
        state = plan[-1].apply(state)
    return plan


def mutants(plan: list, rng: random.Random, cut_short: bool = True) -> list[list]:
    """The plan, two neighbouring steps swapped, one step dropped, the last step repeated, the plan cut short.

    The mutants are mostly invalid plans that fail at a known step: where two checkers
    disagree, it is on the verdict or on the first failing step.
    """
    out = [plan]
    if len(plan) >= 2:
        i = rng.randrange(len(plan) - 1)
        out.append(plan[:i] + [plan[i + 1], plan[i]] + plan[i + 2:])
        out.append(plan[:i] + plan[i + 1:])
        out.append(plan + plan[-1:])
        if cut_short:
            out.append(plan[: rng.randrange(1, len(plan))])
    return out
