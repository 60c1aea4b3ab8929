"""LLM-BabyBench's Predict, Plan and Decompose scores, computed as its ``evaluators/`` compute them.

Each function reads the official evaluator rule for rule (choukrani/llm-babybench):

* **Predict** (``evaluators/predict.py``, ``PredictEvaluator.evaluate``): the
  prediction is read by ``evaluators/utils.py`` ``parse_state_prediction`` (the
  first ``((x, y), d)``, else the first three integers anywhere); nothing
  readable is an error (the evaluator raises); the actions are stepped until the
  episode ends; ``success`` is position **and direction** equal;
  ``manhattan_distance`` (``evaluators/metrics.py``) ignores the direction.
* **Plan** (``evaluators/plan.py``, ``PlanEvaluator.evaluate``): both the bot's
  and the model's actions are read with ``str_action_seq_to_int`` (unknown words
  dropped) and stepped until the episode ends; ``CR`` is "the model's run
  terminated" (minigrid ends a BabyAI episode on success);
  ``llm_efficiency`` is the bot's action count over **all** the model's parsed
  actions (also those after the end), 0 unless the model's run terminated;
  ``llm_ball_distance`` is the Manhattan distance from the model's final
  position to the first red ball found column by column, minus 1 (a level
  without a red ball on the grid makes the official evaluator fail: an error
  here too).
* **Decompose** (``evaluators/decompose.py``, ``DecomposeEvaluator.evaluate``):
  see :mod:`toolkit.scoring.babybench_decompose`.

pgt's own variants sit beside the official keys under ``pgt_`` names:
``pgt_position_success`` (Predict: the position alone, the paper's formula 1)
and ``pgt_efficiency`` (Plan: the bot's count over the actions stepped up to the
end of the episode, so steps after success are not charged).

The ``output`` is what the evaluator receives (the pipeline's
``parsed_llm_output``); :func:`pipeline_parse` applies the pipeline's own reader
(``llms/utils.py``, ``parser``) to a model's whole reply first.
"""

from __future__ import annotations

import re
from typing import Any

from toolkit.errors import PgtError
from toolkit.scoring.babyai_levels import agent_state, make_level, parse_actions, run_actions

_STATE = re.compile(r"\(\s*\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)\s*,\s*(-?\d+)\s*\)")
_INT = re.compile(r"-?\d+")


def parse_state_prediction(text: str) -> tuple[tuple[int, int], int] | None:
    """``((x, y), direction)`` from a Predict answer, as ``parse_state_prediction`` reads it; None if unreadable.

    >>> parse_state_prediction("The agent ends at ((1, 5), 1).")
    ((1, 5), 1)
    >>> parse_state_prediction("x=3 y=4 facing 2 after 7 steps")
    ((3, 4), 2)
    >>> parse_state_prediction("(3, 4)") is None
    True
    """
    match = _STATE.search(text)
    if match:
        x, y, d = map(int, match.groups())
        return (x, y), d
    numbers = _INT.findall(text)
    if len(numbers) >= 3:
        x, y, d = map(int, numbers[:3])
        return (x, y), d
    return None


def pipeline_parse(reply: str, task: str) -> str:
    """The part of a whole model reply the official pipeline hands to the evaluator (``llms/utils.py`` ``parser``).

    The marker is found case-insensitively and cut at the length of its
    capitalized spelling, as the original does; no marker gives "".

    >>> pipeline_parse("Reasoning... The agent's final state is: ((2, 3), 0)", "predict")
    '((2, 3), 0)'
    >>> pipeline_parse("<start>\\n(PickupSubgoal)\\n<end>", "decompose")
    '(PickupSubgoal)'
    """
    low = reply.lower()
    if task in ("predict", "plan"):
        marker = "the agent's final state is: " if task == "predict" else "the llm's action sequence is: "
        index = low.find(marker)
        return "" if index == -1 else reply[index + len(marker):].strip()
    if task == "decompose":
        start, end = low.find("<start>\n"), low.find("\n<end>")
        return "" if start == -1 else reply[start + len("<start>\n"):end].strip()
    return ""


def manhattan_distance(pred: tuple[tuple[int, int], int], true: tuple[tuple[int, int], int]) -> int:
    """``evaluators/metrics.py`` ``manhattan_distance``: positions only, the direction is ignored.

    >>> manhattan_distance(((1, 5), 1), ((3, 4), 0))
    3
    """
    (x1, y1), _ = pred
    (x2, y2), _ = true
    return abs(x1 - x2) + abs(y1 - y2)


def score_predict(level: str, seed: int, actions: str, output: str) -> dict[str, Any]:
    """Official Predict keys (``success``, ``accuracy``, ``manhattan_distance``) plus pgt's and the states."""
    predicted = parse_state_prediction(output)
    if not predicted:
        # evaluators/predict.py raises ValueError("predicted_state cannot be None or empty.")
        raise PgtError(f"no state ((x, y), direction) readable in the prediction {output[:60]!r} "
                       "(the official evaluator refuses it)")
    env = make_level(level, seed)
    try:
        run_actions(env, parse_actions(actions))
        true = agent_state(env)
    finally:
        env.close()
    return {"success": predicted == true, "accuracy": float(predicted == true),
            "manhattan_distance": manhattan_distance(predicted, true),
            "pgt_position_success": predicted[0] == true[0],
            "true_state": [list(true[0]), true[1]], "predicted_state": [list(predicted[0]), predicted[1]]}


def _red_ball(env: Any) -> tuple[int, int] | None:
    grid = env.unwrapped.grid
    for i in range(grid.width):  # column by column, as evaluators/plan.py searches
        for j in range(grid.height):
            cell = grid.get(i, j)
            if cell is not None and cell.type == "ball" and cell.color == "red":
                return i, j
    return None


def score_plan(level: str, seed: int, optimal: str, output: str) -> dict[str, Any]:
    """Official Plan keys (``CR``, ``llm_efficiency``, ... ``bot_terminated``) plus ``pgt_efficiency``."""
    bot_actions, llm_actions = parse_actions(optimal), parse_actions(output)
    env_bot = make_level(level, seed)
    try:
        bot_reward, bot_terminated, _, _ = run_actions(env_bot, bot_actions)
    finally:
        env_bot.close()
    env = make_level(level, seed)
    try:
        llm_reward, llm_terminated, llm_truncated, stepped = run_actions(env, llm_actions)
        final, ball = agent_state(env), _red_ball(env)
    finally:
        env.close()
    if ball is None:
        raise PgtError(f"no red ball on the grid of {level} seed {seed} after the plan: the official Plan "
                       "evaluator measures the distance to it and fails here")
    n_bot, n_llm = len(bot_actions), len(llm_actions)
    return {"CR": 1 if llm_terminated else 0, "number_of_bot_actions": n_bot, "number_of_llm_actions": n_llm,
            "llm_efficiency": n_bot / n_llm if n_llm > 0 and llm_terminated else 0,
            "bot_reward": bot_reward, "llm_reward": llm_reward,
            "llm_ball_distance": manhattan_distance((final[0], final[1]), (ball, 0)) - 1,
            "llm_terminated": llm_terminated, "bot_terminated": bot_terminated,
            "pgt_efficiency": n_bot / stepped if llm_terminated else 0,  # a terminated run stepped at least once
            "llm_truncated": llm_truncated, "llm_final_state": [list(final[0]), final[1]]}


__all__ = ["manhattan_distance", "parse_state_prediction", "pipeline_parse", "score_plan", "score_predict"]
