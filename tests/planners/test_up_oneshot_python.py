"""up-oneshot in another interpreter (``PGT_UP_ONESHOT_PYTHON``): ViPlan's engines beside pgt's pinned ones.

ViPlan's released plans came from ``up-fast-downward`` 0.5.0, whose Fast Downward
breaks ties otherwise than the pinned 1.0's, and pgt's ``fd`` planner needs 1.0, so
the planner call can run in another environment. These tests stand a wrapper
around this interpreter in for that environment (CI has no second one): the call
really goes through it, gives the in-process plan, keys the store on *its* engine
versions (so answers from two engine releases never mix), and a wrong interpreter
is one clear error before any planning. ``benchmarks/bench_viplan_replay.py
--up-python`` measures the replay agreement with a real 0.5.0 environment.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from toolkit.domains import shipped_domain, shipped_problem
from toolkit.errors import PgtError
from toolkit.planners import PlanStatus
from toolkit.task import load_task

pytest.importorskip("unified_planning")
pytest.importorskip("up_fast_downward")

from toolkit.planners.up_oneshot import PYTHON_ENV, UpOneshotPlanner  # noqa: E402


@pytest.fixture(scope="module")
def task():
    return load_task(shipped_domain("blocksworld"), shipped_problem("blocksworld", "simple_problem_1"))


def _wrapper(tmp_path: Path, versions: str | None = None) -> tuple[Path, Path]:
    """An "interpreter" that logs each call and runs this one (answering ``--versions`` itself if told to)."""
    log = tmp_path / "calls.log"
    fake = f'if [ "$2" = "--versions" ]; then echo \'{{"versions": "{versions}"}}\'; exit 0; fi\n' if versions else ""
    script = tmp_path / "python"
    script.write_text(f'#!/bin/sh\necho "$@" >> "{log}"\n{fake}exec "{sys.executable}" "$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script, log


def test_the_call_runs_in_the_named_interpreter_and_gives_the_same_plans(task, tmp_path):
    python, log = _wrapper(tmp_path)
    here = UpOneshotPlanner(store=None, python=None)
    there = UpOneshotPlanner(store=None, python=str(python))
    noisy = frozenset(a for a in task.init if str(a) != str(sorted(task.init, key=str)[0]))
    statuses = set()
    for belief in (task.init, noisy):
        want, got = here.solve(task, init=belief), there.solve(task, init=belief)
        assert (got.status, got.plan, got.message) == (want.status, want.plan, want.message)
        statuses.add(got.status)
    assert statuses == {PlanStatus.SOLVED, PlanStatus.UNSOLVABLE}
    calls = log.read_text().splitlines()
    # the versions, then one process that answers every call (UP imported there once)
    assert len(calls) == 2 and calls[0].endswith("--versions") and calls[1].endswith("up_oneshot_call.py")


def test_a_planner_process_that_died_is_started_again(task, tmp_path):
    python, log = _wrapper(tmp_path)
    planner = UpOneshotPlanner(store=None, python=str(python))
    want = planner.solve(task)
    planner._child.kill()
    planner._child.wait()
    planner._memo.clear()  # the same belief again, planned afresh
    assert planner.solve(task).plan == want.plan
    assert len(log.read_text().splitlines()) == 3  # versions, the first process, its replacement


def test_the_store_keys_on_the_other_environments_engines(task, tmp_path, monkeypatch):
    python, _ = _wrapper(tmp_path, versions="unified-planning==1.2.0 up-fast-downward==0.5.0")
    here = UpOneshotPlanner(store=tmp_path / "plans.sqlite", python=None)
    monkeypatch.setenv(PYTHON_ENV, str(python))
    there = UpOneshotPlanner(store=tmp_path / "plans.sqlite")  # the environment variable names it
    assert there.python == str(python) and there.engines == "unified-planning==1.2.0 up-fast-downward==0.5.0"
    assert there.store_key(task, task.init) != here.store_key(task, task.init)
    here.solve(task)
    assert not there.solve(task).cached  # another engine release: never the other's stored answer
    assert UpOneshotPlanner(store=tmp_path / "plans.sqlite").solve(task).cached


def test_a_wrong_interpreter_is_one_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv(PYTHON_ENV, str(tmp_path / "no-such-python"))
    with pytest.raises(PgtError, match=f"{PYTHON_ENV}=.*no-such-python: cannot run unified-planning there"):
        UpOneshotPlanner(store=None)
    lacking = tmp_path / "bare"
    lacking.write_text("#!/bin/sh\necho 'ModuleNotFoundError: No module named unified_planning' >&2\nexit 1\n")
    lacking.chmod(lacking.stat().st_mode | stat.S_IEXEC)
    with pytest.raises(PgtError, match="No module named unified_planning.*up-fast-downward==0.5.0"):
        UpOneshotPlanner(store=None, python=str(lacking))


def test_the_call_module_needs_nothing_of_pgt():
    source = Path(__file__).resolve().parents[2] / "toolkit" / "planners" / "up_oneshot_call.py"
    imports = [line for line in source.read_text().splitlines() if line.lstrip().startswith(("import ", "from "))]
    assert imports and not [line for line in imports if "toolkit" in line], imports
    assert os.access(source, os.R_OK)
