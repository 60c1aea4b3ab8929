"""Metric functions against hand-computed cases, including ties and empty inputs."""

from __future__ import annotations

import math

import pytest

from toolkit.scoring.metrics import efficiency_ratio, lcs_length, mean_stderr, normalized_lcs, set_scores, share


@pytest.mark.parametrize("a, b, expected", [
    ("ABCBDAB", "BDCABA", 4),  # textbook case: BCBA / BDAB
    ("", "", 0),
    ("abc", "", 0),
    ("", "abc", 0),
    ("abc", "abc", 3),
    ("abc", "cba", 1),  # tie between a, b, c: any one, length 1
    ("aaaa", "aa", 2),
    (["x", "y"], ["y", "x"], 1),
])
def test_lcs_length_hand_cases(a, b, expected):
    assert lcs_length(list(a), list(b)) == expected
    assert lcs_length(list(b), list(a)) == expected  # symmetric


def test_normalized_lcs_divides_by_the_longer_plan():
    # ActPlan-1K §4.2.1: LCS / max(len). 3 common of 4 vs 6 steps -> 3/6.
    gold = ["a", "b", "c", "d"]
    model = ["a", "x", "b", "y", "d", "z"]
    assert lcs_length(model, gold) == 3
    assert normalized_lcs(model, gold) == pytest.approx(0.5)
    assert normalized_lcs(gold, model) == pytest.approx(0.5)


@pytest.mark.parametrize("model, gold, expected", [
    ([], [], 1.0),  # both empty: identical
    ([], ["a"], 0.0),  # empty model plan
    (["a"], [], 0.0),  # empty gold plan
])
def test_normalized_lcs_empty_plans(model, gold, expected):
    assert normalized_lcs(model, gold) == expected


def test_set_scores_hand_case():
    s = set_scores({"a", "b", "x"}, {"a", "b", "c", "d"})
    assert (s.precision, s.recall) == (pytest.approx(2 / 3), pytest.approx(0.5))
    assert s.f1 == pytest.approx(2 * (2 / 3) * 0.5 / (2 / 3 + 0.5))
    assert s.distance == 3 and s.normalized_distance == pytest.approx(3 / 5)
    assert s.missing == ("c", "d") and s.extra == ("x",) and not s.exact


def test_set_scores_exact_and_empty_conventions():
    same = set_scores({"a"}, {"a"})
    assert same.exact and same.f1 == 1.0 and same.distance == 0 and same.normalized_distance == 0.0
    both = set_scores(set(), set())
    assert both.exact and (both.precision, both.recall, both.f1, both.normalized_distance) == (1.0, 1.0, 1.0, 0.0)
    none_predicted = set_scores(set(), {"a", "b"})
    assert (none_predicted.precision, none_predicted.recall, none_predicted.f1) == (0.0, 0.0, 0.0)
    assert none_predicted.normalized_distance == 1.0
    all_wrong = set_scores({"x"}, {"a"})
    assert all_wrong.f1 == 0.0 and all_wrong.distance == 2


def test_efficiency_ratio():
    assert efficiency_ratio(4, 5, True) == pytest.approx(0.8)
    assert efficiency_ratio(4, 4, True) == 1.0
    assert efficiency_ratio(4, 5, False) is None  # only successful plans
    assert efficiency_ratio(None, 5, True) is None  # optimum unknown (timeout)
    assert efficiency_ratio(0, 0, True) == 1.0  # goal true at start, empty plan


def test_share_and_mean_stderr():
    assert share(0, 0) == 1.0 and share(1, 4) == 0.25
    mean, se, n = mean_stderr([1.0, 2.0, 3.0, None])
    assert (mean, n) == (2.0, 3) and se == pytest.approx(1.0 / math.sqrt(3))
    assert mean_stderr([]) == (None, None, 0)
    assert mean_stderr([5]) == (5.0, None, 1)


@pytest.mark.parametrize("module", ["metrics", "predict", "plan", "graph", "graph_model", "batch"])
def test_scoring_doctests(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(f"toolkit.scoring.{module}"))
    assert result.failed == 0
