"""The VLM-as-grounder prompts of the ViPlan paper (appendix I), verbatim.

ViPlan has one prompt pair per domain, with and without chain of thought (CoT).
The text below is copied from appendix I of the paper (typographic dashes and
spacing as printed there). One flaw of the original code is fixed here, not in
the text: the user message really contains ``Question: <question>?`` (question
mark included) after the image, which the system prompt announces.

Domains without a ViPlan prompt use the same system prompts without the
domain paragraph, and the scene description of their ``questions.toml`` (if any)
as the user preamble.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolkit.phrasing import as_question

BASE_NO_COT = (
    'You are tasked with replying to a question about the given image. You will be given a single question, '
    'defined after the keyword "Question:" and will need to answer it ONLY with Yes or No. Do not write '
    'anything else besides your answer.'
)

BASE_COT = (
    'You are tasked with replying to a question about the given image. You will be given a single question, '
    'defined after the keyword "Question:" and will need to first reason about it and then give a Yes or No '
    'answer. The reasoning for your answer should be written within the XML–style <explanation> '
    '</explanation>tags. To write the final answer, you should write only "Yes" or "No" surrounded by '
    '<answer></answer>tags. Do not write anything else besides your step–by–step reasoning and your answer.\n\n'
    'Example output for a question about the an image:\n\n'
    'Question: Is there a dog on top of a table?\n\n'
    '<explanation>\n\n'
    'First, I will look for a dog in the image. Then, I will check if the dog is on top of a table. In the '
    'image, there is a dog and there is a table, but the dog is not on top of the table. Therefore, the '
    'answer is "No". </explanation>\n\n'
    '<answer>\nNo\n\n</answer>'
)

BW_SCENE = (
    'The image will be about colored blocks and how they relate to each other. In the environment, the '
    'blocks will be arranged in columns, spanning from left to right. Keep in mind that some of these '
    'columns can be empty with no blocks currently placed in them. Within a column one or multiple blocks '
    'of different colors can be stacked on top of each other.'
)

HH_SCENE = (
    'The environment is a virtual household simulator, with objects and furniture which can be interacted '
    'with. There is a robotic arm, which is the agent, that can hold objects.'
)


@dataclass(frozen=True)
class PromptSet:
    """System prompt and the user text that precedes the image, for one setting."""

    system: str
    user_preamble: str

    def user_text(self, question: str) -> str:
        """The text after the image: the question with its keyword and question mark."""
        return f"Question: {as_question(question)}"


PROMPTS: dict[tuple[str, bool], PromptSet] = {
    ("viplan-bw", False): PromptSet(
        BASE_NO_COT + "\n\n" + BW_SCENE + " Your task is to correctly evaluate the question based on the "
        "image provided.", ""),
    ("viplan-bw", True): PromptSet(BASE_COT, BW_SCENE),
    ("viplan-hh", False): PromptSet(BASE_NO_COT, HH_SCENE),
    ("viplan-hh", True): PromptSet(BASE_COT, HH_SCENE),
}


def prompt_set(style: str, cot: bool, scene: str = "") -> PromptSet:
    """The ViPlan prompts for a style (``viplan-bw``, ``viplan-hh``), or the generic ones."""
    hit = PROMPTS.get((style, cot))
    if hit is not None:
        return hit
    return PromptSet(BASE_COT if cot else BASE_NO_COT, scene)
