"""LoHoRavens' partial reward and success, as ``Task.reward()`` and ``Task.done()`` compute them, on a symbolic tabletop.

Why not "the share of goal conjuncts": LoHoRavens' code (Shengqiang-Zhang/LoHo-Ravens,
``cliport/tasks/task.py``) scores a task as an *ordered list of goal steps*, each
``(objs, matches, targs, replace, rotations, metric, params, max_reward)``:

* ``reward()`` looks at the **first** unfinished step only. ``pose`` steps give
  ``max_reward / len(objs)`` per object that sits on one of the targets its row
  of ``matches`` allows; ``zone`` steps give ``max_reward`` times the share of
  the objects' points inside the zones (``total_pts`` counts every object once
  per zone, and an object has as many points as ``get_box_object_points``'
  0.02 m grid puts in it: 8 for a 4 cm block, 27 for a 6 cm one).
* The score is ``progress + step_reward``; when the step's reward is within
  0.001 of its ``max_reward`` the step is popped and ``progress`` grows by
  ``max_reward``, **one step per call** (the next step is first scored at the
  next call, i.e. after the next action).
* ``done()`` is "no step left, or the score is at least 0.98".
* ``zone_with_z_match`` steps (the stacking-on-a-zone family) are ``zone`` steps that first drop every object
  whose height matches none of its allowed targets' (``is_z_match``, 1.5 cm) from both counts. On a symbolic
  tabletop every block rests at a whole stack level, and the targets are the levels 0..n-1 of an n-block
  stack, so every block matches and the metric is the ``zone`` metric (the official division by zero, when
  no block matches, cannot happen here).

pgt reproduces this on a symbolic state: each object's place (a target name,
``table``, or a zone with the number of its points inside). The per-family
steps, their weights and order are in :data:`FAMILIES` (each cites its class).
pgt's own "share of goal conjuncts true at the end" stays ``partial_credit`` of
``pgt score plan``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from toolkit.errors import PgtError

DONE_THRESHOLD = 0.98  # cliport/tasks/task.py, Task.done
STEP_TOLERANCE = 0.001  # cliport/tasks/task.py, Task.reward: np.abs(max_reward - step_reward) < 0.001
METRICS = ("pose", "zone", "zone_with_z_match")  # Task.reward's metrics
GRID = 0.02  # cliport/tasks/task.py, Task.get_box_object_points: np.arange(-d / 2, d / 2, 0.02) per axis


def box_points(size: tuple[float, float, float]) -> int:
    """How many points ``get_box_object_points`` samples in a box of ``size`` metres.

    >>> box_points((0.04, 0.04, 0.04)), box_points((0.06, 0.06, 0.06))
    (8, 27)
    """
    import numpy as np

    return math.prod(len(np.arange(-d / 2, d / 2, GRID)) for d in size)


@dataclass(frozen=True)
class GoalStep:
    """One entry of ``Task.goals``: objects, which targets each may take, the metric and its weight."""

    objects: tuple[str, ...]
    matches: tuple[tuple[bool, ...], ...]  # matches[i][j]: object i may sit on target j
    targets: tuple[str, ...]  # target names (a pose slot, a bowl) or zone names for 'zone'
    metric: str  # 'pose' | 'zone' | 'zone_with_z_match'
    max_reward: float
    points: tuple[int, ...] = ()  # 'zone': points per object (box_points of its size)

    def __post_init__(self) -> None:
        if self.metric not in METRICS:
            raise PgtError(f"goal step metric must be one of {', '.join(METRICS)}, got {self.metric!r}")
        if len(self.matches) != len(self.objects) or any(len(r) != len(self.targets) for r in self.matches):
            raise PgtError("goal step matches must have one row per object and one column per target")


@dataclass
class Placement:
    """Where each object is: ``at[obj]`` a target/zone name or 'table'; ``in_zone[(obj, zone)]`` points inside;
    ``matched[obj]`` further pose targets its pose matches (a stack level: :mod:`toolkit.scoring.lohoravens_stacks`;
    two levels of different sizes may both be within the height tolerance)."""

    at: dict[str, str] = field(default_factory=dict)
    in_zone: dict[tuple[str, str], int] = field(default_factory=dict)
    matched: dict[str, frozenset[str]] = field(default_factory=dict)

    def on_target(self, obj: str, target: str) -> bool:
        """Whether ``obj``'s pose matches ``target`` (``Task.is_match``)."""
        return self.at.get(obj) == target or target in self.matched.get(obj, ())

    def points_in(self, obj: str, zone: str, points: int) -> int:
        if (obj, zone) in self.in_zone:
            return self.in_zone[(obj, zone)]
        return points if self.at.get(obj) == zone else 0


def step_reward(step: GoalStep, state: Placement) -> float:
    """``Task.reward()``'s ``step_reward`` for one goal step (see the module docstring)."""
    if step.metric == "pose":
        total = 0.0
        for i, obj in enumerate(step.objects):
            if any(row and state.on_target(obj, step.targets[j]) for j, row in enumerate(step.matches[i])):
                total += step.max_reward / len(step.objects)  # added once per object, as the official loop breaks
        return total
    zone_pts = total_pts = 0
    for zone in step.targets:  # for zone in zones: for obj in obj_pts (every object counted once per zone)
        for obj, pts in zip(step.objects, step.points, strict=True):
            zone_pts += state.points_in(obj, zone, pts)
            total_pts += pts
    return step.max_reward * (zone_pts / total_pts)


class RewardTrace:
    """``Task.reward()`` called after each action: the goal steps, ``progress`` and the running score."""

    def __init__(self, steps: list[GoalStep]) -> None:
        self.goals = list(steps)
        self.progress = 0.0
        self.rewards = 0.0  # Task._rewards: the cumulative score

    def reward(self, state: Placement) -> float:
        """One call of ``Task.reward()``: the delta; the cumulative score is :attr:`rewards`."""
        if not self.goals:
            return 0.0  # the official env stops calling once done(); an empty list would fail there
        step = self.goals[0]
        got = step_reward(step, state)
        delta = self.progress + got - self.rewards
        self.rewards = self.progress + got
        if abs(step.max_reward - got) < STEP_TOLERANCE:
            self.progress += step.max_reward
            self.goals.pop(0)
        return delta

    def done(self) -> bool:
        """``Task.done()``: every step finished, or the score reached 0.98."""
        return not self.goals or self.rewards >= DONE_THRESHOLD


def trace(steps: list[GoalStep], start: Placement, moves: list[tuple[str, str]]) -> list[float]:
    """The cumulative score after each pick-and-place ``(object, place)``, as the official loop scores it."""
    state = Placement(dict(start.at), dict(start.in_zone), dict(start.matched))
    tracker, out = RewardTrace(steps), []
    for obj, place in moves:
        state.at[obj] = place
        state.matched.pop(obj, None)
        for key in [k for k in state.in_zone if k[0] == obj]:
            del state.in_zone[key]
        tracker.reward(state)
        out.append(tracker.rewards)
    return out
