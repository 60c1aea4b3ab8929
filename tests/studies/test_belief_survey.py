"""pgt-grounder's first look: grouped atoms asked by information, gaps asked where a plan breaks."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from benchmarks.episode import make_planner
from grounders.oracle import Oracle
from toolkit.agents.belief_agent import BeliefAgentConfig, run_belief_agent
from toolkit.agents.belief_scope import relevant_atoms
from toolkit.agents.belief_survey import candidates, decide_lone_atoms
from toolkit.domains import shipped_domain
from toolkit.invariants import find_patterns
from toolkit.model import Atom
from toolkit.protocols import Answer, Observation, Verdict
from toolkit.simulator import SymbolicEnvironment
from toolkit.task import load_task

COVERED = "exactly one of {(clear ?g0), (on * ?g0)}"
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


class Recording:
    """A grounder that answers as ``inner`` and keeps the atoms of each batch it was asked."""

    name = "recording"

    def __init__(self, inner) -> None:
        self.inner, self.batches = inner, []

    def ask(self, observation: Observation, atoms: Sequence[Atom]) -> list[Answer]:
        self.batches.append({str(a) for a in atoms})
        return self.inner.ask(observation, atoms)


def one_disc_hanoi():
    from tests.core.test_core_invariants import hanoi_task

    return hanoi_task()


def first_look(task, grounder) -> tuple[list[set[str]], list]:
    """The survey's batches (survey questions only) and the episode's events."""
    rec = Recording(grounder)
    result = run_belief_agent(SymbolicEnvironment(task), rec, make_planner("default"), BeliefAgentConfig(max_steps=10))
    assert result.success
    surveyed = set(survey_atoms(result.ledger.events))
    return [b for b in rec.batches if b <= surveyed], result.ledger.events


def test_a_second_witness_is_asked_only_where_the_first_does_not_verify_the_pattern():
    """Hanoi's "a peg is clear or has one thing on it": three groups of two atoms, two of them witnesses.

    A first witness that satisfies the pattern holds it, so the second is not asked in
    full (the survey before asked both, with (clear d1), in its first batch); where one
    wrong answer breaks the first, the second is asked next, on its own.
    """
    task = one_disc_hanoi()
    atoms = relevant_atoms(task)
    (pattern, witnesses), = [(p, gs) for p, gs in candidates(task, atoms) if str(p) == COVERED]
    first, second = ({str(a) for a in g.atoms} for g in witnesses[:2])
    batches, _ = first_look(task, Oracle())
    assert batches[0] == first
    assert not second <= set().union(*batches)  # the group answered for one of its atoms, not asked in full
    broken = next(a for a in witnesses[0].atoms if a not in task.init)  # a wrong "yes": two atoms of a group
    batches, _ = first_look(task, WrongOnce(broken))
    assert batches[:2] == [first, second]


def test_a_lone_atom_of_a_verified_pattern_is_never_asked():
    """(clear d1): nothing is ever put on the only disc, so "clear or one thing on it" decides it."""
    task = one_disc_hanoi()
    _, events = first_look(task, Oracle())
    assert "(clear d1)" not in {e.get("atom") for e in events}  # asked twice before: survey and precondition
    wrong = [Atom("clear", (peg,)) for peg in ("p1",)]  # p1 carries the disc: a wrong "clear" breaks its group
    _, events = first_look(task, Scripted(Oracle(), {a: True for a in wrong}))
    assert "(clear d1)" not in {e.get("atom") for e in events}  # the second witness still verifies it


def test_a_lone_atom_is_asked_when_no_witness_verifies_its_pattern():
    task = one_disc_hanoi()
    wrong = {Atom("clear", ("p1",)): True, Atom("on", ("d1", "p2")): True}  # both witnesses show two atoms
    _, events = first_look(task, Scripted(Oracle(), wrong))
    assert "(clear d1)" in {e["atom"] for e in events if e.get("phase") == "survey"}


def test_a_lone_atom_whose_pattern_the_answers_do_not_keep_is_reopened():
    """Set true while its pattern is held; cleared (and so asked) where the judged patterns drop it."""
    from toolkit.agents.belief_agent import _Episode
    from toolkit.agents.base import Ledger

    task = one_disc_hanoi()
    env = SymbolicEnvironment(task)
    ep = _Episode(env, Ledger(Oracle()), BeliefAgentConfig(), env.reset(0), None)
    clear = Atom("clear", ("d1",))
    pattern = next(p for p in find_patterns(task) if str(p) == COVERED)
    ep.belief.set(clear, True, ep.belief.max_confidence)
    assert decide_lone_atoms(ep, [pattern], {clear}) == {clear}
    assert ep.belief.logodds[clear] > 0
    assert decide_lone_atoms(ep, [], {clear}) == set()
    assert ep.belief.logodds[clear] == 0.0


class Scripted:
    """Answers as ``inner`` except for the atoms in ``wrong``, which get the given (wrong) value each time."""

    name = "scripted"

    def __init__(self, inner, wrong: dict[Atom, bool]) -> None:
        self.inner, self.wrong = inner, wrong

    def ask(self, observation: Observation, atoms: Sequence[Atom]) -> list[Answer]:
        out = self.inner.ask(observation, atoms)
        return [Answer(a.atom, Verdict.YES if self.wrong[a.atom] else Verdict.NO, 0.99, "scripted", a.question)
                if a.atom in self.wrong else a for a in out]
