"""Study folders with foreign, corrupt or unterminated lines, and a full disk (issue 27).

A foreign line used to end every resume in ``KeyError: 'split'`` and make
``pgt report`` refuse the folder; corrupt lines vanished without a word; a
complete last record without its newline was dropped as torn; a full disk gave
an error that named no file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from benchmarks.store import complete_tail, not_an_episode, read_records
from toolkit.cli import main

STUDY = ["run", "--suite", "viplan-bw/simple", "--grounder", "oracle", "--workers", "1", "--quiet"]


def _study(out: Path, problems: int = 3) -> list[str]:
    assert main([*STUDY, "--problems", str(problems), "--out", str(out)]) == 0
    return (out / "episodes.jsonl").read_text().splitlines()


def test_a_foreign_line_is_reported_with_its_number_and_skipped_by_resume_and_report(tmp_path, capsys) -> None:
    out = tmp_path / "run"
    lines = _study(out)
    foreign = json.dumps({"schema": 1, "id": "x"})
    # the first episode's record is lost, a foreign line and a corrupt one sit among the rest
    (out / "episodes.jsonl").write_text("\n".join([lines[1], foreign, "{not json", lines[2]]) + "\n")
    capsys.readouterr()
    assert main([*STUDY, "--problems", "3", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"{out / 'episodes.jsonl'}:2: skipped, not an episode record of this tool: field 'split' is missing" in err
    assert f"{out / 'episodes.jsonl'}:3: skipped" in err and "not JSON" in err
    assert err.count(":2: skipped") == 1 and "Traceback" not in err  # said once per run
    ids = [r["id"] for r in read_records(out / "episodes.jsonl", warn=lambda m: None)]
    assert sorted(ids) == sorted(json.loads(line)["id"] for line in lines)  # the lost episode ran again, once
    assert main(["report", str(out), "--out", str(tmp_path / "rep")]) == 0
    printed = capsys.readouterr()
    assert "| simple | 3 |" in printed.out


def test_report_skips_a_foreign_line_in_a_fresh_process(tmp_path) -> None:
    import subprocess
    import sys

    path = tmp_path / "episodes.jsonl"
    record = {"schema": 1, "id": "simple/p/seed0", "suite": "viplan-bw/simple", "split": "simple", "problem": "p",
              "seed": 0, "label": "x", "config": {"suite": "viplan-bw/simple", "accuracy": 0.9}, "success": True,
              "outcome": "success", "questions": 2, "answered": 2, "correct": 2}
    path.write_text(json.dumps({"schema": 1, "id": "x"}) + "\n" + json.dumps(record) + "\n")
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", "import sys; from toolkit.cli import main; sys.exit(main(sys.argv[1:]))",
                           "report", str(path), "--out", str(tmp_path / "rep")], capture_output=True, text=True,
                          cwd=root, env={**os.environ, "PYTHONPATH": str(root)}, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count(f"{path}:1: skipped") == 1 and "Traceback" not in done.stderr


def test_a_complete_last_record_without_its_newline_is_kept(tmp_path, capsys) -> None:
    out = tmp_path / "run"
    lines = _study(out, problems=2)
    (out / "episodes.jsonl").write_text("\n".join(lines))  # no newline after the last record
    capsys.readouterr()
    assert main([*STUDY, "--problems", "2", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "the last record had no newline; kept it" in err
    assert (out / "episodes.jsonl").read_text() == "\n".join(lines) + "\n"  # nothing dropped, nothing run again


def test_a_torn_last_line_is_still_dropped(tmp_path) -> None:
    path = tmp_path / "episodes.jsonl"
    path.write_bytes(b'{"schema": 1, "id": "simple/p/seed0", "split": "simple", "succ')
    assert complete_tail(path) is False


def test_a_full_disk_names_the_file(tmp_path, capsys, monkeypatch) -> None:
    import errno

    import benchmarks.store as store

    def full(fd: int, data) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(store.os, "write", full)
    out = tmp_path / "run"
    assert main([*STUDY, "--problems", "1", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith(f"pgt run: error: cannot write {out / 'episodes.jsonl'}: No space left on device"), err


@pytest.mark.parametrize("line, why", [
    ({"schema": 1, "id": "x"}, "field 'split' is missing"),
    ({"schema": 2, "id": "x", "split": "s", "success": True}, "schema 2"),
    ({"schema": 1, "id": "x", "split": "s"}, "no outcome"),
    ({"schema": 1, "id": "x", "split": "s", "success": True, "questions": "many"}, "'questions' is not a number"),
    ({"schema": 1, "id": "x", "split": "s", "success": True, "config": 3}, "'config' is not an object"),
    ([1, 2], "not an episode object"),
])
def test_what_is_not_an_episode_says_why(line, why: str) -> None:
    assert why in not_an_episode(line)
