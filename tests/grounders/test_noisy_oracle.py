"""Noisy oracle: configured error rates are observed, answers are seeded and order-independent."""

from __future__ import annotations

import pytest

from grounders.calibration import ErrorModel, Rates, list_calibrations, load_calibration
from grounders.noisy import NoisyOracle
from grounders.oracle import Oracle
from toolkit.domains import shipped_domain, shipped_problem
from toolkit.errors import PgtError
from toolkit.model import Atom
from toolkit.protocols import Observation, Verdict
from toolkit.task import load_task

N = 20000
ATOMS = [Atom("p" if i % 2 else "q", (f"o{i}",)) for i in range(N)]
TRUTH = frozenset(ATOMS[: N // 4])  # a quarter true: error rates must not depend on the base rate
OBS = Observation(step=0, truth=TRUTH, state_key="s0")


def _rates(answers: list) -> tuple[float, float]:
    true = [a for a in answers if a.atom in TRUTH]
    false = [a for a in answers if a.atom not in TRUTH]
    fn = sum(a.verdict is Verdict.NO for a in true) / len(true)
    fp = sum(a.verdict is Verdict.YES for a in false) / len(false)
    return fp, fn


def test_uniform_accuracy_is_observed() -> None:
    answers = NoisyOracle(ErrorModel.uniform(0.8), seed=3).ask(OBS, ATOMS)
    errors = sum(a.value != (a.atom in TRUTH) for a in answers) / N
    assert errors == pytest.approx(0.2, abs=0.015)
    assert {a.confidence for a in answers} == {0.8}


def test_asymmetric_rates_are_observed() -> None:
    fp, fn = _rates(NoisyOracle(ErrorModel.asymmetric(0.05, 0.3), seed=1).ask(OBS, ATOMS))
    assert fp == pytest.approx(0.05, abs=0.01) and fn == pytest.approx(0.3, abs=0.025)


def test_per_predicate_accuracy() -> None:
    model = ErrorModel.from_accuracies({"P": 0.6}, default=1.0)
    answers = NoisyOracle(model, seed=2).ask(OBS, ATOMS)
    wrong = {"p": 0, "q": 0}
    for a in answers:
        wrong[a.atom.predicate] += a.value != (a.atom in TRUTH)
    assert wrong["q"] == 0
    assert wrong["p"] / (N / 2) == pytest.approx(0.4, abs=0.02)


def test_same_seed_same_answers_and_batch_order_does_not_matter() -> None:
    model = ErrorModel.uniform(0.7)
    first = NoisyOracle(model, seed=9).ask(OBS, ATOMS[:500])
    again = NoisyOracle(model, seed=9)
    chunked = [a for i in range(500, 0, -100) for a in again.ask(OBS, ATOMS[i - 100:i])]
    assert {a.atom: a.verdict for a in first} == {a.atom: a.verdict for a in chunked}
    other = NoisyOracle(model, seed=10).ask(OBS, ATOMS[:500])
    assert [a.verdict for a in first] != [a.verdict for a in other]


def test_repeated_questions_are_fresh_draws_without_persistence() -> None:
    grounder = NoisyOracle(ErrorModel.uniform(0.7), seed=4)
    first, second = grounder.ask(OBS, ATOMS[:4000]), grounder.ask(OBS, ATOMS[:4000])
    wrong_first = [a.value != (a.atom in TRUTH) for a in first]
    wrong_second = [a.value != (a.atom in TRUTH) for a in second]
    repeated = sum(a and b for a, b in zip(wrong_first, wrong_second)) / max(1, sum(wrong_first))
    assert repeated == pytest.approx(0.3, abs=0.05)


def test_persistence_repeats_wrong_answers_in_the_same_state_only() -> None:
    grounder = NoisyOracle(ErrorModel.uniform(0.7), seed=4, persistence=1.0)
    first, second = grounder.ask(OBS, ATOMS[:2000]), grounder.ask(OBS, ATOMS[:2000])
    for a, b in zip(first, second):
        if a.value != (a.atom in TRUTH):
            assert b.verdict is a.verdict
    moved = Observation(step=1, truth=TRUTH, state_key="s1")
    third = grounder.ask(moved, ATOMS[:2000])
    assert [a.verdict for a in third] != [a.verdict for a in first]


def test_invisible_atoms_are_unknown_unless_privileged() -> None:
    obs = Observation(step=0, truth=TRUTH, visible=frozenset(ATOMS[:10]))
    for grounder in (Oracle(), NoisyOracle(ErrorModel.uniform(1.0))):
        answers = grounder.ask(obs, ATOMS[5:15])
        assert [a.status for a in answers] == ["ok"] * 5 + ["not_visible"] * 5
        assert all(a.verdict is Verdict.UNKNOWN for a in answers[5:])
    privileged = NoisyOracle(ErrorModel.uniform(1.0), privileged=True).ask(obs, ATOMS[5:15])
    assert all(a.value == (a.atom in TRUTH) for a in privileged)


def test_confidence_of_asymmetric_rates_is_bayes_with_even_prior() -> None:
    rates = Rates(fp=0.1, fn=0.3)
    assert rates.confidence(Verdict.YES) == pytest.approx(0.7 / 0.8)
    assert rates.confidence(Verdict.NO) == pytest.approx(0.9 / 1.2)


@pytest.mark.parametrize("name", [n for n in list_calibrations() if not n.startswith("viplan-logs-")])
def test_shipped_calibrations_load_name_their_source_and_fit_their_domain(name: str) -> None:
    domain_name = "blocksworld" if "-bw-" in name else "household"
    problem = "simple_problem_0" if domain_name == "blocksworld" else "cleaning_out_drawers_0"
    domain = load_task(shipped_domain(domain_name), shipped_problem(domain_name, problem)).domain
    for split in ("simple", "medium", "hard"):
        model = load_calibration(name, split)
        assert "Table 1" in model.source and "ViPlan" in model.source
        assert set(model.per_predicate) == {p.lower() for p in domain.predicates}


def test_calibration_errors_are_located(tmp_path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[accuracy.simple]\nclear = 1.7\n")
    with pytest.raises(PgtError, match=r"bad.toml: accuracy.simple.clear: accuracy must be in \[0, 1\]"):
        load_calibration(bad)
    with pytest.raises(PgtError, match="no split 'hard'"):
        load_calibration(bad, "hard")
    with pytest.raises(PgtError, match="did you mean viplan-bw-cot-gpt-4.1"):
        load_calibration("viplan-bw-cot-gpt-41")


@pytest.mark.parametrize("name", [n for n in list_calibrations() if n.startswith("viplan-logs-")])
def test_calibrations_fitted_from_released_runs_name_their_files_and_cover_their_domain(name: str) -> None:
    """The calibrations fitted from ViPlan's released answers (benchmarks/viplan_calibrate.py)."""
    import tomllib

    from grounders.calibration import load_noise, resolve_calibration

    domain_name = "blocksworld" if "-bw-" in name else "household"
    problem = "simple_problem_0" if domain_name == "blocksworld" else "cleaning_out_drawers_0"
    domain = load_task(shipped_domain(domain_name), shipped_problem(domain_name, problem)).domain
    data = tomllib.loads(resolve_calibration(name).read_text(encoding="utf-8"))
    assert "results/final/" in data["source"] and data["conversion"].startswith("fitted")
    for split in data["accuracy"]:
        model = load_calibration(name, split)
        assert set(model.per_predicate) <= {p.lower() for p in domain.predicates}
        assert all(set(r) == {"fp", "fn"} for r in data["rates"][split].values())
        assert model.clean == data["clean"][split]  # how errors cluster on episodes, fitted per split
    assert load_noise(name) is not None
