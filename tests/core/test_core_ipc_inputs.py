"""Published IPC inputs that pgt once refused or misread, each reproduced in small hand-written PDDL.

Found by ``benchmarks/sweep_ipc.py`` over the IPC sample and aibasel/downward-benchmarks;
FD and VAL accept every one of these shapes.
"""

from __future__ import annotations

from toolkit.loader import parse_domain, parse_problem

DOMAIN = """(define (domain shop)
  (:requirements :typing :action-costs)
  (:types part board - object)
  (:predicates (done ?p - part))
  (:functions (total-cost) - number)
  (:action finish :parameters (?p - part)
    :precondition (not (done ?p))
    :effect (and (done ?p) (increase (total-cost) 2))))
"""


def problem(objects: str, metric: str = "(:metric minimize (total-cost))") -> str:
    return f"""(define (problem p) (:domain shop)
  (:objects {objects})
  (:init (= (total-cost) 0))
  (:goal (done a)) {metric})"""


def test_a_type_after_no_object_name_declares_nothing():
    # woodworking-sat08 p11: "    - board" with no boards listed before it.
    domain = parse_domain(DOMAIN)
    plain = parse_problem(problem("a b - part"), domain)
    dangling = parse_problem(problem("a b - part\n     - board"), domain, "p11.pddl")
    assert dangling.objects == plain.objects
    assert dangling.goal == plain.goal and dangling.init == plain.init
    assert any(w.startswith("p11.pddl:3:6: '- board' follows no object name") for w in dangling.warnings)
    leading = parse_problem(problem("- board a b - part"), domain, "lead.pddl")
    assert leading.objects == plain.objects
    assert any(w.startswith("lead.pddl:2:13: '- board'") for w in leading.warnings)


def test_metric_direction_in_upper_case():
    # ged-opt14: "(:METRIC MINIMIZE (TOTAL-COST))" was refused as "unexpected 'MINIMIZE'".
    domain = parse_domain(DOMAIN)
    lower = parse_problem(problem("a - part"), domain)
    upper = parse_problem(problem("a - part", "(:METRIC MINIMIZE (total-cost))"), domain)
    assert upper.metric is lower.metric is True


def test_lint_takes_upper_case_problem_keywords_as_info_as_for_the_domain(tmp_path, capsys):
    # IPC blocks writes "(:INIT ... (AND ...))": lint exited 1 with a warning whose hint
    # ("make the problem's (:domain ...) and objects match the domain") did not fit.
    from toolkit.cli import main

    (tmp_path / "d.pddl").write_text(DOMAIN)
    (tmp_path / "p.pddl").write_text(problem("a - part").replace("(:init", "(:INIT"))
    main(["lint", "--json", str(tmp_path / "d.pddl"), str(tmp_path / "p.pddl")])
    import json
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert [(f["severity"], f["code"]) for f in findings if "upper case" in f["message"]] == [("info", "keyword-case")]
