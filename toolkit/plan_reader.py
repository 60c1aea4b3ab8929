"""Find the plan inside a whole model reply, and say what was left out.

Models wrap plans in prose, ``[PLAN]``/``[PLAN END]`` markers, markdown fences and
lists, write several actions on one line or one action over several lines, and
repeat a plan as a numbered list and again as a fenced copy. This module turns
such text into step candidates, each with its source line, and a list of every
line it skipped with the reason, so nothing is dropped silently. It knows no
domain: :func:`toolkit.plans.parse_plan` decides which candidates are actions,
which are prose (skipped) and which are broken steps (errors).

Region choice, first that applies: the first non-empty ``[PLAN]`` block (a reply to a
prompt that ends with ``[PLAN]`` opens inside one, so a ``[PLAN END]`` before any
``[PLAN]`` closes a block that starts the reply); the last
non-empty fenced block; else the whole text. A JSON plan
(``{"plan": [...]}`` or a list) anywhere in the region is read as JSON.
"""

from __future__ import annotations

import re
from toolkit.records import field, record


_FENCE = re.compile(r"^\s*(?:```|~~~)")
_MARK = re.compile(r"\[\s*(?:[A-Za-z]+\s+)*?(?:PLAN|SOLUTION)(?:\s+(END))?\s*\]|\[\s*(END)\s+PLAN\s*\]|\[\s*/\s*PLAN\s*\]", re.I)
_LIST = re.compile(r"^\s*(?:[-*+•]\s+|\(?\d{1,4}[.):]\s*|(?:step|action)\s*#?\d+\s*[:.)-]?\s*)", re.I)
_LABEL = re.compile(r"^\s*action\s*:\s*", re.I)  # "- Action: Attack object d" (o1's step-by-step answers)
_TIME = re.compile(r"^\s*\d+(?:\.\d+)?\s*:\s*")
_SUFFIX = re.compile(r"\s*(?:\[[^][]*\]|\{[^{}]*\}|#.*|//.*|;.*)\s*$")  # no nesting: linear on "[[[["
_RULE = re.compile(r"^\s*(?:-{3,}|\*{3,}|_{3,}|={3,})\s*$")  # a markdown horizontal rule between sections
_EMPHASIS = re.compile(r"\*\*|__|`")
_GROUP = re.compile(r"\([^()]*\)")
_WRAPPER = re.compile(r"^\(\s*[A-Za-z][\w-]*\s*((?:\([^()]*\)\s*)+)\)$")
_CALLS = re.compile(r"[A-Za-z0-9][\w-]*\s*\([^()]*\)")
_THEN = re.compile(r"\s*(?:;|,?\s+(?:and\s+)?then\s+|,\s+and\s+)\s*", re.I)
# A plain "(name args)" line, the common case, read without the general machinery (speed).
_JSON_KEY = re.compile(r'"(?:plan|actions|steps)"\s*:', re.I)
REFUSAL = re.compile(r"\b(?:no\s+(?:valid\s+|possible\s+|feasible\s+)?(?:plan|solution)s?\b|impossible|unsolvable|"
                     r"not\s+(?:be\s+)?(?:solvable|possible|achievable)|cannot\s+be\s+(?:solved|achieved|reached)|"
                     r"can\s*not\s+be\s+(?:solved|achieved|reached)|can'?t\s+be\s+(?:solved|achieved|reached)|"
                     r"no\s+way\s+to)\b", re.I)


@record
class Candidate:
    """A piece of text that may be one plan step."""

    line: int | None  # 1-based source line (the first one, for joined lines); None for JSON
    text: str  # the step text: list prefixes, timestamps, costs and comments removed
    source: str  # the source line(s) as written
    listed: bool = False  # it came from a list item or a plan block, where a prose line is unusual
    json_item: object = None  # the JSON value, for JSON plans
    simple: tuple[str, tuple[str, ...]] | None = None  # (name, args) of a plain "(name args)" line
    indent: int = 0  # leading spaces of the source line (a tab counts 4): notes nest under their step


@record
class Skipped:
    line: int
    text: str
    why: str

    def to_json(self) -> dict[str, object]:
        return {"line": self.line, "text": self.text, "why": self.why}


@record
class Extract:
    candidates: tuple[Candidate, ...]
    skipped: tuple[Skipped, ...] = field(default=())
    json: bool = False
    blank: bool = False  # the reply has no content at all
    breaks: frozenset[int] = frozenset()  # lines of comments and markdown headings: they end a list


def clean(text: str) -> str:
    """A step's text without list prefixes, timestamps, trailing costs, comments or emphasis."""
    body = _EMPHASIS.sub("", text).strip()
    body = _LIST.sub("", body, count=1)
    body = _LABEL.sub("", body, count=1)
    body = _TIME.sub("", body, count=1)
    for _ in range(3):  # "(a) [1] ; comment": one trailing item at a time
        shorter = _SUFFIX.sub("", body)
        if shorter == body:
            break
        body = shorter
    return body.strip().rstrip(",.").strip()


def _split_many(body: str) -> list[str]:
    """Several actions written on one line: ``(a) (b)``, ``a(x), b(y)``, "x; then y", or one
    s-expression that wraps them, ``(plan (a) (b))`` (joined from several lines)."""
    wrapped = _WRAPPER.match(body)
    if wrapped is not None:
        body = wrapped.group(1).strip()
    groups = _GROUP.findall(body)
    if len(groups) > 1 and not _GROUP.sub("", body).strip(" ,;.-\t"):
        return groups
    calls = _CALLS.findall(body)
    if len(calls) > 1 and not _CALLS.sub("", body).strip(" ,;.-\t"):
        return calls
    parts = [p for p in _THEN.split(body) if p.strip()]
    if any(p.count("(") != p.count(")") for p in parts):  # "x (now a, and b)": a remark's comma, not a new step
        return [body]
    return parts if len(parts) > 1 else [body]


def _json_plan(text: str) -> object | None:
    """A JSON plan in the text: the whole text, or the first object with a plan key."""
    import json  # JSON plans only: `pgt validate` of plan lines starts without it

    from toolkit import jsontext

    stripped = text.strip()
    if stripped[:1] in "[{":
        try:
            data = jsontext.loads(stripped)
            if isinstance(data, (list, dict)):
                return data
        except (json.JSONDecodeError, RecursionError):  # RecursionError: nested too deep to be a plan
            pass
    hit = _JSON_KEY.search(text)
    if hit is None:
        return None
    decoder = json.JSONDecoder()
    pos = text.rfind("{", 0, hit.start())
    while pos >= 0:
        try:
            data, _ = decoder.raw_decode(text, pos)
            if isinstance(data, dict):
                return data
        except (json.JSONDecodeError, RecursionError):  # RecursionError: nested too deep to be a plan
            pass
        pos = text.rfind("{", 0, pos)
    return None


def _blocks(lines: list[str]) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Marked ``[PLAN]`` blocks and fenced blocks, as half-open 0-based line ranges of their bodies."""
    marked: list[tuple[int, int]] = []
    fenced: list[tuple[int, int]] = []
    start_mark: int | None = None
    start_fence: int | None = None
    text = "\n".join(lines)
    if "[" not in text and "```" not in text and "~~~" not in text:
        return marked, fenced
    for i, line in enumerate(lines):
        if _FENCE.match(line):
            if start_fence is None:
                start_fence = i + 1
            else:
                fenced.append((start_fence, i))
                start_fence = None
            continue
        for mt in _MARK.finditer(line):
            if mt.group(1) or mt.group(2) or "/" in mt.group(0):
                if start_mark is not None:
                    marked.append((start_mark, i + 1))
                    start_mark = None
                elif not marked:  # the prompt ended with "[PLAN]": the reply opens inside the block
                    marked.append((0, i + 1))
            else:
                if start_mark is not None:  # a new start closes the previous block
                    marked.append((start_mark, i))
                start_mark = i
    if start_mark is not None:
        marked.append((start_mark, len(lines)))
    if start_fence is not None:
        fenced.append((start_fence, len(lines)))
    return marked, fenced


def _has_step(lines: list[str], span: tuple[int, int]) -> bool:
    """A block holds something to read (a marker or fence around nothing is ignored)."""
    return any(_MARK.sub("", line).strip() and not _FENCE.match(line) for line in lines[span[0]:span[1]])


def _region(lines: list[str]) -> tuple[tuple[int, int], str]:
    """The lines to read and why the others were left out."""
    marked, fenced = _blocks(lines)
    for blocks, kind in ((marked, "outside the marked plan block"), (fenced, "outside the fenced plan block")):
        good = [b for b in blocks if _has_step(lines, b)]
        if good:  # the first marked block: what follows it is commentary or invented further examples
            return (good[0] if blocks is marked else good[-1]), kind
    return (0, len(lines)), ""


MAX_JOINED = 200  # lines one logical line may span: a never-closed parenthesis must not swallow the reply


def _joined(lines: list[str], start: int, end: int) -> list[tuple[int, str]]:
    """Logical lines: ``\\`` continuations and actions whose parenthesis closes on a later line."""
    out: list[tuple[int, str]] = []
    i = start
    while i < end:
        first, text = i, lines[i]
        while i + 1 < end and i - first < MAX_JOINED and (text.rstrip().endswith("\\") or _open_parens(text) > 0):
            nxt = lines[i + 1]
            if _FENCE.match(nxt) or (not nxt.strip() and not text.rstrip().endswith("\\")):
                break
            text = text.rstrip().removesuffix("\\") + " " + nxt.strip()
            i += 1
        out.append((first, text.rstrip().removesuffix("\\")))
        i += 1
    return out


def _open_parens(text: str) -> int:
    opened = text.count("(")
    if not opened:
        return 0
    code = text.split(";", 1)[0]
    return code.count("(") - code.count(")")


def plain_words(stripped: str) -> list[str] | None:
    """The words of a stripped line of one plain step, ``(name args)`` (no other parenthesis, bracket or
    ``;`` inside, at least a name), else None. String tests and one split: a third of what the regular
    expression it replaced cost on a plan's every new line (``tests/core/test_core_action_tier.py`` holds
    the two to the same answers)."""
    if stripped[:1] != "(" or stripped[-1:] != ")":
        return None
    body = stripped[1:-1]
    if "(" in body or ")" in body or ";" in body or "[" in body or "]" in body:
        return None
    return body.split() or None


def extract(text: str) -> Extract:
    """Step candidates of a reply, with every skipped line and why."""
    text = text.lstrip("\ufeff")
    if not text.strip():
        return Extract((), blank=True)
    lines = text.splitlines()
    (start, end), why_out = _region(lines)
    skipped = [Skipped(i + 1, lines[i].strip(), why_out) for i in (*range(0, start), *range(end, len(lines)))
               if why_out and lines[i].strip() and not _FENCE.match(lines[i]) and _MARK.sub("", lines[i]).strip()]
    region = "\n".join(line for line in lines[start:end] if not _FENCE.match(line))
    if region.lstrip()[:1] in "[{" or _JSON_KEY.search(region):
        items = _json_items(_json_plan(region))
        if items is not None:
            import json

            return Extract(tuple(Candidate(None, "", v if isinstance(v, str) else json.dumps(v), True, v)
                                 for v in items), tuple(skipped), json=True)
    block = bool(why_out)
    candidates: list[Candidate] = []
    breaks: set[int] = set()
    for i, raw in _joined(lines, start, end):
        stripped = raw.strip()
        words = plain_words(stripped)
        if words is not None:
            candidates.append(Candidate(i + 1, stripped, stripped, block, None, (words[0], tuple(words[1:]))))
            continue
        line = _MARK.sub("", raw)
        if _FENCE.match(line) or not line.strip():
            continue
        listed = block or bool(_LIST.match(_EMPHASIS.sub("", line)))
        body = clean(line)
        if not body or line.lstrip().startswith((";", "#", "//")) or _RULE.match(line):
            breaks.add(i + 1)
            continue
        expanded = raw.expandtabs(4)
        indent = len(expanded) - len(expanded.lstrip())
        for part in _split_many(body):
            candidates.append(Candidate(i + 1, part.strip(), raw.strip(), listed, indent=indent))
    return Extract(tuple(candidates), tuple(skipped), breaks=frozenset(breaks))


def _json_items(data: object) -> list[object] | None:
    if isinstance(data, dict):
        for key in ("plan", "actions", "steps"):
            if key in data:
                data = data[key]
                break
        else:
            return None
    return data if isinstance(data, list) else None
