"""The extension points the outer layers implement: grounders and environments.

Agent loops in :mod:`toolkit.agents` are written against these protocols only, so
``toolkit/`` never imports a concrete grounder (``grounders/``) or world
(``scene_graphs/``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Callable, Hashable, Protocol, Sequence, runtime_checkable

from toolkit.model import Atom
from toolkit.task import GroundAction, Task


class Verdict(str, Enum):
    YES = "yes"
    NO = "no"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Observation:
    """What an agent sees after reset or an action.

    ``truth`` is privileged information (the world's true abstract state); only
    oracle grounders and the scoring code may read it. ``visible`` is the set of
    atoms the view can show (None: everything is visible). ``render`` produces the
    PNG bytes lazily, so offline studies never pay for images they do not use.
    """

    step: int
    truth: frozenset[Atom]
    visible: frozenset[Atom] | None = None
    render: Callable[[], bytes] | None = field(default=None, compare=False, repr=False)
    state_key: Hashable = None  # identifies the world state (for caches and persistence)

    def can_see(self, atom: Atom) -> bool:
        return self.visible is None or atom in self.visible

    def png(self) -> bytes:
        if self.render is None:
            raise ValueError("this observation has no image")
        return self.render()


@dataclass(frozen=True)
class Answer:
    """A grounder's verdict on one atom."""

    atom: Atom
    verdict: Verdict
    confidence: float = 1.0  # probability that the verdict is right (0.5 = no idea)
    raw: str = ""  # the raw reply (model text, or a note from an oracle)
    question: str = ""
    status: str = "ok"  # ok | unparseable | not_visible | error
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def value(self) -> bool | None:
        return {Verdict.YES: True, Verdict.NO: False}.get(self.verdict)


@runtime_checkable
class Grounder(Protocol):
    """Answers yes/no questions about atoms in an observation."""

    name: str

    def ask(self, observation: Observation, atoms: Sequence[Atom]) -> list[Answer]:
        """One answer per atom, in order.

        A bad reply is an answer (status ``unparseable`` or ``error``), never an exception;
        a grounder that cannot answer at all (an endpoint down after retries) raises GrounderError.
        """
        ...


@dataclass(frozen=True)
class StepOutcome:
    """What happened when the world executed an action."""

    action: str
    executed: bool  # the action's preconditions held in the world and it ran
    failure: str | None  # None, or the failure model's outcome (e.g. "no_effect", "dropped_near_target")
    observation: Observation


@runtime_checkable
class Environment(Protocol):
    """A world that holds the truth, built from a PDDL task."""

    task: Task

    def reset(self, seed: int | None = None) -> Observation: ...

    def observe(self) -> Observation: ...

    def execute(self, action: GroundAction) -> StepOutcome: ...

    def true_state(self) -> frozenset[Atom]: ...


@dataclass(frozen=True)
class PlannerPrompt:
    """What a VLM-as-planner is told besides the image (ViPlan appendix I)."""

    system: str
    user: str  # the user message, with the goal, actions and history filled in


@dataclass(frozen=True)
class Proposal:
    """A planner model's raw reply; the agent parses the plan out of ``text``."""

    text: str
    status: str = "ok"  # ok | error
    prompt_tokens: int = 0
    completion_tokens: int = 0


@runtime_checkable
class PlanProposer(Protocol):
    """A model that proposes a whole plan from an observation (VLM-as-planner)."""

    name: str

    def propose(self, observation: Observation, prompt: PlannerPrompt) -> Proposal: ...
