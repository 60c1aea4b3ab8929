"""pgt-grounder's evidence without re-asking: wording rotation, related atoms, action outcomes."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from benchmarks.episode import make_planner
from grounders.calibration import ErrorModel
from grounders.noisy import NoisyOracle
from toolkit.agents.belief_agent import BeliefAgentConfig, run_belief_agent
from toolkit.agents.evidence import EvidenceBelief
from toolkit.domains import shipped_domain
from toolkit.invariants import Group, Member, Pattern
from toolkit.model import Atom
from toolkit.questions import QuestionBook
from toolkit.simulator import SymbolicEnvironment
from toolkit.task import load_task

SUITES = Path(__file__).resolve().parents[2] / "benchmarks" / "suites"


class Spy:
    """Records (picture, atom, wording) of every question, passing it on to a noisy oracle."""

    name = "spy"

    def __init__(self, inner: NoisyOracle) -> None:
        self.inner, self.book = inner, inner.book
        self.asked: list[tuple[object, Atom, str]] = []

    def ask(self, observation, atoms, questions=None):
        answers = self.inner.ask(observation, atoms, questions)
        self.asked += [(observation.state_key, a.atom, a.question) for a in answers]
        return answers


@pytest.mark.parametrize("i", [0, 3])
def test_no_wording_is_repeated_about_the_same_picture_while_another_is_unused(i: int) -> None:
    task = load_task(shipped_domain("blocksworld"), SUITES / "viplan-bw" / "hard" / f"hard_{i}.pddl")
    book = QuestionBook(task)
    spy = Spy(NoisyOracle(ErrorModel.uniform(0.9), seed=i, book=book, noise="deterministic"))
    run_belief_agent(SymbolicEnvironment(task), spy, make_planner("default"), BeliefAgentConfig(max_steps=20))
    seen: dict[tuple[object, Atom], list[str]] = {}
    for picture, atom, question in spy.asked:
        seen.setdefault((picture, atom), []).append(question)
    assert any(len(q) > 1 for q in seen.values()), "the noise should make some atom worth a second opinion"
    for (_, atom), questions in seen.items():
        assert len(questions) == len(set(questions)), (atom, questions)  # never the same words twice
        assert questions == list(book.phrasings(atom)[:len(questions)])  # in the file's order


def exactly_one(*atoms: Atom) -> Group:
    return Group(Pattern((Member("x", (), 1),), True), (), frozenset(atoms))


def test_an_answer_about_a_related_atom_moves_its_group_mates_by_bayes() -> None:
    on_ab, on_cb, clear_b = Atom("on", ("a", "b")), Atom("on", ("c", "b")), Atom("clear", ("b",))
    belief = EvidenceBelief([on_ab, on_cb, clear_b], [exactly_one(on_ab, on_cb, clear_b)])
    belief.observe(clear_b, True, 0.97)  # "is b clear?" yes: exactly one of the three holds
    assert belief.prob(on_ab) == pytest.approx(1 / (2 + 0.97 / 0.03))
    assert belief.prob(clear_b) == pytest.approx((0.97 / 0.03) / (2 + 0.97 / 0.03))


def test_expected_information_scores_related_atoms_and_not_unrelated_ones() -> None:
    on_ab, clear_b, far = Atom("on", ("a", "b")), Atom("clear", ("b",)), Atom("clear", ("z",))
    belief = EvidenceBelief([on_ab, clear_b, far], [exactly_one(on_ab, clear_b)])
    assert belief.information(clear_b, [on_ab], 0.9) > 0.3  # asking the mate tells about the target
    assert belief.information(far, [on_ab], 0.9) == pytest.approx(0.0)
    assert belief.information(on_ab, [on_ab], 0.5) == pytest.approx(0.0)  # a coin flip tells nothing


def test_an_action_that_did_nothing_blames_the_doubtful_precondition_by_bayes() -> None:
    sure, doubtful = Atom("clear", ("a",)), Atom("clear", ("b",))
    belief = EvidenceBelief([sure, doubtful], [])
    belief.set(sure, True, 0.999)
    f = 0.1
    belief.observe_no_effect([(sure, True), (doubtful, True)], f)
    p1, p2 = 0.999, 0.5  # exact posterior by enumerating the four worlds
    no_effect = 1 - p1 * p2 * (1 - f)
    assert belief.prob(doubtful) == pytest.approx(p2 * (1 - p1 + p1 * f) / no_effect)
    assert belief.prob(sure) == pytest.approx(p1 * (1 - p2 + p2 * f) / no_effect)
    negative = EvidenceBelief([doubtful], [])
    negative.observe_no_effect([(doubtful, False)], f)  # precondition (not (clear b)): now b is likely clear
    assert negative.prob(doubtful) == pytest.approx(1 / (1 + f))
    assert math.isfinite(negative.logodds[doubtful])


def test_a_visible_change_confirms_preconditions_and_a_repeat_failure_is_not_retried_forever() -> None:
    task = load_task(shipped_domain("blocksworld"), SUITES / "viplan-bw" / "hard" / "hard_1.pddl")
    env = SymbolicEnvironment(task, failure_prob=0.5, seed=1)
    result = run_belief_agent(env, NoisyOracle(ErrorModel.uniform(0.97), seed=1, noise="deterministic"),
                              make_planner("default"), BeliefAgentConfig(max_steps=30))
    checks = [e for e in result.ledger.events if e.get("phase") == "effect_check"]
    assert any(e.get("picture") == "unchanged" for e in checks)
    assert result.success
