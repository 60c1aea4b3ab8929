"""Where a study's episodes run: this process, local worker processes, or a Ray cluster.

An executor takes the episodes still to run and yields their records as they
finish; the runner alone writes them (one writer, whatever runs the episodes),
so every executor gives the same records, resume rules and report.

Work is sent in *units*: a few episodes of one task (domain + problem), as small
specs holding file paths, never parsed models. A worker parses a task, finds its
plans and counts its questions once and reuses them for the unit's episodes and
any later unit of that task; sending a task's episodes to every worker in turn
would make each worker redo that warm-up (which is why a second core used to buy
nothing). Records stream back one episode at a time, so a worker or node that
dies loses only the episodes it had not finished; its unit is run again.
"""

from __future__ import annotations

import gc
import math
import multiprocessing
import multiprocessing.connection
import os
import queue
import signal
import sys
import threading
from typing import TYPE_CHECKING, Any, Callable, Iterator, Protocol

from benchmarks import ray_exit
from benchmarks.store import Finished
from toolkit.errors import PgtError

if TYPE_CHECKING:
    from benchmarks.study_config import EpisodeSpec, RunConfig

Record = dict[str, Any]
EXECUTORS = ("local", "ray")
RAY_EXTRA = "pip install -e \".[ray]\""
WAIT_S = 0.2  # the Ray executor's longest wait for a unit between two looks at Ctrl-C
UNIT_RETRIES = 3  # a unit whose worker died runs again this many times, then its episodes are error records


class Executor(Protocol):
    def run(self, specs: list[EpisodeSpec]) -> Iterator[Finished]:
        """Finished episodes of ``specs`` in finishing order; closing the iterator stops the work at once."""
        ...


def make_executor(config: RunConfig, workers: int) -> Executor:
    """The executor ``config`` asks for: ``local`` with ``workers`` processes, or ``ray`` (at ``config.address``)."""
    if config.executor == "ray":
        return RayExecutor(config.address, workers)
    return LocalExecutor(workers)


def check_executor(config: RunConfig) -> None:
    """A clear one-line error for an executor that cannot run, before the study folder is touched."""
    if config.executor not in EXECUTORS:
        raise PgtError(f"unknown executor {config.executor!r}; choose one of {', '.join(EXECUTORS)}")
    if config.address is not None and config.executor != "ray":
        raise PgtError("--address is the address of a Ray cluster: only with --executor ray")
    from benchmarks.runner import endpoint_bound

    if config.executor == "ray" and endpoint_bound(config):
        raise PgtError("--executor ray is for offline grounders: a VLM study's episodes wait on the endpoint and run "
                       "as threads of this process under one study-wide limit (--max-inflight, --rpm, --tpm)")
    if config.executor == "ray":
        import importlib.util

        try:  # found, not imported: Ray reads its authentication settings when imported (connect)
            found = importlib.util.find_spec("ray") is not None
        except ValueError:  # a module named ray without a spec (a test's stand-in)
            found = "ray" in sys.modules and sys.modules["ray"] is not None
        if not found:
            raise PgtError(f"--executor ray needs Ray, which is not installed: {RAY_EXTRA}")


def units(specs: list[EpisodeSpec], workers: int, most: int | None = None) -> list[list[EpisodeSpec]]:
    """``specs`` cut into runs of one task each, small enough that ``workers`` end at about the same time."""
    by_task: dict[tuple[str, str], list[EpisodeSpec]] = {}
    for spec in specs:
        by_task.setdefault((spec.domain, spec.problem), []).append(spec)
    size = max(1, math.ceil(len(specs) / (max(workers, 1) * 4)))
    if most is not None:
        size = min(size, most)
    return [group[i:i + size] for group in by_task.values() for i in range(0, len(group), size)]


def lost_record(spec: EpisodeSpec, why: str) -> Record:
    """The error record of an episode whose worker kept dying: retried when the study is resumed."""
    from benchmarks.episode import episode_header

    return {**episode_header(spec), "success": False, "outcome": "error", "stop_reason": "error",
            "error_kind": "worker", "error": why, "fatal": False}


# ------------------------------------------------------------------ local


class LocalExecutor:
    """Episodes in this process (one worker) or in ``workers`` forked processes fed units of one task."""

    def __init__(self, workers: int) -> None:
        self.workers = workers

    def run(self, specs: list[EpisodeSpec]) -> Iterator[Finished]:
        from benchmarks.episode import run_episode

        if self.workers <= 1 or len(specs) <= 1:
            for spec in specs:
                yield Finished.of(run_episode(spec))
            return
        from benchmarks.episode import load_episode_code

        load_episode_code()  # once, before the fork, so the workers share it rather than each import it again
        yield from _Pool(min(self.workers, len(specs))).run(units(specs, self.workers, most=LOCAL_UNIT))


# Episodes per local unit: small enough that the last units even out the workers' finishing times, large
# enough that handing them out costs the writer little. A worker is handed units of tasks it has warmed
# first, so a task's warm-up (parsing, plans, question counts) still runs about once.
LOCAL_UNIT = 5


def pick_unit(waiting: list[list[EpisodeSpec]], mine: set[tuple[str, str]], others: set[tuple[str, str]]) -> int:
    """Which waiting unit a free worker runs: one of a task it warmed (``mine``), else of a task no other
    worker warmed (``others``), else the first (late in a study, rather than sit idle).

    A task's warm-up (parsing, plans, question counts) thus runs about once per study.
    """
    tasks = [(unit[0].domain, unit[0].problem) for unit in waiting]
    pick = next((i for i, task in enumerate(tasks) if task in mine), None)
    if pick is None:
        pick = next((i for i, task in enumerate(tasks) if task not in others), 0)
    return pick


def _worker(conn: Any, inherited: list[Any]) -> None:
    """A worker process: run the units it is handed on ``conn`` until ``None``, sending each episode as it finishes.

    The record is encoded here (:meth:`Finished.of`), so the writer only appends
    the line: its per-episode work is the serial part of a parallel study. Records
    go back on this worker's own pipe, through a sender thread that buffers them,
    so a worker never waits on a writer that falls behind. Nothing is shared with
    another worker: a worker killed mid-send tears only its own pipe, where a
    queue shared by all workers kept the lock the killed one held and left the
    rest waiting forever. A worker whose writer died (its pipe's other end closed)
    exits rather than wait for a unit that will never come.
    """
    from benchmarks.episode import run_episode

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it stops the workers
    for other in inherited:  # the writer's ends of the pipes, ours included: else ours never reads EOF
        other.close()
    out: queue.SimpleQueue = queue.SimpleQueue()
    sender = threading.Thread(target=_send_all, args=(conn, out), daemon=True)
    sender.start()
    try:
        while (unit := conn.recv()) is not None:
            for spec in unit:
                out.put(("record", Finished.of(run_episode(spec))))
            out.put(("end", None))
    except (EOFError, OSError):  # the writer is gone
        pass
    out.put(None)
    sender.join()


def _send_all(conn: Any, out: queue.SimpleQueue) -> None:
    """Send what the worker puts in ``out`` until ``None`` (or until the writer is gone)."""
    try:
        while (item := out.get()) is not None:
            conn.send(item)
    except OSError:
        pass


class _Pool:
    """Worker processes, each handed one unit at a time; a worker that dies has its unfinished episodes run again.

    The parent hands out the units, so it always knows which episodes a dead worker
    held. A worker is handed a unit of a task it has already warmed when one waits,
    else one of a task no worker has warmed, and only then one another worker warmed
    (at the end of a study, where it would otherwise sit idle).
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self.ctx = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
        self.procs: dict[int, tuple[Any, Any]] = {}  # pid -> (process, the parent's end of its pipe)

    def _start(self) -> int:
        mine, theirs = self.ctx.Pipe()
        inherited = [conn for _, conn in self.procs.values()] + [mine]
        proc = self.ctx.Process(target=_worker, args=(theirs, inherited), daemon=True)
        gc.freeze()  # the parent's objects (parsed tasks) stay out of the child's collections: no copy-on-write storm
        try:
            proc.start()
        finally:
            gc.unfreeze()
        theirs.close()
        self.procs[proc.pid] = (proc, mine)
        return proc.pid

    def run(self, work: list[list[EpisodeSpec]]) -> Iterator[Finished]:
        waiting = [list(unit) for unit in work]
        held: dict[int, dict[str, EpisodeSpec]] = {}  # pid -> id -> the episodes of its unit not yet recorded
        warmed: dict[int, set[tuple[str, str]]] = {}  # pid -> tasks it has run
        tries: dict[str, int] = {}  # id of a unit's first episode -> deaths while running it

        def hand(pid: int) -> None:
            if not waiting:
                return
            seen = warmed.setdefault(pid, set())
            others = set().union(*(tasks for other, tasks in warmed.items() if other != pid and other in self.procs))
            unit = waiting.pop(pick_unit(waiting, seen, others))
            seen.add((unit[0].domain, unit[0].problem))
            held[pid] = {spec.id: spec for spec in unit}
            try:
                self.procs[pid][1].send(unit)
            except OSError:  # it died just now: the reaping below puts the unit back
                pass

        try:
            for _ in range(min(self.size, len(waiting))):
                hand(self._start())
            while held or waiting:
                pids = {conn: pid for pid, (_, conn) in self.procs.items()}
                ready = multiprocessing.connection.wait(list(pids), timeout=0.5)
                dead: set[int] = set()
                for conn in ready:
                    pid = pids[conn]
                    try:
                        kind, done = conn.recv()
                    except (EOFError, OSError):  # it died, perhaps mid-send: whatever it held runs again
                        dead.add(pid)
                        continue
                    if kind == "end":
                        held.pop(pid, None)
                        hand(pid)
                    else:
                        if pid in held:
                            held[pid].pop(done.record["id"], None)
                        yield done
                if dead or not ready:
                    yield from self._reap(waiting, held, tries, hand, dead)
        finally:
            self._stop()

    def _reap(self, waiting: list, held: dict[int, dict[str, EpisodeSpec]], tries: dict[str, int],
              hand: Callable[[int], None], dead: set[int]) -> Iterator[Finished]:
        """Replace dead workers; a dead worker's unfinished episodes wait again, up to :data:`UNIT_RETRIES` times."""
        for pid, (proc, conn) in list(self.procs.items()):
            if pid not in dead and proc.is_alive():
                continue
            del self.procs[pid]
            conn.close()
            proc.join(timeout=5)  # its exit code, for the record; a torn pipe means it is on its way out
            if proc.is_alive():
                proc.kill()
                proc.join()
            left = list(held.pop(pid, {}).values())
            if left:
                key = left[0].id
                tries[key] = tries.get(key, 0) + 1
                if tries[key] > UNIT_RETRIES:
                    why = f"its worker process died {tries[key]} times (exit code {proc.exitcode})"
                    yield from (Finished.of(lost_record(spec, why)) for spec in left)
                else:
                    waiting.insert(0, left)
            if waiting:
                hand(self._start())

    def _stop(self) -> None:
        for proc, conn in self.procs.values():
            try:
                conn.send(None)
            except OSError:
                pass
        for proc, conn in self.procs.values():
            proc.join(timeout=0.2)
            if proc.is_alive():
                proc.terminate()
                proc.join(timeout=5)
            conn.close()


# -------------------------------------------------------------------- ray


class RayExecutor:
    """Episodes as Ray tasks on the cluster at ``address`` (or a local one of ``workers`` CPUs).

    Units of one task run as Ray tasks that Ray retries when their worker or node
    dies (:data:`UNIT_RETRIES` times); at most two units per cluster CPU are out
    at once, and each finished unit's records are yielded as soon as it returns,
    so the writer keeps every finished episode whatever happens to the cluster.
    """

    def __init__(self, address: str | None, workers: int) -> None:
        self.address, self.workers = address, workers

    def run(self, specs: list[EpisodeSpec]) -> Iterator[Finished]:
        if not specs:
            return
        ray = connect(self.address, self.workers)
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        remote = ray.remote(max_retries=UNIT_RETRIES, retry_exceptions=False)(run_unit)
        work = iter(units(specs, cpus, most=8))
        pending: dict[Any, list[EpisodeSpec]] = {}
        try:
            while True:
                while len(pending) < 2 * cpus and (unit := next(work, None)) is not None:
                    pending[remote.remote(unit)] = unit
                if not pending:
                    return
                # a bounded wait: a SIGINT is acted on when Python code runs, which a wait on Ray's side
                # allows only once a second (its get_check_signal_interval_milliseconds)
                ready, _ = ray.wait(list(pending), num_returns=1, timeout=WAIT_S)
                for ref in ready:
                    unit = pending.pop(ref)
                    yield from map(Finished.of, _unit_records(ray, ref, unit))
        finally:
            if not ray_exit.dropping_cluster():  # after Ctrl-C a local cluster goes whole (benchmarks/ray_exit.py)
                for ref in pending:
                    ray.cancel(ref, force=True)


def run_unit(unit: list[EpisodeSpec]) -> list[Record]:
    """A Ray task: the records of a unit's episodes (this worker's caches stay warm for the next unit)."""
    from benchmarks.episode import run_episode

    return [run_episode(spec) for spec in unit]


def _unit_records(ray: Any, ref: Any, unit: list[EpisodeSpec]) -> list[Record]:
    """A finished unit's records; a unit Ray gave up on (its worker kept dying) gives error records."""
    try:
        return ray.get(ref)
    except ray.exceptions.RayError as exc:
        why = f"Ray could not run it: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        return [lost_record(spec, why) for spec in unit]


def connect(address: str | None, cpus: int) -> Any:
    """Ray, connected to ``address`` or to this process's cluster (started with ``cpus`` CPUs if none runs)."""
    address = address or os.environ.get("RAY_ADDRESS") or None
    if address is not None and "RAY_AUTH_MODE" not in os.environ and _ray_token_available():
        # `ray start` turns on token authentication and saves the token where Ray looks; a driver
        # joining that cluster does not turn it on by itself and was refused after 15 s of retries.
        # Ray reads the mode when imported, so this comes first.
        os.environ["RAY_AUTH_MODE"] = "token"
    ray = _import_ray()
    if ray.is_initialized():
        return ray
    options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "configure_logging": True,
                               "logging_level": "ERROR"}
    if address is None:  # "local": a new cluster of our own, never one a `ray start` left on this machine
        address, options["num_cpus"] = "local", max(1, cpus)
    ray_exit.watch(local=address == "local")  # Ctrl-C ends the command at once, not after Ray's shutdown
    try:
        ray.init(address=address, **options)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        hint = ("" if address == "local" else " (a cluster with token authentication needs its token in "
                "RAY_AUTH_TOKEN or ~/.ray/auth_token; one without needs RAY_AUTH_MODE=disabled)")
        raise PgtError(f"cannot connect to the Ray cluster at {address}: {first}{hint}") from None
    return ray


def _ray_token_available() -> bool:
    """Whether a Ray cluster token is at hand where Ray looks for one (variable, file named, default file)."""
    if os.environ.get("RAY_AUTH_TOKEN"):
        return True
    path = os.environ.get("RAY_AUTH_TOKEN_PATH") or os.path.join(os.path.expanduser("~"), ".ray", "auth_token")
    return os.path.isfile(path)


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise PgtError(f"--executor ray needs Ray, which is not installed: {RAY_EXTRA}") from None
    return ray
