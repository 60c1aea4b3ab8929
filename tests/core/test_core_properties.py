"""Property tests (Hypothesis) of the state algebra.

The oracle is a deliberately naive interpreter of the *lifted* model written here
(evaluate every formula recursively, collect every effect in the old state, then
``(state - deletes) | adds``); the toolkit's compiled ground actions must agree
with it on random states of every shipped domain. Further properties pin the
rules one by one: atoms an action does not mention never change; an atom both
added and deleted ends true; conditional effects read the old state.
"""

from __future__ import annotations

import functools
import itertools
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core_support import final_state, goal_from_state, random_walk, shipped_pairs, shipped_task, with_goal
from toolkit import model as m
from toolkit.loader import parse_domain, parse_problem
from toolkit.model import Atom
from toolkit.plans import format_plan
from toolkit.task import Task
from toolkit.verify import check_plan

PAIRS = shipped_pairs()
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ------------------------------------------------------------ the naive oracle


def _ground(terms: tuple[str, ...], sub: dict[str, str]) -> tuple[str, ...]:
    return tuple(sub.get(t, t) for t in terms)


def _bindings(task: Task, params, sub: dict[str, str]):
    for values in itertools.product(*(task.objects_of(t) for _, t in params)):
        yield {**sub, **dict(zip((v for v, _ in params), values))}


def naive_holds(c: m.Condition, sub: dict[str, str], state: frozenset[Atom], task: Task) -> bool:
    if isinstance(c, m.Pred):
        return Atom(c.predicate, _ground(c.terms, sub)) in state
    if isinstance(c, m.Equals):
        return sub.get(c.left, c.left) == sub.get(c.right, c.right)
    if isinstance(c, m.Not):
        return not naive_holds(c.arg, sub, state, task)
    if isinstance(c, m.And):
        return all(naive_holds(p, sub, state, task) for p in c.parts)
    if isinstance(c, m.Or):
        return any(naive_holds(p, sub, state, task) for p in c.parts)
    if isinstance(c, m.Imply):
        return not naive_holds(c.premise, sub, state, task) or naive_holds(c.conclusion, sub, state, task)
    if isinstance(c, m.Forall):
        return all(naive_holds(c.body, b, state, task) for b in _bindings(task, c.params, sub))
    if isinstance(c, m.Exists):
        return any(naive_holds(c.body, b, state, task) for b in _bindings(task, c.params, sub))
    raise TypeError(c)


def naive_effect(e: m.Effect, sub: dict[str, str], old: frozenset[Atom], task: Task,
                 adds: set[Atom], dels: set[Atom]) -> None:
    if isinstance(e, m.AddEffect):
        adds.add(Atom(e.atom.predicate, _ground(e.atom.terms, sub)))
    elif isinstance(e, m.DelEffect):
        dels.add(Atom(e.atom.predicate, _ground(e.atom.terms, sub)))
    elif isinstance(e, m.AndEffect):
        for p in e.parts:
            naive_effect(p, sub, old, task, adds, dels)
    elif isinstance(e, m.ForallEffect):
        for b in _bindings(task, e.params, sub):
            naive_effect(e.body, b, old, task, adds, dels)
    elif isinstance(e, m.WhenEffect):
        if naive_holds(e.condition, sub, old, task):  # always the OLD state
            naive_effect(e.body, sub, old, task, adds, dels)


def naive_apply(task: Task, action, state: frozenset[Atom]) -> frozenset[Atom]:
    sub = {v: o for (v, _), o in zip(action.schema.params, action.args)}
    adds: set[Atom] = set()
    dels: set[Atom] = set()
    naive_effect(action.schema.effect, sub, state, task, adds, dels)
    return (state - dels) | adds


def mentioned(action) -> set[Atom]:
    eff = action.effect
    out = set(eff.adds) | set(eff.dels)
    for ce in eff.conditional:
        out |= ce.adds | ce.dels
    return out


# ------------------------------------------------------------ strategies


@functools.lru_cache(maxsize=None)
def _actions(domain: str, problem: str) -> tuple:
    """The ground actions of a shipped task (``shipped_task`` is one object per pair), listed once: listing
    them per example re-grounded up to 26,000 actions each time, 20 of 21 profiled seconds of two properties.
    Same list, same order, so the same action is drawn."""
    return tuple(shipped_task(domain, problem).all_actions())


@st.composite
def task_state_action(draw):
    """A shipped task, a random state over its atoms, and a random ground action."""
    domain, problem = draw(st.sampled_from(PAIRS))
    task = shipped_task(domain, problem)
    atoms = task.all_atoms()
    rnd = random.Random(draw(st.integers(0, 2**32)))
    # Mostly states near the initial one (realistic), sometimes arbitrary subsets; each keeps the task's
    # initial static facts, as every state a plan reaches does (ground actions decide quantified parts by
    # them: toolkit.rule_grounding.StaticView).
    static = task.static_view.static
    if draw(st.booleans()):
        state = frozenset(a for a in atoms if rnd.random() < 0.3)
    else:
        state = task.init ^ frozenset(a for a in atoms if rnd.random() < 0.1)
    state = frozenset(a for a in state if a.predicate not in static) | {a for a in task.init if a.predicate in static}
    return task, state, rnd.choice(_actions(domain, problem))


# ------------------------------------------------------------ properties


@SETTINGS
@given(task_state_action())
def test_apply_matches_the_naive_interpreter(tsa) -> None:
    task, state, action = tsa
    assert action.apply(state) == naive_apply(task, action, state)
    assert action.apply_explained(state)[0] == action.apply(state)


@SETTINGS
@given(task_state_action())
def test_applicability_and_explanation_match_the_naive_interpreter(tsa) -> None:
    task, state, action = tsa
    sub = {v: o for (v, _), o in zip(action.schema.params, action.args)}
    expected = naive_holds(action.schema.precondition, sub, state, task)
    assert action.is_applicable(state) == expected
    assert (action.unmet(state) == []) == expected  # explanations exist exactly when it fails


@SETTINGS
@given(task_state_action())
def test_atoms_not_mentioned_by_the_effects_never_change(tsa) -> None:
    task, state, action = tsa
    after = action.apply(state)
    changed = state ^ after
    assert changed <= mentioned(action)


@SETTINGS
@given(task_state_action())
def test_goal_check_matches_the_naive_interpreter(tsa) -> None:
    task, state, _ = tsa
    assert task.goal_holds(state) == naive_holds(task.problem.goal, {}, state, task)
    assert (task.goal_unmet(state) == []) == task.goal_holds(state)


# Hand-made domain that puts the two classic pitfalls side by side.
PITFALLS = parse_domain("""(define (domain pitfalls)
  (:requirements :strips :conditional-effects :negative-preconditions)
  (:predicates (a) (b) (c) (p) (gate))
  (:action both :parameters () :effect (and (p) (not (p))))
  (:action cond-both :parameters () :effect (and (when (gate) (p)) (when (gate) (not (p)))))
  (:action chain :parameters ()
    :effect (and (when (a) (and (not (a)) (b))) (when (b) (c)) (when (not (c)) (gate)))))""")
PITFALL_ATOMS = [Atom(n) for n in ("a", "b", "c", "p", "gate")]
PITFALL_TASK = Task(PITFALLS, parse_problem("(define (problem z) (:domain pitfalls) (:init) (:goal (and)))", PITFALLS))


@SETTINGS
@given(st.sets(st.sampled_from(PITFALL_ATOMS)))
def test_an_atom_both_added_and_deleted_ends_true(atoms) -> None:
    state = frozenset(atoms)
    assert Atom("p") in PITFALL_TASK.action("both", ()).apply(state)
    after = PITFALL_TASK.action("cond-both", ()).apply(state)
    assert (Atom("p") in after) == (Atom("gate") in state or Atom("p") in state)


@SETTINGS
@given(st.sets(st.sampled_from(PITFALL_ATOMS)))
def test_conditional_effects_read_the_old_state(atoms) -> None:
    state = frozenset(atoms)
    after = PITFALL_TASK.action("chain", ()).apply(state)
    # (c) is added iff (b) held BEFORE the action, even when the first effect adds (b).
    assert (Atom("c") in after) == (Atom("b") in state or Atom("c") in state)
    # (gate) is added iff (c) was false BEFORE, even when the second effect adds (c).
    assert (Atom("gate") in after) == (Atom("c") not in state or Atom("gate") in state)
    assert after == naive_apply(PITFALL_TASK, PITFALL_TASK.action("chain", ()), state)


NAME = st.from_regex(r"[A-Za-z][A-Za-z0-9_\-]{0,8}", fullmatch=True)


@given(NAME, st.lists(NAME, max_size=4))
def test_atom_parse_and_str_round_trip(pred: str, args: list[str]) -> None:
    atom = Atom(pred, tuple(args))
    assert Atom.parse(str(atom)) == atom
    assert str(Atom.parse(str(atom))) == str(atom)
    assert hash(Atom.parse(str(atom))) == hash(atom)


@SETTINGS
@given(st.sampled_from(PAIRS), st.integers(0, 2**32), st.integers(0, 12))
def test_a_random_walk_reaches_its_own_final_state(pair, seed: int, length: int) -> None:
    task = shipped_task(*pair)
    walk = random_walk(task, random.Random(seed), length)
    end = final_state(task, walk)
    goal = m.And(tuple(m.Pred(a.predicate, a.args) for a in sorted(end)))
    report = check_plan(with_goal(task, goal), walk)
    assert report.valid, report.message
    assert report.final_state == end
    # The same plan as text is read back to the same actions and verdict.
    again = check_plan(with_goal(task, goal), format_plan(walk))
    assert again.valid and again.final_state == end


@SETTINGS
@given(st.sampled_from(PAIRS), st.integers(0, 2**32))
def test_walks_and_reports_are_deterministic(pair, seed: int) -> None:
    task = shipped_task(*pair)
    a = random_walk(task, random.Random(seed), 8)
    b = random_walk(task, random.Random(seed), 8)
    assert [str(x) for x in a] == [str(x) for x in b]
    goal = goal_from_state(task, final_state(task, a), random.Random(seed))
    r1 = check_plan(with_goal(task, goal), format_plan(a[::-1]))
    r2 = check_plan(with_goal(task, goal), format_plan(a[::-1]))
    assert r1.to_json(with_states=True) == r2.to_json(with_states=True)
