"""``pgt validate`` and ``pgt validate-batch`` as a user meets them: exit codes,
human output, ``--json`` fields, ``--continue``, batch lines and summary."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from toolkit.cli import main
from toolkit.domains import DOMAINS_ROOT

BW = DOMAINS_ROOT / "blocksworld"
PROBLEM = str(BW / "problems" / "simple_problem_0.pddl")
VALID = str(BW / "golden" / "valid" / "simple_problem_0.plan")
SAME_COLUMN = str(BW / "golden" / "invalid" / "same_column.plan")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_valid_plan_exits_0(capsys) -> None:
    code, out, _ = run(capsys, "validate", "blocksworld", PROBLEM, VALID)
    assert code == 0
    assert out.splitlines()[-1] == "VALID: plan valid: 4 steps reach the goal"
    code, out, _ = run(capsys, "validate", str(BW / "domain.pddl"), PROBLEM, VALID)  # a path works too
    assert code == 0


def test_invalid_plan_exits_1_and_explains(capsys) -> None:
    code, out, _ = run(capsys, "validate", "blocksworld", PROBLEM, SAME_COLUMN)
    assert code == 1
    assert out.splitlines() == [
        "  ok    1. (moveBlock r c2)",
        "  ERR   2. (moveBlock r c2)",
        "            unmet: (inColumn r c2) is true",
        "INVALID (inapplicable): step 2: (moveBlock r c2) is not applicable: (inColumn r c2) is true",
        "goal gap at that point: 4 of 6 goal condition(s) unmet: (clear y), (inColumn y c3), (inColumn p c4), (inColumn r c1)",
    ]


def test_json_fields(capsys) -> None:
    code, out, _ = run(capsys, "validate", "blocksworld", PROBLEM, SAME_COLUMN, "--json")
    data = json.loads(out)
    assert code == 1
    assert {"valid", "failed_step", "reason", "unmet", "goal_unmet", "message", "steps"} <= set(data)
    assert (data["valid"], data["failed_step"], data["reason"]) == (False, 2, "inapplicable")
    assert data["unmet"] == ["(not (inColumn r c2))"]
    assert data["goal_unmet"] == ["(clear y)", "(inColumn y c3)", "(inColumn p c4)", "(inColumn r c1)"]
    assert [s["applicable"] for s in data["steps"]] == [True, False]
    code, out, _ = run(capsys, "validate", "blocksworld", PROBLEM, VALID, "--json", "--states")
    data = json.loads(out)
    assert code == 0 and data["valid"] and data["failed_step"] is None and data["reason"] is None
    assert "(inColumn y c3)" in data["steps"][-1]["state_after"]


def test_continue_reports_every_violation(capsys, tmp_path) -> None:
    plan = tmp_path / "p.plan"
    plan.write_text("(moveBlock r c2)\n(moveBlock r c2)\n(moveBlock nope c1)\n(moveBlock p c4)\n(moveBlock p c4)\n")
    code, out, _ = run(capsys, "validate", "blocksworld", PROBLEM, str(plan), "--json", "--continue")
    data = json.loads(out)
    assert code == 1
    assert [(v["step"], v["reason"]) for v in data["violations"]] == [
        (2, "inapplicable"), (3, "unknown_object"), (5, "inapplicable")]
    assert len(data["steps"]) == 5
    code, out, _ = run(capsys, "validate", "blocksworld", PROBLEM, str(plan))
    assert code == 1 and "ERR   2." in out and "  3." not in out


def test_plan_from_stdin(capsys, monkeypatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("```\nmoveBlock(r, c2)\nmoveBlock(p, c4)\nmoveBlock(r, c1)\nmoveBlock(y, c3)\n```"))
    code, out, _ = run(capsys, "validate", "blocksworld", PROBLEM, "-")
    assert code == 0


@pytest.mark.parametrize(("args", "message"), [
    (("blocksworld", "missing.pddl", VALID), "pgt validate: error: argument problem: cannot read missing.pddl: No such file or directory"),
    (("blocksworld", PROBLEM, "missing.plan"), "pgt validate: error: argument plan: cannot read missing.plan: No such file or directory"),
    (("blockworld", PROBLEM, VALID), "pgt validate: error: unknown shipped domain 'blockworld'; did you mean blocksworld, blocksworld-4ops?"),
])
def test_bad_input_exits_2(capsys, args, message: str) -> None:
    code, out, err = run(capsys, "validate", *args)
    assert code == 2 and out == ""
    assert err.strip() == message


def test_malformed_pddl_exits_2_with_location(capsys, tmp_path) -> None:
    broken = tmp_path / "p.pddl"
    broken.write_text((BW / "problems" / "simple_problem_0.pddl").read_text().replace("(clear r)", "(clear r", 1))
    code, _, err = run(capsys, "validate", "blocksworld", str(broken), VALID)
    assert code == 2
    assert err.strip() == f"pgt validate: error: {broken}:13:5: unexpected '('; expected ')' or a name"


def test_warnings_go_to_stderr(capsys, tmp_path) -> None:
    loud = tmp_path / "d.pddl"
    loud.write_text((BW / "domain.pddl").read_text().replace(" :equality", ""))
    code, out, err = run(capsys, "validate", str(loud), PROBLEM, VALID)
    assert code == 0 and "VALID" in out
    assert err.strip() == f"warning: {loud}: uses :equality without declaring it in :requirements"


@pytest.mark.parametrize("command", ["validate", "plan"])
def test_upper_case_keywords_are_read_silently(capsys, tmp_path, command) -> None:
    # PDDL is case-insensitive: reading (:ACTION ...) is correct, not worth a warning on every run
    # (lint keeps it as an info note).
    loud = tmp_path / "d.pddl"
    loud.write_text((BW / "domain.pddl").read_text().replace("(:action", "(:ACTION").replace(":requirements", ":REQUIREMENTS"))
    problem = tmp_path / "p.pddl"
    problem.write_text(Path(PROBLEM).read_text().replace("(:init", "(:INIT").replace("(and", "(AND"))
    argv = [command, str(loud), str(problem), *([VALID] if command == "validate" else ["--planner", "astar"])]
    code, out, err = run(capsys, *argv)
    assert code == 0 and err == ""
    code, out, _ = run(capsys, "lint", str(loud))
    assert code == 0 and "info: keywords in upper case normalised (:ACTION, :REQUIREMENTS) [keyword-case]" in out


# ------------------------------------------------------------ batch


def _batch(tmp_path, lines: list[str]) -> str:
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_batch_lines_and_summary(capsys, tmp_path) -> None:
    good = (BW / "golden" / "valid" / "simple_problem_0.plan").read_text()
    path = _batch(tmp_path, [
        json.dumps({"id": "a", "domain": "blocksworld", "problem": PROBLEM, "plan": good}),
        json.dumps({"id": "b", "domain": str(BW / "domain.pddl"), "problem": PROBLEM, "plan": "(moveBlock r c2)"}),
        "not json",
        "",
        json.dumps({"id": "c", "domain": "blocksworld", "problem": "missing.pddl", "plan": "x"}),
        json.dumps([1, 2]),
        json.dumps({"id": "d", "domain": "blocksworld", "problem": PROBLEM, "plan": ["moveBlock(r, c2)", "(moveBlock r c2)"]}),
    ])
    code, out, err = run(capsys, "validate-batch", path)
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 1
    assert [(r["id"], r["valid"], r["failed_step"], r["reason"]) for r in rows] == [
        ("a", True, None, None), ("b", False, 2, "goal_unmet"), (None, False, None, "bad_input"),
        ("c", False, None, "bad_input"), (None, False, None, "bad_input"), ("d", False, 2, "inapplicable")]
    assert all({"id", "valid", "failed_step", "reason", "message"} <= set(r) for r in rows)
    assert rows[2]["message"] == "line 3: not JSON: Expecting value"
    assert rows[3]["message"] == "line 5: cannot read missing.pddl: No such file or directory"
    assert rows[4]["message"] == "line 6: each line must be a JSON object"
    assert err.splitlines() == ["# 1 of 6 plans valid (16.7%)", "#   bad_input: 3", "#   goal_unmet: 1", "#   inapplicable: 1"]
    code, out, _ = run(capsys, "validate-batch", path, "--json")
    summary = json.loads(out.splitlines()[-1])
    assert summary == {"summary": True, "plans": 6, "valid": 1, "valid_share": 1 / 6,
                       "reasons": {"bad_input": 3, "goal_unmet": 1, "inapplicable": 1}}


def test_batch_all_valid_exits_0_and_relative_paths_resolve(capsys, tmp_path) -> None:
    (tmp_path / "p.pddl").write_text((BW / "problems" / "simple_problem_0.pddl").read_text())
    good = (BW / "golden" / "valid" / "simple_problem_0.plan").read_text()
    path = _batch(tmp_path, [json.dumps({"id": i, "domain": "blocksworld", "problem": "p.pddl", "plan": good})
                             for i in range(3)])
    code, out, err = run(capsys, "validate-batch", path)
    assert code == 0 and len(out.splitlines()) == 3
    assert err.splitlines()[0] == "# 3 of 3 plans valid (100.0%)"


def test_batch_unreadable_input_exits_2(capsys) -> None:
    code, _, err = run(capsys, "validate-batch", "missing.jsonl")
    assert code == 2 and "cannot read missing.jsonl" in err


@pytest.mark.parametrize("binary", [False, True], ids=["malformed", "binary"])
@pytest.mark.parametrize("command", ["validate", "plan", "solve-all", "generate"])
def test_errors_name_the_domain_as_the_user_gave_it(capsys, tmp_path, monkeypatch, command, binary) -> None:
    # Commands that load the domain through the per-process cache printed its absolute path.
    if binary:
        (tmp_path / "d.pddl").write_bytes(b"\x00\x01(define\xff\xfe" * 20)
    else:
        (tmp_path / "d.pddl").write_text((BW / "domain.pddl").read_text().replace("(clear ?b1)", "(clear ?b1 ?b1)", 1))
    (tmp_path / "p.pddl").write_text(Path(PROBLEM).read_text())
    monkeypatch.chdir(tmp_path)
    argv = {"validate": ["validate", "d.pddl", "p.pddl", VALID], "plan": ["plan", "d.pddl", "p.pddl"],
            "solve-all": ["solve-all", "d.pddl", "p.pddl"], "generate": ["generate", "d.pddl", "--out", "gen"]}[command]
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert err.strip().startswith(f"pgt {command}: error: d.pddl:"), err


@pytest.mark.parametrize("command", ["questions", "invariants"])
def test_a_folder_given_as_the_problem_is_named_so(capsys, tmp_path, command) -> None:
    # It said "problem file not found" for a folder that exists.
    code, _, err = run(capsys, command, str(BW / "domain.pddl"), str(tmp_path))
    assert code == 2 and err.strip() == f"pgt {command}: error: cannot read {tmp_path}: Is a directory"


def test_goal_gap_counts_the_parts_of_a_goal_with_comparisons_and_nesting(capsys, tmp_path: Path) -> None:
    # the goal's conjunction of comparisons once counted as one condition: "3 of 1 goal condition(s) unmet"
    (tmp_path / "d.pddl").write_text(
        "(define (domain ctr) (:requirements :numeric-fluents :typing :disjunctive-preconditions)"
        " (:types counter) (:predicates (done ?c - counter) (open ?c - counter)) (:functions (value ?c - counter))"
        " (:action inc :parameters (?c - counter) :precondition (open ?c)"
        " :effect (increase (value ?c) 1)))")
    (tmp_path / "p.pddl").write_text(
        "(define (problem p) (:domain ctr) (:objects a b - counter) (:init (= (value a) 0) (= (value b) 0))"
        " (:goal (and (done a) (and (>= (value a) 2) (>= (value b) 2)) (or (done b) (open b)))))")
    (tmp_path / "plan").write_text("(inc a)\n")
    code, out, _ = run(capsys, "validate", str(tmp_path / "d.pddl"), str(tmp_path / "p.pddl"), str(tmp_path / "plan"))
    assert code == 1
    assert out.splitlines()[-1].startswith("goal gap at that point: 4 of 4 goal condition(s) unmet: (done a), ")
