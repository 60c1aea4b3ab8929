"""The protocols named after ViPlan follow ViPlan's code rule by rule (github.com/merlerm/ViPlan,
viplan/experiments/benchmark_{blocksworld,igibson}_{plan,vila}.py). Each test pins one rule with a
scripted grounder or proposer; each fails on the paper-described loop pgt ran before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Sequence

import pytest

from toolkit.agents.planner_prompts import build_prompt
from toolkit.agents.viplan import ViPlanGrounderConfig, run_viplan_grounder
from toolkit.agents.viplan_atoms import effect_expectations, precondition_expectations
from toolkit.agents.viplan_goals import goal_text_viplan, privileged_text
from toolkit.agents.vlm_planner import ViPlanPlannerConfig, parse_json_output, run_viplan_planner
from toolkit.domains import shipped_domain, shipped_problem
from toolkit.model import Atom
from toolkit.planners import get_planner
from toolkit.protocols import Answer, Observation, PlannerPrompt, Proposal, Verdict
from toolkit.simulator import SymbolicEnvironment
from toolkit.task import Task, load_task
from scene_graphs.registry import make_world

BW = "blocksworld"


class StateGrounder:
    """Answers every question from a fixed state of its own (a grounder that is consistently wrong)."""

    name = "state"

    def __init__(self, state: frozenset[Atom] | None = None,
                 verdict: Callable[[Atom, Observation], Verdict] | None = None) -> None:
        self.state, self.verdict, self.asked = state, verdict, []

    def ask(self, observation: Observation, atoms: Sequence[Atom]) -> list[Answer]:
        out = []
        for atom in atoms:
            self.asked.append(atom)
            if self.verdict is not None:
                v = self.verdict(atom, observation)
            else:
                v = Verdict.YES if atom in (self.state if self.state is not None else observation.truth) else Verdict.NO
            out.append(Answer(atom, v, 1.0, "", "", "ok" if v is not Verdict.UNKNOWN else "unparseable"))
        return out


def bw_task(name: str = "simple_problem_1") -> Task:
    return load_task(shipped_domain(BW), shipped_problem(BW, name))


def test_every_attempt_counts_and_no_early_stop_on_a_believed_goal() -> None:
    task = bw_task()
    result = run_viplan_grounder(SymbolicEnvironment(task), StateGrounder(), get_planner("auto"), ViPlanGrounderConfig())
    assert result.success and result.stop_reason == "plan_exhausted"
    universe = len(task.all_atoms())  # enumeration asks every type-correct atom, (on r r) included
    assert sum(e["phase"] == "enumerate" for e in result.ledger.events) == universe
    assert any(e["phase"] == "enumerate" and e["atom"] == "(on r r)" for e in result.ledger.events)


def test_an_illegal_action_repeated_ends_the_episode_as_a_loop() -> None:
    task = bw_task()
    # the grounder believes the problem file; in the world the first block to move is not clear, so the
    # world refuses the action, the replan from the same answers proposes it again, and ViPlan stops
    first = get_planner("auto").solve(task).plan[0]
    result = run_viplan_grounder(_BlockedEnv(task, first.args[0]), StateGrounder(task.init), get_planner("auto"),
                                 ViPlanGrounderConfig())
    assert result.stop_reason == "loop"
    assert result.actions == 2  # the refused attempt and its repeat
    assert result.replans == 1


class _BlockedEnv(SymbolicEnvironment):
    """A world where ``block`` is not clear (unlike the problem file the grounder believes)."""

    def __init__(self, task: Task, block: str) -> None:
        super().__init__(task)
        self.block = block

    def reset(self, seed: int | None = None) -> Observation:
        obs = super().reset(seed)
        self._state = frozenset(a for a in self._state if a != Atom("clear", (self.block,)))
        return self.observe()


def test_precondition_rejections_count_against_the_cap() -> None:
    task = bw_task("simple_problem_1")
    # a grounder that denies every precondition: no action ever runs, each attempt still counts
    def deny(atom: Atom, obs: Observation) -> Verdict:
        return Verdict.NO if atom.predicate == "clear" else (Verdict.YES if atom in obs.truth else Verdict.NO)
    result = run_viplan_grounder(SymbolicEnvironment(task), StateGrounder(verdict=deny), get_planner("auto"),
                                 ViPlanGrounderConfig(max_steps=5))
    assert result.stop_reason in ("no_plan", "step_cap")
    acts = [e for e in result.ledger.events if e["phase"] == "act"]
    assert all(e.get("outcome") == "preconditions" for e in acts)
    assert result.actions == len(acts)


def test_an_answer_that_is_not_yes_or_no_ends_the_episode() -> None:
    task = bw_task()
    def odd(atom: Atom, obs: Observation) -> Verdict:
        return Verdict.UNKNOWN if atom.predicate == "leftOf" else (Verdict.YES if atom in obs.truth else Verdict.NO)
    result = run_viplan_grounder(SymbolicEnvironment(task), StateGrounder(verdict=odd), get_planner("auto"))
    assert result.stop_reason == "bad_answer" and result.actions == 0 and not result.success


def test_household_starts_from_the_true_state_and_hides_nothing_it_asks() -> None:
    task = load_task(shipped_domain("household"), shipped_problem("household", "cleaning_out_drawers_0"))
    world = make_world(task, seed=1)
    grounder = StateGrounder()
    result = run_viplan_grounder(world, grounder, get_planner("auto"), ViPlanGrounderConfig(max_steps=10))
    phases = [e["phase"] for e in result.ledger.events if "atom" in e]
    assert phases and phases[0] == "precondition"  # no enumeration of the initial state
    assert result.enumerations == 0


def test_precondition_walk_skips_bound_objects_and_disjunctions() -> None:
    task = load_task(shipped_domain("household"), shipped_problem("household", "cleaning_out_drawers_0"))
    grasp = next(a for a in task.reachable_actions() if a.name == "grasp")
    asked = precondition_expectations(task, grasp)
    held = [a for a, v in asked if a.predicate == "holding"]
    assert grasp.args[0] not in {a.args[0] for a in held}  # ViPlan skips values already bound
    assert all(v is False for a, v in asked if a.predicate == "holding")
    navigate = next(a for a in task.reachable_actions() if a.name == "navigate-to")
    assert not any(a.predicate in ("inside", "open") for a, _ in precondition_expectations(task, navigate))


def test_effect_questions_are_the_fired_literals_in_the_true_prior_state() -> None:
    task = bw_task()
    action = get_planner("auto").solve(task).plan[0]
    expected = dict(effect_expectations(action, task.init))
    block, column = action.args
    assert expected[Atom("inColumn", (block, column))] is True and expected[Atom("clear", (block,))] is True
    old = next(a.args[1] for a in task.init if a.predicate == "inColumn" and a.args[0] == block)
    assert expected[Atom("inColumn", (block, old))] is False


def test_step_caps_by_protocol_and_split() -> None:
    from benchmarks.suites import resolve_suite

    bw = {s.name: (s.max_steps, s.planner_max_steps) for s in resolve_suite("viplan-bw")}
    hh = {s.name: (s.max_steps, s.planner_max_steps) for s in resolve_suite("viplan-hh")}
    assert bw == {"simple": (20, 10), "medium": (20, 20), "hard": (20, 30)}
    assert hh == {"simple": (10, 10), "medium": (20, 20), "hard": (30, 30)}


def test_a_copy_of_viplans_folder_layout_runs_without_flags(tmp_path: Path) -> None:
    from benchmarks.suites import resolve_suite

    hard = tmp_path / "blocksworld" / "problems" / "hard"
    hard.mkdir(parents=True)
    (tmp_path / "blocksworld" / "domain.pddl").write_text(shipped_domain(BW).read_text())
    text = shipped_problem(BW, "simple_problem_1").read_text()
    (hard / "p.pddl").write_text(text.replace("(:objects", "(:objects").upper().replace("(DEFINE", "(define"))
    split, = resolve_suite(str(hard))
    assert (split.max_steps, split.planner_max_steps) == (20, 30)
    task = load_task(split.domain, split.problems[0])
    from toolkit.questions import QuestionBook

    book = QuestionBook(task)  # ViPlan writes R, G, C1: display names match whatever the case
    atom = next(a for a in task.init if a.predicate.lower() == "incolumn")
    assert "block" in book.question(atom) and '"c' in book.question(atom)


# ------------------------------------------------------------------ the planner protocol


class Script:
    name = "script"

    def __init__(self, replies: list[str]) -> None:
        self.replies, self.prompts = list(replies), []

    def propose(self, observation: Observation, prompt: PlannerPrompt) -> Proposal:
        self.prompts.append(prompt)
        return Proposal(self.replies.pop(0) if self.replies else '{"plan": []}')


def test_planner_stops_on_unparseable_json_and_on_an_empty_plan() -> None:
    task = bw_task()
    result = run_viplan_planner(SymbolicEnvironment(task), Script(["No plan possible: the red block is stuck."]))
    assert result.stop_reason == "invalid_json" and result.actions == 0
    result = run_viplan_planner(SymbolicEnvironment(task), Script(['{"plan": []}']))
    assert result.stop_reason == "empty_plan" and result.actions == 1
    # a plan without "plan": get_plan_action's KeyError records None, applying it records 'unknown action'
    result = run_viplan_planner(SymbolicEnvironment(task), Script(['{"steps": []}']))
    assert result.stop_reason == "empty_plan" and result.actions == 2


def test_planner_history_is_viplans_json_and_names_are_exact() -> None:
    task = bw_task()
    block = sorted(task.objects_of(("block",)))[0].lower()
    replies = [json.dumps({"plan": [{"action": "moveBlock", "parameters": {"block": block, "column": "c1"}}]}),
               json.dumps({"plan": [{"action": "moveblock", "parameters": {"block": "purple", "column": "c1"}}]}),
               json.dumps({"plan": [{"action": "moveblock", "parameters": {"block": block, "column": "c9"}}]})]
    script = Script(replies)
    run_viplan_planner(SymbolicEnvironment(task), script, ViPlanPlannerConfig(max_steps=3))
    history = script.prompts[-1].user.split("## Previously taken actions\n")[1].split("\n\n")[0]
    # ViPlan-BW records every action it cannot build as one that does not exist (its outer except leaves
    # `action` None, and the failsafe tests `action is None` first); only a legal-or-not action gets parameters
    assert json.loads(history) == [
        {"action": "moveBlock", "outcome": "action does not exist"},
        {"action": "moveblock", "outcome": "action does not exist"}]


def test_goal_and_prompt_in_viplans_words() -> None:
    task = bw_task("simple_problem_1")
    goal = goal_text_viplan(task)
    assert goal.startswith("The ") and "needs to be in the column with label 'c" in goal and goal.endswith(". \n")
    prompt = build_prompt(task, goal, "[]")
    assert prompt.system.startswith("You are an expert planning assistant.")
    assert '"parameters": {\n            parameter_name: parameter_value\n        }' in prompt.system
    assert prompt.user.endswith("## Current environment state")
    hh = load_task(shipped_domain("household"), shipped_problem("household", "cleaning_out_drawers_0"))
    info = privileged_text(hh, hh.init)
    text = build_prompt(hh, goal_text_viplan(hh), "[]", privileged=info).user
    assert ("## Additional information" in text) == bool(info)
    assert "['parameter1', 'parameter2', ...]" in build_prompt(hh, "g", "[]").system


@pytest.mark.parametrize("text,value", [('x {"plan": []} y', {"plan": []}), ('{"a": {"b": 1}} tail }', None)])
def test_json_is_cut_from_the_first_to_the_last_brace(text: str, value: object) -> None:
    if value is None:
        with pytest.raises(json.JSONDecodeError):
            parse_json_output(text)
    else:
        assert parse_json_output(text) == value


def test_known_facts_are_read_not_asked_off_viplans_domains() -> None:
    from benchmarks.study_config import RunConfig, asks_static
    from toolkit.known_facts import known_facts

    task = load_task(shipped_domain("logistics"), sorted((shipped_domain("logistics").parent / "problems").glob("*.pddl"))[0])
    known = known_facts(task)
    assert known.predicates  # in-city, the types of an untyped logistics, ...
    result = run_viplan_grounder(SymbolicEnvironment(task), StateGrounder(), get_planner("auto"),
                                 ViPlanGrounderConfig(max_steps=40, known=known))
    asked = {e["atom"].strip("(").split()[0] for e in result.ledger.events if "atom" in e}
    assert result.success and not asked & set(known.predicates)
    assert asks_static(RunConfig(suite="viplan-bw"), bw_task())  # ViPlan's own domain: every atom, as its code
    assert not asks_static(RunConfig(suite="x", domain="logistics"), task)
