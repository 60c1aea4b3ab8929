"""Lark's syntax errors in PDDL's words, at the position in the file as written.

Lark names what it expected by grammar terminals (``RPAR``, ``NAME``, ``INIT``);
a reader knows ``')'``, a name, ``':init'``. Normalising may have inserted text on
a line, so positions are mapped back to the original (:func:`in_original`).
"""

from __future__ import annotations

import difflib
import re
from typing import TYPE_CHECKING

from toolkit.errors import PddlSyntaxError
from toolkit.reading.grammar import grammar
from toolkit.reading.text import ROOT, VAR_PREFIX, line_col

if TYPE_CHECKING:
    from lark.exceptions import UnexpectedInput


# The order the PDDL grammar (and FD, and VAL) wants a file's sections in.
_SECTION_ORDER = {"problem": (":domain", ":requirements", ":objects", ":init", ":goal", ":metric"),
                  "domain": (":requirements", ":types", ":constants", ":predicates", ":functions", ":action")}


def _section_order_hint(token: str, expected: list[str]) -> str:
    """For a section where another was due (pddlgym writes :goal before :init), the order to write them in."""
    for kind, order in _SECTION_ORDER.items():
        if token.lower() in order and any(f":{e.lower()}" in order for e in expected):
            return f" (a {kind}'s sections go in this order: {', '.join(order)})"
    return ""


def in_original(text: str, original: str, line: int | None, col: int | None) -> tuple[int | None, int | None]:
    """A position in the normalised ``text`` as a position in the ``original`` (lines are kept; columns may shift).

    Normalising may insert on a line (the requirements pgt grants, placeholders for
    ``object`` and keyword-named variables): a one-line file's error would point past
    its end. The line is aligned with its original; a position inside something
    inserted maps to where it was inserted.
    """
    if line is None or col is None:
        return line, col
    lines, originals = text.split("\n"), original.split("\n")
    if line > len(lines) or line > len(originals) or lines[line - 1] == originals[line - 1]:
        return line, col
    norm, orig = lines[line - 1], originals[line - 1]
    if len(norm) + len(orig) > 200_000:  # aligning is quadratic at worst; keep the column as it is
        return line, col
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, norm, orig, autojunk=False).get_opcodes():
        if i1 <= col - 1 < i2 or (i1 == i2 == col - 1):
            return line, j1 + 1 + (col - 1 - i1 if tag == "equal" else 0)
    return line, min(col, len(orig) + 1)


_TERMINAL_WORDS = {"NAME": "a name", "NUMBER": "a number"}  # the grammar's patterns, in words


def _terminal_text(name: str) -> str:
    """A grammar terminal as a reader knows it: ``RPAR`` is ``')'``, ``INIT`` is ``':init'``, ``NAME`` is a name."""
    if name in _TERMINAL_WORDS:
        return _TERMINAL_WORDS[name]
    for start in ("domain", "problem"):
        for terminal in grammar(start).terminals:
            if terminal.name == name and terminal.pattern.type == "str":
                return repr(terminal.pattern.value)
    return name


def _either(options: list[str]) -> str:
    return options[0] if len(options) == 1 else f"{', '.join(options[:-1])} or {options[-1]}"


def syntax_error(path: str, text: str, exc: UnexpectedInput, original: str) -> PddlSyntaxError:
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken

    line, col = getattr(exc, "line", None), getattr(exc, "column", None)
    if isinstance(exc, UnexpectedEOF) or (isinstance(exc, UnexpectedToken) and exc.token.type == "$END"):
        opened = text.count("(") - text.count(")")
        detail = f"unexpected end of file ({opened} unclosed parenthesis)" if opened > 0 else "unexpected end of file"
        return PddlSyntaxError(path, line_col(text, len(text))[0], 1, detail)
    at = exc.token.start_pos if isinstance(exc, UnexpectedToken) else getattr(exc, "pos_in_stream", None)
    number = _malformed_number(text, at) if isinstance(at, int) else None
    if number is not None:
        return PddlSyntaxError(path, *in_original(text, original, *line_col(text, number.start())),
                               not_a_number(number.group()))
    if isinstance(exc, UnexpectedToken):
        expected = sorted(exc.accepts or exc.expected)[:6]
        detail = f"unexpected {str(exc.token.value).replace(ROOT, 'object').replace(VAR_PREFIX, '')!r}"
        if expected:
            detail += f"; expected {_either(sorted(dict.fromkeys(_terminal_text(name) for name in expected)))}"
        detail += _section_order_hint(str(exc.token.value), expected)
    elif isinstance(exc, UnexpectedCharacters):
        detail = f"unexpected character {text[exc.pos_in_stream]!r}" if exc.pos_in_stream < len(text) else "unexpected character"
        if detail.endswith("','"):  # ALFWorld writes (?l - location, ?r - receptacle)
            detail += "; PDDL separates names with spaces, not commas"
    else:
        detail = str(exc).splitlines()[0]
    return PddlSyntaxError(path, *in_original(text, original, line, col), detail)


# What a number might look like to a writer (signs, exponents, dots anywhere); the grammar's NUMBER is
# digits with dot-separated digit groups, of which the package converts only those with one dot.
_NUMBERISH_RE = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:\.[0-9]*)*(?:[eE][-+]?[0-9]+)?")


_NUMBER_RE = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")  # VAL's signed numbers (toolkit/reading/names.py)


def _malformed_number(text: str, at: int) -> re.Match[str] | None:
    """The word around offset ``at`` if it is meant as a number but is not one PDDL reads (``1.2.3``, ``-1``, ``1e3``)."""
    start = at
    while start > 0 and text[start - 1] not in "() \t\r\n\f\v;":
        start -= 1
    mt = re.compile(r"[^\s()]+").match(text, start)
    if mt is None or not _NUMBERISH_RE.fullmatch(mt.group()) or _NUMBER_RE.fullmatch(mt.group()):
        return None
    return mt


def not_a_number(word: str) -> str:
    return f"'{word}' is not a number: PDDL numbers are digits with at most one decimal point, such as 3 or 1.5"
