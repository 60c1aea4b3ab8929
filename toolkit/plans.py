"""Plan text in the dialects people and models write, parsed with explicit errors.

Accepted, mixed freely: PDDL lines ``(move a b)`` with optional step prefixes
(``0:``, ``1.``, ``Step 1:``), bracketed costs or durations (``[1]``, ``[1.000]``),
``;`` comments, blank lines and a trailing cost line; call style ``move(a, b)`` and
bare ``move a b``; JSON (``{"plan": [{"action": ..., "parameters": {...} or
[...]}]}`` as in the ViPlan planner prompts, or a list of strings); markdown code
fences; names in any case. A step that cannot be parsed is kept and reported with
its line, never dropped; unknown names get did-you-mean suggestions.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from enum import Enum
from typing import Callable, Iterable, Sequence

from toolkit.errors import ArityError, PlanParseError, TypeMismatchError, UnknownSymbolError, closest
from toolkit.task import GroundAction, Task
from toolkit import jsontext

# A natural-language hook: text -> (action name, args) or None (see toolkit.questions).
ActionTextParser = Callable[[str], "tuple[str, Sequence[str]] | None"]


class Reason(str, Enum):
    """Why a plan (or one of its steps) is not valid."""

    UNPARSEABLE_STEP = "unparseable_step"
    UNKNOWN_ACTION = "unknown_action"
    UNKNOWN_OBJECT = "unknown_object"
    WRONG_ARITY = "wrong_arity"
    WRONG_TYPE = "wrong_type"
    INAPPLICABLE = "inapplicable"
    GOAL_UNMET = "goal_unmet"


@dataclass(frozen=True)
class PlanStep:
    """One step of a parsed plan: either a ground action or an error."""

    index: int  # 1-based position in the plan
    line: int | None  # line in the source text (None for JSON input)
    text: str
    name: str = ""
    args: tuple[str, ...] = ()
    action: GroundAction | None = None
    error: Reason | None = None
    message: str = ""
    suggestions: tuple[str, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return self.action is not None


@dataclass(frozen=True)
class ParsedPlan:
    steps: tuple[PlanStep, ...]

    @property
    def ok(self) -> bool:
        return all(s.ok for s in self.steps)

    @property
    def actions(self) -> list[GroundAction]:
        return [s.action for s in self.steps if s.action is not None]

    def first_error(self) -> PlanStep | None:
        return next((s for s in self.steps if not s.ok), None)


_FENCE = re.compile(r"^\s*```")
_PREFIX = re.compile(r"^\s*(?:step\s*)?\d+(?:\.\d+)?\s*[:.)]\s*(?=\S)", re.I)
_SUFFIX = re.compile(r"\[[^][]*\]\s*$")  # no nested brackets: linear on "[[[[..."
_COST_LINE = re.compile(r"^\s*;.*$|^\s*cost\s*[:=]", re.I)
_CALL = re.compile(r"^\s*([A-Za-z][\w-]*)\s*\((.*)\)\s*;?\s*$")
_PAREN = re.compile(r"^\s*\(\s*([^()\s]+)((?:\s+[^()\s]+)*)\s*\)\s*$")
_BARE = re.compile(r"^\s*([A-Za-z][\w-]*)((?:\s+[A-Za-z0-9_][\w-]*)*)\s*$")


def _strip_comment(line: str) -> str:
    pos = line.find(";")
    return line if pos < 0 else line[:pos]


def split_step(text: str) -> tuple[str, tuple[str, ...]] | None:
    """Split one step's text into (action name, args); None if it is not a step.

    >>> split_step("1: (moveBlock r c2) [1]")
    ('moveBlock', ('r', 'c2'))
    >>> split_step("moveblock(r, c2)")
    ('moveblock', ('r', 'c2'))
    """
    body = _SUFFIX.sub("", _PREFIX.sub("", _strip_comment(text).strip())).strip().rstrip(",")
    body = body.strip("`*").strip()
    for pattern in (_PAREN, _CALL):
        mt = pattern.match(body)
        if mt:
            raw_args = mt.group(2).replace(",", " ").split()
            return mt.group(1), tuple(a.strip("'\"") for a in raw_args)
    mt = _BARE.match(body)
    if mt:
        return mt.group(1), tuple(mt.group(2).split())
    return None


def _json_steps(data: object) -> list[tuple[str, tuple[str, ...] | None, str]] | None:
    """Steps from JSON data: (name, args or None if malformed, text); None if not a plan."""
    if isinstance(data, dict):
        for key in ("plan", "actions", "steps"):
            if key in data:
                data = data[key]
                break
        else:
            return None
    if not isinstance(data, list):
        return None
    out: list[tuple[str, tuple[str, ...] | None, str]] = []
    for item in data:
        text = json.dumps(item) if not isinstance(item, str) else item
        if isinstance(item, str):
            split = split_step(item)
            out.append((split[0], split[1]) + (text,) if split else ("", None, text))
        elif isinstance(item, dict) and isinstance(item.get("action", item.get("name")), str):
            name = item.get("action", item.get("name"))
            params = item.get("parameters", item.get("args", item.get("arguments", [])))
            if isinstance(params, dict):
                args = tuple(str(v) for v in params.values())
            elif isinstance(params, list):
                args = tuple(str(v) for v in params)
            elif isinstance(params, str):
                args = tuple(params.replace(",", " ").split())
            else:
                args = None
            split = split_step(name) if "(" in name else None
            if split and not args:
                name, args = split
            out.append((name, args, text))
        else:
            out.append(("", None, text))
    return out


def _fenced_only(text: str) -> str:
    """With markdown fences, only the fenced lines (prose around them blanked, line numbers kept)."""
    lines = text.splitlines()
    fences = [i for i, line in enumerate(lines) if _FENCE.match(line)]
    if not fences:
        return text
    inside = [False] * len(lines)
    for k in range(0, len(fences), 2):  # an unclosed last fence runs to the end
        end = fences[k + 1] if k + 1 < len(fences) else len(lines)
        for i in range(fences[k] + 1, end):
            inside[i] = True
    return "\n".join(line if keep else "" for line, keep in zip(lines, inside))


def _raw_steps(text: str, action_text: ActionTextParser | None) -> list[tuple[int | None, str, tuple[str, tuple[str, ...]] | None]]:
    text = _fenced_only(text)
    stripped = "\n".join(line for line in text.splitlines() if not _FENCE.match(line)).strip()
    if stripped[:1] in "[{":
        try:
            steps = _json_steps(jsontext.loads(stripped))
        except json.JSONDecodeError:
            steps = None
        if steps is not None:
            return [(None, t, (n, a) if a is not None else None) for n, a, t in steps]
    out = []
    lines = text.splitlines()
    fenced = _inside_fences(lines)
    for lineno, line in enumerate(lines, 1):
        if fenced is not None and lineno not in fenced:
            continue  # prose around a fenced plan ("Here is the plan:") is not part of it
        if _FENCE.match(line) or not _strip_comment(line).strip() or _COST_LINE.match(line):
            continue
        split = split_step(line)
        if split is None and action_text is not None:
            hit = action_text(line.strip())
            split = (hit[0], tuple(hit[1])) if hit else None
        out.append((lineno, line.strip(), split))
    return out


def _inside_fences(lines: list[str]) -> set[int] | None:
    """Line numbers inside markdown code fences, or None when the text has no complete fence."""
    inside, opened, out = False, False, set()
    for lineno, line in enumerate(lines, 1):
        if _FENCE.match(line):
            inside = not inside
            opened = True
        elif inside:
            out.add(lineno)
    return out if opened and not inside else None


def parse_plan(text: str, task: Task, action_text: ActionTextParser | None = None) -> ParsedPlan:
    """Parse plan text against a task; every step is kept, bad ones carry an error."""
    steps = []
    for index, (line, raw, split) in enumerate(_raw_steps(text, action_text), 1):
        where = f"step {index}" + (f" (line {line})" if line else "")
        if split is None:
            steps.append(PlanStep(index, line, raw, error=Reason.UNPARSEABLE_STEP,
                                  message=f"{where}: cannot read {raw!r} as an action"))
            continue
        name, args = split
        try:
            action = task.action(name, args)
        except UnknownSymbolError as exc:
            reason = Reason.UNKNOWN_ACTION if exc.kind == "action" else Reason.UNKNOWN_OBJECT
            steps.append(PlanStep(index, line, raw, name, args, error=reason,
                                  message=f"{where}: {exc}", suggestions=tuple(exc.suggestions)))
            continue
        except ArityError as exc:
            steps.append(PlanStep(index, line, raw, name, args, error=Reason.WRONG_ARITY,
                                  message=f"{where}: {exc}"))
            continue
        except TypeMismatchError as exc:
            steps.append(PlanStep(index, line, raw, name, args, error=Reason.WRONG_TYPE,
                                  message=f"{where}: {exc}"))
            continue
        steps.append(PlanStep(index, line, raw, action.name, action.args, action=action))
    return ParsedPlan(tuple(steps))


def read_plan_actions(text: str, task: Task, action_text: ActionTextParser | None = None) -> list[GroundAction]:
    """All actions of a plan; raises :class:`PlanParseError` at the first bad step."""
    parsed = parse_plan(text, task, action_text)
    bad = parsed.first_error()
    if bad is not None:
        raise PlanParseError(bad.message)
    return parsed.actions


def format_plan(actions: Iterable[GroundAction | str]) -> str:
    """One ``(action args)`` per line, the form every planner and validator reads."""
    return "".join(f"{a}\n" for a in actions)


def suggest_action(name: str, task: Task) -> list[str]:
    return closest(name, task.domain.actions)
