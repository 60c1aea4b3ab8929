"""The validator's first tier (toolkit.action_tier) gives the reports of the ground actions' own path.

A plan checked on a fresh task steps each deferred ground action through its schema's
step function, which declines (nothing done) wherever the ground action's own path has
something to say. The reference is that own path with every ground action built at once,
as before the tier existed (``ActionMaker.make`` as ``ActionMaker.ground``, no step
function). On seeded walks and their mutants (steps swapped, dropped, repeated, cut; an
argument replaced by another object of its type or of another type) and from initial
states whose fluent values are changed or removed, with and without ``keep_going``, every
report must be equal: verdict, messages, step reports, every step's state, the final
state, the stepper's record of changes, the cost, the JSON. Over every shipped domain,
the numeric and cost test data, and where the machine has them IPC 2023's numeric track
(/tmp/h31/ipc), the IPC sample and the classical-domains collection.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from benchmarks.walks import mutants, random_walk
from core_support import replace_argument
from toolkit import loader
from toolkit.action_maker import ActionMaker
from toolkit.domains import DOMAINS_ROOT
from toolkit.errors import PgtError
from toolkit.fluents import FluentState
from toolkit.task import Task
from toolkit.verify import PlanReport, check_plan

DATA = Path(__file__).parent / "data"
IPC_NUMERIC = Path("/tmp/h31/ipc")
IPC_SAMPLE = Path("/work/shared/ipc-sample")
CLASSICAL = Path("/tmp/h34/classical-domains")


def _first_problem(folder: Path) -> tuple[Path, Path] | None:
    domain = folder / "domain.pddl"
    problems = sorted(p for p in [*folder.glob("problems/*.pddl"), *folder.glob("instances/*.pddl"),
                                  *folder.glob("*.pddl")] if "domain" not in p.name)
    if not problems:
        return None
    problem = min(problems[:6], key=lambda p: p.stat().st_size)
    own = problem.with_name(problem.stem + "-domain.pddl")
    return (own if own.exists() else domain, problem) if (own.exists() or domain.exists()) else None


def _cases(root: Path, limit: int | None = None) -> list[tuple[Path, Path]]:
    if not root.is_dir():
        return []
    out = [pair for folder in sorted(root.iterdir()) if folder.is_dir() and (pair := _first_problem(folder))]
    return out[:limit]


_OURS = (_cases(DOMAINS_ROOT) + [(DATA / "numeric" / "domain.pddl", DATA / "numeric" / "problem.pddl")]
         + _cases(DATA / "costs") + [_first_problem(DATA / "derived")])
_BIG = 20_000  # bytes of problem file: a state of thousands of atoms copied per step report (seconds)
SHIPPED = [pair for pair in _OURS if pair[1].stat().st_size < _BIG]
# Shapes the tier must decline or get right: two updates of one function that meet at ?a = ?b, an assign of a
# bare fluent, a fluent without a value in :init, a constant atom and fluent, an equality, a negated
# comparison, a division by zero; beside the fluent-code tests' gadgets (forall, when, disjunctions).
POURS = """(define (domain pours)
 (:requirements :typing :fluents :negative-preconditions :equality)
 (:types box)
 (:constants tap - box)
 (:predicates (open ?b - box) (linked ?a ?b - box) (dry))
 (:functions (level ?b - box) (cap ?b - box) (moves) (mark ?b - box))
 (:action pour :parameters (?a ?b - box)
   :precondition (and (open ?a) (not (dry)) (>= (level ?a) 1) (not (> (level ?b) (cap ?b))))
   :effect (and (decrease (level ?a) 1) (increase (level ?b) 1) (increase (moves) 1)))
 (:action copy :parameters (?a ?b - box)
   :precondition (and (linked ?a ?b) (not (= ?a ?b)) (open tap))
   :effect (and (assign (level ?b) (level ?a)) (assign (mark ?b) (/ (level ?a) (- (cap ?a) (cap ?a))))
                (not (open ?a)) (open ?b)))
 (:action drain :parameters (?b - box)
   :precondition (and (open ?b) (= (cap ?b) (cap ?b)))
   :effect (and (assign (level ?b) 0) (dry) (not (open tap))))
 (:action fill :parameters ()
   :precondition (dry)
   :effect (and (not (dry)) (open tap) (increase (level tap) (mark tap)))))"""
POURS_PROBLEM = """(define (problem p) (:domain pours) (:objects b1 b2 - box)
 (:init (open b1) (open tap) (linked b1 b2) (linked b2 tap) (linked tap b1) (= (level b1) 3) (= (level b2) 0)
        (= (level tap) 9) (= (cap b1) 4) (= (cap b2) 3) (= (cap tap) 99) (= (moves) 0) (= (mark tap) 1))
 (:goal (>= (level b2) 3)))"""
# Numbers the step function's text writes as themselves, and one it cannot (a literal too large for a float
# reads as inf, which has no literal): whole and fractional, negative, huge.
_HUGE = "1" * 400 + ".5"
NUMBERS = f"""(define (domain numbers)
 (:requirements :typing :fluents)
 (:types c)
 (:predicates (on ?x - c))
 (:functions (v ?x - c) (w))
 (:action bump :parameters (?x - c)
   :precondition (and (on ?x) (< (v ?x) {_HUGE}) (> (- (v ?x) -2.5) -1))
   :effect (and (increase (v ?x) 0.25) (decrease (w) -3) (scale-up (v ?x) 2)))
 (:action blow :parameters (?x - c)
   :precondition (on ?x)
   :effect (and (increase (w) {_HUGE}) (assign (v ?x) (* (w) 0.5)))))"""
NUMBERS_PROBLEM = """(define (problem p) (:domain numbers) (:objects a b - c)
 (:init (on a) (on b) (= (v a) 1) (= (v b) 0.5) (= (w) 0))
 (:goal (> (w) 100)))"""
OPT_IN = ([pair for pair in _OURS if pair[1].stat().st_size >= _BIG] + _cases(IPC_NUMERIC) + _cases(IPC_SAMPLE)
          + _cases(CLASSICAL))


def _own_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every ground action built at once, with no step function: the path before the tier."""
    monkeypatch.setattr(ActionMaker, "make", ActionMaker.ground)


def _state(state) -> tuple:
    """A state as comparable data: its atoms and its values by repr (an int is not a float, NaN is NaN)."""
    values = getattr(state, "values", None) or {}
    return frozenset(state), sorted((str(k), repr(v)) for k, v in values.items())


def _facts(report: PlanReport) -> tuple:
    """Everything a caller can read of a report, the step states and the stepper's record included."""
    steps = report.steps
    end = report.end
    parsed = report.parsed
    fields = (report.valid, report.failed_step, report.reason, report.unmet, report.goal_unmet, report.message,
              report.violations, report.goal_size, report.cost_metric, repr(report.cost))
    changes = [(c.added, c.removed, repr(c.old_values), repr(c.new_values)) for c in getattr(end, "changes", ())]
    return (fields, steps, [None if s.state_after is None else _state(s.state_after) for s in steps],
            _state(report.final_state), json.dumps(report.to_json(with_states=True), sort_keys=True, default=repr),
            changes, None if parsed is None else [(s.index, s.line, s.text, s.name, s.args, str(s.action), s.error)
                                                  for s in parsed.steps])


def _texts(task: Task, rng: random.Random) -> list[str]:
    plan = random_walk(task, rng, 40)
    plans = [[str(a) for a in p] for p in mutants(plan, rng)]
    for type_correct in (True, False):
        if plan:
            i = rng.randrange(len(plan))
            repl = replace_argument(task, plan[i], rng, type_correct)
            if repl is not None:
                words = [f"({' '.join((repl[0], *repl[1]))})"]
                plans.append([str(a) for a in plan[:i]] + words + [str(a) for a in plan[i + 1:]])
    # a repeated walk: actions used many times (and, with one walk twice, the same task checking twice)
    plans.append([str(a) for a in plan] * 3)
    return ["".join(f"{line}\n" for line in p) for p in plans]


def _inits(task: Task, rng: random.Random) -> list:
    """The task's own start, and (numeric tasks) starts with values shifted, halved and one removed: numeric
    conditions broken, fluents read without a value."""
    out = [None]
    init = task.init
    if isinstance(init, FluentState) and init.values:
        values = dict(init.values)
        out.append(FluentState(init, {k: v - 1 for k, v in values.items()}))
        out.append(FluentState(init, {k: v / 2 for k, v in values.items()}))
        gone = rng.choice(sorted(values))
        out.append(FluentState(init, {k: v for k, v in values.items() if k != gone}))
    return out


def _compare(pair: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, seed: int = 0) -> int:
    try:
        domain = loader.load_domain(pair[0])
        problem = loader.load_problem(pair[1], domain)
        probe = Task(domain, problem)
        probe.grounding()
    except PgtError:
        pytest.skip("not read or not ground by pgt")
    rng = random.Random(seed)
    texts, inits = _texts(probe, rng), _inits(probe, rng)
    checked = 0
    for text in texts:
        for init in inits:
            for keep_going in (False, True):
                tiered = Task(domain, problem)
                new = _facts(check_plan(tiered, text, keep_going=keep_going, init=init))
                with monkeypatch.context() as patch:
                    _own_path(patch)
                    old = _facts(check_plan(Task(domain, problem), text, keep_going=keep_going, init=init))
                assert new == old, f"{pair[1]}: keep_going={keep_going}, init={'own' if init is None else 'changed'}\n{text}"
                checked += 1
    return checked


@pytest.mark.parametrize("pair", SHIPPED, ids=lambda p: f"{p[1].parent.name}/{p[1].stem}")
def test_the_tier_reports_as_the_ground_actions_own_path(pair: tuple[Path, Path], monkeypatch) -> None:
    assert _compare(pair, monkeypatch)


@pytest.mark.parametrize("texts", [(POURS, POURS_PROBLEM), ("GADGETS", "GADGETS_PROBLEM"), (NUMBERS, NUMBERS_PROBLEM)],
                         ids=["pours", "gadgets", "numbers"])
def test_the_tier_reports_as_the_ground_actions_own_path_on_unusual_shapes(texts, tmp_path, monkeypatch) -> None:
    import test_core_fluent_code as gadgets

    domain, problem = (getattr(gadgets, t) if t.isupper() else t for t in texts)
    pair = tmp_path / "domain.pddl", tmp_path / "problem.pddl"
    pair[0].write_text(domain)
    pair[1].write_text(problem)
    for seed in range(6):
        assert _compare(pair, monkeypatch, seed)


@pytest.mark.slow
@pytest.mark.parametrize("pair", OPT_IN, ids=lambda p: f"{p[1].parent.name}/{p[1].stem}")
def test_the_tier_reports_as_the_ground_actions_own_path_on_public_collections(pair, monkeypatch) -> None:
    assert _compare(pair, monkeypatch)


def test_the_tier_steps_the_plain_schemas_and_no_other() -> None:
    # The tier must be taken, not only agree: in the test data's numeric domain, drive and refuel (literals,
    # comparisons, updates) get a step function, halve-all (a forall over a when) none; a walk checked on a
    # fresh task builds the parts of halve-all's ground actions only.
    domain = loader.load_domain(DATA / "numeric" / "domain.pddl")
    task = Task(domain, loader.load_problem(DATA / "numeric" / "problem.pddl", domain))
    plan = random_walk(task, random.Random(1), 30)
    fresh = Task(domain, task.problem)
    report = check_plan(fresh, "".join(f"{a}\n" for a in plan))
    assert report.plan_length == len(plan) and report.failed_step in (None, len(plan) + 1)
    tiers = {name for name, tier in fresh._maker.tiers.items() if tier is not None}
    assert tiers == {"drive", "refuel"} & {a.name for a in plan}
    built = {a.name for a in fresh._actions.values() if "precondition" in a.__dict__}
    assert built == {"halve-all"} & {a.name for a in plan}


def test_the_tier_steps_numbers_written_as_themselves_and_inf(tmp_path: Path) -> None:
    # The step function's text writes a number as itself, and inf (a literal too large for a float) as a
    # parameter; a wrong text would decline every step (the ground action's own path, the same report), so
    # the walk must be stepped by the tier alone: no ground action built.
    (tmp_path / "d.pddl").write_text(NUMBERS)
    (tmp_path / "p.pddl").write_text(NUMBERS_PROBLEM)
    domain = loader.load_domain(tmp_path / "d.pddl")
    task = Task(domain, loader.load_problem(tmp_path / "p.pddl", domain))
    plan = random_walk(task, random.Random(0), 12)
    fresh = Task(domain, task.problem)
    report = check_plan(fresh, "".join(f"{a}\n" for a in plan))
    assert report.valid and {a.name for a in plan} == {"bump", "blow"}
    assert not [a for a in fresh._actions.values() if "precondition" in a.__dict__]


def test_plain_words_read_a_line_as_the_simple_line_pattern_does() -> None:
    # plan_reader.plain_words replaced this pattern's match on a plan's lines: the same answer for every line
    # of characters the pattern decides on (Unicode spaces, brackets, comments, stray parentheses).
    import re

    from toolkit.plan_reader import plain_words

    SIMPLE_LINE = re.compile(r"\s*\(\s*([^()\s;\[\]]+)((?:\s+[^()\s;\[\]]+)*)\s*\)\s*$")

    rng = random.Random(7)
    alphabet = ["(", ")", "[", "]", ";", " ", "\t", "\u00a0", "\u2003", "\x0b", "a", "b", "-", "1", "?", "é"]
    lines = ["(a b)", " ( a  b ) ", "()", "( )", "(a (b))", "(a b) ;", "(a)\u00a0", "a b", "(a b", "a b)"]
    lines += ["".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 12))) for _ in range(20000)]
    lines += [f"({''.join(rng.choice(alphabet[5:]) for _ in range(rng.randrange(1, 10)))})" for _ in range(20000)]
    for line in lines:
        mt = SIMPLE_LINE.match(line)
        want = None if mt is None else [mt.group(1), *mt.group(2).split()]
        assert plain_words(line.strip()) == want, repr(line)


@pytest.mark.parametrize("pair", [next(p for p in SHIPPED if p[0].parent.name == "gripper"),
                                  (DATA / "numeric" / "domain.pddl", DATA / "numeric" / "problem.pddl")],
                         ids=["gripper", "numeric"])
def test_a_deferred_ground_action_pickles_built_and_steps_as_a_built_one(pair: tuple[Path, Path]) -> None:
    # Studies ship ground actions to worker processes: a deferred one is pickled with its parts built and
    # without its maker or step function (they hold the task's tables and generated code).
    import pickle

    domain = loader.load_domain(pair[0])
    task = Task(domain, loader.load_problem(pair[1], domain))
    plan = random_walk(task, random.Random(3), 10)
    fresh = Task(domain, task.problem)
    for built in plan:
        act = fresh.action(built.name, built.args)
        assert act.tier is not None or act.name == "halve-all"
        copy = pickle.loads(pickle.dumps(act))
        assert "maker" not in copy.__dict__ and copy.tier is None
        assert copy.precondition == built.precondition and copy.updates == built.updates
        assert copy.ground_effect.adds == built.ground_effect.adds and copy.ground_effect.dels == built.ground_effect.dels
        state = task.init
        assert copy.apply_checked(state)[0] == built.apply_checked(state)[0]


def test_a_declined_whole_step_is_not_tried_twice(tmp_path: Path) -> None:
    # verify steps a numeric action's whole-step code itself; where that code declines (here: (rate) has no
    # value, so (assign (rate) (- (rate) 0.25)) cannot be computed), it goes on with Stepper.advance_values,
    # the one path past that code, which Stepper.advance takes too: the code runs once per step, not twice.
    import test_core_fluent_code as gadgets

    (tmp_path / "d.pddl").write_text(gadgets.GADGETS)
    (tmp_path / "p.pddl").write_text(gadgets.GADGETS_PROBLEM)
    domain = loader.load_domain(tmp_path / "d.pddl")
    task = Task(domain, loader.load_problem(tmp_path / "p.pddl", domain))
    act = task.instantiate("toggle", ("b1",))  # built: no step function, its own whole-step code
    calls = []
    own = act.step_in_place

    def counted(state, record) -> bool:
        calls.append(1)
        return own(state, record)

    act.__dict__["step_in_place"] = counted
    init = FluentState(task.init, {k: v for k, v in task.init.values.items() if k.predicate != "rate"})
    report = check_plan(task, [act], init=init)
    assert report.failed_step == 1 and "cannot apply its effect" in report.message, report.message
    assert len(calls) == 1


def _numbers_task(tmp_path: Path) -> tuple:
    """The NUMBERS domain and problem read from files, and a task of them."""
    (tmp_path / "d.pddl").write_text(NUMBERS)
    (tmp_path / "p.pddl").write_text(NUMBERS_PROBLEM)
    domain = loader.load_domain(tmp_path / "d.pddl")
    problem = loader.load_problem(tmp_path / "p.pddl", domain)
    return domain, problem, Task(domain, problem)


def test_an_action_a_plan_names_often_is_built_before_its_run(tmp_path: Path) -> None:
    # verify counts a deferred action's uses of its schema's step function once per distinct action, before each
    # run (_count_uses): one whose count reaches BIND_AFTER, with the plans before, is built and steps on its own.
    from toolkit.verify import BIND_AFTER

    domain, problem, task = _numbers_task(tmp_path)
    act = task.action("bump", ("a",))
    first = check_plan(task, "(bump a)\n" * (BIND_AFTER - 1))
    assert first.valid and act.uses == BIND_AFTER - 1 and act.tier is not None and "precondition" not in act.__dict__
    again = check_plan(task, "(bump b)\n(bump a)\n")
    assert again.failed_step == 3 and "6 <= 100" in again.message and act.tier is None and "precondition" in act.__dict__
    assert task.action("bump", ("b",)).tier is not None
    at_once = Task(domain, problem)
    report = check_plan(at_once, "(bump a)\n" * BIND_AFTER)
    assert report.valid and at_once.action("bump", ("a",)).tier is None and report.cost == BIND_AFTER
    assert [s.state_after for s in report.steps] == [s.state_after for s in check_plan(
        Task(domain, problem), ["(bump a)"] * BIND_AFTER).steps]


def test_the_step_functions_keep_the_numbers_of_the_fluents_they_read(tmp_path: Path) -> None:
    # A step function reads a fluent with parameters by its number, kept per task and function by the
    # arguments (ActionMaker.numbers, shared by the schemas' functions): found through the atom once, then read
    # there (a poisoned entry is what the step reads: the test that it is read at all).
    from toolkit.model import Atom

    domain, problem, task = _numbers_task(tmp_path)
    ids = task.fluent_index.ids
    report = check_plan(task, "(bump a)\n(blow b)\n(bump a)\n")
    assert report.valid and not [a for a in task._actions.values() if "precondition" in a.__dict__]
    assert task._maker.numbers == {"v": {("a",): ids[Atom("v", ("a",))], ("b",): ids[Atom("v", ("b",))]}}
    task._maker.numbers["v"][("b",)] = ids[Atom("v", ("a",))]
    poisoned = check_plan(task, "(bump b)\n")
    bumped_a = check_plan(Task(domain, problem), "(bump a)\n").final_state.values
    assert dict(poisoned.final_state.values) == dict(bumped_a) != dict(task.init.values)


def test_a_step_that_deletes_and_adds_one_atom_keeps_it(tmp_path: Path, monkeypatch) -> None:
    # PDDL deletes, then adds: (move a a) deletes (at a) and adds it back, so it stays. The step function changes
    # the atoms in place, one by one, where no record is kept (Stepper.took): it must not drop such an atom, and
    # must leave the state the own path leaves.
    (tmp_path / "d.pddl").write_text("""(define (domain walk) (:requirements :typing) (:types place)
     (:predicates (at ?p - place) (seen ?p - place))
     (:action move :parameters (?from ?to - place) :precondition (at ?from)
      :effect (and (not (at ?from)) (not (seen ?from)) (at ?to) (seen ?to))))""")
    (tmp_path / "p.pddl").write_text("""(define (problem p) (:domain walk) (:objects a b - place)
     (:init (at a) (seen a)) (:goal (and (at b) (seen b) (not (seen a)))))""")
    domain = loader.load_domain(tmp_path / "d.pddl")
    problem = loader.load_problem(tmp_path / "p.pddl", domain)
    text = "(move a a)\n(move a b)\n(move b b)\n"
    fresh = Task(domain, problem)
    report = check_plan(fresh, text)
    assert report.valid and report.end.records == [None] * 3  # taken by the step function, without records
    with monkeypatch.context() as patch:
        _own_path(patch)
        own = check_plan(Task(domain, problem), text)
    assert _facts(report) == _facts(own)
