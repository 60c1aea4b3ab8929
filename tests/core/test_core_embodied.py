"""PDDL shaped like the embodied benchmarks' files (ALFRED/ALFWorld, LLM+P, ViPlan), hand-written.

Those files were written for Fast Downward or FF, which tolerate things PDDL does
not allow. What pgt cannot take it must refuse with the file, line and column of
the cause and a reason a user can act on; what it can take must plan and
validate. Each test pins one thing a real benchmark file did (docs/core.md,
"Embodied benchmark files").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.cli import main
from toolkit.task import load_task

# ALFRED's shape: typed ADL, (increase (total-cost) 1), and a constant (SinkBasinType)
# that only the problems declare, in its CleanObject action.
KITCHEN = """(define (domain kitchen)
 (:requirements :adl :action-costs :typing)
 (:types agent location receptacle object rtype otype)
 (:predicates
    (atLocation ?a - agent ?l - location)
    (receptacleAtLocation ?r - receptacle ?l - location)
    (objectAtLocation ?o - object ?l - location)
    (inReceptacle ?o - object ?r - receptacle)
    (receptacleType ?r - receptacle ?t - rtype)
    (objectType ?o - object ?t - otype)
    (holds ?a - agent ?o - object)
    (holdsAny ?a - agent)
    (isClean ?o - object))
 (:functions (total-cost) - number)
 (:action GotoLocation
    :parameters (?a - agent ?from - location ?to - location)
    :precondition (atLocation ?a ?from)
    :effect (and (atLocation ?a ?to) (not (atLocation ?a ?from)) (increase (total-cost) 1)))
 (:action PickupObject
    :parameters (?a - agent ?l - location ?o - object ?r - receptacle)
    :precondition (and (atLocation ?a ?l) (objectAtLocation ?o ?l) (inReceptacle ?o ?r) (not (holdsAny ?a)))
    :effect (and (not (inReceptacle ?o ?r)) (not (objectAtLocation ?o ?l)) (holds ?a ?o) (holdsAny ?a)
                 (increase (total-cost) 1)))
 (:action CleanObject
    :parameters (?a - agent ?l - location ?r - receptacle ?o - object)
    :precondition (and (receptacleType ?r SinkBasinType) (atLocation ?a ?l) (receptacleAtLocation ?r ?l)
                       (holds ?a ?o))
    :effect (and (isClean ?o) (increase (total-cost) 5)))
 (:action HeatObject
    :parameters (?a - agent ?l - location ?r - receptacle ?o - object)
    :precondition (and (receptacleType ?r MicrowaveType) (atLocation ?a ?l) (receptacleAtLocation ?r ?l)
                       (holds ?a ?o))
    :effect (increase (total-cost) 5))
)
"""

CLEAN_MUG = """(define (problem clean_mug)
 (:domain kitchen)
 (:objects
    agent1 - agent
    SinkBasinType MicrowaveType CounterTopType - rtype
    MugType - otype
    Mug1 - object
    Sink1 Counter1 - receptacle
    loc_counter loc_sink loc_start - location)
 (:init
    (atLocation agent1 loc_start)
    (receptacleType Sink1 SinkBasinType) (receptacleType Counter1 CounterTopType)
    (receptacleAtLocation Sink1 loc_sink) (receptacleAtLocation Counter1 loc_counter)
    (objectType Mug1 MugType) (inReceptacle Mug1 Counter1) (objectAtLocation Mug1 loc_counter)
    (= (total-cost) 0))
 (:goal (exists (?o - object) (and (objectType ?o MugType) (isClean ?o))))
 (:metric minimize (total-cost)))
"""

DECLARED = KITCHEN.replace(" (:predicates", " (:constants SinkBasinType MicrowaveType - rtype)\n (:predicates", 1)


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def position(text: str, needle: str, nth: int = 0) -> str:
    """``line:column`` of the ``nth`` occurrence of ``needle`` in ``text``."""
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    line = text.count("\n", 0, at) + 1
    return f"{line}:{at - (text.rfind(chr(10), 0, at) + 1) + 1}"


def test_lint_locates_every_constant_only_the_problems_declare(tmp_path, capsys) -> None:
    domain = write(tmp_path, "domain.pddl", KITCHEN)
    code, out, _ = run(capsys, "lint", domain)
    assert code == 1
    errors = [line for line in out.splitlines() if ": error: " in line]
    assert errors == [
        f"{domain}:{position(KITCHEN, 'SinkBasinType')}: error: unknown constant 'SinkBasinType' [undeclared-name]",
        f"{domain}:{position(KITCHEN, 'MicrowaveType')}: error: unknown constant 'MicrowaveType' [undeclared-name]",
    ]
    assert "hint: declare it in the domain's (:constants NAME - TYPE)" in out


@pytest.mark.parametrize("command", ["plan", "questions", "invariants"])
def test_commands_read_an_undeclared_constant_as_the_problems_object(tmp_path, capsys, command) -> None:
    # Fast Downward's translator grounds such a name as the problem's object, and VAL warns "Undeclared
    # symbol" and goes on (symbol_get, libraries/VAL/include/ptree.h): a located warning, not a refusal.
    domain, problem = write(tmp_path, "domain.pddl", KITCHEN), write(tmp_path, "p.pddl", CLEAN_MUG)
    code, out, err = run(capsys, command, domain, problem)
    assert code == 0 and out and "repeats a domain constant" not in err


def test_validate_warns_of_each_undeclared_constant_where_it_is(tmp_path, capsys) -> None:
    domain, problem = write(tmp_path, "domain.pddl", KITCHEN), write(tmp_path, "p.pddl", CLEAN_MUG)
    plan = write(tmp_path, "x.plan", "(GotoLocation agent1 loc_start loc_counter)\n(PickupObject agent1 loc_counter "
                 "Mug1 Counter1)\n(GotoLocation agent1 loc_counter loc_sink)\n(CleanObject agent1 loc_sink Sink1 Mug1)\n")
    code, out, err = run(capsys, "validate", domain, problem, plan)
    assert code == 0 and "VALID" in out
    assert [line for line in err.splitlines() if "unknown constant" in line] == [
        f"warning: {domain}:{position(KITCHEN, name)}: unknown constant '{name}': not declared in the domain's "
        ":constants; read as the object of that name each problem declares, as Fast Downward and VAL do"
        for name in ("SinkBasinType", "MicrowaveType")]


def test_an_undeclared_constant_takes_the_problems_type_and_plans(tmp_path, capsys) -> None:
    # tyreworld (IPC 1998): (have wrench) in the actions, "wrench jack pump - tool" in each problem.
    domain, problem = write(tmp_path, "domain.pddl", KITCHEN), write(tmp_path, "p.pddl", CLEAN_MUG)
    task = load_task(domain, problem)
    assert task.objects["SinkBasinType"] == "rtype" and task.domain.borrowed == {"SinkBasinType", "MicrowaveType"}
    code, out, _ = run(capsys, "plan", domain, problem)
    assert code == 0 and "(CleanObject agent1 loc_sink Sink1 Mug1)" in out


def test_a_problem_without_the_borrowed_object_is_told(tmp_path) -> None:
    domain = write(tmp_path, "domain.pddl", KITCHEN)
    problem = write(tmp_path, "p.pddl", CLEAN_MUG.replace("SinkBasinType MicrowaveType CounterTopType - rtype",
                                                          "CounterTopType - rtype").replace(
                                                              "(receptacleType Sink1 SinkBasinType) ", ""))
    task = load_task(domain, problem)
    assert any("use 'MicrowaveType', which neither the domain's :constants nor this problem's :objects declare"
               in w for w in task.problem.warnings)


def test_declared_constants_plan_and_a_repeated_object_is_a_located_warning(tmp_path, capsys) -> None:
    domain, problem = write(tmp_path, "domain.pddl", DECLARED), write(tmp_path, "p.pddl", CLEAN_MUG)
    code, out, err = run(capsys, "plan", domain, problem)
    assert code == 0
    assert out.splitlines()[:4] == ["(GotoLocation agent1 loc_start loc_counter)",
                                    "(PickupObject agent1 loc_counter Mug1 Counter1)",
                                    "(GotoLocation agent1 loc_counter loc_sink)",
                                    "(CleanObject agent1 loc_sink Sink1 Mug1)"]
    assert "total cost 8 (optimal)" in out.splitlines()[-1]
    code, out, _ = run(capsys, "lint", domain, problem)
    repeated = [line for line in out.splitlines() if "repeats a domain constant" in line]
    assert repeated == [
        f"{problem}:{position(CLEAN_MUG, 'MicrowaveType')}: warning: object 'MicrowaveType' repeats a domain "
        "constant [problem-warning]",
        f"{problem}:{position(CLEAN_MUG, 'SinkBasinType')}: warning: object 'SinkBasinType' repeats a domain "
        "constant [problem-warning]"]


def test_a_comma_between_variables_is_located_and_explained(tmp_path, capsys) -> None:
    # ALFWorld's alfred.pddl: (exists (?l - location, ?r - receptacle) ...)
    text = DECLARED.replace("(holds ?a ?o))\n    :effect (and (isClean",
                            "(exists (?l2 - location, ?r2 - receptacle) (receptacleAtLocation ?r2 ?l2)))\n"
                            "    :effect (and (isClean", 1)
    assert text != DECLARED
    domain = write(tmp_path, "domain.pddl", text)
    code, out, err = run(capsys, "plan", domain, write(tmp_path, "p.pddl", CLEAN_MUG))
    assert code == 2
    assert err.strip() == (f"pgt plan: error: {domain}:{position(text, ',')}: unexpected character ','; "
                           "PDDL separates names with spaces, not commas")


def test_a_cost_counter_not_spelled_total_cost_is_a_numeric_fluent(tmp_path, capsys) -> None:
    # ALFRED's PutTask domain counts (totalCost): PDDL 2.1 reads it as a numeric fluent of its own, so a
    # problem that sets and minimises (total-cost) names an undeclared function, with the declared one suggested.
    text = DECLARED.replace("(total-cost)", "(totalCost)")
    domain = write(tmp_path, "domain.pddl", text)
    code, _, err = run(capsys, "validate", domain, write(tmp_path, "p.pddl", CLEAN_MUG), write(tmp_path, "x.plan", ""))
    assert code == 2
    assert err.startswith(f"pgt validate: error: {tmp_path / 'p.pddl'}:15:5: unknown function 'total-cost'; "
                          "did you mean totalCost?")
    renamed = CLEAN_MUG.replace("(total-cost)", "(totalCost)")
    code, out, _ = run(capsys, "validate", domain, write(tmp_path, "q.pddl", renamed), write(tmp_path, "x.plan", ""))
    assert code == 1 and "INVALID" in out


NAVIGATION = """(define (domain manipulation)
    (:requirements :strips :typing)
    (:types location object)
    (:predicates (robot-at ?l - location) (at ?o - object ?l - location) (hand-empty) (holding ?o - object))
    (:functions (total-cost) (distance ?from - location ?to - location))
    (:action go-to
        :parameters (?from ?to - location)
        :precondition (robot-at ?from)
        :effect (and (robot-at ?to) (not (robot-at ?from)) (increase (total-cost) (distance ?from ?to))))
    (:action pick
        :parameters (?obj - object ?l - location)
        :precondition (and (at ?obj ?l) (robot-at ?l) (hand-empty))
        :effect (and (holding ?obj) (not (at ?obj ?l)) (not (hand-empty))))
    (:action place
        :parameters (?obj - object ?l - location)
        :precondition (and (holding ?obj) (robot-at ?l))
        :effect (and (at ?obj ?l) (hand-empty) (not (holding ?obj)))))
"""

SHELF = """(define (problem shelf) (:domain manipulation)
  (:objects desk shelf bin - location cup - object)
  (:init (= (total-cost) 0) (= (distance desk shelf) 10) (= (distance shelf desk) 10) (= (distance desk bin) 1)
         (= (distance bin desk) 1) (= (distance bin shelf) 2) (= (distance shelf bin) 2)
         (= (distance desk desk) 0) (= (distance shelf shelf) 0) (= (distance bin bin) 0)
         (robot-at desk) (at cup desk) (hand-empty))
  (:goal (at cup shelf))
  (:metric minimize (total-cost)))
"""


def test_llm_p_distance_costs_plan_optimally_and_lint_names_the_missing_requirement(tmp_path, capsys) -> None:
    # LLM+P's manipulation domain: costs from a distance table, :action-costs not declared.
    domain, problem = write(tmp_path, "domain.pddl", NAVIGATION), write(tmp_path, "p.pddl", SHELF)
    code, out, _ = run(capsys, "plan", domain, problem)
    assert code == 0
    assert out.splitlines()[:4] == ["(pick cup desk)", "(go-to desk bin)", "(go-to bin shelf)", "(place cup shelf)"]
    assert "total cost 3 (optimal)" in out.splitlines()[-1]
    code, out, _ = run(capsys, "lint", domain, problem)
    assert code == 1
    assert f"{domain}:2:5: warning: uses :action-costs without declaring it in :requirements" in out


def test_a_numeric_goal_is_planned_by_a_numeric_planner_only(tmp_path, capsys) -> None:
    # A goal over a static distance makes the task numeric (PDDL 2.1): the boolean planners say so.
    problem_text = SHELF.replace("(:goal (at cup shelf))", "(:goal (and (at cup shelf) (< (distance desk bin) 2)))")
    domain, problem = write(tmp_path, "domain.pddl", NAVIGATION), write(tmp_path, "p.pddl", problem_text)
    code, out, _ = run(capsys, "plan", domain, problem)
    assert code == 1
    assert ("the task has numeric fluents (PDDL 2.1) and auto plans boolean tasks only; --planner enhsp plans "
            "numeric tasks") in out


def test_a_wrongly_typed_initial_atom_names_the_lenient_option(tmp_path, capsys) -> None:
    # The Embodied Agent Interface's VirtualHome problems write (facing floor computer)
    # where facing wants a character.
    problem_text = SHELF.replace("(hand-empty))", "(hand-empty) (robot-at cup))", 1)
    domain, problem = write(tmp_path, "domain.pddl", NAVIGATION), write(tmp_path, "p.pddl", problem_text)
    code, _, err = run(capsys, "plan", domain, problem)
    assert code == 2
    assert err.strip() == (f"pgt plan: error: {problem}:{position(problem_text, '(robot-at cup)')}: object 'cup' has "
                           "type object, expected location; --typing lenient keeps such atoms with a warning, "
                           "as Fast Downward does")
    code, out, err = run(capsys, "plan", "--typing", "lenient", domain, problem)
    assert code == 0 and "total cost 3 (optimal)" in out
    assert "(kept: --typing lenient)" in err


def test_a_predicate_naming_its_subject_reads_as_a_question_about_it(tmp_path, capsys) -> None:
    # (robot-at ?l) once read "Is location desk robot at?"
    domain, problem = write(tmp_path, "domain.pddl", NAVIGATION), write(tmp_path, "p.pddl", SHELF)
    code, out, _ = run(capsys, "questions", "--predicate", "robot-at", domain, problem)
    assert code == 0
    assert "T  (robot-at desk)" in out and "Is the robot at the location desk?" in out
