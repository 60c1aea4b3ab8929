"""BDDL text as located S-expressions, tokenised the way BEHAVIOR's own reader does it.

BEHAVIOR's parser (StanfordVL/bddl v1.0.1, ``bddl/parsing.py``, ``scan_tokens``) drops
``;`` comments to the end of the line, lower-cases the whole text and splits it
into ``(``, ``)`` and runs of anything else, so ``cookie.n.01_1``, ``?basket.n.01``
and ``2`` are single tokens. This reader does the same and keeps each token's line
and column, so that a refusal can say where the construct is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from toolkit.errors import PddlSyntaxError

_TOKEN = re.compile(r"[()]|[^\s()]+")


@dataclass
class Node:
    """A token (``text`` set) or a parenthesised list (``items`` set), with where it starts."""

    line: int
    col: int
    text: str | None = None
    items: list[Node] = field(default_factory=list)

    @property
    def is_list(self) -> bool:
        return self.text is None

    def head(self) -> str | None:
        """The first token of a list (``and`` in ``(and ...)``), None for a token or a list starting with a list."""
        return self.items[0].text if self.is_list and self.items and not self.items[0].is_list else None

    def where(self, path: str) -> str:
        return f"{path}:{self.line}:{self.col}"

    def show(self) -> str:
        """The node as BDDL text on one line (for messages)."""
        return self.text if self.text is not None else "(" + " ".join(i.show() for i in self.items) + ")"


def _strip_comments(text: str) -> str:
    """``;`` comments blanked with spaces, so columns stay where they were (parsing.py: ``re.sub(r';.*$', '')``)."""
    return re.sub(r";.*$", lambda m: " " * len(m.group()), text, flags=re.MULTILINE)


def read_sexpr(text: str, path: str) -> Node:
    """The one top-level form of a BDDL file, lower-cased as BEHAVIOR's reader does.

    >>> read_sexpr("(define (problem p) ; x\\n (:domain D))", "t").items[2].items[1].text
    'd'
    """
    body = _strip_comments(text).lower()
    line_starts = [0] + [m.end() for m in re.finditer("\n", body)]
    stack: list[Node] = []
    top: list[Node] = []

    def place(offset: int) -> tuple[int, int]:
        lo, hi = 0, len(line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if line_starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1, offset - line_starts[lo] + 1

    for m in _TOKEN.finditer(body):
        line, col = place(m.start())
        tok = m.group()
        if tok == "(":
            stack.append(Node(line, col))
        elif tok == ")":
            if not stack:
                raise PddlSyntaxError(path, line, col, "')' without a matching '('")
            done = stack.pop()
            (stack[-1].items if stack else top).append(done)
        else:
            (stack[-1].items if stack else top).append(Node(line, col, text=tok))
    if stack:
        raise PddlSyntaxError(path, stack[-1].line, stack[-1].col, "'(' is never closed")
    if len(top) != 1 or not top[0].is_list:
        where = top[1] if len(top) > 1 else None
        raise PddlSyntaxError(path, where.line if where else None, where.col if where else None,
                              "expected one (define ...) form")
    return top[0]
