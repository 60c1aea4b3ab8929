"""``pgt score babybench-batch``: LLM-BabyBench items pinned by hand against the levels' grids.

The two levels used (seed 1), as minigrid draws them:

* ``BabyAI-GoToObj-v0``: 8x8 room, agent at (3, 4) facing north (3), the yellow
  key at (1, 6). ``left, forward, forward, left, forward`` turns west, walks to
  (2, 4) and (1, 4), turns south, walks to (1, 5): the key is in front, the
  mission is done, the final state ((1, 5), 1).
* ``CustomBabyAI-GoToRedBall-Small-4Dists-v0`` (the benchmark's own level): the
  same agent start, the red ball at (1, 6); the same five actions reach it, with
  minigrid's reward 1 - 0.9 * 5/64 = 0.9296875.

Each expected value below was worked out from those grids and equals what the
official evaluators give (``benchmarks/bench_babybench.py`` runs them).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("minigrid")

from toolkit.cli import main  # noqa: E402
from toolkit.scoring.babybench_batch import normalize, read_items  # noqa: E402
from toolkit.scoring.babybench_tasks import parse_state_prediction, pipeline_parse  # noqa: E402
from toolkit.scoring.babyai_levels import parse_actions  # noqa: E402

DATA = Path(__file__).parent / "data" / "babybench"


@pytest.fixture(scope="module")
def scored():
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["score", "babybench-batch", str(DATA / "items.jsonl"), "--quiet"]) == 1  # 3 items refused
    return {r["id"]: r for r in map(json.loads, out.getvalue().splitlines())}


def test_predict_success_needs_the_direction(scored):
    right, turned = scored["predict-right"], scored["predict-wrong-direction"]
    assert (right["success"], right["accuracy"], right["manhattan_distance"]) == (True, 1.0, 0)
    assert right["true_state"] == [[1, 5], 1]
    assert (turned["success"], turned["manhattan_distance"], turned["pgt_position_success"]) == (False, 0, True)
    off = scored["predict-off-by-one"]
    assert (off["success"], off["manhattan_distance"], off["pgt_position_success"]) == (False, 1, False)


def test_unreadable_prediction_is_refused(scored):
    assert "no state ((x, y), direction) readable" in scored["predict-garbage"]["error"]


def test_whole_reply_is_cut_by_the_pipeline_reader(scored):
    # left, forward from (3, 4) facing north: facing west (2) at (2, 4)
    assert scored["predict-reply"]["success"] and scored["predict-reply"]["true_state"] == [[2, 4], 2]


def test_plan_efficiency_counts_every_parsed_action(scored):
    right, more = scored["plan-right"], scored["plan-right-then-more"]
    assert (right["CR"], right["llm_efficiency"], right["llm_reward"], right["llm_ball_distance"]) == (1, 1.0, 0.9296875, 0)
    assert more["CR"] == 1 and more["llm_efficiency"] == 5 / 7 and more["pgt_efficiency"] == 1.0
    assert more["number_of_llm_actions"] == 7


def test_failed_plans_score_zero_with_the_distance_to_the_ball(scored):
    truncated, dropped, garbage = scored["plan-truncated"], scored["plan-one-dropped"], scored["plan-garbage"]
    assert (truncated["CR"], truncated["llm_efficiency"], truncated["llm_ball_distance"]) == (0, 0, 1)  # at (1, 4)
    assert dropped["llm_ball_distance"] == 4  # forward, forward, left, forward ends at (2, 2)
    assert (garbage["number_of_llm_actions"], garbage["llm_ball_distance"], garbage["llm_reward"]) == (0, 3, 0.0)
    assert truncated["bot_terminated"] and truncated["bot_reward"] == 0.9296875


def test_bad_items_get_one_line_errors(scored):
    assert "did you mean BabyAI-GoToObj-v0" in scored["bad-level"]["error"]
    assert "did you mean predict?" in scored["bad-task"]["error"]


def test_readers_follow_the_official_ones():
    assert parse_actions("left, Forward ,jump, pickup") == [0, 2, 3]
    assert parse_actions("left forward") == []  # one unknown item, as str_action_seq_to_int reads it
    assert parse_state_prediction("((1, 5), 1)") == ((1, 5), 1)
    assert parse_state_prediction("at 3 4 dir 0") == ((3, 4), 0)
    assert parse_state_prediction("(3, 4)") is None
    assert pipeline_parse("no marker", "plan") == ""
    assert pipeline_parse("THE LLM'S ACTION SEQUENCE IS: left, forward", "plan") == "left, forward"


def test_benchmark_csv_read_as_written(tmp_path, capsys):
    csv_text = ('env_name,seed,env_description,initial_state,action_sequence,target_state,output\n'
                'BabyAI-GoToObj-v0,1,"a room\nwith a key","((3, 4), 3)","left, forward, forward, left, forward",'
                '"((1, 5), 1)","((1, 5), 1)"\n')
    path = tmp_path / "LLM_BABYBENCH_Predict.csv"
    path.write_text(csv_text)
    (line, item), = read_items(csv_text, str(path))
    assert normalize(item)["task"] == "predict" and line == 3
    assert main(["score", "babybench-batch", str(path), "--json", "--quiet"]) == 0
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert out[0]["success"] and out[-1]["metrics"][0] == {"metric": "predict.success", "label": "Predict success",
                                                           "n": 1, "mean": 1.0, "stderr": None}


def test_decompose_without_the_benchmark_code_is_one_clear_error(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("PGT_BABYBENCH_CODE", raising=False)
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps({"task": "decompose", "env": "BabyAI-GoToObj-v0", "seed": 1,
                                "output": "(GoNextToSubgoal, (1, 6))"}) + "\n")
    assert main(["score", "babybench-batch", str(path), "--quiet"]) == 1
    assert "--babybench-code DIR" in json.loads(capsys.readouterr().out)["error"]


def test_output_stays_json_lines_when_minigrid_redraws_a_level(tmp_path, capsys):
    # BabyAI-GoToObjMaze-v0 seed 1 rejects one layout draw, which minigrid prints on standard output
    path = tmp_path / "maze.jsonl"
    path.write_text(json.dumps({"task": "predict", "env": "BabyAI-GoToObjMaze-v0", "seed": 1, "actions": "",
                                "output": "((0, 0), 0)"}) + "\n")
    assert main(["score", "babybench-batch", str(path), "--quiet"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 and "success" in json.loads(lines[0])
