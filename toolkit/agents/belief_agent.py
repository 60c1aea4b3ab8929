"""``pgt-grounder``: a symbolic-first grounding agent that asks only what matters.

Where the ViPlan protocol (:mod:`toolkit.agents.viplan`) re-enumerates every atom
after any surprise, this agent keeps an :class:`~toolkit.agents.evidence.EvidenceBelief`
and spends questions where a wrong belief would hurt:

1. **Survey** once (:mod:`toolkit.agents.belief_survey`): the atoms of *relevant*
   predicates (one that some precondition, effect condition or the goal mentions;
   ``leftOf`` in ViPlan-BW is not), except those only the goal mentions (tsp's
   ``visited``: the plan achieves them whatever they were; see
   :func:`toolkit.agents.belief_scope.goal_only_predicates`). Invariant groups the
   action model proves preserved (:mod:`toolkit.invariants`) are held once a
   group asked in full (the smallest, the next where it fails) satisfies them, and
   an instance of one atom is then decided unasked; their other atoms are asked one at a
   time by expected information until each is ``survey_trust`` certain (one "yes"
   for a disc's place answers every other place), atoms in no group once each. The
   groups the answers support are kept; answers that break one are re-asked until
   it is settled. An atom a group decided unasked is asked where a plan breaks at
   an action naming it (:func:`toolkit.agents.belief_survey.complete_survey`).
2. **Plan** on the most likely state.
3. Before each action, make the precondition atoms certain enough (``trust``),
   one question at a time, choosing among them and their invariant group-mates the
   question of most expected information; atoms backed by a group often need no
   question at all. Every question about an atom is worded differently from those
   already asked about the same picture: a temperature-0 VLM repeats its answer to
   the same words, so re-asking would count one draw twice.
4. After each action, look: an unchanged picture means it did nothing (no
   question; a precondition was likely false, see
   :meth:`~toolkit.agents.evidence.EvidenceBelief.observe_no_effect`); a changed one
   means it ran. Then test "the action did what the model predicts" against the
   alternatives with as few of the changed atoms as it takes. Confirmed: the belief
   takes the predicted state. Refuted: a failure; the atoms that mention the
   action's arguments are re-asked, and the invariant groups they sit in are
   settled again (the failure can only have touched those). Then replan.
5. Stop when the believed state satisfies the goal *and* every goal atom has been
   confirmed to ``goal_trust``.

Atoms the view cannot show are filled from privileged information, exactly as the
ViPlan protocol does, so the two protocols are compared on equal terms. Known
facts (:mod:`toolkit.known_facts`: predicates no action changes, and the type
predicates of an untyped domain) are read from the problem and never asked,
unless ``ask_static`` says to treat them like any other atom.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Hashable, Sequence

from toolkit.agents.base import (Clock, EpisodeResult, Ledger, accepts_wording, condition_atoms, condition_literals,
                                 disjunctive_atoms, required_literals)
from toolkit.agents import belief_survey
from toolkit.agents.belief_scope import goal_only_predicates, relevant_atoms
from toolkit.agents.evidence import EvidenceBelief, sigmoid
from toolkit.invariants import Group, groups, invariants_of
from toolkit.known_facts import NO_KNOWN_FACTS, KnownFacts, known_facts
from toolkit.model import Atom
from toolkit.planners.base import Planner
from toolkit.planners.fallback import FallbackPlanner
from toolkit.protocols import Environment, Grounder, Observation
from toolkit.questions import QuestionBook
from toolkit.semantics import holds
from toolkit.task import GroundAction, Task


@dataclass(frozen=True)
class BeliefAgentConfig:
    max_steps: int = 20
    planner_timeout: float = 30.0
    trust: float = 0.99  # act on an atom without asking when its belief is at least this certain
    goal_trust: float = 0.999  # stop only when every goal atom is at least this certain
    effect_trust: float = 0.999  # ask changed atoms until "it worked" or "it failed" is this certain
    settle: float = 0.9  # re-ask atoms of a disturbed invariant group below this certainty
    survey_trust: float = 0.95  # the first look asks grouped atoms until each is this certain (belief_survey)
    action_success_prior: float = 0.9  # before looking, P(an action did what the model predicts)
    silent_failure: float = 0.1  # P(an applicable action does nothing): blames preconditions less
    change_trust: float = 0.99  # a visibly changed picture: the action ran, its preconditions held
    stale_weight: float = 0.25  # after a failure, old evidence about the touched atoms counts this much
    max_questions_per_decision: int = 40  # questions spent making one set of atoms certain
    min_bits: float = 0.01  # a question expected to tell less than this is not asked
    assumed_reliability: float = 0.9  # P(answer right) for a predicate not yet asked about
    max_recoveries: int = 2  # second opinions when no plan exists from the believed state
    max_replans: int = 50
    min_information: float = 0.4  # log-odds; a predicate whose answers carry less is not asked again
    ask_static: bool = False  # ask about predicates no action changes (else they are read from the problem)
    # P(an action that ran did something else than the model predicts); None: the world's declared
    # failure model (its ``failure_prob``), and where it declares none, ``action_success_prior`` alone
    action_failure: float | None = None


class _Episode:
    """One episode's mutable state: the belief, the current observation and the ledger."""

    def __init__(self, env: Environment, ledger: Ledger, config: BeliefAgentConfig, obs: Observation,
                 book: QuestionBook | None) -> None:
        self.env, self.task, self.ledger, self.config = env, env.task, ledger, config
        self.obs = obs
        self.book = book
        self.step = 0
        self.known: KnownFacts = NO_KNOWN_FACTS if config.ask_static else known_facts(self.task)
        if self.known.predicates:
            ledger.note("known", 0, **self.known.to_json())
        self.belief = EvidenceBelief([a for a in relevant_atoms(self.task) if a not in self.known], ())
        self.information: dict[str, float] = {}  # predicate -> |log-odds| of its latest answer
        self.failure = config.action_failure if config.action_failure is not None else declared_failure(env)
        self.used: dict[tuple[Hashable, Atom], int] = {}  # (picture, atom) -> wordings asked about it
        self.left_to_groups: set[Atom] = set()  # surveyed atoms no answer was about (their groups decided them)

    def state(self) -> frozenset[Atom]:
        """The most likely state: the belief's atoms plus the known facts read from the problem, closed
        under the domain's derived-predicate rules (derived atoms follow from the basic ones)."""
        return self.task.derive(self.belief.state() | self.known.atoms)

    # ------------------------------------------------------------ asking

    def view(self) -> Hashable:
        """What identifies the picture the questions are about (a new picture: fresh draws)."""
        return self.obs.state_key if self.obs.state_key is not None else ("step", self.obs.step)

    def wording(self, atom: Atom) -> str | None:
        """The next phrasing of ``atom`` not yet asked about this picture; None when all were.

        A temperature-0 VLM repeats its answer to the same words about the same
        picture, so a repeat would only count one draw twice.
        """
        used = self.used.get((self.view(), atom), 0)
        options = self.book.phrasings(atom) if self.book is not None else (str(atom),)
        return options[used] if used < len(options) else None

    def askable(self, atom: Atom) -> bool:
        return (atom in self.belief and self.obs.can_see(atom) and self.worth_asking(atom)
                and self.wording(atom) is not None)

    def ask(self, atoms: Sequence[Atom], phase: str) -> list[tuple[Atom, bool | None, float]]:
        """Ask the visible atoms, each in a wording not yet used on this picture: (atom, answer, weight).

        Hidden atoms are filled from privileged information (as the ViPlan protocol
        does); atoms whose every wording was asked about this picture are skipped.
        """
        for a in atoms:
            if a in self.belief and not self.obs.can_see(a):
                self.belief.set(a, a in self.obs.truth, 1.0)
        visible = [a for a in dict.fromkeys(atoms)
                   if a in self.belief and self.obs.can_see(a) and self.wording(a) is not None]
        questions = [self.wording(a) or "" for a in visible]
        for a in visible:
            key = (self.view(), a)
            self.used[key] = self.used.get(key, 0) + 1
        out = []
        for atom, ans in zip(visible, self.ledger.ask(self.obs, visible, phase, self.step, questions)):
            weight = self.belief.weight(ans.confidence)
            if ans.value is not None:
                self.belief.observe(atom, ans.value, ans.confidence)
                self.information[atom.predicate] = abs(weight)
            out.append((atom, ans.value, weight))
        return out

    def worth_asking(self, atom: Atom) -> bool:
        """False for atoms of a predicate whose answers have proved nearly uninformative (a coin flip)."""
        return self.information.get(atom.predicate, math.inf) >= self.config.min_information

    def reliability(self, atom: Atom) -> float:
        """P(an answer about ``atom`` is right), from the latest answer about its predicate."""
        seen = self.information.get(atom.predicate)
        return sigmoid(seen) if seen is not None else self.config.assumed_reliability

    def make_certain(self, atoms: Sequence[Atom], level: float, phase: str) -> None:
        """Ask, one question at a time, what is expected to tell most about the uncertain ``atoms``.

        Candidates are the atoms themselves and their invariant group-mates (an
        answer about ``(clear b)`` moves ``(on a b)``), each in a fresh wording;
        the one with the largest expected information about the uncertain atoms
        is asked, until all are ``level`` certain or nothing left to ask tells
        anything.
        """
        targets = [a for a in dict.fromkeys(atoms) if a in self.belief]
        for _ in range(self.config.max_questions_per_decision):
            open_ = [a for a in targets if self.belief.confidence(a) < level]
            if not open_:
                return
            related = {m for a in open_ for g in self.belief.groups_of.get(a, ()) for m in g.atoms}
            candidates = sorted(a for a in {*open_, *related} if self.askable(a))
            scored = [(self.belief.information(c, open_, self.reliability(c)), c) for c in candidates]
            best = max(scored, default=(0.0, None), key=lambda s: (s[0], s[1] in open_))
            if best[1] is None or best[0] < self.config.min_bits:
                return
            self.ask([best[1]], phase)

    def settle(self, focus: Sequence[Atom]) -> None:
        """Ask about atoms that a conflict inside an invariant group left uncertain."""
        touched = {g for a in focus for g in self.belief.groups_of.get(a, ())}
        atoms = sorted({a for g in touched for a in g.atoms})
        self.make_certain(atoms, self.config.settle, "settle")

    # ------------------------------------------------------------ phases

    def survey(self) -> None:
        """The first look (:mod:`toolkit.agents.belief_survey`): ask under the preserved groups until the atoms
        are ``survey_trust`` certain, keep the groups the answers support, ask what no kept group covers,
        settle the groups the answers disturb. What a group decided unasked is asked where a plan breaks
        (:func:`belief_survey.complete_survey`)."""
        skip = goal_only_predicates(self.task)
        atoms = [a for a in self.belief.logodds if a.predicate not in skip]
        answered, held, decided = belief_survey.survey(self, atoms)
        self.left_to_groups = {a for a in atoms if a not in answered}
        kept = belief_survey.supported_patterns(self, answered, held)
        self.belief.clear_groups()
        for g in groups(self.task, kept):
            self.belief.add_group(g)
        covered = {a for g in self.belief.groups for a in g.atoms}
        covered |= belief_survey.decide_lone_atoms(self, kept, decided)
        self.ask([a for a in atoms if a not in answered and a not in covered], "survey")
        self.left_to_groups &= covered
        self.settle(atoms)

    def _groups_the_survey_supports(self) -> list[Group]:
        """Invariant groups whose pattern the surveyed state satisfies in most instances.

        The action model proves a group is *preserved*; whether this problem's
        initial state satisfies it is learnt from the answers, not from the file.
        """
        state = frozenset(a for a, v in self.belief.logodds.items() if v > 0)
        return groups(self.task, invariants_of(self.task, state, majority=True))

    def preconditions_hold(self, action: GroundAction) -> bool:
        atoms = [a for a, _ in condition_atoms(action)]
        self.make_certain(atoms, self.config.trust, "precondition")
        return action.is_applicable(self.state())

    def goal_confirmed(self) -> bool:
        """Make every goal atom ``goal_trust`` certain before stopping; True when the goal then holds.

        The most informative question can tell nothing about an atom that two invariant
        groups pull apart (its own answers say yes, a group-mate's say its place is
        taken): every answer leaves it as unsure as before, so :meth:`make_certain`
        stops short. Stopping on such a belief ended hanoi episodes with a disc on the
        wrong peg; those goal atoms are asked directly, in the wordings left.
        """
        goal = [a for a, _ in condition_literals(self.task.goal) if a in self.belief]
        self.make_certain(goal, self.config.goal_trust, "goal")
        for atom in goal:  # (an atom set at the belief's cap, e.g. by a confirmed effect, is goal_trust certain)
            while self.belief.confidence(atom) < self.config.goal_trust - 1e-9 and self.askable(atom):
                self.ask([atom], "goal")
        return self.task.goal_holds(self.state())

    def act(self, action: GroundAction) -> bool:
        """Execute, then check the outcome; on a refuted prediction re-establish what the action touched.

        Three hypotheses compete: the action did what the model predicts, it did
        nothing, or something else happened (its own unconditional change is
        missing and its side effects are open: the block fell into another
        column). The picture itself is the first evidence: unchanged, the action
        did nothing (so a precondition was likely false); changed, it ran (so its
        preconditions held) and "nothing" is out. Then changed atoms are asked,
        most telling first, each in a fresh wording, until "as predicted" is
        ``effect_trust`` certain or refuted.
        """
        before = self.state()
        predicted = action.apply(before)
        changed = sorted(a for a in predicted ^ before if a in self.belief)
        strength = self._prediction_strength(action, before)
        view_before = self.obs.state_key
        outcome = self.env.execute(action)
        self.step += 1
        self.obs = outcome.observation
        self.ledger.note("act", self.step, action=str(action), executed=outcome.executed, failure=outcome.failure)
        logp = self._outcome_prior()  # log P(answers, H) for H = as predicted, no effect, something else
        seen = self._picture_evidence(action, view_before, bool(changed))
        if seen is False:  # nothing moved: the world is as it was, a precondition was (likely) false
            self.ledger.note("effect_check", self.step, action=str(action), p_success=0.0, picture="unchanged")
            self.belief.observe_no_effect(required_literals(action), self.config.silent_failure)
            self.doubt_disjunctions(action)
            belief_survey.complete_survey(self, action)
            return False
        if seen is True:
            logp[1] = -math.inf
        checks = sorted((a for a in changed if self.worth_asking(a)),
                        key=lambda a: self._diagnostic_rank(action, a, predicted))
        direct = action.effect.adds | action.effect.dels

        def logp_other(atom: Atom, value: bool, right: float) -> float:
            if atom not in direct:
                return math.log(0.5)
            return math.log(right if value == (atom in before) else 1 - right)

        while checks:
            p_success = _normalised(logp)[0]
            if p_success >= self.config.effect_trust or p_success <= 1 - self.config.trust:
                break
            atom = checks[0]
            answers = self.ask([atom], "effect")
            if not answers or self.wording(atom) is None:
                checks.pop(0)  # every wording asked about this picture: go on to the next atom
            else:
                checks.append(checks.pop(0))  # alternate between atoms before asking one again
            for _, value, weight in answers:
                if value is not None:
                    right = sigmoid(weight)
                    logp[0] += math.log(right if value == (atom in predicted) else 1 - right)
                    logp[1] += math.log(right if value == (atom in before) else 1 - right)
                    # "something else": the action's own (unconditional) change did not happen, the rest is open
                    logp[2] += logp_other(atom, value, right)
        p_success = _normalised(logp)[0]
        self.ledger.note("effect_check", self.step, action=str(action), p_success=round(p_success, 4))
        if p_success > 0.5:  # decided, or the most likely outcome once the questions ran out
            for atom in changed:
                self.belief.set(atom, atom in predicted, min(p_success, strength.get(atom, 1.0)))
            belief_survey.predict_group_mates(self, changed, predicted)
            return True
        self.reestablish(action, changed)
        return False

    def _outcome_prior(self) -> list[float]:
        """log P(H) before looking, for H = as predicted, did nothing, something else.

        "Did nothing" is what a false precondition gives: ``(1 - action_success_prior) / 2``
        whatever the world. "Something else" is the world's own failure (a block dropped in
        another column): with no failure model known it takes the other half; with one, an
        action that ran does something else with the world's failure probability ``f``. In
        a world that declares ``f = 0`` a changed picture therefore proves the prediction,
        and the effect check asks nothing: every answer could only confirm what the
        picture's change already says (issue 28: two questions per action went there on
        IPC domains). The conditional effects still carry the doubt of their conditions
        (:meth:`_prediction_strength`).
        """
        nothing = (1 - self.config.action_success_prior) / 2
        if self.failure is None:
            return [math.log(self.config.action_success_prior), math.log(nothing), math.log(nothing)]
        ran = 1 - nothing
        return [_log(ran * (1 - self.failure)), math.log(nothing), _log(ran * self.failure)]

    def _picture_evidence(self, action: GroundAction, view_before: Hashable, expect_change: bool) -> bool | None:
        """Did the picture change? None when the view cannot tell or nothing was expected to change.

        Pictures are compared by what identifies them (the observation's state key,
        from which the picture is rendered). A changed picture means the action
        ran: its preconditions held, and that is evidence about them as well.
        """
        view_after = self.obs.state_key
        if view_before is None or view_after is None or not expect_change:
            return None
        if view_before == view_after:
            return False
        effect = action.effect
        touched = effect.adds | effect.dels | {a for c in effect.conditional for a in c.adds | c.dels}
        for atom, value in required_literals(action):
            if atom in self.belief and atom not in touched:  # unchanged by the action: held before and after
                self.belief.observe(atom, value, self.config.change_trust)
        return True

    def doubt_disjunctions(self, action: GroundAction) -> None:
        """An action that did nothing: its disjunctive precondition may be what was false.

        Which disjunct failed cannot be read off the picture, so the evidence about
        every atom of the disjunctive part is weakened: the next attempt makes them
        certain again (hidden ones are read afresh), instead of repeating the action
        on the same belief until the step limit.
        """
        atoms = [a for a in disjunctive_atoms(action) if a in self.belief]
        self.belief.weaken(atoms, self.config.stale_weight)
        self.ask([a for a in atoms if not self.obs.can_see(a)], "recheck")

    @staticmethod
    def _diagnostic_rank(action: GroundAction, atom: Atom, predicted: frozenset[Atom]) -> tuple:
        """Ask first what the action is *for*: unconditional adds naming most of its arguments.

        A side effect such as ``clear`` of the block left behind also happens when
        the block is dropped in the wrong column, so it says little about success.
        """
        unconditional = atom in action.effect.adds or atom in action.effect.dels
        named = sum(arg in atom.args for arg in set(action.args))
        return (not unconditional, -named, atom not in predicted, atom)

    def _prediction_strength(self, action: GroundAction, state: frozenset[Atom]) -> dict[Atom, float]:
        """How sure we are of each conditional effect's outcome: its weakest condition atom."""
        out: dict[Atom, float] = {}
        for c in action.effect.conditional:
            if not holds(c.condition, state):
                continue
            atoms = [a for a in c.condition.pos | c.condition.neg if a in self.belief]
            sure = min((self.belief.confidence(a) for a in atoms), default=1.0)
            for a in c.adds | c.dels:
                out[a] = min(out.get(a, 1.0), sure)
        return out

    def reestablish(self, action: GroundAction, changed: Sequence[Atom]) -> None:
        """After a failure: re-ask what mentions the action's arguments, then settle their groups."""
        args = set(action.args)
        touched = sorted(set(changed) | {a for a in self.belief.logodds if args & set(a.args)})
        self.belief.weaken(touched, self.config.stale_weight)
        self.ask([a for a in touched if self.worth_asking(a)], "recheck")
        self.settle(touched)

    def second_opinion(self, doubt_groups: bool = False) -> None:
        """No plan from the believed state: something believed is wrong; re-ask the weakest beliefs.

        With ``doubt_groups`` (the last recovery) what is wrong may be an invariant group
        itself: the survey keeps a group whose pattern its answers satisfy, and one wrong
        answer can make a pattern hold that the world does not (driverlog: "truck1 is
        empty" answered no made "exactly one of all empty and driving atoms" hold, and
        the group then held that answer certain). So the groups are dropped, the atoms
        are chosen by their own evidence, those the answers leave unsure are asked again,
        and the groups are derived anew from the answers as they now stand.
        """
        if doubt_groups:
            self.belief.clear_groups()
        weak = [a for a in self.belief.logodds
                if self.belief.confidence(a) < self.config.goal_trust and self.worth_asking(a)]
        self.ask(weak, "second_opinion")
        if doubt_groups:
            self.make_certain(weak, self.config.settle, "second_opinion")
            for g in self._groups_the_survey_supports():
                self.belief.add_group(g)
        self.settle(weak)


def _book_of(grounder: object) -> QuestionBook | None:
    """The question book a grounder words its questions with (looking through wrappers)."""
    while grounder is not None:
        book = getattr(grounder, "book", None)
        if isinstance(book, QuestionBook):
            return book
        grounder = getattr(grounder, "inner", None)
    return None


def declared_failure(env: Environment) -> float | None:
    """The world's declared P(an applicable action fails) (``GraphWorld.failure_prob``); None where it declares none."""
    f = getattr(env, "failure_prob", None)
    return float(f) if isinstance(f, (int, float)) and not isinstance(f, bool) and 0.0 <= f <= 1.0 else None


def _log(p: float) -> float:
    return math.log(p) if p > 0.0 else -math.inf


def _normalised(logp: list[float]) -> list[float]:
    top = max(logp)
    weights = [math.exp(v - top) for v in logp]
    return [w / sum(weights) for w in weights]


def _plan_still_works(task: Task, plan: Sequence[GroundAction], state: frozenset[Atom]) -> bool:
    for action in plan:
        if not action.is_applicable(state):
            return False
        state = action.apply(state)
    return task.goal_holds(state)


def run_belief_agent(env: Environment, grounder: Grounder, planner: Planner,
                     config: BeliefAgentConfig = BeliefAgentConfig(), seed: int | None = None) -> EpisodeResult:
    """Run one episode of the ``pgt-grounder`` protocol (see the module docstring)."""
    clock = Clock()
    task = env.task
    ledger = Ledger(grounder)
    book = _book_of(grounder) or (QuestionBook(task) if accepts_wording(grounder) else None)
    ep = _Episode(env, ledger, config, env.reset(seed), book)
    ep.survey()
    recoveries = 0
    plan_lengths: list[int] = []
    stop = "step_cap"
    while ep.step < config.max_steps:
        state = ep.state()
        if task.goal_holds(state):
            if ep.goal_confirmed():
                stop = "goal_believed"
                break
            state = ep.state()  # a goal atom turned out false: plan from the corrected belief
        result = planner.solve(task, init=state, timeout=config.planner_timeout)
        if not result.solved:
            ledger.note("plan", ep.step, status=result.status.value, message=result.message)
            if recoveries < config.max_recoveries:
                recoveries += 1
                ep.second_opinion(doubt_groups=recoveries == config.max_recoveries)
                continue
            stop = f"no_plan:{result.status.value}"
            break
        if len(plan_lengths) > config.max_replans:  # this plan would be replan number len(plan_lengths)
            stop = "replan_cap"
            break
        plan = list(result.plan)
        plan_lengths.append(len(plan))
        # a fallback planner's plan says which planner made it ("auto>fd-opt, fallback fd-lama"): not proven optimal
        made_by = {"planner": result.planner} if isinstance(planner, FallbackPlanner) else {}
        ledger.note("plan", ep.step, plan=[str(a) for a in plan], **made_by)
        for i, action in enumerate(plan):
            if ep.step >= config.max_steps:
                break
            if not ep.preconditions_hold(action):
                belief_survey.complete_survey(ep, action)
                break
            ok = ep.act(action)
            if not ok or not _plan_still_works(task, plan[i + 1:], ep.state()):
                break
    success = task.goal_holds(env.true_state())
    failures = sum(1 for e in ledger.events if e.get("phase") == "act" and e.get("failure"))
    replans = max(len(plan_lengths) - 1, 0)
    return EpisodeResult(success, stop, ep.step, replans, 1, ledger, clock.seconds(), plan_lengths, failures)
