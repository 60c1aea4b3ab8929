"""Compiled numeric actions (toolkit/fluent_code.py) answer exactly as the interpreter does.

Each ground action of a numeric task runs its precondition and numeric effects as
generated code; the interpreter (``semantics.holds``, ``fluent_effects.update_values``)
is the reference. On seeded random walks, and on states whose values are scrambled
(zeros, fractions near VAL's 0.0001 tolerance, integers beyond a float's 53 bits, infinities, NaN, fluents without a
value), every ground action's compiled check and value changes must equal the
interpreter's, value types included (an integral result is an int in both), and
the stepper's working state must stay the interpreter's successor step by step.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from benchmarks.walks import random_walk
from toolkit import loader
from toolkit.fluent_code import compile_changes
from toolkit.fluent_slots import FluentIndex
from toolkit.fluent_effects import update_values
from toolkit.fluents import MISSING, FluentState, values_of
from toolkit.semantics import apply_effect, holds
from toolkit.stepping import Stepper, WorkingState
from toolkit.task import NumericGroundAction, Task

DATA = Path(__file__).parent / "data" / "numeric"

# Every numeric construct the generator has a rule for: n-ary and unary arithmetic, division (by zero
# too), negated and disjunctive comparisons, quantified conditions, all five update kinds, conditional
# and quantified updates, two updates of one fluent, fluents without a value in :init; an action
# without numeric condition or effect (its check and step are closures, not generated text).
GADGETS = """(define (domain gadgets)
 (:requirements :typing :numeric-fluents :conditional-effects :negative-preconditions
                :disjunctive-preconditions :universal-preconditions)
 (:types box)
 (:predicates (open ?b - box) (sealed ?b - box))
 (:functions (level ?b - box) (cap ?b - box) (rate) (total) (spare ?b - box))
 (:action fill :parameters (?b - box)
   :precondition (and (open ?b) (<= (+ (level ?b) (rate) 0) (cap ?b)))
   :effect (and (increase (level ?b) (rate)) (increase (total) (* 2 (rate) (rate)))))
 (:action halve :parameters (?b - box)
   :precondition (or (> (level ?b) 0) (not (= (cap ?b) (level ?b))))
   :effect (and (scale-down (level ?b) 2) (scale-up (rate) 1.5) (not (open ?b))))
 (:action split :parameters (?a ?b - box)
   :precondition (not (< (- (level ?a)) (/ (cap ?a) (level ?b))))
   :effect (and (assign (level ?a) (/ (level ?b) (- (cap ?a) (cap ?a))))
                (decrease (total) (- (level ?b))) (assign (total) (- (total) 1))))
 (:action sweep :parameters ()
   :precondition (forall (?b - box) (>= (cap ?b) (- (level ?b) 0.00005)))
   :effect (and (forall (?b - box) (when (open ?b) (assign (level ?b) 0)))
                (forall (?b - box) (when (> (level ?b) 1) (sealed ?b)))))
 (:action toggle :parameters (?b - box) :precondition (not (sealed ?b))
   :effect (and (open ?b) (assign (rate) (- (rate) 0.25)) (increase (spare ?b) 1)))
 (:action seal :parameters (?b - box) :precondition (and (open ?b) (not (sealed ?b)))
   :effect (and (sealed ?b) (not (open ?b)))))"""
GADGETS_PROBLEM = """(define (problem p) (:domain gadgets) (:objects b1 b2 b3 - box)
 (:init (open b1) (= (level b1) 0) (= (level b2) 3) (= (cap b1) 4) (= (cap b2) 3) (= (cap b3) 5)
        (= (rate) 1) (= (spare b1) 0))
 (:goal (sealed b1)))"""

SCRAMBLE = (0, 1, -1, 2, 0.5, 3.0, 1e-5, 0.0001, 2.00005, 2 ** 60 + 1, 1e300, math.inf, -math.inf, math.nan, None)


def _same(a, b) -> bool:
    """Equal values of equal type (NaN equal to NaN): an int and a float are not the same answer."""
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return type(a) is type(b) and a == b


def _tasks() -> list[Task]:
    out = []
    for domain, problem in ((GADGETS, GADGETS_PROBLEM),
                            ((DATA / "domain.pddl").read_text(), (DATA / "problem.pddl").read_text())):
        dom = loader.parse_domain(domain, "d.pddl")
        out.append(Task(dom, loader.parse_problem(problem, dom, "p.pddl")))
    return out


def _scrambled(state: FluentState, rng: random.Random, fluents: list) -> FluentState:
    values = dict(state.values)
    for f in rng.sample(fluents, k=rng.randint(1, len(fluents))):
        v = rng.choice(SCRAMBLE)
        if v is None:
            values.pop(f, None)
        else:
            values[f] = v
    return FluentState(state, values)


def _agree(act: NumericGroundAction, state) -> None:
    assert act.is_applicable(state) == holds(act.precondition, state), (str(act), dict(values_of(state)))
    changes, undefined, old = act.value_changes(state)
    want, want_undefined = update_values(act.updates, state)
    assert _same(changes, want) and list(undefined) == want_undefined, (str(act), dict(values_of(state)))
    if old is not None:  # the old values it read for the stepper's undo are the state's
        assert _same(list(old), [(k, values_of(state).get(k, MISSING)) for k, _ in old])
        assert set(changes) <= {k for k, _ in old}
    # the same effects written into a working state's value list by number: the interpreter's values
    work = WorkingState(state, values_of(state), act.fluent_index)
    written = act.write_values(work)
    if written is None:  # given up, nothing written: only where the interpreter reports an undefined read
        assert want_undefined or not set(want) <= set(act.fluent_index.ids), str(act)
        assert _same(dict(work.values), dict(values_of(state)))
    else:
        expected = {**values_of(state), **want}
        assert not want_undefined and _same(dict(work.values), expected), (str(act), dict(values_of(state)))
        old_record, new_record = written
        index = act.fluent_index.atoms
        assert _same([values_of(state).get(index[i]) for i in old_record[::2]], list(old_record[1::2]))
        assert _same({index[i]: v for i, v in zip(new_record[::2], new_record[1::2])},
                     {index[i]: expected.get(index[i]) for i in new_record[::2]})


@pytest.mark.parametrize("seed", range(12))
def test_compiled_actions_answer_as_the_interpreter_on_walks_and_scrambled_states(seed: int) -> None:
    rng = random.Random(seed)
    for task in _tasks():
        actions = list(task.all_actions())
        assert actions and all(isinstance(a, NumericGroundAction) for a in actions)
        fluents = sorted({*task.init.values, *(u.target for a in actions for u in a.updates)})
        states = [task.init]
        for act in random_walk(task, rng, 12):
            states.append(act.apply(states[-1]))
        states += [_scrambled(s, rng, fluents) for s in states for _ in range(3)]
        atoms = task.all_atoms()  # atoms drawn at random too (an open and sealed box no walk reaches)
        states += [FluentState(frozenset(a for a in atoms if rng.random() < 0.5), s.values) for s in states[:6]]
        for state in states:
            for act in actions:
                _agree(act, state)


@pytest.mark.parametrize("seed", range(6))
def test_the_stepper_with_compiled_actions_steps_as_the_interpreter(seed: int) -> None:
    """Every step of the working state equals the interpreter's successor; undo goes back exactly."""
    rng = random.Random(seed)
    for task in _tasks():
        fluents = sorted(task.init.values)
        start = _scrambled(task.init, rng, fluents) if seed % 2 else task.init
        stepper, state = Stepper(start), start
        for _ in range(15):
            act = rng.choice(list(task.all_actions()))
            eff = stepper.effect(act)
            values, undefined = update_values(act.updates, state)
            assert list(eff.undefined) == undefined
            new = dict(values_of(state))
            new.update(values)
            state = FluentState(apply_effect(act.effect, state), new)
            stepper.apply(eff)
            assert stepper.state == state and _same(dict(stepper.state.values), dict(state.values)), str(act)
        for k in range(len(stepper.changes), 0, -1):
            before = stepper.state_at(k - 1)
            stepper.undo()
            assert stepper.state == before and _same(dict(stepper.state.values), dict(before.values))
        assert _same(dict(stepper.state.values), dict(start.values))


@pytest.mark.parametrize("seed", range(6))
def test_the_stepper_by_fluent_numbers_steps_as_the_interpreter(seed: int) -> None:
    """``Stepper.advance`` over the task's fluent numbers (whole-step code, value writes, or the
    interpreter where a value is missing) equals the interpreter's successor; undo goes back exactly."""
    rng = random.Random(seed)
    for task in _tasks():
        start = _scrambled(task.init, rng, sorted(task.init.values)) if seed % 2 else task.init
        stepper, state = Stepper(start, None, task.fluent_index), start
        actions = list(task.all_actions())
        for _ in range(15):
            act = rng.choice(actions)
            values, undefined = update_values(act.updates, state)
            _, refused = stepper.advance(act)
            assert list(refused) == undefined, str(act)
            if not undefined:
                new = dict(values_of(state))
                new.update(values)
                state = FluentState(apply_effect(act.effect, state), new)
            assert stepper.state == state and _same(dict(stepper.state.values), dict(state.values)), str(act)
        for k in range(len(stepper.changes), 0, -1):
            before = stepper.state_at(k - 1)
            stepper.undo()
            assert stepper.state == before and _same(dict(stepper.state.values), dict(before.values))
        assert _same(dict(stepper.state.values), dict(start.values))


def test_the_whole_step_code_runs_on_the_tasks_working_state_only() -> None:
    task = _tasks()[0]
    act = task.action("fill", ["b1"])
    record: list = []
    assert act.step_in_place(Stepper(task.init, None, task.fluent_index).state, record) and len(record) == 1
    assert not act.step_in_place(Stepper(task.init).state, record)  # another numbering: the general path
    assert not act.step_in_place(task.init, record) and len(record) == 1
    assert task.action("sweep", []).step_in_place(Stepper(task.init, None, task.fluent_index).state, record) is False


def test_an_update_the_generator_has_no_rule_for_keeps_the_interpreter() -> None:
    task = _tasks()[0]
    act = task.action("fill", ["b1"])
    odd = tuple(type(u)(u.op.replace("increase", "raise-to"), u.target, u.value, u.condition) for u in act.updates)
    changes, undefined, old = compile_changes(odd, FluentIndex())(task.init)
    assert old is None and _same((changes, list(undefined)), update_values(odd, task.init))


def test_numeric_effects_ground_from_the_schema_template_as_ground_updates_grounds_them() -> None:
    """``Task`` grounds a schema's numeric effects from a per-task template (``UpdateTemplate``): the same
    updates as :func:`toolkit.fluent_effects.ground_updates` on every ground action, the fluent atoms
    being the task's own objects; effects under ``forall`` or ``when`` take ``ground_updates`` itself."""
    from toolkit.fluent_effects import ground_updates

    tasks = _tasks()
    for task in tasks:
        for act in task.all_actions():
            assert act.updates == ground_updates(act.schema, act.args, task.objects_of), str(act)
            if task._update_templates[act.name].plain:
                for u in act.updates:  # a fluent with a value in :init: the index's own object
                    assert u.target not in task.init.values or u.target is task.fluent_index.canonical(u.target)
    gadgets = tasks[0]._update_templates
    assert gadgets["fill"].plain and gadgets["toggle"].plain and not gadgets["sweep"].plain


def _typed(values: list) -> list:
    return [(type(v), v) for v in values]


def test_shared_schema_code_binds_the_parameters_the_generator_gives_each_action() -> None:
    """A schema's ground actions share one generated text (``toolkit.fluent_shared``): for every ground
    action of the tasks, the parameters gathered by walking its trees are exactly those the generator
    collects for it (type included), and the generator's text for it is the shared one (same factory)."""
    from toolkit.fluent_shared import check_params, step_params, tree_source
    from toolkit.fluent_writes import _NAMES, step_text
    from toolkit.fluent_code import build_factory

    checks = steps = 0
    for task in _tasks():
        index = task.fluent_index
        for act in task.all_actions():
            cond, ground = act.precondition, act.ground_effect
            act.is_applicable, act.step_in_place  # the shared code is made on first use
            code = act.code
            if code.share_check and cond.tree not in (None, False):
                factory, reads, params = tree_source(cond, index, task.atom_table)
                assert code.check == (factory, reads), str(act)
                assert _typed(check_params(cond, index, reads)) == _typed(params), str(act)
                checks += 1
            if code.share_step and act.updates and ground.plain:
                src, body = step_text(act.updates, index, ground.adds, ground.dels)
                numbers = [index.number(u.target) for u in act.updates]
                shape = (tuple(numbers.index(n) for n in numbers), bool(ground.adds), bool(ground.dels))
                assert code.steps[shape] is build_factory(src, body, _NAMES), str(act)
                assert _typed(step_params(act.updates, index, ground.adds, ground.dels, numbers)) == _typed(src.params)
                steps += 1
    assert checks >= 10 and steps >= 10
