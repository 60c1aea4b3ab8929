"""The problem version a released household run ran (benchmarks/viplan_problem_version.py).

ViPlan's released CoT household runs of cleaning_out_drawers_simple ask about cabinet_2, which
the snapshot's problem file does not declare: the objects an action check names were the loaded
problem's (``env.all_objects``), so the import declares them and the replay runs that file.
"""

from __future__ import annotations

import pytest

from toolkit.errors import PgtError
from toolkit.loader import parse_domain, parse_problem
from benchmarks.viplan_problem_version import missing_objects, run_objects, with_objects

DOMAIN = """(define (domain igibson)
  (:requirements :strips :typing)
  (:types container movable - object)
  (:predicates (reachable ?o - object) (holding ?m - movable) (open ?c - container)
               (ontop ?o1 - object ?o2 - object) (inside ?o - object ?c - container))
  (:action navigate-to :parameters (?o - object) :precondition (not (reachable ?o)) :effect (reachable ?o))
  (:action open-container :parameters (?c - container) :precondition (reachable ?c) :effect (open ?c)))
"""
PROBLEM = """(define (problem drawers) (:domain igibson)
    (:objects
        bowl_1 - movable
        cabinet_1 - container
        sink_1 - object
    )
    (:init (inside bowl_1 cabinet_1))
    (:goal (ontop bowl_1 sink_1)))
"""
# one attempt as ViPlan's benchmark_igibson_plan.py logs it (values trimmed to what is read)
EPISODE = {"action_results": [
    {"action": "navigate-to(cabinet_1)", "preconditions_results": {},
     "non_visible_precond_results": {"reachable cabinet_1": [True, False, False], "all_correct": True},
     "effects_results": {"reachable cabinet_1": ["yes"], "reachable cabinet_2": ["yes"], "all_correct": True,
                         "updated_non_visible_preds": {"ontop bowl_1,shelf_3": {"before": None, "after": False}}}},
    {"action": "open-container(drawer_9)", "preconditions_results": {"reachable drawer_9": ["yes"]}},
], "replans": [{"enum_results": {"reachable spoon_4": ["yes"]}}]}


def test_objects_named_by_action_checks_are_declared_with_the_type_their_uses_allow():
    domain = parse_domain(DOMAIN)
    declared = parse_problem(PROBLEM, domain).objects
    extra = missing_objects(domain, declared, run_objects([EPISODE, None]))
    # drawer_9 is opened, so a container; cabinet_2 and shelf_3 are only reachable / under something;
    # spoon_4 appears in a replan's enumeration only (iGibson's state, not the problem's objects)
    assert extra == {"cabinet_2": "object", "drawer_9": "container", "shelf_3": "object"}
    text = with_objects(PROBLEM, extra, "drawers.pddl")
    problem = parse_problem(text, domain)
    assert dict(problem.objects) == {**declared, **extra}
    assert problem.init == parse_problem(PROBLEM, domain).init


def test_nothing_missing_leaves_the_file_alone():
    domain = parse_domain(DOMAIN)
    episode = {"action_results": [{"action": "navigate-to(cabinet_1)",
                                   "effects_results": {"reachable cabinet_1": ["yes"]}}]}
    assert missing_objects(domain, parse_problem(PROBLEM, domain).objects, run_objects([episode])) == {}


def test_uses_no_type_allows_are_refused_in_one_line():
    domain = parse_domain(DOMAIN)
    episode = {"action_results": [{"action": "open-container(x_1)",
                                   "effects_results": {"holding x_1": ["yes"]}}]}
    with pytest.raises(PgtError, match="x_1.*container and movable"):
        missing_objects(domain, {}, run_objects([episode]))
