"""The relaxed exploration's join (:mod:`toolkit.reach`): (in)equalities prune while it joins.

Organic synthesis' actions chain ``bond`` atoms under ``(not (= ?a ?c))``; its bond
facts are symmetric, so a join that checks the inequalities only at the end walks
each chain back onto itself and throws away most of what it found (sat18 p02: 3.9 s
to ground before, 0.45 s after, the same 5,880 actions).
"""

from __future__ import annotations

from toolkit import loader
from toolkit.model import Atom
from toolkit.reach import _Index, _join, _plan, _rules, ground
from toolkit.task import Task

DOMAIN = """(define (domain chem) (:predicates (bond ?x ?y) (linked ?x ?y))
  (:action link :parameters (?a ?b ?c)
    :precondition (and (bond ?a ?b) (bond ?b ?c) (not (= ?a ?c)))
    :effect (linked ?a ?c)))"""
PROBLEM = """(define (problem p) (:domain chem) (:objects a b c d)
  (:init (bond a b) (bond b a) (bond b c) (bond c b) (bond c d) (bond d c)) (:goal (linked a c)))"""


def _task() -> Task:
    dom = loader.parse_domain(DOMAIN)
    return Task(dom, loader.parse_problem(PROBLEM, dom))


def test_the_join_drops_a_binding_as_soon_as_an_inequality_fails():
    task = _task()
    (rule,) = _rules(task, task.domain.actions["link"])
    index = _Index()
    for atom in task.init:
        index.add(atom)
    found = [b for first in range(len(rule.atoms))
             for fact in task.init
             for b in _join(rule, _plan(rule, first), 0,
                            dict(zip(rule.atoms[first][1], fact.args)), index)]
    assert found and all(b["?a"] != b["?c"] for b in found)  # no walk back onto itself reaches _complete


def test_the_ground_actions_are_the_chains_of_two_distinct_ends():
    names = {" ".join(a.args) for a in ground(_task()).actions}
    assert names == {"a b c", "c b a", "b c d", "d c b"}
    assert Atom("linked", ("a", "c")) in ground(_task()).atoms


def test_quantifiers_that_reuse_a_variable_name_bind_different_objects():
    # joined as one variable, (exists (?x) (p ?x)) and (exists (?x) (q ?x)) asked one object for both, and an
    # exists that reuses a parameter's name constrained the parameter: reachable actions were left out
    dom = loader.parse_domain("""(define (domain q) (:requirements :existential-preconditions)
      (:predicates (p ?x) (q ?x) (r ?x) (done ?x))
      (:action both :parameters (?y) :precondition (and (r ?y) (exists (?x) (p ?x)) (exists (?x) (q ?x)))
        :effect (done ?y))
      (:action shadow :parameters (?x) :precondition (and (r ?x) (exists (?x) (p ?x))) :effect (done ?x)))""")
    task = Task(dom, loader.parse_problem("""(define (problem p) (:domain q) (:objects a b c)
      (:init (p a) (q b) (r c)) (:goal (done c)))""", dom))
    names = {str(a) for a in ground(task).actions}
    assert names == {"(both c)", "(shadow c)"}
    assert {str(a) for a in task.reachable_actions()} == names  # what questions, lint and plans ground


def test_an_action_without_variables_waits_on_its_atoms_and_is_never_joined(monkeypatch):
    # a grounded domain (openstacks-strips p25: ~5,000 parameterless actions of ~30 atoms) was joined again from
    # each of an action's atoms as it was reached: a join plan per atom, quadratic per action (60 s, FD 13 s)
    import toolkit.reach as reach

    planned = []
    real = reach._plan
    monkeypatch.setattr(reach, "_plan", lambda rule, first: planned.append(rule.schema.name) or real(rule, first))
    atoms = " ".join(f"(s{k})" for k in range(12))
    dom = loader.parse_domain(f"""(define (domain g) (:predicates {atoms} (t) (u ?x))
      (:action step :parameters () :precondition (s0) :effect (and {atoms}))
      (:action all :parameters () :precondition (and {atoms}) :effect (t))
      (:action late :parameters () :precondition (and (s0) (t) (u a)) :effect (s1))
      (:action typed :parameters (?x) :precondition (and (t) (s3)) :effect (u ?x)))""")
    task = Task(dom, loader.parse_problem("(define (problem p) (:domain g) (:objects a b) (:init (s0)) (:goal (t)))",
                                          dom))
    names = {str(a) for a in ground(task).actions}
    assert names == {"(step)", "(all)", "(late)", "(typed a)", "(typed b)"}  # (late) waits on (u a), from (typed a)
    assert planned == []


def test_the_join_order_is_the_most_bound_atom_next_as_a_rescan_would_pick():
    """Most-bound atom next; among equals the narrowest (the product of its unbound variables' domain sizes),
    then the first."""
    import math
    import random

    rng = random.Random(7)
    for _ in range(300):
        variables = [f"?v{k}" for k in range(5)]
        domains = {v: frozenset(f"o{i}" for i in range(rng.choice((1, 2, 5, 40)))) for v in variables}
        atoms = [(f"p{k}", tuple(rng.choice(variables + ["c"]) for _ in range(rng.randint(0, 3))))
                 for k in range(rng.randint(1, 7))]
        rule = type("R", (), {"atoms": atoms, "eqs": (), "domains": domains})()
        for first in range(len(atoms)):
            bound = {t for t in atoms[first][1] if t.startswith("?")}
            rest, order = [j for j in range(len(atoms)) if j != first], []
            while rest:  # the rescan the incremental scores replace
                j = min(rest, key=lambda j: (-sum(1 for t in atoms[j][1] if not t.startswith("?") or t in bound),
                                             math.prod(len(domains[t]) for t in atoms[j][1]
                                                       if t.startswith("?") and t not in bound),
                                             rest.index(j)))
                rest.remove(j)
                order.append(atoms[j][0])
                bound.update(t for t in atoms[j][1] if t.startswith("?"))
            assert [step[0] for step in _plan(rule, first)] == order


def test_a_tree_shaped_body_binds_its_narrow_ends_before_its_wide_leaves():
    """Organic synthesis' dieckmanncyclization shape: from a bound carbon, a leaf over any atom
    (?r - atom, wide) and a branch to an oxygen (?o - oxygen, narrow) are equally bound; the oxygen goes
    first, so the leaf's many values are tried only for bindings whose narrow end holds."""
    atoms = [("carbon", ("?c",)), ("bond", ("?c", "?r")), ("bond", ("?c", "?o"))]
    domains = {"?c": frozenset({"c1", "c2"}), "?r": frozenset(f"a{i}" for i in range(50)), "?o": frozenset({"o1"})}
    rule = type("R", (), {"atoms": atoms, "eqs": (), "domains": domains})()
    assert [step[4] for step in _plan(rule, 0)] == [((0, "b", "?c"), (1, "n", "?o")),
                                                    ((0, "b", "?c"), (1, "n", "?r"))]
