"""The ViPlan VLM-as-grounder protocol, faithful to the paper (section 4.1).

1. *Predicate enumeration*: ask about every grounded atom the observation can show;
   atoms it cannot show are filled from privileged information (as ViPlan-HH does).
2. Plan on the believed state.
3. Before each action ask its precondition atoms; after it, the atoms its effects
   change. Any mismatch: re-enumerate everything and replan.
4. Stop when the believed state satisfies the goal, when no plan is found, or at
   the step cap. Success is judged on the world's *true* state.

Unanswerable replies (unknown / unparseable / endpoint errors) never abort an
episode: they carry no evidence and leave the belief as it was.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolkit.agents.base import Clock, EpisodeResult, Ledger, condition_atoms
from toolkit.model import Atom
from toolkit.planners.base import Planner
from toolkit.protocols import Environment, Grounder, Observation
from toolkit.semantics import effect_delta
from toolkit.task import GroundAction


@dataclass(frozen=True)
class ViPlanGrounderConfig:
    max_steps: int = 20
    planner_timeout: float = 30.0
    max_replans: int = 50  # safety net against a grounder that never agrees with itself


def answers_to_state(belief: frozenset[Atom], atoms: list[Atom], answers) -> frozenset[Atom]:
    """``belief`` with every answered atom set to its answer (unknowns keep the belief)."""
    state = set(belief)
    for atom, ans in zip(atoms, answers):
        if ans.value is True:
            state.add(atom)
        elif ans.value is False:
            state.discard(atom)
    return frozenset(state)


def enumerate_state(env: Environment, ledger: Ledger, obs: Observation, step: int,
                    previous: frozenset[Atom] | None = None) -> frozenset[Atom]:
    """Ask about every visible atom; non-visible atoms come from privileged info."""
    universe = env.task.all_atoms()
    visible = [a for a in universe if obs.can_see(a)]
    hidden = [a for a in universe if not obs.can_see(a)]
    answers = ledger.ask(obs, visible, "enumerate", step)
    base = previous if previous is not None else frozenset()
    state = answers_to_state(base & frozenset(visible), visible, answers)
    privileged = frozenset(a for a in hidden if a in obs.truth)
    return state | privileged


def run_viplan_grounder(env: Environment, grounder: Grounder, planner: Planner,
                        config: ViPlanGrounderConfig = ViPlanGrounderConfig(), seed: int | None = None) -> EpisodeResult:
    """Run one episode of the ViPlan VLM-as-grounder protocol."""
    clock = Clock()
    task = env.task
    ledger = Ledger(grounder)
    obs = env.reset(seed)
    step = 0
    belief = enumerate_state(env, ledger, obs, step)
    enumerations, replans, failures = 1, 0, 0
    plan_lengths: list[int] = []
    stop = "step_cap"
    while step < config.max_steps:
        if task.goal_holds(belief):
            stop = "goal_believed"
            break
        result = planner.solve(task, init=belief, timeout=config.planner_timeout)
        if not result.solved:
            ledger.note("plan", step, status=result.status.value, message=result.message)
            stop = f"no_plan:{result.status.value}"
            break
        plan_lengths.append(len(result.plan))
        ledger.note("plan", step, plan=[str(a) for a in result.plan])
        mismatch = False
        for action in result.plan:
            if step >= config.max_steps:
                break
            mismatch = not _preconditions_hold(action, obs, belief, ledger, step)
            if mismatch:
                break
            expected = action.apply(belief)
            adds, dels, _ = effect_delta(action.effect, belief)
            outcome = env.execute(action)
            step += 1
            failures += outcome.failure is not None
            ledger.note("act", step, action=str(action), executed=outcome.executed, failure=outcome.failure)
            obs = outcome.observation
            changed = sorted((adds | dels) & frozenset(a for a in adds | dels if obs.can_see(a)))
            answers = ledger.ask(obs, changed, "effect", step)
            belief = expected
            if any(ans.value is not None and ans.value != (atom in expected) for atom, ans in zip(changed, answers)):
                mismatch = True
                break
        if mismatch:
            replans += 1
            if replans > config.max_replans:
                stop = "replan_cap"
                break
            ledger.note("replan", step, reason="mismatch")
            belief = enumerate_state(env, ledger, obs, step, belief)
            enumerations += 1
    success = task.goal_holds(env.true_state())
    return EpisodeResult(success, stop, step, replans, enumerations, ledger, clock.seconds(), plan_lengths, failures)


def _preconditions_hold(action: GroundAction, obs: Observation, belief: frozenset[Atom], ledger: Ledger,
                        step: int) -> bool:
    """Ask the visible precondition atoms; does the precondition hold given the answers?"""
    atoms = [a for a, _ in condition_atoms(action) if obs.can_see(a)]
    answers = ledger.ask(obs, atoms, "precondition", step)
    return action.is_applicable(answers_to_state(belief, atoms, answers))
