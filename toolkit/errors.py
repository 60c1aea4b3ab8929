"""One error root for the toolkit, with structured subclasses.

Exceptions are for misuse and bad input; expected outcomes such as an invalid
plan are reported as result objects (see :mod:`toolkit.verify`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence


class PgtError(Exception):
    """Root of every error the toolkit raises on purpose."""


def closest(name: str, known: Iterable[str], n: int = 3) -> list[str]:
    """Known names closest to ``name`` (case-insensitive), best first.

    >>> closest("moveblok", ["moveBlock", "clear"])
    ['moveBlock']
    """
    return list(_closest(name, tuple(known), n))


@functools.lru_cache(maxsize=1024)
def _closest(name: str, known: tuple[str, ...], n: int) -> tuple[str, ...]:
    """:func:`closest`, kept for the last names asked: a reply that repeats one unknown step (a 1 MB line of
    ``(on a b)``: 240,000 steps) asks difflib once, not once per step."""
    import difflib  # imported when a name is unknown, not at every start-up

    lowered = {k.lower(): k for k in known}
    hits = difflib.get_close_matches(name.lower(), list(lowered), n=n, cutoff=0.6)
    if not hits:
        hits = _abbreviated(name.lower(), list(lowered), n)
    return tuple(lowered[h] for h in hits)


def _abbreviated(short: str, known: list[str], n: int) -> list[str]:
    """Known names that ``short`` abbreviates: same first letter, its letters in order, same trailing number.

    Models shorten object names (``p1`` for ``person1``, ``c0`` for ``city-0``), which difflib's
    ratio misses because the abbreviation is much shorter than the name.

    >>> _abbreviated("p1", ["person1", "plane1", "person2", "city1"], 3)
    ['plane1', 'person1']
    """
    import difflib

    if len(short) < 2:
        return []
    digits = re.search(r"\d*$", short).group()
    matches = [k for k in known
               if k[0] == short[0] and len(k) > len(short) and re.search(r"\d*$", k).group() == digits
               and _in_order(short, k)]
    matches.sort(key=lambda k: (-difflib.SequenceMatcher(None, short, k).ratio(), k))
    return matches[:n]


def _in_order(short: str, name: str) -> bool:
    """Every character of ``short`` occurs in ``name`` in the same order."""
    rest = iter(name)
    return all(ch in rest for ch in short)


class PddlSyntaxError(PgtError):
    """Malformed PDDL text, located by file, line and column."""

    def __init__(self, path: str, line: int | None, column: int | None, detail: str) -> None:
        self.path, self.line, self.column, self.detail = path, line, column, detail
        where = path if line is None else f"{path}:{line}:{column}"
        super().__init__(f"{where}: {detail}")


class DerivedRuleError(PddlSyntaxError):
    """Derived-predicate rules PDDL 2.2 rules out: a cycle through negation, an action changing one."""


class UnsupportedFeatureError(PgtError):
    """A PDDL feature outside the supported fragment (refused, never ignored)."""

    def __init__(self, path: str, feature: str, line: int | None = None, column: int | None = None) -> None:
        self.path, self.feature, self.line, self.column = path, feature, line, column
        where = path if line is None else f"{path}:{line}:{column}"
        super().__init__(
            f"{where}: unsupported PDDL feature {feature}; pgt supports STRIPS, typing, "
            "negative/disjunctive/quantified preconditions, equality, conditional effects (ADL), action costs, "
            "numeric fluents and derived predicates"
        )


class UnknownSymbolError(PgtError):
    """A name that is not declared: predicate, object, type, action or variable."""

    def __init__(self, kind: str, name: str, known: Iterable[str], where: str = "", fits: Sequence[str] = ()) -> None:
        self.kind, self.name = kind, name
        self.suggestions = closest(name, known)
        # ``fits``: where no known name is close, the few that would fit the place (a plan step's parameter of a
        # type with few objects: "b9" is close to neither of the boats b0 and b1, and those are the choice)
        hint = (f"; did you mean {', '.join(self.suggestions)}?" if self.suggestions
                else f"; the {kind}s that fit here: {', '.join(fits)}" if fits else "")
        prefix = f"{where}: " if where else ""
        super().__init__(f"{prefix}unknown {kind} '{name}'{hint}")


class DuplicateNameError(PgtError):
    """A name declared twice where it must be unique (predicate, action, type, object, parameter)."""

    def __init__(self, kind: str, name: str, where: str = "") -> None:
        self.kind, self.name = kind, name
        prefix = f"{where}: " if where else ""
        super().__init__(f"{prefix}{kind} '{name}' is declared more than once")


class ArityError(PgtError):
    """A predicate or action used with the wrong number of arguments."""

    def __init__(self, kind: str, name: str, expected: int, got: int, where: str = "") -> None:
        self.kind, self.name, self.expected, self.got = kind, name, expected, got
        prefix = f"{where}: " if where else ""
        super().__init__(f"{prefix}{kind} '{name}' takes {expected} argument(s), got {got}")


class TypeMismatchError(PgtError):
    """An object used where its type does not fit."""

    def __init__(self, obj: str, obj_type: str, expected: str, where: str = "") -> None:
        self.obj, self.obj_type, self.expected = obj, obj_type, expected
        prefix = f"{where}: " if where else ""
        super().__init__(f"{prefix}object '{obj}' has type {obj_type}, expected {expected}")


class PlanParseError(PgtError):
    """A plan file that cannot be read at all (unparseable steps are reported, not raised)."""


class PlannerError(PgtError):
    """An external planner crashed; carries its exit code and the tail of stderr."""

    def __init__(self, message: str, exit_code: int | None = None, stderr_tail: str = "") -> None:
        self.exit_code, self.stderr_tail = exit_code, stderr_tail
        tail = f"\n--- planner stderr (tail) ---\n{stderr_tail}" if stderr_tail else ""
        super().__init__(f"{message} (exit code {exit_code}){tail}")


class GrounderError(PgtError):
    """A grounder failed to produce answers; carries the raw response if any.

    ``fatal`` is True when the same failure will repeat for every episode (a bad key,
    an unknown model, no model at all, nothing listening): a study stops at once
    instead of recording the same error for every episode.
    """

    def __init__(self, message: str, raw: str | None = None, fatal: bool = False) -> None:
        self.raw, self.fatal = raw, fatal
        super().__init__(message)


class EndpointError(GrounderError):
    """An OpenAI-compatible endpoint failed after retries; the message never holds the API key.

    ``status`` is the HTTP status when there was one (None for timeouts and connection failures);
    ``error_kind`` is how a study's error record classes it.
    """

    error_kind = "endpoint"

    def __init__(self, message: str, fatal: bool = False, status: int | None = None) -> None:
        self.status = status
        super().__init__(message, fatal=fatal)


class MalformedReplyError(EndpointError):
    """An endpoint answered, but not with a readable chat completion: one bad answer, not a dead endpoint."""

    def __init__(self, message: str) -> None:
        super().__init__(message, fatal=False)
