"""The ViPlan VLM-as-grounder protocol, rule for rule as ViPlan's code runs it.

The reference is the code that wrote ViPlan's released results
(github.com/merlerm/ViPlan): ``check_plan`` / ``check_action`` / ``main`` in
``viplan/experiments/benchmark_blocksworld_plan.py`` (ViPlan-BW) and
``benchmark_igibson_plan.py`` (ViPlan-HH). Where the paper and the code differ,
the code wins; pgt's own ideas live in ``pgt-grounder`` (:mod:`toolkit.agents.belief_agent`).

1. **Start.** On a fully observable world the initial state is *enumerated*: every
   type-correct ground atom is asked and the belief is the answers (``main``,
   ``enumerate_initial_state=True`` in the released BW logs). On a partially
   observable world the belief starts from the true state (``main`` of the
   household script raises ``NotImplementedError`` otherwise; the released HH logs
   have ``enumerate_initial_state: False``).
2. **Plan** on the belief (the planner is the caller's; ViPlan's is
   unified-planning's ``OneshotPlanner``, pgt's ``up-oneshot``); the first plan of a
   run that starts from the true state is the problem file's own (``main`` calls
   ``get_plan(problem)``), replans use the belief (``update_problem(vlm_state, ...)``).
3. **Each action is an attempt**, and the step cap counts attempts
   (``while action_queue and len(results) < max_actions``), whether or not it ran:
   - ask its precondition atoms (:func:`~toolkit.agents.viplan_atoms.precondition_expectations`);
     on a partially observable world the hidden ones are then read from the true state,
     and a hidden one that is false ends the episode (ViPlan's ``check_action``
     returns five values where six are unpacked; the exception ends the episode:
     stop ``hidden_precondition``), the questions asked all the same;
   - every answer updates the belief; any answer other than the expected one makes
     the attempt fail without acting;
   - else the world executes it; an action the world refuses fails the attempt;
   - else ask the atoms its effects set (hidden ones are set in the belief to the
     expected value); any unexpected answer fails the attempt.
4. **A failed attempt**: if the world refused the action and it equals the most
   recent action, stop (``loop``: "Action was not legal, but it was the same as the
   most recent action"); else re-enumerate (the visible atoms; hidden ones from the
   true state) and replan; no plan: stop (``no_plan``), planner crash: stop
   (``planner_error``).
5. **The episode ends** when the plan runs out (``plan_exhausted``), at the cap
   (``step_cap``), or at an answer that is neither yes nor no (``bad_answer``:
   ViPlan's ``update_vlm_state`` asserts yes/no, and the exception ends the episode,
   during enumeration as during an action). It never stops early because the
   belief says the goal holds. Success is the goal in the world's true state.
"""

from __future__ import annotations

import weakref
from collections import deque
from dataclasses import dataclass

from toolkit.agents.base import Clock, EpisodeResult, Ledger
from toolkit.agents.viplan_atoms import effect_expectations, precondition_expectations
from toolkit.known_facts import KnownFacts
from toolkit.model import Atom
from toolkit.planners.base import Planner, PlanStatus
from toolkit.protocols import Answer, Environment, Grounder, Observation, Verdict
from toolkit.task import GroundAction, Task

# ViPlan's max_actions: check_plan's default (20), which the BW script never overrides; the household
# script passes --max_steps 10/20/30 by split (sh_scripts/*/benchmark_igibson_planning_array.sh).
DEFAULT_MAX_STEPS = 20


@dataclass(frozen=True)
class ViPlanGrounderConfig:
    max_steps: int = DEFAULT_MAX_STEPS
    planner_timeout: float = 30.0
    # None: as ViPlan's code does, enumerate on a fully observable world, start from the truth otherwise.
    enumerate_initial: bool | None = None
    enumerate_replan: bool = True  # ViPlan's default (`enumerate_replan: bool = True`)
    # Facts a study gives instead of asking (toolkit.known_facts; --ask-static). None: ask every atom, as
    # ViPlan's code does on its own domains (get_enumeration_questions asks every key of env.state).
    known: KnownFacts | None = None


class _BadAnswer(Exception):
    """An answer that is neither yes nor no: ViPlan's assertion in update_vlm_state."""


_UNIVERSE: weakref.WeakKeyDictionary[Task, tuple[list[Atom], frozenset[Atom]]] = weakref.WeakKeyDictionary()


def universe(task: Task) -> list[Atom]:
    """Every type-correct ground atom: the keys of ViPlan's state dictionaries (``on g,g`` included).

    Built once per task (``all_atoms`` grounds and sorts every predicate; an episode enumerates often).
    """
    return _universe(task)[0]


def _universe(task: Task) -> tuple[list[Atom], frozenset[Atom]]:
    found = _UNIVERSE.get(task)
    if found is None:
        atoms = task.all_atoms()
        found = _UNIVERSE[task] = (atoms, frozenset(atoms))
    return found


def _ask(ledger: Ledger, obs: Observation, atoms: list[Atom], phase: str, step: int) -> list[bool]:
    answers: list[Answer] = ledger.ask(obs, atoms, phase, step)
    if any(a.verdict is Verdict.UNKNOWN for a in answers):
        raise _BadAnswer
    return [a.verdict is Verdict.YES for a in answers]


def answers_to_state(belief: frozenset[Atom], atoms: list[Atom], values: list[bool]) -> frozenset[Atom]:
    """``belief`` with every asked atom set to its answer."""
    state = set(belief)
    for atom, value in zip(atoms, values):
        if value:
            state.add(atom)
        else:
            state.discard(atom)
    return frozenset(state)


def enumerate_state(task: Task, ledger: Ledger, obs: Observation, truth: frozenset[Atom], step: int,
                    known: KnownFacts | None = None) -> frozenset[Atom]:
    """Ask every visible atom; the rest keep their true value (ViPlan starts from ``copy.deepcopy(env.state)``).

    Known facts (a study setting; never on ViPlan's own domains by default) are read from the problem.
    A view that shows atoms over objects the problem does not declare (a replayed iGibson scene's
    other objects) gets them asked too, as ViPlan asks ``get_questions(env.visible_predicates)``
    (``check_plan`` of ``benchmark_igibson_plan.py``); their answers change no belief, as
    ``update_problem`` writes only the problem's own fluents.
    Derived atoms (PDDL 2.2 ``:derived``) are not perceived: the domain's rules give them from the answers.
    """
    derived = task.domain.derived_predicates
    atoms, members = _universe(task)
    visible = [a for a in atoms if obs.can_see(a) and (known is None or a not in known)
               and a.predicate not in derived]
    foreign = sorted(obs.visible - members) if obs.visible is not None else []
    values = _ask(ledger, obs, visible + foreign, "enumerate", step)
    state = answers_to_state(truth, visible, values[:len(visible)])
    if known is not None:
        state = frozenset(a for a in state if a not in known) | known.atoms
    return task.derive(state)


def fully_observable(task: Task, obs: Observation) -> bool:
    return obs.visible is None or all(obs.can_see(a) for a in universe(task))


def run_viplan_grounder(env: Environment, grounder: Grounder, planner: Planner,
                        config: ViPlanGrounderConfig = ViPlanGrounderConfig(), seed: int | None = None) -> EpisodeResult:
    """Run one episode of the ViPlan VLM-as-grounder protocol."""
    run = _Episode(env, Ledger(grounder), planner, config)
    try:
        stop = run.play(seed)
    except _BadAnswer:
        stop = "bad_answer"
    task = env.task
    success = task.goal_holds(env.true_state())
    return EpisodeResult(success, stop, run.attempts, run.replans, run.enumerations, run.ledger, run.clock.seconds(),
                         run.plan_lengths, run.failures)


class _Episode:
    def __init__(self, env: Environment, ledger: Ledger, planner: Planner, config: ViPlanGrounderConfig) -> None:
        self.env, self.ledger, self.planner, self.config = env, ledger, planner, config
        self.task = env.task
        self.clock = Clock()
        self.attempts = self.replans = self.enumerations = self.failures = 0
        self.plan_lengths: list[int] = []

    def plan(self, belief: frozenset[Atom]) -> deque[GroundAction] | str:
        """The plan as a queue, or the stop reason when there is none."""
        result = self.planner.solve(self.task, init=belief, timeout=self.config.planner_timeout)
        if not result.solved:
            self.ledger.note("plan", self.attempts, status=result.status.value, message=result.message)
            # ViPlan's get_plan returns None when the planner raises ("Breaking out of episode due to error
            # in the planner"), a result without a plan when it finds none ("No plan found")
            return "planner_error" if result.status is PlanStatus.CRASHED else "no_plan"
        self.plan_lengths.append(len(result.plan))
        self.ledger.note("plan", self.attempts, plan=[str(a) for a in result.plan])
        return deque(result.plan)

    def reported_state(self) -> frozenset[Atom]:
        """``env.state`` as ViPlan's ``update_problem`` reads it: an atom the environment reports no value for
        keeps the problem file's value ("Quickfix / failsafe" in ``benchmark_igibson_plan.py``'s update_problem).

        Only a replayed iGibson run has such atoms (:meth:`toolkit.replayed_world.ReplayedWorld.unreported`).
        """
        truth = self.env.true_state()
        unreported = getattr(self.env, "unreported", None)
        missing = unreported() if unreported is not None else frozenset()
        if not missing:
            return truth
        return frozenset(a for a in truth if a not in missing) | (missing & self.task.init)

    def play(self, seed: int | None) -> str:
        env, task, config = self.env, self.task, self.config
        obs = env.reset(seed)
        enumerate_initial = config.enumerate_initial
        if enumerate_initial is None:
            enumerate_initial = fully_observable(task, obs)
        if enumerate_initial:
            belief = enumerate_state(task, self.ledger, obs, frozenset(), 0, config.known)
            self.enumerations += 1
        else:
            belief = env.true_state()
        # ViPlan's main plans ``problem`` itself when it does not enumerate (the file's initial state; the
        # belief is env.state), and the problem updated with the enumerated belief when it does
        queue = self.plan(belief if enumerate_initial else task.init)
        if isinstance(queue, str):
            return queue
        most_recent: str | None = None
        while queue and self.attempts < config.max_steps:
            action = queue.popleft()
            outcome, belief, obs = self.attempt(action, belief, obs)
            if outcome == "hidden_precondition":
                return outcome
            self.attempts += 1
            if outcome != "ok":
                if outcome == "illegal" and str(action) == most_recent:
                    return "loop"
                self.replans += 1
                self.ledger.note("replan", self.attempts, reason=outcome)
                if config.enumerate_replan:
                    belief = enumerate_state(task, self.ledger, obs, self.reported_state(), self.attempts,
                                             config.known)
                    self.enumerations += 1
                queue = self.plan(belief)
                if isinstance(queue, str):
                    return queue
            if not queue:
                return "plan_exhausted"
            if self.attempts >= config.max_steps:
                return "step_cap"
            most_recent = str(action)
        return "plan_exhausted" if not queue else "step_cap"

    def attempt(self, action: GroundAction, belief: frozenset[Atom], obs: Observation
                ) -> tuple[str, frozenset[Atom], Observation]:
        """ViPlan's check_action: ``ok``, ``preconditions``, ``illegal``, ``effects`` or ``hidden_precondition``."""
        step = self.attempts
        truth = self.env.true_state()
        expected = precondition_expectations(self.task, action)
        hidden = [(a, v) for a, v in expected if not obs.can_see(a)]
        known = self.config.known
        derived = self.task.domain.derived_predicates  # not perceived: read off the belief, closed under the rules
        given = [(a, v) for a, v in expected if known is not None and a in known and obs.can_see(a)]
        inferred = [(a, v) for a, v in expected if a.predicate in derived]
        asked = [(a, v) for a, v in expected if obs.can_see(a) and (known is None or a not in known)
                 and a.predicate not in derived]
        # check_preconditions asks the visible atoms first, then reads the hidden ones from env.state;
        # check_action returns at a false hidden one (the episode's end, see the module docstring)
        # before update_vlm_state asserts the answers are yes/no
        answers = self.ledger.ask(obs, [a for a, _ in asked], "precondition", step)
        if any((a in truth) != v for a, v in hidden):
            self.ledger.note("act", step + 1, action=str(action), outcome="hidden_precondition")
            return "hidden_precondition", belief, obs
        if any(a.verdict is Verdict.UNKNOWN for a in answers):
            raise _BadAnswer
        values = [a.verdict is Verdict.YES for a in answers]
        belief = self.task.derive(answers_to_state(belief, [a for a, _ in asked], values))
        if any(value != want for (_, want), value in zip(asked, values)) or \
                any((a in belief) != want for a, want in (*given, *inferred)):
            self.ledger.note("act", step + 1, action=str(action), outcome="preconditions")
            return "preconditions", belief, obs
        outcome = self.env.execute(action)
        obs = outcome.observation
        self.failures += outcome.failure is not None
        self.ledger.note("act", step + 1, action=str(action), executed=outcome.executed, failure=outcome.failure)
        if not outcome.executed:
            return "illegal", belief, obs
        effects = effect_expectations(action, truth)
        seen = [(a, v) for a, v in effects if obs.can_see(a) and (known is None or a not in known)]
        belief = answers_to_state(belief, [a for a, v in effects if not obs.can_see(a)],
                                  [v for a, v in effects if not obs.can_see(a)])
        values = _ask(self.ledger, obs, [a for a, _ in seen], "effect", step + 1)
        belief = self.task.derive(answers_to_state(belief, [a for a, _ in seen], values))
        if any(value != want for (_, want), value in zip(seen, values)):
            return "effects", belief, obs
        return "ok", belief, obs
