"""pgt-grounder recovers from wrong survey answers that invariant groups would otherwise lock in.

Both cases were found on IPC domains (benchmarks/bench_own_domains.py at accuracy 0.97);
the domains here are small ones written for these tests, and the grounder is scripted:
truthful, except that the first look at each named atom gets the wrong answer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from benchmarks.episode import make_planner
from toolkit.agents.belief_agent import BeliefAgentConfig, run_belief_agent
from toolkit.model import Atom
from toolkit.protocols import Answer, Observation, Verdict
from toolkit.simulator import SymbolicEnvironment
from toolkit.task import load_task

DATA = Path(__file__).parent / "data" / "own"


class FirstLookWrong:
    """Answers right at confidence 0.97, except the first question about each atom in ``wrong``."""

    name = "first-look-wrong"

    def __init__(self, wrong: Sequence[str]) -> None:
        self.wrong, self.seen = set(wrong), set()

    def ask(self, observation: Observation, atoms: Sequence[Atom],
            questions: Sequence[str] | None = None) -> list[Answer]:
        out = []
        for i, atom in enumerate(atoms):
            flip = str(atom) in self.wrong and str(atom) not in self.seen
            self.seen.add(str(atom))
            yes = (atom in observation.truth) != flip
            out.append(Answer(atom, Verdict.YES if yes else Verdict.NO, 0.97, "scripted",
                              questions[i] if questions else str(atom)))
        return out


def _run(domain: str, problem: str, wrong: Sequence[str]):
    task = load_task(DATA / domain, DATA / problem)
    return run_belief_agent(SymbolicEnvironment(task), FirstLookWrong(wrong), make_planner("default"),
                            BeliefAgentConfig(max_steps=30))


def test_a_goal_atom_two_groups_pull_apart_is_asked_before_stopping() -> None:
    # d2 is on peg1; the survey says "not on peg1" and "on peg3", while peg3 is (rightly) clear: the peg3
    # group and d2's own place group disagree, no question about them looked informative, and the old agent
    # stopped at once believing the goal (on d2 peg3) held
    result = _run("towers.pddl", "towers-2.pddl", ["(on d2 peg1)", "(on d2 peg3)"])
    assert result.success and result.stop_reason == "goal_believed" and result.actions > 0


def test_no_plan_re_asks_what_a_false_group_made_certain_and_derives_the_groups_again() -> None:
    # "truck1 is empty: no" makes "exactly one of every empty and driving atom" hold in the answers (only
    # truck2 is empty); the group then held the wrong answer certain and no plan was ever found
    result = _run("shuttles.pddl", "shuttles-1.pddl", ["(empty truck1)"])
    assert result.success and result.stop_reason == "goal_believed"
    asked_again = [e for e in result.ledger.events if e.get("phase") == "second_opinion"
                   and e.get("atom") == "(empty truck1)"]
    assert asked_again and asked_again[-1]["answer"] == "yes"
