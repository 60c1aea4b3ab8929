"""The clean share fitted from released answers: clustered errors give one, evenly spread errors none.

Synthetic imported records (a split, answer events with the logged truth) stand
in for ViPlan's: 20 episodes of 100 first answers, 20 wrong in all. Clustered on
two episodes, 18 episodes are error-free where evenly spread errors leave about
2.6 of 20; spread one per episode, none is. Repeats in the same state do not count.
"""

from __future__ import annotations

from grounders.calibration import load_calibration
from benchmarks.viplan_calibrate import calibration_text, fit_records


def _record(split: str, wrong: int, answers: int = 100, repeats: int = 0) -> dict:
    events = [{"phase": "enumerate", "step": 0, "atom": f"(on a{i} b)", "answer": "yes" if i < wrong else "no",
               "truth": False} for i in range(answers)]
    events += [{"phase": "precondition", "step": 0, "atom": "(on a99 b)", "answer": "yes", "truth": False}] * repeats
    return {"split": split, "events": events}


def _expected_clean(c: float, p: float, n: int, episodes: int) -> float:
    return episodes * (c + (1 - c) * (1 - p / (1 - c)) ** n)


def test_clustered_errors_fit_a_clean_share_and_even_ones_none():
    clustered = fit_records([_record("simple", 10), _record("simple", 10)] + [_record("simple", 0)] * 18)
    even = fit_records([_record("simple", 1)] * 20)
    c = clustered.clean("simple")
    assert 0.85 < c <= 0.9 and abs(_expected_clean(c, 0.01, 100, 20) - 18) < 0.01
    assert even.clean("simple") == 0.0
    assert clustered.clean("hard") == 0.0  # no episodes of that split: no evidence
    assert fit_records([_record("simple", 0)] * 5).clean("simple") == 0.0  # no errors: nothing to cluster


def test_repeats_in_the_same_state_are_not_counted():
    once = fit_records([_record("simple", 0)] * 10 + [_record("simple", 3)] * 10)
    repeated = fit_records([_record("simple", 0, repeats=0)] * 10 + [_record("simple", 3, repeats=1)] * 10)
    assert repeated.clean("simple") == once.clean("simple") > 0.0


def test_the_fitted_file_carries_the_clean_share_per_split(tmp_path):
    fit = fit_records([_record("simple", 10), _record("simple", 10)] + [_record("simple", 0)] * 18
                      + [_record("hard", 1)] * 20)
    path = tmp_path / "fitted.toml"
    path.write_text(calibration_text(fit, {"model": "m", "domain": "blocksworld", "cot": False, "fail": 0.0}, "test"),
                    encoding="utf-8")
    assert load_calibration(path, "simple").clean == fit.clean("simple") > 0.8
    assert load_calibration(path, "hard").clean == 0.0
