"""Plan scoring: success, partial credit, efficiency ratio, LCS against gold plans, empty plans."""

from __future__ import annotations

import pytest

from toolkit import model as m
from toolkit.domains import shipped_domain, shipped_problem
from toolkit.errors import PgtError
from toolkit.scoring.optimal import bfs_optimal_length, optimal_length
from toolkit.scoring.plan import goal_conjuncts, score_plan
from toolkit.task import load_task

GOLD = "(moveBlock r c2)\n(moveBlock p c4)\n(moveBlock r c1)\n(moveBlock y c3)\n"
DETOUR = "moveBlock(y, c3)\nmoveBlock(r, c2)\nmoveBlock(p, c4)\nmoveBlock(r, c3)\nmoveBlock(r, c1)"


@pytest.fixture(scope="module")
def bw():
    return load_task(shipped_domain("blocksworld"), shipped_problem("blocksworld", "simple_problem_0"))


@pytest.fixture(scope="module")
def opt(bw):
    result = optimal_length(bw, timeout=10)
    return lambda: result


def test_optimal_length_agrees_between_bfs_and_planner(bw):
    assert bfs_optimal_length(bw, timeout=10).length == 4 == optimal_length(bw, timeout=10).length


def test_optimal_search_times_out_honestly(bw):
    res = bfs_optimal_length(bw, timeout=10, max_states=1)
    assert res.status == "timeout" and res.length is None


def test_valid_non_optimal_plan(bw, opt):
    s = score_plan(bw, DETOUR, [("gold", GOLD)], opt)
    assert s.valid and s.partial_credit == 1.0 and s.plan_length == 5
    assert s.efficiency == pytest.approx(4 / 5)
    # gold: r c2, p c4, r c1, y c3 ; model: y c3, r c2, p c4, r c3, r c1 -> LCS r c2, p c4, r c1
    assert s.best_lcs == 3 and s.best_normalized_lcs == pytest.approx(3 / 5)


def test_best_over_gold_plans_and_ties(bw, opt):
    other = "(moveBlock y c3)\n(moveBlock r c2)\n(moveBlock p c4)\n(moveBlock r c1)"
    s = score_plan(bw, DETOUR, [("g1", GOLD), ("g2", other), ("g3", other)], opt)
    assert [g.lcs for g in s.gold] == [3, 4, 4]
    assert s.best_lcs == 4 and s.best_normalized_lcs == pytest.approx(4 / 5)
    assert s.best_gold == "g2"  # tie between g2 and g3: the first one


def test_inapplicable_plan_partial_credit_at_the_stop_state(bw, opt):
    # step 2 fails; after step 1 (r onto y in c2): clear p, clear r true; clear y false; no inColumn goal
    s = score_plan(bw, "(moveBlock r c2)\n(moveBlock y c3)\n(moveBlock p c4)", [("gold", GOLD)], opt)
    assert not s.valid and s.failed_step == 2 and s.reason == "inapplicable"
    assert (s.goal_met, s.goal_total) == (2, 6)
    assert s.efficiency is None and s.optimal is None


def test_plan_that_stops_early(bw, opt):
    s = score_plan(bw, GOLD.rsplit("\n", 2)[0], [("gold", GOLD)], opt)
    assert not s.valid and s.reason == "goal_unmet"
    assert s.partial_credit == pytest.approx(5 / 6)
    assert s.best_lcs == 3 and s.best_normalized_lcs == pytest.approx(3 / 4)


def test_empty_model_plan(bw, opt):
    s = score_plan(bw, "", [("gold", GOLD)], opt)
    assert not s.valid and s.plan_length == 0
    assert s.partial_credit == pytest.approx(3 / 6)  # the three clear atoms hold initially
    assert s.best_lcs == 0 and s.best_normalized_lcs == 0.0


def test_empty_gold_and_both_empty(bw, opt):
    s = score_plan(bw, GOLD, [("empty", "")], opt)
    assert s.gold[0].normalized_lcs == 0.0 and not s.gold[0].valid
    both = score_plan(bw, "", [("empty", "")], opt)
    assert both.gold[0].normalized_lcs == 1.0 and both.gold[0].lcs == 0


def test_unreadable_model_steps_match_nothing(bw, opt):
    s = score_plan(bw, "(moveBlock r c2)\nfly(r)\n(moveBlock p c4)", [("gold", GOLD)], opt)
    assert s.reason == "unknown_action" and s.plan_length == 3
    assert s.best_lcs == 2


def test_unreadable_gold_is_bad_input(bw):
    with pytest.raises(PgtError, match="gold plan g"):
        score_plan(bw, GOLD, [("g", "teleport(r)")])


def test_goal_conjuncts_flatten_nested_and():
    a, b, c = (m.Pred("p", (x,)) for x in "abc")
    assert goal_conjuncts(m.And((a, m.And((b, c))))) == [a, b, c]
    assert goal_conjuncts(m.Or((a, b))) == [m.Or((a, b))]
    assert goal_conjuncts(m.And(())) == []


def test_no_optimal_means_no_efficiency(bw):
    s = score_plan(bw, GOLD, [], None)
    assert s.valid and s.efficiency is None and s.best_lcs is None
