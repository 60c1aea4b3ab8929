"""The clean share fitted from released answers: clustered errors give one, evenly spread errors none.

Synthetic imported records (a split, answer events with the logged truth) stand
in for ViPlan's: 20 episodes of 100 first answers, 20 wrong in all. Clustered on
two episodes, 18 episodes are error-free where evenly spread errors leave about
2.6 of 20; spread one per episode, none is. Repeats in the same state do not count.
"""

from __future__ import annotations

import pytest

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


def _two_states(wrong_first: set[int], wrong_second: set[int], atoms: int = 100) -> dict:
    """One episode: an enumeration in state 0, an action, an enumeration in state 1 (every truth unchanged)."""
    events = [{"phase": "enumerate", "step": 0, "atom": f"(on a{i} b)", "truth": False,
               "answer": "yes" if i in wrong_first else "no"} for i in range(atoms)]
    events.append({"phase": "act", "step": 1, "action": "(move c d)"})
    events += [{"phase": "enumerate", "step": 1, "atom": f"(on a{i} b)", "truth": False,
                "answer": "yes" if i in wrong_second else "no"} for i in range(atoms)]
    return {"split": "simple", "events": events}


def test_errors_that_carry_over_states_fit_a_sticky_share():
    same = fit_records([_two_states({1, 2, 3, 4}, {1, 2, 3, 4})] * 10)  # the same atoms wrong again: all sticky
    fresh = fit_records([_two_states({1, 2}, {5, 6})] * 10)  # other atoms wrong each time: no carry-over
    half = fit_records([_two_states({1, 2}, {1, 7})] * 10)  # one carried, one new: b = 1/98, r = 2/100
    assert same.sticky() == 1.0 and "sticky=1" in same.noise()
    assert fresh.sticky() == 0.0 and "sticky" not in fresh.noise()
    assert half.sticky() == round(1 - (1 / 98) / (2 / 100), 3)
    # an enumeration of the same state again (no action between) says nothing about carrying over
    again = _two_states({1}, {1})
    for event in again["events"]:
        event["step"] = 0
    assert fit_records([again] * 5).sticky() == 0.0


def _objects_episode(wrong: set[tuple[int, int]], states: int = 1) -> dict:
    """One episode over 8 objects: every on(ai, aj) answered in each state, the given pairs wrongly yes."""
    events = []
    for step in range(states):
        events += [{"phase": "enumerate", "step": step, "atom": f"(on a{i} a{j})", "truth": False,
                    "answer": "yes" if (i, j) in wrong else "no"} for i in range(8) for j in range(8) if i != j]
        events.append({"phase": "act", "step": step + 1, "action": "(move c d)"})
    return {"split": "simple", "events": events}


def test_errors_on_one_object_fit_a_focus_and_scattered_ones_none():
    focused = fit_records([_objects_episode({(0, 1), (0, 2), (3, 0), (0, 4)})] * 10)  # every wrong atom names a0
    scattered = fit_records([_objects_episode({(1, 2), (3, 4), (5, 6), (7, 0)})] * 10)  # no object twice
    assert focused.focus() > 0.7 and f"focus={focused.focus():g}" in focused.noise()
    assert scattered.focus() == 0.0 and "focus" not in scattered.noise()
    # one atom wrong in several states is one misread atom: no evidence of where errors gather
    assert fit_records([_objects_episode({(0, 1)}, states=4)] * 10).focus() == 0.0


def _long_record(wrong: int, states: int) -> dict:
    """One episode: 100 atoms enumerated in each of ``states`` states, the first ``wrong`` answered yes wrongly in each."""
    events = []
    for step in range(states):
        events += [{"phase": "enumerate", "step": step, "atom": f"(on a{i} b)", "answer": "yes" if i < wrong else "no",
                    "truth": False} for i in range(100)]
    return {"split": "simple", "events": events}


def test_rates_of_a_split_with_clean_episodes_give_the_erring_episodes_their_released_rate():
    # 2 erring episodes run 5 states (500 answers, 10 wrong); 18 error-free ones 1 state: the answer-mean rate
    # 20/1,300 divided by 1 - c would make the erring episodes wrong at twice their released 2%
    fit = fit_records([_long_record(2, 5)] * 2 + [_long_record(0, 1)] * 18)
    c = fit.clean("simple")
    fp, fn = fit.rates("simple", "on")
    q = (20 / 2800) / (1 - c)  # the split's first-answer rate (a state is new answers) over 1 - c
    unlucky = (1 - c) * (1 - q) ** 100 / (c + (1 - c) * (1 - q) ** 100)  # P(not clean | 100 answers, no error)
    assert fp / (1 - c) == pytest.approx(20 / (1000 + 18 * 100 * unlucky))
    assert fp / (1 - c) < 0.6 * fit.tallies["simple"]["on"].fp() / (1 - c)  # the old answer-mean division
    assert fn == 0.0
    even = fit_records([_long_record(1, 2)] * 20)  # no clean share: the released rates as they are
    assert even.clean("simple") == 0.0 and even.rates("simple", "on") == (0.01, 0.0)
    text = calibration_text(fit, {"model": "m", "domain": "blocksworld", "cot": False, "fail": 0.0}, "test")
    assert f"fp = {fp:.4f}" in text
