"""Ctrl-C of a Ray study ends the command at once; a detached reaper stops the local cluster it started.

``ray.init()`` registers ``ray.shutdown`` to run at exit, and for a local cluster
that stops the cluster's processes one at a time, each given a SIGTERM and up to
a second before its SIGKILL (``ray/_private/node.py``, ``Node.kill_all_processes``
and ``_kill_process_impl``), after a fixed 0.5 s pause (``ray/_private/worker.py``,
``shutdown(_exiting_interpreter=True)``): ``pgt run --executor ray`` printed its
"interrupted" line within a second of Ctrl-C but exited 2.3-4.8 s after it on a
loaded machine (issue 27). Waiting for the cluster to stop is no use to the user:
every finished record is already on disk (the runner writes each one with its
own ``write``), and a resume starts a cluster of its own.

So once a SIGINT came, the exit hook registered here (it runs before Ray's)
takes a list of the cluster's processes: those the node started (raylet, GCS,
monitor, log monitor, dashboard; or as many as ``ray.init`` started when the
SIGINT cut it short) and all their descendants (Ray's agents and workers), each
with its start time so that a recycled PID is never touched. It hands the list
to a reaper (this file run as a script, in a session of its own, standard
library only, so it starts in milliseconds) and ends the process with exit code
130, skipping the interpreter's teardown. The kernel kills the node's own
processes with the driver (Ray starts them with ``PR_SET_PDEATHSIG``,
``ray/_private/services.py`` ``start_ray_process``), but not the raylet's
agents, which outlived it by minutes when tried. The reaper sends every process
on the list a SIGTERM, gives it :data:`GRACE_S` to go, then SIGKILLs what is
left. Ray keeps a session's folder under its temp dir after ``ray.shutdown``
too (its logs), so the reaper leaves it.

Measured on 2 loaded cores (a spinning process beside ``pgt run --executor ray``,
SIGINT once records are being written): exit 4.5 s after SIGINT before, 0.4-0.6 s
after, every process of the cluster gone 1.6-1.9 s after SIGINT.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from typing import Any

GRACE_S = 1.0  # SIGTERM, then this long before SIGKILL: Ray's own grace per process (node.py, _kill_process_impl)
GONE_S = 5.0  # after the SIGKILL, how long the reaper waits to see the processes gone
INTERRUPTED = 130

_state = {"watching": False, "interrupted": False, "local": False}


# ------------------------------------------------------------------ driver side


def watch(local: bool) -> None:
    """Before ``ray.init``: note SIGINTs and, if one comes, leave at exit without Ray's slow shutdown.

    ``local`` says this process starts the cluster (and so owns its processes).
    The SIGINT handler in place (Python's, which raises ``KeyboardInterrupt``) is
    kept and only wrapped; an ignored SIGINT stays ignored. Ray registered its own
    exit hook when it was imported, so this one, registered later, runs first.
    """
    _state["local"] = _state["local"] or local
    if _state["watching"]:
        return
    try:
        handler = signal.getsignal(signal.SIGINT)
        if callable(handler):
            def noted(signum: int, frame: Any) -> Any:
                _state["interrupted"] = True
                return handler(signum, frame)

            signal.signal(signal.SIGINT, noted)
    except ValueError:  # not the main thread: no handler can be set, nor a SIGINT received here
        return
    import atexit

    atexit.register(_leave)
    _state["watching"] = True


def dropping_cluster() -> bool:
    """Whether a SIGINT came since :func:`watch` and the cluster is this process's: the reaper ends its tasks.

    (Tasks on a cluster that was joined are cancelled as after any early stop.)
    """
    return bool(_state["interrupted"] and _state["local"])


def _leave() -> None:
    """At exit after a SIGINT: the cluster to the reaper, then exit 130 at once (see the module's docstring)."""
    if not _state["interrupted"]:
        return  # a normal end: Ray's own shutdown stops the cluster
    try:
        import ray

        node = ray._private.worker._global_node  # None when the SIGINT came while ray.init started the node
        if _state["local"]:
            hand_over(cluster_processes(node))
    except Exception:  # whatever went wrong, Ray's own shutdown is still there to stop the cluster
        return
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(INTERRUPTED)


def cluster_processes(node: Any) -> list[tuple[int, str | None]]:
    """(PID, start token) of each process ``node`` started, of every process this one started (``ray.init``
    may have been cut short before it had a node), and of all their descendants (agents, workers)."""
    import psutil  # Ray's own dependency (it ships a copy): always there where Ray is

    roots = [os.getpid()]
    if node is not None:
        roots += [info.process.pid for infos in list(node.all_processes.values()) for info in infos]
    seen: dict[int, str | None] = {}
    for root in roots:
        try:
            found = psutil.Process(root).children(recursive=True)
        except psutil.Error:
            continue
        if root != os.getpid():
            seen[root] = start_token(root)
        seen.update((child.pid, start_token(child.pid)) for child in found)
    return [(pid, token) for pid, token in seen.items() if alive(pid, token)]


def hand_over(procs: list[tuple[int, str | None]], grace: float = GRACE_S) -> subprocess.Popen | None:
    """A detached reaper for ``procs``: SIGTERM, and SIGKILL for those still there after ``grace``.

    The signals are the reaper's to send: a raylet that this process saw end would
    end this process first (Ray's core worker exits when its raylet goes).
    """
    if not procs:
        return None
    args = [f"{pid}:{token or ''}" for pid, token in procs]
    return subprocess.Popen([sys.executable, "-S", os.path.abspath(__file__), str(grace), *args],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True, close_fds=True)


# ------------------------------------------------------------------ both sides


def start_token(pid: int) -> str | None:
    """When ``pid`` started (clock ticks since boot, from ``/proc``), to tell it from a later process of that PID.

    None where there is no ``/proc`` (the PID alone is used there; the reaper is done within seconds).
    """
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[19].decode()
    except (OSError, IndexError):
        return None


def alive(pid: int, token: str | None) -> bool:
    """Whether ``pid`` is still the process that had ``token`` and has not exited (a zombie has)."""
    if token is not None:
        try:
            with open(f"/proc/{pid}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:
            return False
        return fields[19].decode() == token and fields[0] not in (b"Z", b"X")
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process by now
        return False
    return True


def _signal(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except (ProcessLookupError, PermissionError):
        pass


# ------------------------------------------------------------------ the reaper


def reap(procs: list[tuple[int, str | None]], grace: float) -> list[int]:
    """SIGTERM ``procs``, SIGKILL those left after ``grace``; the PIDs still there :data:`GONE_S` later."""
    for pid, token in procs:
        if alive(pid, token):
            _signal(pid, signal.SIGTERM)
    for wait, signum in ((grace, signal.SIGKILL), (GONE_S, None)):
        deadline = time.monotonic() + wait
        while (left := [(pid, token) for pid, token in procs if alive(pid, token)]) and time.monotonic() < deadline:
            time.sleep(0.05)
        if signum is not None:
            for pid, token in left:
                if alive(pid, token):
                    _signal(pid, signum)
        procs = left
    return [pid for pid, _ in procs]


def main(argv: list[str]) -> int:
    """``ray_exit.py GRACE PID:TOKEN...``: what :func:`hand_over` starts; 0 when every process is gone."""
    for signum in (signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, signal.SIG_IGN)  # the terminal's Ctrl-C, its closing: the reaper finishes its work
    grace = float(argv[0])
    procs = [(int(pid), token or None) for pid, _, token in (arg.partition(":") for arg in argv[1:])]
    return 1 if reap(procs, grace) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
