"""Finding things in PDDL text: comments blanked, offsets turned into line:column, names as regexes.

Every located message of the loader, lint and the editor server comes through
these helpers. They work on comment-blanked code (:func:`blank_comments` keeps
every offset), so a match is never inside a comment and a position found in the
blanked code is the same position in the file.
"""

from __future__ import annotations

import re
from pathlib import Path

from toolkit.plain_problem import ROOT

__all__ = ["ROOT", "blank_comments", "keyword_open", "line_col", "locate", "name_pattern", "located", "offset_of",
           "open_before", "section",
           "listed_at", "nesting_depths", "type_use_pattern", "written_var", "VAR_PREFIX"]


COMMENT_RE = re.compile(r";[^\n]*")


# The pddl package refuses a variable spelled like a keyword (?object, ?domain, ?and), which PDDL
# allows (the "?" sets it apart): it is parsed under this prefix and named back by written_var.
VAR_PREFIX = "pgtvar-"


# The texts last blanked, and their blanked code: loading one file asks for the same text's code
# about a dozen times (normalising, each reader, locating sections), each a scan of the whole file.
_BLANKED: dict[str, str] = {}


def blank_comments(text: str) -> str:
    """Comments replaced by spaces, so offsets stay valid for searching."""
    if ";" not in text:  # no comment: the text itself (one scan in C)
        return text
    hit = _BLANKED.get(text)
    if hit is None:
        if len(_BLANKED) >= 8:  # the files being read now (a domain, a problem, their normalised texts)
            _BLANKED.clear()
        # Split at the comments (kept by the group: every odd item), each replaced by as many spaces, in C:
        # a substitution's Python callback per comment was most of blanking a commented file.
        parts = _COMMENT_SPLIT_RE.split(text)
        parts[1::2] = map(" ".__mul__, map(len, parts[1::2]))
        hit = _BLANKED[text] = "".join(parts)
    return hit


_COMMENT_SPLIT_RE = re.compile(r"(;[^\n]*)")


def line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def locate(text: str, pattern: str, start: int = 0) -> tuple[int | None, int | None]:
    """Line and column of the first match of a regex in the code (not comments)."""
    mt = re.compile(pattern, re.I).search(blank_comments(text), start)
    return line_col(text, mt.start()) if mt else (None, None)


def name_pattern(name: str) -> str:
    """A regex for ``name`` as a whole PDDL name: not part of a longer name, not a ``?variable``."""
    return r"(?<![\w?-])" + re.escape(name) + r"(?![\w-])"


def located(path: str, text: str, pattern: str, start: int = 0) -> str:
    line, col = locate(text, pattern, start)
    if line is None and start:
        line, col = locate(text, pattern)
    return path if line is None else f"{path}:{line}:{col}"


def init_location(path: str | Path) -> str:
    """``path:line:col`` of a problem file's ``(:init``, for a refusal of its initial state as a whole (``path``
    alone if the file cannot be read again)."""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return str(path)
    return located(str(path), text, r"\(\s*:init\b")


def offset_of(code: str, pattern: str, default: int = 0) -> int:
    mt = re.search(pattern, code, re.I)
    return mt.start() if mt else default


def section(code: str, keyword: str) -> tuple[int, int] | None:
    """Start and end offsets of the balanced ``(:keyword ...)`` section of comment-blanked code."""
    start = keyword_open(code, keyword)
    if start is None:
        return None
    depth, at = 1, start + 1
    while True:  # from ")" to ")", the "(" between counted in C: the section's end where the depth is 0
        close = code.find(")", at)
        if close < 0:
            return start, len(code)
        depth += code.count("(", at, close) - 1
        if depth == 0:
            return start, close + 1
        at = close + 1


def keyword_open(code: str, keyword: str) -> int | None:
    """The offset of the ``(`` of the first ``(keyword`` in comment-blanked code (white space between, the
    keyword in any case and not followed by a name character), or None: ``\\(\\s*keyword(?![\\w-])``.

    Why not that expression: its scan tries every ``(`` of the file; a ``:keyword`` is sought from its
    ``:`` instead (a character without case: the scan jumps to it), then the ``(`` before it.
    """
    if not keyword.startswith(":"):
        mt = re.search(r"\(\s*" + re.escape(keyword) + r"(?![\w-])", code, re.I)
        return mt.start() if mt else None
    for mt in re.finditer(re.escape(keyword) + r"(?![\w-])", code, re.I):
        at = open_before(code, mt.start())
        if at is not None:
            return at
    return None


def open_before(code: str, at: int) -> int | None:
    """The offset of the ``(`` that only white space separates from ``at``, or None."""
    at -= 1
    while at >= 0 and code[at].isspace():
        at -= 1
    return at if at >= 0 and code[at] == "(" else None


def listed_at(name: str, code: str, offset: int) -> list[int]:
    """Offsets from ``offset`` on where ``name`` is listed in a typed list (not where it is a ``- parent``)."""
    return [offset + mt.start() for mt in re.finditer(name_pattern(name), code[offset:], re.I)
            if not re.search(r"-\s*$", code[max(0, offset + mt.start() - 80):offset + mt.start()])]


def nesting_depths(text: str):
    depth = 0
    for ch in blank_comments(text):
        depth += (ch == "(") - (ch == ")")
        yield depth


def type_use_pattern(name: str) -> str:
    """A regex for ``name`` used as a type: ``- name`` or a member of ``- (either ...)``."""
    return r"-\s*(?:\(\s*either\b[^()]*?(?<![\w?-]))?" + re.escape(name) + r"(?![\w-])"  # "-K" too


def written_var(name: str) -> str:
    """The ``?variable`` as written, for the pddl package's name of it (without ``?``, perhaps prefixed)."""
    return "?" + name.removeprefix(VAR_PREFIX)
