"""The reaper a Ray study's Ctrl-C hands its local cluster to (benchmarks/ray_exit.py), without Ray.

It must end a process that ignores SIGTERM (Ray's agents did, for minutes),
never touch a process that merely reuses a listed PID, and run detached, so that
the command that started it can exit at once. The whole path, with a real
cluster under load, is tests/cli/test_cli_interrupt_load.py.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchmarks.ray_exit import alive, hand_over, reap, start_token

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="start tokens come from /proc")

STUBBORN = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print(flush=True); time.sleep(60)"


def _stubborn() -> subprocess.Popen:
    """A process that ignores SIGTERM (like Ray's dashboard and runtime-env agents), ready once it printed."""
    proc = subprocess.Popen([sys.executable, "-c", STUBBORN], stdout=subprocess.PIPE)
    proc.stdout.readline()
    return proc


def test_the_reaper_kills_what_ignores_sigterm_after_the_grace_and_spares_a_recycled_pid():
    stubborn, other = _stubborn(), _stubborn()
    try:
        start = time.monotonic()
        # `other` is listed with another start time: a new process that got a listed PID, never to be touched
        left = reap([(stubborn.pid, start_token(stubborn.pid)), (other.pid, "1")], grace=0.3)
        took = time.monotonic() - start
        assert left == [] and not alive(stubborn.pid, start_token(stubborn.pid))
        assert stubborn.wait(timeout=5) == -signal.SIGKILL and 0.3 <= took < 3
        assert other.poll() is None
    finally:
        for proc in (stubborn, other):
            proc.kill()
            proc.wait()


def test_the_reaper_runs_detached_and_outlives_its_caller(tmp_path: Path):
    # the driver exits right after handing over: the reaper, in a session of its own, still does its work
    stubborn = _stubborn()
    try:
        reaper = hand_over([(stubborn.pid, start_token(stubborn.pid))], grace=0.2)
        assert reaper is not None and os.getsid(reaper.pid) == reaper.pid
        assert reaper.wait(timeout=10) == 0
        assert stubborn.wait(timeout=5) == -signal.SIGKILL
    finally:
        stubborn.kill()
        stubborn.wait()
    assert hand_over([]) is None  # nothing to reap: no reaper


def test_a_zombie_or_a_vanished_process_is_not_alive():
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    token = start_token(proc.pid)
    assert token is not None
    deadline = time.monotonic() + 10
    while alive(proc.pid, token) and time.monotonic() < deadline:  # exited, not yet waited for: a zombie
        time.sleep(0.01)
    assert not alive(proc.pid, token)
    proc.wait()
    assert not alive(proc.pid, token) and start_token(proc.pid) is None
