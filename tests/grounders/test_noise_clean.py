"""Clean episodes: errors cluster on some episodes (a real model's hard scenes), at the same mean rate.

ViPlan's released answers show it (GPT-4.1 with chain of thought: 0.5% of its
simple-split answers wrong, 79% of its episodes without a wrong answer); a noisy
grounder whose every episode is wrong at the same rate leaves far fewer clean
episodes. Checked over many seeded episodes (hash draws: no flakes), each check
beside the homogeneous grounder it must differ from.
"""

from __future__ import annotations

import math
import statistics

import pytest

from grounders.calibration import ErrorModel, Rates, load_calibration
from grounders.noise import NoiseModel
from grounders.noise.draw import episode_factor
from grounders.noisy import NoisyOracle
from toolkit.errors import PgtError
from toolkit.model import Atom
from toolkit.protocols import Observation

ATOMS = [Atom("on", (f"b{i}", f"b{j}")) for i in range(8) for j in range(8) if i != j]  # 56 atoms
EPISODES = 600
RATE = 0.01
CLEAN = 0.5


def _episode_errors(model: ErrorModel, noise: str) -> list[int]:
    """Wrong answers per episode: each episode its own seed, two states of 56 atoms each."""
    out = []
    for seed in range(EPISODES):
        grounder = NoisyOracle(model, seed=seed, noise=noise)
        errors = 0
        for step in range(2):
            obs = Observation(step=step, truth=frozenset(ATOMS[::3]), state_key=f"s{step}")
            errors += sum(a.value != (a.atom in obs.truth) for a in grounder.ask(obs, ATOMS))
        out.append(errors)
    return out


def test_episode_factor_is_zero_for_a_clean_share_and_has_mean_one():
    draws = [episode_factor(seed, CLEAN) for seed in range(4000)]
    assert set(draws) == {0.0, 1.0 / (1.0 - CLEAN)}
    assert abs(draws.count(0.0) / len(draws) - CLEAN) < 4 * math.sqrt(CLEAN * (1 - CLEAN) / len(draws))
    assert abs(statistics.fmean(draws) - 1.0) < 0.07
    assert all(episode_factor(seed, 0.0) == 1.0 for seed in range(10))


@pytest.mark.parametrize("noise", ["deterministic", "independent"])
def test_clean_episodes_keep_the_mean_rate_and_leave_more_error_free_episodes(noise):
    plain = _episode_errors(ErrorModel(Rates(RATE, RATE)), noise)
    clustered = _episode_errors(ErrorModel(Rates(RATE, RATE), clean=CLEAN), noise)
    asked = 2 * len(ATOMS)
    sem = math.sqrt(RATE * (1 - RATE) / (EPISODES * asked))
    assert abs(statistics.fmean(plain) / asked - RATE) < 4 * sem
    assert abs(statistics.fmean(clustered) / asked - RATE) < 4 * sem * math.sqrt(2)  # half the episodes carry them
    error_free_plain = sum(e == 0 for e in plain) / EPISODES
    error_free = sum(e == 0 for e in clustered) / EPISODES
    assert abs(error_free_plain - (1 - RATE) ** asked) < 0.07  # about 0.32: errors spread evenly
    expected = CLEAN + (1 - CLEAN) * (1 - RATE / (1 - CLEAN)) ** asked  # about 0.55
    assert abs(error_free - expected) < 0.07 and error_free > error_free_plain + 0.15


def test_the_noise_model_share_wins_over_the_error_model():
    model = ErrorModel(Rates(RATE, RATE), clean=0.6)
    assert NoisyOracle(model, seed=3, noise="deterministic").difficulty == episode_factor(3, 0.6)
    assert NoisyOracle(model, seed=3, noise="deterministic:clean=0.2").difficulty == episode_factor(3, 0.2)
    assert NoisyOracle(ErrorModel(Rates(RATE, RATE)), seed=3).difficulty == 1.0
    assert NoiseModel.parse("independent:clean=0.5").text == "independent:clean=0.5"
    assert NoiseModel.parse("deterministic").text == "deterministic"  # records of old studies keep their text
    with pytest.raises(PgtError, match="clean must be in"):
        NoiseModel.parse("deterministic:clean=1")


def test_calibration_clean_share_per_split_and_bad_values(tmp_path):
    path = tmp_path / "cal.toml"
    path.write_text('model = "m"\n[accuracy.simple]\non = 0.9\n[accuracy.hard]\non = 0.8\n'
                    '[clean]\nsimple = 0.25\n', encoding="utf-8")
    assert load_calibration(path, "simple").clean == 0.25
    assert load_calibration(path, "hard").clean == 0.0
    path.write_text('model = "m"\n[accuracy.simple]\non = 0.9\n[clean]\nsimple = 1.5\n', encoding="utf-8")
    with pytest.raises(PgtError, match=r"clean\.simple: must be a share in \[0, 0\.99\]"):
        load_calibration(path, "simple")
    with pytest.raises(PgtError, match="clean must be a share"):
        ErrorModel(clean=-0.5)
