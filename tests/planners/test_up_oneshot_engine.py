"""up-oneshot plans with ViPlan's engine from pgt's own installation: Fast Downward 24.06.

ViPlan's released plans came from ``up-fast-downward`` 0.5.0 (Fast Downward 24.06).
Fast Downward 25.x changed how ``lm_rhw`` approximates landmark preconditions under
conditional effects (aibasel/downward issue1183), so the lama-first of
``up-fast-downward`` 0.5.2 and 1.0 finds other landmarks on the column Blocksworld
domain and other plans (docs/studies.md, "Which planner made ViPlan's plans"). pgt
pins 0.5.0; these tests fail under 1.0. With ``PGT_VIPLAN`` pointing at a ViPlan
checkout (or the fetched bare snapshot), :func:`test_first_plans_are_viplans_logged_ones`
checks every released grounder episode planned from the true state
(``benchmarks/bench_viplan_first_plans.py`` prints the same).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from toolkit.domains import shipped_domain
from toolkit.task import load_task

pytest.importorskip("unified_planning")
pytest.importorskip("up_fast_downward")

from toolkit.planners.up_oneshot import UpOneshotPlanner  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
# A problem pgt generated (seed 303), where Fast Downward 24.06's lama-first plans this (34 steps) and
# 26.6's (up-fast-downward 1.0) starts with (moveblock g c3) and takes 43 steps.
HARD_10 = ROOT / "benchmarks" / "suites" / "viplan-bw" / "hard" / "hard_10.pddl"
FD_24_06_PLAN = ("(moveblock y c4) (moveblock b c3) (moveblock y c2) (moveblock g c3) (moveblock p c4) "
                 "(moveblock g c1) (moveblock b c4) (moveblock o c4) (moveblock g c3) (moveblock r c3) "
                 "(moveblock o c1) (moveblock r c1) (moveblock g c1) (moveblock b c3) (moveblock g c3) "
                 "(moveblock p c1) (moveblock g c4) (moveblock b c4) (moveblock p c4) (moveblock r c3) "
                 "(moveblock p c1) (moveblock b c3) (moveblock p c4) (moveblock b c1) (moveblock p c1) "
                 "(moveblock g c3) (moveblock p c4) (moveblock b c4) (moveblock b c3) (moveblock o c4) "
                 "(moveblock o c3) (moveblock p c1) (moveblock o c4) (moveblock b c4)")


def _text(plan) -> str:
    return " ".join(f"({a.name.lower()} {' '.join(a.args).lower()})" for a in plan)


def test_up_oneshot_plans_as_fast_downward_24_06_does_in_this_interpreter():
    task = load_task(shipped_domain("blocksworld"), str(HARD_10))
    planner = UpOneshotPlanner(store=None, python=None)  # this interpreter's engines, whatever the environment
    result = planner.solve(task)
    assert result.solved and _text(result.plan) == FD_24_06_PLAN
    assert "up-fast-downward==0.5.0" in planner.engines.split()  # the store keys on it


def test_pgts_fd_planner_translates_with_the_translator_of_its_own_release(monkeypatch):
    """The search binary reads the SAS file of its own release's translator, as FD's driver gives it.

    ``fast_downward.translate`` (26.6) is installed too, for the grounding benchmarks: it must not
    be the one pgt's ``fd`` planners run beside Fast Downward 24.06's search.
    """
    from toolkit.planners import fd

    calls: list[list[str]] = []
    real = fd._run

    def spy(cmd, *args, **kwargs):
        calls.append([str(c) for c in cmd])
        return real(cmd, *args, **kwargs)

    monkeypatch.setattr(fd, "_run", spy)
    task = load_task(shipped_domain("blocksworld"), str(HARD_10))
    result = fd.FastDownwardPlanner(own_sas=False).solve(task)
    assert result.solved
    translate, search = calls
    bundled = fd.fd_driver().parent / "builds" / "release" / "bin"
    assert translate[1] == str(bundled / "translate" / "translate.py")
    assert search[0] == str(bundled / "downward")


@pytest.mark.skipif(not os.environ.get("PGT_VIPLAN"), reason="set PGT_VIPLAN to a ViPlan checkout to run")
def test_first_plans_are_viplans_logged_ones(tmp_path, monkeypatch):
    from benchmarks.bench_viplan_first_plans import compare
    from benchmarks.bench_viplan_replay import checkout
    from benchmarks.viplan_logs import find_logs, read_log

    root = checkout(os.environ["PGT_VIPLAN"])
    logs = [log for log in map(read_log, find_logs(root / "results" / "final")) if log.protocol == "viplan-grounder"]
    tallies = compare(root, logs, False, UpOneshotPlanner(store=tmp_path / "plans.sqlite", python=None))
    assert {d: len(t.problems) for d, t in tallies.items()} == {"blocksworld": 65, "igibson": 16}
    for tally in tallies.values():
        assert tally.agree == tally.episodes and not tally.disagreements, tally.disagreements[:3]
