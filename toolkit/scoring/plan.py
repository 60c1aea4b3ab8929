"""Score a model's plan with pgt's domain-general metrics, on any PDDL task.

* Success: the plan is executable and reaches the goal (:func:`check_plan`).
* Partial credit (pgt's own): the share of the goal's top-level conjuncts true in
  the state where execution stopped (the end of the plan, or just before the first
  step that could not be executed). A goal that is not a conjunction counts as one
  conjunct; nested ``and`` are flattened. LoHoRavens' own score (ordered, weighted
  goal steps, as its ``Task.reward()`` computes it) is :mod:`toolkit.scoring.lohoravens`.
* Efficiency ratio (pgt's; LLM-BabyBench's own is ``--metric babybench``): optimal length / plan length for successful
  plans, with the optimal length from :mod:`toolkit.scoring.optimal`; under
  ``(:metric minimize (total-cost))`` optimal cost / plan cost (cost is what is
  optimised there; without action costs the two ratios are the same).
* LCS and normalized LCS (ActPlan-1K §4.2.1) against each gold plan, and the best
  over the gold plans. Two steps match when they are the same ground action (after
  the plan parser's case and dialect normalization); an unreadable model step
  matches nothing. Normalization is by the longer of the two plans.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from toolkit import model as m
from toolkit.errors import PgtError
from toolkit.grounding import compile_condition
from toolkit.plans import Reason, parse_plan
from toolkit.scoring.metrics import efficiency_ratio, lcs_length, normalized_lcs, share
from toolkit.scoring.optimal import OptimalLength
from toolkit.semantics import holds
from toolkit.task import Task
from toolkit.verify import check_plan


def goal_conjuncts(goal: m.Condition) -> list[m.Condition]:
    """Top-level conjuncts of a goal, nested ``and`` flattened; an empty ``(and)`` has none."""
    if isinstance(goal, m.And):
        out: list[m.Condition] = []
        for part in goal.parts:
            out.extend(goal_conjuncts(part))
        return out
    return [goal]


@dataclass(frozen=True)
class GoldComparison:
    label: str
    length: int
    valid: bool
    lcs: int
    normalized_lcs: float

    def to_json(self) -> dict[str, Any]:
        return {"gold": self.label, "length": self.length, "gold_valid": self.valid,
                "lcs": self.lcs, "normalized_lcs": self.normalized_lcs}


@dataclass(frozen=True)
class PlanScore:
    valid: bool
    failed_step: int | None
    reason: str | None
    message: str
    plan_length: int
    goal_total: int
    goal_met: int
    goal_unmet: tuple[str, ...]
    optimal: OptimalLength | None
    gold: tuple[GoldComparison, ...] = ()
    plan_cost: m.Number | None = None  # a valid plan's cost under the cost metric; None: no costs

    @property
    def partial_credit(self) -> float:
        return share(self.goal_met, self.goal_total)

    @property
    def efficiency(self) -> float | None:
        best = self.optimal.optimal_cost if self.optimal else None
        return efficiency_ratio(best, self.plan_length if self.plan_cost is None else self.plan_cost, self.valid)

    @property
    def best_lcs(self) -> int | None:
        return max((g.lcs for g in self.gold), default=None)

    @property
    def best_normalized_lcs(self) -> float | None:
        return max((g.normalized_lcs for g in self.gold), default=None)

    @property
    def best_gold(self) -> str | None:
        """The gold plan with the highest normalized LCS (the first one on ties)."""
        if not self.gold:
            return None
        best = max(g.normalized_lcs for g in self.gold)
        return next(g.label for g in self.gold if g.normalized_lcs == best)

    def to_json(self) -> dict[str, Any]:
        return {
            "success": self.valid, "failed_step": self.failed_step, "reason": self.reason,
            "message": self.message, "plan_length": self.plan_length,
            "plan_cost": self.plan_length if self.plan_cost is None else self.plan_cost,
            "partial_credit": self.partial_credit, "goal_met": self.goal_met, "goal_total": self.goal_total,
            "goal_unmet": list(self.goal_unmet),
            "optimal_length": self.optimal.length if self.optimal else None,
            "optimal": self.optimal.to_json() if self.optimal else None,
            "efficiency": self.efficiency,
            "best_lcs": self.best_lcs, "best_normalized_lcs": self.best_normalized_lcs,
            "best_gold": self.best_gold, "gold": [g.to_json() for g in self.gold],
        }


def plan_keys(task: Task, text: str, side: str = "model") -> tuple[list[object], list[str]]:
    """Comparable step keys (the ground action text) and the messages of unreadable steps."""
    parsed = parse_plan(text, task)
    keys: list[object] = []
    errors: list[str] = []
    for step in parsed.steps:
        if step.action is not None:
            keys.append(str(step.action))
        else:
            keys.append((side, step.index))  # unique: matches nothing on the other side
            errors.append(step.message)
    return keys, errors


def compare_gold(task: Task, model_keys: Sequence[object], gold_text: str, label: str) -> GoldComparison:
    """LCS of the model plan against one gold plan; a gold plan with unreadable steps is bad input."""
    gold_keys, errors = plan_keys(task, gold_text, "gold")
    if errors:
        raise PgtError(f"gold plan {label}: {errors[0]}")
    valid = check_plan(task, gold_text).valid
    return GoldComparison(label, len(gold_keys), valid, lcs_length(model_keys, gold_keys),
                          normalized_lcs(model_keys, gold_keys))


def score_plan(task: Task, plan_text: str, gold: Sequence[tuple[str, str]] = (),
               optimal: Callable[[], OptimalLength] | None = None) -> PlanScore:
    """Score one plan.

    Args:
        task: the planning task.
        plan_text: the model's plan, in any dialect :func:`toolkit.plans.parse_plan` reads.
        gold: (label, plan text) pairs of reference plans.
        optimal: called (only for a successful plan) to get the optimal length; None skips
            the efficiency ratio.
    """
    report = check_plan(task, plan_text, keep_going=False)
    conjuncts = goal_conjuncts(task.problem.goal)
    unmet = [c for c in conjuncts if not holds(compile_condition(c, {}, task.objects_of), report.final_state)]
    keys, _ = plan_keys(task, plan_text)
    golds = tuple(compare_gold(task, keys, text, label) for label, text in gold)
    refused = report.reason == Reason.CLAIMS_UNSOLVABLE
    opt = optimal() if (optimal is not None and (report.valid or refused)) else None
    valid, message = report.valid, report.message
    if refused and opt is not None:  # PlanBench-style unsolvable tasks: a refusal is right when no plan exists
        valid = opt.status == "unsolvable"
        message = ("the reply rightly says the task cannot be solved" if valid else
                   f"{message}, but it can be: {opt.status}" + (f", optimal length {opt.length}" if opt.length else ""))
    return PlanScore(valid, report.failed_step if not valid else None, report.reason.value if report.reason else None,
                     message, len(keys), len(conjuncts), len(conjuncts) - len(unmet),
                     tuple(str(c) for c in unmet), opt, golds,
                     report.cost if report.valid and task.uses_costs else None)
