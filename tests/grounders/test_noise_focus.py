"""Focused errors: a share of each episode's error rate falls on the atoms of one object, at the same mean rate.

ViPlan's released answers show it: 82% of an erring GPT-4.1 CoT Blocksworld
episode's distinct wrong atoms mention one object, where errors drawn atom by atom
at its rates give 55%. Measured over many seeded episodes (hash draws: no flakes), each
check beside the unfocused grounder it must differ from.
"""

from __future__ import annotations

import math

import pytest

from grounders.calibration import ErrorModel, Rates
from grounders.noise import NoiseModel
from grounders.noise.draw import focus_object
from grounders.noisy import NoisyOracle
from toolkit.model import Atom
from toolkit.protocols import Observation

OBJECTS = [f"b{i}" for i in range(8)]
ATOMS = [Atom("on", (a, b)) for a in OBJECTS for b in OBJECTS if a != b]  # 56 atoms, each naming 2 of 8 objects
TRUTH = frozenset(Atom("on", (OBJECTS[i], OBJECTS[i + 1])) for i in range(7))  # a tower: every object in the state
RATE = 0.05
FOCUS = 0.6
EPISODES = 400


def _errors(noise: str) -> tuple[int, int, int]:
    """(answers, wrong answers, wrong answers naming the episode's focus object) over seeded episodes."""
    answers = wrong = on_focus = 0
    for seed in range(EPISODES):
        grounder = NoisyOracle(ErrorModel(Rates(RATE, RATE)), seed=seed, noise=noise)
        focus = focus_object(seed, OBJECTS)
        for step in range(2):
            for a in grounder.ask(Observation(step=step, truth=TRUTH, state_key=f"s{step}"), ATOMS):
                answers += 1
                if a.value != (a.atom in TRUTH):
                    wrong += 1
                    on_focus += focus in a.atom.args
    return answers, wrong, on_focus


def _sem(p: float, n: int) -> float:
    return math.sqrt(p * (1 - p) / n)


@pytest.mark.parametrize("kind", ["deterministic", "independent"])
def test_focus_puts_its_share_of_the_errors_on_one_object_at_the_same_rate(kind):
    answers, wrong, on_focus = _errors(f"{kind}:focus={FOCUS}")
    assert abs(wrong / answers - RATE) < 4 * _sem(RATE, answers)  # the mean rate stays the configured one
    # an atom names the focus with P 2/8; those are wrong at (1 - f + f * 8/2) times the rate
    expected = (2 / 8) * (1 - FOCUS + FOCUS * 4)
    assert abs(on_focus / wrong - expected) < 4 * _sem(expected, wrong)
    plain_answers, plain_wrong, plain_on_focus = _errors(kind)
    assert abs(plain_on_focus / plain_wrong - 2 / 8) < 4 * _sem(2 / 8, plain_wrong)
    assert not abs(on_focus / wrong - 2 / 8) < 4 * _sem(2 / 8, wrong)


def test_the_focus_object_is_the_episodes_across_states_and_the_seeds_choice():
    grounder = NoisyOracle(ErrorModel(Rates(0.2, 0.2)), seed=5, noise="deterministic:focus=1")
    focus = focus_object(5, OBJECTS)
    moved = TRUTH - {Atom("on", ("b0", "b1"))} | {Atom("on", ("b0", "b7"))}  # another state, the same objects
    for step, truth in enumerate((TRUTH, moved, TRUTH)):
        answers = grounder.ask(Observation(step=step, truth=truth, state_key=f"s{step}"), ATOMS)
        assert all(focus in a.atom.args for a in answers if a.value != (a.atom in truth))
    assert len({focus_object(seed, OBJECTS) for seed in range(40)}) == len(OBJECTS)


def test_focus_is_a_noise_parameter_of_every_kind():
    assert NoiseModel.parse("deterministic:sticky=0.3,focus=0.5").text == "deterministic:sticky=0.3,focus=0.5"
    assert NoiseModel.parse("scene:focus=0.2").focus == 0.2
    assert NoiseModel.from_table({"kind": "independent", "persistence": 0.8, "focus": 0.4}).focus == 0.4
