"""Template grounding (``ActionTemplate``/``GroundEffect``) against direct grounding.

``Task.action`` grounds from a per-task template of each schema; ``compile_condition``
and ``compile_effect`` walk the lifted formulas for one action and are the
reference here (they are themselves checked against a naive interpreter and
unified-planning elsewhere). On every ground action of every shipped problem, and
on a domain built to hit the template's edge cases, the two must give equal
compiled preconditions and effects (same literals, bindings, triggers, order and
texts), and the same successor states and fired-effect reports on many states.
"""

from __future__ import annotations

import dataclasses
import random

import pytest

from core_support import paths, random_walk, shipped_pairs
from test_core_properties import naive_apply
from toolkit import loader
from toolkit import model as m
from toolkit.grounding import compile_condition, compile_effect
from toolkit.loader import parse_domain, parse_problem
from toolkit.model import Atom
from toolkit.semantics import apply_effect, effect_delta, holds
from toolkit.task import Task


def fresh_task(domain: str, problem: str) -> Task:
    dpath, ppath = paths(domain, problem)
    dom = loader.load_domain(dpath)
    return Task(dom, loader.load_problem(ppath, dom))


def sample_states(task: Task, rng: random.Random, n_random: int) -> list[frozenset[Atom]]:
    """The initial state, a short random walk from it, and ``n_random`` pairs of random states."""
    atoms = task.all_atoms()
    states = [task.init] + ([frozenset(), frozenset(atoms)] if n_random else [])
    state = task.init
    for act in random_walk(task, rng, 4 if n_random else 2):
        state = act.apply(state)
        states.append(state)
    static = task.static_view.static
    fixed = frozenset(a for a in task.init if a.predicate in static)
    for _ in range(n_random):
        states.append(frozenset(a for a in atoms if rng.random() < 0.3))
        states.append(task.init ^ frozenset(a for a in atoms if rng.random() < 0.1))
        states.append(fixed | frozenset(a for a in atoms if a.predicate not in static and rng.random() < 0.3))
    return states


def keeps_static_facts(task: Task, state: frozenset[Atom]) -> bool:
    """Whether ``state`` has the task's initial static facts (as every state a plan reaches has)."""
    static = task.static_view.static
    return {a for a in state if a.predicate in static} == {a for a in task.init if a.predicate in static}


def assert_same_as_direct(task: Task, states: list[frozenset[Atom]], naive: bool = False) -> int:
    """Every ground action of ``task`` against direct grounding; returns how many were checked.

    Both decide quantified parts by the task's static facts (``Task.static_view``); on the states that
    keep those facts the action also agrees with grounding that decides nothing (the full expansion)."""
    n = 0
    static = task.static_view
    keeps = [keeps_static_facts(task, state) for state in states]  # per state, not per (action, state): 38 of 68 s
    for action in task.all_actions():
        sub = {var: obj for (var, _), obj in zip(action.schema.params, action.args)}
        pre = compile_condition(action.schema.precondition, sub, task.objects_of, static)
        eff = compile_effect(action.schema.effect, sub, task.objects_of, static)
        full_pre = compile_condition(action.schema.precondition, sub, task.objects_of)
        full_eff = compile_effect(action.schema.effect, sub, task.objects_of)
        assert action.precondition == pre, action
        assert action.effect == eff, action
        assert [ce.text for ce in action.effect.conditional] == [ce.text for ce in eff.conditional], action
        for state, keeps_static in zip(states, keeps):
            after = apply_effect(eff, state)
            adds, dels, fired = effect_delta(eff, state)
            assert action.apply(state) == after, (action, sorted(map(str, state)))
            assert action.apply_explained(state) == ((state - dels) | adds, fired), action
            if keeps_static:
                assert after == apply_effect(full_eff, state), (action, sorted(map(str, state)))
                assert action.is_applicable(state) == holds(full_pre, state), (action, sorted(map(str, state)))
            if naive:
                assert after == naive_apply(task, action, state), action
        n += 1
    return n


@pytest.mark.parametrize("domain,problem", [  # the largest BabyAI grid takes ~20 s: opt-in with --runslow
    pytest.param(*p, marks=pytest.mark.slow) if p == ("babyai", "unlockpickup_1") else p for p in shipped_pairs()])
def test_template_grounding_matches_direct_grounding(domain: str, problem: str) -> None:
    task = fresh_task(domain, problem)
    n_actions = sum(1 for _ in task.all_actions())
    rng = random.Random(f"{domain}/{problem}")
    states = sample_states(task, rng, 0 if n_actions > 1000 else 4)  # sokoban-3 has 14,400 actions
    assert assert_same_as_direct(fresh_task(domain, problem), states) == n_actions


# Every shape the template treats specially: equalities over parameters (residual
# checks) and over constants (decided once), equality-only conditions (the effect
# becomes unconditional for some arguments), literals that contradict each other
# only for some arguments, conditions with no positive literal (no trigger),
# non-conjunctive conditions (grounded per action), nested quantifiers, a
# quantifier that shadows a parameter, constants, nullary predicates.
EDGE_DOMAIN = """
(define (domain edge)
  (:requirements :adl)
  (:types thing place)
  (:constants home - place k - thing)
  (:predicates (p ?x - thing) (q ?x - thing ?y - thing) (at ?x - thing ?l - place) (flag) (r ?x - thing))
  (:action a
    :parameters (?x - thing ?y - thing ?l - place)
    :precondition (and (p ?x) (not (= ?x ?y)) (not (r ?y)))
    :effect (and
      (flag)
      (forall (?z - thing)
        (and
          (when (and (q ?x ?z) (not (q ?z ?x)) (not (= ?z ?y))) (and (not (q ?x ?z)) (r ?z)))
          (when (= ?z ?x) (at ?z home))
          (when (not (= ?z ?y)) (not (p ?z)))
          (when (and (p ?z) (not (p ?x))) (q ?z ?z))
          (when (not (r ?z)) (r ?z))
          (when (or (p ?z) (r ?x)) (at ?z ?l))
          (forall (?w - thing) (when (and (q ?z ?w) (= ?w ?x)) (not (q ?z ?w))))
          (when (exists (?w - thing) (q ?w ?z)) (not (flag)))
          (when (= home ?l) (p ?z))
          (when (and (= k ?z) (not (flag))) (at k ?l))))
      (forall (?x - thing) (when (p ?x) (r ?x)))
      (when (flag) (and (q ?y ?y) (not (flag))))))
  (:action b
    :parameters (?x - thing ?y - thing)
    :precondition (and (= ?x ?y) (p k) (not (p ?x)))
    :effect (and (when (and) (flag)) (when (and (p ?x) (not (p ?y))) (r ?x)) (when (not (p ?x)) (p ?y))))
  (:action c
    :parameters (?x - thing)
    :precondition (or (flag) (and (p ?x) (not (p ?x))))
    :effect (and (when (and (flag) (not (flag))) (r ?x)) (when (= k home) (flag))))
)
"""

EDGE_PROBLEM = """
(define (problem edge-1) (:domain edge)
  (:objects t1 t2 - thing there - place)
  (:init (p t1) (p k) (q t1 t2) (q t2 t2) (flag) (at t1 there))
  (:goal (flag)))
"""


def edge_task(nested_when: bool = False) -> Task:
    domain = parse_domain(EDGE_DOMAIN)
    if nested_when:  # not PDDL syntax (the parser refuses it) but representable: (when c1 (when c2 e))
        a = domain.actions["a"]
        inner = m.WhenEffect(m.Pred("p", ("?y",)), m.AddEffect(m.Pred("r", ("?x",))))
        nested = m.WhenEffect(m.Not(m.Pred("r", ("?y",))), m.AndEffect((inner, m.DelEffect(m.Pred("p", ("?x",))))))
        effect = m.AndEffect((a.effect, m.ForallEffect((("?z", ("thing",)),), nested)))
        domain = dataclasses.replace(domain, actions={**domain.actions, "a": dataclasses.replace(a, effect=effect)})
    return Task(domain, parse_problem(EDGE_PROBLEM, domain))


@pytest.mark.parametrize("nested_when", [False, True])
def test_template_grounding_matches_direct_grounding_on_edge_cases(nested_when: bool) -> None:
    task = edge_task(nested_when)
    atoms = task.all_atoms()
    rng = random.Random(7)
    states = [task.init, frozenset(), frozenset(atoms)]
    states += [frozenset(a for a in atoms if rng.random() < p) for p in (0.2, 0.5, 0.8) for _ in range(40)]
    assert assert_same_as_direct(task, states, naive=not nested_when) == 3 * 3 * 2 + 3 * 3 + 3


def test_edge_cases_are_really_exercised() -> None:
    """The edge domain reaches the template's special paths (else the test above proves little)."""
    task = edge_task()
    tmpl = task.template("a")
    assert tmpl._deferred and tmpl._ces_eq and tmpl._pre_eqs
    assert any(ce[0] < 0 for kind, ce in tmpl._entries if kind == "c")  # a condition without positive literal
    same = task.action("a", ["t1", "t1", "home"])
    other = task.action("a", ["t1", "t2", "home"])
    assert same.precondition.tree is False and other.precondition.tree is None
    # (when (= ?z ?x) (at ?z home)) is unconditional for z = x only
    assert Atom("at", ("t1", "home")) in other.effect.adds and Atom("at", ("t2", "home")) not in other.effect.adds
    # (and (p ?z) (not (p ?x))) is a contradiction for z = x: dropped for that z only
    texts = [ce.text for ce in other.effect.conditional]
    assert "(when (and (p t2) (not (p t1))) (q t2 t2))" in texts
    assert not any(t.startswith("(when (and (p t1) (not (p t1)))") for t in texts)
    assert task.template("c")._pre_flat is False


def test_a_fresh_task_grounds_from_its_own_template() -> None:
    """Templates and interned atoms belong to one Task: a fresh Task builds its own."""
    one, two = fresh_task("blocksworld", "simple_problem_0"), fresh_task("blocksworld", "simple_problem_0")
    schema = next(iter(one.domain.actions))
    assert one.template(schema) is not two.template(schema)
    a1 = next(iter(one.all_actions()))
    a2 = two.action(a1.name, a1.args)
    assert a1 is not a2 and a1.ground_effect.vec == a2.ground_effect.vec
    assert a1.ground_effect.vec[0] is not a2.ground_effect.vec[0] or a1.ground_effect.vec[0] in one.init


# Airport's shape: quantifiers whose premise is a static atom (no action changes ``blocks``).
STATIC_DOMAIN = """
(define (domain static-guard)
  (:requirements :adl)
  (:types seg plane)
  (:predicates (blocks ?s - seg ?to - seg) (occupied ?s - seg) (at ?p - plane ?s - seg) (blocked ?s - seg ?p - plane)
               (link ?a - seg ?b - seg))
  (:action move
    :parameters (?p - plane ?from - seg ?to - seg)
    :precondition (and (at ?p ?from) (link ?from ?to)
      (forall (?s - seg) (imply (and (blocks ?s ?to) (not (= ?s ?from))) (not (occupied ?s))))
      (exists (?s - seg) (blocks ?s ?to)))
    :effect (and (not (at ?p ?from)) (at ?p ?to) (not (occupied ?from)) (occupied ?to)
      (forall (?s - seg) (when (blocks ?s ?to) (blocked ?s ?p)))
      (forall (?s - seg) (when (and (blocks ?s ?from) (not (blocks ?s ?to))) (not (blocked ?s ?p))))
      (forall (?s - seg) (when (and (blocks ?s ?to) (occupied ?s)) (occupied ?from))))))
"""

STATIC_PROBLEM = """
(define (problem static-guard-1) (:domain static-guard)
  (:objects s1 s2 s3 s4 s5 - seg a - plane)
  (:init (at a s1) (occupied s1) (occupied s4) (link s1 s2) (link s2 s3) (link s3 s4) (link s4 s5)
         (blocks s1 s2) (blocks s3 s2) (blocks s2 s3) (blocks s4 s3) (blocks s5 s4))
  (:goal (at a s5)))
"""


def test_static_premises_decide_quantifiers_as_the_full_expansion_does() -> None:
    """A quantifier ranges only over the values its static premise allows (the rest decided from the
    initial state), so a ground action keeps a few literals where it kept a disjunction per object; it
    agrees with the full expansion on every state that keeps the static facts."""
    domain = parse_domain(STATIC_DOMAIN)
    task = Task(domain, parse_problem(STATIC_PROBLEM, domain))
    move = task.action("move", ["a", "s1", "s2"])
    pre = move.precondition
    assert pre.tree is None  # a conjunction of literals: (forall ...) became (not (occupied s3))
    assert [(str(lit), lit.bindings) for lit in pre.literals if not lit.positive] == [
        ("(not (occupied s3))", (("?s", "s3"),))]
    assert Atom("blocks", ("s1", "s2")) not in pre.pos  # decided, inside the exists
    eff = move.effect
    assert {Atom("blocked", ("s1", "a")), Atom("blocked", ("s3", "a"))} <= eff.adds
    assert [ce.text for ce in eff.conditional] == ["(when (occupied s1) (occupied s1))",
                                                   "(when (occupied s3) (occupied s1))"]
    # (forall (?s) (when (and (blocks ?s s1) ...))): nothing blocks s1, so no effect at all
    assert not any(a.predicate == "blocked" for a in eff.dels)
    # Every state of a walk, and random states with the static facts, against the full expansion.
    rng = random.Random(3)
    states = sample_states(task, rng, 30)
    assert sum(keeps_static_facts(task, s) for s in states) > 30
    assert assert_same_as_direct(task, states) == 25
    # A quantifier that static facts make false is ground in full: the report names what fails.
    stuck = task.action("move", ["a", "s4", "s1"])
    assert stuck.precondition.tree is not False
    assert any("exists" in str(u) or "blocks" in str(u) for u in stuck.unmet(task.init))


# A numeric schema's precondition of literals and comparisons (most IPC numeric domains): its literals are
# templated, its comparisons ground per parameter value (ActionTemplate._ground_mixed); equalities over
# parameters and constants, literals that contradict each other for some arguments, a negated comparison
# and a comparison between literals keep compile_condition's literal order and residual tree.
MIXED_DOMAIN = """
(define (domain mixed)
  (:requirements :typing :fluents :equality :negative-preconditions)
  (:types thing)
  (:constants k - thing)
  (:predicates (p ?x - thing) (q ?x ?y - thing) (flag))
  (:functions (f ?x - thing) (g))
  (:action a
    :parameters (?x ?y - thing)
    :precondition (and (p ?x) (>= (f ?x) (g)) (not (q ?x ?y)) (not (= ?x k)) (q ?y ?x)
                       (not (< (+ (f ?y) 1) 3)) (not (p ?y)))
    :effect (and (increase (f ?x) 1)))
  (:action b
    :parameters (?x - thing)
    :precondition (and (= k k) (flag) (> (g) 0))
    :effect (and (not (flag)) (decrease (g) 1)))
  (:action c
    :parameters (?x - thing)
    :precondition (and (not (= k k)) (<= (f ?x) 2))
    :effect (and (flag)))
  (:action d
    :parameters (?x - thing)
    :precondition (and (<= (f ?x) 2) (not (> (* (f ?x) (g)) (f k))))
    :effect (and (flag)))
  (:action e
    :parameters (?x - thing)
    :precondition (< (f ?x) 2)
    :effect (and (flag)))
)
"""

MIXED_PROBLEM = """
(define (problem mixed-1) (:domain mixed)
  (:objects t1 t2 - thing)
  (:init (p t1) (q t2 t1) (flag) (= (f t1) 3) (= (f t2) 1) (= (f k) 0) (= (g) 2))
  (:goal (flag)))
"""


def test_template_grounding_matches_direct_grounding_on_mixed_numeric_preconditions() -> None:
    domain = parse_domain(MIXED_DOMAIN)
    task = Task(domain, parse_problem(MIXED_PROBLEM, domain))
    assert all(task.template(name)._pre_mixed is not None for name in ("a", "b", "c", "d", "e"))
    n = 0
    for action in task.all_actions():
        sub = {var: obj for (var, _), obj in zip(action.schema.params, action.args)}
        assert action.precondition == compile_condition(action.schema.precondition, sub, task.objects_of,
                                                        task.static_view), action
        n += 1
    assert n == 3 * 3 + 3 * 4
    assert task.action("a", ["t1", "t2"]).precondition.tree is not False
    assert task.action("a", ["t1", "t1"]).precondition.tree is False  # (q t1 t1) and (not (q t1 t1))
    assert task.action("a", ["k", "t1"]).precondition.tree is False  # (not (= k k))


def test_ground_actions_hold_their_atom_sets_compactly() -> None:
    """Ground actions are kept by the million (caldera-sat18 p12: 923,681), so their atom sets are as small as
    CPython makes them: the empty ones one shared object, the others with a table sized for their atoms (a
    frozenset filled from a list is four times its size). Same sets, same grounding; less memory per action."""
    import sys

    pre = " ".join(f"(p{i} ?x)" for i in range(22))
    dom = parse_domain(f"""(define (domain wide) (:predicates {" ".join(f"(p{i} ?x)" for i in range(22))} (q ?x))
      (:action look :parameters (?x) :precondition (and {pre}) :effect (when (q ?x) (q ?x))))""")
    facts = " ".join(f"(p{i} {o})" for i in range(22) for o in ("a", "b"))
    task = Task(dom, parse_problem(f"(define (problem w) (:domain wide) (:objects a b) (:init {facts}) (:goal (q a)))",
                                   dom))
    a, b = task.grounding().actions
    assert len(a.precondition.pos) == 22
    assert sys.getsizeof(a.precondition.pos) == sys.getsizeof(frozenset(set(a.precondition.pos)))
    assert a.ground_effect.adds is b.ground_effect.adds is a.ground_effect.dels  # one empty set for all
    first, again = b.ground_effect.compile(), b.ground_effect.compile()  # built anew, not kept on the action
    assert first == again == b.effect and first is not again
