"""A replay meets the environment the released run met: iGibson's refusals and truths, ViPlan's failures.

Two miniature ViPlan runs are written here in ViPlan's layout and JSON shape, each
with an environment pgt's own worlds would not reproduce:

- a household episode where iGibson refused ``navigate-to`` (PDDL allows it, so
  pgt's household world runs it) and whose replan enumeration asks about a scene
  object the problem file does not declare (``book_2``);
- a Blocksworld episode of a run with ``fail_probability`` 0.1 where the simulator
  answered ``no-op``: the move "ran" and changed nothing.

Each is imported and replayed end to end (``--grounder replay``); the replay must
give the logged outcome and question count. Before the world script existed,
both replays met pgt's simulator instead and ended as replay errors.

With ``PGT_VIPLAN`` pointing at a ViPlan checkout, :func:`test_released_planner_runs_replay_exactly`
replays two released planner runs (``--runslow``); the whole release is
``benchmarks/bench_viplan_replay.py``'s.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from benchmarks.runner import run_study
from benchmarks.store import read_records
from benchmarks.study_config import RunConfig
from benchmarks.viplan_import import import_results
from toolkit.errors import PgtError
from toolkit.task import load_task
from toolkit.model import Atom
from toolkit.replayed_world import ReplayDiverged, ReplayedWorld, WorldScript

ROOT = Path(__file__).resolve().parents[2]
CLONE = Path(__file__).resolve().parent / "data" / "viplan_clone"
HH_KEY = "data/planning/igibson/simple/sorting_books_simple.pddl_Rs_int_0"
HH_PROBLEM = """(define (problem sorting_books_0)
    (:domain igibson)
    (:objects hardback_1 - movable table_1 - object shelf_1 - object)
    (:init (ontop hardback_1 table_1))
    (:goal (and (ontop hardback_1 shelf_1)))
)
"""
PLAN = ["navigate-to(hardback_1)", "grasp(hardback_1)", "navigate-to(shelf_1)", "place-on(hardback_1, shelf_1)"]


def _refused_navigation() -> dict:
    """iGibson says navigate-to(hardback_1) is not legal, twice: ViPlan replans once, then stops on the loop."""
    hidden = {"reachable hardback_1": [True, False, False], "all_correct": True}
    attempt = {"action": PLAN[0], "action_correct": False, "action_state_correct": False,
               "preconditions_results": {}, "non_visible_precond_results": hidden, "effects_results": None,
               "action_info": "not legal"}
    enum = {"reachable table_1": ["yes", "yes"], "ontop hardback_1,table_1": ["yes", "yes"],
            "ontop book_2,table_1": ["no", "yes"]}  # book_2: a scene object the problem does not declare
    return {"all_correct": False, "goal_reached": False, "action_results": [attempt, dict(attempt)],
            "replans": [{"enum_results": enum, "enum_metrics": {}, "step": 1, "actions": PLAN}],
            "remaining_actions": PLAN[1:]}


def _household_clone(tmp_path: Path) -> Path:
    clone = tmp_path / "clone"
    planning = clone / "data" / "planning" / "igibson"
    (planning / "simple").mkdir(parents=True)
    shutil.copy(ROOT / "pddl_domains" / "household" / "domain.pddl", planning / "domain.pddl")
    (planning / "simple" / "sorting_books_simple.pddl").write_text(HH_PROBLEM)
    results = clone / "results" / "final" / "igibson" / "final_cot" / "predicates" / "simple" / "TestVLM"
    results.mkdir(parents=True)
    metadata = {"model_name": "TestVLM", "prompt_path": "data/prompts/benchmark/igibson/prompt_cot.md",
                "problems_dir": "data/planning/igibson/simple", "fail_probability": 0.0,
                "enumerate_initial_state": False, "job_id": "1_0"}
    (results / "results_1_0.json").write_text(json.dumps(
        {HH_KEY: _refused_navigation(), "predicate_accuracy": 0.5, "task_accuracy": 0.0, "metadata": metadata}))
    return clone


def _replay(run, tmp_path: Path) -> dict:
    log = run.logs[0]
    replay = str(run.folder / "answers.jsonl") if log.protocol == "viplan-grounder" else str(run.folder)
    config = RunConfig(suite=run.suites[0], domain=run.domain_file, protocol=log.protocol, grounder="replay",
                       replay=replay, max_steps=log.max_steps, action_failure=log.fail_probability,
                       planner="up-oneshot")
    run_study(config, tmp_path / "replayed", workers=1, progress=False)
    return {r["id"]: r for r in read_records(tmp_path / "replayed" / "episodes.jsonl")}


def test_household_replay_meets_igibsons_refusal_and_scene_objects(tmp_path):
    clone = _household_clone(tmp_path)
    [run] = import_results(clone / "results", tmp_path / "run")
    [logged] = [json.loads(line) for line in (run.folder / "episodes.jsonl").read_text().splitlines()]
    assert logged["stop_reason"] == "loop" and logged["questions"] == 3
    world = logged["world"]
    assert world["partial"] and world["moves"] == [{"at": 0, "action": PLAN[0], "executed": False}] * 2
    assert "(ontop book_2 table_1)" in world["visible"][1]  # the view after the first refused move
    got = _replay(run, tmp_path)[logged["id"]]
    assert got["outcome"] == "failure" and got["stop_reason"] == "loop", got.get("error")
    assert got["questions"] == 3
    asked = [e["atom"] for e in got["events"] if e.get("phase") == "enumerate"]
    assert "(ontop book_2 table_1)" in asked  # ViPlan asks env.visible_predicates, scene objects included


DOORS_KEY = "data/planning/igibson/simple/locking_every_door_simple.pddl_Pomaria_0_int_0"
DOORS_PROBLEM = """(define (problem locking_every_door_0)
    (:domain igibson)
    (:objects door_1 door_2 - container)
    (:init (open door_1) (open door_2))
    (:goal (and (not (open door_1)) (not (open door_2))))
)
"""


def _unreported_reachability() -> dict:
    """InternVL3-8B's released locking_every_door_simple (Pomaria_0_int_0), as logged.

    After navigate-to(door_1), a "no" on (open door_1) makes ViPlan replan: the plan navigates to
    door_2, so its planner believed door_2 unreachable, and the check of navigate-to(door_2) then
    ended the episode unlogged (iGibson's state held no reachable key for door_2).
    """
    def check(answer: str, truth: bool, want: bool) -> list:
        return [answer, 0.9, 0.1, None, (answer == "yes") == want, answer.capitalize(), (answer == "yes") == truth]

    navigate = {"action": "navigate-to(door_1)", "action_correct": True, "action_state_correct": True,
                "preconditions_results": {},
                "non_visible_precond_results": {"reachable door_1": [True, False, False], "all_correct": True},
                "effects_results": {"reachable door_1": check("yes", True, True), "all_correct": True,
                                    "all_state_correct": True,
                                    "updated_non_visible_preds": {"reachable door_2": {"before": False,
                                                                                       "after": False}}},
                "action_info": "success"}
    close = {"action": "close-container(door_1)", "action_correct": False, "action_state_correct": False,
             "preconditions_results": {"reachable door_1": check("yes", True, True),
                                       "open door_1": check("no", True, True),
                                       "all_correct": False, "all_state_correct": False},
             "non_visible_precond_results": {"all_correct": True}, "effects_results": None, "action_info": None}
    replan = {"enum_results": {"reachable door_1": ["yes", "yes"], "open door_1": ["no", "yes"]},
              "enum_metrics": {}, "step": 2, "actions": ["navigate-to(door_2)", "close-container(door_2)"]}
    return {"all_correct": False, "goal_reached": False, "action_results": [navigate, close], "replans": [replan],
            "remaining_actions": ["close-container(door_2)"]}


def test_household_replan_keeps_the_file_value_of_what_igibson_did_not_report(tmp_path):
    clone = _household_clone(tmp_path)
    (clone / "data/planning/igibson/simple/locking_every_door_simple.pddl").write_text(DOORS_PROBLEM)
    results = next((clone / "results").rglob("results_1_0.json"))
    released = json.loads(results.read_text())
    results.write_text(json.dumps({**{k: v for k, v in released.items() if k != HH_KEY}, DOORS_KEY: _unreported_reachability()}))
    [run] = import_results(clone / "results", tmp_path / "run")
    [logged] = [json.loads(line) for line in (run.folder / "episodes.jsonl").read_text().splitlines()]
    assert logged["stop_reason"] == "hidden_precondition"
    assert logged["world"]["unreported"] == [[1, "(reachable door_2)"]]
    got = _replay(run, tmp_path)[logged["id"]]
    # with iGibson's (reachable door_2) in the replan's belief, pgt planned close-container(door_2)
    # at once and the replay met an action the log never tried
    assert got["outcome"] == logged["outcome"] and got["stop_reason"] == "hidden_precondition", got.get("error")
    assert got["questions"] == logged["questions"]
    plans = [e["plan"] for e in got["events"] if e.get("phase") == "plan"]
    assert plans[-1] == ["(navigate-to door_2)", "(close-container door_2)"] or \
        [p.replace(" ", "") for p in plans[-1]] == ["navigate-to(door_2)", "close-container(door_2)"], plans


def _fail_noop_run(tmp_path: Path) -> Path:
    """A Blocksworld run with fail_probability 0.1: the first move is a no-op, ViPlan replans, the second lands."""
    from toolkit.agents.viplan_atoms import effect_expectations, precondition_expectations

    clone = tmp_path / "clone"
    shutil.copytree(CLONE / "data", clone / "data")
    problem = clone / "data/planning/blocksworld/problems/simple/simple_problem_0.pddl"
    task = load_task(clone / "data/planning/blocksworld/domain.pddl", problem)

    def key(atom: Atom) -> str:
        return f"{atom.predicate.lower()} {','.join(a.lower() for a in atom.args)}"

    def enumeration(state: frozenset[Atom]) -> dict:
        return {key(a): ["yes" if a in state else "no"] * 2 for a in task.all_atoms()}

    def checks(pairs, state) -> dict:
        out = {key(a): ["yes" if a in state else "no", 0.9, 0.1, None, (a in state) == want, "", True]
               for a, want in pairs}
        out["all_correct"] = all(v[4] for v in out.values())
        return out

    move = task.action("moveBlock", ["R", "C2"])
    before, after = task.init, move.apply(task.init)
    pre = precondition_expectations(task, move)
    attempts = [
        {"action": "moveblock(r, c2)", "action_correct": False, "preconditions_results": checks(pre, before),
         "effects_results": checks(effect_expectations(move, before), before), "action_info": "no-op"},
        {"action": "moveblock(r, c2)", "action_correct": True, "preconditions_results": checks(pre, before),
         "effects_results": checks(effect_expectations(move, before), after), "action_info": "success"},
    ]
    episode = {"initial_state_enum": {"results": enumeration(before), "statistics": {}}, "all_correct": False,
               "goal_reached": True, "action_results": attempts,
               "replans": [{"enum_results": enumeration(before), "enum_metrics": {}, "step": 1,
                            "actions": ["moveblock(r, c2)"]}], "remaining_actions": []}
    folder = clone / "results/final/blocksworld/final_fail01_no_cot/predicates/simple/TestVLM"
    folder.mkdir(parents=True)
    metadata = {"model_name": "TestVLM", "prompt_path": "data/prompts/benchmark/blocksworld/prompt.md",
                "problems_dir": "data/planning/blocksworld/problems/simple", "fail_probability": 0.1,
                "enumerate_initial_state": True, "job_id": "2_0"}
    (folder / "results_2_0.json").write_text(json.dumps({
        "data/planning/blocksworld/problems/simple/simple_problem_0.pddl": episode, "predicate_accuracy": 1.0,
        "task_accuracy": 1.0, "metadata": metadata}))
    return clone


def test_fail01_replay_takes_the_logged_no_op(tmp_path):
    clone = _fail_noop_run(tmp_path)
    [run] = import_results(clone / "results", tmp_path / "run")
    [logged] = [json.loads(line) for line in (run.folder / "episodes.jsonl").read_text().splitlines()]
    assert logged["world"]["moves"][0] == {"at": 0, "action": "moveblock(r, c2)", "executed": True, "ran": None}
    got = _replay(run, tmp_path)[logged["id"]]
    assert (got["outcome"], got["questions"], got["replans"]) == ("success", logged["questions"], 1), got.get("error")
    assert [e.get("failure") for e in got["events"] if e.get("phase") == "act"] == ["no_effect", None]


def _blocks() -> tuple:
    task = load_task(CLONE / "data/planning/blocksworld/domain.pddl",
                     CLONE / "data/planning/blocksworld/problems/simple/simple_problem_0.pddl")
    return task, task.action("moveBlock", ["R", "C2"])


def test_world_script_moves_truths_and_goal():
    task, move = _blocks()
    script = WorldScript()
    script.observe(Atom("clear", ("R",)), False, True)  # the log's truth overrides PDDL's initial state
    script.move("moveblock(r, c2)", False)
    script.move("moveblock(r, c2)", True, "moveblock(r, c1)")  # the failure moved the block elsewhere
    script.goal_reached = True
    world = ReplayedWorld(task, WorldScript.from_json(json.loads(json.dumps(script.to_json()))))
    assert Atom("clear", ("R",)) not in world.true_state() and world.observe().visible is None
    first = world.execute(move)
    assert not first.executed and world.observe().state_key == ("replayed", 0)
    second = world.execute(move)
    assert second.executed and second.failure == "ran (moveBlock R C1)"
    assert task.goal_holds(world.true_state())  # the environment said the goal was reached
    with pytest.raises(ReplayDiverged, match="never tried it there") as err:
        world.execute(move)
    assert err.value.error_kind == "replay" and isinstance(err.value, PgtError)


def test_partial_view_is_what_the_log_asked():
    task, _ = _blocks()
    script = WorldScript(partial=True)
    script.observe(Atom("clear", ("R",)), True, True)
    script.observe(Atom("on", ("R", "G")), False, False)  # read from the true state: not in view
    world = ReplayedWorld(task, script)
    assert world.observe().visible == frozenset({Atom("clear", ("R",))})


def test_household_planner_lets_the_environment_judge_unchecked_actions(tmp_path):
    """ViPlan posts a reply's action to the iGibson server unchecked; the server ran grasp(window_1)."""
    from scene_graphs.registry import make_world
    from toolkit.agents.vlm_planner import _hh_action

    problem = tmp_path / "sorting_books_simple.pddl"
    problem.write_text(HH_PROBLEM)
    task = load_task(ROOT / "pddl_domains" / "household" / "domain.pddl", problem)
    names = {n.lower(): n for n in task.domain.actions}
    wrong_type = _hh_action(task, names, "grasp", ["table_1"])  # table_1 is no movable
    unknown = _hh_action(task, names, "navigate-to", ["counter_1"])  # a scene object the problem lacks
    assert str(wrong_type) == "(grasp table_1)" and str(unknown) == "(navigate-to counter_1)"
    assert _hh_action(task, names, "grasp", ["table_1", "shelf_1"]) is None  # the server cannot read it
    own = make_world(task, failure_prob=0.0, seed=0)
    own.reset(0)
    assert not own.execute(wrong_type).executed and not own.execute(unknown).executed  # pgt's world refuses
    script = WorldScript(partial=True)
    script.move("grasp(table_1)", True, None)  # iGibson: "executed but failed"
    script.move("navigate-to(counter_1)", True)
    replayed = ReplayedWorld(task, script)
    assert replayed.execute(wrong_type).executed and replayed.execute(unknown).executed
    assert Atom("reachable", ("counter_1",)) in replayed.true_state()


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("PGT_VIPLAN"), reason="set PGT_VIPLAN to a ViPlan checkout to run")
@pytest.mark.parametrize("run", ["igibson/final_cot/vila/*/gpt-4.1",
                                 "blocksworld/final_fail01_no_cot/vila/*/gpt-4.1-nano"])
def test_released_planner_runs_replay_exactly(run, tmp_path):
    """Released planner runs (iGibson's; one with action failures) replayed: every outcome and step count."""
    from benchmarks.bench_viplan_replay import Row, checkout, compare, replay

    root = checkout(os.environ["PGT_VIPLAN"])
    stage = tmp_path / "logs"
    stage.mkdir()
    for path in sorted((root / "results" / "final").glob(f"{run}/results_*.json")):
        (stage / f"results_{path.parent.parent.name}_{path.name.removeprefix('results_')}").symlink_to(path)
    [imported] = import_results(stage, tmp_path / "run", viplan=str(root))
    row = Row()
    for index, log in enumerate(imported.logs):
        compare(imported, log.split, replay(imported, index, tmp_path / log.split, 1, "up-oneshot"), row)
    assert row.episodes >= 50 and row.crashes == 0, row.disagreements[:3]
    assert row.outcome == row.episodes and row.counts == row.episodes, row.disagreements[:3]


def test_goal_outcome_the_run_reported_wins_over_pddls():
    """The run checked the goal after each action and went on: it did not hold before the end."""
    task, move = _blocks()
    script = WorldScript(goal_checked=True)
    script.move("moveblock(r, c2)", True)  # PDDL: (on R G), the goal; the environment: not reached yet
    script.move("moveblock(r, c2)", False)
    script.goal_reached = False
    world = ReplayedWorld(task, script)
    world.execute(move)
    assert not task.goal_holds(world.true_state())


def test_a_conditional_effect_viplan_asked_tells_its_hidden_condition(tmp_path):
    """open-container: ViPlan asked whether book_1 became reachable, so book_1 was inside in iGibson."""
    from benchmarks.viplan_episodes import Walk, _hidden_truth_from_effects

    problem = tmp_path / "p.pddl"
    problem.write_text("(define (problem p) (:domain igibson) (:objects cabinet_1 - container book_1 - movable)"
                       " (:init (reachable cabinet_1)) (:goal (and (holding book_1))))")
    task = load_task(ROOT / "pddl_domains" / "household" / "domain.pddl", problem)
    walk = Walk(task, "simple/p/seed0", "TestVLM", partial=True)
    answer = ["yes", 0.9, 0.1, None, True, "Yes", True]
    _hidden_truth_from_effects(walk, "open-container(cabinet_1)",
                               {"open cabinet_1": answer, "reachable book_1": answer, "all_correct": True})
    assert Atom("inside", ("book_1", "cabinet_1")) in walk.state
    assert walk.script.truth[0] == {"(inside book_1 cabinet_1)": True}


def test_a_replan_starts_from_igibsons_unreachable_hidden_objects(tmp_path):
    """iGibson's reachable is near and visible: what the replan enumeration did not show is unreachable."""
    from benchmarks.viplan_episodes import Walk, _hidden_unreachable

    problem = tmp_path / "p.pddl"
    problem.write_text("(define (problem p) (:domain igibson) (:objects cabinet_1 - container book_1 cloth_1 - movable"
                       " sink_1 - object) (:init (reachable book_1) (reachable cloth_1) (reachable sink_1))"
                       " (:goal (and (holding book_1))))")
    task = load_task(ROOT / "pddl_domains" / "household" / "domain.pddl", problem)
    walk = Walk(task, "simple/p/seed0", "TestVLM", partial=True)
    walk._know(Atom("reachable", ("sink_1",)), True, False)  # a truth logged earlier at this position wins
    enumerated = {"reachable cabinet_1": ["yes", "yes"], "open cabinet_1": ["no", "no"],
                  "reachable book_1": ["yes", "yes"], "reachable cabinet_2": ["no", "no"]}
    walk.enumerate(enumerated)
    _hidden_unreachable(walk, enumerated)
    assert Atom("reachable", ("cloth_1",)) not in walk.state  # not shown: not visible, so not reachable
    assert walk.script.moment[-1] == {"(reachable cloth_1)": False}
    assert {Atom("reachable", ("book_1",)), Atom("reachable", ("sink_1",))} <= walk.state
    # the replay reads it at this moment only: after a refused move the position's own values hold again
    world = ReplayedWorld(task, WorldScript.from_json(json.loads(json.dumps(walk.script.to_json()))))
    assert Atom("reachable", ("cloth_1",)) not in world.true_state()
    walk.script.move("grasp(book_1)", False)
    world = ReplayedWorld(task, WorldScript.from_json(json.loads(json.dumps(walk.script.to_json()))))
    world.execute(task.action("grasp", ["book_1"]))
    assert {Atom("reachable", ("cloth_1",)), Atom("reachable", ("sink_1",))} <= world.true_state()


def test_goal_checked_run_reaches_the_goal_only_after_its_last_move():
    """planning_loop checks the goal before every action, refused ones too: it held only after the last move."""
    task, move = _blocks()
    script = WorldScript(goal_checked=True)
    script.move("moveblock(r, c2)", True)  # PDDL: (on R G), the goal; the run went on, so not yet
    script.move("moveblock(r, c2)", False)  # refused, and after it the environment said the goal held
    script.goal_reached = True
    world = ReplayedWorld(task, script)
    assert world.execute(move).executed and not task.goal_holds(world.true_state())
    assert not world.execute(move).executed and task.goal_holds(world.true_state())


def test_a_replans_plan_tells_the_whole_precondition_it_relied_on(tmp_path):
    """grasp(m) needs (not (holding m)) though ViPlan never asks it: a logged replan grasping m says m was not held.

    iGibson's place actions can fail after releasing the object ("executed but failed"); the replay keeps
    it held, and only the plan ViPlan made next tells otherwise (InternVL3-78B, collect_misplaced_items).
    """
    from benchmarks.viplan_episodes import Walk, _hidden_truth_from_plan
    from toolkit.agents.viplan_atoms import precondition_expectations, precondition_literals

    problem = tmp_path / "p.pddl"
    problem.write_text("(define (problem p) (:domain igibson) (:objects shoe_1 sock_1 - movable table_1 - object)"
                       " (:init (holding shoe_1)) (:goal (and (ontop shoe_1 table_1))))")
    task = load_task(ROOT / "pddl_domains" / "household" / "domain.pddl", problem)
    grasp = task.action("grasp", ["shoe_1"])
    assert (Atom("holding", ("shoe_1",)), False) in precondition_literals(task, grasp)
    assert Atom("holding", ("shoe_1",)) not in dict(precondition_expectations(task, grasp))
    walk = Walk(task, "simple/p/seed0", "TestVLM", partial=True)
    _hidden_truth_from_plan(walk, ["navigate-to(shoe_1)", "grasp(shoe_1)"], {})
    assert walk.script.truth[-1]["(holding shoe_1)"] is False
    assert Atom("holding", ("shoe_1",)) not in walk.state


def test_the_view_starts_again_at_a_refused_move():
    """iGibson's view after a refused action is not the view before it: each move opens a view frame."""
    task, move = _blocks()
    script = WorldScript(partial=True)
    script.observe(Atom("clear", ("R",)), True, True)
    script.move("moveblock(r, c2)", False)  # refused: same position, another view
    script.observe(Atom("clear", ("G",)), True, True)
    world = ReplayedWorld(task, WorldScript.from_json(json.loads(json.dumps(script.to_json()))))
    before = world.observe()
    assert before.can_see(Atom("clear", ("R",))) and not before.can_see(Atom("clear", ("G",)))
    after = world.execute(move).observation
    assert after.can_see(Atom("clear", ("G",))) and not after.can_see(Atom("clear", ("R",)))
    assert after.state_key == before.state_key  # the same position: answers are looked up there
    # a script written before views were kept per move keeps one view per position
    old = {**script.to_json(), "visible": [["(clear R)", "(clear G)"]]}
    del old["view_per_move"]
    world = ReplayedWorld(task, WorldScript.from_json(old))
    assert world.execute(move).observation.can_see(Atom("clear", ("R",)))


def test_an_unlogged_moment_after_a_refusal_sees_the_last_view_recorded_there():
    script = WorldScript(partial=True)
    script.observe(Atom("clear", ("R",)), True, True)
    script.move("moveblock(r, c2)", False)
    script.carry_view()  # the enumeration after the refusal raised before it was logged
    assert script.visible == [["(clear R)"], ["(clear R)"]]
    script.move("moveblock(r, c2)", True)
    script.carry_view()  # an executed move: the view before it says nothing of the view after it
    assert script.visible[-1] == []


def test_an_action_meets_the_values_of_its_moment():
    """The replay's state after a move starts from what held at the moment of the move, as the importer's does."""
    task, move = _blocks()
    script = WorldScript(partial=True)
    held = next(a for a in task.init if a.predicate == "inColumn" and a.args[0] == "G")
    script.observe_moment(held, False)  # held at this moment only
    script.move("moveblock(r, c2)", True)
    world = ReplayedWorld(task, script)
    assert held not in world.true_state()
    world.execute(move)  # the move does not touch G
    assert held not in world.true_state()
