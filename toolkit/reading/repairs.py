"""Errors the ``pddl`` package raises that a repaired text parses past, and its messages located.

The package stops at an unknown type, a name listed twice in a typed list, or a
constant its actions use but never declare, and its messages carry no position.
Each is turned into a located :class:`~toolkit.errors.PgtError` and, where the
meaning is clear, a :class:`Recoverable` with the text repaired (the type
declared, the repeat blanked), so one load reports every such fault.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NoReturn

from toolkit.errors import DuplicateNameError, PddlSyntaxError, PgtError, UnknownSymbolError
from toolkit.plain_domain import redeclared_parent, redeclared_warnings, type_twice  # noqa: F401 (re-exported)
from toolkit.reading.syntax_errors import in_original, not_a_number
from toolkit.reading.text import (ROOT, VAR_PREFIX, blank_comments, line_col, listed_at, located, name_pattern,
                                  offset_of, section, type_use_pattern, written_var)

if TYPE_CHECKING:
    from lark.exceptions import VisitError


class Warned(PgtError):
    """A repair worth a warning, not an error (the input is dubious but its meaning is clear)."""


class Recoverable(Exception):
    """An error the pddl package raised that a repaired text parses past."""

    def __init__(self, error: PgtError, repaired: str) -> None:
        self.error, self.repaired = error, repaired


def redeclared_type(text: str, name: str, first: int, second: int) -> tuple[int, str] | None:
    """For a type listed twice in :types, the occurrence to drop and the parent kept; None if not a type or conflicting.

    The rule is :func:`~toolkit.plain_domain.redeclared_parent`'s (the plain reader's too).
    """
    code = blank_comments(text)
    sec = section(code, ":types")
    if sec is None or not (sec[0] <= first < second < sec[1]):
        return None

    def parent(at: int) -> str | None:
        mt = re.compile(r"[^()]*?(?<!\S)-\s+(\(\s*either[^)]*\)|[^\s()]+)").match(code, at, sec[1])
        return mt.group(1) if mt else None

    choice = redeclared_parent(parent(first), parent(second))
    return None if choice is None else ((first, second)[choice[0]], choice[1])


def where_repeated(path: str, original: str, name: str, line: int) -> str:
    """The second use of ``name`` from ``line`` on in the original text (normalising may shift columns)."""
    lines = original.split("\n")
    offset = sum(len(x) + 1 for x in lines[: line - 1])
    hits = listed_at(name, blank_comments(original), offset)
    at = hits[1 if len(hits) > 1 else 0] if hits else offset
    return "{}:{}:{}".format(path, *line_col(original, at))


def declare_type(text: str, name: str) -> str:
    """``text`` with ``name`` added to its :types (or a new :types section), newlines kept."""
    code = blank_comments(text)
    types = re.search(r"\(\s*:types\b", code)
    if types:
        return text[: types.end()] + " " + name + text[types.end():]
    sec = re.search(r"\(\s*:(predicates|constants)\b", code)
    return text[: sec.start()] + f"(:types {name}) " + text[sec.start():] if sec else text


def declare_constant(text: str, name: str) -> str:
    """``text`` with ``name`` appended to its :constants (untyped, so after any ``- type``), or a new section."""
    code = blank_comments(text)
    sec = section(code, ":constants")
    if sec is not None:
        return text[: sec[1] - 1] + " " + name + text[sec[1] - 1:]
    at = re.search(r"\(\s*:(predicates|functions|action)\b", code, re.I)
    return text[: at.start()] + f"(:constants {name}) " + text[at.start():] if at else text


def first_unknown_type(text: str, known: set[str]) -> str | None:
    """The first ``- type`` (or ``(either ...)`` member) in the file that is not declared.

    ``(:functions ...)`` is skipped: its ``- number`` is the value type, not a declared one.
    """
    code = blank_comments(text)
    functions = section(code, ":functions")
    if functions is not None:
        code = code[:functions[0]] + " " * (functions[1] - functions[0]) + code[functions[1]:]
    for mt in re.finditer(r"-\s*\(\s*either\s+([^)]*)\)|-\s+([^\s()]+)", code, re.I):
        for name in (mt.group(1) or mt.group(2)).split():
            if name.lower() not in known:
                return name
    return None


def raise_transform_error(exc: VisitError, text: str, path: str, original: str) -> NoReturn:
    """Raise the located error for what the package's transformer refused in normalised ``text``.

    A :class:`Recoverable` where a repaired text parses on (the caller parses again).
    """
    meta = getattr(exc.obj, "meta", None)
    line = getattr(meta, "line", None) if meta is not None and not meta.empty else None
    col = getattr(meta, "column", None) if line is not None else None
    detail = (str(exc.orig_exc).strip() or type(exc.orig_exc).__name__).replace(ROOT, "object").replace(VAR_PREFIX, "")
    bad_type = re.search(r"types \[([^\]]*)\] of \w+ .* not in available types (?:\{([^}]*)\}|set\(\))", detail)
    if bad_type:  # the pddl package's message has no position; find one
        known = re.findall(r"'([^']+)'", bad_type.group(2) or "")
        lowered = {k.lower() for k in (*known, "object", ROOT)}
        # It names the type list of whichever term its set iteration met first; report the first in the file.
        name = first_unknown_type(text, lowered) or next(
            (t for t in re.findall(r"'([^']+)'", bad_type.group(1)) if t.lower() not in lowered), "?")
        error = UnknownSymbolError("type", name, known, located(path, original, type_use_pattern(name)))
        repaired = declare_type(text, name)
        if repaired != text:
            raise Recoverable(error, repaired) from None
        raise error from None
    bad_number = re.search(r"could not convert string to float: Token\('NUMBER', '([^']*)'\)", detail)
    if bad_number:  # the grammar's NUMBER takes 1.2.3; the package's float() does not. Point at the number.
        start = sum(len(x) + 1 for x in original.split("\n")[: (line or 1) - 1])
        where = re.compile(r"(?<![\w.])" + re.escape(bad_number.group(1)) + r"(?![\w.])").search(
            blank_comments(original), start)
        raise PddlSyntaxError(path, *(line_col(original, where.start()) if where else (line, col)),
                              not_a_number(bad_number.group(1))) from None
    retyped = re.search(r"invalid types for item '([^']+)': previous known tags", detail)
    if retyped and line is not None:  # (p ?x - block ?x): listed twice, with two types
        start = sum(len(x) + 1 for x in original.split("\n")[: line - 1])
        name = written_var(retyped.group(1))[1:]
        code = blank_comments(original)
        hits = [v.start() for v in re.compile(r"\?" + re.escape(name) + r"(?![\w-])", re.I).finditer(code, start)]
        kind, spelled = ("variable", "?" + name) if len(hits) >= 2 else ("name", name)
        hits = hits if len(hits) >= 2 else listed_at(name, code, start)
        at = hits[1] if len(hits) >= 2 else start
        if kind == "variable" and re.search(r":parameters\s*\([^()]*$", code[:at], re.I):
            kind = "parameter"  # as record_duplicates names it
        raise DuplicateNameError(kind, spelled, "{}:{}:{}".format(path, *line_col(original, at))) from None
    cycle = re.fullmatch(r"cycle detected in the type hierarchy: (.+)", detail)
    if cycle:
        names = cycle.group(1).split(" -> ")
        where = located(path, original, name_pattern(names[0]), offset_of(blank_comments(original), r"\(\s*:types\b"))
        raise PgtError(f"{where}: the types form a cycle ({' -> '.join([*names, names[0]])}); "
                       "a type cannot be its own ancestor") from None
    const = re.fullmatch(r"Constant '([^']+)' not defined\.?", detail)
    if const:
        # ALFRED/ALFWorld's domain names problem objects (SinkBasinType, ...) in its
        # actions without declaring them as constants. Report each use, located, and
        # declare it so the rest of the file is still checked.
        name = const.group(1)
        after = offset_of(blank_comments(original), r"\(\s*:action\b")
        error = UnknownSymbolError("constant", name, (), located(path, original, name_pattern(name), after))
        raise Recoverable(error, declare_constant(text, name)) from None
    dup = re.search(r"duplicate name '([^']+)' in typed list", detail)
    if dup and line is not None:
        # Drop the repeated name (the second one in that list) and parse on.
        lines = text.split("\n")
        offset = sum(len(x) + 1 for x in lines[: line - 1]) + (col or 1) - 1
        hits = listed_at(dup.group(1), blank_comments(text), offset)
        if len(hits) >= 2:
            at = hits[1]
            where = where_repeated(path, original, dup.group(1), line)
            kept = redeclared_type(text, dup.group(1), hits[0], at)
            if kept is not None:  # a type listed twice where one parent refines the other: FD keeps going too
                drop, parent = kept
                error = Warned(type_twice(where, dup.group(1), parent))
                at = drop
            else:
                error = DuplicateNameError("name", dup.group(1), where)
            end = at + len(dup.group(1))
            code = blank_comments(text)
            alone = re.compile(r"\s*-\s*[^\s()-][^\s()]*").match(code, end)
            if alone and re.search(r"(\(\s*:(types|constants|objects)|(?<!\S)-\s*[^\s()]+)\s*$", code[:at], re.I):
                end = alone.end()  # the only name before its "- parent": drop the parent too, or "-" dangles
            raise Recoverable(error, text[:at] + " " * (end - at) + text[end:]) from None
    raise PddlSyntaxError(path, *in_original(text, original, line, col), detail) from None
