"""Kill test: SIGKILL a study (and a repair) at random points, resume, and lose or duplicate nothing.

Real processes, real signals: ``pgt run`` in its own session is killed with its
workers, as ``kill -9`` of a job would; then the same command finishes the study.
The result must equal an uninterrupted run of the same study, record for record.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchmarks.runner import run_study
from benchmarks.store import collect, read_records, repair
from benchmarks.study_config import RunConfig, episode_specs

ROOT = Path(__file__).resolve().parents[2]
# Four episodes on two workers: each worker runs two, so a kill lands before a worker's first record, between
# two, or in a second episode, and a resume still has episodes of both workers to finish; medium_0 and
# medium_1 take ~6 s each with plans made every time (four problems doubled these tests' time, 116 s in all).
ARGS = ["--suite", "viplan-bw/medium", "--accuracy", "0.9", "--problems", "2", "--seeds", "2", "--workers", "2",
        "--quiet"]
CONFIG = RunConfig(suite="viplan-bw/medium", grounder="noisy", accuracy=0.9, problems=2, seeds=2)


@pytest.fixture(autouse=True)
def _plan_every_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """No stored plans: the reference run would fill the store and the killed runs then end before any kill."""
    monkeypatch.setenv("PGT_UP_PLAN_STORE", "off")


def _start(out: Path, *extra: str, command: str = "run") -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "toolkit.cli", command, *ARGS, *extra, "--out", str(out)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def _kill(proc: subprocess.Popen, sig: int = signal.SIGKILL) -> None:
    try:
        os.killpg(proc.pid, sig)
    except ProcessLookupError:
        pass
    proc.wait(timeout=60)


def _without_timing(record: dict) -> dict:
    return {k: v for k, v in record.items() if k not in ("seconds", "config")}


def _wait_for_episodes(path: Path, proc: subprocess.Popen, at_least: int = 1) -> None:
    deadline = time.monotonic() + 60
    while len(read_records(path)) < at_least and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)


def test_sigkill_at_random_points_then_resume_loses_and_duplicates_nothing(tmp_path: Path):
    rng = random.Random(12)
    reference = {r["id"]: r for r in read_records(run_study(CONFIG, tmp_path / "ref", workers=2, progress=False))}
    out = tmp_path / "run"
    episodes = out / "episodes.jsonl"
    kills = 0
    for _ in range(4):
        proc = _start(out)
        time.sleep(rng.uniform(0.2, 2.5))
        if proc.poll() is not None:
            break
        _kill(proc)
        kills += 1
        if episodes.is_file() and rng.random() < 0.5:  # as if a kill had torn the last line mid-write
            with episodes.open("ab") as fh:
                fh.write(b'{"schema": 1, "id": "medium/torn')
    assert kills >= 2
    finish = _start(out)
    _, err = finish.communicate(timeout=300)
    assert finish.returncode == 0, err
    records = read_records(episodes)
    have = collect(records)
    assert len(records) == len(have.judged) == len(reference) == len(episode_specs(CONFIG))  # nothing twice
    assert not have.duplicates and not have.errors
    assert {r["id"]: _without_timing(r) for r in records} == {k: _without_timing(v) for k, v in reference.items()}
    assert not episodes.read_bytes() or episodes.read_bytes().endswith(b"\n")


def test_sigkill_during_a_repair_never_loses_a_complete_line(tmp_path: Path):
    rng = random.Random(7)
    path = tmp_path / "episodes.jsonl"
    line = json.dumps({"schema": 1, "id": "x", "pad": "." * 2000}) + "\n"
    complete = (line * 20000).encode()  # ~40 MB, so the kill can land before, during or after the truncation
    for round_ in range(4):
        path.write_bytes(complete + b'{"schema": 1, "id": "torn' * 50)
        proc = subprocess.Popen([sys.executable, "-c", "import sys; from pathlib import Path\n"
                                 "from benchmarks.store import repair; repair(Path(sys.argv[1]))", str(path)],
                                cwd=ROOT)
        time.sleep(rng.uniform(0.0, 0.3))
        proc.kill()
        proc.wait()
        data = path.read_bytes()
        assert data.startswith(complete), round_  # every complete line is still there
        assert data == complete or data.startswith(complete + b'{"schema": 1, "id": "torn')
        repair(path)
        assert path.read_bytes() == complete


def test_two_concurrent_runs_into_one_folder_the_second_is_refused(tmp_path: Path):
    out = tmp_path / "run"
    first = _start(out)
    try:
        _wait_for_episodes(out / "episodes.jsonl", first)
        second = _start(out)
        _, err = second.communicate(timeout=60)
        assert second.returncode == 2
        assert err.strip() == (f"pgt run: error: {out} is in use by another pgt run (PID {first.pid}); "
                               "wait for it to finish or use another --out")
    finally:
        _kill(first)
    done = _start(out)  # the killed run's lock is gone with it
    _, err = done.communicate(timeout=300)
    assert done.returncode == 0, err
    have = collect(read_records(out / "episodes.jsonl"))
    assert len(have.judged) == len(episode_specs(CONFIG)) and not have.duplicates


def test_ctrl_c_in_workers_prints_one_line_and_exits_130(tmp_path: Path):
    for command, extra in (("run", ()), ("compare", ("--suites", "viplan-bw/medium", "--calibrations", "none",
                                                      "--action-failures", "0"))):
        argv = ["--accuracies", "0.9", "--problems", "4", "--workers", "2", "--quiet"] if command == "compare" else []
        proc = subprocess.Popen([sys.executable, "-m", "toolkit.cli", command, *(argv or ARGS), *extra,
                                 "--out", str(tmp_path / command)], cwd=ROOT, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)
        deadline = time.monotonic() + 60  # wait until workers are running episodes (not Python's start-up)
        while not list((tmp_path / command).glob("**/episodes.jsonl")) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C sends: the whole foreground group
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 130, (command, err)
        lines = [ln for ln in err.splitlines() if ln.strip() and " runs (viplan-grounder" not in ln]
        assert lines == [f"pgt {command}: interrupted"], err


def _children(pid: int) -> list[int]:
    kids = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                kids.append(int(entry.name))
        except (OSError, ValueError, IndexError):
            continue
    return kids


def _running(pid: int) -> bool:
    try:
        return (Path(f"/proc/{pid}") / "stat").read_text().rsplit(")", 1)[1].split()[0] not in "ZX"
    except (OSError, IndexError):
        return False


def test_workers_of_a_killed_writer_exit_and_release_the_folder(tmp_path: Path):
    # kill -9 of the writer alone (not its process group): its workers once waited for units forever,
    # holding the folder's lock and any pipe they inherited (a test runner's, which then hung)
    out = tmp_path / "run"
    proc = _start(out)
    try:
        _wait_for_episodes(out / "episodes.jsonl", proc)
        workers = _children(proc.pid)
        assert workers, "no worker process was seen"
        proc.kill()
        proc.wait(timeout=60)
        deadline = time.monotonic() + 60
        while any(_running(pid) for pid in workers):
            assert time.monotonic() < deadline, "a worker outlived its writer"
            time.sleep(0.1)
    finally:
        _kill(proc)
    done = subprocess.run([sys.executable, "-m", "toolkit.cli", "run", *ARGS, "--out", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr  # the folder is free: the same command finishes the study
    assert collect(read_records(out / "episodes.jsonl")).duplicates == 0
