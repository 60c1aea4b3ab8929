"""``pgt import-scene`` on VirtualHome-shaped task files: the wrapper, goal states, containers, layouts, pruning.

Data: purpose-built ``vh_wrapper_*.json`` (a character in an empty bedroom, a
kitchen with a closed fridge, a basket, a sink with a cup in it, a table with an
apple, a tv) and generated 300-node apartments (benchmarks/bench_import.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.bench_import import apartment, import_task
from scene_graphs import SceneGraphError, make_world
from scene_graphs.importers import goal_literals, load_scene, to_layout, to_problem
from toolkit.cli import main
from toolkit.domains import shipped_domain
from toolkit.loader import load_domain, parse_problem
from toolkit.planners import get_planner
from toolkit.task import Task
from toolkit.verify import check_plan

DATA = Path(__file__).parent / "data"
FRIDGE = DATA / "vh_wrapper_apple_in_fridge.json"


def test_wrapper_final_graph_is_the_goal_and_the_task_plans_and_renders(tmp_path, capsys):
    assert main(["import-scene", str(FRIDGE), "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "goal: 1 literal(s)" in out and "INSIDE" not in out  # the sink the cup is INSIDE is a container
    problem = tmp_path / "problems" / "vh_wrapper_apple_in_fridge.pddl"
    text = problem.read_text()
    assert "(inside apple_40 fridge_30)" in text.split("(:goal")[1]
    plan = get_planner("astar").solve(Task(load_domain(shipped_domain("household")),
                                           parse_problem(text, load_domain(shipped_domain("household")))))
    assert plan.solved and len(plan.plan) == 6
    layout = tmp_path / "layouts" / "vh_wrapper_apple_in_fridge.toml"
    assert 'agent_room = "bedroom_11"' in layout.read_text() and "bedroom_11 = []" in layout.read_text()
    assert main(["render", "household", str(problem), "--layout", str(layout), "--out", str(tmp_path / "r")]) == 0
    assert (tmp_path / "r" / "step_000.png").is_file()


def test_containers_where_the_source_says_so_or_puts_something_inside():
    g = load_scene(FRIDGE).graph
    kinds = dict(g.nodes(data="kind"))
    # The sink has no CONTAINERS/CAN_OPEN, but the scene puts the cup INSIDE it: an open container.
    assert kinds["fridge_30"] == kinds["basket_32"] == kinds["sink_41"] == "container"
    assert g.nodes["sink_41"]["open"] is True and "(inside cup_42 sink_41)" in to_problem(g)
    assert g.nodes["fridge_30"]["open"] is False  # CLOSED in the source, never invented open
    assert g.nodes["basket_32"]["open"] is True  # CONTAINERS that cannot be opened: an open receptacle
    assert "        (open fridge_30)" not in to_problem(g) and "(not (open fridge_30))" in to_problem(g)


def test_state_changes_the_domain_cannot_express_are_refused_by_name():
    report = load_scene(DATA / "vh_wrapper_tv_on.json")
    with pytest.raises(SceneGraphError) as err:
        goal_literals(report, report.final)
    assert "character gains SITTING" in str(err.value) and "tv_50 gains ON" in str(err.value)
    assert "tv_50 loses OFF" in str(err.value)
    assert main(["import-scene", str(DATA / "vh_wrapper_tv_on.json"), "--out", "/nonexistent/never"]) == 2


def test_open_and_closed_changes_become_goals(tmp_path):
    report = load_scene(FRIDGE)
    report.final.graph.nodes["fridge_30"]["open"] = True
    report.final.states["fridge_30"] = frozenset({"OPEN"})
    assert goal_literals(report, report.final) == ["(inside apple_40 fridge_30)", "(open fridge_30)"]


def test_layout_of_a_graph_whose_agent_room_is_empty_always_loads(tmp_path):
    g = load_scene(FRIDGE).graph
    (tmp_path / "layouts").mkdir()
    (tmp_path / "problems").mkdir()
    problem = tmp_path / "problems" / "s.pddl"
    problem.write_text(to_problem(g, "s"))
    (tmp_path / "layouts" / "s.toml").write_text(to_layout(g))
    domain = load_domain(shipped_domain("household"))
    world = make_world(Task(domain, parse_problem(problem.read_text(), domain, str(problem))))
    assert world.layout.agent_room == "bedroom_11"


@pytest.mark.parametrize("seed", [0, 1])
def test_pruned_apartment_plans_fast_and_its_plan_works_in_the_whole_scene(seed):
    scene = apartment(300, seed)
    pruned = import_task(scene, pruned=True)
    assert len(pruned.problem.objects) < 10
    result = get_planner("astar").solve(pruned, timeout=30)
    assert result.solved and result.optimal
    whole = import_task(scene, pruned=False)
    assert len(whole.problem.objects) > 250
    report = check_plan(whole, [str(a) for a in result.plan])
    assert report.valid, report.message


def test_prune_needs_a_goal(tmp_path, capsys):
    import json

    scene = tmp_path / "s.json"
    scene.write_text(json.dumps(json.loads(FRIDGE.read_text())["init_graph"]))
    assert main(["import-scene", str(scene), "--out", str(tmp_path), "--prune", "goal"]) == 2
    assert "--prune goal needs a goal" in capsys.readouterr().err
    assert main(["import-scene", str(FRIDGE), "--out", str(tmp_path), "--prune", "goal"]) == 0
    assert "(pruned from 10)" in capsys.readouterr().out


def test_refusals_name_the_file_and_json_errors_their_position(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"nodes": [\n  {"id": 1,}\n]}')
    assert main(["import-scene", str(bad), "--out", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err.strip() == (f"pgt import-scene: error: {bad}:2:12: not valid JSON: "
                                               "Expecting property name enclosed in double quotes")
    # A ProcTHOR house (positions, receptacle children) is named, not called malformed.
    house = tmp_path / "house.json"
    house.write_text('{"rooms": [{"id": "room|2", "roomType": "Kitchen"}], "objects": '
                     '[{"id": "Fridge|2|1", "children": [{"id": "Egg|2|3"}]}], "doors": [], "walls": []}')
    assert main(["import-scene", str(house), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"pgt import-scene: error: {house}: this looks like a ProcTHOR/AI2-THOR house")
    # A goal the household domain cannot express names the task file it came from.
    tv = DATA / "vh_wrapper_tv_on.json"
    assert main(["import-scene", str(tv), "--out", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err.startswith(f"pgt import-scene: error: {tv}: the goal changes states")


def _vh(edges: list[tuple[int, str, int]]) -> dict:
    """A VirtualHome graph: a character and a kitchen with a table, a sofa, a closed coffee maker and a cup."""
    nodes = [{"id": 1, "class_name": "character", "category": "Characters", "properties": [], "states": []},
             {"id": 10, "class_name": "kitchen", "category": "Rooms", "properties": [], "states": []},
             {"id": 20, "class_name": "kitchentable", "category": "Furniture", "properties": ["SURFACES"], "states": []},
             {"id": 21, "class_name": "sofa", "category": "Furniture", "properties": ["SITTABLE"], "states": []},
             {"id": 30, "class_name": "coffeemaker", "category": "Appliances",
              "properties": ["CAN_OPEN", "CONTAINERS"], "states": ["CLOSED"]},
             {"id": 40, "class_name": "cup", "category": "Props", "properties": ["GRABBABLE"], "states": []}]
    rooms = [(1, "INSIDE", 10), (20, "INSIDE", 10), (21, "INSIDE", 10), (30, "INSIDE", 10), (40, "INSIDE", 10)]
    return {"nodes": nodes, "edges": [{"from_id": a, "relation_type": r, "to_id": b} for a, r, b in rooms + edges]}


def test_virtualhome_proximity_echoes_are_not_goals_and_the_task_plans():
    # EAI task files: putting the cup INSIDE the coffee maker also adds cup CLOSE maker
    # and maker CLOSE cup; as goals those made the task unsolvable (a coffee maker
    # cannot be placed, and grasp clears the cup's nextto).
    start = load_scene({"init_graph": _vh([(40, "ON", 20), (40, "CLOSE", 20), (20, "CLOSE", 40)]),
                        "final_graph": _vh([(40, "INSIDE", 30), (40, "CLOSE", 30), (30, "CLOSE", 40)])})
    lines = goal_literals(start, start.final)
    assert lines == ["(inside cup_40 coffeemaker_30)"]
    text = to_problem(start.graph, "coffee", goal_lines=lines)
    domain = load_domain(shipped_domain("household"))
    result = get_planner("astar").solve(Task(domain, parse_problem(text, domain)))
    assert result.solved and len(result.plan) == 6  # open the maker empty-handed, then fetch the cup


def test_a_goal_that_moves_furniture_is_refused_by_name():
    start = load_scene({"init_graph": _vh([(40, "ON", 20)]), "final_graph": _vh([(40, "ON", 20), (20, "ON", 21)])})
    with pytest.raises(SceneGraphError, match=r"cannot move \(only movables are placed\): kitchentable_20 ontop sofa_21$"):
        goal_literals(start, start.final)


GRASIF_START = {"nodes": {
    "room": [{"name": "kitchen1"}, {"name": "garden1"}],
    "asset": [{"name": "table1", "room": "kitchen1", "states": []}, {"name": "floor2", "room": "garden1", "states": []}],
    "object": [
        {"name": "apple1", "relation": "ontop_of", "related_to": "table1", "states": [],
         "affordances": ["pick_up", "put_on", "put_under", "attach", "put_inside"]},
        {"name": "wicker_basket1", "relation": "ontop_of", "related_to": "floor2", "states": [],
         "affordances": ["pick_up", "put_on", "put_inside"]},
        {"name": "crate1", "relation": "ontop_of", "related_to": "floor2", "states": [], "affordances": ["put_inside"]}],
    "agent": {"name": "agent1", "location": "kitchen1", "holding": "nothing"}}}


def test_grasif_goal_that_puts_things_inside_a_basket_imports_and_plans(tmp_path, capsys):
    import copy
    import json

    goal = copy.deepcopy(GRASIF_START)
    goal["nodes"]["object"][0].update(relation="inside_of", related_to="wicker_basket1")
    (tmp_path / "start.json").write_text(json.dumps(GRASIF_START))
    (tmp_path / "goal.json").write_text(json.dumps(goal))
    assert main(["import-scene", str(tmp_path / "start.json"), "--goal", str(tmp_path / "goal.json"),
                 "--out", str(tmp_path)]) == 0
    text = (tmp_path / "problems" / "start.pddl").read_text()
    objects = text.split("(:objects")[1].split(")")[0]
    # the basket the goal fills is a container; the crate (put_inside, no pick_up) is one; the apple,
    # whose affordances list put_inside as GraSIF's own example does, stays movable
    assert "wicker_basket1" in objects.split("- container")[0].splitlines()[-1]
    assert "crate1" in objects.split("- container")[0].splitlines()[-1]
    assert "apple1" in objects.split("- movable")[0].splitlines()[-1]
    domain = load_domain(shipped_domain("household"))
    plan = get_planner("astar").solve(Task(domain, parse_problem(text, domain)))
    assert plan.solved


def test_dropped_relations_are_listed_in_the_problem_header(tmp_path):
    scene = {"nodes": [{"id": 1, "class_name": "kitchen", "category": "Rooms"},
                       {"id": 2, "class_name": "character", "category": "Characters"},
                       {"id": 3, "class_name": "tv", "category": "Electronics"},
                       {"id": 4, "class_name": "sofa", "category": "Furniture"}],
             "edges": [{"from_id": 2, "to_id": 1, "relation_type": "INSIDE"},
                       {"from_id": 4, "to_id": 3, "relation_type": "FACING"},
                       {"from_id": 3, "to_id": 1, "relation_type": "INSIDE"},
                       {"from_id": 4, "to_id": 1, "relation_type": "INSIDE"}]}
    import json

    (tmp_path / "s.json").write_text(json.dumps(scene))
    assert main(["import-scene", str(tmp_path / "s.json"), "--out", str(tmp_path)]) == 0
    head = (tmp_path / "problems" / "s.pddl").read_text().splitlines()[0]
    assert head == "; dropped relations without a PDDL counterpart: FACING x1"
