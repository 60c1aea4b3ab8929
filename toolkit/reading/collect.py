"""Collecting a load's errors instead of stopping at the first.

An undeclared name, a wrong arity, a type error, a bad requirement or a
duplicate declaration is recorded in an :class:`Errors` with its
file:line:column and the load goes on without the offending piece, so an author
sees every independent fault in one run; :class:`Loaded` hands back what was
understood with every error in file order. A syntax error still stops the load
(nothing after it can be trusted). :func:`nesting_guard` turns Python's
recursion limit on absurdly nested formulas into a located error.
"""

from __future__ import annotations

import functools
import re
from toolkit.records import record
from typing import Generic, TypeVar

from toolkit.errors import DuplicateNameError, PddlSyntaxError, PgtError
from toolkit.reading.text import blank_comments, line_col, nesting_depths, open_before, section

_T = TypeVar("_T")


@record
class Loaded(Generic[_T]):
    """What a load understood (``model``; None when a syntax error stopped it) and every error, in file order."""

    model: _T | None
    errors: tuple[PgtError, ...]
    # Constants a domain uses undeclared (each also a warning of the model): loads, but lint reports them.
    borrowed: tuple[PgtError, ...] = ()

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


class Errors:
    """The error collector threaded through one load: records, de-duplicates, sorts by position."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.items: list[PgtError] = []
        self.invented_types: set[str] = set()  # declared only so the pddl package parses on
        self.warnings: list[str] = []  # repairs of dubious but unambiguous input
        # Names a domain's actions use as constants without declaring them (tyreworld's wrench, ALFRED's
        # SinkBasinType): read as objects its problems declare, as Fast Downward and VAL read them.
        self.borrowed: list[PgtError] = []

    def add(self, exc: PgtError) -> None:
        if all(str(e) != str(exc) for e in self.items):
            self.items.append(exc)

    def in_file_order(self) -> tuple[PgtError, ...]:
        if len(self.items) < 2:  # nothing to sort: no pattern of this file's path compiled (most loads)
            return tuple(self.items)
        where = re.compile(re.escape(self.path) + r":(\d+):(\d+):")

        def key(exc: PgtError) -> tuple[int, int]:
            mt = where.match(str(exc))
            return (int(mt.group(1)), int(mt.group(2))) if mt else (1 << 30, 0)

        return tuple(sorted(self.items, key=key))


def collect(build):
    """Run a builder with a fresh collector: a :class:`Loaded` with what it built and every error."""
    slot = _path_slot(build)  # once, not per call: where the path is among the arguments

    @functools.wraps(build)
    def read(text: str, *args, **kwargs) -> Loaded:
        errors = Errors(_path_argument(slot, args, kwargs))
        try:
            model = build(text, *args, errors=errors, **kwargs)
        except PgtError as exc:  # unrecoverable (syntax, unsupported feature): stop here, keep what came before
            errors.add(exc)
            model = None
        return Loaded(model, errors.in_file_order(), tuple(errors.borrowed))

    return read


def _path_argument(slot: tuple[int, str], args: tuple, kwargs: dict) -> str:
    """The ``path`` a loader function was called with (its default if none was given), ``slot`` its place
    (:func:`_path_slot`)."""
    if "path" in kwargs:
        return str(kwargs["path"])
    at, default = slot
    return str(args[at - 1]) if 0 < at <= len(args) else default  # args are the arguments after ``text``


def _path_slot(fn) -> tuple[int, str]:
    """Where ``fn`` (a loader function, perhaps wrapped) takes ``path`` among its positional parameters (0: it
    takes none), and the path it reads without one."""
    while hasattr(fn, "__wrapped__"):  # read from the function's code: inspect.signature costs its import
        fn = fn.__wrapped__
    code = fn.__code__
    names = code.co_varnames[:code.co_argcount]
    if "path" not in names:
        return 0, "<string>"
    at = names.index("path")
    defaults = fn.__defaults__ or ()
    return at, str(defaults[at - (len(names) - len(defaults))]) if at >= len(names) - len(defaults) else "<string>"


def nesting_guard(parse):
    """Turn a RecursionError (formulas nested thousands deep) into a located PgtError."""
    slot = _path_slot(parse)

    @functools.wraps(parse)
    def guarded(text: str, *args, **kwargs):
        try:
            return parse(text, *args, **kwargs)
        except RecursionError:
            path = _path_argument(slot, args, kwargs)
            depths = list(nesting_depths(text))
            depth = max(depths, default=0)
            line, col = line_col(text, depths.index(depth)) if depths else (None, None)  # where it is deepest
            raise PddlSyntaxError(path, line, col, f"formulas nested too deeply ({depth} levels of parentheses)") from None

    return guarded


def record_duplicates(text: str, path: str, errors: Errors) -> None:
    """Record predicates, actions and action or quantifier variables declared twice (the pddl package silently keeps one)."""
    code = blank_comments(text)
    found: list[tuple[str, re.Match[str]]] = []
    sec = section(code, ":predicates")
    if sec:
        inner = code[sec[0]:sec[1]]
        inner = inner[re.search(r":predicates", inner, re.I).end():]  # PDDL keywords are case-insensitive
        base = sec[1] - len(inner)
        words = _OPEN_WORD_RE.findall(inner)
        if len({w.lower() for w in words}) != len(words):  # a repeat among all the words after "(" (else none)
            depth, at = 0, 0  # only a declaration's own name: not the "either" of an (either a b) parameter type
            for mt in _OPEN_WORD_RE.finditer(inner):
                depth += inner.count("(", at, mt.start()) - inner.count(")", at, mt.start())
                at = mt.start()
                if depth == 0:
                    found.append(("predicate", mt))
            found = [(k, _OPEN_WORD_RE.match(code, base + mt.start())) for k, mt in found]
    # Each scan starts from a literal (":action", ":parameters", "forall"): a scan from every "(" was 3-6x slower.
    found += [("action", mt) for mt in _ACTION_RE.finditer(code) if open_before(code, mt.start()) is not None]
    seen: set[tuple[str, str]] = set()
    for kind, mt in found:
        key = (kind, mt.group(1).lower())
        if key in seen:
            line, col = line_col(text, mt.start(1))
            errors.add(DuplicateNameError(kind, mt.group(1), f"{path}:{line}:{col}"))
        seen.add(key)
    # (?x - block ?x - block) is one parameter to the package, two to the plan that calls the action.
    for kind, (start, end) in _variable_lists(code):
        listed = _VAR_RE.findall(code, start, end)
        if len(set(map(str.lower, listed))) == len(listed):
            continue  # no repeat: the common case, told in C
        names: set[str] = set()
        for var in _VAR_RE.finditer(code[start:end]):
            if var.group().lower() in names:
                line, col = line_col(text, start + var.start())
                errors.add(DuplicateNameError(kind, var.group(), f"{path}:{line}:{col}"))
            names.add(var.group().lower())


_OPEN_WORD_RE = re.compile(r"\(\s*([^\s()]+)")
_VAR_RE = re.compile(r"\?[^\s()]+")
_ACTION_RE = re.compile(r":action\s+([^\s()]+)", re.I)
_PARAMETERS_RE = re.compile(r":parameters\s*\(([^()]*)\)", re.I)
_QUANTIFIER_RES = (re.compile(r"forall\s*\(([^()]*)\)"), re.compile(r"exists\s*\(([^()]*)\)"))  # lower-case text
_QUANTIFIER_ANY_CASE_RE = re.compile(r"\(\s*(?:forall|exists)\s*\(([^()]*)\)", re.I)


def _variable_lists(code: str) -> list[tuple[str, tuple[int, int]]]:
    """The spans of every ``:parameters (...)`` (kind "parameter") and ``(forall|exists (...)`` (kind
    "variable") variable list of comment-blanked code, in file order: the matches of
    ``:parameters\\s*\\(([^()]*)\\)|\\(\\s*(?:forall|exists)\\s*\\(([^()]*)\\)`` in any case (the two never overlap).
    The quantifiers are sought in the lower-case text (the same offsets for ASCII text), each from its
    word: a scan in any case, or for either word, tries every "e" and "f" of the file."""
    lists = [(mt.start(), "parameter", mt.span(1)) for mt in _PARAMETERS_RE.finditer(code)]
    if code.isascii():
        low = code.lower()
        for quantifier in _QUANTIFIER_RES:  # each from its literal word ("forall|exists" tries every "e")
            lists += [(mt.start(), "variable", mt.span(1)) for mt in quantifier.finditer(low)
                      if open_before(low, mt.start()) is not None]
    else:
        lists += [(mt.start(), "variable", mt.span(1)) for mt in _QUANTIFIER_ANY_CASE_RE.finditer(code)]
    return [(kind, span) for _, kind, span in sorted(lists)]
