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
