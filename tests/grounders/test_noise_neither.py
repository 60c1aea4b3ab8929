"""Replies neither yes nor no: a fitted share per split, in the first question batch and in later ones.

ViPlan's protocols end an episode on such a reply. Some released runs are full of
them (Phi-4 with chain of thought, household: 1,567 of its 1,905 replies), some
end a third of their replans so while their first enumerations hold none
(llava-onevision-72B with chain of thought); a calibration without the share
simulates those models as if every reply were usable.
"""

from __future__ import annotations

import pytest

from benchmarks.viplan_calibrate import calibration_text, fit_records
from grounders.calibration import ErrorModel, Rates, load_calibration
from grounders.noisy import NoisyOracle
from toolkit.errors import PgtError
from toolkit.model import Atom
from toolkit.protocols import Observation, Verdict

ATOMS = [Atom("on", (f"b{i}", f"b{j}")) for i in range(10) for j in range(10) if i != j]  # 90 atoms


def _unparseable(model: ErrorModel, seeds: int = 40) -> tuple[float, float]:
    """Shares of unparseable replies in an episode's first batch and in its second (a later state)."""
    bad = [0, 0]
    for seed in range(seeds):
        grounder = NoisyOracle(model, seed=seed)
        for batch in range(2):
            obs = Observation(step=batch, truth=frozenset(ATOMS[::4]), state_key=f"s{batch}")
            bad[batch] += sum(a.verdict is Verdict.UNKNOWN and a.status == "unparseable"
                              for a in grounder.ask(obs, ATOMS))
    return bad[0] / (seeds * len(ATOMS)), bad[1] / (seeds * len(ATOMS))


def test_the_share_applies_to_the_first_batch_or_to_later_ones():
    first, later = _unparseable(ErrorModel(Rates(0.0, 0.0), neither=(0.0, 0.2)))
    assert first == 0.0 and 0.17 < later < 0.23
    first, later = _unparseable(ErrorModel(Rates(0.0, 0.0), neither=(0.3, 0.0)))
    assert 0.26 < first < 0.34 and later == 0.0
    assert _unparseable(ErrorModel(Rates(0.0, 0.0))) == (0.0, 0.0)  # the default: every reply yes or no


def _episode(split: str, first_other: int, enumerated: int, unlogged_replans: int) -> dict:
    events = [{"phase": "enumerate", "step": 0, "atom": f"(on a{i} b)", "truth": False,
               "answer": "unknown" if i < first_other else "no"} for i in range(enumerated)]
    events += [{"phase": "replan", "step": 1, "reason": "mismatch", "logged": False}] * unlogged_replans
    return {"split": split, "events": events}


def test_the_fit_counts_logged_replies_and_replans_that_went_unlogged(tmp_path):
    fit = fit_records([_episode("simple", 5, 50, 0), _episode("simple", 0, 50, 1)] + [_episode("hard", 0, 50, 0)])
    first, later = fit.neither("simple")
    assert first == 5 / 100
    assert later == 1 / 50  # one unlogged replan, counted as one reply among its 50 atoms
    assert fit.neither("hard") == (0.0, 0.0)
    path = tmp_path / "fitted.toml"
    path.write_text(calibration_text(fit, {"model": "m", "domain": "blocksworld", "cot": False, "fail": 0.0}, "t"),
                    encoding="utf-8")
    assert load_calibration(path, "simple").neither == pytest.approx((0.05, 0.02))
    assert load_calibration(path, "hard").neither == (0.0, 0.0)
    # none anywhere: the file has no [neither] table at all (earlier fits stay as they were)
    plain = calibration_text(fit_records([_episode("simple", 0, 50, 0)]),
                             {"model": "m", "domain": "blocksworld", "cot": False, "fail": 0.0}, "t")
    assert "[neither]" not in plain


def test_a_bad_neither_table_is_one_line_naming_the_split(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('model = "m"\n[accuracy.simple]\non = 0.9\n[neither]\nsimple = [0.1]\n', encoding="utf-8")
    with pytest.raises(PgtError, match=r"neither\.simple: must be two shares"):
        load_calibration(path, "simple")
