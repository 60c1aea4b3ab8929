"""Shapes from public PDDL collections that pgt once refused, misread or refused unclearly.

Found by running pgt as a user would over potassco/pddl-instances (IPC 1998-2014),
tomsilver/pddlgym and Cranial-XIX/llm-pddl (LLM+P); each is reproduced here in
small hand-written PDDL (none of those files is copied).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit import loader
from toolkit.cli import main
from toolkit.loader import parse_domain, parse_problem
from toolkit.task import Task
from toolkit.verify import check_plan

# IPC 2014 tetris: "one_square two_straight right_l - pieces" and pieces is never listed.
TETRIS = """(define (domain tiles)
  (:requirements :typing)
  (:types
     square bar - piece
     cell)
  (:predicates (at ?p - piece ?c - cell) (free ?c - cell))
  (:action slide :parameters (?p - piece ?from ?to - cell)
    :precondition (and (at ?p ?from) (free ?to))
    :effect (and (at ?p ?to) (free ?from) (not (at ?p ?from)) (not (free ?to)))))
"""
TETRIS_PROBLEM = """(define (problem two) (:domain tiles)
  (:objects s - square b - bar c1 c2 c3 - cell)
  (:init (at s c1) (at b c2) (free c3))
  (:goal (and (at s c3) (at b c1))))
"""


@pytest.mark.parametrize("reader", ["plain", "lark"])
def test_a_parent_type_never_declared_is_a_type_under_object(reader: str, monkeypatch) -> None:
    if reader == "lark":  # the full parser must read it exactly as the plain reader does
        monkeypatch.setattr(loader, "read_plain_domain", lambda code, lazy=False: None)
    domain = parse_domain(TETRIS, "tiles.pddl")
    assert domain.types["piece"] == "object"
    assert domain.types["square"] == domain.types["bar"] == "piece"
    assert [w for w in domain.warnings if "piece" in w] == [
        "tiles.pddl:4:19: type 'piece' is a parent in :types but is not declared; read as a subtype of object"]
    task = Task(domain, parse_problem(TETRIS_PROBLEM, domain))
    report = check_plan(task, "(slide s c1 c3)\n(slide b c2 c1)\n")
    assert report.valid, report.message
    assert not check_plan(task, "(slide c1 s c3)\n").valid  # the parameter's type still binds


def test_lint_warns_about_an_undeclared_parent_type_and_validate_reads_it(tmp_path: Path, capsys) -> None:
    (tmp_path / "d.pddl").write_text(TETRIS)
    (tmp_path / "p.pddl").write_text(TETRIS_PROBLEM)
    (tmp_path / "plan").write_text("(slide s c1 c3)\n(slide b c2 c1)\n")
    main(["lint", "--json", str(tmp_path / "d.pddl"), str(tmp_path / "p.pddl")])
    import json

    findings = json.loads(capsys.readouterr().out)["findings"]
    assert [(f["severity"], f["code"], f["line"], f["column"]) for f in findings if "'piece'" in f["message"]] == [
        ("warning", "undeclared-type", 4, 19)]
    assert not [f for f in findings if f["severity"] == "error"]
    assert main(["validate", str(tmp_path / "d.pddl"), str(tmp_path / "p.pddl"), str(tmp_path / "plan")]) == 0


BLOCKS = """(define (domain b)
  (:requirements :strips)
  (:predicates (clear ?x) (table-gone))
  (:action wipe :parameters (?x)
    :precondition (clear ?x)
    :effect (and (not (clear ?x)) BODY)))
"""


def refusal(tmp_path: Path, capsys, domain: str, problem: str | None = None) -> str:
    """The one error line ``pgt validate`` prints for these files (it must exit 2)."""
    (tmp_path / "d.pddl").write_text(domain)
    (tmp_path / "p.pddl").write_text(problem or "(define (problem p) (:domain b) (:objects a) (:init (clear a))\n"
                                               "  (:goal (not (clear a))))\n")
    (tmp_path / "plan").write_text("(wipe a)\n")
    assert main(["validate", str(tmp_path / "d.pddl"), str(tmp_path / "p.pddl"), str(tmp_path / "plan")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    return err.replace(str(tmp_path) + "/", "")


def test_probabilistic_effects_are_refused_where_they_are(tmp_path: Path, capsys) -> None:
    # pddlgym's explodingblocks: "(probabilistic 0.1 (and (table-destroyed)))" with only :strips declared
    # was a syntax error at the number ("unexpected '0.1'; expected one of NAME, QMARK, RPAR").
    err = refusal(tmp_path, capsys, BLOCKS.replace("BODY", "\n      (probabilistic 0.1 (and (table-gone)))"))
    assert err.startswith("pgt validate: error: d.pddl:7:7: unsupported PDDL feature probabilistic effects")


def test_a_predicate_named_probabilistic_is_still_read(tmp_path: Path) -> None:
    domain = parse_domain(BLOCKS.replace("(table-gone)", "(probabilistic ?x)").replace("BODY", "(probabilistic ?x)"))
    assert "probabilistic" in domain.predicates


def test_pddl_1_2_action_variables_are_refused_where_they_are(tmp_path: Path, capsys) -> None:
    # IPC 1998 mystery (ADL): ":vars (?n - food)" was "unexpected character ':'".
    err = refusal(tmp_path, capsys, BLOCKS.replace("BODY", "").replace(":precondition", ":vars (?y)\n    :precondition"))
    assert err.startswith("pgt validate: error: d.pddl:5:5: unsupported PDDL feature action variables (:vars")


def test_sections_out_of_order_name_the_order(tmp_path: Path, capsys) -> None:
    # pddlgym writes (:goal ...) before (:init ...); FD and VAL refuse that too, so pgt refuses it, saying why.
    err = refusal(tmp_path, capsys, BLOCKS.replace("BODY", ""),
                  "(define (problem p) (:domain b) (:objects a)\n  (:goal (not (clear a)))\n  (:init (clear a)))\n")
    assert err == ("pgt validate: error: p.pddl:2:4: unexpected ':goal'; expected ':init' (a problem's sections "
                   "go in this order: :domain, :requirements, :objects, :init, :goal, :metric)")
    err = refusal(tmp_path, capsys, BLOCKS.replace("BODY", "").replace("(:requirements :strips)\n", "")
                  .replace("(table-gone))", "(table-gone))\n  (:requirements :strips)"))
    assert err.startswith("pgt validate: error: d.pddl:3:4: unexpected ':requirements'")
    assert err.endswith("(a domain's sections go in this order: :requirements, :types, :constants, :predicates, "
                        ":functions, :action)")


# LLM+P's tyreworld: actions name wrench, jack and pump, which only the problems declare.
TYRES = """(define (domain tyres)
  (:requirements :typing)
  (:types tool hub)
  (:predicates (have ?t - tool) (loose ?h - hub) (tight ?h - hub))
  (:action loosen :parameters (?h - hub)
    :precondition (and (have wrench) (tight ?h))
    :effect (and (loose ?h) (not (tight ?h)))))
"""
TYRES_PROBLEM = """(define (problem one) (:domain tyres)
  (:objects wrench - tool h1 - hub)
  (:init (have wrench) (tight h1))
  (:goal (loose h1)))
"""


def test_lint_reports_an_undeclared_constant_and_nothing_that_follows_from_it(tmp_path: Path, capsys) -> None:
    # The constant is read as the problem's wrench (as FD and VAL read it), so the action stays in the
    # model: reachability finds nothing, and the problem's own wrench neither "repeats a domain constant"
    # nor "has type object". The one missing declaration is the one finding (an error: PDDL requires it).
    (tmp_path / "d.pddl").write_text(TYRES)
    (tmp_path / "p.pddl").write_text(TYRES_PROBLEM)
    assert main(["lint", "--json", str(tmp_path / "d.pddl"), str(tmp_path / "p.pddl")]) == 1
    import json

    findings = json.loads(capsys.readouterr().out)["findings"]
    assert [(f["severity"], f["code"]) for f in findings if f["severity"] != "info"] == [("error", "undeclared-name")]
    assert "wrench" in findings[0]["message"]
    fixed = TYRES.replace("(:types tool hub)", "(:types tool hub) (:constants wrench - tool)")
    (tmp_path / "d.pddl").write_text(fixed)
    (tmp_path / "p.pddl").write_text(TYRES_PROBLEM.replace("wrench - tool ", ""))
    assert main(["lint", "--json", str(tmp_path / "d.pddl"), str(tmp_path / "p.pddl")]) == 0
    assert not [f for f in json.loads(capsys.readouterr().out)["findings"] if f["code"] == "reachability-partial"]


def test_an_english_step_followed_by_its_effects_is_read_as_the_step() -> None:
    # LLM+P's replies annotate each step with what it does: "unstack b1 from b3 -> arm holding b1",
    # "Unstack b1 from b3: This will leave b1 in the arm", "Unstack b4 from b7. Now, the arm is ...";
    # each was an unreadable step, so a plan that was valid (or broke later) read as unparseable.
    from core_support import shipped_task

    task = shipped_task("blocksworld-4ops", "bw4-3")
    reply = ("1. Unstack c from a -> the arm holds c, a is clear\n"
             "2. Put down c. Now, the arm is empty and c is on the table.\n"
             "3. Pick up b: the arm holds b\n"
             "4. Stack b on c \u2192 b is on c\n"
             "5. Pick up a => holding a\n"
             "6. Stack a on b. The goal is reached.\n")
    report = check_plan(task, reply)
    assert report.valid, report.message
    assert [s.action for s in report.steps][:2] == ["(unstack c a)", "(put-down c)"]
    wrong = check_plan(task, "1. Stack c on b -> c is on b\n")  # read, then judged: not applicable
    assert (wrong.failed_step, wrong.reason.value) == (1, "inapplicable")


def test_goal_preferences_are_refused_where_they_are(tmp_path: Path, capsys) -> None:
    # IPC 2008 net-benefit problems: "(preference g1 (free pos-0-2))" in the goal was a syntax error at its '('.
    err = refusal(tmp_path, capsys, BLOCKS.replace("BODY", ""),
                  "(define (problem p) (:domain b) (:objects a) (:init (clear a))\n"
                  "  (:goal (and (preference g1 (not (clear a))))))\n")
    assert err.startswith("pgt validate: error: p.pddl:2:15: unsupported PDDL feature preferences")
    domain = parse_domain(BLOCKS.replace("(table-gone)", "(preference ?x)").replace("BODY", "(preference ?x)"))
    assert "preference" in domain.predicates  # a predicate so named is still read
