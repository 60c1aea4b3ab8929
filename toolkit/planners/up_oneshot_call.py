"""ViPlan's ``get_plan`` on the domain and problem files and a belief: in this interpreter, or run by another one.

Why a module of its own, importing nothing from pgt: ``PGT_UP_ONESHOT_PYTHON`` names an
interpreter whose environment holds the engines to plan with, and
:mod:`toolkit.planners.up_oneshot` runs this file there (``python up_oneshot_call.py``
answers each JSON request line on stdin with one line on stdout; ``--versions`` prints
the engine versions the answer store keys on). Only the standard library and
``unified_planning`` are imported, so that environment needs nothing of pgt.

Which engines: ViPlan's released runs were planned by the unified-planning engines
installed in its environment in spring 2025, ``up-fast-downward`` 0.5.0 (Fast
Downward 24.06), and pgt pins that release, so by default the call runs here. Both
the translator's output and the search command line UP builds (``lama-first``, no
translator options or time limit; ``up_fast_downward/fast_downward.py``,
``FastDownwardPDDLPlanner.__init__`` and ``_get_cmd``) are the same in 0.5.0 and 1.0, and
UP 1.2.0 and 1.3.0 write the same PDDL but for whitespace; the search binary decides.
Fast Downward 25.x changed how ``lm_rhw`` approximates a landmark's preconditions
under conditional effects (aibasel/downward issue1183, commit 115b21c8a,
``LandmarkFactoryRpgSasp::get_greedy_preconditions_for_lm``), so on ViPlan's column
Blocksworld, whose ``moveBlock`` has conditional effects, lama-first finds more
landmarks and other plans: ``up-fast-downward`` 0.5.2 and 1.0 give another first
action on 4 of ViPlan's 65 problems, 0.5.0 the logged one on all 65
(docs/studies.md, "Which planner made ViPlan's plans").

The call path, from ViPlan's ``viplan/experiments/benchmark_blocksworld_plan.py``
(the same in ``benchmark_igibson_plan.py``): ``load_problem`` reads the files with
``PDDLReader``; ``update_problem`` copies the problem and, for every initial value
(``problem.initial_values``: every ground fluent, in UP's order) whose value
differs from the belief, overwrites it in the copy; ``get_plan`` solves with
``OneshotPlanner(problem_kind=problem.kind)`` inside a temporary working folder.
ViPlan copies with ``copy.deepcopy`` after planning the original once ("For some
reason we need to plan with the problem before updating it or it breaks ???");
``clone()`` is UP's own copy of the same problem and needs no such first call: on
ViPlan's 65 correctly enumerated Blocksworld problems both give the same plans.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import tempfile
from typing import Any

Believed = set[tuple[str, tuple[str, ...]]]  # (predicate, args), lower case as UP prints them


def engine_versions() -> str:
    """Versions of unified-planning and every installed ``up-*`` engine: what picks the engine and runs it."""
    from importlib import metadata

    found = set()
    for dist in metadata.distributions():
        name = (dist.metadata.get("Name") or "").lower().replace("_", "-")
        if name == "unified-planning" or name.startswith("up-"):
            found.add(f"{name}=={dist.version}")
    return " ".join(sorted(found))


@functools.lru_cache(maxsize=32)
def _read(domain_path: str, problem_path: str) -> Any:
    from unified_planning.io import PDDLReader
    from unified_planning.shortcuts import get_environment

    get_environment().credits_stream = None  # ViPlan's main: "Disable planner printouts"
    return PDDLReader().parse_problem(domain_path, problem_path)


def _key(name: str, args: list[str]) -> tuple[str, tuple[str, ...]]:
    return name.lower(), tuple(a.lower() for a in args)


def problem_for(domain_path: str, problem_path: str, believed: Believed) -> Any:
    """ViPlan's ``update_problem``: the file's problem with every initial value the belief contradicts overwritten."""
    from unified_planning.shortcuts import get_environment

    original = _read(os.path.abspath(domain_path), os.path.abspath(problem_path))
    problem = original.clone()
    manager = get_environment().expression_manager
    copies = {str(f): f for f in problem.initial_values}  # ViPlan's get_new_problem_fluent, by printed form
    for fluent, value in original.initial_values.items():
        wanted = _key(fluent.fluent().name, [str(x) for x in fluent.args]) in believed
        if value.is_bool_constant() and value.is_true() != wanted:
            problem.set_initial_value(copies[str(fluent)], manager.TRUE() if wanted else manager.FALSE())
    return problem


def oneshot(problem: Any) -> Any:
    """ViPlan's ``get_plan``: ``OneshotPlanner`` by problem kind, solving in a temporary folder."""
    from unified_planning.shortcuts import OneshotPlanner

    with OneshotPlanner(problem_kind=problem.kind) as planner:
        # ViPlan: "needed to avoid temporary file conflicts created in cwd from the planner in job arrays"
        with tempfile.TemporaryDirectory(prefix="pgt-up-") as folder:
            old = os.getcwd()
            try:
                os.chdir(folder)
                return planner.solve(problem)
            finally:
                os.chdir(old)


def answer(result: Any) -> dict[str, Any]:
    """UP's result as ``{"status": name, "plan": [[action, [parameters]], ...]}`` (what the store keeps)."""
    steps = [] if result.plan is None else [[a.action.name, [str(p) for p in a.actual_parameters]]
                                            for a in result.plan.actions]
    return {"status": result.status.name, "plan": steps}


def solve(domain_path: str, problem_path: str, believed: Believed) -> dict[str, Any]:
    return answer(oneshot(problem_for(domain_path, problem_path, believed)))


def respond(line: str) -> str:
    """One request line (``{"domain", "problem", "believed": [[predicate, [args]], ...]}``) to its answer line:
    :func:`answer`'s dictionary, or ``{"error": "Type: message"}`` where UP raised."""
    try:
        request = json.loads(line)
        believed = {_key(name, list(args)) for name, args in request["believed"]}
        out = solve(request["domain"], request["problem"], believed)
    except Exception as exc:  # noqa: BLE001 - ViPlan: "Planner crashed with error" -> the caller's crash status
        out = {"error": f"{type(exc).__name__}: {exc}"[:500]}
    return json.dumps(out)


def main(argv: list[str]) -> int:
    """``--versions``: print :func:`engine_versions`; else answer each request line on stdin with one line.

    The caller keeps one such process per planner and sends it every call, so UP is imported and
    each problem file parsed once per process, not once per call.
    """
    if argv[1:] == ["--versions"]:
        print(json.dumps({"versions": engine_versions()}))
        return 0
    for line in sys.stdin:
        if line.strip():
            sys.stdout.write(respond(line) + "\n")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
