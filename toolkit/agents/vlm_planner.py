"""The ViPlan VLM-as-planner protocol (ViLa-style closed loop, ViPlan section 4.1).

At each step the model sees the image, the goal in words, the actions and the
history of previous actions (with a note if they failed), and returns a whole
plan as JSON; only its first action is executed. The episode ends when the goal
holds in the world, when the model returns an empty plan, or at the step cap.
A reply that cannot be parsed costs a step and is fed back, never aborting;
an endpoint failure ends the episode (stop reason ``endpoint_error``): the
study runner records it as an error to retry, not as the model's failure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from toolkit.agents.base import Clock, EpisodeResult, Ledger
from toolkit.agents.planner_prompts import build_prompt
from toolkit.plans import parse_plan
from toolkit.protocols import Environment, PlanProposer
from toolkit.task import Task
from toolkit import jsontext

if TYPE_CHECKING:
    from toolkit.questions import QuestionBook


@dataclass(frozen=True)
class ViPlanPlannerConfig:
    max_steps: int = 20
    cot: bool = False


def goal_text_default(task: Task) -> str:
    return str(task.problem.goal)


def goal_in_words(task: Task, book: QuestionBook | None = None) -> str:
    """The goal as the questions whose answers must come out as given (the PDDL text if it has no literals).

    ``book`` words the questions (default: the domain's); when it describes objects by
    appearance ("the red spoon", pictorial images) the text also says which object
    name each description stands for, since actions take names.
    """
    from toolkit.agents.base import condition_literals
    from toolkit.questions import QuestionBook

    literals = condition_literals(task.goal)
    if not literals:
        return goal_text_default(task)
    plain = book is None
    book = book or QuestionBook(task)
    lines = [f"- {book.question(atom)} {'Yes' if positive else 'No'}" for atom, positive in literals]
    text = "Reach a state in which each of these questions has the answer given:\n" + "\n".join(lines)
    if not plain:
        names = "\n".join(f"- {o}: {book.display_name(o)}" for o in sorted(task.objects))
        text += "\n\nObjects (name used in actions: how it looks in the image):\n" + names
    return text


class _NoGrounder:
    name = "none"

    def ask(self, observation, atoms):  # pragma: no cover - never called
        return []


def run_viplan_planner(env: Environment, proposer: PlanProposer, config: ViPlanPlannerConfig = ViPlanPlannerConfig(),
                       seed: int | None = None, goal_text: Callable[[Task], str] = goal_text_default) -> EpisodeResult:
    """Run one episode of the ViPlan VLM-as-planner protocol."""
    clock = Clock()
    task = env.task
    ledger = Ledger(_NoGrounder())
    obs = env.reset(seed)
    history: list[str] = []
    step, failures, invalid = 0, 0, 0
    plan_lengths: list[int] = []
    stop = "step_cap"
    goal = goal_text(task)
    while step < config.max_steps:
        if task.goal_holds(env.true_state()):
            stop = "goal_reached"
            break
        prompt = build_prompt(task, goal, history, config.cot)
        reply = proposer.propose(obs, prompt)
        ledger.prompt_tokens += reply.prompt_tokens
        ledger.completion_tokens += reply.completion_tokens
        ledger.questions += 1  # one model call per step
        if reply.status == "error":  # the endpoint failed: nothing to judge the model by, stop here
            ledger.errors += 1
            ledger.note("propose", step, reply=reply.text[:2000], status="error")
            stop = "endpoint_error"
            break
        # The plan reader finds the JSON (or any other) plan in the reply; prose around it is skipped.
        parsed = parse_plan(reply.text, task) if reply.status == "ok" else None
        if parsed is not None and not parsed.steps and parsed.verdict == "empty" and not parsed.skipped:
            ledger.note("propose", step, reply=reply.text[:20000], plan=[])
            stop = "empty_plan"
            break
        first = parsed.steps[0] if parsed else None
        ledger.note("propose", step, reply=reply.text[:20000], status=reply.status,
                    plan=[s.text for s in parsed.steps] if parsed else None)
        step += 1
        if first is None or first.action is None:
            invalid += 1
            if first is not None:
                why = first.message
            elif parsed is not None:  # prose only, or a refusal
                why = f"no plan steps found in the reply ({parsed.verdict})"
            else:
                why = f"the model call failed: {reply.text[:200]}"
            history.append(f"(invalid plan) {why}")
            ledger.note("invalid", step, message=why)
            continue
        plan_lengths.append(len(parsed.steps))
        outcome = env.execute(first.action)
        obs = outcome.observation
        failed = not outcome.executed or outcome.failure is not None
        failures += outcome.failure is not None
        args = ", ".join(first.action.args)
        history.append(f"{first.action.name.lower()}({args}): {'failed' if failed else 'succeeded'}")
        ledger.note("act", step, action=str(first.action), executed=outcome.executed, failure=outcome.failure)
    else:
        if task.goal_holds(env.true_state()):
            stop = "goal_reached"
    success = task.goal_holds(env.true_state())
    result = EpisodeResult(success, stop, step, 0, 0, ledger, clock.seconds(), plan_lengths, failures)
    ledger.note("summary", step, invalid_plans=invalid)
    return result
