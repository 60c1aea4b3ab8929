"""LoHoRavens' LLM planner prompt, as ``cliport/llm.py`` assembles it for a chat model (Shengqiang-Zhang/LoHo-Ravens).

``get_llm_general_prompt`` gives the system prompt, the "please help" request and
the few-shot examples (verbatim below: the examples' ``{please_help}`` stands
where the code splices that request in); ``get_task_llm_prompt_for_next_step``
builds the first message pair and each later user message; the model's reply
is stored back as a ``system`` message (``update_message_history_with_next_plan``)
and read by ``parse_gpt_output``: split into lines, ``N.`` numbering removed,
everything from ``<Done>`` on dropped, the first line kept.

One property of the official loop is kept as it is and named: ``eval_llm_vlm.py``
hands the reporter's words to the planner under the keys
``observation_description`` / ``success_description``, while the prompt reads
``observation_state`` / ``success_state``, so after the first step the official
planner is only asked "What's your next step plan?" (``feedback="official"``).
pgt's ``feedback="delivered"`` passes the reporter's words under the keys the
prompt reads, which is what the paper describes.
"""

from __future__ import annotations

import re
from typing import Any

PLEASE_HELP = (
    'Please help to plan it into lower-level step-by-step action steps based on the observation descriptions. '
    "Note that your answer should follow the format of 'Pick up the [object1] and place it on [object2]'. You "
    'should plan it with step-by-step action steps. Now your plan of first step is: '
)
SYSTEM = (
    'You are a helpful assistant that can help the embodied agent make plans for a high-level human '
    'instruction and decompose the high-level human instruction into low-level executable instructions.'
)
EXAMPLES = (
    '### User:\nThere are bowls with yellow, green, grey, white, and orange colors. There are blue, white, '
    "cyan, orange, and green blocks on the table. The instruction is 'Please put all the blocks into bowls "
    "with matching color', {please_help}### Assistant:\n1. Pick up the white block and place it on a white "
    'bowl. ### User:\nYour plan for next step is: ### Assistant:\n2. Pick up the orange block and place it on '
    'the orange bowl. ### User:\nYour plan for next step is: ### Assistant:\n3. Pick up the green blocks and '
    'place it on the green bowl. <Done>\n### User:\nThere are bowls with yellow, green, grey, white, and '
    "orange colors. There are brown, orange, red and green blocks on the table. The instruction is 'Please put "
    "all the blocks into bowls of the same color', {please_help}### Assistant:\n1. Pick up the orange blocks "
    'and place it on the orange bowl. ### User:\nYour plan for next step is: ### Assistant:\n2. Pick up the '
    'green blocks and place it on the green bowl. <Done>\n### User:\nThere are bowls with green, red, blue, '
    'grey, white, and orange colors. There are green, red, yellow, blue, and orange blocks on the table. The '
    "instruction is 'Please put all the blocks into bowls with matching color', {please_help}### "
    'Assistant:\n1. Pick up the green blocks and place it on the green bowl. ### User:\nYour plan for next '
    'step is: ### Assistant:\n2. Pick up the red blocks and place it on the red bowl. ### User:\nYour plan for '
    'next step is: ### Assistant:\n3. Pick up the blue blocks and place it on the blue bowl. ### User:\nYour '
    'plan for next step is: ### Assistant:\n4. Pick up the orange blocks and place it on the orange bowl. '
    '<Done>\n### User:\nOn the table, there are 3 blocks. Their colors are [green, red, yellow]. There are 2 '
    'zones. Their colors are [white, red]. There are 2 bowls. Their colors are [blue, gray]. The instruction '
    "is 'Put the red block in the white zone', {please_help}### Assistant:\n1. Pick up the red block and place "
    'it on the white zone. <Done>\n### User:\nOn the table, there are 2 blocks. Their colors are [red, green]. '
    "The instruction is 'Stack all blocks', {please_help} ### Assistant:\n1. Pick up the red block and place "
    'it on the table. ### User:\nYour plan for next step is: ### Assistant:\n2. Pick up the green block and '
    'place it on the red block. <Done>\n### User:\nOn the table, there are 2 blocks. Their colors are [grey, '
    "white]. There is a zone. The color is green. The instruction is 'Put all the blocks in the green zone', "
    '{please_help}### Assistant:\n1. Pick up the white block and place it on the green zone. ### User:\nYour '
    'plan for next step is: ### Assistant:\n2. Pick up the gray block and+place it on the green zone. <Done>\n'
)
NEXT_STEP = (
    "The final task instruction is {instruction}. Based on the above information, you should plan the next step "
    "instruction for the robot. If the last step instruction is executed unsuccessfully, you should repeat the last "
    "step instruction.Note that your answer can only contain one sentence and should also follow the format of "
    "'Pick up the [object1] and place it on the [object2]'. You should clearly indicate the color of each object "
    "like 'Pick up the yellow block and place it in the yellow bowl'.If the task is finished, just output <Done>. "
    "So, your plan for next step is: "
)
FEEDBACK_MODES = ("official", "delivered")


def first_messages(instruction: str, observation_state: str | None) -> list[dict[str, Any]]:
    """The system and first user message (``get_task_llm_prompt_for_next_step``, ``is_at_start``)."""
    user = ("Please make plans and decompose the high-level instruction into lower-level step-by-step action "
            f"steps. Here are some examples: {EXAMPLES.format(please_help=PLEASE_HELP)}")
    if observation_state:
        user += f"Now, given the observation '{observation_state}'."
    user += f"The instruction is '{instruction}'. {PLEASE_HELP}"
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def next_message(instruction: str, feedback: dict[str, str], mode: str) -> dict[str, Any]:
    """A later user message; ``feedback`` as the reporter gives it (``observation_description``,
    ``success_description``), read under the keys ``mode`` says (see the module docstring)."""
    if mode == "delivered":
        observation, success = feedback.get("observation_description"), feedback.get("success_description")
    else:  # eval_llm_vlm.py's keys, which the prompt never reads
        observation, success = feedback.get("observation_state"), feedback.get("success_state")
    if not observation and not success:
        return {"role": "user", "content": "What's your next step plan?"}
    text = f"Current observation state is: {observation}. " if observation else ""
    if success:
        text += f"Last step action execution state is: {success}. "
    return {"role": "user", "content": text + NEXT_STEP.format(instruction=instruction)}


def parse_reply(text: str) -> str:
    """``parse_gpt_output``'s first plan: numbering removed, cut at ``<Done>``."""
    return re.sub(r"[0-9]+\.", "", text.split("\n")[0]).lstrip().split("<Done>")[0].strip()
