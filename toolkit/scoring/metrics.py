"""Pure metric functions shared by every scorer, with the empty-input conventions in one place.

Why one module: the sibling benchmarks each define their metrics in prose and leave
the corner cases open (what is the normalized LCS of two empty plans? the
precision of an empty prediction?). Deciding them once here, with tests against
hand-computed cases, keeps every command and batch consistent.

Conventions (also in ``docs/scoring.md``):

* Set scores: precision = |P∩T|/|P|, recall = |P∩T|/|T|; an empty side gives 1.0
  when both sides are empty (perfect agreement) and 0.0 otherwise; F1 is the
  harmonic mean (0.0 when precision + recall = 0).
* Distance: size of the symmetric difference; normalized by |P∪T| (the Jaccard
  distance), 0.0 when both are empty.
* LCS: normalized by the longer of the two sequences (ActPlan-1K §4.2.1); two empty
  plans are identical (1.0); one empty plan against a non-empty one gives 0.0.
* Efficiency ratio: optimal length / plan length (LLM-BabyBench Table 8), only for
  successful plans; a valid empty plan (goal true initially, optimum 0) gives 1.0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Hashable, Iterable, Sequence


@dataclass(frozen=True)
class SetScores:
    """Agreement between a predicted and a true set of items (e.g. atoms)."""

    exact: bool
    precision: float
    recall: float
    f1: float
    distance: int  # |P Δ T|
    normalized_distance: float  # |P Δ T| / |P ∪ T|
    missing: tuple[str, ...]  # true but not predicted, sorted
    extra: tuple[str, ...]  # predicted but not true, sorted
    predicted_size: int
    true_size: int

    def to_json(self) -> dict[str, object]:
        return {
            "exact": self.exact, "precision": self.precision, "recall": self.recall, "f1": self.f1,
            "distance": self.distance, "normalized_distance": self.normalized_distance,
            "missing": list(self.missing), "extra": list(self.extra),
            "predicted_size": self.predicted_size, "true_size": self.true_size,
        }


def _ratio(num: int, den: int, both_empty: bool) -> float:
    if den == 0:
        return 1.0 if both_empty else 0.0
    return num / den


def set_scores(predicted: Iterable[Hashable], true: Iterable[Hashable]) -> SetScores:
    """Precision, recall, F1, exact match and distances of a predicted set against the truth.

    >>> s = set_scores({"a", "b", "x"}, {"a", "b", "c", "d"})
    >>> (s.precision, s.recall, s.distance, s.missing, s.extra)
    (0.6666666666666666, 0.5, 3, ('c', 'd'), ('x',))
    """
    p, t = set(predicted), set(true)
    hit = len(p & t)
    both_empty = not p and not t
    precision = _ratio(hit, len(p), both_empty)
    recall = _ratio(hit, len(t), both_empty)
    f1 = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
    union = len(p | t)
    dist = len(p ^ t)
    return SetScores(p == t, precision, recall, f1, dist, dist / union if union else 0.0,
                     tuple(sorted(map(str, t - p))), tuple(sorted(map(str, p - t))), len(p), len(t))


def lcs_length(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """Length of the longest common subsequence (not substring) of two sequences.

    >>> lcs_length("ABCBDAB", "BDCABA")
    4
    """
    if len(a) < len(b):
        a, b = b, a
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b, 1):
            cur.append(prev[j - 1] + 1 if x == y else max(prev[j], cur[j - 1]))
        prev = cur
    return prev[-1]


def normalized_lcs(a: Sequence[Hashable], b: Sequence[Hashable]) -> float:
    """LCS length divided by the longer length (ActPlan-1K §4.2.1); 1.0 for two empty plans.

    >>> normalized_lcs(["x", "y", "z"], ["x", "z"])
    0.6666666666666666
    >>> normalized_lcs([], [])
    1.0
    """
    longest = max(len(a), len(b))
    if longest == 0:
        return 1.0
    return lcs_length(a, b) / longest


def efficiency_ratio(optimal_length: int | None, plan_length: int, successful: bool) -> float | None:
    """Optimal length / plan length for a successful plan; None if not successful or unknown.

    >>> efficiency_ratio(4, 6, True)
    0.6666666666666666
    >>> efficiency_ratio(4, 6, False) is None
    True
    """
    if not successful or optimal_length is None:
        return None
    if plan_length == 0:
        return 1.0 if optimal_length == 0 else None  # a valid empty plan means the optimum is 0
    return optimal_length / plan_length


def share(part: int, whole: int) -> float:
    """``part / whole``, with 1.0 for an empty whole (nothing to achieve is fully achieved).

    >>> share(2, 3), share(0, 0)
    (0.6666666666666666, 1.0)
    """
    return 1.0 if whole == 0 else part / whole


def mean_stderr(values: Iterable[float | int | bool | None]) -> tuple[float | None, float | None, int]:
    """Mean, standard error of the mean (sample std / sqrt(n)) and n, skipping None.

    The standard error is None for fewer than two values.

    >>> mean, se, n = mean_stderr([1.0, 2.0, 3.0, None])
    >>> (mean, round(se, 4), n)
    (2.0, 0.5774, 3)
    """
    xs = [float(v) for v in values if v is not None]
    n = len(xs)
    if n == 0:
        return None, None, 0
    mean = sum(xs) / n
    if n < 2:
        return mean, None, n
    var = sum((x - mean) ** 2 for x in xs) / (n - 1)
    return mean, math.sqrt(var / n), n


def manhattan(p: Sequence[int], q: Sequence[int]) -> int:
    """L1 distance between two positions (LLM-BabyBench Predict, app. D.2 formula 2).

    >>> manhattan((3, 5), (1, 6))
    3
    """
    return sum(abs(a - b) for a, b in zip(p, q, strict=True))


def lcs_matching(n: int, m: int, same: Callable[[int, int], bool]) -> int:
    """LCS length of two sequences of lengths ``n`` and ``m`` where ``same(i, j)`` says whether item i of
    the first matches item j of the second (ActPlan-1K: embedding similarity above a threshold).

    >>> lcs_matching(3, 2, lambda i, j: "xyz"[i] == "xz"[j])
    2
    """
    prev = [0] * (m + 1)
    for i in range(n):
        cur = [0]
        for j in range(m):
            cur.append(prev[j] + 1 if same(i, j) else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]
