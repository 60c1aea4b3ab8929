"""Every noise model does what its configuration says, measured over many seeded draws.

Each check compares a measured frequency with the configured probability within
Z binomial standard errors (SEM = sqrt(p (1 - p) / n)); the draws are seeded
hashes, so a check gives the same verdict on every run (it cannot flake), and each
test also shows that the plausible wrong answer (no persistence, no correlation,
calibrated confidence, ...) lies outside that band, so the check can fail.
"""

from __future__ import annotations

import math

import pytest

from grounders.calibration import ErrorModel, Rates
from grounders.noise import NOISE_KINDS, NoiseModel
from grounders.noise.draw import split_rate
from grounders.noisy import NoisyOracle
from toolkit.model import Atom
from toolkit.protocols import Observation, Verdict

Z = 4.0  # band half-width in SEMs: a correct model lands inside it with P > 0.9999
STATES = 300
OBJECTS = [f"o{i}" for i in range(24)]
UNARY = [Atom(p, (o,)) for p in ("p", "q") for o in OBJECTS]
BINARY = [Atom("r", (a, b)) for a, b in zip(OBJECTS, OBJECTS[1:] + OBJECTS[:1])]
ATOMS = UNARY + BINARY
CLASS_RATES = {"p": Rates(fp=0.05, fn=0.30), "q": Rates(fp=0.20, fn=0.10), "r": Rates(fp=0.10, fn=0.25)}
MODELS = {"independent": NoiseModel.of("independent"), "independent-persistent":
          NoiseModel.of("independent", persistence=0.6), "deterministic": NoiseModel.of("deterministic"),
          "scene": NoiseModel.of("scene", hard=0.3, factor=3.0),
          "overconfident": NoiseModel.of("deterministic", overconfidence=0.5)}


def sem(p: float, n: int) -> float:
    return math.sqrt(p * (1.0 - p) / n)


def within(measured: float, expected: float, n: int) -> bool:
    """``measured`` (a frequency over n draws) is within Z SEM of ``expected`` (exact when p is 0 or 1)."""
    return abs(measured - expected) <= max(Z * sem(expected, n), 1e-12)


def observations(states: int = STATES) -> list[Observation]:
    """States with a varying truth: about 40% of the atoms true, different ones in each state."""
    out = []
    for s in range(states):
        truth = frozenset(a for i, a in enumerate(ATOMS) if (i * 7 + s * 3) % 5 < 2)
        out.append(Observation(step=s, truth=truth, state_key=f"state{s}"))
    return out


def wrong(answer, obs: Observation) -> bool:
    return answer.value != (answer.atom in obs.truth)


def test_every_kind_is_covered_here() -> None:
    assert {m.kind for m in MODELS.values()} == set(NOISE_KINDS)


@pytest.mark.parametrize("name", MODELS)
def test_class_conditional_rates_per_predicate_are_observed(name: str) -> None:
    """P(yes | false) and P(no | true) per predicate are the configured ones, whatever the noise model."""
    grounder = NoisyOracle(ErrorModel(Rates(), CLASS_RATES), seed=11, noise=MODELS[name])
    counts: dict[tuple[str, bool], list[int]] = {}
    for obs in observations():
        for a in grounder.ask(obs, ATOMS):
            c = counts.setdefault((a.atom.predicate, a.atom in obs.truth), [0, 0])
            c[0] += wrong(a, obs)
            c[1] += 1
    for (pred, truth), (errors, n) in counts.items():
        rate = CLASS_RATES[pred].fn if truth else CLASS_RATES[pred].fp
        assert within(errors / n, rate, n), (name, pred, truth, errors / n, rate, n)
        other = CLASS_RATES[pred].fp if truth else CLASS_RATES[pred].fn  # the other class's rate: told apart
        assert not within(errors / n, other, n)


def _repeat_rates(noise: NoiseModel, rate: float, second_questions: bool = False) -> tuple[float, int, float, int]:
    """(P(2nd wrong | 1st wrong), n, P(2nd wrong | 1st right), n) over atoms asked twice in each state."""
    grounder = NoisyOracle(ErrorModel.uniform(1.0 - rate), seed=5, noise=noise)
    after_wrong, n_wrong, after_right, n_right = 0, 0, 0, 0
    for obs in observations():
        first = grounder.ask(obs, ATOMS)
        again = [f"Honestly, {a.atom}?" for a in first] if second_questions else None
        for a, b in zip(first, grounder.ask(obs, ATOMS, again)):
            if wrong(a, obs):
                after_wrong, n_wrong = after_wrong + wrong(b, obs), n_wrong + 1
            else:
                after_right, n_right = after_right + wrong(b, obs), n_right + 1
    return after_wrong / n_wrong, n_wrong, after_right / n_right, n_right


@pytest.mark.parametrize("q", [0.0, 0.6])
def test_independent_persistence_repeats_wrong_answers_at_its_rate(q: float) -> None:
    rate = 0.2
    p_ww, n_w, p_rw, n_r = _repeat_rates(NoiseModel.of("independent", persistence=q), rate)
    assert within(p_ww, q + (1 - q) * rate, n_w)  # a wrong answer persists with q, else a fresh draw
    assert within(p_rw, rate, n_r)  # a right answer is followed by a fresh draw
    assert not within(p_ww, (0.6 if q == 0 else 0.0) + (1 - (0.6 if q == 0 else 0.0)) * rate, n_w)


def test_deterministic_same_question_same_answer_other_wording_new_draw() -> None:
    rate = 0.2
    p_ww, _, p_rw, _ = _repeat_rates(NoiseModel.of("deterministic"), rate)
    assert (p_ww, p_rw) == (1.0, 0.0)  # the temperature-0 model: exactly the same answers
    p_ww, n_w, p_rw, n_r = _repeat_rates(NoiseModel.of("deterministic"), rate, second_questions=True)
    assert within(p_ww, rate, n_w) and within(p_rw, rate, n_r)  # rephrased: an independent draw
    assert not within(p_ww, 1.0, n_w)


def test_deterministic_answers_depend_on_state_atom_wording_and_seed_only() -> None:
    noise = NoiseModel.of("deterministic")
    obs = observations(4)
    first = NoisyOracle(ErrorModel.uniform(0.7), seed=3, noise=noise)
    reference = {(o.state_key, a.atom): (a.verdict, a.confidence) for o in obs for a in first.ask(o, ATOMS)}
    other = NoisyOracle(ErrorModel.uniform(0.7), seed=3, noise=noise)  # reversed states, reversed, small batches
    got = {}
    for o in reversed(obs):
        atoms = ATOMS[::-1]
        for i in range(0, len(atoms), 7):
            got.update({(o.state_key, a.atom): (a.verdict, a.confidence) for a in other.ask(o, atoms[i:i + 7])})
    assert got == reference
    reseeded = NoisyOracle(ErrorModel.uniform(0.7), seed=4, noise=noise)
    assert [a.verdict for a in reseeded.ask(obs[0], ATOMS)] != [reference[(obs[0].state_key, a)][0] for a in ATOMS]


def test_deterministic_answers_in_different_states_are_independent() -> None:
    rate = 0.2
    grounder = NoisyOracle(ErrorModel.uniform(1 - rate), seed=8, noise=NoiseModel.of("deterministic"))
    both, n = 0, 0
    obs = observations()
    for a_obs, b_obs in zip(obs[::2], obs[1::2]):
        for a, b in zip(grounder.ask(a_obs, ATOMS), grounder.ask(b_obs, ATOMS)):
            both, n = both + (wrong(a, a_obs) and wrong(b, b_obs)), n + 1
    assert within(both / n, rate * rate, n) and not within(both / n, rate, n)


def test_scene_difficulty_share_rates_and_correlation_match_the_configuration() -> None:
    hard, factor, rate = 0.2, 3.0, 0.1
    noise = NoiseModel.of("scene", hard=hard, factor=factor)
    grounder = NoisyOracle(ErrorModel.uniform(1 - rate), seed=21, noise=noise)
    r_hard, r_easy = split_rate(rate, hard, factor)  # unary atoms: hard iff their object is
    assert (r_hard, r_easy) == (0.3, 0.05)
    n_hard_obj = n_obj = 0
    by_class = {True: [0, 0], False: [0, 0]}
    same_object = [0, 0]  # (p o) and (q o) both wrong, over objects
    other_object = [0, 0]  # (p o) and (q o') both wrong, o != o'
    binary = [0, 0]
    for obs in observations(600):
        answers = {a.atom: wrong(a, obs) for a in grounder.ask(obs, ATOMS)}
        for i, o in enumerate(OBJECTS):
            is_hard = grounder.is_hard(obs, o)
            n_hard_obj, n_obj = n_hard_obj + is_hard, n_obj + 1
            for pred in ("p", "q"):
                by_class[is_hard][0] += answers[Atom(pred, (o,))]
                by_class[is_hard][1] += 1
            same_object[0] += answers[Atom("p", (o,))] and answers[Atom("q", (o,))]
            same_object[1] += 1
            other_object[0] += answers[Atom("p", (o,))] and answers[Atom("q", (OBJECTS[i - 1],))]
            other_object[1] += 1
        for atom in BINARY:
            binary[0], binary[1] = binary[0] + answers[atom], binary[1] + 1
    assert within(n_hard_obj / n_obj, hard, n_obj)
    assert within(by_class[True][0] / by_class[True][1], r_hard, by_class[True][1])
    assert within(by_class[False][0] / by_class[False][1], r_easy, by_class[False][1])
    joint = hard * r_hard**2 + (1 - hard) * r_easy**2  # 0.02: twice what independent errors give
    assert within(same_object[0] / same_object[1], joint, same_object[1])
    assert not within(same_object[0] / same_object[1], rate * rate, same_object[1])
    assert within(other_object[0] / other_object[1], rate * rate, other_object[1])  # no shared object, no tie
    assert within(binary[0] / binary[1], rate, binary[1])  # the mean rate is kept for two-object atoms too


def test_split_rate_keeps_the_mean_and_caps() -> None:
    for rate in (0.0, 0.05, 0.3, 0.9):
        for share in (0.0, 0.1, 0.5, 0.99):
            for factor in (1.0, 2.0, 10.0):
                h, e = split_rate(rate, share, factor)
                assert 0.0 <= e <= rate <= h <= 1.0
                if 0 < share < 1:
                    assert share * h + (1 - share) * e == pytest.approx(rate)


def _confidence_buckets(noise: NoiseModel, rates: Rates) -> dict[float, list[int]]:
    """Reported confidence -> [right answers, answers], truth balanced 50/50 (the reports' prior)."""
    grounder = NoisyOracle(ErrorModel(rates), seed=2, noise=noise)
    buckets: dict[float, list[int]] = {}
    for s in range(STATES):
        truth = frozenset(a for i, a in enumerate(ATOMS) if (i + s) % 2)
        obs = Observation(step=s, truth=truth, state_key=f"c{s}")
        for a in grounder.ask(obs, ATOMS):
            b = buckets.setdefault(a.confidence, [0, 0])
            b[0] += not wrong(a, obs)
            b[1] += 1
    return buckets


@pytest.mark.parametrize("name", ["independent", "deterministic", "scene"])
def test_calibrated_confidence_is_the_frequency_of_right_answers(name: str) -> None:
    buckets = _confidence_buckets(MODELS[name], Rates(fp=0.1, fn=0.3))
    assert len(buckets) >= 2  # yes and no (and hard and easy atoms) report different confidences
    for confidence, (right, n) in buckets.items():
        if n >= 200:
            assert within(right / n, confidence, n), (name, confidence, right / n, n)


def test_overconfident_reports_exceed_the_frequency_of_right_answers_by_the_configured_gap() -> None:
    o = 0.5
    buckets = _confidence_buckets(NoiseModel.of("deterministic", overconfidence=o), Rates(fp=0.1, fn=0.3))
    for reported, (right, n) in buckets.items():
        calibrated = (reported - o) / (1 - o)  # reported = c + o (1 - c)
        assert within(right / n, calibrated, n)
        assert not within(right / n, reported, n)  # the report is above the truth, measurably


def test_uniform_accuracy_reports_its_accuracy_under_every_kind() -> None:
    for noise in MODELS.values():
        if noise.kind == "scene" or noise.overconfidence:
            continue
        answers = NoisyOracle(ErrorModel.uniform(0.8), noise=noise).ask(observations(1)[0], ATOMS)
        assert {a.confidence for a in answers} == {0.8}
        assert all(a.verdict is not Verdict.UNKNOWN for a in answers)
