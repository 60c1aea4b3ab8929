"""Metric functions against hand-computed values (ViPlan appendix E)."""

from __future__ import annotations

import math

import pytest

from benchmarks import metrics


def rec(split: str, success: bool, answered: int = 10, correct: int = 9, questions: int = 10, **kw) -> dict:
    return {"split": split, "success": success, "answered": answered, "correct": correct,
            "questions": questions, "replans": kw.get("replans", 0), "actions": kw.get("actions", 3),
            "per_predicate": kw.get("per_predicate", {}), "predictions_needed": kw.get("needed")}


def test_bernoulli_sem_matches_formula():
    assert metrics.bernoulli_sem(0.2, 25) == pytest.approx(math.sqrt(0.2 * 0.8 / 25))
    assert metrics.bernoulli_sem(0.0, 25) == 0.0
    assert metrics.bernoulli_sem(0.5, 0) == 0.0


def test_combined_sem_is_error_propagation_of_the_mean():
    assert metrics.combined_sem([0.08, 0.06]) == pytest.approx(math.sqrt(0.08**2 + 0.06**2) / 2)


def test_mean_sem_uses_sample_std():
    m, s = metrics.mean_sem([1.0, 2.0, 3.0, 4.0])
    assert m == 2.5
    assert s == pytest.approx(math.sqrt(((1.5**2) * 2 + (0.5**2) * 2) / 3) / 2)


def test_split_table_combines_splits_with_propagated_sem():
    records = [rec("simple", True), rec("simple", True), rec("simple", False), rec("simple", True),
               rec("hard", False), rec("hard", True)]
    table = metrics.split_table(records)
    assert list(table) == ["simple", "hard", "combined"]
    assert table["simple"]["success"] == 0.75
    assert table["hard"]["success"] == 0.5
    assert table["combined"]["success"] == pytest.approx(0.625)
    expected = math.sqrt(metrics.bernoulli_sem(0.75, 4) ** 2 + metrics.bernoulli_sem(0.5, 2) ** 2) / 2
    assert table["combined"]["success_sem"] == pytest.approx(expected)
    assert table["simple"]["accuracy"] == pytest.approx(0.9)


def test_predicate_accuracy_pools_answers():
    records = [rec("s", True, per_predicate={"on": {"answered": 4, "correct": 3}}),
               rec("s", True, per_predicate={"on": {"answered": 6, "correct": 6}, "clear": {"answered": 2, "correct": 1}})]
    acc = metrics.predicate_accuracy(records)
    assert acc["on"][0] == pytest.approx(0.9) and acc["on"][2] == 10
    assert acc["clear"][0] == pytest.approx(0.5)


def test_success_by_predictions_bins():
    records = [rec("s", True, needed=10), rec("s", False, needed=10), rec("s", False, needed=100)]
    pts = metrics.success_by_predictions(records, bins=2)
    assert [(round(p, 2), n) for _, p, _, n in pts] == [(0.5, 2), (0.0, 1)]
