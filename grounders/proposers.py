"""Plan proposers for the VLM-as-planner protocol: an offline oracle and a VLM.

The oracle proposer plans optimally on the world's true state (privileged) and,
with probability ``error`` per call, replaces the first action by a random
type-correct one: a known error model, for offline studies of the protocol.
"""

from __future__ import annotations

import base64
import json
import random
from typing import TYPE_CHECKING, Any

from toolkit.errors import MalformedReplyError, PgtError
from toolkit.planners.base import Planner
from toolkit.protocols import Observation, PlannerPrompt, Proposal
from toolkit.task import Task

if TYPE_CHECKING:  # the oracle proposer must not import openai
    from grounders.client import ChatClient


def plan_json(actions: list[tuple[str, tuple[str, ...]]]) -> str:
    """A plan in the ViPlan JSON format (parameters as a list)."""
    return json.dumps({"plan": [{"action": n.lower(), "parameters": list(a)} for n, a in actions]})


class OracleProposer:
    name = "oracle-planner"

    def __init__(self, task: Task, planner: Planner, error: float = 0.0, seed: int = 0) -> None:
        if not 0.0 <= error <= 1.0:
            raise PgtError(f"proposer error rate must be in [0, 1], got {error}")
        self.task, self.planner, self.error = task, planner, error
        self.rng = random.Random(seed)
        self._all = None

    def propose(self, observation: Observation, prompt: PlannerPrompt) -> Proposal:
        result = self.planner.solve(self.task, init=observation.truth, timeout=30.0)
        steps = [(a.name, a.args) for a in result.plan] if result.solved else []
        if self.error and self.rng.random() < self.error:
            if self._all is None:
                self._all = list(self.task.all_actions())
            wrong = self.rng.choice(self._all)
            steps = [(wrong.name, wrong.args)] + steps[1:]
        return Proposal(plan_json(steps))


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
        content: list[dict[str, Any]] = [{"type": "text", "text": prompt.user}]
        if observation.render is not None:
            url = "data:image/png;base64," + base64.b64encode(observation.png()).decode()
            content.append({"type": "image_url", "image_url": {"url": url}})
        messages = [{"role": "system", "content": prompt.system}, {"role": "user", "content": content}]
        try:
            reply = self.client.complete(messages, self.temperature, self.max_tokens)
        except MalformedReplyError as exc:
            return Proposal(str(exc), status="error")
        if reply.cached:
            return Proposal(reply.text, "ok")
        return Proposal(reply.text, "ok", reply.prompt_tokens, reply.completion_tokens)
