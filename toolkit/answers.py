"""Reading a yes/no verdict out of a model's reply.

Models answer in many shapes: "Yes.", "**No**", "yes, it is", the ViPlan
chain-of-thought format ``<explanation>...</explanation><answer>No</answer>``,
or JSON (``{"answer": "yes"}``). :func:`parse_answer` accepts all of them and
never raises: a reply it cannot read comes back as an explicit ``unparseable``
result, so one odd reply never aborts an episode.

>>> parse_answer("**Yes**, it is.").verdict
<Verdict.YES: 'yes'>
>>> parse_answer("<explanation>no block on it</explanation><answer> No </answer>").verdict
<Verdict.NO: 'no'>
>>> parse_answer("I cannot tell.").status
'unparseable'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from toolkit.protocols import Verdict
from toolkit import jsontext

_WORDS = {"yes": Verdict.YES, "y": Verdict.YES, "true": Verdict.YES,
          "no": Verdict.NO, "n": Verdict.NO, "false": Verdict.NO}
_ANSWER_TAG = re.compile(r"<answer>(.*?)(?:</answer>|$)", re.IGNORECASE | re.DOTALL)
_EXPLANATION = re.compile(r"<explanation>(.*?)(?:</explanation>|$)", re.IGNORECASE | re.DOTALL)
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL | re.IGNORECASE)
_TOKEN = re.compile(r"[a-z]+")
_JSON_KEYS = ("answer", "verdict", "response", "result", "output")


@dataclass(frozen=True)
class ParsedAnswer:
    """A verdict read from text; ``status`` is ``ok`` or ``unparseable``."""

    verdict: Verdict
    status: str
    explanation: str = ""


UNPARSEABLE = ParsedAnswer(Verdict.UNKNOWN, "unparseable")


def word_verdict(text: str) -> Verdict | None:
    """The verdict of a short answer: its first word if that is yes/no, else the only yes/no word in it.

    >>> word_verdict("No, the block is not there"), word_verdict("The answer is yes")
    (<Verdict.NO: 'no'>, <Verdict.YES: 'yes'>)
    >>> word_verdict("It could be yes or no") is None
    True
    """
    tokens = _TOKEN.findall(text.lower())
    if not tokens:
        return None
    if tokens[0] in _WORDS:
        return _WORDS[tokens[0]]
    found = {_WORDS[t] for t in tokens if t in ("yes", "no")}
    return found.pop() if len(found) == 1 else None


def _from_json(text: str) -> Verdict | None:
    body = _FENCE.sub(r"\1", text.strip())
    if not body.startswith(("{", '"', "t", "f")):
        return None
    try:
        data = jsontext.loads(body)
    except ValueError:
        return None
    if isinstance(data, dict):
        lowered = {str(k).lower(): v for k, v in data.items()}
        data = next((lowered[k] for k in _JSON_KEYS if k in lowered), None)
    if isinstance(data, bool):
        return Verdict.YES if data else Verdict.NO
    if isinstance(data, str):
        return word_verdict(data)
    return None


def parse_answer(text: str | None) -> ParsedAnswer:
    """Parse a reply into a verdict; never raises."""
    if not text or not text.strip():
        return UNPARSEABLE
    explanation_hit = _EXPLANATION.search(text)
    explanation = explanation_hit.group(1).strip() if explanation_hit else ""
    tags = _ANSWER_TAG.findall(text)
    if tags:
        verdict = word_verdict(tags[-1])
        return ParsedAnswer(verdict, "ok", explanation) if verdict else ParsedAnswer(
            Verdict.UNKNOWN, "unparseable", explanation)
    verdict = _from_json(text)
    if verdict is not None:
        return ParsedAnswer(verdict, "ok")
    if explanation_hit:  # reasoning without answer tags: read what follows the explanation
        tail = text[explanation_hit.end():]
        verdict = word_verdict(tail)
        return ParsedAnswer(verdict, "ok", explanation) if verdict else ParsedAnswer(
            Verdict.UNKNOWN, "unparseable", explanation)
    verdict = word_verdict(text)
    return ParsedAnswer(verdict, "ok") if verdict else UNPARSEABLE


def _viplan_tag(text: str, tag: str) -> str | None:
    start, end = text.find(f"<{tag}>"), text.find(f"</{tag}>")
    if end == -1:
        end = text.find(f"<\\{tag}>")  # ViPlan also accepts a backslash: <\answer>
    return text[start + len(tag) + 2:end].strip() if start != -1 and end != -1 else None


def parse_viplan_answer(text: str | None) -> ParsedAnswer:
    """A reply read exactly as ViPlan's code reads it, for the protocols named after ViPlan.

    ``parse_output`` (``viplan/code_helpers.py``) takes ``<answer>`` / ``<explanation>``
    tags; with any tag found the answer is the ``<answer>`` text (none: no answer),
    else the whole reply. ``ask_vlm`` lower-cases and strips it and trailing ``.,!?``;
    ``cast_to_yes_no`` keeps a leading yes/no, else the first space-separated word
    that *starts with* yes or no ("nothing" and "not" read as no). Anything else is not
    yes/no, which ends a ViPlan episode.

    >>> parse_viplan_answer("<answer>Not at all</answer>").verdict, parse_viplan_answer("Unclear").status
    (<Verdict.NO: 'no'>, 'unparseable')
    """
    if text is None:
        return UNPARSEABLE
    answer, explanation = _viplan_tag(text, "answer"), _viplan_tag(text, "explanation")
    found = answer is not None or explanation is not None
    reply = answer if found else text.strip()
    if reply is None:
        return ParsedAnswer(Verdict.UNKNOWN, "unparseable", explanation or "")
    reply = reply.strip().lower().rstrip(".,!?")
    if not reply.startswith(("yes", "no")):
        reply = next((("yes" if w.startswith("yes") else "no") for w in reply.split(" ")
                      if w.startswith(("yes", "no"))), reply)
    if reply.startswith("yes"):
        return ParsedAnswer(Verdict.YES, "ok", explanation or "")
    if reply.startswith("no"):
        return ParsedAnswer(Verdict.NO, "ok", explanation or "")
    return ParsedAnswer(Verdict.UNKNOWN, "unparseable", explanation or "")
