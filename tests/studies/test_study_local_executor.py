"""The local executor and the one writer: the same bytes whatever the workers, a summary without re-reading."""

from __future__ import annotations

import json
import re
from pathlib import Path

from benchmarks.executors import LOCAL_UNIT, pick_unit, units
from benchmarks.metrics import split_table
from benchmarks.runner import RunConfig, episode_specs, run_and_collect, run_study
from benchmarks.store import Appender, Finished, brief, collect, read_records

CONFIG = RunConfig(suite="viplan-bw/simple", grounder="noisy", accuracy=0.9, seeds=3, problems=2)


def _lines_by_id(path: Path) -> dict[str, bytes]:
    """Each line of an episodes file, as written, with its timing masked, by episode id."""
    out = {}
    for line in path.read_bytes().splitlines():
        rid = json.loads(line)["id"]
        assert rid not in out, f"{rid} written twice"
        out[rid] = re.sub(rb'"seconds": [0-9.e-]+', b'"seconds": 0', line)
    return out


def test_two_workers_write_the_bytes_one_worker_writes(tmp_path: Path):
    one = _lines_by_id(run_study(CONFIG, tmp_path / "one", workers=1, progress=False))
    two = _lines_by_id(run_study(CONFIG, tmp_path / "two", workers=2, progress=False))
    assert len(one) == len(episode_specs(CONFIG))
    assert one == two


def test_finished_line_is_what_the_appender_writes_and_its_brief_keeps_the_scalars(tmp_path: Path):
    record = {"schema": 1, "id": "s/p/seed0", "split": "s", "success": True, "questions": 3, "error": None,
              "events": [{"atom": "(on a b)"}], "config": {"suite": "x"}, "per_predicate": {}, "text": "é"}
    with Appender(tmp_path / "episodes.jsonl") as sink:
        sink.write(record)
    done = Finished.of(record)
    assert done.line == (tmp_path / "episodes.jsonl").read_bytes()
    assert done.record == brief(record) == {"schema": 1, "id": "s/p/seed0", "split": "s", "success": True,
                                            "questions": 3, "error": None, "text": "é"}


def test_run_and_collect_gives_what_reading_the_file_back_gives(tmp_path: Path):
    out = tmp_path / "r"
    run_study(RunConfig(**{**CONFIG.to_dict(), "seeds": 1}), out, workers=1, progress=False)  # then resumed wider
    episodes, have = run_and_collect(CONFIG, out, workers=2, progress=False)
    again = collect(read_records(episodes))
    assert [r["id"] for r in have.judged] == [r["id"] for r in again.judged]
    assert have.counts() == again.counts() and len(have.judged) == len(episode_specs(CONFIG))
    assert split_table(have.judged) == split_table(again.judged)


def test_a_free_worker_takes_its_own_task_then_an_untouched_one_then_helps_at_the_end():
    specs = episode_specs(RunConfig(**{**CONFIG.to_dict(), "seeds": 2 * LOCAL_UNIT, "problems": 3}))
    waiting = units(specs, 2, most=LOCAL_UNIT)
    task = lambda unit: (unit[0].domain, unit[0].problem)  # noqa: E731
    first, second, third = dict.fromkeys(task(u) for u in waiting)
    assert [task(u) for u in waiting].count(first) > 1  # a task's seeds span several units
    assert task(waiting[pick_unit(waiting, {second}, {first})]) == second  # its own task's next unit
    assert task(waiting[pick_unit(waiting, set(), {first, second})]) == third  # a task nobody warmed
    everyone = {task(u) for u in waiting}
    assert pick_unit(waiting, set(), everyone) == 0  # nothing untouched is left: help rather than idle
