"""Where names are declared and used in PDDL text, for an editor.

An editor asks about a buffer that is often broken mid-edit, so this reads the
text itself (comments blanked, offsets kept) instead of the loaded model: a
declaration is found even when the file does not load. Positions are 0-based
(line, character), as the Language Server Protocol counts them.

>>> text = "(define (domain d) (:predicates (on ?x) (free)) (:action go :parameters (?x) :precondition (on ?x) :effect (free)))"
>>> [(s.kind, s.name) for s in declarations(text)]
[('predicate', 'on'), ('predicate', 'free'), ('action', 'go')]
>>> [(r.line, r.start) for r in references(text, "on")]
[(0, 33), (0, 92)]
"""

from __future__ import annotations

import bisect
import re
import threading
from dataclasses import dataclass

from toolkit.loader import _blank_comments, _section, name_pattern

_NAME = r"[A-Za-z][\w-]*"


@dataclass(frozen=True)
class Span:
    """A name's place in a text: 0-based line, first and past-the-end character."""

    line: int
    start: int
    end: int


@dataclass(frozen=True)
class Symbol:
    """A declared name: what it is, where, and the declaration's text (for hover)."""

    kind: str  # predicate, type, action, constant, object
    name: str
    span: Span
    declaration: str


class _Lines:
    """Line starts of a text, so each offset finds its line in O(log n): a 1 MB domain has 10,000 names,
    and counting newlines from the start for each (the loader's ``line_col``) took 12 s."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def span(self, offset: int, length: int) -> Span:
        line = bisect.bisect_right(self.starts, offset) - 1
        col = offset - self.starts[line]
        return Span(line, col, col + length)

    def line_text(self, offset: int) -> str:
        line = bisect.bisect_right(self.starts, offset) - 1
        end = self.text.find("\n", offset)
        return self.text[self.starts[line]:end if end >= 0 else len(self.text)]


_LAST = threading.local()  # per thread, the last text's index (one build per buffer per request)


def _lines(text: str) -> _Lines:
    index = getattr(_LAST, "index", None)
    if index is None or index.text is not text:
        index = _LAST.index = _Lines(text)
    return index


def _span(text: str, offset: int, length: int) -> Span:
    return _lines(text).span(offset, length)


section = _section  # the loader's balanced-section finder, one copy


def _typed_list(text: str, code: str, keyword: str, kind: str, all_names: bool = False) -> list[Symbol]:
    """Names in a typed list section; with ``all_names`` the types after ``-`` count too (for :types)."""
    sec = section(code, keyword)
    if not sec:
        return []
    body_start = code.index(keyword, sec[0]) + len(keyword)
    out: list[Symbol] = []
    after_dash = False
    for mt in re.finditer(r"[^\s()]+", code[body_start:sec[1]]):
        word = mt.group()
        if word == "-":
            after_dash = True
            continue
        if (all_names or not after_dash) and re.fullmatch(_NAME, word) and word.lower() != "either":
            start = body_start + mt.start()
            line_text = _lines(text).line_text(start).strip()
            out.append(Symbol(kind, word, _span(text, start, len(word)), line_text))
        after_dash = False
    return out


def declarations(text: str) -> list[Symbol]:
    """Every declared predicate, type, constant, object and action, in file order, first declaration only."""
    code = _blank_comments(text)
    found: list[Symbol] = []
    found += _typed_list(text, code, ":types", "type", all_names=True)
    found += _typed_list(text, code, ":constants", "constant")
    found += _typed_list(text, code, ":objects", "object")
    sec = section(code, ":predicates")
    if sec:
        for mt in re.finditer(r"\(\s*(" + _NAME + r")[^()]*\)", code[sec[0] + 1:sec[1]]):
            start = sec[0] + 1 + mt.start(1)
            found.append(Symbol("predicate", mt.group(1), _span(text, start, len(mt.group(1))),
                                " ".join(text[sec[0] + 1 + mt.start():sec[0] + 1 + mt.end()].split())))
    for mt in re.finditer(r"\(\s*:action\s+(" + _NAME + r")", code, re.I):
        params = re.match(r"\s*:parameters\s*(\([^)]*\))", code[mt.end():], re.I)
        decl = f"(:action {mt.group(1)}" + (f" :parameters {' '.join(params.group(1).split())}" if params else "") + ")"
        found.append(Symbol("action", mt.group(1), _span(text, mt.start(1), len(mt.group(1))), decl))
    seen: set[tuple[str, str]] = set()
    out = []
    for s in sorted(found, key=lambda s: (s.span.line, s.span.start)):
        key = ("type" if s.kind == "type" else "name", s.name.lower())
        if key not in seen:
            seen.add(key)
            out.append(s)
    return out


def references(text: str, name: str) -> list[Span]:
    """Every use of ``name`` as a whole PDDL name (case-insensitive, not in comments)."""
    code = _blank_comments(text)
    return [_span(text, mt.start(), len(mt.group())) for mt in re.finditer(name_pattern(name), code, re.I)]


def word_at(text: str, line: int, character: int) -> str | None:
    """The PDDL name under a 0-based position (None on blanks, keywords, variables and comments)."""
    lines = text.split("\n")
    if not 0 <= line < len(lines):
        return None
    row = _blank_comments(lines[line])
    for mt in re.finditer(r"[^\s()]+", row):
        if mt.start() <= character <= mt.end():
            word = mt.group()
            return word if re.fullmatch(_NAME, word) else None
    return None


def domain_name_of(text: str) -> tuple[str, str] | None:
    """``("domain", name)`` for a domain file, ``("problem", domain name)`` for a problem file."""
    code = _blank_comments(text)
    mt = re.search(r"\(\s*define\s*\(\s*domain\s+([^\s()]+)", code, re.I)
    if mt:
        return "domain", mt.group(1)
    mt = re.search(r"\(\s*:domain\s+([^\s()]+)", code, re.I)
    return ("problem", mt.group(1)) if mt else None
