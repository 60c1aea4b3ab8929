"""The Fast Downward route on legal PDDL that trips naive translations.

Shared names (an action and a predicate called ``open``; an object named like its
type; a parameter name repeated in one declaration, as in logistics' ``(in ?obj ?obj)``),
empty effects, ``object`` listed in ``:types`` and a type named ``number`` (reserved by FD), through every FD
configuration, both translations and ``auto``; then every shipped domain through
every FD configuration. Each FD call costs ~0.2-1 s, so the problems are small.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.cli import main
from toolkit.domains import list_domains, shipped_domain
from toolkit.planners import PLANNERS, AutoPlanner, FastDownwardPlanner, PlanResult, PlanStatus, get_planner
from toolkit.task import load_task

DATA = Path(__file__).parent / "data"
FD_PLANNERS = sorted(n for n in PLANNERS if n.startswith("fd-"))
CLASHES = ["clash_action_predicate", "clash_object_type", "empty_effect", "number_type", "object_in_types",
           "repeated_param"]


def _task(name: str):
    return load_task(DATA / f"{name}.pddl", DATA / f"{name}_p.pddl")


class _GivesUp:
    def solve(self, task, *, init=None, goal=None, timeout=60.0) -> PlanResult:
        return PlanResult(PlanStatus.TIMEOUT, (), 0.0, "astar", "state budget exhausted")


def _check_plan(task, plan) -> None:
    state = task.init
    for act in plan:
        assert act.is_applicable(state)
        state = act.apply(state)
    assert task.goal_holds(state)


@pytest.mark.parametrize("name", CLASHES)
@pytest.mark.parametrize("planner", FD_PLANNERS)
def test_fd_configurations_solve_files_with_each_clash(name, planner):
    task = _task(name)
    result = get_planner(planner).solve(task, timeout=60)
    assert result.status is PlanStatus.SOLVED, result.message + result.stderr_tail
    _check_plan(task, result.plan)


@pytest.mark.parametrize("name", CLASHES)
def test_text_translation_and_auto_beyond_its_budget_solve_them_too(name):
    task = _task(name)
    text = FastDownwardPlanner("fd-lama", translation="text").solve(task, timeout=60)
    assert text.status is PlanStatus.SOLVED, text.message + text.stderr_tail
    auto_planner = AutoPlanner()
    # Our A* checks its state budget every 256 expansions, so these tiny tasks never exceed
    # it; stand in a first leg that gives up, as it does on a large task, to reach the FD leg.
    auto_planner.own = _GivesUp()
    auto = auto_planner.solve(task, timeout=60)
    assert auto.status is PlanStatus.SOLVED and auto.planner == "auto>fd-opt", auto.message
    _check_plan(task, auto.plan)


def test_repeated_parameter_names_keep_their_arity_in_both_translations():
    from toolkit.planners.base import goal_condition
    from toolkit.planners.up_bridge import to_up_problem, to_up_problem_via_text

    task = _task("repeated_param")
    for build in (to_up_problem, to_up_problem_via_text):
        problem = build(task.domain, dict(task.problem.objects), task.init, goal_condition(task, None))
        assert [problem.fluent(n).arity for n in ("in", "at", "path")] == [2, 2, 2], build.__name__


def test_cli_plans_the_combined_file_without_noise(capsys):
    rc = main(["plan", str(DATA / "object_in_types.pddl"), str(DATA / "object_in_types_p.pddl"),
               "--planner", "fd-lama"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert out.splitlines()[-3:-1] == ["(walk character fridge)", "(open character fridge)"]
    assert "already defined" not in out + err


def _smallest_problem(domain: str) -> Path:
    problems = (shipped_domain(domain).parent / "problems").glob("*.pddl")
    return min(problems, key=lambda p: (len(p.read_text()), p.name))


@pytest.mark.parametrize("planner", FD_PLANNERS)
@pytest.mark.parametrize("domain", list_domains())
def test_every_shipped_domain_through_every_fd_configuration(domain, planner):
    task = load_task(shipped_domain(domain), _smallest_problem(domain))
    result = get_planner(planner).solve(task, timeout=120)
    assert result.status is PlanStatus.SOLVED, result.message + result.stderr_tail
    _check_plan(task, result.plan)


def test_object_listed_in_types_is_accepted_with_a_located_warning():
    task = _task("object_in_types")
    assert set(task.domain.types) == {"character"}
    assert any(w.endswith("4:11: 'object' listed in :types ignored (it is the root type)") for w in task.domain.warnings)
