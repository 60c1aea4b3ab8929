"""The study folder on disk: appends only, repairs by truncation, one writer, one record per episode."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.report import write_report
from benchmarks.runner import run_study
from benchmarks.store import Appender, StudyLock, collect, read_records, repair
from benchmarks.study_config import RunConfig
from toolkit.cli import main
from toolkit.errors import PgtError

ROOT = Path(__file__).resolve().parents[2]


def _rec(i: int, outcome: str = "success", **kw) -> dict:
    return {"schema": 1, "id": f"simple/p{i}/seed0", "split": "simple", "outcome": outcome,
            "success": outcome == "success", **kw}


def test_repair_truncates_in_place_and_keeps_every_complete_line(tmp_path: Path):
    path = tmp_path / "episodes.jsonl"
    with Appender(path) as sink:
        for i in range(3):
            sink.write(_rec(i))
    whole = path.read_bytes()
    path.write_bytes(whole + b'{"schema": 1, "id": "torn')
    inode = path.stat().st_ino
    assert repair(path) == len(b'{"schema": 1, "id": "torn')
    assert path.read_bytes() == whole and path.stat().st_ino == inode  # truncated, not rewritten
    assert repair(path) == 0
    path.write_bytes(b"no newline at all")
    assert repair(path) == len(b"no newline at all") and path.read_bytes() == b""


def test_collect_keeps_one_record_per_episode_and_counts_the_rest():
    records = [_rec(0), _rec(1, "error"), _rec(0), _rec(1, "failure"), _rec(2, "error"), _rec(2, "error"),
               _rec(0, "error")]
    have = collect(records)
    assert [r["id"] for r in have.judged] == ["simple/p0/seed0", "simple/p1/seed0"]
    assert [r["id"] for r in have.errors] == ["simple/p2/seed0"]
    assert have.duplicates == 1 and have.retried == 3
    assert have.counts() == {"success": 1, "failure": 1, "error": 1}


def test_read_records_skips_torn_and_non_utf8_lines(tmp_path: Path):
    path = tmp_path / "episodes.jsonl"
    path.write_bytes(json.dumps(_rec(0)).encode() + b"\n\xff\xfe garbage\n" + json.dumps(_rec(1)).encode()[:-3])
    assert [r["id"] for r in read_records(path)] == ["simple/p0/seed0"]


def test_report_ignores_duplicates_and_errors_and_says_so(tmp_path: Path, capsys):
    folder = tmp_path / "run"
    run_study(RunConfig(suite="viplan-bw/simple", grounder="oracle", problems=3), folder, progress=False)
    lines = (folder / "episodes.jsonl").read_text().splitlines()
    error = dict(json.loads(lines[0]), id="simple/extra/seed0", outcome="error", success=False, error="boom")
    with (folder / "episodes.jsonl").open("a") as fh:  # an old version's double run, and one errored episode
        fh.write("\n".join(lines[:2] + [json.dumps(error)]) + "\n")
    assert main(["report", str(folder), "--out", str(tmp_path / "rep")]) == 0
    out = capsys.readouterr().out
    assert "2 duplicate episode record(s) ignored" in out and "1 episode(s) errored" in out
    assert "| simple | 3 | 1.00" in out  # 3 episodes, not 5 or 6


def test_report_refuses_a_run_where_every_episode_errored(tmp_path: Path):
    path = tmp_path / "episodes.jsonl"
    path.write_text(json.dumps(_rec(0, "error")) + "\n")
    with pytest.raises(PgtError, match="all 1 episodes errored"):
        write_report([str(path)], tmp_path / "rep")


def test_a_second_writer_is_refused_while_the_first_holds_the_lock(tmp_path: Path):
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from pathlib import Path; from benchmarks.store import StudyLock\n"
         "lock = StudyLock(Path(sys.argv[1])); lock.acquire(); print('held', flush=True); time.sleep(60)",
         str(tmp_path)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(PgtError, match=f"in use by another pgt run \\(PID {holder.pid}\\)"):
            StudyLock(tmp_path).acquire()
    finally:
        holder.kill()
        holder.wait()
    # its process is gone, so is its lock: the stale lock file (still naming the dead PID) is taken over
    assert (tmp_path / ".lock").read_text().strip() == str(holder.pid)
    with StudyLock(tmp_path):
        assert (tmp_path / ".lock").read_text().strip() == str(os.getpid())
        with pytest.raises(PgtError, match="in use by another study in this process"):
            StudyLock(tmp_path).acquire()
    with StudyLock(tmp_path):  # released, so free again
        pass
