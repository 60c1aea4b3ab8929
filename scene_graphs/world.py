"""Shared plumbing of graph worlds: reset, observe, execute with a failure model.

Each concrete world (Blocksworld, household) only says how to build its graph from
a task, how to read PDDL atoms off the graph, how an action changes the graph, and
how an action can fail. This base class turns that into the
:class:`toolkit.protocols.Environment` contract, so every world gets the same
seeding, step counting and observation logic.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from typing import Hashable

import networkx as nx

from toolkit.errors import PgtError
from toolkit.model import Atom
from toolkit.protocols import Observation, StepOutcome
from toolkit.task import GroundAction, Task


class GraphWorld(ABC):
    """A world whose truth is a networkx graph (see :mod:`scene_graphs.schema`).

    Args:
        task: the PDDL task the world is built from.
        failure_prob: probability that an applicable action fails (0 = never).
        seed: seed for the failure model; ``reset(seed)`` overrides it.
    """

    domain_name: str = ""

    def __init__(self, task: Task, *, failure_prob: float = 0.0, seed: int | None = None) -> None:
        if not 0.0 <= failure_prob <= 1.0:
            raise PgtError(f"failure probability must be in [0, 1], got {failure_prob}")
        self.task = task
        self.failure_prob = failure_prob
        self._seed = seed
        self._rng = random.Random(seed)
        self.step = 0
        self.graph: nx.MultiDiGraph = self.build_graph()
        self._cache: tuple[int, frozenset[Atom]] | None = None

    # ------------------------------------------------------------ per world

    @abstractmethod
    def build_graph(self) -> nx.MultiDiGraph:
        """The initial graph of the task (a fresh one on every call)."""

    @abstractmethod
    def abstract(self, g: nx.MultiDiGraph) -> frozenset[Atom]:
        """The true PDDL atoms of graph ``g`` (pure; does not mutate ``g``)."""

    @abstractmethod
    def preconditions_hold(self, g: nx.MultiDiGraph, action: GroundAction) -> bool:
        """Whether ``action`` can run in ``g``, read off the graph."""

    @abstractmethod
    def apply(self, g: nx.MultiDiGraph, action: GroundAction) -> None:
        """Change ``g`` as the action's intended effect says (mutates ``g``)."""

    @abstractmethod
    def apply_failure(self, g: nx.MultiDiGraph, action: GroundAction, rng: random.Random) -> str:
        """Change ``g`` as a failed execution would; return the failure's name."""

    @abstractmethod
    def visible_atoms(self, g: nx.MultiDiGraph) -> frozenset[Atom] | None:
        """Atoms whose truth value the current view shows (true and false); None = all."""

    @abstractmethod
    def render_graph(self, g: nx.MultiDiGraph) -> bytes:
        """PNG bytes of the current view of ``g``."""

    def state_key_of(self, g: nx.MultiDiGraph) -> Hashable:
        """A hashable key that identifies the world state."""
        return self.abstract(g)

    # ------------------------------------------------------------ protocol

    def reset(self, seed: int | None = None) -> Observation:
        """Back to the task's initial state; re-seed the failure model."""
        if seed is not None:
            self._seed = seed
        self._rng = random.Random(self._seed)
        self.graph = self.build_graph()
        self.step = 0
        self._cache = None
        return self.observe()

    def true_state(self) -> frozenset[Atom]:
        if self._cache is None or self._cache[0] != self.step:
            self._cache = (self.step, self.abstract(self.graph))
        return self._cache[1]

    def observe(self) -> Observation:
        snapshot = self.graph.copy()
        return Observation(
            step=self.step,
            truth=self.true_state(),
            visible=self.visible_atoms(snapshot),
            render=lambda: self.render_graph(snapshot),
            state_key=self.state_key_of(snapshot),
        )

    def can_execute(self, action: GroundAction) -> bool:
        return self._typed(action) and self.preconditions_hold(self.graph, action)

    def _typed(self, action: GroundAction) -> bool:
        domain, objects = self.task.domain, self.task.objects
        return all(arg in objects and any(domain.is_subtype(objects[arg], t) for t in types)
                   for arg, (_, types) in zip(action.args, action.schema.params))

    def execute(self, action: GroundAction) -> StepOutcome:
        """Run ``action`` on the graph. Inapplicable actions change nothing.

        Returns ``executed=False`` when the preconditions do not hold in the world;
        otherwise ``failure`` is None on success or the failure model's outcome.
        """
        failure: str | None = None
        # an argument of the wrong type or an unknown object (a planner model's grasp(window_1)) never runs here
        executed = self._typed(action) and self.preconditions_hold(self.graph, action)
        if executed:
            if self.failure_prob > 0.0 and self._rng.random() < self.failure_prob:
                failure = self.apply_failure(self.graph, action, self._rng)
            else:
                self.apply(self.graph, action)
        self.step += 1
        return StepOutcome(action=str(action), executed=executed, failure=failure, observation=self.observe())
