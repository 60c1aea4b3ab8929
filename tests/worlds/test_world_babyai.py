"""The BabyAI world: minigrid's level and seed as a PDDL task, minigrid's verdicts, frames and text.

GoToObj seed 1 (by hand from minigrid's grid): 8x8 room, agent at (3, 4) facing
north, the yellow key at (1, 6); left, forward, forward, left, forward faces the
key from (1, 5), and minigrid ends the episode there.
"""

from __future__ import annotations

import json
import struct

import pytest

pytest.importorskip("minigrid")

from scene_graphs import make_world  # noqa: E402
from scene_graphs.babyai_problem import problem_text  # noqa: E402
from toolkit.cli import main  # noqa: E402
from toolkit.domains import domain_dir, shipped_domain  # noqa: E402
from toolkit.errors import PgtError  # noqa: E402
from toolkit.task import load_task  # noqa: E402

PROBLEMS = domain_dir("babyai") / "problems"
GOTO = ["(left north west)", "(forward c-3-4 c-2-4 west)", "(forward c-2-4 c-1-4 west)", "(left west south)",
        "(forward c-1-4 c-1-5 south)"]


def _task(name: str = "gotoobj_1"):
    return load_task(shipped_domain("babyai"), PROBLEMS / f"{name}.pddl")


def test_the_benchmark_actions_reach_the_goal_in_pddl_and_in_minigrid():
    task = _task()
    world = make_world(task)
    state = task.init
    for step in GOTO:
        action = task.parse_action(step) if hasattr(task, "parse_action") else task.action(*_split(step))
        assert world.can_execute(action)
        assert not task.goal_holds(state) and not world.mission_done()
        world.execute(action)
        state = action.apply(state)
    assert task.goal_holds(state) and world.mission_done() and world.true_state() == state


def _split(step: str) -> tuple[str, list[str]]:
    name, *args = step.strip("()").split()
    return name, args


def test_minigrid_ignores_what_pddl_forbids():
    task = _task()
    world = make_world(task)
    blocked = task.action("forward", ["c-3-4", "c-3-3", "west"])  # facing north, not west
    assert not world.can_execute(blocked) and not world.execute(blocked).executed
    assert world.true_state() == task.init


def test_frames_are_minigrids_and_text_is_the_benchmarks():
    world = make_world(_task())
    png = world.observe().png()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", png[16:24]) == (256, 256)  # 8 tiles of 32 px
    text = world.describe()
    assert text.startswith("An agent is in a grid world consisting of one or more rooms.")
    assert text.endswith("- Agent initial position: (3, 4)\n- Agent facing direction: north (toward (3, 3))\n"
                         "- Objects in environment:\n  - key, color=yellow, position=(1, 6)\n"
                         "- Mission: 'go to the yellow key'")


def test_failure_model_is_seeded():
    task = _task()
    outcomes = []
    for _ in range(2):
        world = make_world(task, failure_prob=0.5, seed=7)
        outcomes.append([world.execute(task.action(*_split(s))).failure for s in GOTO[:1]] +
                        [world.execute(task.action("left", ["west", "south"])).failure for _ in range(6)])
    assert outcomes[0] == outcomes[1] and "no_effect" in outcomes[0] and None in outcomes[0]


def test_a_problem_that_is_not_the_level_is_refused(tmp_path):
    text = (PROBLEMS / "gotoobj_1.pddl").read_text().replace("(thing-at yellow-key-1 c-1-6)", "(thing-at yellow-key-1 c-2-6)")
    (tmp_path / "p.pddl").write_text(text)
    with pytest.raises(PgtError, match=r"p\.pddl:\d+:\d+: the problem is not BabyAI-GoToObj-v0 seed 1 as minigrid "):
        make_world(load_task(shipped_domain("babyai"), tmp_path / "p.pddl"))


def test_a_problem_written_in_upper_case_is_the_same_level(tmp_path):
    # PDDL names are case-insensitive (found by the command fuzz test: an upper-cased problem was refused)
    (tmp_path / "p.pddl").write_text((PROBLEMS / "gotoobj_1.pddl").read_text().upper())
    task = load_task(shipped_domain("babyai"), tmp_path / "p.pddl")
    world = make_world(task)
    assert world.true_state() == task.init
    for step in GOTO:  # lower-case steps resolve to the problem's spelling, and minigrid's atoms follow it
        act = task.action(*_split(step))
        assert world.can_execute(act) and world.execute(act).executed
    assert task.goal_holds(world.true_state())
    assert any(a.args == ("C-1-5",) for a in world.true_state() if a.predicate == "agent-at")


def test_missions_become_goals_and_sequences_are_refused():
    assert "(carrying " in problem_text("BabyAI-PickupLoc-v0", 1)
    assert "(open red-door-1)" in problem_text("BabyAI-OpenRedDoor-v0", 1)
    putnext = problem_text("BabyAI-PutNextLocal-v0", 1)
    assert "(thing-at yellow-key-1 ?a) (thing-at purple-box-1 ?b)" in putnext
    with pytest.raises(PgtError, match="orders its parts"):
        for seed in range(5):  # GoToSeq missions chain their parts with 'then' / 'after you'
            problem_text("BabyAI-GoToSeq-v0", seed)


def test_cli_writes_a_problem_and_studies_resume(tmp_path, capsys):
    assert main(["babyai-problem", "BabyAI-GoToObj-v0", "--seed", "1", "--out", str(tmp_path / "p" / "g.pddl")]) == 0
    assert (tmp_path / "p" / "g.pddl").read_text() == (PROBLEMS / "gotoobj_1.pddl").read_text()
    assert main(["babyai-problem", "BabyAI-GoToObjj-v0"]) == 2
    assert "did you mean BabyAI-GoToObj-v0" in capsys.readouterr().err
    argv = ["run", "--suite", str(tmp_path / "p"), "--domain", "babyai", "--grounder", "oracle",
            "--out", str(tmp_path / "run"), "--seeds", "1"]
    assert main(argv) == 0
    first = (tmp_path / "run" / "episodes.jsonl").read_text().splitlines()
    assert len(first) == 1 and json.loads(first[0])["success"]
    assert main(argv) == 0  # resumes: nothing left to run, nothing written twice
    assert (tmp_path / "run" / "episodes.jsonl").read_text().splitlines() == first


def test_the_goal_gap_of_a_grounded_exists_is_short(tmp_path, capsys):
    # the go-to goal grounds to an (or ...) of 5184 (and ...) s, 476,932 characters: the message shows the first
    plan = tmp_path / "plan.txt"
    plan.write_text("(left)\n")  # wrong arity: the report adds the goal gap at that point
    problem = shipped_domain("babyai").parent / "problems" / "gotoobj_1.pddl"
    assert main(["validate", "babyai", str(problem), str(plan)]) == 1
    out = capsys.readouterr().out
    assert out.rstrip().endswith("[5,184 alternatives, 476,932 characters]") and len(out) < 2000
