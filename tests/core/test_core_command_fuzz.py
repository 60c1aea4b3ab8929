"""Mutated real PDDL through every command that loads PDDL: a verdict or a located refusal, never a traceback.

The differential tests (test_core_plain_fuzz.py) check the two readers agree; this checks
what the user sees when either of them meets the same inputs through the command line:
exit 0, 1 or 2, nothing escaping :func:`toolkit.cli.main`, and a refusal that is one line
``pgt CMD: error: FILE:LINE:COLUMN: ...`` naming the broken file. Run in-process, bounded
and derandomised (a failure is a regression, never luck); ``--runslow`` hunts longer.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pddl_mutations import PROBLEMS, mutated
from toolkit.cli import main

ERROR = re.compile(r"^pgt [a-z-]+( [a-z]+)?: error: .+$")
# Every command that reads a domain and a problem; D, P, L, B and O stand for the files and the output folder.
COMMANDS = {
    "validate": ["validate", "D", "P", "L"],
    "validate-batch": ["validate-batch", "B"],
    "plan": ["plan", "D", "P", "--planner", "astar", "--timeout", "2"],
    "solve-all": ["solve-all", "D", "P", "--planner", "astar", "--timeout", "2"],
    "lint": ["lint", "D", "P"],
    "questions": ["questions", "D", "P"],
    "invariants": ["invariants", "D", "P"],
    "score plan": ["score", "plan", "D", "P", "L"],
    "render": ["render", "D", "P", "--out", "O"],
}
FAST = settings(max_examples=60, deadline=None, database=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
HUNT = settings(max_examples=600, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _plan_for(problem: Path) -> str:
    golden = problem.parent.parent / "golden" / "valid" / f"{problem.stem}.plan"
    return golden.read_text(encoding="utf-8") if golden.is_file() else ""


def run_command(command: str, domain: str, problem: str, plan: str, broken: str) -> None:
    """Run ``command`` over the texts in a fresh folder; ``broken`` ("domain" or "problem") is the mutated one."""
    with tempfile.TemporaryDirectory() as tmp:
        files = {"D": Path(tmp) / "domain.pddl", "P": Path(tmp) / "problem.pddl", "L": Path(tmp) / "x.plan",
                 "B": Path(tmp) / "batch.jsonl", "O": Path(tmp) / "out"}
        files["D"].write_text(domain, encoding="utf-8")
        files["P"].write_text(problem, encoding="utf-8")
        files["L"].write_text(plan, encoding="utf-8")
        files["B"].write_text(json.dumps({"id": 1, "domain": str(files["D"]), "problem": str(files["P"]),
                                          "plan": plan}) + "\n", encoding="utf-8")
        argv = [str(files.get(a, a)) for a in COMMANDS[command]]
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)  # an exception escaping here fails the example with its traceback
        text = err.getvalue()
        assert code in (0, 1, 2), (argv, code, text)
        assert "Traceback" not in text, text
        if code == 2:
            last = text.strip().splitlines()[-1] if text.strip() else ""
            assert ERROR.match(last), f"not one error line: {text!r}"
            path = str(files["D" if broken == "domain" else "P"])
            if path in last:
                assert re.search(re.escape(path) + r":\d+:\d+: ", last), f"not located in the file: {last}"


def _example(data, broken: str) -> tuple[str, str, str, str]:
    dom, prob = data.draw(st.sampled_from(PROBLEMS))
    domain, problem = dom.read_text(encoding="utf-8"), prob.read_text(encoding="utf-8")
    if broken == "domain":
        domain = data.draw(mutated(domain))
    else:
        problem = data.draw(mutated(problem))
    return domain, problem, _plan_for(prob), broken


@FAST
@given(data=st.data(), command=st.sampled_from(list(COMMANDS)), broken=st.sampled_from(["domain", "problem"]))
def test_mutated_pddl_through_every_command_is_a_verdict_or_a_located_refusal(data, command, broken) -> None:
    run_command(command, *_example(data, broken))


@pytest.mark.slow
@HUNT
@given(data=st.data(), command=st.sampled_from(list(COMMANDS)), broken=st.sampled_from(["domain", "problem"]))
def test_mutated_pddl_through_every_command_long_hunt(data, command, broken) -> None:
    run_command(command, *_example(data, broken))
