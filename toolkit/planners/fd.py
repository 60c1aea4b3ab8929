"""Fast Downward: its driver on PDDL we write, or through unified-planning.

The general engine: any task in the toolkit's fragment, large or small.
Configurations registered in :mod:`toolkit.planners`: ``fd-lama`` (lama-first,
satisficing; fast, plans often far from optimal), ``fd-opt`` (A* with LM-cut,
or with hmax where the task has conditional effects, which LM-cut refuses),
``fd-hmax`` and ``fd-blind``.

The default route (``translation="driver"``) prints the task as canonical PDDL
(:mod:`toolkit.planners.pddl_text`) into a temporary folder and runs FD's two
components on it exactly as its driver ``fast-downward.py`` does (the translator
the wheel ships, then the ``downward`` search binary),
without the driver's own Python process in between; the optimal
configurations skip the translator where the task is plain STRIPS and read the
task pgt already grounded (:mod:`toolkit.planners.sas`). Going through
unified-planning instead costs seconds per process (``import
unified_planning.shortcuts`` pulls in scipy) and a second model of the task;
``direct`` and ``text`` (UP's objects or UP's PDDL reader) remain for
cross-checks.

Statuses come from FD's documented exit codes: solved, unsolvable (proven or by
exhausted search), timeout, unsupported (the configuration refuses the task),
crashed (internal error or memory out, with the tail of FD's output). Every plan
is mapped back onto the task and re-checked before it is returned.
"""

from __future__ import annotations

import functools
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from toolkit.planners.base import numeric_refusal
from toolkit.planners.base import (
    GoalArg, InitArg, PlanResult, PlanStatus, goal_condition, recheck, start_state,
)
from toolkit.planners.pddl_text import domain_to_pddl, problem_to_pddl
from toolkit.planners.sas import task_to_sas
from toolkit.planners.up_bridge import (
    GoalNeverHolds, Untranslatable, to_up_problem, to_up_problem_via_text, typed_view, without_inert_actions,
)
from toolkit.task import GroundAction, Task

_CWD_LOCK = threading.Lock()  # the process's working folder, changed around a planner call through UP

_TAIL = 2000
LMCUT = "astar(lmcut())"
HMAX = "astar(hmax())"

# FD's exit codes (driver/returncodes.py), grouped by what they mean for us.
_SOLVED = {0, 1, 2, 3}
_UNSOLVABLE = {10, 11, 12}
_TIMEOUT = {21, 23, 24}
_UNSUPPORTED = {34, 37}


def fd_driver() -> Path:
    """The ``fast-downward.py`` driver shipped with the ``up-fast-downward`` wheel."""
    import importlib.util

    spec = importlib.util.find_spec("up_fast_downward")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("Fast Downward is not installed (pip install up-fast-downward)")
    return Path(next(iter(spec.submodule_search_locations))) / "downward" / "fast-downward.py"


def _bin() -> Path:
    return fd_driver().parent / "builds" / "release" / "bin"


@functools.lru_cache(maxsize=1)
def _lama_first() -> tuple[str, ...]:
    """lama-first's search options, read from the driver's own alias table (never copied)."""
    import importlib.util

    folder = fd_driver().parent / "driver"
    spec = importlib.util.spec_from_file_location("_pgt_fd_driver", folder / "__init__.py",
                                                  submodule_search_locations=[str(folder)])
    package = importlib.util.module_from_spec(spec)
    sys.modules["_pgt_fd_driver"] = package
    spec.loader.exec_module(package)
    from _pgt_fd_driver import aliases  # type: ignore[import-not-found]

    return tuple(aliases.ALIASES["lama-first"])


def _translate_command() -> tuple[list[str], dict[str, str] | None]:
    """The translator of the installed wheel's Fast Downward, called as that release's own driver calls it.

    The pinned ``up-fast-downward`` 0.5.0 (FD 24.06) ships ``translate/translate.py`` and its
    driver runs that script (``driver/run_components.py``, ``run_translate``: ``[sys.executable,
    translate] + inputs``); 1.0 (FD 26.6) ships the ``fast_downward`` package and runs ``python -m
    fast_downward.translate`` with the build's folder first on ``PYTHONPATH``. The translator
    must be the search binary's own: ``fast_downward.translate`` may also be installed as a
    package of its own (pgt's grounding benchmarks use it), of another release.
    """
    script = _bin() / "translate" / "translate.py"
    if script.is_file():
        return [sys.executable, str(script)], None
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(_bin()), os.environ.get("PYTHONPATH"))))}
    return [sys.executable, "-m", "fast_downward.translate"], env


def _translate(folder: Path, timeout: float) -> tuple[int | None, str]:
    """FD's translator on ``domain.pddl``/``problem.pddl`` into ``output.sas``, run as its driver runs it."""
    command, env = _translate_command()
    return _run([*command, "domain.pddl", "problem.pddl", "--sas-file", "output.sas"], folder, timeout, env=env)


def _search(folder: Path, search: str | None, timeout: float) -> tuple[int | None, str]:
    """FD's search component on ``output.sas``, the plan into ``plan``."""
    options = ["--search", search] if search else list(_lama_first())
    with open(folder / "output.sas") as sas:
        return _run([str(_bin() / "downward"), *options, "--internal-plan-file", "plan"], folder, timeout,
                    stdin=sas)


def optimal_search(task: Task, state: frozenset) -> str:
    """The optimal configuration for the task: LM-cut, hmax where actions have conditional effects.

    LM-cut expands far fewer states than hmax on IPC tasks but FD refuses it on
    conditional effects; the choice is made from the relaxed-reachable grounding
    (already computed by ``auto``). Where FD's translator still compiles a
    condition into axioms (a quantified or negated goal), which LM-cut refuses
    too, the translated task is searched again with hmax.
    """
    if any(a.effect.conditional for a in task.grounding(state).actions):
        return HMAX
    return LMCUT


class FastDownwardPlanner:
    """Fast Downward with a fixed search configuration.

    Args:
        name: registry name, for example ``fd-lama``.
        search: an FD search string such as ``astar(hmax())``; ``"optimal"`` picks
            :func:`optimal_search` per task; None is the engine's lama-first.
        optimal: whether ``search`` is an optimal configuration.
        unknown_as: truth value of unknown atoms when planning from a belief.
        translation: ``driver`` (FD's driver on written PDDL), ``direct`` (UP
            objects) or ``text`` (UP's PDDL reader).
        own_sas: with ``driver``, hand FD's search the task
            pgt grounded (:mod:`toolkit.planners.sas`) where it is plain STRIPS,
            instead of running FD's translator on written PDDL.
    """

    def __init__(self, name: str = "fd-lama", search: str | None = None, optimal: bool = False,
                 unknown_as: bool = False, translation: str = "driver", own_sas: bool = True) -> None:
        if translation not in ("driver", "direct", "text"):
            raise ValueError(f"unknown translation {translation!r}")
        self.name, self.search, self.optimal = name, search, optimal
        self.own_sas = own_sas
        self.unknown_as = unknown_as
        self.translation = translation

    def config(self) -> str:
        return f"fd({self.search or 'lama-first'},unknown_as={self.unknown_as},translation={self.translation})"

    def search_for(self, task: Task, state: frozenset) -> str | None:
        if self.search == "optimal":
            return optimal_search(task, state)
        return self.search

    def solve(self, task: Task, *, init: InitArg = None, goal: GoalArg = None, timeout: float = 60.0) -> PlanResult:
        t0 = time.perf_counter()
        refused = numeric_refusal(task, self.name, t0)
        if refused is not None:
            return refused
        state = start_state(task, init, self.unknown_as)
        goal_cond = goal_condition(task, goal)
        try:
            search = self.search_for(task, state)
            if self.translation == "driver":
                return self._drive(task, state, goal_cond, search, timeout, t0)
            res = self._run_up(self.up_problem(task, state, goal_cond), search, timeout)
        except GoalNeverHolds as exc:
            return PlanResult(PlanStatus.UNSOLVABLE, (), time.perf_counter() - t0, self.name, str(exc))
        except Exception as exc:  # noqa: BLE001 - any failure of FD or UP is a result, not a crash of ours
            status = PlanStatus.UNSUPPORTED if "support" in str(exc).lower() else PlanStatus.CRASHED
            return PlanResult(status, (), time.perf_counter() - t0, self.name,
                              message=f"{type(exc).__name__}: {exc}"[:500])
        return self._convert(task, state, goal_cond, res, time.perf_counter() - t0, timeout)

    # ------------------------------------------------------------------ FD's components on written PDDL

    def _drive(self, task: Task, state: frozenset, goal_cond: Any, search: str | None, timeout: float,
               t0: float) -> PlanResult:
        # Every configuration reads the task pgt already grounded (no second parse and translation, ~0.3 s),
        # with the translator's multi-valued variables and the mutex groups lama-first's landmarks use.
        sas = task_to_sas(task, state, goal_cond) if self.own_sas else None
        with tempfile.TemporaryDirectory(prefix="pgt-fd-") as tmp:
            folder = Path(tmp)
            if sas is not None:
                (folder / "output.sas").write_text(sas)
                rc, log = 0, ""
            else:
                # The typed PDDL view only for the translator (60 ms on nomystery's 3,700 init atoms).
                objects = dict(task.problem.objects)
                kept, goal = typed_view(task.domain, objects, state, goal_cond)
                costs = task.problem.function_values if task.uses_costs else None
                (folder / "domain.pddl").write_text(domain_to_pddl(task.domain))
                (folder / "problem.pddl").write_text(problem_to_pddl(task.domain, objects, kept, goal, costs=costs))
                rc, log = _translate(folder, timeout - (time.perf_counter() - t0))
            if rc == 0:
                rc, more = _search(folder, search, timeout - (time.perf_counter() - t0))
                log += more
                if rc in _UNSUPPORTED and search == LMCUT:
                    # The translator compiled some condition into axioms, which LM-cut refuses:
                    # search the same translated task with hmax.
                    search = HMAX
                    rc, more = _search(folder, search, timeout - (time.perf_counter() - t0))
                    log += more
            elapsed = time.perf_counter() - t0
            tail = log[-_TAIL:]
            plan_file = folder / "plan"
            if rc in _SOLVED and plan_file.exists():
                try:
                    plan = tuple(_read_plan(task, plan_file.read_text()))
                except Exception as exc:  # noqa: BLE001 - a plan we cannot map is FD's or our bug: report it
                    return PlanResult(PlanStatus.CRASHED, (), elapsed, self.name, f"cannot map plan back: {exc}", tail)
                result = PlanResult(PlanStatus.SOLVED, plan, elapsed, self.name, optimal=self.optimal)
                return recheck(task, state, goal_cond, plan, result)
        if rc in _UNSOLVABLE:
            return PlanResult(PlanStatus.UNSOLVABLE, (), elapsed, self.name, "no plan exists (search exhausted)")
        if rc is None or rc in _TIMEOUT:
            return PlanResult(PlanStatus.TIMEOUT, (), elapsed, self.name, f"no plan within {timeout:.3g}s")
        if rc in _UNSUPPORTED:
            return PlanResult(PlanStatus.UNSUPPORTED, (), elapsed, self.name,
                              f"Fast Downward's {search or 'lama-first'} does not support this task", tail)
        what = "out of memory" if rc in (20, 22) else f"exit code {rc}"
        return PlanResult(PlanStatus.CRASHED, (), elapsed, self.name, f"Fast Downward ended with {what}", tail)

    # ------------------------------------------------------------------ through unified-planning

    def up_problem(self, task: Task, state: frozenset, goal) -> Any:
        objects = dict(task.problem.objects)
        costs = task.problem.function_values if task.uses_costs else None
        if self.translation == "direct":
            try:
                return without_inert_actions(to_up_problem(task.domain, objects, state, goal, costs))
            except Untranslatable:
                pass
        return without_inert_actions(to_up_problem_via_text(task.domain, objects, state, goal, costs))

    @staticmethod
    def _run_up(problem: Any, search: str | None, timeout: float) -> Any:
        from unified_planning import shortcuts as up

        env = up.get_environment()
        env.credits_stream = None
        params = {"fast_downward_search_config": search} if search else {}
        # up-fast-downward's driver writes the translator's output.sas into the working folder: two processes
        # planning from one folder (pytest-xdist workers, a study's workers) read each other's task and plan.
        # Each call plans in a folder of its own, as up_oneshot_call does (ViPlan's "temporary file conflicts");
        # the lock keeps threads of this process from changing the folder under each other.
        with up.OneshotPlanner(name="fast-downward", params=params, problem_kind=problem.kind) as planner, \
                _CWD_LOCK, tempfile.TemporaryDirectory(prefix="pgt-fd-up-") as folder:
            old = os.getcwd()
            os.chdir(folder)
            try:
                return planner.solve(problem, timeout=timeout)
            finally:
                os.chdir(old)

    def _convert(self, task: Task, state: frozenset, goal_cond, res: Any, elapsed: float,
                 timeout: float) -> PlanResult:
        from unified_planning.engines import PlanGenerationResultStatus as S

        logs = "\n".join(msg.message for msg in (res.log_messages or []) if msg.message)
        tail = logs[-_TAIL:]
        st = res.status
        if st in (S.SOLVED_SATISFICING, S.SOLVED_OPTIMALLY):
            try:
                plan = tuple(self._ground(task, a) for a in res.plan.actions)
            except Exception as exc:  # noqa: BLE001
                return PlanResult(PlanStatus.CRASHED, (), elapsed, self.name, f"cannot map plan back: {exc}", tail)
            result = PlanResult(PlanStatus.SOLVED, plan, elapsed, self.name, optimal=self.optimal)
            return recheck(task, state, goal_cond, plan, result)
        if st in (S.UNSOLVABLE_PROVEN, S.UNSOLVABLE_INCOMPLETELY):
            return PlanResult(PlanStatus.UNSOLVABLE, (), elapsed, self.name, "no plan exists (search exhausted)")
        if st == S.TIMEOUT or elapsed > timeout:
            return PlanResult(PlanStatus.TIMEOUT, (), elapsed, self.name, f"no plan within {timeout:g}s", tail)
        if st == S.UNSUPPORTED_PROBLEM:
            return PlanResult(PlanStatus.UNSUPPORTED, (), elapsed, self.name, "planner does not support this problem", tail)
        return PlanResult(PlanStatus.CRASHED, (), elapsed, self.name, f"planner ended with {st.name}", tail)

    @staticmethod
    def _ground(task: Task, up_action: Any) -> GroundAction:
        args = [str(p.object().name) if p.is_object_exp() else str(p) for p in up_action.actual_parameters]
        return task.action(up_action.action.name, args)


def _run(cmd: list[str], cwd: Path, timeout: float, env: dict[str, str] | None = None,
         stdin: Any = None) -> tuple[int | None, str]:
    """Run FD in its own process group; on timeout kill the whole group (driver, translator, search).

    Returns the exit code (None after a timeout) and the combined output.
    """
    if timeout <= 0:
        return None, ""
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True, env=env, stdin=stdin)
    try:
        out, _ = proc.communicate(timeout=timeout)
        return proc.returncode, out
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        return None, out or ""
    except BaseException:  # Ctrl-C: FD has its own session, so the terminal's SIGINT never reaches it
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise


def _read_plan(task: Task, text: str) -> list[GroundAction]:
    """FD's plan file (``(name arg ...)`` per line, ``;`` comments) as the task's ground actions."""
    plan = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(";"):
            continue
        name, *args = line.strip("()").split()
        plan.append(task.action(name, args))
    return plan
