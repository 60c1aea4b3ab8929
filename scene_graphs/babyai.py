"""BabyAI levels (Farama minigrid) behind pgt's ``Environment`` protocol: minigrid holds the truth.

Why a wrapper, not a graph world: LLM-BabyBench's items are minigrid levels and
seeds, and their meaning (where the agent ends, whether the mission is done) is
what minigrid's ``step`` does. So this world keeps a minigrid environment, steps
it with minigrid's own actions, reads the true atoms off its grid
(:func:`scene_graphs.babyai_problem.abstract`), draws minigrid's own frames,
and describes the level in the benchmark's own text (``formatters/structured.py``).
The PDDL side is ``pddl_domains/babyai``: one PDDL action per minigrid action,
with minigrid's rules as preconditions, so planners and grounders work on it
like on any task, and the world contract test checks the two agree.

``can_execute`` reads minigrid's state, not the PDDL atoms: the agent's cell
and direction, the cell in front (``front_pos``) and what ``step`` would do
there. An action minigrid would ignore (walking into a ball, toggling a locked
door without its key) is not executed and changes nothing. Failure model: with
``failure_prob`` an executable action does nothing (``no_effect``), seeded.
"""

from __future__ import annotations

import io
import random
from typing import Any

from toolkit.errors import PgtError
from toolkit.model import Atom
from toolkit.protocols import Observation, StepOutcome
from toolkit.reading.text import init_location
from toolkit.scoring.babyai_levels import ACTION_NAMES, DIRECTIONS, make_level
from toolkit.task import GroundAction, Task
from scene_graphs.babyai_problem import abstract, cell, level_of, named_objects

# PDDL action -> minigrid action (toggle serves five PDDL actions, as one key does in minigrid).
MINIGRID_ACTION = {"left": "left", "right": "right", "forward": "forward", "pickup": "pickup", "drop": "drop",
                   "open-door": "toggle", "close-door": "toggle", "unlock-door": "toggle", "open-box": "toggle",
                   "open-box-with": "toggle"}


class BabyAIWorld:
    """A BabyAI level as a pgt world; the level and seed come from the task's problem name."""

    domain_name = "babyai"

    def __init__(self, task: Task, *, failure_prob: float = 0.0, seed: int | None = None, **_: Any) -> None:
        if not 0.0 <= failure_prob <= 1.0:
            raise PgtError(f"failure probability must be in [0, 1], got {failure_prob}")
        self.task = task
        self.level, self.level_seed = level_of(task.problem.name)
        self.failure_prob = failure_prob
        self._seed = seed
        self.reset(seed)

    # ------------------------------------------------------------ protocol

    def reset(self, seed: int | None = None) -> Observation:
        """The level as its seed makes it; ``seed`` re-seeds the failure model only."""
        if seed is not None:
            self._seed = seed
        self._rng = random.Random(self._seed)
        self.env = make_level(self.level, self.level_seed)
        self.objects = named_objects(self.env)
        self.names = {id(o): n for n, o in self.objects}
        self.step = 0
        self._truth: tuple[int, frozenset[Atom]] | None = None
        self._context: tuple[int, tuple[str, str, str, Any, Any]] | None = None
        if self.true_state() != self.task.init:
            diff = sorted(map(str, self.true_state() ^ self.task.init))[:4]
            raise PgtError(f"{init_location(self.task.problem.path)}: the problem is not {self.level} seed {self.level_seed} as "
                           f"minigrid makes it (first differences: {' '.join(diff)}); rewrite it with pgt babyai-problem")
        return self.observe()

    def true_state(self) -> frozenset[Atom]:
        if self._truth is None or self._truth[0] != self.step:
            self._truth = (self.step, self.task.respell(abstract(self.env, self.objects)))
        return self._truth[1]

    def observe(self) -> Observation:
        u = self.env.unwrapped
        snapshot = (u.grid.encode(), tuple(int(v) for v in u.agent_pos), int(u.agent_dir))
        return Observation(step=self.step, truth=self.true_state(), visible=None,
                           render=lambda: _png(*snapshot), state_key=self.true_state())

    def _here(self) -> tuple[str, str, str, Any, Any]:
        """(agent cell, front cell, direction, object in front, carried object), once per step."""
        if self._context is None or self._context[0] != self.step:
            u = self.env.unwrapped
            front = tuple(int(v) for v in u.front_pos)
            self._context = (self.step, (cell(*map(int, u.agent_pos)), cell(*front), DIRECTIONS[int(u.agent_dir)],
                                         u.grid.get(*front), u.carrying))
        return self._context[1]

    def can_execute(self, action: GroundAction) -> bool:
        """Whether minigrid's ``step`` would carry out ``action`` now (read off minigrid, not the atoms)."""
        here, front, facing, fwd, carrying = self._here()
        name, args = action.name, tuple(a.lower() for a in action.args)  # minigrid's names are lower case
        if name in ("left", "right"):
            turned = DIRECTIONS[(DIRECTIONS.index(facing) + (-1 if name == "left" else 1)) % 4]
            return args == (facing, turned)
        if args[-3:] != (here, front, facing):
            return False
        mine = self.names.get(id(fwd)) if fwd is not None else None
        if name == "forward":
            return fwd is None or fwd.can_overlap()
        if name == "pickup":
            return fwd is not None and fwd.can_pickup() and carrying is None and mine == args[0]
        if name == "drop":
            return fwd is None and carrying is not None and self.names.get(id(carrying)) == args[0]
        if name in ("open-box", "open-box-with"):
            if fwd is None or fwd.type != "box" or mine != args[0]:
                return False
            inside = self.names.get(id(fwd.contains)) if fwd.contains is not None else None
            return inside is None if name == "open-box" else inside == args[1]
        if fwd is None or fwd.type != "door" or mine != args[0]:
            return False
        if name == "open-door":
            return not fwd.is_locked and not fwd.is_open
        if name == "close-door":
            return fwd.is_open
        if name == "unlock-door":
            return (fwd.is_locked and carrying is not None and carrying.type == "key" and carrying.color == fwd.color
                    and self.names.get(id(carrying)) == args[1])
        return False

    def execute(self, action: GroundAction) -> StepOutcome:
        """Step minigrid with the action; an action minigrid would ignore is not stepped."""
        failure: str | None = None
        executed = self.can_execute(action)
        if executed:
            if self.failure_prob > 0.0 and self._rng.random() < self.failure_prob:
                failure = "no_effect"
            else:
                self.env.step(ACTION_NAMES.index(MINIGRID_ACTION[action.name]))
        self.step += 1
        self._truth = self._context = None
        return StepOutcome(action=str(action), executed=executed, failure=failure, observation=self.observe())

    # ------------------------------------------------------------ BabyAI's own views

    def describe(self) -> str:
        """The level in LLM-BabyBench's structured text (``formatters/structured.py``, ``StructuredFormatter``)."""
        return describe(self.env)

    def mission_done(self) -> bool:
        """minigrid's own verdict on the mission (its verifier), beside the PDDL goal."""
        return self.env.unwrapped.instrs.verify_action(ACTION_NAMES.index("done")) == "success"


def _png(encoded: Any, agent_pos: tuple[int, int], agent_dir: int) -> bytes:
    """minigrid's own drawing of a grid snapshot (its tiles, 32 px as the benchmark makes its levels),
    without the highlight of the agent's view cone."""
    from minigrid.core.grid import Grid
    from PIL import Image

    grid, _ = Grid.decode(encoded)
    frame = grid.render(32, agent_pos, agent_dir)
    buf = io.BytesIO()
    Image.fromarray(frame).save(buf, format="PNG")
    return buf.getvalue()


_HEADER = (
    "An agent is in a grid world consisting of one or more rooms. "
    "All rooms in the same grid world are squares of identical size and are organized in a square grid layout. "
    "Rooms are separated by walls and might contain objects such as keys, balls, and boxes of different colors. "
    "Some walls, connecting two adjacent rooms, have doors. Some doors are unlocked, whereas others need to be "
    "unlocked with keys of the same color. "
    "The agent can perform 6 actions: left (turn left), right (turn right), forward (move forward), pickup (pickup an "
    "object), drop (drop an object), and toggle (open/close a door or a box). "
    "Only the forward action changes the agent's position in the grid world. Turning left or right changes the "
    "agent's orientation only but not the position. "
    "The agent cannot move into a cell that is already occupied by an object, even if the object is one it is "
    "trying to interact with. "
    "Using a coordinate system where the (0, 0) position is the top-left corner of the grid world, necessarily "
    "corresponding to a wall, "
    "the coordinates follow the format (x, y), with x denoting the horizontal position in the grid and y denoting "
    "the vertical position in the grid,\n\n"
    "These are the specifics regarding this environment: \n\n"
)


def describe(env: Any) -> str:
    """The benchmark's structured description of a level's current state, line for line."""
    u = env.unwrapped
    rows, cols, size = int(u.num_rows), int(u.num_cols), int(u.room_size)
    lines = [f"- Number of rooms: {rows}x{cols}" if rows > 1 or cols > 1 else "- Number of rooms: 1",
             f"- Size of each room (including walls): {size}x{size}",
             f"- Effective room size (excluding walls): {size - 2}x{size - 2}",
             f"- Total grid size: {int(u.grid.height)}x{int(u.grid.width)}",
             f"- Agent initial position: {tuple(int(x) for x in u.agent_pos)}",
             f"- Agent facing direction: {DIRECTIONS[int(u.agent_dir)]} (toward {tuple(int(x) for x in u.front_pos)})"]
    objects = []
    for idx, obj in enumerate(u.grid.grid):
        if obj is not None and obj.type in ("door", "key", "ball", "box"):
            pos = (idx % u.grid.width, idx // u.grid.width)
            lock = f", locked={obj.is_locked}" if obj.type == "door" else ""
            objects.append(f"  - {obj.type}, color={obj.color}, position={pos}{lock}")
    lines += ["- Objects in environment:", *objects] if objects else ["- Objects in environment: none"]
    lines.append(f"- Mission: '{u.mission}'")
    return _HEADER + "\n".join(lines)
