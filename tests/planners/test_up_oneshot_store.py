"""The up-oneshot planner's shared answer store: a hit is the plan a fresh call gives, and costs no UP call.

The ViPlan protocols plan through unified-planning (~1 s a call); the store keeps each
answer by a digest of the bytes the planner reads, so a study's workers and later
studies share them. These tests pin that a stored answer is the fresh plan (solved
and unsolvable beliefs alike), that any change to the files or the belief is a miss,
and that the store stays bounded.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from toolkit.domains import shipped_domain, shipped_problem
from toolkit.errors import PgtError
from toolkit.planners import PlanStatus
from toolkit.planners.plan_store import PlanStore, content_key
from toolkit.task import load_task

pytest.importorskip("unified_planning")
pytest.importorskip("up_fast_downward")

from toolkit.planners.up_oneshot import STORE_ENV, UpOneshotPlanner, default_store  # noqa: E402


@pytest.fixture(scope="module")
def task():
    return load_task(shipped_domain("blocksworld"), shipped_problem("blocksworld", "simple_problem_1"))


def _beliefs(task):
    """The true state, two noisy ones (an atom dropped) and one with nothing clear (no move applies)."""
    init = sorted(task.init, key=str)
    yield frozenset(init)
    for drop in init[:2]:
        yield frozenset(a for a in init if a != drop)
    yield frozenset(a for a in init if a.predicate.lower() != "clear")


def _refuse_up(*_args, **_kwargs):
    raise AssertionError("a stored answer must not call unified-planning")


def test_stored_answers_are_the_fresh_plans(task, tmp_path, monkeypatch):
    fresh = UpOneshotPlanner(store=tmp_path / "plans.sqlite")
    expected = [fresh.solve(task, init=b) for b in _beliefs(task)]
    assert {r.status for r in expected} >= {PlanStatus.SOLVED, PlanStatus.UNSOLVABLE}
    assert fresh.store.misses == len(expected) and len(fresh.store) == len(expected)

    # a second planner (as a worker, or a later study, builds its own) answers from the file, without UP
    monkeypatch.setattr(UpOneshotPlanner, "_oneshot", staticmethod(_refuse_up))
    again = UpOneshotPlanner(store=tmp_path / "plans.sqlite")
    for belief, want in zip(_beliefs(task), expected):
        got = again.solve(task, init=belief)
        assert got.cached
        assert (got.status, got.plan, got.message, got.planner) == (want.status, want.plan, want.message, want.planner)
    assert again.store.hits == len(expected)


def test_any_change_to_the_bytes_is_a_miss(task, tmp_path):
    planner = UpOneshotPlanner(store=tmp_path / "plans.sqlite")
    key = planner.store_key(task, task.init)
    assert planner.store_key(task, task.init) == key
    assert planner.store_key(task, frozenset(sorted(task.init, key=str)[1:])) != key
    # the same task as pgt reads it, other bytes (FD breaks ties by the text): another key
    copy = tmp_path / "problem.pddl"
    shutil.copy(task.problem.path, copy)
    copy.write_text(copy.read_text() + "\n; a comment\n")
    other = load_task(task.domain.path, str(copy))
    assert other.init == task.init and planner.store_key(other, other.init) != key


def test_the_store_is_bounded_oldest_first(tmp_path):
    store = PlanStore(tmp_path / "s.sqlite", max_entries=3)
    for i in range(5):
        store.put(content_key([str(i)]), {"i": i})
    assert len(store) == 3
    assert store.get(content_key(["0"])) is None and store.get(content_key(["1"])) is None
    assert store.get(content_key(["4"])) == {"i": 4}


def test_content_keys_do_not_collide_by_concatenation():
    assert content_key(["ab", "c"]) != content_key(["a", "bc"])


def test_bad_store_path_is_one_clear_error(tmp_path):
    bad = tmp_path / "not-a-db.sqlite"
    bad.write_text("this is not SQLite " * 100)
    with pytest.raises(PgtError, match="cannot use as a plan store"):
        UpOneshotPlanner(store=bad)


def test_store_setting(monkeypatch, tmp_path):
    bad = tmp_path / "not-a-db.sqlite"
    bad.write_text("this is not SQLite " * 100)
    monkeypatch.setenv(STORE_ENV, str(bad))
    with pytest.raises(PgtError, match=f"set {STORE_ENV} to another file, or to off"):
        UpOneshotPlanner()
    monkeypatch.setenv(STORE_ENV, "off")
    assert default_store() is None and UpOneshotPlanner().store is None
    monkeypatch.setenv(STORE_ENV, str(tmp_path / "x.sqlite"))
    assert default_store().path == Path(tmp_path / "x.sqlite")
    monkeypatch.delenv(STORE_ENV)
    monkeypatch.setenv("PGT_CACHE_DIR", str(tmp_path / "cache"))
    assert default_store().path == tmp_path / "cache" / "up-oneshot-plans.sqlite"


def test_a_damaged_entry_is_planned_afresh(task, tmp_path):
    planner = UpOneshotPlanner(store=tmp_path / "plans.sqlite")
    want = planner.solve(task)
    key = planner.store_key(task, task.init)
    planner.store.put(key, {"status": "SOLVED_SATISFICING", "plan": [["no-such-action", ["a"]]]})
    again = UpOneshotPlanner(store=tmp_path / "plans.sqlite")
    got = again.solve(task)
    assert not got.cached and got.plan == want.plan and again.answered["planned"] == 1


def test_a_task_without_files_is_still_a_planner_crash(task, tmp_path):
    from toolkit.loader import parse_domain, parse_problem
    from toolkit.task import Task

    domain = parse_domain(Path(task.domain.path).read_text())
    textual = Task(domain, parse_problem(Path(task.problem.path).read_text(), domain))  # paths "<string>"
    result = UpOneshotPlanner(store=tmp_path / "plans.sqlite").solve(textual)
    assert result.status is PlanStatus.CRASHED and "has none" in result.message
