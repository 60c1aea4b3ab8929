"""Numeric expressions, comparisons and updates (PDDL 2.1 level 2) for the plain readers.

Why: a numeric file that the plain readers (:mod:`toolkit.plain_domain`,
:mod:`toolkit.plain_problem`) refused went through the full Lark parser, 5-50 ms a
domain, which was most of ``pgt validate``'s time on the IPC 2023 numeric track.
These functions read the grammar's ``f_exp``, ``gd`` comparison, ``num_effect`` and
``metric_f_exp`` rules (the ``pddl`` package's ``parser/grammar.lark``) into the
forms its transformer builds (``f_exp``, ``gd_comparison``, ``num_effect`` and
``metric_f_exp`` in ``pddl/parser/domain.py`` and ``problem.py``): ``(- a)`` is a
``UnaryMinus``, ``+`` and ``*`` take two or more operands and ``/`` and binary ``-``
two, never flattened; a number is an ``int`` unless it has a point. Anything else
(a bare name as a function term, a variable where an expression is due, an
ambiguous ``=``) raises :class:`~toolkit.plain_problem._NotPlain` and the full parser,
which owns every message, reads the file.
"""

from __future__ import annotations

import re
from typing import Callable

from toolkit.reading import forms
from toolkit.reading.names import NUMBER_RE

_COMPARISONS = {"<": forms.LesserThan, "<=": forms.LesserEqualThan, ">": forms.GreaterThan,
                ">=": forms.GreaterEqualThan, "=": forms.FunctionEqualTo}
COMPARISONS = frozenset(_COMPARISONS)
_UPDATES = {"assign": forms.Assign, "increase": forms.Increase, "decrease": forms.Decrease,
            "scale-up": forms.ScaleUp, "scale-down": forms.ScaleDown}
UPDATES = frozenset(_UPDATES)
_MULTI = {"+": forms.Plus, "*": forms.Times}


def _not_plain() -> Exception:
    from toolkit.plain_problem import _NotPlain  # here, not at the top: plain_problem imports this module

    return _NotPlain()


def number(tok: str) -> forms.NumericValue:
    """The grammar's NUMBER (digits, then ``.digits`` groups) as the transformer's ``num_literal`` reads it;
    ``1.2.3``, which the grammar takes but is no number, is left to the full parser."""
    if not NUMBER_RE.match(tok) or tok.count(".") > 1:
        raise _not_plain()
    return forms.NumericValue(float(tok) if "." in tok else int(tok))


def init_numbers(words: list[str]) -> tuple[list[int | float], bool]:
    """The numbers of ``(= (f args) number)`` :init values, as the problem transformer reads each (the grammar's
    NUMBER with at most one point, :func:`number`: an ``int``, else a ``float``), all checked by one match in C;
    :class:`~toolkit.plain_problem._NotPlain` where one is none. And whether each is an ``int`` of fewer than 300
    characters (below 10**299: the model's value as it is, ``convert.to_number``'s, told here from the words)."""
    if not words:
        return [], True
    joined = " ".join(words) + " "
    if not _NUMBERS_RE.fullmatch(joined):
        raise _not_plain()
    if "." not in joined:
        return list(map(int, words)), len(joined) < 300 or max(map(len, words)) < 300
    return [float(w) if "." in w else int(w) for w in words], False


# Numbers each followed by a space: NUMBER (names.NUMBER_RE) with at most one point.
_NUMBERS_RE = re.compile(r"(?:-?[0-9]+(?:\.[0-9]+)? )*")


def f_exp(el, head: Callable[[list], forms.NumericFunction]):
    """An ``f_exp`` (``metric_f_exp`` alike): a number, ``head(el)`` for a function term, or arithmetic."""
    if isinstance(el, str):
        return number(el)
    if not el or not isinstance(el[0], str):
        raise _not_plain()
    op, args = el[0], el[1:]
    if op == "-":
        if len(args) == 1:
            return forms.UnaryMinus(f_exp(args[0], head))
        if len(args) == 2:
            return forms.Minus(f_exp(args[0], head), f_exp(args[1], head))
        raise _not_plain()
    if op in _MULTI:
        if len(args) < 2:
            raise _not_plain()
        return _MULTI[op](*[f_exp(a, head) for a in args])
    if op == "/":
        if len(args) != 2:
            raise _not_plain()
        return forms.Divide(f_exp(args[0], head), f_exp(args[1], head))
    return head(el)


def is_comparison(el) -> bool:
    """Whether ``(op a b)`` with ``op`` a comparison is one (``gd_comparison``), not ``(= t1 t2)`` over terms:
    an ``=`` of two plain words is the equality of terms; one word beside an expression is ambiguous to
    the grammar's parser (a word may be a name or a number) and raises."""
    if el[0] != "=":
        return True
    if len(el) != 3:
        raise _not_plain()
    words = [isinstance(x, str) for x in el[1:]]
    if all(words):
        if any(NUMBER_RE.match(x) for x in el[1:]):
            raise _not_plain()
        return False
    if any(words):
        if not NUMBER_RE.match(el[1] if words[0] else el[2]):
            raise _not_plain()
    return True


def comparison(el, head: Callable[[list], forms.NumericFunction]):
    """``(op f_exp f_exp)`` as the transformer's ``gd_comparison`` builds it."""
    if len(el) != 3:
        raise _not_plain()
    return _COMPARISONS[el[0]](f_exp(el[1], head), f_exp(el[2], head))


def update(el, head: Callable[[list], forms.NumericFunction]):
    """``(assign|increase|decrease|scale-up|scale-down f_head f_exp)`` (``num_effect``)."""
    if len(el) != 3 or not isinstance(el[1], list):
        raise _not_plain()
    return _UPDATES[el[0]](head(el[1]), f_exp(el[2], head))
