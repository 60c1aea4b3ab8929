"""Shared pieces of the problem generators: the result type and optimal lengths.

Generators sample problems from a seeded private RNG and keep those whose
*optimal* plan length (measured with the optimal ``auto`` planner: our A*, then Fast Downward A*/hmax) falls in the
requested range, so a split such as "hard: 8-15 steps" means what it says.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolkit import model as m
from toolkit.errors import PgtError
from toolkit.planners.base import Planner, PlanStatus
from toolkit.task import Task


@dataclass(frozen=True)
class ProblemText:
    """A generated problem: file stem, PDDL text, and its optimal plan length."""

    name: str
    text: str
    optimal_length: int


def optimal_length(domain: m.Domain, problem: m.Problem, planner: Planner, timeout: float = 30.0) -> int | None:
    """Optimal plan length of a problem, or None if unsolvable or too hard."""
    result = planner.solve(Task(domain, problem), timeout=timeout)
    return len(result.plan) if result.status is PlanStatus.SOLVED else None


def length_in_range(domain: m.Domain, problem: m.Problem, planner: Planner, min_len: int, max_len: int) -> int | None:
    """The problem's optimal plan length if it lies in ``[min_len, max_len]``, else None (the sample is dropped)."""
    length = optimal_length(domain, problem, planner)
    return length if length is not None and min_len <= length <= max_len else None


def check_range(min_len: int, max_len: int, count: int) -> None:
    if min_len < 0 or max_len < min_len:
        raise PgtError(f"bad plan-length range [{min_len}, {max_len}]")
    if count < 1:
        raise PgtError(f"count must be at least 1, got {count}")


def not_enough(found: int, count: int, what: str, min_len: int, max_len: int, tries: int) -> PgtError:
    return PgtError(f"found only {found} of {count} {what} problems with optimal length in [{min_len}, {max_len}] "
                    f"after {tries} samples; widen the range or change the size")
