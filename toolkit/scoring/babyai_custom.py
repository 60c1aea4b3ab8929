"""LLM-BabyBench's own Plan levels, ``CustomBabyAI-GoToRedBall-<Size>-<N>Dists-v0``, rebuilt on minigrid.

Why here: the benchmark's Plan items (``generate/generate_plan.py``) are drawn on
16 levels that minigrid does not ship; the benchmark registers them itself
(``custom/custom_minigrid_envs/register.py``, ``register_envs``) as
``GoToRedBallGrey`` with a configurable room and distractor count
(``custom/custom_minigrid_envs/goto.py``, ``CustomGoToRedBallEnv``). The same
seed only gives the same room if the random draws come in the same order, so
``gen_mission`` draws exactly as that class does: agent, (a room index only for
several rooms), the red ball, the distractors (then greyed), the reachability
check. This module imports minigrid at the top: it is only imported through
:func:`toolkit.scoring.babyai_levels.register_custom_levels`, which checks the
optional extra first.
"""

from __future__ import annotations

from minigrid.envs.babyai.core.roomgrid_level import RoomGridLevel
from minigrid.envs.babyai.core.verifier import GoToInstr, ObjDesc
from minigrid.envs.babyai.goto import GoToRedBallGrey

# (size name, room size, distractor counts): custom/custom_minigrid_envs/register.py, register_envs.
CUSTOM_SIZES: tuple[tuple[str, int, tuple[int, ...]], ...] = (
    ("Small", 8, (4, 5, 6, 7)),
    ("Medium", 16, (20, 40, 50, 60)),
    ("Large", 24, (60, 80, 100, 120)),
    ("Ultra", 32, (120, 140, 160, 180)),
)


def custom_level_ids() -> dict[str, dict[str, int]]:
    """The 16 level ids of LLM-BabyBench's Plan task and their constructor arguments.

    >>> custom_level_ids()["CustomBabyAI-GoToRedBall-Medium-40Dists-v0"]
    {'room_size': 16, 'num_rows': 1, 'num_cols': 1, 'num_dists': 40}
    """
    return {f"CustomBabyAI-GoToRedBall-{name}-{n}Dists-v0":
            {"room_size": size, "num_rows": 1, "num_cols": 1, "num_dists": n}
            for name, size, counts in CUSTOM_SIZES for n in counts}


class CustomGoToRedBallEnv(GoToRedBallGrey):
    """GoToRedBallGrey with a configurable room grid and distractor count (the benchmark's class, redrawn)."""

    def __init__(self, room_size: int = 8, num_rows: int = 1, num_cols: int = 1, num_dists: int = 7, **kwargs) -> None:
        # The benchmark calls RoomGridLevel.__init__ directly (GoToRedBallGrey fixes one room) and sets
        # num_dists after it; gen_mission only runs at reset, so the order does not change a draw.
        RoomGridLevel.__init__(self, room_size=room_size, num_rows=num_rows, num_cols=num_cols, **kwargs)
        self.num_dists = num_dists

    def gen_mission(self) -> None:
        self.place_agent()
        if self.num_rows > 1 or self.num_cols > 1:
            room_i = self.np_random.integers(0, self.num_cols)
            room_j = self.np_random.integers(0, self.num_rows)
        else:
            room_i, room_j = 0, 0
        obj, pos = self.add_object(room_i, room_j, "ball", "red")
        self.ball_room, self.ball_pos = (room_i, room_j), pos
        for dist in self.add_distractors(num_distractors=self.num_dists, all_unique=False):
            dist.color = "grey"
        self.check_objs_reachable()
        self.instrs = GoToInstr(ObjDesc(obj.type, obj.color))
