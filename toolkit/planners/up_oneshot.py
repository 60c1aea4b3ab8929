"""unified-planning's ``OneshotPlanner`` exactly as ViPlan calls it: the ViPlan protocols' planner.

ViPlan's ``get_plan`` (``viplan/experiments/benchmark_blocksworld_plan.py``; the same
in ``benchmark_igibson_plan.py``) reads the domain and problem *files* with UP's
``PDDLReader``, writes the believed state into a deep copy of the problem
(``update_problem``: every initial value that differs from the belief is
overwritten), and solves it with ``OneshotPlanner(problem_kind=problem.kind)`` in a
temporary working folder. With the pinned dependencies UP picks ``fast-downward``
first (its preference list), i.e. lama-first on UP's own PDDL. Plans depend on
ties FD breaks by the order of objects and actions, so the problem is read from
the same files, never re-printed by pgt: that is what makes the first plans
ViPlan's (``--planner fd-lama`` on pgt's canonical PDDL differs in ties). The call
itself lives in :mod:`toolkit.planners.up_oneshot_call`, which imports only UP, so
that it can also run in another environment. ViPlan's released runs were planned
by ``up-fast-downward`` 0.5.0 (Fast Downward 24.06), which pgt pins: later releases
find other landmarks on conditional effects and break ties otherwise (on 4 of
ViPlan's 65 Blocksworld problems with 1.0; up_oneshot_call says why). So this
interpreter plans as ViPlan did; ``PGT_UP_ONESHOT_PYTHON`` names another interpreter
whose engines plan instead (one process per planner, answering every call).

Statuses as ViPlan reads them: ``SOLVED_SATISFICING`` is a plan; any other
status is "No plan found" (unsolvable); an exception is a planner crash.
Every plan is mapped back onto the task (names case-insensitively: UP lower-cases
them) and re-checked by pgt's own verifier.

Speed without other plans: a call costs about 1 s (0.65 s of it Fast Downward's
subprocess, the rest UP building and checking the problem), against ~25 ms for
pgt's own planner. FD is deterministic, so the answer is a function of the bytes
it reads: each answer is kept in a :class:`toolkit.planners.plan_store.PlanStore`
keyed by a digest of the domain file, the problem file, the believed atoms and
the versions of the packages that choose and run the engine (so answers of two
engine releases, or of another interpreter's engines, never mix). The store is one
SQLite file shared by a study's workers and by later studies
(``$PGT_CACHE_DIR/up-oneshot-plans.sqlite``, at most 200,000 answers;
``PGT_UP_PLAN_STORE`` names another file, or ``off``). A hit is answered before
UP is imported or the files parsed, and its plan is mapped and re-checked as a
fresh one is, so a hit and a fresh call return the same plan
(``tests/planners/test_up_oneshot_store.py``; speed and hit rate:
``benchmarks/bench_up_oneshot.py``).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import subprocess
import time
from collections import Counter, OrderedDict
from pathlib import Path
from typing import Any

from toolkit.errors import PgtError
from toolkit.model import Atom
from toolkit.planners.base import (GoalArg, InitArg, PlanResult, PlanStatus, derived_refusal, goal_condition, recheck,
                                   start_state)
from toolkit.cache_dir import user_cache_dir
from toolkit.planners import up_oneshot_call as call
from toolkit.planners.plan_store import PlanStore, content_key
from toolkit.task import Task

STORE_ENV = "PGT_UP_PLAN_STORE"
PYTHON_ENV = "PGT_UP_ONESHOT_PYTHON"  # an interpreter whose environment holds the engines to plan with
STORE_FORMAT = "up-oneshot answers v1"  # bump when what a stored answer means changes
# UP's statuses that a rerun on the same bytes gives again; a timeout, memory-out or internal error is not stored
_STORED = {"SOLVED_SATISFICING", "UNSOLVABLE_PROVEN", "UNSOLVABLE_INCOMPLETELY"}


def _key(name: str, args: list[str]) -> tuple[str, tuple[str, ...]]:
    return name.lower(), tuple(a.lower() for a in args)


def default_store() -> PlanStore | None:
    """The shared answer store: ``$PGT_UP_PLAN_STORE`` (a file, or ``off``), else the user cache dir's."""
    where = os.environ.get(STORE_ENV, "").strip()
    if where.lower() == "off":
        return None
    try:
        return PlanStore(where or os.path.join(user_cache_dir(), "up-oneshot-plans.sqlite"))
    except PgtError as exc:
        raise PgtError(f"{exc} (set {STORE_ENV} to another file, or to off for no store)") from None


@functools.lru_cache(maxsize=8)
def _engine_versions(python: str | None = None) -> str:
    """The engine versions of this interpreter (``None``) or of ``python``'s environment: part of every store key."""
    if python is None:
        return call.engine_versions()
    tail = "not an interpreter"
    try:
        done = subprocess.run([python, call.__file__, "--versions"], capture_output=True, text=True, timeout=120)
        tail = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        return str(json.loads(done.stdout)["versions"])
    except (OSError, subprocess.SubprocessError, ValueError, KeyError, TypeError):
        raise PgtError(f"{PYTHON_ENV}={python}: cannot run unified-planning there ({tail}); it needs e.g. "
                       f"`pip install unified-planning==1.2.0 up-fast-downward==0.5.0`") from None


def default_python() -> str | None:
    """The interpreter ``$PGT_UP_ONESHOT_PYTHON`` names, or ``None``: plan in this one."""
    return os.environ.get(PYTHON_ENV, "").strip() or None


@functools.lru_cache(maxsize=64)
def _file_bytes(path: str, mtime_ns: int, size: int) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def _content(path: str) -> bytes:
    stat = os.stat(path)
    return _file_bytes(path, stat.st_mtime_ns, stat.st_size)


class UpOneshotPlanner:
    """ViPlan's planner call: UP's ``OneshotPlanner`` chosen by problem kind, on the original files."""

    name = "up-oneshot"

    def __init__(self, unknown_as: bool = False, memo_size: int = 4096,
                 store: PlanStore | str | Path | None = "default", python: str | None = "default") -> None:
        self.unknown_as = unknown_as
        # ViPlan's engines in another environment (toolkit/planners/up_oneshot_call.py says why), else this one's;
        # asked for its versions now, so a wrong interpreter is one clear error before any episode runs
        self.python = default_python() if python == "default" else python
        self.engines = _engine_versions(self.python)
        self._child: subprocess.Popen[str] | None = None  # the process planning in self.python, started on demand
        self._child_pid = os.getpid()  # the process that started it
        if store == "default":
            store = default_store()
        self.store = PlanStore(store) if isinstance(store, (str, Path)) else store
        self.answered: Counter[str] = Counter()  # by where an answer came from: memo, store, planned
        # FD is deterministic: the same files and belief give the same plan, so a study's repeats
        # (seeds, an oracle's identical beliefs) cost one call each. Keyed by the files, whose
        # object order decides FD's ties, not by pgt's model of them.
        self._memo: OrderedDict[tuple[str, str, frozenset[Atom]], PlanResult] = OrderedDict()
        self.memo_size = memo_size

    def solve(self, task: Task, *, init: InitArg = None, goal: GoalArg = None, timeout: float = 60.0) -> PlanResult:
        if goal is not None:
            raise PgtError("the up-oneshot planner plans for the problem's own goal only (as ViPlan does)")
        t0 = time.perf_counter()
        refused = derived_refusal(task, self.name, t0)
        if refused is not None:
            return refused
        state = start_state(task, init, self.unknown_as)
        goal_cond = goal_condition(task, goal)
        key = (task.domain.path, task.problem.path, state)
        hit = self._memo.get(key)
        if hit is not None:
            self._memo.move_to_end(key)
            self.answered["memo"] += 1
            return dataclasses.replace(hit, time=time.perf_counter() - t0, cached=True)
        result = self._stored(task, state, goal_cond, t0)
        if result is None:
            result = self._solve(task, state, goal_cond, t0)
            self.answered["planned"] += 1
        else:
            self.answered["store"] += 1
        if result.status is not PlanStatus.CRASHED:
            self._memo[key] = result
            if len(self._memo) > self.memo_size:
                self._memo.popitem(last=False)
        return result

    def store_key(self, task: Task, state: frozenset[Atom]) -> str:
        """The digest of what the planner reads: both files' bytes, the believed atoms, the engine versions."""
        self._check_files(task)
        believed = sorted(" ".join((name, *args)) for name, args in (_key(a.predicate, list(a.args)) for a in state))
        return content_key((STORE_FORMAT, self.engines, _content(task.domain.path),
                            _content(task.problem.path), "\n".join(believed)))

    def _stored(self, task: Task, state: frozenset[Atom], goal_cond: Any, t0: float) -> PlanResult | None:
        if self.store is None or task.domain.path.startswith("<") or task.problem.path.startswith("<"):
            return None  # no files: _solve says so, as a planner crash (ViPlan's reading)
        answer = self.store.get(self.store_key(task, state))
        if answer is None:
            return None
        try:
            result = self._result(task, state, goal_cond, str(answer["status"]), list(answer["plan"]), t0)
        except (PgtError, KeyError, TypeError, ValueError):  # an entry this task cannot read: plan afresh
            return None
        return dataclasses.replace(result, cached=True)

    def _result(self, task: Task, state: frozenset[Atom], goal_cond: Any, status: str,
                steps: list[list[Any]], t0: float) -> PlanResult:
        """UP's answer (status name, ``[action, [parameters]]`` steps) as ViPlan reads it, mapped and re-checked."""
        elapsed = time.perf_counter() - t0
        if status != "SOLVED_SATISFICING":
            return PlanResult(PlanStatus.UNSOLVABLE, (), elapsed, self.name, message=f"UP: {status}")
        plan = tuple(task.action(name, params) for name, params in steps)
        return recheck(task, state, goal_cond, plan, PlanResult(PlanStatus.SOLVED, plan, elapsed, self.name))

    def _solve(self, task: Task, state: frozenset[Atom], goal_cond: Any, t0: float) -> PlanResult:
        try:
            self._check_files(task)
            believed = {_key(a.predicate, list(a.args)) for a in state}
            if self.python is None:
                answer = call.answer(self._oneshot(self._problem_for(task, state)))
            else:
                answer = self._elsewhere(task, believed)
        except Exception as exc:  # noqa: BLE001 - ViPlan: "Planner crashed with error" -> no plan, episode ends
            return PlanResult(PlanStatus.CRASHED, (), time.perf_counter() - t0, self.name,
                              message=f"{type(exc).__name__}: {exc}"[:500])
        status, steps = str(answer["status"]), list(answer["plan"])
        if self.store is not None and status in _STORED:
            self.store.put(self.store_key(task, state), {"status": status, "plan": steps})
        return self._result(task, state, goal_cond, status, steps, t0)

    def _elsewhere(self, task: Task, believed: set[tuple[str, tuple[str, ...]]]) -> dict[str, Any]:
        """The same call run by ``self.python``: one request line to its process, one answer line back.

        The process lives as long as this planner (a worker's), so UP is imported there once; one that
        died (or was never started) is started again for the call.
        """
        request = {"domain": os.path.abspath(task.domain.path), "problem": os.path.abspath(task.problem.path),
                   "believed": sorted([name, list(args)] for name, args in believed)}
        for attempt in (1, 2):
            if self._child_pid != os.getpid():  # a forked worker: the parent's process is not this one's to use
                self._child, self._child_pid = None, os.getpid()
            if self._child is None or self._child.poll() is not None:
                # stderr unread: UP's warnings there could fill a pipe; a failure comes back as an answer
                self._child = subprocess.Popen([str(self.python), call.__file__], stdin=subprocess.PIPE,
                                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            try:
                assert self._child.stdin is not None and self._child.stdout is not None
                self._child.stdin.write(json.dumps(request) + "\n")
                self._child.stdin.flush()
                line = self._child.stdout.readline()
            except (BrokenPipeError, OSError):
                line = ""
            if line.strip():
                break
            self._stop_child()
            if attempt == 2:
                raise RuntimeError(f"{PYTHON_ENV}={self.python}: the planner process ended without an answer")
        answer = json.loads(line)
        if "error" in answer:
            raise RuntimeError(answer["error"])
        return answer

    def _stop_child(self) -> None:
        child, self._child = self._child, None
        if child is not None and self._child_pid == os.getpid():
            for stream in (child.stdin, child.stdout):
                if stream is not None:
                    stream.close()
            if child.poll() is None:
                child.kill()
            child.wait()

    def __del__(self) -> None:
        try:
            self._stop_child()
        except Exception:  # noqa: BLE001 - interpreter shutdown: nothing left to tell
            pass

    @staticmethod
    def _check_files(task: Task) -> None:
        if task.domain.path.startswith("<") or task.problem.path.startswith("<"):
            raise PgtError("up-oneshot reads the domain and problem files, and this task has none")

    def _problem_for(self, task: Task, state: frozenset[Atom]) -> Any:
        self._check_files(task)
        return call.problem_for(task.domain.path, task.problem.path, {_key(a.predicate, list(a.args)) for a in state})

    @staticmethod
    def _oneshot(problem: Any) -> Any:
        return call.oneshot(problem)
