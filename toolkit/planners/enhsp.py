"""ENHSP, a numeric planner, for tasks with numeric fluents (``--planner enhsp``).

ENHSP (Scala et al.) reads PDDL 2.1 level 2. Its jar ships inside PyPI's
``up-enhsp`` (unified-planning's integration, the ``numeric`` extra) and runs on a
Java 17 runtime (``apt-get install openjdk-17-jre-headless``, as the README says).
We run the jar as up-enhsp's ``ENHSPEngine._get_cmd`` does
(``java -jar enhsp.jar -o DOMAIN -f PROBLEM -sp PLAN``, its default
configuration, here with ``-npm``: no plan printed to the console), on the files'
own text, and re-check every plan with pgt's validator before returning it.

It plans from the problem's own initial state to its own goal: a numeric state or
goal given by a caller would need the problem written back with fluent values,
which pgt's writer does not do, so that is refused as ``unsupported``.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from toolkit.planners.base import GoalArg, InitArg, PlanResult, PlanStatus
from toolkit.task import Task


def enhsp_jar() -> Path | None:
    """The jar that up-enhsp ships, or None without the ``numeric`` extra."""
    try:
        import up_enhsp
    except ImportError:
        return None
    jar = Path(up_enhsp.__file__).parent / "ENHSP" / "enhsp.jar"
    return jar if jar.is_file() else None


class EnhspPlanner:
    """ENHSP's default (satisficing) search on a numeric task; every plan re-checked."""

    name = "enhsp"
    optimal = False

    def __init__(self, unknown_as: bool = False) -> None:
        self.unknown_as = unknown_as

    def solve(self, task: Task, *, init: InitArg = None, goal: GoalArg = None, timeout: float = 60.0) -> PlanResult:
        t0 = time.perf_counter()

        def result(status: PlanStatus, message: str, stderr: str = "") -> PlanResult:
            return PlanResult(status, (), time.perf_counter() - t0, self.name, message, stderr[-2000:])

        jar, java = enhsp_jar(), shutil.which("java")
        if jar is None or java is None:
            missing = "up-enhsp (pip install -e '.[numeric]')" if jar is None else "a Java runtime (java 17)"
            return result(PlanStatus.UNSUPPORTED, f"ENHSP needs {missing}")
        if (init is not None and frozenset(init) != task.init) or goal is not None:
            return result(PlanStatus.UNSUPPORTED, "enhsp plans from the problem's own initial state to its own goal")
        with tempfile.TemporaryDirectory(prefix="pgt-enhsp-") as tmp:
            folder = Path(tmp)
            (folder / "domain.pddl").write_text(task.domain.source)
            (folder / "problem.pddl").write_text(task.problem.source)
            command = [java, "-jar", str(jar), "-o", str(folder / "domain.pddl"), "-f", str(folder / "problem.pddl"),
                       "-sp", str(folder / "plan.txt"), "-npm"]
            try:
                proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
            except subprocess.TimeoutExpired:
                return result(PlanStatus.TIMEOUT, f"no plan within {timeout:g}s")
            plan_file = folder / "plan.txt"
            if not plan_file.is_file():
                out = proc.stdout + proc.stderr
                if "unsolvable" in out.lower() or "problem detected as unsolvable" in out.lower():
                    return result(PlanStatus.UNSOLVABLE, "ENHSP proved the task unsolvable")
                return result(PlanStatus.CRASHED, f"ENHSP wrote no plan (exit code {proc.returncode})", out)
            text = plan_file.read_text()
        from toolkit.verify import check_plan

        report = check_plan(task, text)
        if not report.valid:
            return result(PlanStatus.CRASHED, f"ENHSP returned an invalid plan, refused: {report.message}")
        plan = tuple(s.action for s in report.parsed.steps if s.action is not None) if report.parsed else ()
        return PlanResult(PlanStatus.SOLVED, plan, time.perf_counter() - t0, self.name)
