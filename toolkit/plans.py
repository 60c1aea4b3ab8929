"""Plan text in the dialects people and models write, parsed with explicit errors.

Accepted, mixed freely: PDDL lines ``(move a b)`` with optional step prefixes
(``0:``, ``1.``, ``Step 1:``, bullets), bracketed costs or durations (``[1]``),
``;`` comments and a trailing cost line; call style ``move(a, b)`` and bare
``move a b``; several actions on one line; JSON (``{"plan": [{"action": ...,
"parameters": {...} or [...]}]}`` as in the ViPlan planner prompts, or a list of
strings); English sentences read through the domain's action templates
(:mod:`toolkit.action_language`); whole model replies, whose plan is found by
:mod:`toolkit.plan_reader`. A line that looks like a step but cannot be read is
kept and reported with its line, never dropped; prose is skipped and listed in
:attr:`ParsedPlan.skipped`; a reply with no steps that says the task cannot be
solved gets the ``claims_unsolvable`` verdict, one with nothing at all ``empty``.
"""

from __future__ import annotations

from collections import _count_elements  # type: ignore[attr-defined]
from operator import itemgetter
from typing import Iterable

from toolkit.errors import ArityError, PlanParseError, TypeMismatchError, UnknownSymbolError, closest
from toolkit.plan_reader import Candidate, Skipped, extract, plain_words
from toolkit.plan_steps import ActionTextParser, ParsedPlan, PlanStep, Reason
from toolkit.task import GroundAction, Task

def __getattr__(name: str):
    """``language`` and ``split_step`` live in :mod:`toolkit.plan_classify` (imported on first use)."""
    if name in ("language", "split_step"):
        from toolkit import plan_classify

        return getattr(plan_classify, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["ActionTextParser", "ParsedPlan", "PlanStep", "Reason", "format_plan", "language", "parse_plan",
           "read_plan_actions", "split_step", "suggest_action"]


def parse_plan(text: str, task: Task, action_text: ActionTextParser | None = None) -> ParsedPlan:
    """Parse plan text (or a whole reply) against a task; every step is kept, bad ones carry an error.

    ``action_text`` reads English sentences; by default the domain's templates (:func:`language`).
    """
    plain = _plain_lines(text, task)
    if plain is not None:
        return plain
    # The classifier of lines (English included) is imported only for text that needs it: `pgt validate`
    # of a planner's plan starts without the question templates' machinery.
    from toolkit.plan_classify import Reader, is_remark, is_statement, listed_steps, nested_notes, split_form
    from toolkit.plan_lists import restatements

    found = extract(text)
    if found.json:
        return _parse_json(found, task)
    reader = Reader(task, action_text)
    kinds = [reader.classify(c) for c in found.candidates]
    prose_rest: set[int] = set()  # later pieces of a line that opens as prose: prose too, never a broken step
    for i in range(1, len(kinds)):  # "This plan clears c, then stacks a on it."
        prev, cand = found.candidates[i - 1], found.candidates[i]
        if kinds[i - 1][0] == "other" and (prev.line, prev.source) == (cand.line, cand.source):
            kinds[i] = ("other", None)
            prose_rest.add(i)
    nested = nested_notes(found.candidates, kinds, reader.names, reader.key)
    step_at = [i for i, (kind, _) in enumerate(kinds) if kind in ("step", "error")]
    first = step_at[0] if step_at else 0
    steps: list[PlanStep] = []
    skipped = list(found.skipped)
    refusals: list[Candidate] = []
    in_plan_list = listed_steps(found.candidates, kinds, found.breaks)
    copies: dict[int, str] = {}
    two_plans = None
    if found.breaks or not all(c.simple is not None for c in found.candidates):  # plain PDDL lines: one list
        keys = [reader.key(data) if kind == "step" else None for kind, data in kinds]  # type: ignore[arg-type]
        copies, two_plans = restatements(found.candidates, kinds, nested, found.breaks, keys,
                                         text.lstrip("\ufeff").splitlines())
    for i, (cand, (kind, data)) in enumerate(zip(found.candidates, kinds)):
        if i in copies:
            skipped.append(Skipped(cand.line or 0, cand.source, copies[i]))
            continue
        if kind == "other" and i not in nested and i not in prose_rest and data not in ("titled", "fact") and (
                (i > first and step_at and not is_remark(cand.text) and not is_statement(cand.text))
                or (i in in_plan_list and not cand.text.rstrip().endswith(":") and not is_statement(cand.text))):
            kind, data = "error", (Reason.UNPARSEABLE_STEP, reader.cannot(cand.text), "", ())
        index = len(steps) + 1
        where = f"step {index}" + (f" (line {cand.line})" if cand.line else "")
        if kind == "step":
            name, args, form = data  # type: ignore[misc]
            steps.append(_resolve(task, index, cand.line, cand.text, name, tuple(args), where, form))
        elif kind == "error":
            reason, why, name, args = data  # type: ignore[misc]
            shape = split_form(cand.text)
            english = shape is None or (shape[2] == "bare" and len(shape[1]) > 2 and shape[0].lower() not in reader.names)
            form = "natural-language" if english and "(" not in cand.text else "pddl"
            steps.append(PlanStep(index, cand.line, cand.text, name, args, error=reason, message=f"{where}: {why}",
                                  read_as=form))
        else:
            if kind == "refusal":
                refusals.append(cand)
            why = "says the task cannot be solved" if kind == "refusal" else "prose, not a plan step"
            if not skipped or (skipped[-1].line, skipped[-1].text) != (cand.line, cand.source):
                skipped.append(Skipped(cand.line or 0, cand.source, why))
    verdict = None
    if not steps:
        verdict = Reason.CLAIMS_UNSOLVABLE.value if refusals else Reason.EMPTY.value
    elif two_plans:
        verdict = Reason.TWO_PLANS.value
    skipped.sort(key=lambda k: k.line)
    return ParsedPlan(tuple(steps), tuple(skipped), verdict, two_plans or "")


# Per task (Task.plan_lines), what each distinct line of plain plan text says: a ground action with the
# line's text (stripped), a blank ("") or comment (";") line, or None (anything else: the full reader
# decides). Validating many plans of one problem (validate-batch, an LLM study) reads each distinct line once.
_MAX_LINES = 100_000  # distinct lines remembered per task before the memory starts over


def _plain_line(stripped: str) -> str | None:
    """What a stripped line that is not a step says (see above)."""
    if not stripped:
        return ""
    if stripped.startswith(";"):  # a comment; one that could mark a block or hold JSON goes to the full reader
        return None if any(c in stripped for c in '[]`~"{') else ";"
    return None


class PlainRow(tuple):
    """One step of plain plan text as a report reads it: ``(index, line, text, action)``, a tuple read by
    the names of :class:`PlanStep`'s fields; :meth:`step` is that PlanStep, as :func:`parse_plan` gives it."""

    __slots__ = ()
    index = property(itemgetter(0))
    line = property(itemgetter(1))
    text = property(itemgetter(2))
    action = property(itemgetter(3))
    read_as = "pddl"

    def step(self) -> PlanStep:
        act = self[3]
        return PlanStep(self[0], self[1], self[2], act.schema.name, act.args, action=act)


_row = tuple.__new__


class PlainLines:
    """Plain plan text as :func:`toolkit.verify.check_plan` steps through it: each step's ``(action, text)``
    (``pairs``; one tuple per distinct line, shared by the steps that repeat it), where blank or comment
    lines come between steps, each step's line (``lines``; None: step k is line k), and each distinct
    step line's action with how many steps repeat it (``counts``, in the order the text first has them). A
    step's :class:`PlainRow` is built only when a report asks for it (:meth:`row`)."""

    __slots__ = ("pairs", "lines", "counts")

    def __init__(self, pairs: list[tuple[GroundAction, str]], lines: list[int] | None,
                 counts: list[tuple[GroundAction, int]]) -> None:
        self.pairs, self.lines, self.counts = pairs, lines, counts

    def row(self, index: int) -> PlainRow:
        """Step ``index`` (1-based)."""
        act, text = self.pairs[index - 1]
        return _row(PlainRow, (index, index if self.lines is None else self.lines[index - 1], text, act))

    def rows(self) -> list[PlainRow]:
        return [self.row(k) for k in range(1, len(self.pairs) + 1)]


def _plain_lines(text: str, task: Task) -> ParsedPlan | None:
    """The plan of text made of ``(action args)`` lines that all name ground actions (blank lines
    between them, comment lines after them), as :func:`parse_plan`'s full reading gives it; None for
    any other text. Planners and most LLM replies that follow a PDDL prompt write this shape.
    """
    plain = plain_lines(text, task)
    return None if plain is None else ParsedPlan(tuple([row.step() for row in plain.rows()]))


def plain_lines(text: str, task: Task) -> PlainLines | None:
    """:func:`_plain_lines`' steps as :class:`PlainLines` (None where it gives None): what
    :func:`toolkit.verify.check_plan` steps through, building PlanSteps only when its report is asked
    for them.

    Each distinct line is read once, in the order the text first has it (a plan of 100 steps names a
    handful of ground actions); the steps are then the lines' answers mapped in one C-level pass where
    every line is a step, the line-by-line walk where blank or comment lines come between them."""
    known = task.plan_lines
    if len(known) > _MAX_LINES:
        known.clear()
    lines = text.splitlines()
    if not lines or text.startswith("\ufeff"):
        return None
    counts: list[tuple[GroundAction, int]] = []  # each distinct step line's action, with its number of steps
    steps_only = True
    counted: dict[str, int] = {}
    _count_elements(counted, lines)  # Counter's own C loop, without Counter's isinstance(lines, Mapping) test
    action = task.action
    for line, n in counted.items():
        hit = known.get(line, _UNSEEN)
        if hit is _UNSEEN:  # a new line: a step (the common line, read here), else _plain_line says what
            stripped = line.strip()
            words = plain_words(stripped)
            if words is None:
                hit = _plain_line(stripped)
            else:
                try:
                    hit = action(words[0], tuple(words[1:])), stripped
                except (UnknownSymbolError, ArityError, TypeMismatchError):
                    hit = None
            known[line] = hit
        if hit is None:
            return None
        if hit.__class__ is str:
            steps_only = False
        else:
            counts.append((hit[0], n))
    if steps_only:
        pairs, numbers = list(map(known.__getitem__, lines)), None
    else:
        walked = _walk(lines, known)
        if walked is None:
            return None
        pairs, numbers = walked
        if not pairs:
            return None
    return PlainLines(pairs, numbers, counts)


def _walk(lines: list[str], known: dict[str, object]) -> tuple[list[tuple[GroundAction, str]], list[int] | None] | None:
    """The steps of lines read already, some blank or comment lines: each step's pair and line (None: step k is
    line k); None where a step follows a comment (only comments and blank lines may follow one)."""
    pairs: list[tuple[GroundAction, str]] = []
    numbers: list[int] | None = None  # made at the first line that is not a step
    ended = False  # a comment came: only comments and blank lines may follow
    for n, line in enumerate(lines, 1):
        hit = known[line]
        if hit.__class__ is str:  # a comment (";") or a blank line ("")
            if hit:
                ended = True
            if numbers is None:
                numbers = list(range(1, len(pairs) + 1))
        else:
            if ended:
                return None
            pairs.append(hit)  # type: ignore[arg-type]
            if numbers is not None:
                numbers.append(n)
    return pairs, numbers


_UNSEEN = object()


def _parse_json(found, task: Task) -> ParsedPlan:
    from toolkit.plan_classify import json_step

    steps = []
    for index, cand in enumerate(found.candidates, 1):
        name, args = json_step(cand.json_item)
        where = f"step {index}"
        if args is None:
            steps.append(PlanStep(index, None, cand.source, error=Reason.UNPARSEABLE_STEP,
                                  message=f"{where}: cannot read {cand.source!r} as an action", read_as="json"))
        else:
            steps.append(_resolve(task, index, None, cand.source, name, args, where, "json"))
    return ParsedPlan(tuple(steps), found.skipped, None if steps else Reason.EMPTY.value)


def _resolve(task: Task, index: int, line: int | None, raw: str, name: str, args: tuple[str, ...], where: str,
             form: str) -> PlanStep:
    try:
        action = task.action(name, args)
    except UnknownSymbolError as exc:
        reason = Reason.UNKNOWN_ACTION if exc.kind == "action" else Reason.UNKNOWN_OBJECT
        return PlanStep(index, line, raw, name, args, error=reason, message=f"{where}: {exc}",
                        suggestions=tuple(exc.suggestions), read_as=form)
    except ArityError as exc:
        return PlanStep(index, line, raw, name, args, error=Reason.WRONG_ARITY, message=f"{where}: {exc}", read_as=form)
    except TypeMismatchError as exc:
        return PlanStep(index, line, raw, name, args, error=Reason.WRONG_TYPE, message=f"{where}: {exc}", read_as=form)
    return PlanStep(index, line, raw, action.name, action.args, action=action, read_as=form)


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
