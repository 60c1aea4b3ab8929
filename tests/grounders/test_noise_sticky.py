"""Sticky errors: a share of each rate is tied to the atom and its truth, so errors carry over states.

ViPlan's released answers show it: an atom answered right is wrong in the next
state (truth unchanged) 1% of the time (GPT-4.1 CoT, medium), against 3.2% of
all its enumeration answers. Measured over many seeded episodes and states (hash
draws: no flakes), beside the state-keyed grounder it must differ from.
"""

from __future__ import annotations

import math

import pytest

from grounders.calibration import ErrorModel, Rates
from grounders.noise import NoiseModel
from grounders.noisy import NoisyOracle
from toolkit.model import Atom
from toolkit.protocols import Observation

ATOMS = [Atom("on", (f"b{i}", f"b{j}")) for i in range(8) for j in range(8) if i != j]
TRUTH = frozenset(ATOMS[::3])
RATE = 0.1
EPISODES = 150


def _carry(noise: str) -> tuple[float, float, int, float, int]:
    """(wrong overall, P(wrong in state 2 | right in state 1), n, P(wrong in 2 | wrong in 1), n)."""
    wrong = total = after_right = n_right = after_wrong = n_wrong = 0
    for seed in range(EPISODES):
        grounder = NoisyOracle(ErrorModel(Rates(RATE, RATE)), seed=seed, noise=noise)
        one = grounder.ask(Observation(step=0, truth=TRUTH, state_key="s0"), ATOMS)
        two = grounder.ask(Observation(step=1, truth=TRUTH, state_key="s1"), ATOMS)
        for a, b in zip(one, two):
            w1, w2 = a.value != (a.atom in TRUTH), b.value != (b.atom in TRUTH)
            wrong, total = wrong + w1 + w2, total + 2
            if w1:
                after_wrong, n_wrong = after_wrong + w2, n_wrong + 1
            else:
                after_right, n_right = after_right + w2, n_right + 1
    return wrong / total, after_right / n_right, n_right, after_wrong / n_wrong, n_wrong


def _sem(p: float, n: int) -> float:
    return math.sqrt(p * (1 - p) / n)


@pytest.mark.parametrize("kind", ["deterministic", "independent"])
def test_sticky_errors_carry_over_states_at_the_same_rate(kind):
    rate, fresh, n_fresh, again, n_again = _carry(f"{kind}:sticky=0.6")
    assert abs(rate - RATE) < 4 * _sem(RATE, 2 * EPISODES * len(ATOMS))
    expected_fresh = (RATE - 0.6 * RATE) / (1 - 0.6 * RATE)  # only the state-keyed part can turn a right answer wrong
    assert abs(fresh - expected_fresh) < 4 * _sem(expected_fresh, n_fresh)
    assert again > 0.5  # the sticky 60% come back, plus fresh draws
    plain_rate, plain_fresh, n_plain, plain_again, n_plain_again = _carry(kind)
    assert abs(plain_fresh - RATE) < 4 * _sem(RATE, n_plain)  # state-keyed: the next state is a fresh draw
    assert abs(plain_again - RATE) < 4 * _sem(RATE, n_plain_again)
    assert not abs(fresh - RATE) < 4 * _sem(RATE, n_fresh)


def test_fully_sticky_errors_depend_on_the_atom_and_its_truth_only():
    grounder = NoisyOracle(ErrorModel(Rates(0.3, 0.3)), seed=4, noise="deterministic:sticky=1")
    answers = [[a.value for a in grounder.ask(Observation(step=s, truth=TRUTH, state_key=f"s{s}"), ATOMS)]
               for s in range(4)]
    assert answers[0] == answers[1] == answers[2] == answers[3]
    flipped = TRUTH ^ {ATOMS[0]}  # another truth for one atom: a new draw for it alone may differ
    again = grounder.ask(Observation(step=9, truth=flipped, state_key="s9"), ATOMS)
    assert [a.value for a in again][1:] == answers[0][1:]


def test_sticky_is_a_noise_parameter_of_every_kind():
    assert NoiseModel.parse("scene:sticky=0.4").text == "scene:hard=0.15,factor=3,sticky=0.4"
    assert NoiseModel.parse("independent:persistence=0.8,sticky=0.4").sticky == 0.4
