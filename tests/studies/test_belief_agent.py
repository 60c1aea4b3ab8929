"""The pgt-grounder protocol: belief, invariant checks, targeted questions, failure recovery."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.episode import make_planner
from grounders.calibration import ErrorModel
from grounders.noisy import NoisyOracle
from grounders.oracle import Oracle
from toolkit.agents.belief_agent import BeliefAgentConfig, run_belief_agent
from toolkit.agents.belief_scope import relevant_atoms
from toolkit.agents.evidence import EvidenceBelief
from toolkit.agents.viplan import ViPlanGrounderConfig, run_viplan_grounder
from toolkit.domains import shipped_domain
from toolkit.invariants import Group, Pattern, Member
from toolkit.model import Atom
from toolkit.simulator import SymbolicEnvironment
from toolkit.task import load_task

SUITES = Path(__file__).resolve().parents[2] / "benchmarks" / "suites"


def bw(split: str, i: int):
    return load_task(shipped_domain("blocksworld"), SUITES / "viplan-bw" / split / f"{split}_{i}.pddl")


def test_relevant_atoms_skip_predicates_no_decision_reads():
    preds = {a.predicate for a in relevant_atoms(bw("hard", 0))}
    assert preds == {"on", "inColumn", "clear"}  # leftOf/rightOf appear in no precondition, condition or goal


def group(kind_exactly: bool, *names: str) -> Group:
    atoms = frozenset(Atom("p", (n,)) for n in names)
    return Group(Pattern((Member("p", (), 1),), kind_exactly), (), atoms)


def test_two_yes_answers_in_an_exactly_one_group_make_both_uncertain():
    a, b, c = (Atom("p", (n,)) for n in "abc")
    belief = EvidenceBelief([a, b, c], [group(True, "a", "b", "c")])
    belief.observe(a, True, 0.97)
    assert 0.9 < belief.confidence(a) < 0.95  # b and c unasked: maybe one of them
    belief.observe(c, False, 0.97)
    assert belief.confidence(a) > 0.96
    belief.observe(b, True, 0.97)
    assert abs(belief.prob(a) - 0.5) < 0.01 and abs(belief.prob(b) - 0.5) < 0.01
    belief.observe(b, False, 0.97)  # the re-ask settles it
    assert belief.prob(a) > 0.96 and belief.state() == {a}  # b is back to "no evidence"


def test_all_no_in_an_exactly_one_group_still_picks_one_and_stays_unsure():
    atoms = [Atom("p", (n,)) for n in "abc"]
    belief = EvidenceBelief(atoms, [group(True, "a", "b", "c")])
    for x in atoms:
        belief.observe(x, False, 0.97)
    assert len(belief.state()) == 1 and all(belief.confidence(x) < 0.9 for x in atoms)
    amo = EvidenceBelief(atoms, [group(False, "a", "b", "c")])
    for x in atoms:
        amo.observe(x, False, 0.97)
    assert amo.state() == frozenset() and all(amo.confidence(x) > 0.9 for x in atoms)


def test_an_oracle_episode_succeeds_with_fewer_questions_than_viplan():
    planner = make_planner("default")
    for i in range(3):
        task = bw("hard", i)
        ours = run_belief_agent(SymbolicEnvironment(task), Oracle(), planner, BeliefAgentConfig(max_steps=20))
        theirs = run_viplan_grounder(SymbolicEnvironment(task), Oracle(), planner, ViPlanGrounderConfig(max_steps=20))
        assert ours.success and ours.stop_reason == "goal_believed"
        assert ours.ledger.questions < theirs.ledger.questions / 2


def _noisy_comparison(problems: list[int]) -> tuple[int, int, int, int, set[str]]:
    """Successes and questions of both protocols on hard problems, answers from a seeded 0.95 noisy oracle,
    and how the ViPlan episodes ended."""
    planner = make_planner("default")
    ours_ok = theirs_ok = ours_q = theirs_q = 0
    ends: set[str] = set()
    for i in problems:
        task = bw("hard", i)
        noisy = lambda: NoisyOracle(ErrorModel.uniform(0.95), seed=i)  # noqa: E731
        ours = run_belief_agent(SymbolicEnvironment(task), noisy(), planner, BeliefAgentConfig(max_steps=20))
        theirs = run_viplan_grounder(SymbolicEnvironment(task), noisy(), planner, ViPlanGrounderConfig(max_steps=20))
        ours_ok += ours.success
        theirs_ok += theirs.success
        ours_q += ours.ledger.questions
        theirs_q += theirs.ledger.questions
        ends.add(theirs.stop_reason)
    return ours_ok, theirs_ok, ours_q, theirs_q, ends


def test_noisy_answers_beat_the_viplan_protocol_on_three_hard_problems():
    """The comparison below on three of its problems. They reach both ways a ViPlan episode ends under wrong
    answers (hard_3: ``no_plan``, its believed state has no plan; hard_6 and hard_7: ``plan_exhausted``) and
    take 3 s; the other five end ``no_plan`` too, after searching a believed state's whole space (8 s each,
    toolkit/planners/search.py), and run with the eight under --runslow."""
    ours_ok, theirs_ok, ours_q, theirs_q, ends = _noisy_comparison([3, 6, 7])
    assert ends == {"no_plan", "plan_exhausted"}
    assert ours_ok == 3 and ours_ok > theirs_ok
    assert ours_q < theirs_q / 2


@pytest.mark.slow
def test_noisy_answers_beat_the_viplan_protocol_on_hard_problems():
    """Deterministic (seeded) comparison on eight hard problems at accuracy 0.95 (90 s on 2 busy cores)."""
    ours_ok, theirs_ok, ours_q, theirs_q, _ = _noisy_comparison(list(range(8)))
    assert ours_ok >= 6 and ours_ok > theirs_ok
    assert ours_q < theirs_q / 2


def test_a_failed_action_is_detected_without_questions_when_the_picture_did_not_change():
    task = bw("hard", 1)
    env = SymbolicEnvironment(task, failure_prob=0.3, seed=3)
    result = run_belief_agent(env, Oracle(), make_planner("default"), BeliefAgentConfig(max_steps=20), seed=3)
    events = result.ledger.events
    failed = [e for e in events if e.get("phase") == "act" and e.get("failure")]
    assert failed, "the seed should make at least one action fail"
    checks = [e for e in events if e.get("phase") == "effect_check"]
    assert sum(e["p_success"] < 0.5 for e in checks) == len(failed)  # each failure noticed, no false alarm
    assert all(e.get("picture") == "unchanged" for e in checks if e["p_success"] < 0.5)  # silent failures
    assert not [e for e in events if e.get("phase") in ("effect", "recheck") and e["step"] in
                {f["step"] for f in failed}]  # an unchanged picture needs no question about the effects
    assert result.success


@pytest.mark.parametrize("split", ["simple", "hard"])
def test_household_episodes_succeed_with_an_oracle(split: str):
    from scene_graphs.registry import make_world

    folder = SUITES / "viplan-hh" / split
    task = load_task(shipped_domain("household"), sorted(folder.glob("*.pddl"))[0])
    result = run_belief_agent(make_world(task), Oracle(), make_planner("default"), BeliefAgentConfig(max_steps=30))
    assert result.success


def test_household_oracle_episodes_survive_actions_with_disjunctive_preconditions():
    """``navigate-to`` needs ``(or (not (inside o c)) (open c))`` per container: running it proves no
    container open. Counting each disjunct as held once made the agent believe a closed drawer open
    and retry ``(navigate-to cup_1)`` on the same belief until the step limit, with every answer right."""
    from scene_graphs.registry import make_world

    planner = make_planner("default")
    folder = SUITES / "viplan-hh" / "medium"
    for path in sorted(folder.glob("medium_cleaning_out_drawers_*.pddl")):
        task = load_task(shipped_domain("household"), path)
        result = run_belief_agent(make_world(task), Oracle(), planner, BeliefAgentConfig(max_steps=20))
        assert result.success, (path.name, result.stop_reason)


def test_an_action_that_did_nothing_reopens_its_disjunctive_precondition():
    from toolkit.agents.base import disjunctive_atoms, required_literals

    task = load_task(shipped_domain("household"), SUITES / "viplan-hh" / "medium" / "medium_cleaning_out_drawers_1.pddl")
    action = next(a for a in task.reachable_actions() if a.name == "navigate-to" and a.args == ("cup_1",))
    required = {str(a) for a, _ in required_literals(action)}
    assert required == {"(reachable cup_1)"}  # the one literal it needs whatever else holds
    assert any(a.predicate == "open" for a in disjunctive_atoms(action))


class _OptimalTimesOut:
    """An optimal planner that never finishes in time (Fast Downward's A* on a childsnack task)."""

    name, optimal, unknown_as = "slow-opt", True, False

    def solve(self, task, *, init=None, goal=None, timeout=60.0):
        from toolkit.planners import PlanResult, PlanStatus

        return PlanResult(PlanStatus.TIMEOUT, (), timeout, self.name, f"no plan within {timeout:g}s")


def test_auto_sat_lets_pgt_grounder_act_when_optimal_search_runs_out_of_time():
    """With an optimal planner only, the agent stops with no plan; with the fallback it reaches the goal,
    and each plan note names the planner that made it (the plan is not proven optimal)."""
    from toolkit.planners import AutoPlanner, get_planner
    from toolkit.planners.fallback import FallbackPlanner
    from toolkit.planners.search import AStarPlanner

    task = bw("simple", 1)
    stuck = run_belief_agent(SymbolicEnvironment(task), Oracle(), _OptimalTimesOut(), BeliefAgentConfig(max_steps=20))
    assert not stuck.success and stuck.stop_reason == "no_plan:timeout"
    fallback = FallbackPlanner(_OptimalTimesOut(), AStarPlanner())
    result = run_belief_agent(SymbolicEnvironment(task), Oracle(), fallback, BeliefAgentConfig(max_steps=20))
    assert result.success
    plans = [e for e in result.ledger.events if e.get("phase") == "plan" and "plan" in e]
    assert plans and all(e["planner"] == "slow-opt, fallback astar" for e in plans)
    # the registry's auto-sat is auto then fd-lama, and a study counts auto's A* in CPU seconds as for auto
    made = get_planner("auto-sat")
    assert isinstance(made, FallbackPlanner) and isinstance(made.primary, AutoPlanner)
    assert made.secondary.name == "fd-lama" and not made.optimal
    assert make_planner("auto-sat").primary.own.cpu_time


def test_a_world_that_declares_no_failures_needs_no_effect_questions_after_a_changed_picture():
    """A changed picture in a world whose actions never fail (its declared ``failure_prob`` 0) proves
    the prediction: the effect check asks nothing. Told that actions may do something else, it asks."""
    from scene_graphs.registry import make_world

    planner = make_planner("default")
    task = bw("hard", 2)

    def effect_questions(config: BeliefAgentConfig) -> tuple[bool, int, int]:
        env = make_world(task, failure_prob=0.0, seed=1)
        result = run_belief_agent(env, NoisyOracle(ErrorModel.uniform(0.97), seed=1), planner, config, seed=1)
        events = result.ledger.events
        return (result.success, sum(e.get("phase") == "effect" for e in events),
                sum(e.get("phase") == "effect_check" for e in events))

    ok, asked, checks = effect_questions(BeliefAgentConfig(max_steps=20))
    assert ok and checks > 0 and asked == 0
    ok, asked, checks = effect_questions(BeliefAgentConfig(max_steps=20, action_failure=0.05))
    assert ok and asked >= checks  # at least one question per action that ran
