"""The world of a domain that has none of its own: the PDDL core, drawn by the generic renderer.

:class:`toolkit.simulator.SymbolicEnvironment` holds the truth and runs actions
with the toolkit's own semantics; this adds a picture of every state
(:func:`scene_graphs.render_generic.render_state`), so a VLM study, ``pgt
validate --html`` and ``pgt render`` work on any domain (an IPC domain, a user's
warehouse). Everything is visible: the picture shows every true atom.
"""

from __future__ import annotations

from toolkit.protocols import Observation
from toolkit.simulator import SymbolicEnvironment
from toolkit.task import GroundAction, Task


class GenericWorld(SymbolicEnvironment):
    """A :class:`SymbolicEnvironment` whose observations carry a rendered picture of the state."""

    domain_name = "*"

    def __init__(self, task: Task, failure_prob: float = 0.0, seed: int | None = None) -> None:
        super().__init__(task, failure_prob, seed)

    def can_execute(self, action: GroundAction) -> bool:
        """Whether ``action`` runs in the current state (the PDDL precondition)."""
        return action.is_applicable(self._state)

    def observe(self) -> Observation:
        from scene_graphs.render_generic import render_state

        state, task = self._state, self.task
        return Observation(self._step, state, None, lambda: render_state(task, state), state)
