"""The LoHoRavens benchmark's pgt side, on a record the official runner wrote (no pybullet needed).

The record: put-hidden-blocks-in-two-layer-towers-into-matching-bowls, seed 10001, test
mode, a reordering of the oracle's moves replayed through the official ``env.step``
(``python -m benchmarks.bench_lohoravens_official``); its goal steps, moves and the
official cumulative ``Task._rewards`` / ``done()`` after each step are copied as written.
"""

from __future__ import annotations

import copy

import pytest

from benchmarks.bench_lohoravens_official import compare, pgt_trace

EYE = [[True, False], [False, True]]
RECORD = {
    "family": "put-hidden-blocks-in-two-layer-towers-into-matching-bowls", "seed": 10001, "order": "reordered-1",
    "steps": [{"objects": ["o11", "o13"], "metric": "pose", "max_reward": 0.02, "matches": EYE, "targets": ["t1", "t2"]},
              {"objects": ["o10", "o12"], "metric": "pose", "max_reward": 0.98, "matches": EYE, "targets": ["t3", "t4"]}],
    "start": {"o10": "table", "o11": "table", "o12": "table", "o13": "table"}, "start_points": [],
    "moves": [["o13", "t2"], ["o11", "t1"], ["o10", "t3"], ["o12", "t4"]],
    "official": [0.01, 0.02, 0.51, 1.0], "done": [False, False, False, True],
}


def test_pgt_scores_the_official_record_step_by_step():
    (row,) = compare([RECORD])
    assert row["equal"] == row["steps"] == 4 and row["first_diff"] is None and row["structure"]
    assert pgt_trace(RECORD) == ([0.01, 0.02, 0.51, 1.0], [False, False, False, True])


def test_a_difference_is_found_where_it_is():
    other = copy.deepcopy(RECORD)
    other["official"][2] = 0.5  # as if the hidden block had slipped off its bowl
    (row,) = compare([other])
    assert row["equal"] == 3 and row["first_diff"] == 2


def test_partial_start_points_count_in_a_zone():
    rec = {"family": "x", "seed": 0, "order": "oracle", "start": {"a": "table", "b": "table"},
           "start_points": [["b", "zone1", 4]], "moves": [["a", "zone1"]],
           "steps": [{"objects": ["a", "b"], "metric": "zone", "max_reward": 1.0, "matches": [[True], [True]],
                      "targets": ["zone1"], "points": [8, 8]}], "official": [0.75], "done": [False]}
    assert compare([rec])[0]["equal"] == 1  # (8 + 4) / 16


def test_a_physics_difference_is_told_from_a_rules_difference():
    # a 6 cm block lands with 3 of its 27 points outside the zone: pgt's symbolic world says 1.0, the official
    # scene 51/54; on the scene's own counts pgt's rules give the official number
    rec = {"family": "x", "seed": 0, "order": "oracle", "start": {"a": "table", "b": "table"}, "start_points": [],
           "moves": [["a", "zone1"], ["b", "zone1"]],
           "steps": [{"objects": ["a", "b"], "metric": "zone", "max_reward": 1.0, "matches": [[True, False],
                                                                                             [False, True]],
                      "targets": ["zone1"], "points": [27, 27]}],
           "official": [0.5, 51 / 54], "done": [False, False],
           "partial_points": [[["a", "zone1", 27], ["b", "zone1", 0]], [["a", "zone1", 27], ["b", "zone1", 24]]]}
    (row,) = compare([rec])
    assert row["equal"] == 1 and row["first_diff"] == 1 and row["rules_equal"] is True


def test_pose_rules_on_the_scenes_own_matches():
    # a stack level the oracle aimed at, which the block missed (the tower toppled): the scene's is_match says
    # no target, so pgt's rules on the scene give the official 0.0 where the symbolic move says 0.5
    rec = {"family": "x", "seed": 0, "order": "oracle", "start": {"a": "table", "b": "table"}, "start_points": [],
           "moves": [["a", "t1"], ["b", "t2"]],
           "steps": [{"objects": ["a", "b"], "metric": "pose", "max_reward": 1.0, "matches": [[True, True]] * 2,
                      "targets": ["t1", "t2"]}],
           "official": [0.5, 0.0], "done": [False, False], "matched": [{"a": ["t1"], "b": []}, {"a": [], "b": []}]}
    (row,) = compare([rec])
    assert row["equal"] == 1 and row["rules_equal"] is True


def test_pgts_stacking_world_puts_a_block_on_what_stands_under_its_target():
    # stack-smaller-over-bigger-with-same-color: the target stands over where the big block o1 started, at
    # 6 cm; pgt's world drops the small block o2 onto o1 (8 cm), which is off the target, as the official 0.0
    rec = {"family": "stack-smaller-over-bigger-with-same-color", "seed": 0, "order": "oracle",
           "start": {"o2": "table"}, "start_points": [], "moves": [["o2", "t1"]],
           "steps": [{"objects": ["o2"], "metric": "pose", "max_reward": 1.0, "matches": [[True]], "targets": ["t1"],
                      "target_xyz": [[0.5, 0.1, 0.06]]}],
           "scene": {"o1": [0.5, 0.1, 0.03, 0.06], "o2": [0.4, -0.2, 0.02, 0.04]},
           "official": [0.0], "done": [False]}
    assert pgt_trace(rec) == ([0.0], [False])
    rec["steps"][0]["target_xyz"] = [[0.5, 0.1, 0.08]]  # were the target at the height the block rests at
    assert pgt_trace(rec) == ([1.0], [True])


def test_the_docs_table_row_per_family():
    from benchmarks.bench_lohoravens_official import markdown

    table = markdown(compare([RECORD, {"family": "y", "seed": 1, "error": "TypeError: boom"}]))
    assert "| `put-hidden-blocks-in-two-layer-towers-into-matching-bowls` (seed 10001) | - | 4/4 | - |" in table
    assert "| `y` | - | - | - | TypeError: boom |" in table


ALTERNATE = {  # stack-blocks-with-alternate-color, seed 10001, test mode, reordered-1, as the runner wrote it
    "family": "stack-blocks-with-alternate-color", "seed": 10001, "order": "reordered-1",
    "steps": [{"objects": ["o6", "o7", "o8", "o9", "o10"], "metric": "pose", "max_reward": 1.0,
               "matches": [[i % 2 == j % 2 for j in range(5)] for i in range(5)],
               "targets": ["t1", "t2", "t3", "t4", "t5"],
               "target_xyz": [[0.540625, -0.325, z] for z in (0.02, 0.06, 0.1, 0.14, 0.18)]}],
    "start": {f"o{i}": "table" for i in range(6, 11)}, "start_points": [],
    "moves": [["o6", "t1"], ["o9", "t2"], ["o8", "t3"], ["o7", "t4"]],
    "official": [0.2, 0.4, 0.6000000000000001, 0.4], "done": [False] * 4,
    "matched": [{"o6": ["t1"]}, {"o6": ["t1"], "o9": ["t2"]}, {"o6": ["t1"], "o8": ["t3"], "o9": ["t2"]},
                {"o6": ["t1"], "o9": ["t2"]}],
    "scene": {"o6": [0.3469, -0.2594, 0.02, 0.04], "o7": [0.6406, 0.2406, 0.02, 0.04],
              "o8": [0.675, -0.2281, 0.02, 0.04], "o9": [0.3187, -0.4344, 0.02, 0.04],
              "o10": [0.4062, -0.0094, 0.02, 0.04]},
}


def test_an_official_stacking_record_differs_by_physics_only():
    # the blocks swapped levels (o9 at the second, o7 at the fourth: both odd, both allowed); the fourth block
    # knocks the third off in the official scene: pgt's stacking world says 0.8, the scene's matches 0.4
    (row,) = compare([ALTERNATE])
    assert row["structure"] and row["equal"] == 3 and row["first_diff"] == 3 and row["rules_equal"] is True
    assert pgt_trace(ALTERNATE)[0] == pytest.approx([0.2, 0.4, 0.6, 0.8])


def test_a_zone_with_z_match_move_named_by_its_level_pose_scores_in_its_zone():
    # stack-all-blocks-on-a-zone: the runner named the level pose the oracle aimed at (t1, t2); the aim lies
    # over the step's zone, so the move is into that zone (0.5 then 1.0, as the official trace)
    rec = {"family": "stack-all-blocks-on-a-zone", "seed": 0, "order": "oracle", "start": {"a": "table", "b": "table"},
           "start_points": [], "moves": [["a", "t1"], ["b", "t2"]],
           "aims": [[[0.5, 0.1, 0.02], [0, 0, 0, 1]], [[0.5, 0.1, 0.06], [0, 0, 0, 1]]],
           "steps": [{"objects": ["a", "b"], "metric": "zone_with_z_match", "max_reward": 1.0,
                      "matches": [[True, True], [True, True]], "targets": ["zone1"], "points": [8, 8],
                      "zone_targets": [[0.5, 0.1, 0.02], [0.5, 0.1, 0.06]]}],
           "official": [0.5, 1.0], "done": [False, True]}
    assert compare([rec])[0]["equal"] == 2
