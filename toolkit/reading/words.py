"""The plain readers' word lists: PDDL text as nested lists of its words (:mod:`toolkit.plain_problem`,
:mod:`toolkit.plain_domain`).

Why not a loop over the words: a Python step per word was most of a small file's reading. The words,
split in C as the grammar's lexer splits them (white space and parentheses), are written as the JSON
text of the nested lists and read back by the C scanner behind :func:`json.loads` (``_json``, without
importing the :mod:`json` package, which ``pgt validate`` does not load at start-up: issue 33). Text
whose words JSON would read otherwise (``"``, ``\\``, a control character), that is not one balanced
list, or an interpreter without ``_json``, takes the loop, which decides. ``tests/core/test_core_plain_goal.py``
compares the two.
"""

from __future__ import annotations

from typing import Union

try:
    from _json import make_scanner as _make_scanner
except ImportError:  # another interpreter: the loop reads every file
    _make_scanner = None

SExpr = Union[str, list["SExpr"]]


class _NotPlain(Exception):
    """The text leaves the plain shape: the full parser reads it."""


class _Strict:
    """The settings ``json.loads`` gives its scanner (the scanner reads them once, when made)."""

    strict = True
    object_hook = object_pairs_hook = parse_constant = None
    parse_float, parse_int = float, int


_SCAN = _make_scanner(_Strict()) if _make_scanner is not None else None


def _sexpr(code: str) -> list[SExpr]:
    """The nested lists of ``code``'s words; raises :class:`_NotPlain` unless it is one balanced list."""
    if _SCAN is not None and '"' not in code and "\\" not in code:
        # Each parenthesis becomes a quoted string's end, a bracket and the next one's start, and the white space
        # between words a comma: ``(a b)`` is ``",["a","b"],"``, a list of strings some of them empty, which are
        # no words (none is empty): each goes with one comma beside it, or leaves ``[]``. Every '"' is a string's
        # delimiter ('"' is in no word), so '""' is always an empty string. Unbalanced text leaves no single
        # list: an unclosed one fails the scan, an extra ")" ends it before the end of the text.
        joined = ('["' + '","'.join(code.replace("(", '",["').replace(")", '"],"').split()) + '"]').replace(
            '"",', "").replace(',""', "").replace('[""]', "[]")
        try:
            tree, end = _SCAN(joined, 0)
        except (ValueError, StopIteration, RecursionError, SystemError):
            # SystemError: the scanner's error is json.decoder's class, which it finds only when loaded
            tree, end = None, 0
        if end == len(joined) and len(tree) == 1 and tree[0].__class__ is list:
            return tree[0]
    return _sexpr_words(code.replace("(", " ( ").replace(")", " ) ").split())


def _sexpr_words(words: list[str]) -> list[SExpr]:
    stack: list[list[SExpr]] = [[]]
    for tok in words:
        if tok == "(":
            stack.append([])
        elif tok == ")":
            if len(stack) == 1:
                raise _NotPlain
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(tok)
    if len(stack) != 1 or len(stack[0]) != 1 or not isinstance(stack[0][0], list):
        raise _NotPlain
    return stack[0][0]
