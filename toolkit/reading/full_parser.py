"""The full reader: the ``pddl`` package's Lark parser and transformers, for whatever the plain readers decline.

It owns every syntax error message (:mod:`toolkit.reading.syntax_errors`) and,
given a collector, parses past the package's recoverable refusals
(:mod:`toolkit.reading.repairs`). Each call uses a fresh transformer because the
package's transformers keep state that an error leaves dirty.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

from pddl.exceptions import PDDLError

from toolkit.errors import PddlSyntaxError, PgtError, UnknownSymbolError
from toolkit.reading.grammar import empty_action_body, grammar, problem_transformer_class
from toolkit.reading.normalise import PARSER_ONLY_REQUIREMENTS, SUPPORTED_REQUIREMENTS
from toolkit.reading.repairs import Recoverable, Warned, raise_transform_error
from toolkit.reading.section_order import in_grammar_order
from toolkit.reading.syntax_errors import syntax_error
from toolkit.reading.text import located

if TYPE_CHECKING:
    from toolkit.reading.collect import Errors

# How many recoverable errors found by the pddl package itself (unknown types, duplicate
# names in a typed list) one load repairs and re-parses past before giving up.
_MAX_REPARSES = 50


def parse_full(text: str, path: str, start: str, errors: Errors | None = None, original: str | None = None):
    """Parse normalised ``text``; with ``errors``, repair what the pddl package refuses but we can recover from.

    An unknown type is declared and a duplicate name in a typed list is dropped, each
    recorded (located in the ``original`` text), and the text parsed again. A domain whose
    declaration sections are out of order is read in order (:mod:`toolkit.reading.section_order`)
    where it then reads without a fault; else its fault is the order's, as the grammar says.
    """
    try:
        return _parse_repairing(text, path, start, errors, original)
    except PddlSyntaxError as fault:
        ordered = in_grammar_order(text) if start == "domain" else None
        if ordered is None:
            raise
        marks = None if errors is None else (len(errors.items), len(errors.warnings), len(errors.borrowed))
        try:
            parsed = _parse_repairing(ordered[0], path, start, errors, original)
        except PgtError:
            if errors is not None and marks is not None:  # what the attempt recorded goes with it
                del errors.items[marks[0]:], errors.warnings[marks[1]:], errors.borrowed[marks[2]:]
            raise fault from None
        if errors is not None:
            late = ordered[1]
            where = located(path, original or text, r"\(\s*" + late + r"(?![\w-])")
            errors.warnings.append(f"{where}: {late} out of the grammar's order (:types, :constants, :predicates, "
                                   ":functions): read in that order, as VAL and Fast Downward read it")
        return parsed


def _parse_repairing(text: str, path: str, start: str, errors: Errors | None, original: str | None):
    """:func:`parse_full` of ``text`` as written."""
    for _ in range(_MAX_REPARSES):
        try:
            return _parse_once(text, path, start, original or text)
        except Recoverable as rec:
            if isinstance(rec.error, Warned):
                if errors is not None:
                    errors.warnings.append(str(rec.error))
            elif errors is not None and isinstance(rec.error, UnknownSymbolError) and rec.error.kind == "constant":
                # VAL warns "Undeclared symbol" and adds it (symbol_get in libraries/VAL/include/ptree.h);
                # FD's translator grounds it as the problem's object of that name. So do we (lint: an error).
                errors.borrowed.append(rec.error)
                errors.warnings.append(f"{rec.error}: not declared in the domain's :constants; read as the "
                                       "object of that name each problem declares, as Fast Downward and VAL do")
            elif errors is None:
                raise rec.error from None
            else:
                errors.add(rec.error)
            if isinstance(rec.error, UnknownSymbolError):
                errors.invented_types.add(rec.error.name)
            text = rec.repaired
    return _parse_once(text, path, start, original or text)


def _parse_once(text: str, path: str, start: str, original: str):
    from lark.exceptions import UnexpectedInput, VisitError
    from pddl.parser.domain import DomainTransformer

    try:
        lark_tree = grammar(start).parse(text)
    except UnexpectedInput as exc:
        raise syntax_error(path, text, exc, original) from None
    for body in lark_tree.find_data("action_body_def"):
        # PDDL allows omitting :precondition and :effect; the pddl package then
        # crashes on the None placeholders, so we fill in an empty (and).
        if len(body.children) == 4:
            template = empty_action_body()
            for i in (0, 2):
                if body.children[i] is None:
                    body.children[i:i + 2] = copy.deepcopy(template[i:i + 2])
    if start == "domain":
        transformer = DomainTransformer()
    else:
        transformer = problem_transformer_class()()
        # Its inner domain transformer checks goal formulas against requirements it
        # never learns (a problem's goal may use = or forall); grant them all.
        transformer._domain_transformer.requirements(["(", ":requirements", *SUPPORTED_REQUIREMENTS,
                                                       *PARSER_ONLY_REQUIREMENTS, ")"])
    try:
        return transformer.transform(lark_tree)
    except VisitError as exc:
        raise_transform_error(exc, text, path, original)
    except (PDDLError, ValueError, AssertionError) as exc:
        raise PddlSyntaxError(path, None, None, str(exc) or type(exc).__name__) from None
