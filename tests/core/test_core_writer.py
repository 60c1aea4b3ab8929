"""The writer: every shipped domain and problem parses, writes, and re-parses to an
equal model, and writing is byte-stable."""

from __future__ import annotations

import dataclasses

import pytest

from core_support import paths, shipped_pairs
from toolkit import model as m
from toolkit.domains import DOMAINS_ROOT
from toolkit.loader import load_domain, load_problem, parse_domain, parse_problem
from toolkit.writer import write_domain, write_problem

DOMAINS = sorted(p.parent.name for p in DOMAINS_ROOT.glob("*/domain.pddl"))


def _same_domain(a: m.Domain, b: m.Domain) -> bool:
    # Domain equality already ignores source and warnings; the path is where it came from.
    return dataclasses.replace(a, path="") == dataclasses.replace(b, path="")


@pytest.mark.parametrize("name", DOMAINS)
def test_domain_round_trip(name: str) -> None:
    domain = load_domain(DOMAINS_ROOT / name / "domain.pddl")
    text = write_domain(domain)
    again = parse_domain(text)
    assert _same_domain(again, domain)
    assert list(again.actions) == list(domain.actions)  # declaration order kept
    assert write_domain(again) == text
    assert write_domain(domain) == text


@pytest.mark.parametrize(("domain_name", "problem_name"), shipped_pairs())
def test_problem_round_trip(domain_name: str, problem_name: str) -> None:
    dpath, ppath = paths(domain_name, problem_name)
    domain = load_domain(dpath)
    problem = load_problem(ppath, domain)
    text = write_problem(problem)
    again = parse_problem(text, parse_domain(write_domain(domain)))
    assert dataclasses.replace(again, path="") == dataclasses.replace(problem, path="")
    assert write_problem(again) == text
    assert not again.warnings


def test_output_is_sorted_and_independent_of_declaration_order() -> None:
    a = parse_domain("(define (domain d) (:requirements :typing :strips) (:types b a - object c - a)"
                     " (:predicates (q ?x - c) (p ?x - a)) (:action go :parameters (?x - a) :effect (p ?x)))")
    b = parse_domain("(define (domain d) (:requirements :strips :typing) (:types c - a a b)"
                     " (:predicates (p ?x - a) (q ?x - c)) (:action go :parameters (?x - a) :effect (p ?x)))")
    assert write_domain(a) == write_domain(b)
    text = write_domain(a)
    assert text.index("(p ?x - a)") < text.index("(q ?x - c)")
    assert "(:requirements :strips :typing)" in text
    assert "c - a\n    a b)" in text  # subtypes first, children of object bare at the end


def test_edge_cases_round_trip() -> None:
    src = """(define (domain x) (:requirements :typing :adl)
      (:types a b - object c - a)
      (:constants k1 - c k2)
      (:predicates (p ?x - (either a b)) (q) (r ?x ?y))
      (:action go :parameters () :effect (q))
      (:action stay :parameters (?y - c ?z) :precondition () :effect ())
      (:action all :parameters (?y - a)
        :precondition (and (imply (q) (exists (?w - b) (p ?w))) (not (= ?y k1)) (or (q) (p ?y)))
        :effect (forall (?v - b) (when (and (p ?v) (not (r ?v ?y))) (and (r ?v ?y) (not (p ?v)))))))"""
    domain = parse_domain(src)
    text = write_domain(domain)
    assert "(p ?x - (either a b))" in text and "k1 - c\n    k2)" in text
    again = parse_domain(text)
    assert again == domain and write_domain(again) == text
    problem = parse_problem("(define (problem p) (:domain x) (:objects o1 - b o2) (:init) (:goal (and)))", domain)
    ptext = write_problem(problem)
    assert "(:init)" in ptext and "(:goal (and))" in ptext
    assert parse_problem(ptext, domain) == problem


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_written_problem_is_read_by_unified_planning(tmp_path) -> None:
    """The writer's output is ordinary PDDL that another parser accepts."""
    from unified_planning.io import PDDLReader

    dpath, ppath = paths("blocksworld", "hard_problem_0")
    domain = load_domain(dpath)
    (tmp_path / "d.pddl").write_text(write_domain(domain))
    (tmp_path / "p.pddl").write_text(write_problem(load_problem(ppath, domain)))
    up = PDDLReader().parse_problem(str(tmp_path / "d.pddl"), str(tmp_path / "p.pddl"))
    assert len(up.all_objects) == len(load_problem(ppath, domain).objects)
