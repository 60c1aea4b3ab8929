"""Plan verification that explains: ``check_plan`` returns a report, never raises for a bad plan.

The report says where and why a plan breaks (step, action, unmet literals with
their quantifier bindings, goal gap) in fields that are data, and in a message
people and LLMs can act on, e.g. ``step 3: (stack a b) is not applicable:
(clear b) is false``.

With ``keep_going`` every violation is reported: an inapplicable action's effects
are applied as if it had applied (later steps are judged against the state the
plan's author expected), and unreadable steps are skipped.
"""

from __future__ import annotations

import functools
import gc
from collections import Counter
from operator import attrgetter, itemgetter
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from toolkit.fluents import metric_value
from toolkit.model import Atom, Number, format_expr, format_number
from toolkit.plans import ActionTextParser, ParsedPlan, PlainLines, PlainRow, PlanStep, Reason, parse_plan, plain_lines
from toolkit.records import field, record, replace
from toolkit.semantics import Unmet
from toolkit.stepping import Stepper, WorkingState
from toolkit.task import GroundAction, Task

if TYPE_CHECKING:
    from toolkit.derived import DerivedRules


_NOTHING: tuple[str, ...] = ()
LITERAL_LIMIT = 240  # characters of a failing formula a message shows
# Steps of a deferred ground action (counted over the plans that name it, before each run: _count_uses) from which
# it is built and takes its own compiled step rather than its schema's step function: building costs 20-40 us, the
# schema's function 0.1-2.4 us a step more (IPC 2023 numeric, pfile1).
BIND_AFTER = 64
_first = itemgetter(0)


def _count_uses(counts: Iterable[tuple[GroundAction | None, int]]) -> None:
    """Count each deferred ground action's steps of a plan about to run (``counts``: each distinct action with
    how many steps name it), once per action rather than once per step: one whose count reaches BIND_AFTER
    (with the plans it was in before) is built, and takes its own compiled step, for the whole run."""
    for act, n in counts:
        if act is not None and act.tier is not None:
            uses = act.uses + n  # read as an attribute, written in the frozen record's dict (a fifth less per action)
            own = act.__dict__
            own["uses"] = uses
            if uses >= BIND_AFTER:
                own["tier"] = None


def brief_formula(text: str, limit: int = LITERAL_LIMIT) -> str:
    """A failing formula short enough to read: a grounded quantifier (BabyAI's ``exists`` over cells and
    directions becomes an ``or`` of thousands of ``and`` s, half a million characters) shows its first
    alternative and how many there are.

    >>> brief_formula("(or (and (p a) (q a)) (and (p b) (q b)))", limit=20)
    '(or (and (p a) (q a)) ...) [2 alternatives, 40 characters]'
    """
    if len(text) <= limit:
        return text
    head, _, body = text.partition(" ")
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(body):
        if ch == "(":
            depth, start = depth + 1, i if depth == 0 else start
        elif ch == ")":
            depth -= 1
            if depth == 0:
                parts.append(body[start:i + 1])
    first = parts[0] if parts else body[:limit]
    if len(first) > limit:
        first = first[:limit] + "..."
    return f"{head} {first} ...) [{len(parts):,} alternatives, {len(text):,} characters]"


def describe_unmet(u: Unmet) -> str:
    """``(clear b) is false`` / ``(on a b) is true`` / ``(or ...) is false``, with bindings; a formula of
    thousands of alternatives is abbreviated (:func:`brief_formula`)."""
    if u.atom is not None:
        text = f"{u.atom} is {'false' if u.positive else 'true'}"
    else:
        text = f"{brief_formula(u.literal)} is false"
    if u.detail:
        text += f": {u.detail}"
    if u.bindings:
        text += " (with " + ", ".join(f"{v} = {o}" for v, o in u.bindings) + ")"
    return text


@record
class StepReport:
    index: int
    text: str
    action: str | None  # the ground action, e.g. "(moveBlock r c2)"; None if unreadable
    applicable: bool
    unmet: tuple[Unmet, ...] = ()
    fired: tuple[str, ...] = ()  # conditional effects that fired
    reason: Reason | None = None
    message: str = ""
    line: int | None = None  # where the step was in the plan text
    read_as: str = ""  # pddl, call, json or natural-language
    # The run's record of changes and this step's place in it: the state after the step is rebuilt
    # from it when asked (validation steps one mutable state and copies none).
    trace: Stepper | None = field(default=None, repr=False, compare=False)
    trace_index: int = field(default=0, repr=False, compare=False)

    @property
    def state_after(self) -> frozenset[Atom] | None:
        """The state after the step (None where it did not run), built on first use."""
        return None if self.trace is None else self.trace.state_at(self.trace_index)

    def to_json(self, with_state: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "step": self.index, "line": self.line, "read_as": self.read_as or None,
            "text": self.text, "action": self.action, "applicable": self.applicable,
            "unmet": [u.literal for u in self.unmet], "fired": list(self.fired),
            "reason": self.reason.value if self.reason else None, "message": self.message,
        }
        if self.unmet and any(u.bindings for u in self.unmet):
            out["unmet_bindings"] = [dict(u.bindings) for u in self.unmet]
        if with_state and self.state_after is not None:
            out["state_after"] = sorted(map(str, self.state_after))
        return out


@record
class PlanReport:
    """The outcome of checking a plan; ``str(report)`` is its message."""

    valid: bool
    failed_step: int | None  # 1-based; len(plan) + 1 when only the goal fails
    reason: Reason | None
    unmet: tuple[str, ...]  # unmet precondition literals of the first failing step
    goal_unmet: tuple[str, ...]  # goal literals false at the end
    message: str
    # The steps' reports as the run left them (see steps): a validated step that ran is kept as
    # (step index, action, stepper, record index, fired) and its StepReport built only when asked for; one
    # of the run's common start (see _check_plan) as its index alone (its action the step's, its record at
    # the same index of the run's stepper, end, nothing fired).
    step_log: tuple[StepReport | tuple | int, ...] = field(repr=False, compare=False)
    # The state the run ended in, or the run's stepper at its end (see final_state): a batch that
    # reads only the verdicts then copies no state (nomystery p05: 16.5k facts per plan).
    end: frozenset[Atom] | Stepper = field(repr=False, compare=False)
    violations: tuple[StepReport, ...] = field(default=())  # every failing step (all with keep_going)
    goal_size: int = 0
    # The summed cost of the steps that ran (the plan's cost when valid): (total-cost)
    # under (:metric minimize (total-cost)), else the plan length, as FD and VAL count.
    cost: Number = 0
    cost_metric: str = "length"  # or "total-cost"
    # How the text was read; plain text's steps as the run read them (toolkit.plans.PlainLines), their
    # ParsedPlan built when asked for (see parsed).
    parse_log: ParsedPlan | PlainLines | None = field(default=None, repr=False, compare=False)

    @functools.cached_property
    def parsed(self) -> ParsedPlan | None:
        log = self.parse_log
        return ParsedPlan(tuple([row.step() for row in log.rows()])) if log.__class__ is PlainLines else log

    @functools.cached_property
    def steps(self) -> tuple[StepReport, ...]:
        """One report per step that was read or ran, built on first use (a batch that reads only the
        verdicts builds none: they were a third of checking a plan of a small numeric task); the same
        objects on every access."""
        read, end = self.parse_log, self.end
        return tuple([_ran(_step_at(read, e[0]), *e[1:]) if e.__class__ is tuple
                      else _common(_step_at(read, e), end) if e.__class__ is int else e for e in self.step_log])

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return _report_key(self) == _report_key(other) and self.steps == other.steps  # type: ignore[attr-defined]

    @functools.cached_property
    def final_state(self) -> frozenset[Atom]:
        """The state the run ended in (the failing step's state when it stopped), built on first use."""
        end = self.end
        return end.state_at(len(end.records)) if isinstance(end, Stepper) else end

    @property
    def reading(self) -> dict[str, Any]:
        """``read_as``, ``verdict`` and ``skipped`` lines of the plan text."""
        return self.parsed.reading() if self.parsed is not None else ParsedPlan(()).reading()

    @property
    def plan_length(self) -> int:
        return len(self.step_log)

    def __str__(self) -> str:
        return self.message

    def to_json(self, with_states: bool = False, steps: bool = True) -> dict[str, Any]:
        """The report as JSON data; ``steps=False`` leaves the per-step list out (a batch's one line per plan)."""
        out = {
            "valid": self.valid,
            "failed_step": self.failed_step,
            "reason": self.reason.value if self.reason else None,
            "unmet": list(self.unmet),
            "goal_unmet": list(self.goal_unmet),
            "message": self.message,
            "plan_length": self.plan_length,
            "cost": self.cost,
            "cost_metric": self.cost_metric,
            "violations": [v.to_json() for v in self.violations],
        }
        if steps:
            out["steps"] = [s.to_json(with_states) for s in self.steps]
        out["reading"] = self.reading
        return out


# What PlanReport.__eq__ compares besides its steps: every field but end (compare=False) and step_log.
_report_key = attrgetter("valid", "failed_step", "reason", "unmet", "goal_unmet", "message", "violations",
                         "goal_size", "cost", "cost_metric", "parsed")


def _step_at(read: ParsedPlan | PlainLines, index: int) -> PlanStep | PlainRow:
    """Step ``index`` (1-based) of a plan as read."""
    return read.row(index) if read.__class__ is PlainLines else read.steps[index - 1]  # type: ignore[union-attr]


def _ran(step: PlanStep | PlainRow, act: GroundAction, stepper: Stepper, trace_index: int, fired: tuple[str, ...]) -> StepReport:
    """The report of a step that was applicable and ran, from what the run logged."""
    return StepReport(step.index, step.text, act.text, True, (), fired, line=step.line, read_as=step.read_as,
                      trace=stepper, trace_index=trace_index)


def _common(step: PlanStep | PlainRow, stepper: Stepper) -> StepReport:
    """The report of step k of the run's common start: its own action, ran, its record the k-th."""
    return _ran(step, step.action, stepper, step.index, _NOTHING)


def _step_error(step: PlanStep) -> StepReport:
    return StepReport(step.index, step.text, None, False, reason=step.error, message=step.message,
                      line=step.line, read_as=step.read_as)


def _no_steps(task: Task, parsed: ParsedPlan, state: frozenset[Atom], goal_size: int) -> PlanReport | None:
    """The report for a reply without steps that refuses or is empty, or one that holds two different
    plans (None: a plan to run)."""
    if parsed.verdict == Reason.TWO_PLANS.value:
        goal = tuple(u.literal for u in task.goal_unmet(state))
        msg = (f"no single plan: the reply holds {parsed.why.removeprefix('two different plans: ')}, which differ; "
               "mark the one meant with [PLAN] ... [PLAN END]")
        return PlanReport(False, 1, Reason.TWO_PLANS, (), goal, msg, (), state, (), goal_size, 0, _metric(task), parsed)
    if parsed.steps or parsed.verdict is None or (parsed.verdict == Reason.EMPTY.value and task.goal_holds(state)):
        return None
    goal = tuple(u.literal for u in task.goal_unmet(state))
    if parsed.verdict == Reason.CLAIMS_UNSOLVABLE.value:
        said = next((k.text for k in parsed.skipped if k.why.startswith("says")), "")
        msg = f"no plan: the reply says the task cannot be solved ({said!r})"
        return PlanReport(False, 1, Reason.CLAIMS_UNSOLVABLE, (), goal, msg, (), state, (), goal_size, 0, _metric(task), parsed)
    n = len(parsed.skipped)
    msg = "no plan: the reply is empty" if not n else (
        f"no plan: the reply has no plan steps ({n} line{'s' if n != 1 else ''} of prose skipped)")
    return PlanReport(False, 1, Reason.EMPTY, (), goal, msg, (), state, (), goal_size, 0, _metric(task), parsed)


def check_plan(task: Task, plan: str | ParsedPlan | Sequence[GroundAction | str], *, keep_going: bool = False,
               init: frozenset[Atom] | None = None, action_text: ActionTextParser | None = None) -> PlanReport:
    """Run a plan from the initial state (or ``init``) and explain the outcome.

    ``plan`` is plan text (any dialect of :mod:`toolkit.plans`), a parsed plan, or a
    sequence of ground actions / step strings.

    >>> from toolkit.domains import shipped_domain, shipped_problem
    >>> from toolkit.task import load_task
    >>> task = load_task(shipped_domain("blocksworld"), shipped_problem("blocksworld", "simple_problem_0"))
    >>> print(check_plan(task, "(moveBlock nope c1)").message)
    step 1 (line 1): unknown object 'nope'; the objects that fit here: p, r, y
    """
    # The stepping loop allocates small objects (deltas, step reports) next to one large young set (the
    # working state): every young-generation collection would walk that set, a cost in the state's size
    # per step. The loop makes no reference cycles, so the collector waits until it ends.
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _check_plan(task, plan, keep_going, init, action_text)
    finally:
        if enabled:
            gc.enable()


def _undefined_read(step: PlanStep, act: GroundAction, undefined: Sequence[str]) -> StepReport:
    """The report of a step whose numeric effect reads a fluent without a value (VAL's BadAccessError)."""
    return StepReport(step.index, step.text, str(act), False, reason=Reason.INAPPLICABLE,
                      message=f"step {step.index}: {act} cannot apply its effect {'; '.join(undefined)}",
                      line=step.line, read_as=step.read_as)


def _check_plan(task: Task, plan: str | ParsedPlan | Sequence[GroundAction | str], keep_going: bool,
                init: frozenset[Atom] | None, action_text: ActionTextParser | None) -> PlanReport:
    state = task.init if init is None else init
    goal_size = task.goal_size
    plain = plain_lines(plan, task) if isinstance(plan, str) else None
    if plain is not None:  # plain (action args) lines: stepped as read, their PlanSteps built if asked for
        pairs: Sequence[tuple[GroundAction | None, object]] = plain.pairs
        text_read: ParsedPlan | PlainLines = plain
    else:
        parsed = _as_parsed(task, plan, action_text)
        refused = _no_steps(task, parsed, state, goal_size)
        if refused is not None:
            return refused
        pairs, text_read = [(s.action, s) for s in parsed.steps], parsed
    _count_uses(plain.counts if plain is not None else Counter(map(_first, pairs)).items())
    stepper = Stepper(state, _derive_hook(task), task.fluent_index)
    violations: list[StepReport] = []
    # The common step's names read once: the working state and the record are the stepper's own objects
    # for the whole run (it steps them in place). A deferred ground action (toolkit.ground_action) is
    # stepped by its schema's step function (toolkit.action_tier), which declines, with nothing done,
    # wherever the action's own path has something to say; a numeric action's own whole-step code is
    # Stepper.advance's first path, taken here without the call around it.
    work, changes, advance, advance_values = stepper.state, stepper.records, stepper.advance, stepper.advance_values
    # The common run first: the steps taken by their schemas' step functions from the start, with no record kept
    # (Stepper.took: made if read), their reports logged after it as their numbers (see PlanReport.step_log); the
    # first other step, and every step after it, go through the loop below. Without action costs every step
    # costs 1 (ActionMaker.make): the run's cost is then its length; with them, its steps' costs summed after it.
    ran = 0
    for act, _ in pairs:
        tier = None if act is None else act.tier  # None also where the action has no cost (ActionMaker.make)
        if tier is None or not tier(work, None, act.args):
            break
        ran += 1
    cost: Number = sum([act.cost for act, _ in pairs[:ran]]) if task.uses_costs else ran
    if ran:
        stepper.took(pairs, ran)
    later = False  # a step after the common run taken without a record (its placeholder: its action; Stepper.took)
    reports: list[StepReport | tuple | int] = list(range(1, ran + 1))
    log = reports.append
    in_place = stepper.derive is None
    for index, (act, _) in enumerate(pairs[ran:] if ran else pairs, ran + 1):  # a step's PlanStep or PlainRow: _step_at
        if act is None:
            rep = _step_error(_step_at(text_read, index))
            reports.append(rep)
            violations.append(rep)
            if keep_going:
                continue
            break
        step_cost = act.cost
        if step_cost is not None:
            tier = act.tier
            if tier is not None and tier(work, None, act.args):
                cost += step_cost
                changes.append(act)
                later = True
                log((index, act, stepper, len(changes), _NOTHING))
                continue
            if act.is_applicable(work):  # the common step: applied in one call
                if act.updates is None:
                    fired, undefined = advance(act)
                elif in_place and act.step_in_place(work, changes):
                    cost += step_cost
                    log((index, act, stepper, len(changes), _NOTHING))
                    continue
                else:
                    fired, undefined = advance_values(act)
                if undefined:  # VAL: an effect reads a fluent without a value (BadAccessError); not applied
                    rep = _undefined_read(_step_at(text_read, index), act, undefined)
                    reports.append(rep)
                    violations.append(rep)
                    if keep_going:
                        continue
                    break
                cost += step_cost
                log((index, act, stepper, len(changes), fired if fired.__class__ is tuple else tuple(fired)))
                continue
        step = _step_at(text_read, index)
        if step_cost is None:  # PDDL leaves it undefined; VAL refuses the plan too
            missing = ", ".join(task.undefined_cost(act))
            rep = StepReport(step.index, step.text, str(act), False, reason=Reason.INAPPLICABLE,
                             message=f"step {step.index}: {act} has no cost: {missing} has no value in :init")
            reports.append(rep)
            violations.append(rep)
            if keep_going:
                continue
            break
        unmet = tuple(act.unmet(work))
        eff = stepper.effect(act)
        if eff.undefined and not unmet:  # as above (a precondition false with nothing to name: applied)
            rep = _undefined_read(step, act, eff.undefined)
            reports.append(rep)
            violations.append(rep)
            if keep_going:
                continue
            break
        if unmet:
            why = "; ".join(describe_unmet(u) for u in unmet)
            rep = StepReport(step.index, step.text, str(act), False, unmet, reason=Reason.INAPPLICABLE,
                             message=f"step {step.index}: {act} is not applicable: {why}",
                             line=step.line, read_as=step.read_as)
            violations.append(rep)
            if not keep_going:
                reports.append(rep)
                break
            stepper.apply(eff)
            cost += act.cost
            reports.append(replace(rep, fired=tuple(eff.fired), trace=stepper, trace_index=len(stepper.records)))
            continue
        stepper.apply(eff)
        cost += act.cost
        reports.append(StepReport(step.index, step.text, str(act), True, (), tuple(eff.fired),
                                  line=step.line, read_as=step.read_as, trace=stepper,
                                  trace_index=len(stepper.records)))

    if later and not ran:
        stepper.took(pairs, 0)

    # The goal gap is measured in the last state reached (the end, or the failing step): Task.goal_unmet tests
    # what is cheap to test first and explains only what fails.
    end = stepper.state
    goal_unmet = tuple(task.goal_unmet(end))
    state: frozenset[Atom] | Stepper = stepper  # the final state, copied from it only if asked for
    goal_texts = tuple([u.literal for u in goal_unmet])
    first = violations[0] if violations else None
    metric = _metric(task)
    metric_expr = task.problem.metric_expr
    if metric_expr is not None:  # PDDL 2.1: the plan's cost is the metric's value at the end
        value = metric_value(metric_expr, stepper.state, len(pairs))  # read in place: no copy of the state
        cost = value if value is not None else float("nan")
    if first is None and not goal_unmet:
        n = len(pairs)
        msg = f"plan valid: {n} step{'s' if n != 1 else ''} reach the goal"
        if task.uses_costs:
            msg += f", total cost {format_number(cost)}"
        elif metric_expr is not None:
            msg += f", metric {format_expr(metric_expr)} = {format_number(cost)}"
        return PlanReport(True, None, None, (), (), msg, tuple(reports), state, (), goal_size, cost, metric,
                          text_read)
    if first is None:
        n = len(pairs)
        gap = "; ".join([describe_unmet(u) for u in goal_unmet])
        msg = (f"step {n + 1}: the plan ends after {n} step{'s' if n != 1 else ''} without reaching the goal: "
               f"{gap} ({len(goal_unmet)} goal condition{'s' if len(goal_unmet) != 1 else ''} unmet)")
        return PlanReport(False, n + 1, Reason.GOAL_UNMET, (), goal_texts, msg, tuple(reports), state,
                          (), goal_size, cost, metric, text_read)
    msg = first.message
    if keep_going and len(violations) > 1:
        msg += f" (and {len(violations) - 1} more violation{'s' if len(violations) > 2 else ''})"
    if keep_going and goal_unmet:
        msg += f"; at the end {len(goal_unmet)} goal condition(s) unmet: " + "; ".join(describe_unmet(u) for u in goal_unmet)
    return PlanReport(False, first.index, first.reason, tuple(u.literal for u in first.unmet), goal_texts, msg,
                      tuple(reports), state, tuple(violations), goal_size, cost, metric, text_read)


def _derive_hook(task: Task) -> _Derive | None:
    """The stepper's hook for a task with derived predicates (toolkit.derived), None for a task without."""
    return None if task.derived is None else _Derive(task.derived)


class _Derive:
    """After each step, the derived atoms recomputed from the basic ones (``DerivedRules.closure``), applied as a
    delta. A class, not a closure: a report holds its stepper, and reports are pickled (worker processes)."""

    __slots__ = ("rules",)

    def __init__(self, rules: DerivedRules) -> None:
        self.rules = rules

    def __call__(self, state: WorkingState) -> tuple[frozenset[Atom], frozenset[Atom]]:
        closed = self.rules.closure(state.frozen())
        added, removed = closed - state, state - closed
        state.difference_update(removed)
        state.update(added)
        return added, removed


def _metric(task: Task) -> str:
    """What a plan's cost counts: ``total-cost`` under the cost metric, a metric over fluents, else the length."""
    if task.problem.metric_expr is not None:
        return f"{'minimize' if task.problem.minimize else 'maximize'} {format_expr(task.problem.metric_expr)}"
    return "total-cost" if task.uses_costs else "length"


def _as_parsed(task: Task, plan: str | ParsedPlan | Sequence[GroundAction | str],
               action_text: ActionTextParser | None) -> ParsedPlan:
    if isinstance(plan, ParsedPlan):
        return plan
    if isinstance(plan, str):
        return parse_plan(plan, task, action_text)
    if all(isinstance(a, GroundAction) for a in plan):
        return ParsedPlan(tuple(PlanStep(i, None, str(a), a.name, a.args, action=a) for i, a in enumerate(plan, 1)))
    return parse_plan("\n".join(str(a) for a in plan), task, action_text)
