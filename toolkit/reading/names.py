r"""Which words are PDDL names and numbers: every name VAL or Fast Downward reads, digit-first ones
included, and VAL's signed numbers.

The ``pddl`` package's grammar and its ``name`` type take ``[A-Za-z][-_A-Za-z0-9]*``
only, so PlanBench's obfuscated problems (``(problem 9ucq73grxzg6x4q)``) and objects
such as ``7a`` were refused. The references read more:

- VAL's lexer (``libraries/VAL/src/Parser/pddl+.l``, rule ``string``) takes
  ``{char}+(-|{char}|{digit})*`` with ``char [a-zA-Z_]``: underscore-first names;
- Fast Downward's translator (``src/translate/pddl_parser/lisp_parser.py``,
  ``tokenize``) splits on white space and parentheses, so any other word is a name,
  digit-first ones included.

pgt reads the union that stays unambiguous next to numbers: a letter, digit or
underscore, then letters, digits, ``_`` and ``-``, but not a number (``12``, ``1.5`` and
``1e3`` stay numbers, as in both references' numeric expressions).

Numbers may carry a minus sign, as VAL's ``int -?{digit}*`` and ``float
-?{digit}+(\.{digit}*)?`` read them (IPC 2023's sailing writes ``(= (x b0) -370)``);
a ``-`` followed by white space stays the operator or the type separator.

:func:`widen_package_names` widens the ``pddl`` package's ``name`` type to :data:`NAME`,
and :func:`widened_grammar` its grammar; :mod:`toolkit.reading.grammar`, through which
every use of the package goes (the full parser), does both when imported. This module
itself does not import the package: the plain readers, which use only the patterns,
start without it.
"""

from __future__ import annotations

import re

# A word of name characters that is not a number: digits alone, or with an exponent (1e3, 1e-3),
# which pgt reports as a malformed number (toolkit/reading/syntax_errors.py).
NAME = r"(?![0-9]+(?:[eE][-+]?[0-9]+)?(?![A-Za-z0-9_-]))[A-Za-z0-9_][A-Za-z0-9_-]*"
NAME_RE = re.compile(NAME + r"\Z")
# A number: digits with dot-separated digit groups (the grammar's; the package converts one dot), signed.
NUMBER = r"-?[0-9]+(\.[0-9]+)*"
NUMBER_RE = re.compile(NUMBER + r"\Z")
# The package's own rules, in its grammar file (pddl/parser/grammar.lark); NAME also in its name type.
PACKAGE_NAME_RULE = "NAME: /[a-zA-Z][a-zA-Z0-9-_]*/"
PACKAGE_NUMBER_RULE = r"NUMBER: /[0-9]+(\.[0-9]+)*/"



def widen_package_names() -> None:
    """Make the ``pddl`` package's ``name`` type take :data:`NAME` (the full parser builds its objects)."""
    from pddl import custom_types

    custom_types.name.REGEX = re.compile(NAME)


def is_name(word: str) -> bool:
    """Whether ``word`` is a PDDL name for pgt (VAL's and Fast Downward's names).

    >>> [is_name(w) for w in ("truck1", "9ucq73grxzg6x4q", "7a", "_x", "12", "1.5", "1e3", "-a")]
    [True, True, True, True, False, False, False, False]
    """
    return NAME_RE.match(word) is not None


def widened_grammar(text: str) -> str:
    """The ``pddl`` package's Lark grammar with NAME widened to :data:`NAME` and NUMBER to :data:`NUMBER`.

    The priority stays the package's, so keywords still lex as keywords (Lark turns a
    NAME token spelled like a keyword into the keyword only between equal priorities);
    Lark tries NAME before NUMBER (the longer pattern), and NAME never matches digits
    alone, so ``3gideja`` is one name and ``35``, ``1.5`` stay numbers.
    """
    if PACKAGE_NAME_RULE not in text or PACKAGE_NUMBER_RULE not in text:  # another pddl release: keep its grammar
        return text
    return text.replace(PACKAGE_NAME_RULE, "NAME: /" + NAME + "/").replace(PACKAGE_NUMBER_RULE, "NUMBER: /" + NUMBER + "/")
