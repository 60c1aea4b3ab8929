"""Answer parsing: every reply shape gives a verdict or an explicit unparseable result."""

from __future__ import annotations

import pytest

from toolkit.answers import parse_answer
from toolkit.protocols import Verdict

CASES = [
    ("Yes", Verdict.YES), ("yes.", Verdict.YES), ("YES!", Verdict.YES), ("**No**", Verdict.NO),
    ("no", Verdict.NO), ("Yes, it is.", Verdict.YES), ("  No, the block is not there. ", Verdict.NO),
    ("The answer is yes.", Verdict.YES), ("`no`", Verdict.NO), ("True", Verdict.YES),
    ("<explanation>The red block is on top; nothing is above it, so yes</explanation>\n<answer> No </answer>",
     Verdict.NO),
    ("<explanation>no doubt</explanation><answer>\nYes\n\n</answer>", Verdict.YES),
    ("<answer>No", Verdict.NO),
    ('{"answer": "yes"}', Verdict.YES), ('```json\n{"Answer": "No"}\n```', Verdict.NO),
    ('{"answer": true}', Verdict.YES), ("<explanation>looked</explanation> No.", Verdict.NO),
]


@pytest.mark.parametrize("text,verdict", CASES)
def test_verdicts(text: str, verdict: Verdict) -> None:
    parsed = parse_answer(text)
    assert (parsed.verdict, parsed.status) == (verdict, "ok")


@pytest.mark.parametrize("text", ["", "   ", None, "I cannot tell.", "It could be yes or no",
                                  "<answer>maybe</answer>", '{"answer": 3}', "<explanation>hmm"])
def test_unparseable_is_explicit_and_never_raises(text: str | None) -> None:
    parsed = parse_answer(text)
    assert (parsed.verdict, parsed.status) == (Verdict.UNKNOWN, "unparseable")


def test_explanation_is_kept() -> None:
    assert parse_answer("<explanation>red on top</explanation><answer>Yes</answer>").explanation == "red on top"


@pytest.mark.parametrize("reply,verdict", [
    ("Yes.", "yes"), ("<explanation>It is there.</explanation>\n<answer>\nNo\n\n</answer>", "no"),
    ("I think not", "no"), ("Nothing is on it", "no"), ("yesterday", "yes"), ("The answer is: yes.", "yes"),
    ("<answer>No<\\answer>", "no"), ("Maybe", None), ("<explanation>The red block is on top.</explanation>", None),
    ("", None), ("It could be yes or no", "yes"),
])
def test_the_viplan_protocols_read_replies_as_viplans_code(reply: str, verdict: str | None) -> None:
    # parse_output + cast_to_yes_no (viplan/code_helpers.py, benchmark_blocksworld_plan.py): the first word
    # *starting* with yes/no decides; tags found without an <answer> are no answer at all
    from toolkit.answers import parse_viplan_answer

    parsed = parse_viplan_answer(reply)
    assert (parsed.verdict.value if parsed.status == "ok" else None) == verdict
