"""The iGibson household world: reach by proximity, go_to's legality, only the atoms iGibson reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scene_graphs.household import HouseholdWorld
from scene_graphs.igibson import IGibsonHouseholdWorld, simulator_reports
from scene_graphs.registry import make_world
from toolkit.domains import shipped_domain
from toolkit.model import Atom
from toolkit.task import load_task

PROBLEM = """(define (problem books) (:domain igibson)
  (:objects hardback_1 book_2 bowl_1 - movable table_1 shelf_1 - object cabinet_1 - container)
  (:init (ontop hardback_1 table_1) (ontop book_2 table_1) (inside bowl_1 cabinet_1))
  (:goal (ontop hardback_1 shelf_1)))
"""


@pytest.fixture()
def world(tmp_path: Path) -> IGibsonHouseholdWorld:
    (tmp_path / "p.pddl").write_text(PROBLEM, encoding="utf-8")
    task = load_task(shipped_domain("household"), tmp_path / "p.pddl")
    w = make_world(task, seed=0, world="scene_graphs.igibson:IGibsonHouseholdWorld")
    w.reset(0)
    return w


def reachable(w: HouseholdWorld) -> set[str]:
    return {a.args[0] for a in w.true_state() if a.predicate == "reachable"}


def go(w: HouseholdWorld, name: str, *args: str) -> bool:
    return w.execute(w.task.action(name, args)).executed


def test_navigate_reaches_what_touches_the_target_or_shares_its_support(world: IGibsonHouseholdWorld) -> None:
    assert isinstance(world, IGibsonHouseholdWorld)
    assert go(world, "navigate-to", "hardback_1")
    # the domain's effect: only hardback_1; iGibson's logs: its table and the book on the same table too
    assert reachable(world) == {"hardback_1", "table_1", "book_2"}
    assert go(world, "navigate-to", "shelf_1")
    assert reachable(world) == {"shelf_1"}


def test_navigate_is_legal_when_reachable_already_and_keeps_what_is_held(world: IGibsonHouseholdWorld) -> None:
    assert go(world, "navigate-to", "hardback_1")
    assert go(world, "navigate-to", "hardback_1")  # go_to checks only that the object exists
    assert go(world, "grasp", "hardback_1")
    assert go(world, "navigate-to", "shelf_1")
    assert reachable(world) == {"shelf_1", "hardback_1"}  # the held book moves with the robot
    assert go(world, "place-on", "hardback_1", "shelf_1")
    assert world.task.goal_holds(world.true_state())


def test_navigate_towards_a_hidden_object_ends_beside_its_closed_container(world: IGibsonHouseholdWorld) -> None:
    assert go(world, "navigate-to", "bowl_1")  # executed (iGibson: "executed but failed")
    assert reachable(world) == {"cabinet_1"}
    assert go(world, "open-container", "cabinet_1")
    assert reachable(world) == {"cabinet_1", "bowl_1"}


def test_the_view_holds_only_atoms_igibson_reports_about_what_the_robot_stands_at(
        world: IGibsonHouseholdWorld) -> None:
    start = world.observe().visible
    assert start is not None and {a.predicate for a in start} == {"holding"}  # standing nowhere the problem names
    go(world, "navigate-to", "hardback_1")
    seen = world.observe().visible
    assert Atom("ontop", ("hardback_1", "table_1")) in seen
    assert Atom("reachable", ("book_2",)) in seen
    assert Atom("ontop", ("table_1", "hardback_1")) not in seen  # a table is not movable: no value in iGibson
    assert Atom("nextto", ("hardback_1", "hardback_1")) not in seen  # nor a relation with itself
    assert Atom("reachable", ("shelf_1",)) not in seen  # out of sight


def test_simulator_reports_relations_of_movables_with_others_only() -> None:
    movables = {"bowl_1"}
    assert simulator_reports(Atom("inside", ("bowl_1", "cabinet_1")), movables)
    assert not simulator_reports(Atom("inside", ("bowl_1", "bowl_1")), movables)
    assert not simulator_reports(Atom("nextto", ("cabinet_1", "bowl_1")), movables)
    assert simulator_reports(Atom("open", ("cabinet_1",)), movables)


def test_the_domain_world_keeps_the_domain_effects(tmp_path: Path) -> None:
    (tmp_path / "p.pddl").write_text(PROBLEM, encoding="utf-8")
    w = make_world(load_task(shipped_domain("household"), tmp_path / "p.pddl"), seed=0)
    w.reset(0)
    assert not isinstance(w, IGibsonHouseholdWorld)
    assert go(w, "navigate-to", "hardback_1")
    assert reachable(w) == {"hardback_1"}
    assert not go(w, "navigate-to", "hardback_1")


@pytest.mark.parametrize("domain,world", [("igibson", "scene_graphs.igibson:IGibsonHouseholdWorld"),
                                          ("blocksworld", None)])
def test_fidelity_simulates_released_household_runs_in_the_igibson_world(tmp_path: Path, domain: str,
                                                                          world: str | None) -> None:
    from benchmarks.viplan_fidelity import studies

    run = tmp_path / "run"
    run.mkdir()
    # the released run's problem folder: the study plays exactly its episodes per problem
    (tmp_path / "suite" / "simple").mkdir(parents=True)
    (tmp_path / "suite" / "domain.pddl").write_text(Path(shipped_domain("household")).read_text(), encoding="utf-8")
    (tmp_path / "suite" / "simple" / "p.pddl").write_text(PROBLEM, encoding="utf-8")
    record = {"schema": 1, "id": "simple/p/seed0", "split": "simple", "problem": "p", "seed": 0, "success": False,
              "outcome": "failure",
              "config": {"protocol": "viplan-grounder", "suite": str(tmp_path / "suite"),
                         "domain": str(tmp_path / "suite" / "domain.pddl")},
              "imported": {"file": f"results/final/{domain}/final_cot/predicates/simple/m/results_1_0.json",
                           "max_steps": 10}}
    (run / "episodes.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    [(split, config)] = studies(run, Path(f"viplan-logs-{'hh' if domain == 'igibson' else 'bw'}-gpt-4.1"), 1)
    assert split == "simple" and config.world == world and config.max_steps == 10
