"""The one module that talks to the ``pddl`` parser.

It turns PDDL text into the toolkit's model (:mod:`toolkit.model`) and turns every
parser complaint into a located :class:`~toolkit.errors.PgtError`. The ``pddl``
package is strict where common practice is not (keyword case, undeclared
requirements); we normalise those, keep a warning, and parse.

Plain domain and problem files (nearly all published ones) are read by
:mod:`toolkit.plain_domain` and :mod:`toolkit.plain_problem` into the same ``pddl``
objects, without Lark; everything else, malformed input included, goes to the full
parser, which owns the syntax error messages (and is imported only then). Its Lark
grammar is built once and cached on disk (building it costs about 100 ms per
process; loading the cache a few ms); each call uses a fresh transformer because
``pddl``'s transformers keep state that an error leaves dirty.

Errors are collected, not raised one by one (:func:`read_domain`, :func:`read_problem`):
an undeclared name, a wrong arity, a type error, a bad requirement or a duplicate
declaration is recorded with its file:line:column and the load goes on without the
offending piece, so an author sees every independent fault in one run. A syntax
error still stops the load (nothing after it can be trusted). :func:`parse_domain`
and :func:`parse_problem` raise the first error in file order, noting how many more.
"""

from __future__ import annotations

import copy
import difflib
import functools
import hashlib
import inspect
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from typing import TYPE_CHECKING

from pddl.action import Action as _PAction
from pddl.exceptions import PDDLError
from pddl.logic import base as pb
from pddl.logic import effects as pe
from pddl.logic import functions as pf
from pddl.logic.predicates import EqualTo as _PEqualTo
from pddl.logic.predicates import Predicate as _PPredicate
from pddl.parser import GRAMMAR_FILE, PARSERS_DIRECTORY

from toolkit import model as m
from toolkit.plain_domain import read_plain_domain, redeclared_parent
from toolkit.plain_problem import ROOT as _ROOT
from toolkit.plain_problem import KEYWORDS, read_plain_problem
from toolkit.errors import (
    ArityError,
    DuplicateNameError,
    PddlSyntaxError,
    PgtError,
    TypeMismatchError,
    UnknownSymbolError,
    UnsupportedFeatureError,
)

if TYPE_CHECKING:  # Lark and the pddl package's transformers load only when a file needs the full parser
    from lark import Lark
    from lark.exceptions import UnexpectedInput

SUPPORTED_REQUIREMENTS = (
    ":strips", ":typing", ":negative-preconditions", ":disjunctive-preconditions",
    ":equality", ":existential-preconditions", ":universal-preconditions",
    ":quantified-preconditions", ":conditional-effects", ":adl", ":action-costs",
)
# Granted to the pddl parser as well, so that it reads static cost functions such as
# (road-length ?a ?b); the converter refuses every numeric use beyond action costs.
_PARSER_ONLY_REQUIREMENTS = (":numeric-fluents",)
UNSUPPORTED_KEYWORDS = {
    ":durative-action": "durative actions (:durative-action)",
    ":derived": "derived predicates (:derived)",
    ":numeric-fluents": "numeric fluents (:numeric-fluents)",
    ":fluents": "numeric fluents (:fluents)",
    ":object-fluents": "object fluents (:object-fluents)",
    ":durative-actions": "durative actions (:durative-actions)",
    ":derived-predicates": "derived predicates (:derived-predicates)",
    ":non-deterministic": "non-deterministic effects (:non-deterministic)",
    ":timed-initial-literals": "timed initial literals",
    ":preferences": "preferences",
    ":constraints": "trajectory constraints",
    "oneof": "non-deterministic effects (oneof)",
    "decrease": "numeric effects other than action costs (decrease)",
    "assign": "numeric effects other than action costs (assign)",
    "scale-up": "numeric effects other than action costs (scale-up)",
    "scale-down": "numeric effects other than action costs (scale-down)",
    ":vars": "action variables (:vars, PDDL 1.2: list them in :parameters)",
    r"probabilistic(?=\s+[0-9.])": "probabilistic effects (PPDDL's probabilistic)",  # not a predicate so named
    r"preference(?=\s+[^\s()]+\s*\()": "preferences (preference)",  # IPC 2008 net-benefit goals
}
_NUMERIC_COMPARISON_RE = r"\(\s*(<=|>=|<|>)(?=[\s(])|\(\s*=\s*\("
_EMPTY_FUNCTIONS_RE = re.compile(r"\(\s*:functions\s*\)", re.I)
TYPING_MODES = ("strict", "lenient")
_CONNECTIVES = ("define", "domain", "problem", "and", "or", "not", "imply", "forall",
                "exists", "when", "either")
# Keywords in any case: connectives after "(" (not a name such as AND-gate), ":sections", "- number", and a
# metric's direction (IPC's ged writes "(:METRIC MINIMIZE (TOTAL-COST))").
_KEYWORD_RE = re.compile(r"(?<=\()\s*(" + "|".join(_CONNECTIVES) + r")(?![\w-])|:[A-Za-z][\w-]*"
                         r"|(?<=:metric)\s+(minimize|maximize)(?![\w-])"
                         r"|(?<![\w?-])-\s+number(?![\w-])", re.I)  # a function's value type, "- Number"
_COMMENT_RE = re.compile(r";[^\n]*")
# The pddl package refuses a variable spelled like a keyword (?object, ?domain, ?and), which PDDL
# allows (the "?" sets it apart): it is parsed under this prefix and named back by _var.
_VAR_PREFIX = "pgtvar-"
_KEYWORD_VARIABLE_RE = re.compile(r"(?<=\?)(" + "|".join(sorted(KEYWORDS, key=len, reverse=True)) + r")(?![\w-])", re.I)
# ``object`` used as a type (any case: PDDL names ignore it): after ``-``, or in an ``(either ...)`` after ``-``.
_OBJECT_WORD_RE = re.compile(r"(?<![\w?-])object(?![\w-])", re.I)
_OBJECT_TYPE_RE = re.compile(r"(-\s+)object(?![\w-])|(-\s*\(\s*either\b[^()]*?(?<![\w?-])object(?![\w-])[^()]*\))",
                             re.I)
# The pddl package rejects "- object" in typed lists (it drops "object" from its
# known types); we rename it to the placeholder _ROOT while parsing and map it back.
# How many recoverable errors found by the pddl package itself (unknown types, duplicate
# names in a typed list) one load repairs and re-parses past before giving up.
_MAX_REPARSES = 50
_T = TypeVar("_T")


@dataclass(frozen=True)
class Loaded(Generic[_T]):
    """What a load understood (``model``; None when a syntax error stopped it) and every error, in file order."""

    model: _T | None
    errors: tuple[PgtError, ...]

    def result(self) -> _T:
        """The model; raises the first error (noting how many more) if there was any."""
        if self.errors:
            first = self.errors[0]
            if len(self.errors) > 1 and not hasattr(first, "also"):  # note the count once
                first.args = (f"{first} (and {len(self.errors) - 1} more error(s) in this file; "
                              "`pgt lint` lists them all)",)
            first.also = self.errors[1:]  # type: ignore[attr-defined]
            raise first
        assert self.model is not None
        return self.model


class _Errors:
    """The error collector threaded through one load: records, de-duplicates, sorts by position."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.items: list[PgtError] = []
        self.invented_types: set[str] = set()  # declared only so the pddl package parses on
        self.warnings: list[str] = []  # repairs of dubious but unambiguous input

    def add(self, exc: PgtError) -> None:
        if all(str(e) != str(exc) for e in self.items):
            self.items.append(exc)

    def in_file_order(self) -> tuple[PgtError, ...]:
        where = re.compile(re.escape(self.path) + r":(\d+):(\d+):")

        def key(exc: PgtError) -> tuple[int, int]:
            mt = where.match(str(exc))
            return (int(mt.group(1)), int(mt.group(2))) if mt else (1 << 30, 0)

        return tuple(sorted(self.items, key=key))


@functools.lru_cache(maxsize=None)
def _lark(start: str) -> Lark:
    from lark import Lark

    return Lark(GRAMMAR_FILE.read_text(), parser="lalr", import_paths=[PARSERS_DIRECTORY],
                start=start, propagate_positions=True, cache=_lark_cache_file(start))


def _lark_cache_file(start: str) -> str | bool:
    """Where Lark keeps the built parser between processes, or False (no cache).

    A per-user folder: ``$PGT_CACHE_DIR``, else ``$XDG_CACHE_HOME/pgt``, else
    ``~/.cache/pgt``. Lark checks the grammar's and imported files' hashes before
    using the file and rebuilds (silently) when it is stale, corrupt or
    unwritable; the name carries Lark's and Python's versions, as its pickles do.
    """
    root = os.environ.get("PGT_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "pgt")
    try:
        os.makedirs(root, exist_ok=True)
    except OSError:
        return False
    # Lark keys its check on the options, which hold this install's grammar folder: without
    # that folder in the name, two installs (virtual environments) would rebuild each other's file.
    import lark

    tag = hashlib.sha256(f"{PARSERS_DIRECTORY}\0{GRAMMAR_FILE.read_bytes()!r}".encode()).hexdigest()[:12]
    return os.path.join(root, f"lark-pddl-{start}-{tag}-{lark.__version__}-py{sys.version_info[0]}.{sys.version_info[1]}.cache")


@functools.lru_cache(maxsize=None)
def _empty_action_body() -> list:
    tree = _lark("domain").parse("(define (domain t) (:action a :parameters () :precondition (and) :effect (and)))")
    return next(tree.find_data("action_body_def")).children


@functools.lru_cache(maxsize=None)
def _problem_transformer_class() -> type:
    """The pddl package's problem transformer, with the rules for typed quantifier variables it lacks."""
    from pddl.parser.problem import ProblemTransformer

    class _ProblemTransformer(ProblemTransformer):
        def typed_list_variable(self, args):
            return self._domain_transformer.typed_list_variable(args)

        def type_def(self, args):
            return self._domain_transformer.type_def(args)

    return _ProblemTransformer


# ------------------------------------------------------------ text helpers


def _blank_comments(text: str) -> str:
    """Comments replaced by spaces, so offsets stay valid for searching."""
    return _COMMENT_RE.sub(lambda mt: " " * len(mt.group()), text)


def line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def locate(text: str, pattern: str, start: int = 0) -> tuple[int | None, int | None]:
    """Line and column of the first match of a regex in the code (not comments)."""
    mt = re.compile(pattern, re.I).search(_blank_comments(text), start)
    return line_col(text, mt.start()) if mt else (None, None)


def name_pattern(name: str) -> str:
    """A regex for ``name`` as a whole PDDL name: not part of a longer name, not a ``?variable``."""
    return r"(?<![\w?-])" + re.escape(name) + r"(?![\w-])"


def _where(path: str, text: str, pattern: str, start: int = 0) -> str:
    line, col = locate(text, pattern, start)
    if line is None and start:
        line, col = locate(text, pattern)
    return path if line is None else f"{path}:{line}:{col}"


def _drop_listed_object(text: str, code: str, path: str, warnings: list[str]) -> tuple[str, str]:
    """Blank ``object`` listed as a type of its own in ``:types`` (FD and UP accept it; it is the root anyway).

    Only a bare ``object`` (not ``object - parent``) is dropped; it is replaced by
    spaces so every offset, hence every error position, stays the same.
    """
    block = re.search(r"\(\s*:types\b([^)]*)", code)
    if not block:
        return text, code
    hits = [mt for mt in re.finditer(r"(?<![\w?-])object(?![\w-])(?!\s*-)", code[block.start(1):block.end(1)], re.I)
            if not re.search(r"-\s*$", code[block.start(1):block.start(1) + mt.start()])]
    if not hits:
        return text, code
    line, col = line_col(text, block.start(1) + hits[0].start())
    warnings.append(f"{path}:{line}:{col}: 'object' listed in :types ignored (it is the root type)")
    for mt in reversed(hits):
        at = block.start(1) + mt.start()
        text = text[:at] + " " * len(mt.group()) + text[at + len(mt.group()):]
    return text, _blank_comments(text)


def _drop_empty_typed_group(text: str, code: str, path: str, warnings: list[str]) -> tuple[str, str]:
    """Blank a ``- type`` that follows no name in ``:objects``/``:constants`` (it declares nothing).

    IPC's woodworking p11 lists ``- board`` with no boards; FD and VAL accept it and
    the pddl package refuses it. Blanked with spaces, so every offset stays the same.
    """
    for block in re.finditer(r"\(\s*:(?:objects|constants)\b([^()]*)\)", code, re.I):
        names = 0
        tokens = list(re.finditer(r"\S+", block.group(1)))
        for i, token in enumerate(tokens):
            if token.group() != "-":
                names += 1
                continue
            if names == 0 and i + 1 < len(tokens):
                at, end = block.start(1) + token.start(), block.start(1) + tokens[i + 1].end()
                line, col = line_col(text, at)
                warnings.append(f"{path}:{line}:{col}: '- {tokens[i + 1].group()}' follows no object name; ignored")
                text = text[:at] + " " * (end - at) + text[end:]
            names = -1  # the type name that follows is not an object
    return text, _blank_comments(text)


def _var(name: str) -> str:
    """The ``?variable`` as written, for the pddl package's name of it (without ``?``, perhaps prefixed)."""
    return "?" + name.removeprefix(_VAR_PREFIX)


def _rename_root(mt: re.Match[str]) -> str:
    """A ``- object`` or ``- (either ... object ...)`` with the root (in any case) spelled as the placeholder."""
    if mt.group(2) is None:
        return mt.group(1) + _ROOT
    return _OBJECT_WORD_RE.sub(_ROOT, mt.group(2))


def _normalise(text: str, path: str, errors: _Errors | None = None,
               notes: list[str] | None = None) -> tuple[str, list[str], set[str]]:
    """Lower-case keywords, refuse unsupported features, add missing requirements.

    Returns the text to parse, warnings, and the requirements declared in the file.
    Keywords written in upper case are read silently (PDDL is case-insensitive); that
    is noted in ``notes`` when given, for lint. Line numbers are preserved: nothing
    adds or removes a newline.
    """
    warnings: list[str] = []
    code = _blank_comments(text)
    for kw, feature in UNSUPPORTED_KEYWORDS.items():
        pat = (re.escape(kw) if kw.startswith(":") else r"\(\s*" + kw) + r"(?![\w-])"  # not (assign-task ?x)
        mt = re.search(pat, code, re.I)
        if mt:
            raise UnsupportedFeatureError(path, feature, *line_col(text, mt.start()))

    # Generators write an empty "(:functions )", which the pddl grammar refuses; it
    # declares nothing, so blank it (same length: offsets and lines stay valid).
    text = _EMPTY_FUNCTIONS_RE.sub(lambda mt: " " * len(mt.group()), text)

    changed: list[str] = []

    def lower(mt: re.Match[str]) -> str:
        word = mt.group(0)
        if word != word.lower():
            changed.append(word.strip())
        return word.lower()

    out = []
    pos = 0
    for cm in _COMMENT_RE.finditer(text):  # normalise code only, never comments
        out.append(_KEYWORD_RE.sub(lower, text[pos:cm.start()]))
        out.append(cm.group())
        pos = cm.end()
    out.append(_KEYWORD_RE.sub(lower, text[pos:]))
    text = _KEYWORD_VARIABLE_RE.sub(lambda mt: _VAR_PREFIX + mt.group(), "".join(out))
    if changed and notes is not None:
        notes.append(f"{path}: keywords in upper case normalised ({', '.join(sorted(set(changed)))})")

    code = _blank_comments(text)
    is_domain = re.search(r"\(\s*define\s*\(\s*domain\b", code) is not None
    text, code = _drop_listed_object(text, code, path, warnings)
    text, code = _drop_empty_typed_group(text, code, path, warnings)
    if _OBJECT_TYPE_RE.search(code):  # not a type of its own named object-kind
        text = "".join(_OBJECT_TYPE_RE.sub(_rename_root, chunk) if i % 2 == 0 else chunk
                       for i, chunk in enumerate(re.split(r"(;[^\n]*)", text)))
        if is_domain:
            types = re.search(r"\(\s*:types\b[^)]*", text)
            if types:  # untyped names at the end of the list are subtypes of object
                text = text[: types.end()] + " " + _ROOT + text[types.end():]
            else:
                preds = re.search(r"\(\s*:(predicates|constants)\b", text)
                if preds:
                    text = text[: preds.start()] + f"(:types {_ROOT}) " + text[preds.start():]
        code = _blank_comments(text)
    req = re.search(r"\(\s*:requirements\b([^)]*)\)", code)
    declared = set(req.group(1).split()) if req else set()
    unknown = declared - set(SUPPORTED_REQUIREMENTS)
    if unknown:
        for word in sorted(unknown, key=lambda w: req.group(1).index(w)):
            at = req.start(1) + re.search(r"(?<!\S)" + re.escape(word) + r"(?!\S)", req.group(1)).start()
            exc = UnsupportedFeatureError(path, f"requirement {word}", *line_col(text, at))
            if errors is None:
                raise exc
            errors.add(exc)
            text = text[:at] + " " * len(word) + text[at + len(word):]  # parse on without it
        declared -= unknown
        code = _blank_comments(text)
        req = re.search(r"\(\s*:requirements\b([^)]*)\)", code)
    missing = [r for r in (*SUPPORTED_REQUIREMENTS, *_PARSER_ONLY_REQUIREMENTS) if r not in declared]
    if missing:
        # The pddl parser refuses features whose requirement is undeclared; we accept
        # them (lint reports requirements used but not declared).
        extra = " " + " ".join(missing)
        if req:
            text = text[: req.end() - 1] + extra + text[req.end() - 1:]
        else:
            head = re.search(r"\(\s*(domain|problem)\s+[^\s()]+\s*\)", code)
            if head and head.group(1) == "domain":
                text = text[: head.end()] + f" (:requirements{extra})" + text[head.end():]
    return text, warnings, declared


# The order the PDDL grammar (and FD, and VAL) wants a file's sections in.
_SECTION_ORDER = {"problem": (":domain", ":requirements", ":objects", ":init", ":goal", ":metric"),
                  "domain": (":requirements", ":types", ":constants", ":predicates", ":functions", ":action")}


def _section_order_hint(token: str, expected: list[str]) -> str:
    """For a section where another was due (pddlgym writes :goal before :init), the order to write them in."""
    for kind, order in _SECTION_ORDER.items():
        if token.lower() in order and any(f":{e.lower()}" in order for e in expected):
            return f" (a {kind}'s sections go in this order: {', '.join(order)})"
    return ""


def _in_original(text: str, original: str, line: int | None, col: int | None) -> tuple[int | None, int | None]:
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
        for terminal in _lark(start).terminals:
            if terminal.name == name and terminal.pattern.type == "str":
                return repr(terminal.pattern.value)
    return name


def _either(options: list[str]) -> str:
    return options[0] if len(options) == 1 else f"{', '.join(options[:-1])} or {options[-1]}"


def _syntax_error(path: str, text: str, exc: UnexpectedInput, original: str) -> PddlSyntaxError:
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken

    line, col = getattr(exc, "line", None), getattr(exc, "column", None)
    if isinstance(exc, UnexpectedEOF) or (isinstance(exc, UnexpectedToken) and exc.token.type == "$END"):
        opened = text.count("(") - text.count(")")
        detail = f"unexpected end of file ({opened} unclosed parenthesis)" if opened > 0 else "unexpected end of file"
        return PddlSyntaxError(path, line_col(text, len(text))[0], 1, detail)
    at = exc.token.start_pos if isinstance(exc, UnexpectedToken) else getattr(exc, "pos_in_stream", None)
    number = _malformed_number(text, at) if isinstance(at, int) else None
    if number is not None:
        return PddlSyntaxError(path, *_in_original(text, original, *line_col(text, number.start())),
                               _not_a_number(number.group()))
    if isinstance(exc, UnexpectedToken):
        expected = sorted(exc.accepts or exc.expected)[:6]
        detail = f"unexpected {str(exc.token.value).replace(_ROOT, 'object').replace(_VAR_PREFIX, '')!r}"
        if expected:
            detail += f"; expected {_either(sorted(dict.fromkeys(_terminal_text(name) for name in expected)))}"
        detail += _section_order_hint(str(exc.token.value), expected)
    elif isinstance(exc, UnexpectedCharacters):
        detail = f"unexpected character {text[exc.pos_in_stream]!r}" if exc.pos_in_stream < len(text) else "unexpected character"
        if detail.endswith("','"):  # ALFWorld writes (?l - location, ?r - receptacle)
            detail += "; PDDL separates names with spaces, not commas"
    else:
        detail = str(exc).splitlines()[0]
    return PddlSyntaxError(path, *_in_original(text, original, line, col), detail)


def _type_use_pattern(name: str) -> str:
    """A regex for ``name`` used as a type: ``- name`` or a member of ``- (either ...)``."""
    return r"-\s*(?:\(\s*either\b[^()]*?(?<![\w?-]))?" + re.escape(name) + r"(?![\w-])"  # "-K" too


# What a number might look like to a writer (signs, exponents, dots anywhere); the grammar's NUMBER is
# digits with dot-separated digit groups, of which the package converts only those with one dot.
_NUMBERISH_RE = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:\.[0-9]*)*(?:[eE][-+]?[0-9]+)?")
_NUMBER_RE = re.compile(r"[0-9]+(?:\.[0-9]+)?")


def _malformed_number(text: str, at: int) -> re.Match[str] | None:
    """The word around offset ``at`` if it is meant as a number but is not one PDDL reads (``1.2.3``, ``-1``, ``1e3``)."""
    start = at
    while start > 0 and text[start - 1] not in "() \t\r\n\f\v;":
        start -= 1
    mt = re.compile(r"[^\s()]+").match(text, start)
    if mt is None or not _NUMBERISH_RE.fullmatch(mt.group()) or _NUMBER_RE.fullmatch(mt.group()):
        return None
    return mt


def _not_a_number(word: str) -> str:
    return f"'{word}' is not a number: PDDL numbers are digits with at most one decimal point, such as 3 or 1.5"


def _first_unknown_type(text: str, known: set[str]) -> str | None:
    """The first ``- type`` (or ``(either ...)`` member) in the file that is not declared.

    ``(:functions ...)`` is skipped: its ``- number`` is the value type, not a declared one.
    """
    code = _blank_comments(text)
    functions = _section(code, ":functions")
    if functions is not None:
        code = code[:functions[0]] + " " * (functions[1] - functions[0]) + code[functions[1]:]
    for mt in re.finditer(r"-\s*\(\s*either\s+([^)]*)\)|-\s+([^\s()]+)", code, re.I):
        for name in (mt.group(1) or mt.group(2)).split():
            if name.lower() not in known:
                return name
    return None


def _in_file_order(literals, text: str) -> list:
    """Initial literals in the order the file states them (the pddl package returns a set).

    Errors are found in a fixed order, so the first one reported is the first in the file.
    """
    code = _blank_comments(text)
    block = re.search(r"\(\s*:init\b", code, re.I)
    first: dict[str, int] = {}
    for mt in re.finditer(r"\(\s*([^\s()]+)((?:\s+[^\s()]+)*)\s*\)", code[block.end():] if block else ""):
        first.setdefault(" ".join([mt.group(1), *mt.group(2).split()]).lower(), mt.start())

    def key(lit) -> tuple[int, str]:
        inner = lit.argument if isinstance(lit, pb.Not) else lit
        words = [str(getattr(inner, "name", inner)), *(str(t.name) for t in getattr(inner, "terms", ()))]
        return first.get(" ".join(words).lower(), len(code)), str(lit)

    return sorted(literals, key=key)


def _parse(text: str, path: str, start: str, errors: _Errors | None = None, original: str | None = None):
    """Parse normalised ``text``; with ``errors``, repair what the pddl package refuses but we can recover from.

    An unknown type is declared and a duplicate name in a typed list is dropped, each
    recorded (located in the ``original`` text), and the text parsed again.
    """
    for _ in range(_MAX_REPARSES):
        try:
            return _parse_once(text, path, start, original or text)
        except _Recoverable as rec:
            if isinstance(rec.error, _Warned):
                if errors is not None:
                    errors.warnings.append(str(rec.error))
            elif errors is None:
                raise rec.error from None
            else:
                errors.add(rec.error)
            if isinstance(rec.error, UnknownSymbolError):
                errors.invented_types.add(rec.error.name)
            text = rec.repaired
    return _parse_once(text, path, start, original or text)


class _Warned(PgtError):
    """A repair worth a warning, not an error (the input is dubious but its meaning is clear)."""


def _redeclared_type(text: str, name: str, first: int, second: int) -> tuple[int, str] | None:
    """For a type listed twice in :types, the occurrence to drop and the parent kept; None if not a type or conflicting.

    The rule is :func:`~toolkit.plain_domain.redeclared_parent`'s (the plain reader's too).
    """
    code = _blank_comments(text)
    sec = _section(code, ":types")
    if sec is None or not (sec[0] <= first < second < sec[1]):
        return None

    def parent(at: int) -> str | None:
        mt = re.compile(r"[^()]*?(?<!\S)-\s+(\(\s*either[^)]*\)|[^\s()]+)").match(code, at, sec[1])
        return mt.group(1) if mt else None

    choice = redeclared_parent(parent(first), parent(second))
    return None if choice is None else ((first, second)[choice[0]], choice[1])


def _type_twice(where: str, name: str, parent: str) -> str:
    return f"{where}: type '{name}' declared twice; kept as a subtype of {parent}"


def _redeclared_warnings(path: str, text: str, redeclared: dict[str, str]) -> list[str]:
    """The warnings for the types the plain reader found listed twice, each at its second listing (as the full parser's)."""
    code = _blank_comments(text)
    sec = _section(code, ":types") or (0, len(code))
    out = []
    for name, parent in redeclared.items():
        hits = [h for h in _declared(name, code, sec[0]) if h < sec[1]]
        out.append(_type_twice("{}:{}:{}".format(path, *line_col(text, hits[1 if len(hits) > 1 else 0])), name, parent))
    return out


class _Recoverable(Exception):
    """An error the pddl package raised that a repaired text parses past."""

    def __init__(self, error: PgtError, repaired: str) -> None:
        self.error, self.repaired = error, repaired


def _declared(name: str, code: str, offset: int) -> list[int]:
    """Offsets from ``offset`` on where ``name`` is listed in a typed list (not where it is a ``- parent``)."""
    return [offset + mt.start() for mt in re.finditer(name_pattern(name), code[offset:], re.I)
            if not re.search(r"-\s*$", code[max(0, offset + mt.start() - 80):offset + mt.start()])]


def _where_repeated(path: str, original: str, name: str, line: int) -> str:
    """The second use of ``name`` from ``line`` on in the original text (normalising may shift columns)."""
    lines = original.split("\n")
    offset = sum(len(x) + 1 for x in lines[: line - 1])
    hits = _declared(name, _blank_comments(original), offset)
    at = hits[1 if len(hits) > 1 else 0] if hits else offset
    return "{}:{}:{}".format(path, *line_col(original, at))


def _declare_type(text: str, name: str) -> str:
    """``text`` with ``name`` added to its :types (or a new :types section), newlines kept."""
    code = _blank_comments(text)
    types = re.search(r"\(\s*:types\b", code)
    if types:
        return text[: types.end()] + " " + name + text[types.end():]
    sec = re.search(r"\(\s*:(predicates|constants)\b", code)
    return text[: sec.start()] + f"(:types {name}) " + text[sec.start():] if sec else text


def _parse_once(text: str, path: str, start: str, original: str):
    from lark.exceptions import UnexpectedInput, VisitError
    from pddl.parser.domain import DomainTransformer

    try:
        lark_tree = _lark(start).parse(text)
    except UnexpectedInput as exc:
        raise _syntax_error(path, text, exc, original) from None
    for body in lark_tree.find_data("action_body_def"):
        # PDDL allows omitting :precondition and :effect; the pddl package then
        # crashes on the None placeholders, so we fill in an empty (and).
        if len(body.children) == 4:
            template = _empty_action_body()
            for i in (0, 2):
                if body.children[i] is None:
                    body.children[i:i + 2] = copy.deepcopy(template[i:i + 2])
    if start == "domain":
        transformer = DomainTransformer()
    else:
        transformer = _problem_transformer_class()()
        # Its inner domain transformer checks goal formulas against requirements it
        # never learns (a problem's goal may use = or forall); grant them all.
        transformer._domain_transformer.requirements(["(", ":requirements", *SUPPORTED_REQUIREMENTS,
                                                       *_PARSER_ONLY_REQUIREMENTS, ")"])
    try:
        return transformer.transform(lark_tree)
    except VisitError as exc:
        meta = getattr(exc.obj, "meta", None)
        line = getattr(meta, "line", None) if meta is not None and not meta.empty else None
        col = getattr(meta, "column", None) if line is not None else None
        detail = (str(exc.orig_exc).strip() or type(exc.orig_exc).__name__).replace(_ROOT, "object").replace(_VAR_PREFIX, "")
        bad_type = re.search(r"types \[([^\]]*)\] of \w+ .* not in available types (?:\{([^}]*)\}|set\(\))", detail)
        if bad_type:  # the pddl package's message has no position; find one
            known = re.findall(r"'([^']+)'", bad_type.group(2) or "")
            lowered = {k.lower() for k in (*known, "object", _ROOT)}
            # It names the type list of whichever term its set iteration met first; report the first in the file.
            name = _first_unknown_type(text, lowered) or next(
                (t for t in re.findall(r"'([^']+)'", bad_type.group(1)) if t.lower() not in lowered), "?")
            error = UnknownSymbolError("type", name, known, _where(path, original, _type_use_pattern(name)))
            repaired = _declare_type(text, name)
            if repaired != text:
                raise _Recoverable(error, repaired) from None
            raise error from None
        bad_number = re.search(r"could not convert string to float: Token\('NUMBER', '([^']*)'\)", detail)
        if bad_number:  # the grammar's NUMBER takes 1.2.3; the package's float() does not. Point at the number.
            start = sum(len(x) + 1 for x in original.split("\n")[: (line or 1) - 1])
            where = re.compile(r"(?<![\w.])" + re.escape(bad_number.group(1)) + r"(?![\w.])").search(
                _blank_comments(original), start)
            raise PddlSyntaxError(path, *(line_col(original, where.start()) if where else (line, col)),
                                  _not_a_number(bad_number.group(1))) from None
        retyped = re.search(r"invalid types for item '([^']+)': previous known tags", detail)
        if retyped and line is not None:  # (p ?x - block ?x): listed twice, with two types
            start = sum(len(x) + 1 for x in original.split("\n")[: line - 1])
            name = _var(retyped.group(1))[1:]
            code = _blank_comments(original)
            hits = [v.start() for v in re.compile(r"\?" + re.escape(name) + r"(?![\w-])", re.I).finditer(code, start)]
            kind, spelled = ("variable", "?" + name) if len(hits) >= 2 else ("name", name)
            hits = hits if len(hits) >= 2 else _declared(name, code, start)
            at = hits[1] if len(hits) >= 2 else start
            if kind == "variable" and re.search(r":parameters\s*\([^()]*$", code[:at], re.I):
                kind = "parameter"  # as _duplicates names it
            raise DuplicateNameError(kind, spelled, "{}:{}:{}".format(path, *line_col(original, at))) from None
        cycle = re.fullmatch(r"cycle detected in the type hierarchy: (.+)", detail)
        if cycle:
            names = cycle.group(1).split(" -> ")
            where = _where(path, original, name_pattern(names[0]), _offset(_blank_comments(original), r"\(\s*:types\b"))
            raise PgtError(f"{where}: the types form a cycle ({' -> '.join([*names, names[0]])}); "
                           "a type cannot be its own ancestor") from None
        const = re.fullmatch(r"Constant '([^']+)' not defined\.?", detail)
        if const:
            # ALFRED/ALFWorld's domain names problem objects (SinkBasinType, ...) in its
            # actions without declaring them as constants. Report each use, located, and
            # declare it so the rest of the file is still checked.
            name = const.group(1)
            after = _offset(_blank_comments(original), r"\(\s*:action\b")
            error = UnknownSymbolError("constant", name, (), _where(path, original, name_pattern(name), after))
            raise _Recoverable(error, _declare_constant(text, name)) from None
        dup = re.search(r"duplicate name '([^']+)' in typed list", detail)
        if dup and line is not None:
            # Drop the repeated name (the second one in that list) and parse on.
            lines = text.split("\n")
            offset = sum(len(x) + 1 for x in lines[: line - 1]) + (col or 1) - 1
            hits = _declared(dup.group(1), _blank_comments(text), offset)
            if len(hits) >= 2:
                at = hits[1]
                where = _where_repeated(path, original, dup.group(1), line)
                kept = _redeclared_type(text, dup.group(1), hits[0], at)
                if kept is not None:  # a type listed twice where one parent refines the other: FD keeps going too
                    drop, parent = kept
                    error = _Warned(_type_twice(where, dup.group(1), parent))
                    at = drop
                else:
                    error = DuplicateNameError("name", dup.group(1), where)
                end = at + len(dup.group(1))
                code = _blank_comments(text)
                alone = re.compile(r"\s*-\s*[^\s()-][^\s()]*").match(code, end)
                if alone and re.search(r"(\(\s*:(types|constants|objects)|(?<!\S)-\s*[^\s()]+)\s*$", code[:at], re.I):
                    end = alone.end()  # the only name before its "- parent": drop the parent too, or "-" dangles
                raise _Recoverable(error, text[:at] + " " * (end - at) + text[end:]) from None
        raise PddlSyntaxError(path, *_in_original(text, original, line, col), detail) from None
    except (PDDLError, ValueError, AssertionError) as exc:
        raise PddlSyntaxError(path, None, None, str(exc) or type(exc).__name__) from None


# ----------------------------------------------------------- conversion


class _Scope:
    """Case-insensitive name resolution against what a file declared."""

    def __init__(self, path: str, text: str, kind: str, names, errors: _Errors | None = None) -> None:
        self.path, self.text, self.kind = path, text, kind
        self.by_lower = {n.lower(): n for n in names}
        self.errors = errors
        self.start = 0  # where the piece being converted begins, so each error points at its own use

    def resolve(self, name: str, pattern: str | None = None, fallback: str | None = None) -> str:
        """The declared spelling of ``name``; an unknown one raises, or with a ``fallback`` is recorded."""
        hit = self.by_lower.get(name.lower())
        if hit is None:
            where = _where(self.path, self.text, pattern or name_pattern(name), self.start)
            if where == self.path and self.kind == "type":  # written against its dash: "home -K location"
                where = _where(self.path, self.text, _type_use_pattern(name), self.start)
            exc = UnknownSymbolError(self.kind, name, self.by_lower.values(), where)
            if fallback is None or self.errors is None:
                raise exc
            if name not in self.errors.invented_types:  # else reported already, where the parse stopped on it
                self.errors.add(exc)
            return fallback
        return hit


def _type_tuple(tags, types: _Scope) -> tuple[str, ...]:
    if not tags:
        return ("object",)
    return tuple(sorted({"object" if str(t).lower() in ("object", _ROOT) else types.resolve(str(t), fallback="object")
                         for t in tags}))


class _Converter:
    """Converts pddl-package formulas to toolkit formulas, checking every name."""

    def __init__(self, path: str, text: str, predicates: dict[str, m.PredicateDef],
                 objects: _Scope, types: _Scope, functions: dict[str, m.FunctionDef] | None = None,
                 errors: _Errors | None = None) -> None:
        self.path, self.text = path, text
        self.predicates = predicates
        self.functions = functions or {}
        self.func_scope = _Scope(path, text, "function", self.functions)
        self.pred_scope = _Scope(path, text, "predicate", predicates)
        self.objects, self.types = objects, types
        self.errors = errors
        self.start = 0
        self.used_requirements: set[str] = set()

    def at(self, start: int) -> None:
        """Locate the errors that follow from ``start`` on (the action, :init or :goal being converted)."""
        self.start = self.pred_scope.start = self.objects.start = self.types.start = start

    def _recover(self, convert, fallback):
        """``convert()``, or with a collector the error recorded and ``fallback`` (the piece left out)."""
        if self.errors is None:
            return convert()
        try:
            return convert()
        except (UnknownSymbolError, ArityError, TypeMismatchError) as exc:
            self.errors.add(exc)
            return fallback

    def params(self, variables) -> tuple[m.Param, ...]:
        return tuple((_var(str(v.name)), _type_tuple(v.type_tags, self.types)) for v in variables)

    def term(self, t, scope: dict[str, str]) -> str:
        name = str(t.name)
        if type(t).__name__ == "Variable":
            key = _var(name).lower()
            if key not in scope:
                where = _where(self.path, self.text, re.escape(_var(name)) + r"(?![\w-])", self.start)
                raise UnknownSymbolError("variable", _var(name), scope.values(), where)
            return scope[key]
        return self.objects.resolve(name)

    def atom(self, p: _PPredicate, scope: dict[str, str]) -> m.Pred:
        pred = self.pred_scope.resolve(str(p.name), r"\(\s*" + re.escape(str(p.name)) + r"(?![\w-])")
        terms = tuple(self.term(t, scope) for t in p.terms)
        decl = self.predicates[pred]
        if len(terms) != decl.arity:
            # Point at the use with the wrong count (not the declaration), if we can find it.
            name = re.escape(str(p.name))
            where = _where(self.path, self.text, r"\(\s*" + name + r"(?:\s+[^\s()]+){%d}\s*\)" % len(terms), self.start)
            if where == self.path:
                where = _where(self.path, self.text, r"\(\s*" + name + r"(?![\w-])", self.start)
            raise ArityError("predicate", pred, decl.arity, len(terms), where)
        return m.Pred(pred, terms)

    def _scoped(self, variables, scope):
        params = self.params(sorted(variables, key=lambda v: str(v.name)))
        inner = dict(scope)
        inner.update({v.lower(): v for v, _ in params})
        return params, inner

    def condition(self, f, scope: dict[str, str]) -> m.Condition:
        if f is None:
            return m.TRUE
        if isinstance(f, _PPredicate):  # a faulty atom is left out: TRUE adds no false alarms downstream
            return self._recover(lambda: self.atom(f, scope), m.TRUE)
        if isinstance(f, _PEqualTo):
            self.used_requirements.add(":equality")
            return self._recover(lambda: m.Equals(self.term(f.left, scope), self.term(f.right, scope)), m.TRUE)
        if isinstance(f, pb.Not):
            self.used_requirements.add(":negative-preconditions")
            return m.Not(self.condition(f.argument, scope))
        if isinstance(f, pb.And):
            return m.And(tuple(self.condition(x, scope) for x in f.operands))
        if isinstance(f, pb.Or):
            self.used_requirements.add(":disjunctive-preconditions")
            return m.Or(tuple(self.condition(x, scope) for x in f.operands))
        if isinstance(f, pb.Imply):
            self.used_requirements.add(":disjunctive-preconditions")
            a, b = f.operands
            return m.Imply(self.condition(a, scope), self.condition(b, scope))
        if isinstance(f, (pb.ForallCondition, pb.ExistsCondition)):
            params, inner = self._scoped(f.variables, scope)
            body = self.condition(f.condition, inner)
            if isinstance(f, pb.ForallCondition):
                self.used_requirements.add(":universal-preconditions")
                return m.Forall(params, body)
            self.used_requirements.add(":existential-preconditions")
            return m.Exists(params, body)
        if isinstance(f, pb.OneOf):
            raise UnsupportedFeatureError(self.path, "non-deterministic effects (oneof)")
        if isinstance(f, pf.FunctionExpression):
            raise self.unsupported("numeric conditions", _NUMERIC_COMPARISON_RE)
        raise UnsupportedFeatureError(self.path, f"formula {type(f).__name__} ({f})")

    def unsupported(self, feature: str, pattern: str) -> UnsupportedFeatureError:
        # From the piece being converted on: a problem's goal comparison, not its :init values.
        line, col = locate(self.text, pattern, self.start)
        if line is None:
            line, col = locate(self.text, pattern)
        return UnsupportedFeatureError(self.path, feature, line, col)

    def fterm(self, f: pf.NumericFunction, scope: dict[str, str], before: str = "") -> m.FTerm:
        """A function term: declared function, known terms, right number of them.

        ``before`` (a regex) is what precedes a use, so that errors point at a use,
        not at the declaration.
        """
        pattern = before + r"\(\s*" + re.escape(str(f.name)) + r"(?![\w-])"
        name = self.func_scope.resolve(str(f.name), pattern)
        terms = tuple(self.term(t, scope) for t in f.terms)
        decl = self.functions[name]
        if len(terms) != len(decl.params):
            exact = pattern + "".join(r"\s+" + name_pattern(str(t)) for t in f.terms) + r"\s*\)"  # this use, not the first
            where = _where(self.path, self.text, exact, self.start)
            raise ArityError("function", name, len(decl.params), len(terms),
                             where if where != self.path else _where(self.path, self.text, pattern))
        return m.FTerm(name, terms)

    def cost_term(self, f, scope: dict[str, str]) -> m.CostTerm:
        """The X of ``(increase (total-cost) X)``: a number or a static function term."""
        target = f.operands[0]
        if not (isinstance(target, pf.NumericFunction) and str(target.name).lower() == m.TOTAL_COST
                and not target.terms):
            spelled = str(target.name)
            # ALFRED's domain counts its cost in (totalCost): action costs must be spelled (total-cost).
            renamed = (f": action costs increase (total-cost), spelled so; rename {spelled} to total-cost"
                       if re.sub(r"[-_]", "", spelled.lower()) == "totalcost" and not target.terms else "")
            raise self.unsupported(f"numeric effects other than action costs (increase {target}){renamed}",
                                   r"\(\s*increase\s*\(\s*" + re.escape(spelled) + r"(?![\w-])")
        value = f.operands[1]
        if isinstance(value, pf.NumericValue):
            return _number(value.value)
        if isinstance(value, pf.NumericFunction) and str(value.name).lower() != m.TOTAL_COST:
            return self.fterm(value, scope, r"\(\s*increase\s*\(\s*total-cost\s*\)\s*")
        raise self.unsupported(f"cost expression {value} (action costs are a number or a static function term)",
                               r"\(\s*increase\s*\(\s*total-cost\s*\)\s*(\((?!\s*[\w-]+[^()]*\))|-)")

    def action_effect(self, f, scope: dict[str, str]) -> tuple[m.Effect, tuple[m.CostTerm, ...]]:
        """The effect and its top-level ``(increase (total-cost) X)`` summands (where FD allows them)."""
        parts = list(f.operands) if isinstance(f, pb.And) else [f]
        costs = tuple(self.cost_term(p, scope) for p in parts if isinstance(p, pf.Increase))
        if costs:
            self.used_requirements.add(":action-costs")
            rest = [p for p in parts if not isinstance(p, pf.Increase)]
            f = None if not rest else rest[0] if len(rest) == 1 else pb.And(*rest)
        return self.effect(f, scope), costs

    def effect(self, f, scope: dict[str, str]) -> m.Effect:
        if f is None:
            return m.AndEffect(())
        if isinstance(f, _PPredicate):
            return self._recover(lambda: m.AddEffect(self.atom(f, scope)), m.AndEffect(()))
        if isinstance(f, pb.Not) and isinstance(f.argument, _PPredicate):
            return self._recover(lambda: m.DelEffect(self.atom(f.argument, scope)), m.AndEffect(()))
        if isinstance(f, pb.And):
            return m.AndEffect(tuple(self.effect(x, scope) for x in f.operands))
        if isinstance(f, pe.When):
            self.used_requirements.add(":conditional-effects")
            return m.WhenEffect(self.condition(f.condition, scope), self.effect(f.effect, scope))
        if isinstance(f, pe.Forall):
            self.used_requirements.add(":conditional-effects")
            params, inner = self._scoped(f.variables, scope)
            return m.ForallEffect(params, self.effect(f.effect, inner))
        if isinstance(f, pf.Increase):  # the top level was handled by action_effect
            raise self.unsupported("cost increases inside conditional or universal effects",
                                   r"\(\s*(when|forall)\b(?:(?!\(\s*:action\b)[\s\S])*?\(\s*increase\b")
        if isinstance(f, pf.FunctionExpression):
            raise self.unsupported(f"numeric effect {f}", r"\(\s*(increase|decrease|assign|scale-up|scale-down)\b")
        # An equality as an effect, (= ?x ?y) or (not (= ?x ?y)): point at it in this action's :effect.
        mt = re.compile(r":effect\b(?:(?!\(\s*:action\b)[\s\S])*?(\(\s*(?:not\s*\(\s*)?=)", re.I).search(
            _blank_comments(self.text), self.start)
        line, col = line_col(self.text, mt.start(1)) if mt else (None, None)
        raise UnsupportedFeatureError(self.path, f"effect {f}", line, col)


def _predicate_comments(text: str) -> dict[str, str]:
    """Trailing ``;;`` comments on predicate declarations, by lower-case name."""
    comments: dict[str, str] = {}
    sec = re.search(r"\(\s*:predicates\b", text, re.I)
    if not sec:
        return comments
    for line in text[sec.end():].splitlines():
        if re.search(r"\(\s*:(action|functions|derived|constraints)\b", line, re.I):
            break
        mt = re.match(r"\s*\(\s*([A-Za-z][\w-]*)[^;]*\)\s*;+\s*(.+?)\s*$", line)
        if mt:
            comments[mt.group(1).lower()] = mt.group(2)
    return comments


def _types_of(pdom) -> dict[str, str]:
    types = {}
    for child, parent in sorted(dict(pdom.types).items(), key=lambda kv: str(kv[0])):
        if str(child).lower() not in ("object", _ROOT):
            types[str(child)] = str(parent) if parent and str(parent) != _ROOT else "object"
    return types


def _none_if_empty(f):
    """The pddl package reads an empty ``:precondition ()``/``:effect ()`` as ``(or)``; PDDL means none."""
    return None if isinstance(f, pb.Or) and not f.operands else f


def _path_argument(fn, text: str, args: tuple, kwargs: dict) -> str:
    """The ``path`` a loader function was called with (its default if none was given)."""
    bound = inspect.signature(inspect.unwrap(fn)).bind_partial(text, *args, **kwargs)
    return str(bound.arguments.get("path", "<string>"))


def _nesting_guard(parse):
    """Turn a RecursionError (formulas nested thousands deep) into a located PgtError."""

    @functools.wraps(parse)
    def guarded(text: str, *args, **kwargs):
        try:
            return parse(text, *args, **kwargs)
        except RecursionError:
            path = _path_argument(parse, text, args, kwargs)
            depths = list(_depths(text))
            depth = max(depths, default=0)
            line, col = line_col(text, depths.index(depth)) if depths else (None, None)  # where it is deepest
            raise PddlSyntaxError(path, line, col, f"formulas nested too deeply ({depth} levels of parentheses)") from None

    return guarded


def _depths(text: str):
    depth = 0
    for ch in _blank_comments(text):
        depth += (ch == "(") - (ch == ")")
        yield depth


def _offset(code: str, pattern: str, default: int = 0) -> int:
    mt = re.search(pattern, code, re.I)
    return mt.start() if mt else default


def _section(code: str, keyword: str) -> tuple[int, int] | None:
    """Start and end offsets of the balanced ``(:keyword ...)`` section of comment-blanked code."""
    mt = re.search(r"\(\s*" + re.escape(keyword) + r"(?![\w-])", code, re.I)
    if not mt:
        return None
    depth = 0
    for i in range(mt.start(), len(code)):
        depth += (code[i] == "(") - (code[i] == ")")
        if depth == 0:
            return mt.start(), i + 1
    return mt.start(), len(code)


def _duplicates(text: str, path: str, errors: _Errors) -> None:
    """Record predicates, actions and action or quantifier variables declared twice (the pddl package silently keeps one)."""
    code = _blank_comments(text)
    found: list[tuple[str, re.Match[str]]] = []
    sec = _section(code, ":predicates")
    if sec:
        inner = code[sec[0]:sec[1]]
        inner = inner[re.search(r":predicates", inner, re.I).end():]  # PDDL keywords are case-insensitive
        base = sec[1] - len(inner)
        found += [("predicate", mt) for mt in re.finditer(r"\(\s*([^\s()]+)", inner)]
        found = [(k, re.compile(r"\(\s*([^\s()]+)").match(code, base + mt.start())) for k, mt in found]
    found += [("action", mt) for mt in re.finditer(r"\(\s*:action\s+([^\s()]+)", code, re.I)]
    seen: set[tuple[str, str]] = set()
    for kind, mt in found:
        key = (kind, mt.group(1).lower())
        if key in seen:
            line, col = line_col(text, mt.start(1))
            errors.add(DuplicateNameError(kind, mt.group(1), f"{path}:{line}:{col}"))
        seen.add(key)
    # (?x - block ?x - block) is one parameter to the package, two to the plan that calls the action.
    for mt in re.finditer(r":parameters\s*\(([^()]*)\)|\(\s*(?:forall|exists)\s*\(([^()]*)\)", code, re.I):
        group = 1 if mt.group(1) is not None else 2
        names: set[str] = set()
        for var in re.finditer(r"\?[^\s()]+", mt.group(group)):
            if var.group().lower() in names:
                line, col = line_col(text, mt.start(group) + var.start())
                errors.add(DuplicateNameError("parameter" if group == 1 else "variable", var.group(),
                                              f"{path}:{line}:{col}"))
            names.add(var.group().lower())


def _collect(build):
    """Run a builder with a fresh collector: a :class:`Loaded` with what it built and every error."""

    @functools.wraps(build)
    def read(text: str, *args, **kwargs) -> Loaded:
        path = _path_argument(build, text, args, kwargs)
        errors = _Errors(path)
        try:
            model = build(text, *args, errors=errors, **kwargs)
        except PgtError as exc:  # unrecoverable (syntax, unsupported feature): stop here, keep what came before
            errors.add(exc)
            model = None
        return Loaded(model, errors.in_file_order())

    return read


def _declare_constant(text: str, name: str) -> str:
    """``text`` with ``name`` appended to its :constants (untyped, so after any ``- type``), or a new section."""
    code = _blank_comments(text)
    sec = _section(code, ":constants")
    if sec is not None:
        return text[: sec[1] - 1] + " " + name + text[sec[1] - 1:]
    at = re.search(r"\(\s*:(predicates|functions|action)\b", code, re.I)
    return text[: at.start()] + f"(:constants {name}) " + text[at.start():] if at else text


@_collect
@_nesting_guard
def read_domain(text: str, path: str = "<string>", *, errors: _Errors) -> Loaded[m.Domain]:
    """Load domain text, collecting every independent error; the model leaves out the faulty pieces.

    >>> loaded = read_domain("(define (domain t) (:predicates (p)) (:action a :parameters () "
    ...                      ":precondition (q) :effect (p ?x)))")
    >>> [str(e) for e in loaded.errors]
    ["<string>:1:78: unknown predicate 'q'", "<string>:1:93: unknown variable '?x'"]
    >>> sorted(loaded.model.actions)
    ['a']
    """
    notes: list[str] = []
    norm, warnings, declared = _normalise(text, path, errors, notes)
    # Most domains are plain: read them without Lark and the pddl package's validation (a fixed ~0.1 s).
    pdom = read_plain_domain(_blank_comments(norm))
    if pdom is None:
        pdom = _parse(norm, path, "domain", errors, text)
    else:
        errors.warnings += _redeclared_warnings(path, text, pdom.redeclared)
    warnings += errors.warnings
    _duplicates(text, path, errors)
    types = {t: p for t, p in _types_of(pdom).items() if t not in errors.invented_types}
    types_at = _offset(_blank_comments(text), r"\(\s*:types\b")
    declared_types = {t.lower() for t in types} | {"object", _ROOT}
    for parent in dict.fromkeys(p for p in types.values() if p and p.lower() not in declared_types):
        # IPC 2014's tetris writes "one_square two_straight - pieces" and never lists pieces:
        # FD and VAL read it as a type under object, and so do we (lint warns).
        types[parent] = "object"
        declared_types.add(parent.lower())
        where = _where(path, text, name_pattern(parent), types_at)
        warnings.append(f"{where}: type '{parent}' is a parent in :types but is not declared; read as a subtype of object")
    type_scope = _Scope(path, text, "type", [*types, "object"], errors)
    type_scope.start = types_at
    for child, parent in types.items():
        if parent != "object":
            types[child] = type_scope.resolve(parent, fallback="object")
    constants = {str(c.name): _type_tuple(c.type_tags, type_scope)[0]
                 for c in sorted(pdom.constants, key=lambda c: str(c.name))}
    comments = _predicate_comments(text)
    predicates: dict[str, m.PredicateDef] = {}
    for p in sorted(pdom.predicates, key=lambda p: str(p.name)):
        params = tuple((_var(str(v.name)), _type_tuple(v.type_tags, type_scope)) for v in p.terms)
        predicates[str(p.name)] = m.PredicateDef(str(p.name), params, comments.get(str(p.name).lower(), ""))
    functions = _functions_of(pdom, type_scope, path, text)
    conv = _Converter(path, text, predicates, _Scope(path, text, "constant", constants, errors), type_scope,
                      functions, errors)
    actions: dict[str, m.ActionSchema] = {}
    # Keep the file's order of actions (the pddl package returns a set).
    code = _blank_comments(text)
    for a, start in _action_starts(pdom.actions, code):
        conv.at(start)
        params = conv.params(a.parameters)
        scope = {v.lower(): v for v, _ in params}
        pre = conv.condition(_none_if_empty(a.precondition), scope)
        eff, cost = conv.action_effect(_none_if_empty(a.effect), scope)
        actions.setdefault(str(a.name), m.ActionSchema(str(a.name), params, pre, eff, cost))  # the first declaration wins
    for r in sorted(conv.used_requirements):
        implied = ({":adl", ":quantified-preconditions"} if "preconditions" in r and ("universal" in r or "existential" in r)
                   else set() if r == ":action-costs" else {":adl"})
        if r not in declared and not (declared & implied):
            warnings.append(f"{path}: uses {r} without declaring it in :requirements")
    if (types or any(t != ("object",) for p in predicates.values() for _, t in p.params)) and ":typing" not in declared and ":adl" not in declared:
        warnings.append(f"{path}: uses types without declaring :typing in :requirements")
    return m.Domain(str(pdom.name), frozenset(declared), types, constants, predicates, actions,
                    path, text, tuple(warnings), functions, tuple(notes))


def _number(value: float) -> m.Number:
    return int(value) if float(value).is_integer() else float(value)


def _functions_of(pdom, type_scope: _Scope, path: str, text: str) -> dict[str, m.FunctionDef]:
    """The declared functions: ``total-cost`` (no arguments) and static cost functions."""
    functions: dict[str, m.FunctionDef] = {}
    for f in sorted(pdom.functions, key=lambda f: str(f.name)):
        name = str(f.name)
        params = tuple((_var(str(v.name)), _type_tuple(v.type_tags, type_scope)) for v in f.terms)
        if name.lower() == m.TOTAL_COST:
            if params:
                raise PddlSyntaxError(path, *locate(text, r"\(\s*total-cost\s+[?\w]"), "total-cost takes no arguments")
            name = m.TOTAL_COST
        functions[name] = m.FunctionDef(name, params)
    return functions


def _action_starts(pactions, code: str) -> list[tuple[_PAction, int]]:
    """The pddl package's actions (a set) in file order, each with the offset of its ``(:action``.

    Actions declared twice are told apart by their parameter names, then by their text.
    """
    starts: dict[str, list[tuple[int, list[str]]]] = {}
    for mt in re.finditer(r"\(\s*:action\s+([^\s()]+)\s*(?::parameters\s*\(([^)]*)\))?", code, re.I):
        names = [w.lower() for w in re.findall(r"\?([^\s()]+)", mt.group(2) or "")]
        starts.setdefault(mt.group(1).lower(), []).append((mt.start(), names))
    out = []
    for a in sorted(pactions, key=str):
        spots = starts.get(str(a.name).lower()) or [(1 << 30, [])]
        names = [_var(str(v.name))[1:].lower() for v in a.parameters]
        spot = next((s for s in spots if s[1] == names), spots[0])
        if len(spots) > 1:
            spots.remove(spot)
        out.append((a, spot[0]))
    return sorted(out, key=lambda pair: pair[1])


def parse_domain(text: str, path: str = "<string>") -> m.Domain:
    """Parse domain text into a validated :class:`~toolkit.model.Domain`; raises the first error (file order)."""
    return read_domain(text, path).result()


@_collect
@_nesting_guard
def read_problem(text: str, domain: m.Domain, path: str = "<string>", typing: str = "strict", *,
                 errors: _Errors) -> Loaded[m.Problem]:
    """Load problem text against ``domain``, collecting every independent error (see :func:`read_domain`).

    ``typing="lenient"`` treats objects of the wrong type in initial and goal atoms
    as Fast Downward does: the atoms are kept (an action whose parameter types do
    not fit can never use them) and each mismatch becomes a warning, not an error.
    """
    if typing not in TYPING_MODES:
        raise PgtError(f"unknown typing mode '{typing}' (choose from {', '.join(TYPING_MODES)})")
    lenient: list[str] | None = [] if typing == "lenient" else None
    notes: list[str] = []
    norm, warnings, _ = _normalise(text, path, errors, notes)
    # Most problems are plain (ground atoms, simple goal): read them without Lark, which is slow per token.
    pprob = read_plain_problem(_blank_comments(norm), _ROOT) or _parse(norm, path, "problem", errors, text)
    if str(pprob.domain_name).lower() != domain.name.lower():
        warnings.append(f"{path}: problem is for domain '{pprob.domain_name}', checked against '{domain.name}'")
    code = _blank_comments(text)
    type_scope = _Scope(path, text, "type", [*domain.types, "object"], errors)
    type_scope.start = _offset(code, r"\(\s*:objects\b")
    objects: dict[str, str] = {}
    untyped: set[str] = set()  # objects of an unknown type: reported once, not again at every use
    for o in sorted(pprob.objects, key=lambda o: str(o.name)):
        name = str(o.name)
        if name.lower() in {c.lower() for c in domain.constants}:
            sec = _section(code, ":objects") or (0, len(code))
            at = next((h for h in _declared(name, code, sec[0]) if h < sec[1]), None)
            where = path if at is None else "{}:{}:{}".format(path, *line_col(text, at))
            warnings.append(f"{where}: object '{name}' repeats a domain constant")
            continue
        if name.lower() in {k.lower() for k in objects}:  # names are case-insensitive: y and Y are one object
            sec = _section(code, ":objects") or (0, len(code))
            hits = [h for h in _declared(name, code, sec[0]) if h < sec[1]]
            errors.add(DuplicateNameError("name", text[hits[-1]:hits[-1] + len(name)],
                                          "{}:{}:{}".format(path, *line_col(text, hits[-1]))))
            continue
        objects[name] = _type_tuple(o.type_tags, type_scope)[0]
        if any(str(t).lower() not in (*type_scope.by_lower, _ROOT) for t in o.type_tags):
            untyped.add(name)
    every = {**domain.constants, **objects}
    conv = _Converter(path, text, dict(domain.predicates), _Scope(path, text, "object", every, errors), type_scope,
                      dict(domain.functions), errors)
    conv.at(_offset(code, r"\(\s*:init\b"))
    init: set[m.Atom] = set()
    values: dict[m.Atom, m.Number] = {}
    for lit in _in_file_order(pprob.init, norm):
        if isinstance(lit, pb.Not):
            continue  # closed world: negative initial literals are redundant
        if isinstance(lit, pf.EqualTo) and isinstance(lit.operands[0], pf.NumericFunction):
            def checked_term(lit=lit) -> m.FTerm:
                ft = conv.fterm(lit.operands[0], {}, r"\(\s*=\s*")
                _check_types(domain, every, m.Pred(ft.function, ft.terms), path, text, lenient, conv.start, untyped,
                             domain.functions[ft.function].params)
                return ft

            ft = conv._recover(checked_term, None)
            if ft is None:
                continue
            value = _number(lit.operands[1].value)
            if ft.function == m.TOTAL_COST and value != 0:
                raise PddlSyntaxError(path, *locate(text, r"\(\s*=\s*\(\s*total-cost\b"),
                                      f"the initial (total-cost) must be 0, not {m.format_number(value)}")
            values[m.Atom(ft.function, ft.terms)] = value
            continue
        if not isinstance(lit, _PPredicate):
            raise UnsupportedFeatureError(path, f"initial element {lit}")

        def checked(lit=lit) -> m.Atom:
            pred = conv.atom(lit, {})
            _check_types(domain, every, pred, path, text, lenient, conv.start, untyped)
            return m.Atom(pred.predicate, pred.terms)

        atom = conv._recover(checked, None)
        if atom is not None:
            init.add(atom)
    conv.at(_offset(code, r"\(\s*:goal\b"))
    goal = conv.condition(pprob.goal, {})
    for pred in _ground_preds(goal):
        conv._recover(lambda pred=pred: _check_types(domain, every, pred, path, text, lenient, conv.start, untyped), None)
    metric = _metric(pprob.metric, path, text)
    if metric and m.TOTAL_COST not in domain.functions:
        raise UnknownSymbolError("function", m.TOTAL_COST, domain.functions, _where(path, text, r"\(\s*:metric\b"))
    if domain.has_costs and not metric:
        warnings.append(f"{path}: the domain has action costs but the problem no (:metric minimize (total-cost)); "
                        "plans are measured by their length, as Fast Downward and VAL do")
    return m.Problem(str(pprob.name), str(pprob.domain_name), objects, frozenset(init), goal,
                     path, text, (*warnings, *(lenient or ())), values, metric, tuple(notes))


def _metric(metric, path: str, text: str) -> bool:
    """True for ``(:metric minimize (total-cost))``; every other metric is refused."""
    if metric is None:
        return False
    expr = metric.expression
    if (str(metric.optimization).lower() == "minimize" and isinstance(expr, pf.NumericFunction)
            and str(expr.name).lower() == m.TOTAL_COST and not expr.terms):
        return True
    line, col = locate(text, r"\(\s*:metric\b")
    raise UnsupportedFeatureError(path, f"metric {metric.optimization} {expr} (only minimize (total-cost))", line, col)


def parse_problem(text: str, domain: m.Domain, path: str = "<string>", typing: str = "strict") -> m.Problem:
    """Parse problem text against ``domain`` into a validated :class:`~toolkit.model.Problem`; raises the first error.

    ``typing``: see :func:`read_problem`.
    """
    return read_problem(text, domain, path, typing).result()


def _ground_preds(c: m.Condition):
    """The atoms of a condition whose arguments are all objects (quantified ones are typed by their variable)."""
    if isinstance(c, m.Pred):
        if not any(m.is_var(t) for t in c.terms):
            yield c
    elif isinstance(c, m.Not):
        yield from _ground_preds(c.arg)
    elif isinstance(c, (m.And, m.Or)):
        for part in c.parts:
            yield from _ground_preds(part)
    elif isinstance(c, m.Imply):
        yield from _ground_preds(c.premise)
        yield from _ground_preds(c.conclusion)


def _check_types(domain: m.Domain, objects, pred: m.Pred, path: str, text: str, lenient: list[str] | None,
                 start: int = 0, untyped: set[str] = frozenset(),
                 params: tuple[tuple[str, tuple[str, ...]], ...] | None = None) -> None:
    """Raise on an argument of the wrong type, or (``lenient`` collecting warnings) note it and go on.

    The position is that of the first use at or after ``start`` (the goal's atoms are sought in the goal).
    ``params`` are the declared parameters when ``pred`` is a function term, e.g. ``(dist a b)`` in :init.
    """
    decl_params = domain.predicates[pred.predicate].params if params is None else params
    for obj, (_, types) in zip(pred.terms, decl_params):
        if obj not in untyped and not any(domain.is_subtype(objects[obj], t) for t in types):
            line, col = locate(text, r"\(\s*" + re.escape(pred.predicate) + r"\s[^)]*\b" + re.escape(obj), start)
            err = TypeMismatchError(obj, objects[obj], " or ".join(types), path if line is None else f"{path}:{line}:{col}")
            if lenient is None:
                raise err
            lenient.append(f"{err} in {pred} (kept: --typing lenient)")


def _read(path: str | Path) -> str:
    from toolkit.textfile import read_text  # one reader for every command's files (BOM, UTF-16, Latin-1 comments)
    from toolkit.bddl import is_bddl, read_as_pddl  # BEHAVIOR's BDDL: translated to PDDL on its own lines

    return read_as_pddl(path) if is_bddl(path) else read_text(path)


def load_domain(path: str | Path) -> m.Domain:
    """Load and validate a domain file."""
    return parse_domain(_read(path), str(path))


def load_problem(path: str | Path, domain: m.Domain, typing: str = "strict") -> m.Problem:
    """Load and validate a problem file against a domain (``typing``: see :func:`parse_problem`)."""
    return parse_problem(_read(path), domain, str(path), typing)
