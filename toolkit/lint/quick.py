"""Quick text checks: the lint findings one linear pass over the text can give, in milliseconds.

The full lint parses with the PDDL grammar (about 10 s per 200 kB on a busy
machine, minutes for a 1 MB domain), so an editor cannot wait for it after each
pause in typing. These checks read the comment-blanked text once, with the
tolerance of :mod:`toolkit.lsp.symbols`, and report what the first screen of a
broken file needs: parentheses that do not balance, an unknown type after
``-``, an undeclared predicate and a wrong number of arguments in an action.
They use the full lint's codes and wording, and the full lint (which may find
more) replaces them when it finishes: :func:`quick_findings` never claims
anything the full lint would not.

>>> text = "(define (domain d) (:types room) (:predicates (at ?r - room)) (:action go :parameters (?r - rooom) :precondition (at ?r ?r) :effect (nt ?r)))"
>>> [f.message for f in quick_findings("d.pddl", text)]
["unknown type 'rooom'; did you mean room?", "predicate 'at' takes 1 argument(s), got 2", "unknown predicate 'nt'"]
"""

from __future__ import annotations

import bisect
import difflib
import re

from toolkit.lint.findings import Finding, Severity
from toolkit.loader import _blank_comments, _section

_NAME = re.compile(r"[A-Za-z][\w-]*")
_TOKEN = re.compile(r"\(|\)|[^\s()]+")
# heads of a condition or effect that are not predicates (PDDL 1-3.1 keywords and numeric comparisons)
_KEYWORDS = {"and", "or", "not", "imply", "forall", "exists", "when", "=", "increase", "decrease", "assign",
             "scale-up", "scale-down", ">", "<", ">=", "<=", "+", "-", "*", "/", "at", "over", "always",
             "sometime", "within", "at-most-once", "sometime-after", "sometime-before", "always-within",
             "hold-during", "hold-after", "preference", "either"}
_HINTS = {"undeclared-name": "declare the name (in :predicates, :types, :constants or :objects) or fix its spelling",
          "arity-error": "use the number of arguments of the declaration, or change the declaration",
          "syntax-error": "check the parentheses and keywords around this position"}


class _Lines:
    """Offsets to 1-based (line, column) in O(log n) each (the loader's ``line_col`` counts from the start)."""

    def __init__(self, text: str) -> None:
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def at(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.starts, offset) - 1
        return line + 1, offset - self.starts[line] + 1


def _finding(code: str, message: str, path: str, lines: _Lines, offset: int) -> Finding:
    line, col = lines.at(offset)
    return Finding(Severity.ERROR, code, message, path, line, col, _HINTS[code])


def _suggest(name: str, known: set[str]) -> str:
    close = difflib.get_close_matches(name.lower(), sorted(known), n=3)
    return f"; did you mean {', '.join(close)}?" if close else ""


def _balance(code: str, path: str, lines: _Lines) -> list[Finding]:
    """A ``)`` with nothing open, or the first ``(`` never closed."""
    depth = 0
    for ch in re.sub(r"[^()]+", "", code):  # the parentheses alone: a short string, scanned fast
        depth += 1 if ch == "(" else -1
        if depth < 0:
            break
    if depth == 0:
        return []
    open_at: list[int] = []
    for mt in re.finditer(r"[()]", code):
        i = mt.start()
        if mt.group() == "(":
            open_at.append(i)
        elif not open_at:
            return [_finding("syntax-error", "unexpected ')': no '(' is open here", path, lines, i)]
        else:
            open_at.pop()
    if open_at:
        return [_finding("syntax-error", "'(' is never closed (expected ')' before the end of the file)", path,
                         lines, open_at[0])]
    return []


def _declared(code: str) -> tuple[set[str], dict[str, int], set[str]]:
    """Types, predicate arities and function names declared in a domain's text."""
    types = {"object", "number"}
    sec = _section(code, ":types")
    if sec:
        types |= {w.lower() for w in _TOKEN.findall(code[sec[0]:sec[1]]) if _NAME.fullmatch(w)}
        types.discard("either")
    preds: dict[str, int] = {}
    sec = _section(code, ":predicates")
    if sec:
        for mt in re.finditer(r"\(\s*([^\s()]+)([^()]*)\)", code[sec[0] + 1:sec[1]]):
            args = [w for w in mt.group(2).split() if w.startswith("?")]
            preds.setdefault(mt.group(1).lower(), len(args))
    funcs: set[str] = set()
    sec = _section(code, ":functions")
    if sec:
        funcs = {mt.group(1).lower() for mt in re.finditer(r"\(\s*([^\s()]+)", code[sec[0] + 1:sec[1]])}
    return types, preds, funcs


def _action_checks(code: str, start: int, end: int, types: set[str], preds: dict[str, int], funcs: set[str],
                   path: str, lines: _Lines) -> list[Finding]:
    """Unknown types, undeclared predicates and arity errors inside one ``(:action ...)`` (or ``:derived``)."""
    out: list[Finding] = []
    tokens = _TOKEN.findall(code, start, end)  # strings only; offsets are found again for a finding (rare)
    offsets: list[int] = []

    def offset(k: int) -> int:
        if not offsets:
            offsets.extend(m.start() for m in _TOKEN.finditer(code, start, end))
        return offsets[k]

    for i, tok in enumerate(tokens):
        if tok == "-" and i + 1 < len(tokens) and _NAME.fullmatch(tokens[i + 1]):
            name = tokens[i + 1]
            if name.lower() not in types and i > 0 and tokens[i - 1].startswith("?"):
                out.append(_finding("undeclared-name", f"unknown type '{name}'{_suggest(name, types)}", path, lines,
                                    offset(i + 1)))
        if tok != "(" or i + 1 >= len(tokens):
            continue
        head = tokens[i + 1]
        low = head.lower()
        if not _NAME.fullmatch(head) or (low in _KEYWORDS and low not in preds) or low in funcs:
            continue
        if i > 0 and tokens[i - 1].lower() in (":parameters", ":vars"):
            continue
        if low not in preds:
            if tokens[i - 1] == "(" and i > 1 and tokens[i - 2].lower() in ("forall", "exists"):
                continue  # a quantifier's variable list that starts with a name: not ours to judge
            out.append(_finding("undeclared-name", f"unknown predicate '{head}'{_suggest(head, set(preds))}", path,
                                lines, offset(i + 1)))
            continue
        depth, args, j = 0, 0, i + 2
        while j < len(tokens):
            t = tokens[j]
            if t == "(":
                depth += 1
            elif t == ")":
                if depth == 0:
                    break
                depth -= 1
            elif depth == 0:
                args += 1
            j += 1
        if args != preds[low]:
            out.append(_finding("arity-error", f"predicate '{head}' takes {preds[low]} argument(s), got {args}", path,
                                lines, offset(i)))
    return out


def quick_findings(path: str, text: str) -> list[Finding]:
    """Findings from one linear pass over a domain's or problem's text (see the module docstring)."""
    code = _blank_comments(text)
    lines = _Lines(text)
    out = _balance(code, path, lines)
    if out or not re.search(r"\(\s*define\s*\(\s*domain\b", code, re.I):
        return out  # an unbalanced file's sections cannot be told apart; problems need their domain
    types, preds, funcs = _declared(code)
    if not _section(code, ":types"):
        types = set()  # untyped: a "-" in a parameter list is a syntax matter for the full lint
    starts = [(m.start(), m.end()) for m in re.finditer(r"\(\s*:(?:action|derived)\b", code, re.I)]
    for k, (head, body_start) in enumerate(starts):  # an action's tokens run to the next action (or the end)
        end = starts[k + 1][0] if k + 1 < len(starts) else len(code)
        checks = _action_checks(code, body_start, end, types or {"__untyped__"}, preds, funcs, path, lines)
        out += [f for f in checks if types or f.message.startswith("unknown predicate")
                or f.code == "arity-error"]
    return out
