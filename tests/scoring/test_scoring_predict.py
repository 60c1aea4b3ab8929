"""Predict scoring: state parsing in several forms, closed-world comparison, bad action sequences."""

from __future__ import annotations

import pytest

from toolkit.domains import shipped_domain, shipped_problem
from toolkit.errors import PgtError
from toolkit.model import Atom
from toolkit.scoring.predict import fluent_predicates, parse_state, score_prediction
from toolkit.task import load_task


@pytest.fixture(scope="module")
def bw():
    return load_task(shipped_domain("blocksworld"), shipped_problem("blocksworld", "simple_problem_0"))


ACTIONS = "(moveBlock r c2)\n(moveBlock p c4)"
TRUE_FLUENTS = {"(clear r)", "(clear p)", "(on r y)", "(inColumn r c2)", "(inColumn y c2)", "(inColumn p c4)"}


@pytest.mark.parametrize("text", [
    "(and (clear r) (clear p) (on r y) (inColumn r c2) (inColumn y c2) (inColumn p c4))",
    "```\n(clear r)\n(clear p)\n(on r y)\n(inColumn r c2)\n(inColumn y c2)\n(inColumn p c4)\n```",
    "clear(r), clear(p), on(r, y), incolumn(R, C2), inColumn(y, c2), inColumn(p, c4)",
    '["(clear r)", "clear(p)", "on r y", "inColumn r c2", "inColumn y c2", "inColumn p c4"]',
    '{"state": ["clear r", "clear p", "on r y", "inColumn r c2", "inColumn y c2", "inColumn p c4"]}',
    "- clear r\n- clear p\n- on r y\n- inColumn r c2\n- inColumn y c2\n- inColumn p c4",
])
def test_every_state_form_reads_the_same_atoms(bw, text):
    parsed = parse_state(text, bw)
    assert {str(a) for a in parsed.atoms} == TRUE_FLUENTS
    assert parsed.unknown == ()


def test_negative_literals_are_ignored_not_counted_positive(bw):
    parsed = parse_state("(on r y) (not (clear y)) not clear(p)", bw)
    assert {str(a) for a in parsed.atoms} == {"(on r y)"}
    assert len(parsed.negated) == 2


def test_unknown_names_are_flagged_and_count_as_extra(bw):
    score = score_prediction(bw, ACTIONS, "(on r y) (ontop r y) (on r zz)")
    assert set(score.parsed.unknown) == {"(ontop r y)", "(on r zz)"}
    assert "(ontop r y)" in score.all_atoms.extra


def test_bad_json_object_is_a_clear_error(bw):
    with pytest.raises(PgtError, match="state"):
        parse_state('{"answer": []}', bw)


def test_static_predicates_are_not_fluent(bw):
    assert fluent_predicates(bw.domain) == {"clear", "inColumn", "on"}


def test_fluent_only_prediction_is_exact_on_fluents(bw):
    score = score_prediction(bw, ACTIONS, "\n".join(sorted(TRUE_FLUENTS)))
    assert score.fluent_atoms.exact and score.fluent_atoms.f1 == 1.0
    assert not score.all_atoms.exact  # the static rightOf/leftOf atoms are missing
    assert score.all_atoms.precision == 1.0
    assert score.all_atoms.distance == 6  # 6 static atoms, hand-counted in the problem file


def test_full_prediction_is_exact(bw):
    full = " ".join(sorted(map(str, score_prediction(bw, ACTIONS, "").true_state)))
    score = score_prediction(bw, ACTIONS, full)
    assert score.exact and score.all_atoms.distance == 0 and score.actions_executable


def test_one_wrong_atom(bw):
    pred = set(TRUE_FLUENTS) - {"(inColumn p c4)"} | {"(inColumn p c1)"}
    score = score_prediction(bw, ACTIONS, "\n".join(pred))
    f = score.fluent_atoms
    assert f.missing == ("(inColumn p c4)",) and f.extra == ("(inColumn p c1)",)
    assert f.precision == pytest.approx(5 / 6) and f.recall == pytest.approx(5 / 6)
    assert f.distance == 2 and f.normalized_distance == pytest.approx(2 / 7)


def test_inexecutable_actions_score_against_the_prefix_state(bw):
    # step 2 moves y, which r covers: the truth is the state after step 1
    score = score_prediction(bw, "(moveBlock r c2)\n(moveBlock y c3)", "(on r y)")
    assert not score.actions_executable and score.failed_step == 2 and score.steps_executed == 1
    assert Atom("on", ("r", "y")) in score.true_state
    assert Atom("inColumn", ("y", "c2")) in score.true_state
    assert "first 1 step" in score.actions_message


def test_actions_that_miss_the_goal_are_still_executable(bw):
    score = score_prediction(bw, "(moveBlock r c2)", "")
    assert score.actions_executable and score.failed_step is None
    assert score.all_atoms.recall == 0.0 and score.all_atoms.precision == 0.0
