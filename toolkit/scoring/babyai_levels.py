"""BabyAI levels as LLM-BabyBench makes and steps them: one place for the benchmark's conventions.

Every official script builds a level the same way (``gym.make(name,
tile_size=32, render_mode='rgb_array')`` then ``reset(seed=seed)``:
``evaluators/predict.py``, ``evaluators/plan.py``, ``runner/env_loader.py``) and
reads actions the same way (``evaluators/utils.py``, ``str_action_seq_to_int``:
split on commas, strip, lower-case, keep the names of minigrid's ``Actions``,
drop every other word silently). The agent state is ``((x, y), direction)``
with minigrid's directions (0 east, 1 south, 2 west, 3 north). Both the scorer
(:mod:`toolkit.scoring.babybench_tasks`) and the BabyAI world
(``scene_graphs/babyai.py``) go through here, so they cannot drift apart.

minigrid is the optional extra ``babyai``; it is imported inside the functions.
"""

from __future__ import annotations

import contextlib
import io
from typing import Any

from toolkit.errors import PgtError, closest

# minigrid.core.actions.Actions, in value order (evaluators/utils.py int_action_seq_to_str spells the same list).
ACTION_NAMES: tuple[str, ...] = ("left", "right", "forward", "pickup", "drop", "toggle", "done")
DIRECTIONS: tuple[str, ...] = ("east", "south", "west", "north")  # minigrid's agent_dir 0..3

_registered = False


def require_minigrid() -> None:
    """Import gymnasium and minigrid, or say which extra to install (one line, no traceback)."""
    try:
        import gymnasium  # noqa: F401
        import minigrid  # noqa: F401
    except ImportError:
        raise PgtError("BabyAI needs minigrid: pip install 'pddl-grounding-toolkit[babyai]'") from None


def register_custom_levels() -> None:
    """Register minigrid's BabyAI levels and LLM-BabyBench's 16 custom Plan levels with gymnasium (once)."""
    global _registered
    require_minigrid()
    if _registered:
        return
    import gymnasium as gym
    import minigrid  # noqa: F401 - importing minigrid registers its BabyAI-* levels

    from toolkit.scoring.babyai_custom import custom_level_ids

    for level, kwargs in custom_level_ids().items():
        if level not in gym.registry:
            gym.register(id=level, entry_point="toolkit.scoring.babyai_custom:CustomGoToRedBallEnv", kwargs=kwargs)
    _registered = True


def level_names() -> list[str]:
    """Every BabyAI level id known to gymnasium (minigrid's and the benchmark's custom ones), sorted."""
    register_custom_levels()
    import gymnasium as gym

    return sorted(k for k in gym.registry if "BabyAI-" in k)


def make_level(level: str, seed: int) -> Any:
    """A BabyAI level reset with ``seed``, exactly as the benchmark's scripts make it.

    Raises a one-line :class:`PgtError` for an unknown level, with the closest names.
    """
    register_custom_levels()
    import gymnasium as gym

    if level not in gym.registry or "BabyAI-" not in level:
        hint = closest(level, level_names())
        raise PgtError(f"unknown BabyAI level '{level}'" + (f"; did you mean {', '.join(hint)}?" if hint else ""))
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise PgtError(f"the seed must be an integer, got {seed!r}")
    env = gym.make(level, tile_size=32, render_mode="rgb_array")
    # minigrid prints each rejected layout draw ("Sampling rejected: ...") on standard output, which
    # is pgt's JSON Lines stream; the draws themselves are untouched.
    with contextlib.redirect_stdout(io.StringIO()):
        env.reset(seed=seed)
    return env


def parse_actions(text: str) -> list[int]:
    """Action ids of a comma-separated action text, read as ``str_action_seq_to_int`` reads it.

    Unknown words are dropped, not refused (the official reader keeps only names
    of minigrid's ``Actions``); spaces inside an item make it unknown.

    >>> parse_actions("left, Forward ,forward, jump, pickup")
    [0, 2, 2, 3]
    >>> parse_actions("left forward")
    []
    """
    return [ACTION_NAMES.index(a) for a in (w.strip().lower() for w in text.split(",")) if a in ACTION_NAMES]


def agent_state(env: Any) -> tuple[tuple[int, int], int]:
    """``((x, y), direction)`` of the agent, as the evaluators read it from ``env.unwrapped``."""
    u = env.unwrapped
    return (int(u.agent_pos[0]), int(u.agent_pos[1])), int(u.agent_dir)


def run_actions(env: Any, actions: list[int]) -> tuple[float, bool, bool, int]:
    """Step ``actions`` until the episode terminates or truncates, as every evaluator loop does.

    Returns (summed reward, terminated, truncated, number of actions stepped).
    """
    total, terminated, truncated, stepped = 0.0, False, False, 0
    for action in actions:
        _obs, reward, term, trunc, _info = env.step(action)
        total += reward
        stepped += 1
        if term or trunc:
            terminated, truncated = bool(term), bool(trunc)
            break
    return total, terminated, truncated, stepped
