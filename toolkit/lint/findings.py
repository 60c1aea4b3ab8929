"""Lint findings: what is wrong, where, how bad, and how to fix it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import Any

from toolkit.errors import PddlSyntaxError, PgtError, UnsupportedFeatureError
from toolkit.loader import locate


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True)
class Finding:
    """One lint finding; ``str()`` reads ``path:line:col: severity: message [code]``."""

    severity: Severity
    code: str
    message: str
    path: str
    line: int | None = None
    column: int | None = None
    hint: str = ""

    @property
    def location(self) -> str:
        if self.line is None:
            return self.path
        return f"{self.path}:{self.line}:{self.column or 1}"

    def __str__(self) -> str:
        text = f"{self.location}: {self.severity.value}: {self.message} [{self.code}]"
        return text + (f"\n    hint: {self.hint}" if self.hint else "")

    def to_json(self) -> dict[str, Any]:
        return {"severity": self.severity.value, "code": self.code, "message": self.message, "path": self.path,
                "line": self.line, "column": self.column, "hint": self.hint}


def at(severity: Severity, code: str, message: str, path: str, text: str, pattern: str | None,
       hint: str = "", start: int = 0) -> Finding:
    """A finding located at the first match of ``pattern`` in ``text`` (after ``start``)."""
    line, col = locate(text, pattern, start) if pattern else (None, None)
    return Finding(severity, code, message, path, line, col, hint)


_LOCATED = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<msg>.*)$", re.S)


def from_warning(code: str, warning: str, path: str, hint: str = "") -> Finding:
    """A loader warning (``path:line:col: message`` or ``path: message``) as a finding at its place."""
    mt = _LOCATED.match(warning)
    if mt:
        return Finding(Severity.WARNING, code, mt.group("msg"), path, int(mt.group("line")), int(mt.group("col")), hint)
    return Finding(Severity.WARNING, code, warning.split(": ", 1)[-1], path, hint=hint)

_HINTS = {
    "UnknownSymbolError": "declare the name (in :predicates, :types, :constants or :objects) or fix its spelling",
    "ArityError": "use the number of arguments of the declaration, or change the declaration",
    "TypeMismatchError": "give the object the declared type (or a subtype), or widen the parameter's type",
    "UnsupportedFeatureError": "rewrite without this feature; pgt supports STRIPS, typing, negative, disjunctive and "
                               "quantified preconditions, equality, conditional effects, action costs, numeric "
                               "fluents and derived predicates",
    "PddlSyntaxError": "check the parentheses and keywords around this position",
    "DuplicateNameError": "rename or delete one of the two declarations",
    "DerivedRuleError": "derived predicates change only through their rules, and a rule may use a derived "
                        "predicate negatively only if that one does not depend on it (stratification)",
}
_CODES = {
    "UnknownSymbolError": "undeclared-name", "ArityError": "arity-error", "TypeMismatchError": "type-error",
    "UnsupportedFeatureError": "unsupported-feature", "PddlSyntaxError": "syntax-error",
    "DuplicateNameError": "duplicate-name", "DerivedRuleError": "derived-rule",
}


def from_error(exc: PgtError, path: str, text: str = "") -> Finding:
    """One load error (the loader collects every independent one) as an error finding."""
    kind = type(exc).__name__
    code, hint = _CODES.get(kind, "load-error"), _HINTS.get(kind, "")
    if getattr(exc, "kind", None) == "constant":  # a name in the domain's actions that it never declared
        # FD's translator 24.06 (the one pgt pins for planning) reads such a name; 26.6 refuses it in
        # pddl_parser/parsing_functions.py, check_predicate_and_terms_existence ("Undefined object")
        hint = ("declare it in the domain's (:constants NAME - TYPE): a domain cannot rely on its problems' "
                "objects (ALFRED's domain and IPC tyreworld's do; Fast Downward's translator 24.06 reads them, 26.6 "
                "refuses them: 'Undefined object'), and delete it from the problems' :objects")
    if isinstance(exc, (PddlSyntaxError, UnsupportedFeatureError)):
        msg = exc.detail if isinstance(exc, PddlSyntaxError) else f"unsupported PDDL feature {exc.feature}"
        return Finding(Severity.ERROR, code, msg, exc.path, exc.line, exc.column, hint)
    message = str(exc)
    mt = _LOCATED.match(message)
    if mt:
        line, col = int(mt.group("line")), int(mt.group("col"))
        return Finding(Severity.ERROR, code, mt.group("msg"), mt.group("path"), line, col, hint)
    if message.startswith(path + ": "):
        message = message[len(path) + 2:]
    return Finding(Severity.ERROR, code, message, path, None, None, hint)
