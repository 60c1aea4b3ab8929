"""``--typing lenient``: objects of the wrong type in :init and :goal kept, as Fast Downward does, with warnings."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.cli import main
from toolkit.errors import PgtError, TypeMismatchError
from toolkit.loader import load_domain, load_problem
from toolkit.model import Atom
from toolkit.planners import FastDownwardPlanner, PlanStatus, get_planner
from toolkit.task import Task

DATA = Path(__file__).parent / "data"
DOMAIN = DATA / "order_domain.pddl"


def _task(problem: str, typing: str = "lenient") -> Task:
    domain = load_domain(DOMAIN)
    return Task(domain, load_problem(DATA / problem, domain, typing))


def test_strict_is_the_default_and_refuses_the_first_type_error():
    with pytest.raises(TypeMismatchError, match=r"lenient_p.pddl:4:20: object 'x' has type table, expected block"):
        load_problem(DATA / "lenient_p.pddl", load_domain(DOMAIN))
    with pytest.raises(TypeMismatchError, match=r"lenient_never_p.pddl:5:25: object 'a' has type block"):
        load_problem(DATA / "lenient_never_p.pddl", load_domain(DOMAIN))  # goal atoms are checked too


def test_lenient_keeps_every_atom_and_warns_once_per_mismatch_in_file_order():
    task = _task("lenient_p.pddl")
    assert {Atom("clear", ("x",)), Atom("free", ("a",))} <= task.init
    assert [w.split(": ")[0].rsplit(":", 2)[1:] for w in task.problem.warnings] == [["4", "20"], ["4", "30"], ["5", "25"]]
    assert all(w.endswith("(kept: --typing lenient)") for w in task.problem.warnings)


def test_unknown_mode_is_refused():
    with pytest.raises(PgtError, match="unknown typing mode 'loose'"):
        load_problem(DATA / "lenient_p.pddl", load_domain(DOMAIN), "loose")


@pytest.mark.parametrize("planner", ["astar", "fd-lama", "fd-text"])
def test_every_planner_agrees_on_lenient_tasks(planner):
    make = (lambda: FastDownwardPlanner("fd-text", translation="text")) if planner == "fd-text" \
        else (lambda: get_planner(planner))
    solved = make().solve(_task("lenient_p.pddl"), timeout=60)
    assert solved.status is PlanStatus.SOLVED and [str(a) for a in solved.plan] == ["(put a t1)"]
    never = make().solve(_task("lenient_never_p.pddl"), timeout=60)
    assert never.status is PlanStatus.UNSOLVABLE


def test_cli_plan_validate_and_lint_take_the_flag(capsys, tmp_path):
    prob = str(DATA / "lenient_p.pddl")
    assert main(["plan", str(DOMAIN), prob]) == 2
    assert "expected block" in capsys.readouterr().err
    assert main(["plan", str(DOMAIN), prob, "--typing", "lenient", "--planner", "fd-lama"]) == 0
    out, err = capsys.readouterr()
    assert "(put a t1)" in out and err.count("(kept: --typing lenient)") == 3
    plan = tmp_path / "p.plan"
    plan.write_text("(put a t1)\n")
    assert main(["validate", str(DOMAIN), prob, str(plan), "--typing", "lenient"]) == 0
    capsys.readouterr()
    main(["lint", str(DOMAIN), prob, "--typing", "lenient", "--json"])
    out = capsys.readouterr().out
    assert out.count('"type-error"') == 3 and '"severity": "error"' not in out
