"""The local executor and the one writer: the same bytes whatever the workers, a summary without re-reading."""

from __future__ import annotations

import json
import multiprocessing
import re
from pathlib import Path

from benchmarks.executors import LOCAL_UNIT, UNIT_RETRIES, pick_unit, units
from benchmarks.metrics import split_table
from benchmarks.runner import run_and_collect, run_study
from benchmarks.store import Appender, Finished, brief, collect, read_records
from benchmarks.study_config import RunConfig, episode_specs

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


def _dying(monkeypatch, marker: Path | None, doomed: str, seed: int | None = None) -> None:
    """Make a worker process die (no clean-up, as a kill or a crash of the interpreter would) on episodes of
    problem ``doomed`` (of ``seed`` only, if given): once (leaving ``marker``) or, without a marker, every time."""
    import os

    import benchmarks.episode as episode

    real = episode.run_episode

    def run_episode(spec):
        if Path(spec.problem).stem == doomed and seed in (None, spec.seed) and multiprocessing.parent_process():
            if marker is None:
                os._exit(9)
            try:
                marker.touch(exist_ok=False)
            except FileExistsError:
                pass
            else:
                os._exit(9)
        return real(spec)

    monkeypatch.setattr(episode, "run_episode", run_episode)  # forked workers inherit it


def test_a_worker_killed_mid_study_loses_and_duplicates_nothing(tmp_path: Path, monkeypatch):
    config = RunConfig(**{**CONFIG.to_dict(), "seeds": 2 * LOCAL_UNIT, "problems": 2})
    one = _lines_by_id(run_study(config, tmp_path / "one", workers=1, progress=False))
    doomed = Path(episode_specs(config)[-1].problem).stem
    _dying(monkeypatch, tmp_path / "died", doomed, seed=1)  # mid-unit: seed 0's record was sent before it died
    two = _lines_by_id(run_study(config, tmp_path / "two", workers=2, progress=False))  # asserts no id twice
    assert (tmp_path / "died").is_file()  # a worker did die
    assert one == two


def test_a_unit_whose_worker_keeps_dying_gives_worker_errors_that_a_resume_runs_again(tmp_path: Path, monkeypatch):
    config = RunConfig(**{**CONFIG.to_dict(), "seeds": 2, "problems": 2})
    doomed = Path(episode_specs(config)[0].problem).stem
    _dying(monkeypatch, None, doomed)
    out = tmp_path / "r"
    have = collect(read_records(run_study(config, out, workers=2, progress=False)))
    assert len(have.errors) == 2 and len(have.judged) == 2  # the other problem's episodes finished
    assert {r["error_kind"] for r in have.errors} == {"worker"}
    assert all(f"died {UNIT_RETRIES + 1} times" in r["error"] and doomed in r["id"] for r in have.errors)
    monkeypatch.undo()  # the crash is fixed: the same command finishes the study
    have = collect(read_records(run_study(config, out, workers=2, progress=False)))
    assert len(have.judged) == 4 and not have.errors and have.retried == 2


def test_checking_an_offline_study_imports_neither_networkx_nor_the_vlm_client():
    """The worlds' graph library (~0.1 s to import) is for the processes that run episodes: a Ray driver or a
    dry run never loads it (local workers get it from the writer just before their fork)."""
    import subprocess
    import sys

    code = ("import sys\nfrom toolkit.cli import build_parser\nfrom benchmarks.commands import _config\n"
            "from benchmarks.runner import preflight\n"
            "args = build_parser('run').parse_args(['run', '--suite', 'viplan-bw/simple', '--grounder', 'oracle', "
            "'--problems', '2', '--out', 'unused'])\n"
            "preflight(_config(args))\nprint(sorted(m for m in ('networkx', 'grounders.vlm') if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
