"""Pictures of a checked plan's states for the HTML trace page, where a world renders the domain.

The trace page (:mod:`toolkit.trace_html`) knows no world; ``pgt validate --html``
asks this module for the pictures through the CLI's list of outer-layer pieces
(:data:`toolkit.cli.STATE_PICTURES`), so ``toolkit`` never imports ``scene_graphs``.
"""

from __future__ import annotations

from toolkit.plans import ParsedPlan
from toolkit.task import Task
from toolkit.verify import PlanReport

from scene_graphs.registry import make_world


def state_images(task: Task, parsed: ParsedPlan, report: PlanReport) -> list[bytes | None] | None:
    """A picture of the initial state and after each step, or None when the domain's world draws none.

    The domain's world replays the steps that the validator applied (a domain without
    one gets the generic renderer's pictures, :mod:`scene_graphs.render_generic`); a
    picture is kept only where the world's state equals the validator's (else None:
    better no picture than a wrong one).
    """
    world = make_world(task)
    obs = world.reset(seed=0)
    if obs.render is None:  # a world without pictures (a plug-in may have none)
        return None
    images: list[bytes | None] = [obs.png() if world.true_state() == task.init else None]
    by_index = {s.index: s for s in report.steps}
    for step in parsed.steps:
        rep = by_index.get(step.index)
        if rep is None or rep.state_after is None or step.action is None:
            images.append(None)
            continue
        if world.can_execute(step.action):
            obs = world.execute(step.action).observation
        images.append(obs.png() if world.true_state() == rep.state_after else None)
    return images
