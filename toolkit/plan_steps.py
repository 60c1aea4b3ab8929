"""The parsed plan as data: a step is a ground action or an error with its :class:`Reason`.

These types are what :func:`toolkit.plans.parse_plan` returns and :func:`toolkit.verify.check_plan`
reads; they live apart from the reader so that the verifier and the classifier share them
without importing each other.
"""

from __future__ import annotations

from toolkit.records import field, record
from enum import Enum
from typing import TYPE_CHECKING, Callable, Sequence

from toolkit.plan_reader import Skipped
from toolkit.task import GroundAction

if TYPE_CHECKING:
    from toolkit.action_language import TextMatch

# A natural-language hook: text -> a match, (action name, args), or None.
ActionTextParser = Callable[[str], "TextMatch | tuple[str, Sequence[str]] | None"]

class Reason(str, Enum):
    """Why a plan (or one of its steps) is not valid."""

    UNPARSEABLE_STEP = "unparseable_step"
    UNKNOWN_ACTION = "unknown_action"
    UNKNOWN_OBJECT = "unknown_object"
    WRONG_ARITY = "wrong_arity"
    WRONG_TYPE = "wrong_type"
    INAPPLICABLE = "inapplicable"
    GOAL_UNMET = "goal_unmet"
    AMBIGUOUS_STEP = "ambiguous_step"
    CLAIMS_UNSOLVABLE = "claims_unsolvable"
    EMPTY = "empty"
    TWO_PLANS = "two_different_plans"


@record
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
    read_as: str = "pddl"  # pddl, call, json or natural-language (how it is written, also when unread)

    @property
    def ok(self) -> bool:
        return self.action is not None


@record
class ParsedPlan:
    steps: tuple[PlanStep, ...]
    skipped: tuple[Skipped, ...] = ()  # lines left out (prose, other blocks), each with why
    verdict: str | None = None  # "claims_unsolvable" or "empty" (no steps), "two_different_plans"
    why: str = ""  # what the verdict rests on ("two different plans: lines 3-8 (6 steps) and ...")

    @property
    def read_as(self) -> str:
        """How the steps were written: one of pddl, call, json, natural-language, mixed, none."""
        kinds = {s.read_as for s in self.steps}
        return kinds.pop() if len(kinds) == 1 else ("mixed" if kinds else "none")

    @property
    def rephrased(self) -> int:
        """Steps read from English sentences (an English step pgt could not read is not one)."""
        return sum(s.read_as == "natural-language" and s.error is None for s in self.steps)

    def reading(self) -> dict[str, object]:
        """The reading report: how the text was read and what was skipped."""
        return {"read_as": self.read_as, "verdict": self.verdict, "rephrased": self.rephrased,
                "skipped": [k.to_json() for k in self.skipped]}

    def note(self) -> str:
        """A one-line human note when anything was skipped or rephrased ("" otherwise)."""
        parts = []
        if self.rephrased:
            parts.append(f"{self.rephrased} step{'s' if self.rephrased != 1 else ''} read from English")
        by_why: dict[str, list[int]] = {}
        for k in self.skipped:
            by_why.setdefault(k.why, []).append(k.line)
        for why, lines in by_why.items():
            shown = ", ".join(map(str, lines[:8])) + (", ..." if len(lines) > 8 else "")
            parts.append(f"skipped line{'s' if len(lines) != 1 else ''} {shown} ({why})")
        return "; ".join(parts)

    @property
    def ok(self) -> bool:
        return all(s.ok for s in self.steps)

    @property
    def actions(self) -> list[GroundAction]:
        return [s.action for s in self.steps if s.action is not None]

    def first_error(self) -> PlanStep | None:
        return next((s for s in self.steps if not s.ok), None)
