"""Plan proposers for the VLM-as-planner protocol: an offline oracle and a VLM.

The oracle proposer plans optimally on the world's true state (privileged) and,
with probability ``error`` per call, replaces the first action by a random
type-correct one: a known error model, for offline studies of the protocol.
"""

from __future__ import annotations

import json
import random
from typing import Any

from toolkit.errors import PgtError
from toolkit.planners.base import Planner
from toolkit.protocols import Observation, PlannerPrompt, Proposal
from toolkit.task import Task


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
    """Asks an OpenAI-compatible VLM for a JSON plan (the client retries 429, 5xx and timeouts)."""

    name = "vlm-planner"

    def __init__(self, model: str, base_url: str | None = None, api_key: str = "", timeout: float = 120.0,
                 max_retries: int = 4, temperature: float = 0.0, max_tokens: int = 2048) -> None:
        import openai

        self.model, self.temperature, self.max_tokens = model, temperature, max_tokens
        self._client = openai.OpenAI(api_key=api_key or "EMPTY", base_url=base_url, timeout=timeout,
                                     max_retries=max_retries)

    def propose(self, observation: Observation, prompt: PlannerPrompt) -> Proposal:
        import base64

        import openai

        content: list[dict[str, Any]] = [{"type": "text", "text": prompt.user}]
        if observation.render is not None:
            url = "data:image/png;base64," + base64.b64encode(observation.png()).decode()
            content.append({"type": "image_url", "image_url": {"url": url}})
        try:
            reply = self._client.chat.completions.create(
                model=self.model, temperature=self.temperature, max_tokens=self.max_tokens,
                messages=[{"role": "system", "content": prompt.system}, {"role": "user", "content": content}])
        except openai.OpenAIError as exc:
            return Proposal(f"{type(exc).__name__}: {exc}", status="error")
        text = (reply.choices[0].message.content or "") if reply.choices else ""
        usage = reply.usage
        return Proposal(text, "ok", getattr(usage, "prompt_tokens", 0) or 0, getattr(usage, "completion_tokens", 0) or 0)
