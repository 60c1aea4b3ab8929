"""Each lint finding on a purpose-built broken domain, message and location pinned."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolkit.cli import main
from toolkit.domains import list_domains, shipped_domain
from toolkit.lint import Severity, lint

DATA = Path(__file__).parent / "data"
DOMAIN = DATA / "kitchen_broken.pddl"
PROBLEM = DATA / "kitchen_p1.pddl"


@pytest.fixture(scope="module")
def findings():
    report = lint(DOMAIN, [PROBLEM])
    first: dict = {}
    for f in report.findings:
        first.setdefault(f.code, f)
    return first, report


@pytest.mark.parametrize("code,severity,line,message,hint", [
    ("goal-unreachable", "error", 4, "goal atom (done b) can never become true: no applicable action adds it and "
     "the initial state lacks it", "add (done b) to :init, or check which action should produce it"),
    ("requirement-undeclared", "warning", 3, "uses :negative-preconditions without declaring it in :requirements",
     "add :negative-preconditions to (:requirements ...)"),
    ("requirement-unused", "warning", 3, "requirement :equality is declared but not used",
     "remove :equality from (:requirements ...)"),
    ("unused-type", "warning", 4, "type gadget is declared but never used",
     "use it for a parameter or object, or delete it from (:types ...)"),
    ("unused-constant", "warning", 5, "constant spare is declared but never used",
     "use it in an action or problem, or delete it from (:constants ...)"),
    ("unused-predicate", "warning", 11, "predicate broken is declared but never used",
     "use (broken ...) in an action, or delete its declaration"),
    ("add-delete-conflict", "warning", 15, "action heat adds and deletes (hot ?x) unconditionally (PDDL applies "
     "deletes first, so it always ends true)", "remove (not (hot ?x)) or (hot ?x) from the effect of heat"),
    ("action-never-applicable", "warning", 16, "action finish can never be applied in problem p1 (relaxed "
     "reachability)", "e.g. (finish a) needs (magic a), which the initial state lacks and no action adds"),
    ("static-predicate", "info", 8, "predicate fixed is static: no action changes it",
     "fine for fixed facts; if it should change, add it to an action's effect"),
])
def test_each_finding(findings, code, severity, line, message, hint):
    by_code, _ = findings
    f = by_code[code]
    assert (f.severity.value, f.line, f.message, f.hint) == (severity, line, message, hint)


def test_report_totals_and_exit_code(findings):
    _, report = findings
    assert report.summary() == "1 error(s), 7 warning(s), 2 info"
    assert report.exit_code == 1


def _broken(tmp_path: Path, old: str, new: str, source: Path = DOMAIN) -> Path:
    text = source.read_text()
    assert old in text
    out = tmp_path / source.name
    out.write_text(text.replace(old, new))
    return out


@pytest.mark.parametrize("old,new,code,where,message", [
    ("(fixed ?x) (not", "(fixd ?x) (not", "undeclared-name", (14, 24), "unknown predicate 'fixd'; did you mean fixed?"),
    (":precondition (magic ?x)", ":precondition (magic ?x ?x)", "arity-error", (18, 19),
     "predicate 'magic' takes 1 argument(s), got 2"),
    ("(:action finish", "(:action finish (", "syntax-error", (16, 19), "unexpected '('; expected ':parameters'"),
])
def test_load_errors_become_located_findings(tmp_path, old, new, code, where, message):
    report = lint(_broken(tmp_path, old, new))
    (f,) = [f for f in report.findings if f.severity is Severity.ERROR]  # the checks run on past it
    assert (f.code, (f.line, f.column), f.message, f.severity) == (code, where, message, Severity.ERROR)
    assert report.exit_code == 1


def test_problem_type_error_is_a_finding(tmp_path):
    bad = _broken(tmp_path, "(:init (fixed a))", "(:init (fixed a) (fixed a b))", PROBLEM)
    report = lint(DOMAIN, [bad])
    f = report.findings[0]
    assert (f.code, f.line, f.message) == ("arity-error", 3, "predicate 'fixed' takes 1 argument(s), got 2")


def test_fixing_by_the_hints_gives_a_clean_report(tmp_path):
    text = DOMAIN.read_text()
    for old, new in [(":equality", ":negative-preconditions"), ("item gadget", "item"), ("(:constants spare - item)", ""),
                     ("(broken ?x - item)", ""), ("(hot ?x) (not (hot ?x))", "(hot ?x)")]:
        text = text.replace(old, new)
    domain = tmp_path / "d.pddl"
    domain.write_text(text)
    problem = tmp_path / "p.pddl"
    problem.write_text(PROBLEM.read_text().replace("(:init (fixed a))", "(:init (fixed a) (magic b))"))
    report = lint(domain, [problem])
    assert report.exit_code == 0, [str(f) for f in report.findings]
    assert {f.code for f in report.findings} == {"static-predicate"}


@pytest.mark.parametrize("name", list_domains())
def test_shipped_domains_have_no_errors(name):
    problems = sorted(shipped_domain(name).parent.glob("problems/*.pddl"))
    report = lint(shipped_domain(name), problems)
    assert report.count(Severity.ERROR) == 0, [str(f) for f in report.findings]


def test_cli_exit_codes_and_json(capsys, tmp_path):
    assert main(["lint", str(DOMAIN), str(PROBLEM), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert (data["errors"], data["warnings"], data["info"]) == (1, 7, 2)
    assert main(["lint", "blocksworld"]) == 0
    assert capsys.readouterr().out.strip().endswith("0 error(s), 0 warning(s), 2 info")
    assert main(["lint", str(tmp_path / "missing.pddl")]) == 2


@pytest.mark.parametrize("cost", ["1", "(dist ?a ?b)"])
def test_action_costs_used_are_not_reported_unused(tmp_path: Path, cost: str) -> None:
    domain = tmp_path / "d.pddl"
    domain.write_text(f"""(define (domain d) (:requirements :typing :action-costs)
 (:types loc)
 (:predicates (at ?l - loc))
 (:functions (total-cost) - number (dist ?a ?b - loc) - number)
 (:action go :parameters (?a ?b - loc) :precondition (at ?a)
  :effect (and (not (at ?a)) (at ?b) (increase (total-cost) {cost}))))
""")
    assert not [f for f in lint(domain).findings if f.code == "requirement-unused"]


def test_problem_object_named_by_the_domain_hint_says_what_fast_downward_does(tmp_path):
    """IPC tyreworld's domain names ``wrench``, which only its problems declare. The hint says what FD's
    translator does with it; the installed one (26.6) is asked, so the hint cannot drift from it."""
    domain = tmp_path / "d.pddl"
    domain.write_text("(define (domain tyres) (:requirements :strips) (:predicates (have ?x) (loose))\n"
                      "  (:action loosen :parameters () :precondition (have wrench) :effect (loose)))\n")
    problem = tmp_path / "p.pddl"
    problem.write_text("(define (problem p) (:domain tyres) (:objects wrench) (:init (have wrench)) (:goal (loose)))\n")
    (f,) = [f for f in lint(domain, [problem]).findings if f.severity is Severity.ERROR]
    assert (f.code, f.line, f.message) == ("undeclared-name", 2, "unknown constant 'wrench'")
    assert "Fast Downward's translator 24.06 reads them, 26.6 refuses them: 'Undefined object'" in f.hint
    assert "lets it pass" not in f.hint
    parser = pytest.importorskip("fast_downward.translate.pddl_parser")
    with pytest.raises(parser.ParseError, match="Undefined object"):
        parser.open(domain_filename=str(domain), problem_filename=str(problem))


@pytest.mark.parametrize("text,line,col,message", [
    ("(define (domain w) (:requirements :strips :domain-axioms) (:predicates (p))\n"
     " (:action a :parameters () :precondition (p) :effect (not (p))))",
     1, 43, "requirement :domain-axioms ignored, as VAL ignores it"),
    ("(define (domain w) (:requirements :strips :typing)\n (:types object a) (:predicates (p ?x - a))\n"
     " (:action a :parameters (?x - a) :precondition (p ?x) :effect (not (p ?x))))",
     2, 10, "'object' listed in :types ignored (it is the root type)"),
    ("(define (domain w) (:requirements :strips :typing) (:types a)\n (:predicates (p ?x - a))\n"
     " (:constants c - a)\n (:action a :parameters () :precondition (p c) :effect (not (p c))))",
     3, 2, "constants out of the grammar's order"),
])
def test_every_warning_the_loader_reads_past_is_a_located_finding(tmp_path, text, line, col, message):
    # pgt reads these as VAL does and warns; lint had dropped every domain warning but three kinds ("clean")
    path = tmp_path / "d.pddl"
    path.write_text(text)
    found = [f for f in lint(path).findings if f.code == "domain-warning"]
    assert [(f.severity, f.line, f.column) for f in found] == [(Severity.WARNING, line, col)]
    assert message in found[0].message and found[0].path == str(path)
