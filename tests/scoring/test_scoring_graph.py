"""Scene-graph scoring: loaders, action semantics, count goals under several id assignments, precision."""

from __future__ import annotations

import pytest

from toolkit.scoring.graph import CountGoal, count_matching, goals_from_graphs, score_graph_record
from toolkit.scoring.graph_actions import execute
from toolkit.scoring.graph_model import GraphTaskError, load_graph


def kitchen(bottles_on_counter=("bottle1", "bottle2", "bottle3", "bottle4")):
    objects = [{"name": b, "relation": "ontop_of", "related_to": "counter1"} for b in bottles_on_counter]
    objects += [{"name": "apple1", "relation": "ontop_of", "related_to": "counter1"},
                {"name": "apple2", "relation": "inside", "related_to": "fridge1"}]
    return {"nodes": {"room": [{"name": "kitchen1"}],
                      "asset": [{"name": n, "room": "kitchen1", "states": s} for n, s in
                                (("table1", []), ("table2", []), ("counter1", []), ("fridge1", ["closed"]))],
                      "object": objects, "agent": {"name": "agent1", "location": "kitchen1"}}}


THREE_ON_TABLES = {"relation": "ON", "count": 3, "class": "bottle", "target": {"class": "table"}}


@pytest.mark.parametrize("chosen", [
    ("bottle1", "bottle2", "bottle3"),
    ("bottle2", "bottle3", "bottle4"),
    ("bottle1", "bottle3", "bottle4"),
])
@pytest.mark.parametrize("tables", [("table1", "table1", "table1"), ("table1", "table2", "table2")])
def test_any_three_bottles_on_any_tables_succeed(chosen, tables):
    plan = [f"rearrange({b}, ontop, {t})" for b, t in zip(chosen, tables)]
    s = score_graph_record({"initial": kitchen(), "goal": [THREE_ON_TABLES], "plan": plan})
    assert s.success and s.precision == 1.0 and s.to_change == 3
    assert sorted(next(iter(s.assignment.values()))) == sorted(chosen)


def test_two_bottles_are_not_three():
    plan = ["rearrange(bottle1, ontop, table1)", "rearrange(bottle2, ontop, table2)"]
    s = score_graph_record({"initial": kitchen(), "goal": [THREE_ON_TABLES], "plan": plan})
    assert not s.success and s.changed_correctly == 2 and s.precision == pytest.approx(2 / 3)
    assert "found 2" in s.unmet[0]


def test_count_goal_with_a_specific_target():
    goal = [{"relation": "ON", "count": 2, "class": "bottle", "target": "table2"}]
    plan = ["rearrange(bottle1, ontop, table1)", "rearrange(bottle2, ontop, table2)"]
    s = score_graph_record({"initial": kitchen(), "goal": goal, "plan": plan})
    assert not s.success and s.changed_correctly == 1


def test_count_goals_need_distinct_objects_jointly():
    g = load_graph(kitchen())
    moved = execute(g, ["rearrange(bottle1, ontop, table1)", "rearrange(bottle2, ontop, table1)"]).graph
    on_table = CountGoal(2, "bottle", "ON", target_class="table")
    one_more = CountGoal(1, "bottle", "ON", target_id="table1")
    filled, assign = count_matching([on_table, one_more], moved)
    assert filled == 2  # two bottles cannot fill three slots
    moved3 = execute(moved, ["rearrange(bottle3, ontop, table1)"]).graph
    filled, assign = count_matching([on_table, one_more], moved3)
    assert filled == 3 and not set(assign[0]) & set(assign[1])


def test_matching_finds_an_assignment_a_greedy_choice_would_miss():
    # bottle1 fits both goals, bottle2 only the first: greedy "bottle1 -> goal 0" leaves goal 1 empty
    g = load_graph(kitchen(("bottle1", "bottle2")))
    g = execute(g, ["rearrange(bottle1, ontop, table1)", "rearrange(bottle2, ontop, table2)"]).graph
    any_table = CountGoal(1, "bottle", "ON", target_class="table")
    table1 = CountGoal(1, "bottle", "ON", target_id="table1")
    filled, assign = count_matching([any_table, table1], g)
    assert filled == 2 and assign == {0: ["bottle2"], 1: ["bottle1"]}


def test_closed_containers_block_and_steps_report_reasons():
    goal = [{"relation": "INSIDE", "from": "apple1", "to": "fridge1"}, {"state": "CLOSED", "node": "fridge1"}]
    bad = score_graph_record({"initial": kitchen(), "goal": goal, "plan": ["pick_up(apple1)", "put_inside(fridge1)"]})
    assert not bad.success and bad.run.failed_step == 2 and "closed" in bad.run.reason
    assert bad.to_change == 1 and bad.changed_correctly == 0
    good = score_graph_record({"initial": kitchen(), "goal": goal,
                               "plan": ["open(fridge1)", "pick_up(apple1)", "put_inside(fridge1)", "close(fridge1)"]})
    assert good.success and good.precision == 1.0
    reach = execute(load_graph(kitchen()), ["pick_up(apple2)"])
    assert reach.failed_step == 1 and "inside closed fridge1" in reach.reason


@pytest.mark.parametrize("step, why", [
    ("rearrange(table1, ontop, counter1)", "cannot be moved"),
    ("rearrange(bottle1, ontop, bottle1)", "rests on or in"),
    ("close(fridge1)", "already closed"),
    ("open(table1)", "no closed/open state"),
    ("fly(bottle1)", "unknown action"),
    ("rearrange(bottle9, ontop, table1)", "unknown node 'bottle9'"),
])
def test_infeasible_actions(step, why):
    run = execute(load_graph(kitchen()), [step])
    assert run.failed_step == 1 and why in run.reason


def test_placing_moves_the_object():
    g = execute(load_graph(kitchen()), ["rearrange(bottle1, inside, table2)", "put_on(bottle1, table1)"]).graph
    assert g.placement("bottle1") == [("ON", "table1")]
    assert ("bottle1", "INSIDE", "kitchen1") in g.edges


def test_flat_virtualhome_form_and_goal_graph():
    nodes = [{"id": 1, "class_name": "kitchen", "category": "Rooms"}, {"id": 10, "class_name": "table"},
             {"id": 20, "class_name": "microwave", "states": ["CLOSED", "OFF"]}, {"id": 30, "class_name": "plate"}]
    edges = [{"from_id": 30, "to_id": 10, "relation_type": "ON"}]
    goal_nodes = [dict(n) for n in nodes]
    goal_nodes[2] = {"id": 20, "class_name": "microwave", "states": ["CLOSED", "ON"]}
    initial = {"nodes": nodes, "edges": edges}
    goal_graph = {"nodes": goal_nodes, "edges": [{"from_id": 30, "to_id": 20, "relation_type": "INSIDE"}]}
    goals = goals_from_graphs(load_graph(initial), load_graph(goal_graph))
    assert {str(x) for x in goals} == {"30 INSIDE 20", "20 is ON", "20 is not OFF"}
    half = score_graph_record({"initial": initial, "goal_graph": goal_graph,
                               "plan": ["open(20)", "grab(30)", "putin(20)", "close(20)"]})
    assert not half.success and (half.to_change, half.changed_correctly) == (2, 1)
    full = score_graph_record({"initial": initial, "goal_graph": goal_graph,
                               "plan": '["open(20)", "grab(30)", "putin(20)", "close(20)", "switch_on(20)"]'})
    assert full.success and full.precision == 1.0


def test_nothing_to_change_gives_precision_one():
    s = score_graph_record({"initial": kitchen(), "goal": [{"state": "CLOSED", "node": "fridge1"}], "plan": []})
    assert s.success and s.to_change == 0 and s.precision == 1.0


@pytest.mark.parametrize("record, msg", [
    ({"goal": [], "plan": []}, "initial"),
    ({"initial": {"nodes": 3}, "goal": [], "plan": []}, "nodes"),
    ({"initial": kitchen(), "goal": [{"relation": "ON", "from": "apple9", "to": "table1"}], "plan": []}, "apple1"),
    ({"initial": kitchen(), "goal": [{"count": 0, "class": "bottle"}], "plan": []}, "positive"),
    ({"initial": kitchen(), "goal": [{"colour": "red"}], "plan": []}, "relation"),
    ({"initial": kitchen(), "goal": []}, "plan"),
])
def test_bad_tasks_are_clear_errors(record, msg):
    with pytest.raises(GraphTaskError, match=msg):
        score_graph_record(record)


def test_two_hands_plugs_postures_and_pour_as_virtualhome_programs_use_them():
    from toolkit.scoring.graph_actions import execute
    from toolkit.scoring.graph_model import load_graph

    g = load_graph({"nodes": [
        {"id": "c", "class_name": "character", "category": "Characters"},
        {"id": "k", "class_name": "kitchen", "category": "Rooms"},
        {"id": "cup", "class_name": "cup"}, {"id": "jug", "class_name": "jug"}, {"id": "pen", "class_name": "pen"},
        {"id": "t", "class_name": "table", "category": "furniture"},
        {"id": "sofa", "class_name": "sofa", "category": "furniture"},
        {"id": "lamp", "class_name": "lamp", "category": "furniture", "states": ["PLUGGED_OUT"]}],
        "edges": [{"from_id": x, "relation_type": "ON", "to_id": "t"} for x in ("cup", "jug", "pen")]})
    ok = execute(g, ["grab(cup)", "grab(jug)", "pour(jug, cup)", "put_on(cup, t)", "put_on(t)",
                     "plugin(lamp)", "sit(sofa)"], hands=2)
    assert ok.failed_step is None, ok.reason
    assert "PLUGGED_IN" in ok.graph.nodes["lamp"].states and "SITTING" in ok.graph.nodes["c"].states
    assert ("jug", "ON", "t") in ok.graph.edges
    third = execute(g, ["grab(cup)", "grab(jug)", "grab(pen)"], hands=2)
    assert third.failed_step == 3 and "both hands are full (cup and jug)" in third.reason
    ambiguous = execute(g, ["grab(cup)", "grab(jug)", "put_on(t)"], hands=2)
    assert ambiguous.failed_step == 3 and "name the object" in ambiguous.reason
    dry = execute(g, ["pour(jug, cup)"])
    assert dry.failed_step == 1 and "not in hand" in dry.reason
    stand = execute(g, ["lie(sofa)", "standup"])
    assert stand.failed_step is None and not {"SITTING", "LYING"} & stand.graph.nodes["c"].states


def two_rooms():
    return {"nodes": {"room": [{"name": "kitchen1"}, {"name": "garden1"}],
                      "asset": [{"name": "table1", "room": "kitchen1"}, {"name": "bench1", "room": "garden1"},
                                {"name": "bin1", "room": "garden1", "states": ["closed"]}],
                      "object": [{"name": "cup1", "relation": "ontop_of", "related_to": "table1"},
                                 {"name": "cup2", "relation": "ontop_of", "related_to": "table1"}],
                      "agent": {"name": "agent1", "location": "kitchen1"}}}


def test_graspif_agent_has_one_manipulator_unless_told_otherwise():
    goal = [{"relation": "ON", "from": "cup1", "to": "bench1"}, {"relation": "ON", "from": "cup2", "to": "bench1"}]
    both = ["pick_up(cup1)", "pick_up(cup2)", "go_to(garden1)", "put_on(cup1, bench1)", "put_on(cup2, bench1)"]
    one = score_graph_record({"initial": two_rooms(), "goal": goal, "plan": both})
    assert not one.success and one.run.failed_step == 2 and "only 1 item(s) and holds cup1" in one.run.reason
    assert score_graph_record({"initial": two_rooms(), "goal": goal, "plan": both}, hands=2).success
    trips = ["pick_up(cup1)", "go_to(garden1)", "put_on(bench1)", "go_to(kitchen1)", "pick_up(cup2)",
             "go_to(garden1)", "put_on(bench1)"]
    assert score_graph_record({"initial": two_rooms(), "goal": goal, "plan": trips}).success


def test_acting_in_a_room_the_agent_never_went_to_is_infeasible():
    goal = [{"relation": "ON", "from": "cup1", "to": "bench1"}]
    skipped = score_graph_record({"initial": two_rooms(), "goal": goal, "plan": ["pick_up(cup1)", "put_on(bench1)"]})
    assert skipped.run.failed_step == 2 and "bench1 is in garden1 and the agent is in kitchen1" in skipped.run.reason
    assert score_graph_record({"initial": two_rooms(), "goal": goal, "plan": ["pick_up(cup1)", "put_on(bench1)"]},
                              rooms=False).success
    opened = score_graph_record({"initial": two_rooms(), "goal": [{"state": "OPEN", "node": "bin1"}],
                                 "plan": ["open(bin1)"]})
    assert opened.run.failed_step == 1 and "go_to(garden1) first" in opened.run.reason
    # rearrange, LookPlanGraph's own macro action, moves an object from any room (its prompt says so)
    moved = score_graph_record({"initial": two_rooms(), "goal": goal, "plan": ["rearrange(cup1, ontop, bench1)"]})
    assert moved.success


def test_tokens_per_action_and_the_other_baselines_vocabularies():
    goal = [{"relation": "ON", "from": "cup1", "to": "bench1"}]
    react = ["think: the cup must go outside", "pick up cup1", "go to garden1", "put on bench1", "done"]
    s = score_graph_record({"initial": two_rooms(), "goal": goal, "plan": react, "tokens": 1000})
    assert s.success and s.tokens_per_action == 200.0 and s.to_json()["tokens_per_action"] == 200.0
    sayplan = ["expand_node(garden1)", "contract_node(kitchen1)", "verify_plan()", "discover_objects(table1)",
               "rearrange(cup1, ontop, bench1)", "done()"]
    assert score_graph_record({"initial": two_rooms(), "goal": goal, "plan": sayplan, "tokens": 60}).tokens_per_action == 10
    failed = score_graph_record({"initial": two_rooms(), "goal": goal, "plan": ["done"], "tokens": 50})
    assert failed.tokens_per_action is None  # TPA is over successfully completed tasks only
    with pytest.raises(GraphTaskError, match="'tokens' must be a non-negative integer"):
        score_graph_record({"initial": two_rooms(), "goal": goal, "plan": [], "tokens": "many"})
