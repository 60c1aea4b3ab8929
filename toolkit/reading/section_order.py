"""A domain whose declaration sections are out of the grammar's order, put in order for the full parser.

The PDDL grammar (and the ``pddl`` package's) wants ``:types``, ``:constants``,
``:predicates``, ``:functions`` in that order; VAL's parser takes them in any order
and Fast Downward's warns and reads on ("specification not allowed here"). IPC 2002's
settlers declares its ``:constants`` after its ``:functions``. The sections are
permuted among the places they hold (the text between them stays), so the block keeps
its length and its number of lines: everything after it (the actions) keeps its
position for every error located there.
"""

from __future__ import annotations

import re

from toolkit.reading.text import blank_comments

ORDER = (":types", ":constants", ":predicates", ":functions")
_OPEN = re.compile(r"\(\s*(:[\w-]+)")


def _forms(code: str) -> list[tuple[int, int, str]]:
    """(start, end, keyword) of each top-level form inside the ``(define ...)`` of comment-free ``code``."""
    start = code.find("(")
    out, depth, at = [], 0, None
    for i in range(start + 1, len(code)):
        ch = code[i]
        if ch == "(":
            if depth == 0:
                at = i
            depth += 1
        elif ch == ")":
            if depth == 0:
                break
            depth -= 1
            if depth == 0 and at is not None:
                head = _OPEN.match(code, at)
                out.append((at, i + 1, head.group(1).lower() if head else ""))
    return out


def in_grammar_order(text: str) -> tuple[str, str] | None:
    """``text`` with its declaration sections in the grammar's order, and the first section written after one
    the grammar puts after it (settlers: ``:constants``, after ``:functions``); None where they
    are in order, or their order is not the fault (a section listed twice, one after an action)."""
    code = blank_comments(text)
    forms = _forms(code)
    run = [f for f in forms if f[2] in ORDER]
    keys = [f[2] for f in run]
    if not run or len(set(keys)) != len(keys) or keys == sorted(keys, key=ORDER.index):
        return None
    first, last = forms.index(run[0]), forms.index(run[-1])
    if forms[first:last + 1] != run:  # another form among them (an action): not this fault
        return None
    ordered = sorted(run, key=lambda f: ORDER.index(f[2]))
    pieces, prev = [text[:run[0][0]]], run[0][0]
    for slot, form in zip(run, ordered):
        pieces += [text[prev:slot[0]], text[form[0]:form[1]]]
        prev = slot[1]
    pieces.append(text[prev:])
    late = next(k for i, k in enumerate(keys) if any(ORDER.index(j) > ORDER.index(k) for j in keys[:i]))
    return "".join(pieces), late
