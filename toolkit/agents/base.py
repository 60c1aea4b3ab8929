"""What every agent loop shares: asking a grounder with bookkeeping, and episode results.

An episode log is plain data (dicts of strings and numbers) so the study runner
can append it to JSON Lines as is. Truth values are recorded beside every answer
(from the observation's privileged ``truth``) for accuracy metrics only; agents
never read them to decide anything.
"""

from __future__ import annotations

import inspect
import time
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from toolkit.grounding import CompiledCondition
from toolkit.model import Atom
from toolkit.protocols import Answer, Grounder, Observation, Verdict
from toolkit.task import GroundAction


@dataclass
class Ledger:
    """Counts and records every question an agent asks."""

    grounder: Grounder
    events: list[dict[str, Any]] = field(default_factory=list)
    questions: int = 0
    answered: int = 0  # answers with a yes/no verdict
    correct: int = 0  # yes/no answers that match the truth
    unparseable: int = 0
    errors: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    per_predicate: dict[str, list[int]] = field(default_factory=dict)  # predicate -> [answered, correct]

    def ask(self, obs: Observation, atoms: Sequence[Atom], phase: str, step: int,
            questions: Sequence[str] | None = None) -> list[Answer]:
        """Ask about ``atoms`` (already filtered for visibility) and record everything.

        ``questions`` words each atom's question (see :func:`accepts_wording`); a
        grounder that cannot take a wording gets its own canonical question.
        """
        if not atoms:
            return []
        if questions is not None and accepts_wording(self.grounder):
            answers = self.grounder.ask(obs, list(atoms), questions=list(questions))
        else:
            answers = self.grounder.ask(obs, list(atoms))
        for atom, ans in zip(atoms, answers):
            truth = atom in obs.truth
            self.questions += 1
            self.prompt_tokens += ans.prompt_tokens
            self.completion_tokens += ans.completion_tokens
            if ans.status == "unparseable":
                self.unparseable += 1
            elif ans.status == "error":
                self.errors += 1
            record: dict[str, Any] = {"phase": phase, "step": step, "atom": str(atom),
                                      "answer": ans.verdict.value, "truth": truth,
                                      "confidence": round(ans.confidence, 4)}
            if questions is not None and ans.question:
                record["question"] = ans.question
            if ans.status != "ok":
                record["status"] = ans.status
            if ans.status == "error":  # what went wrong, for the study's error record (already scrubbed)
                record["error"] = ans.raw[:500]
            elif ans.status == "unparseable":  # the reply that was neither yes nor no
                record["raw"] = ans.raw[:500]
            if ans.value is not None:
                self.answered += 1
                ok = ans.value == truth
                self.correct += ok
                tally = self.per_predicate.setdefault(atom.predicate, [0, 0])
                tally[0] += 1
                tally[1] += ok
            self.events.append(record)
        return answers

    def note(self, kind: str, step: int, **data: Any) -> None:
        self.events.append({"phase": kind, "step": step, **data})


def accepts_wording(grounder: object) -> bool:
    """True if ``grounder.ask`` takes ``questions=`` (a wording per atom), looking through wrappers.

    Wrappers that forward keyword options (a study's end-on-error guard) expose the
    grounder they wrap as ``inner``.
    """
    inner = getattr(grounder, "inner", None)
    if inner is not None:
        return accepts_wording(inner)
    try:
        return "questions" in inspect.signature(grounder.ask).parameters  # type: ignore[attr-defined]
    except (AttributeError, TypeError, ValueError):
        return False


@dataclass
class EpisodeResult:
    """The outcome of one episode: numbers for metrics plus the full event log."""

    success: bool
    stop_reason: str
    actions: int
    replans: int
    enumerations: int
    ledger: Ledger
    seconds: float
    plan_lengths: list[int] = field(default_factory=list)
    failures: int = 0  # action failures injected by the world

    def to_json(self) -> dict[str, Any]:
        led = self.ledger
        return {
            "success": self.success, "stop_reason": self.stop_reason, "actions": self.actions,
            "replans": self.replans, "enumerations": self.enumerations, "questions": led.questions,
            "answered": led.answered, "correct": led.correct, "unparseable": led.unparseable,
            "grounder_errors": led.errors, "prompt_tokens": led.prompt_tokens,
            "completion_tokens": led.completion_tokens, "action_failures": self.failures,
            "per_predicate": {p: {"answered": a, "correct": c} for p, (a, c) in sorted(led.per_predicate.items())},
            "plan_lengths": self.plan_lengths, "seconds": round(self.seconds, 4), "events": led.events,
        }


def condition_atoms(action: GroundAction) -> list[tuple[Atom, bool]]:
    """The precondition's literals as (atom, expected truth), in order, deduplicated."""
    return condition_literals(action.precondition)


def required_literals(action: GroundAction) -> list[tuple[Atom, bool]]:
    """The literals the precondition needs whatever else holds: its conjunction's, not its disjunctions'.

    ``(or (not (inside o c)) (open c))`` needs neither ``(open c)`` nor
    ``(not (inside o c))`` on its own, so an action that ran is no evidence for either.
    """
    return [(lit.atom, lit.positive) for lit in dict.fromkeys(action.precondition.literals)]


def disjunctive_atoms(action: GroundAction) -> list[Atom]:
    """Atoms of the precondition's disjunctive part (empty for a plain conjunction)."""
    tree = action.precondition.tree
    if tree in (None, True, False):
        return []
    return list(dict.fromkeys(atom for atom, _ in _tree_literals(tree)))


def condition_literals(cond: CompiledCondition) -> list[tuple[Atom, bool]]:
    """A compiled condition's literals, then those inside its disjunctive part, as (atom, expected truth)."""
    out: dict[Atom, bool] = {}
    for lit in cond.literals:
        out.setdefault(lit.atom, lit.positive)
    if cond.tree not in (None, True, False):
        for atom, positive in _tree_literals(cond.tree):
            out.setdefault(atom, positive)
    return list(out.items())


def _tree_literals(node: Any) -> Iterable[tuple[Atom, bool]]:
    from toolkit.grounding import GLit

    if isinstance(node, GLit):
        yield node.atom, node.positive
    elif hasattr(node, "parts"):
        for p in node.parts:
            yield from _tree_literals(p)


class Clock:
    def __init__(self) -> None:
        self.start = time.perf_counter()

    def seconds(self) -> float:
        return time.perf_counter() - self.start


def verdict_matches(answer: Answer, expected: bool) -> bool | None:
    """True/False if the answer agrees/disagrees with ``expected``; None if it says nothing."""
    if answer.verdict is Verdict.UNKNOWN:
        return None
    return (answer.verdict is Verdict.YES) == expected
