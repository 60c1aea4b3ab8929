"""Hypothesis drives the command line with mutated PDDL and plan files.

The loader's own fuzz tests (tests/core/test_core_fuzz.py) check that loading ends in a
model or a classified error; this checks what the user sees for the same kind of input
through each command: exit 0, 1 or 2, never an escaped exception, and a refusal is one
line ``pgt CMD: error: FILE:LINE:COLUMN: ...`` located in the broken file (or in the other,
when the edit made a valid file that no longer fits it). The edits are
the shared ones of tests/core/pddl_mutations.py. Bounded and derandomised: 40 fixed
examples per test, no deadline (the machine may be loaded).
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pddl_mutations import mutated
from toolkit.cli import main
from toolkit.domains import DOMAINS_ROOT

BW = DOMAINS_ROOT / "blocksworld"
DOMAIN, PROBLEM = BW / "domain.pddl", BW / "problems" / "simple_problem_0.pddl"
PLAN = BW / "golden" / "valid" / "simple_problem_0.plan"
TEXT = {"domain": DOMAIN.read_text(encoding="utf-8"), "problem": PROBLEM.read_text(encoding="utf-8"),
        "plan": PLAN.read_text(encoding="utf-8")}
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None,
                    derandomize=True)  # the same examples every run: a failure is a regression, never luck
ERROR = re.compile(r"^pgt [a-z-]+: error: .+$")
COMMANDS = {
    "validate": ["validate", "D", "P", "L"],
    "plan": ["plan", "D", "P", "--planner", "astar", "--timeout", "5"],
    "questions": ["questions", "D", "P"],
    "invariants": ["invariants", "D", "P"],
    "lint": ["lint", "D", "P"],
}


def _check(argv: list[str], broken: Path) -> None:
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)  # an exception escaping here fails the example with its traceback
    lines = err.getvalue().strip().splitlines()
    assert code in (0, 1, 2), (argv, code, err.getvalue())
    assert "Traceback" not in err.getvalue()
    if code == 2:
        assert lines and ERROR.match(lines[-1]), err.getvalue()
        # A mutation may leave the broken file valid but no longer fitting the other one (a type changed):
        # then the refusal is about the other file, and located there.
        named = re.escape(str(broken)) if str(broken) in lines[-1] else r"\S+\.pddl"
        assert re.search(named + r":\d+:\d+: ", lines[-1]), f"not located in the file: {lines[-1]}"


def _run(command: str, kind: str, text: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        broken = Path(tmp) / ("x.plan" if kind == "plan" else "x.pddl")
        broken.write_text(text, encoding="utf-8")
        files = {"D": DOMAIN, "P": PROBLEM, "L": PLAN, {"domain": "D", "problem": "P", "plan": "L"}[kind]: broken}
        _check([str(files.get(a, a)) for a in COMMANDS[command]], broken)


@SETTINGS
@given(data=st.data(), command=st.sampled_from(list(COMMANDS)), kind=st.sampled_from(["domain", "problem"]))
def test_mutated_pddl_through_every_command(data, command: str, kind: str) -> None:
    _run(command, kind, data.draw(mutated(TEXT[kind])))


@SETTINGS
@given(data=st.data())
def test_mutated_plans_are_a_verdict_never_a_refusal(data) -> None:
    text = data.draw(st.one_of(mutated(TEXT["plan"]), st.text(max_size=300)))
    with tempfile.TemporaryDirectory() as tmp:
        plan = Path(tmp) / "x.plan"
        plan.write_text(text, encoding="utf-8")
        import contextlib
        import io

        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            code = main(["validate", str(DOMAIN), str(PROBLEM), str(plan)])
        assert code in (0, 1), (text, err.getvalue())
