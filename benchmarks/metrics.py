"""Study metrics: success with standard errors (ViPlan appendix E), accuracy, costs.

Pure functions over episode records (the dicts of ``episodes.jsonl``).

>>> round(bernoulli_sem(0.5, 25), 3)
0.1
>>> round(combined_sem([0.1, 0.1]), 4)
0.0707
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any, Iterable, Sequence

Record = dict[str, Any]


def bernoulli_sem(p: float, n: int) -> float:
    """SEM of a success rate from n Bernoulli trials: sqrt(p(1-p)/n) (ViPlan eq. 1)."""
    return math.sqrt(p * (1.0 - p) / n) if n else 0.0


def combined_sem(sems: Sequence[float]) -> float:
    """SEM of the average of independent estimates: sqrt(sum SEM_i^2) / m (ViPlan eq. 2)."""
    return math.sqrt(sum(s * s for s in sems)) / len(sems) if sems else 0.0


def mean_sem(values: Sequence[float]) -> tuple[float, float]:
    """Mean and standard error of the mean (sample standard deviation / sqrt(n))."""
    n = len(values)
    if n == 0:
        return 0.0, 0.0
    mean = sum(values) / n
    if n == 1:
        return mean, 0.0
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(var / n)


def success(records: Sequence[Record]) -> tuple[float, float, int]:
    """Success rate, its Bernoulli SEM, and n."""
    n = len(records)
    p = sum(1 for r in records if r.get("success")) / n if n else 0.0
    return p, bernoulli_sem(p, n), n


def by_split(records: Iterable[Record]) -> dict[str, list[Record]]:
    out: dict[str, list[Record]] = defaultdict(list)
    for r in records:
        out[r["split"]].append(r)
    return dict(sorted(out.items(), key=lambda kv: split_order(kv[0])))


def split_order(split: str) -> tuple[int, str]:
    """Sort key: the ViPlan splits easiest first, then any other split by name, ``combined`` last."""
    return {"simple": 0, "medium": 1, "hard": 2}.get(split, 9 if split == "combined" else 8), split


def split_table(records: Sequence[Record]) -> dict[str, dict[str, float]]:
    """Per split and combined: success ± SEM, accuracy, questions, replans, actions per episode."""
    table: dict[str, dict[str, float]] = {}
    splits = by_split(records)
    for name, recs in splits.items():
        table[name] = summary(recs)
    if len(splits) > 1:
        rows = list(table.values())
        comb = summary(records)
        comb["success"] = sum(r["success"] for r in rows) / len(rows)
        comb["success_sem"] = combined_sem([r["success_sem"] for r in rows])
        table["combined"] = comb
    return table


def summary(records: Sequence[Record]) -> dict[str, float]:
    p, sem, n = success(records)
    answered = sum(r.get("answered", 0) for r in records)
    correct = sum(r.get("correct", 0) for r in records)
    acc = correct / answered if answered else float("nan")
    out = {"episodes": n, "success": p, "success_sem": sem, "accuracy": acc,
           "accuracy_sem": bernoulli_sem(acc, answered) if answered else 0.0, "answered": answered,
           "answer_errors": sum(r.get("grounder_errors", 0) for r in records),
           "unparseable": sum(r.get("unparseable", 0) for r in records)}
    for key in ("questions", "replans", "actions", "prompt_tokens", "completion_tokens"):
        m, s = mean_sem([float(r.get(key, 0)) for r in records])
        out[key], out[f"{key}_sem"] = m, s
    return out


def predicate_accuracy(records: Sequence[Record]) -> dict[str, tuple[float, float, int]]:
    """Accuracy per predicate: (accuracy, SEM, answers)."""
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in records:
        for pred, t in r.get("per_predicate", {}).items():
            tally[pred][0] += t["answered"]
            tally[pred][1] += t["correct"]
    return {p: (c / a if a else float("nan"), bernoulli_sem(c / a, a) if a else 0.0, a)
            for p, (a, c) in sorted(tally.items())}


def success_by_predictions(records: Sequence[Record], bins: int = 6) -> list[tuple[float, float, float, int]]:
    """Success against the predictions a task needs (ViPlan Figure 2): (bin centre, rate, SEM, n)."""
    pts = [(r["predictions_needed"], bool(r.get("success"))) for r in records if r.get("predictions_needed")]
    if not pts:
        return []
    lo, hi = min(x for x, _ in pts), max(x for x, _ in pts)
    width = max((hi - lo) / bins, 1e-9)
    groups: dict[int, list[bool]] = defaultdict(list)
    for x, ok in pts:
        groups[min(int((x - lo) / width), bins - 1)].append(ok)
    out = []
    for b in sorted(groups):
        vals = groups[b]
        p = sum(vals) / len(vals)
        out.append((lo + (b + 0.5) * width, p, bernoulli_sem(p, len(vals)), len(vals)))
    return out
