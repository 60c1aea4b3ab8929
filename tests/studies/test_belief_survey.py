"""pgt-grounder's first look: grouped atoms asked by information, gaps asked where a plan breaks."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from benchmarks.runner import make_planner
from grounders.oracle import Oracle
from toolkit.agents.belief_agent import BeliefAgentConfig, run_belief_agent
from toolkit.agents.belief_scope import relevant_atoms
from toolkit.domains import shipped_domain
from toolkit.model import Atom
from toolkit.protocols import Answer, Observation, Verdict
from toolkit.simulator import SymbolicEnvironment
from toolkit.task import load_task

SUITES = Path(__file__).resolve().parents[2] / "benchmarks" / "suites"


def bw(split: str, i: int):
    return load_task(shipped_domain("blocksworld"), SUITES / "viplan-bw" / split / f"{split}_{i}.pddl")


def survey_atoms(events: list[dict]) -> list[str]:
    return [e["atom"] for e in events if e.get("phase") == "survey"]


def test_the_survey_leaves_to_the_invariant_groups_what_one_answer_decides():
    """A block's column: one "yes" says it is in no other, so most of a hard problem's atoms go unasked."""
    task = bw("hard", 0)
    result = run_belief_agent(SymbolicEnvironment(task), Oracle(), make_planner("default"),
                              BeliefAgentConfig(max_steps=20))
    asked = survey_atoms(result.ledger.events)
    assert len(asked) == len(set(asked))  # a perfect grounder needs no second wording
    assert len(asked) < 0.8 * len(relevant_atoms(task))  # the old survey asked all 60 (now 45)
    assert result.success and result.stop_reason == "goal_believed"


class WrongOnce:
    """An oracle that answers "yes" the first time it is asked about ``atom`` (one wrong survey answer)."""

    name = "wrong-once"

    def __init__(self, atom: Atom) -> None:
        self.atom, self.inner, self.fooled = atom, Oracle(), False

    def ask(self, observation: Observation, atoms: Sequence[Atom]) -> list[Answer]:
        out = self.inner.ask(observation, atoms)
        for i, ans in enumerate(out):
            if ans.atom == self.atom and not self.fooled:
                self.fooled = True
                out[i] = Answer(ans.atom, Verdict.YES, 0.99, "scripted", ans.question)
        return out


def test_a_wrong_survey_yes_is_found_where_the_plan_breaks():
    """One wrong column "yes" at confidence 0.99 makes the group hold the true column 0.99 false unasked.

    The plan that moves the block breaks (a false precondition, or a move that does
    nothing); the atoms the survey left to the groups about the action's arguments
    are then asked (phase ``survey_gap``), which finds the true column. Each block of a
    medium problem is given a wrong column in turn; where the survey asked the true
    column anyway (a witness group) there is nothing to find.
    """
    task = bw("medium", 1)
    found = 0
    for block in sorted(a for a in task.init if a.predicate == "inColumn"):
        wrong = next(a for a in task.reachable_atoms("inColumn") if a.args[0] == block.args[0] and a not in task.init)
        result = run_belief_agent(SymbolicEnvironment(task), WrongOnce(wrong), make_planner("default"),
                                  BeliefAgentConfig(max_steps=20))
        assert result.success
        events = result.ledger.events
        surveyed = set(survey_atoms(events))
        if str(wrong) not in surveyed or str(block) in surveyed:
            continue
        rechecked = {e["atom"] for e in events if e.get("phase") == "survey_gap"}
        assert str(block) in rechecked  # the survey's gap about the block was asked once its plan broke
        found += 1
    assert found
