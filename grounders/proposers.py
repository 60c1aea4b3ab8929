"""Plan proposers for the VLM-as-planner protocol: simulated, replayed, and a VLM.

The simulated proposer plans optimally on the world's true state (privileged)
and then corrupts that plan with a known, seeded error model (wrong, missing and
extra actions), so studies of the protocol run offline with a ground truth for
what the "model" got wrong, as the noisy oracle does for grounders. The replay
proposer plays back the replies a previous ``viplan-planner`` run recorded, so a
VLM run can be re-analysed without calling the model again.
"""

from __future__ import annotations

import base64
import json
import random
from typing import TYPE_CHECKING, Any, Mapping

from toolkit.errors import MalformedReplyError, PgtError
from toolkit.planners.base import Planner
from toolkit.protocols import Observation, PlannerPrompt, Proposal
from toolkit.task import GroundAction, Task

if TYPE_CHECKING:  # the simulated and replay proposers must not import openai
    from grounders.client import ChatClient


def plan_json(actions: list[GroundAction], style: str = "list") -> str:
    """A plan in the ViPlan JSON format its prompt asks for: parameters as a list (ViPlan-HH) or, ``dict``,
    keyed by parameter type (ViPlan-BW); names lower case, as ViPlan's prompts tell the model."""
    def parameters(a: GroundAction):
        values = [x.lower() for x in a.args]
        return {types[0]: v for (_, types), v in zip(a.schema.params, values)} if style == "dict" else values

    return json.dumps({"plan": [{"action": a.name.lower(), "parameters": parameters(a)} for a in actions]})


class SimulatedProposer:
    """An optimal plan from the true state, corrupted action by action with known probabilities.

    For each action of the optimal plan, in order: with probability ``extra`` a
    uniformly drawn ground action is inserted before it; then with probability
    ``missing`` it is left out, else with probability ``wrong`` it is replaced by
    a different uniformly drawn ground action. Drawn actions are type-correct but
    need not be applicable. All zero: a perfect planner.
    """

    name = "simulated-planner"

    def __init__(self, task: Task, planner: Planner, wrong: float = 0.0, missing: float = 0.0, extra: float = 0.0,
                 seed: int = 0) -> None:
        for what, p in (("wrong", wrong), ("missing", missing), ("extra", extra)):
            if not 0.0 <= p <= 1.0:
                raise PgtError(f"--plan-{what} must be in [0, 1], got {p}")
        self.task, self.planner = task, planner
        self.wrong, self.missing, self.extra = wrong, missing, extra
        self.rng = random.Random(seed)
        self._all: list[GroundAction] | None = None

    def _random_action(self, other_than: GroundAction | None = None) -> GroundAction:
        if self._all is None:
            self._all = sorted(self.task.all_actions(), key=str)
        if not self._all:
            raise PgtError(f"problem {self.task.problem.name} has no ground actions to draw wrong ones from")
        choice = self.rng.choice(self._all)
        if other_than is not None and choice == other_than and len(self._all) > 1:
            while choice == other_than:
                choice = self.rng.choice(self._all)
        return choice

    def corrupt(self, plan: list[GroundAction]) -> list[GroundAction]:
        """``plan`` after the error model (one draw sequence per call, from the seeded generator)."""
        out: list[GroundAction] = []
        for action in plan:
            if self.extra and self.rng.random() < self.extra:
                out.append(self._random_action())
            if self.missing and self.rng.random() < self.missing:
                continue
            if self.wrong and self.rng.random() < self.wrong:
                out.append(self._random_action(action))
            else:
                out.append(action)
        return out

    def propose(self, observation: Observation, prompt: PlannerPrompt) -> Proposal:
        result = self.planner.solve(self.task, init=observation.truth, timeout=30.0)
        plan = self.corrupt(list(result.plan)) if result.solved else []
        from toolkit.agents.planner_prompts import domain_text

        return Proposal(plan_json(plan, domain_text(self.task).parameters))


class ReplayProposer:
    """The replies a previous ``viplan-planner`` run (folder or ``episodes.jsonl``) got, in order.

    A reply the run did not record (a different episode, or more steps than it
    took) comes back as an ``error`` proposal that says so; replay never invents one.
    """

    name = "replay-planner"

    def __init__(self, path: str, episode_id: str, recorded: Mapping[str, list[str]]) -> None:
        """``recorded``: episode id -> replies, as the run's reader (``benchmarks.store.recorded_replies``) gives them."""
        self.source, self.episode_id = path, episode_id
        self.replies = recorded.get(episode_id)
        self.calls = 0

    def propose(self, observation: Observation, prompt: PlannerPrompt) -> Proposal:
        self.calls += 1
        if self.replies is None:
            return Proposal(f"replay: episode {self.episode_id} is not in {self.source}", status="error")
        if self.calls > len(self.replies):
            return Proposal(f"replay: {self.source} recorded {len(self.replies)} replies for episode "
                            f"{self.episode_id}, reply {self.calls} was asked for", status="error")
        return Proposal(self.replies[self.calls - 1])


def plan_messages(observation: Observation, prompt: PlannerPrompt) -> list[dict[str, Any]]:
    """The chat messages that ask a VLM for a plan: the prompt's text, then the observation's image if any."""
    content: list[dict[str, Any]] = [{"type": "text", "text": prompt.user}]
    if observation.render is not None:
        url = "data:image/png;base64," + base64.b64encode(observation.png()).decode()
        content.append({"type": "image_url", "image_url": {"url": url}})
    return [{"role": "system", "content": prompt.system}, {"role": "user", "content": content}]


class VLMPlanProposer:
    """Asks an OpenAI-compatible VLM for a JSON plan through the shared :class:`~grounders.client.ChatClient`.

    A malformed reply is an ``error`` proposal (it costs the episode a step and is
    fed back); an endpoint that fails after retries raises EndpointError.
    """

    name = "vlm-planner"

    def __init__(self, client: ChatClient, temperature: float = 0.0, max_tokens: int = 2048) -> None:
        self.client, self.temperature, self.max_tokens = client, temperature, max_tokens
        self.model = client.model

    def propose(self, observation: Observation, prompt: PlannerPrompt) -> Proposal:
        try:
            reply = self.client.complete(plan_messages(observation, prompt), self.temperature, self.max_tokens)
        except MalformedReplyError as exc:
            return Proposal(str(exc), status="error")
        if reply.cached:
            return Proposal(reply.text, "ok")
        return Proposal(reply.text, "ok", reply.prompt_tokens, reply.completion_tokens)
