"""LLM-BabyBench *Predict* on any PDDL domain: score a predicted final state against simulation.

The model sees an initial state and an action sequence and writes down the state
it expects at the end. We simulate the actions with :func:`toolkit.verify.check_plan`
(stopping at the first failure) and compare true-atom sets (closed world): exact
match, precision/recall/F1, the size of the symmetric difference and its
normalized form, over all atoms and over fluent atoms only (predicates that some
action changes), since static atoms (``rightOf c2 c1``) are free points that make
every prediction look good.

If the action sequence itself cannot be executed, the prediction is scored against
the state reached after the executable prefix (the state just before the failing
step) and the result says so (``actions_executable: false`` with the step and the
reason): that is the state a simulator that refuses the bad action would show.
Only executability matters here; whether the actions reach the problem's goal does not.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from toolkit.errors import PgtError
# A state's static part is not scored: the predicates some action changes are the fluents.
from toolkit.known_facts import changed_predicates as fluent_predicates
from toolkit.model import Atom
from toolkit.plans import Reason
from toolkit.scoring.metrics import SetScores, set_scores
from toolkit.task import Task
from toolkit.verify import check_plan
from toolkit import jsontext

_FENCE = re.compile(r"^\s*```.*$", re.M)
_NEG_PDDL = re.compile(r"\(\s*not\s*(\([^()]*\))\s*\)", re.I)
_NEG_CALL = re.compile(r"(?:\bnot\s+|¬\s*|!)([A-Za-z][\w-]*\([^()]*\))", re.I)
_ATOM = re.compile(r"(?P<call>[A-Za-z][\w-]*)\((?P<cargs>[^()]*)\)|\((?P<body>[^()]*)\)")
_STATE_KEYS = ("state", "final_state", "atoms", "predicted_state", "facts")


@dataclass(frozen=True)
class ParsedState:
    """Atoms read from a model's answer, canonicalized against the task where possible."""

    atoms: frozenset[Atom]
    unknown: tuple[str, ...] = ()  # atoms whose predicate/objects/arity the task does not know
    negated: tuple[str, ...] = ()  # negative literals, ignored under the closed world
    unparsed: tuple[str, ...] = ()  # lines with no readable atom


def _canonical(pred: str, args: list[str], task: Task | None,
               objects: dict[str, str | None] | None = None) -> tuple[Atom, bool]:
    """The atom with the task's spelling of names; flag False if something is unknown.

    ``objects`` memoizes name lookups across one answer: an unknown name costs a
    did-you-mean search, and a long answer repeats the same few names.
    """
    objects = {} if objects is None else objects
    if task is None:
        return Atom(pred, tuple(args)), True
    ok = True
    names = {p.lower(): p for p in task.domain.predicates}
    canon_pred = names.get(pred.lower())
    if canon_pred is None:
        ok, canon_pred = False, pred
    elif task.domain.predicates[canon_pred].arity != len(args):
        ok = False
    canon_args = []
    for a in args:
        if a not in objects:
            try:
                objects[a] = task.resolve_object(a)
            except PgtError:
                objects[a] = None
        ok = ok and objects[a] is not None
        canon_args.append(objects[a] or a)
    return Atom(canon_pred, tuple(canon_args)), ok


def _split_body(body: str) -> list[str]:
    return [t.strip("'\"`") for t in body.replace(",", " ").split() if t.strip("'\"`")]


def _from_strings(items: list[str], task: Task | None) -> ParsedState:
    return parse_state("\n".join(items), task)


def parse_state(text: str, task: Task | None = None) -> ParsedState:
    """Read a predicted state: PDDL atoms (bare or inside ``(and ...)``), ``on(a, b)`` calls,
    JSON (a list of atom strings, or an object with a ``state`` list), or one atom per line.

    >>> sorted(map(str, parse_state("(and (on a b) (clear a))").atoms))
    ['(clear a)', '(on a b)']
    >>> sorted(map(str, parse_state('["on(a, b)", "clear(a)"]').atoms))
    ['(clear a)', '(on a b)']
    """
    body = _FENCE.sub("", text).strip()
    if body[:1] in "[{":
        try:
            data = jsontext.loads(body)
        except json.JSONDecodeError:
            data = None
        if isinstance(data, dict):
            key = next((k for k in _STATE_KEYS if k in data), None)
            if key is None:
                raise PgtError(f"JSON state must be a list of atoms or an object with one of {list(_STATE_KEYS)}")
            data = data[key]
        if isinstance(data, list):
            items = [" ".join(map(str, x)) if isinstance(x, list) else str(x) for x in data]
            items = [i if ("(" in i) else f"({i})" for i in items]
            return _from_strings(items, task)
    atoms: set[Atom] = set()
    unknown: list[str] = []
    negated: list[str] = []
    unparsed: list[str] = []

    objects: dict[str, str | None] = {}

    def add(pred: str, args: list[str]) -> None:
        atom, ok = _canonical(pred, args, task, objects)
        atoms.add(atom)
        if not ok:
            unknown.append(str(atom))

    has_parens = "(" in body
    for line in body.splitlines():
        line = line.split(";", 1)[0].strip()
        if not line:
            continue
        if not has_parens:
            tokens = _split_body(line.lstrip("-*0123456789.) "))
            if tokens:
                add(tokens[0], tokens[1:])
            continue
        for neg in (_NEG_PDDL, _NEG_CALL):
            negated.extend(mt.group(1) for mt in neg.finditer(line))
            line = neg.sub(" ", line)
        found = False
        for mt in _ATOM.finditer(line):
            tokens = [mt.group("call"), *_split_body(mt.group("cargs"))] if mt.group("call") else _split_body(mt.group("body"))
            if not tokens or tokens[0].lower() in ("and", "not"):
                continue
            add(tokens[0], tokens[1:])
            found = True
        leftover = _ATOM.sub("", line).replace("(and", "").strip(" ()`,")
        if not found and leftover and leftover.lower() not in ("and",):
            unparsed.append(line)
    return ParsedState(frozenset(atoms), tuple(sorted(set(unknown))), tuple(negated), tuple(unparsed))


@dataclass(frozen=True)
class PredictScore:
    """The outcome of scoring one predicted final state."""

    actions_executable: bool
    failed_step: int | None
    actions_message: str
    steps_executed: int
    true_state: frozenset[Atom]
    parsed: ParsedState
    all_atoms: SetScores
    fluent_atoms: SetScores

    @property
    def exact(self) -> bool:
        return self.all_atoms.exact

    def to_json(self) -> dict[str, Any]:
        return {
            "exact": self.all_atoms.exact, "precision": self.all_atoms.precision,
            "recall": self.all_atoms.recall, "f1": self.all_atoms.f1,
            "distance": self.all_atoms.distance, "normalized_distance": self.all_atoms.normalized_distance,
            "fluent": self.fluent_atoms.to_json(),
            "missing": list(self.all_atoms.missing), "extra": list(self.all_atoms.extra),
            "actions_executable": self.actions_executable, "failed_step": self.failed_step,
            "actions_message": self.actions_message, "steps_executed": self.steps_executed,
            "unknown_atoms": list(self.parsed.unknown), "ignored_negated": list(self.parsed.negated),
            "unparsed_lines": list(self.parsed.unparsed),
            "true_state": sorted(map(str, self.true_state)),
        }


def score_prediction(task: Task, actions: str, predicted: str) -> PredictScore:
    """Simulate ``actions`` (plan text) from the initial state and score ``predicted`` (state text)."""
    report = check_plan(task, actions, keep_going=False)
    executable = report.reason in (None, Reason.GOAL_UNMET)
    executed = sum(1 for s in report.steps if s.applicable)
    true_state = report.final_state
    parsed = parse_state(predicted, task)
    fluents = fluent_predicates(task.domain)
    fluent_pred = frozenset(a for a in parsed.atoms if a.predicate in fluents)
    fluent_true = frozenset(a for a in true_state if a.predicate in fluents)
    if executable:
        msg = f"all {executed} action(s) executable"
    else:
        msg = f"{report.message}; prediction scored against the state after the first {executed} step(s)"
    return PredictScore(executable, None if executable else report.failed_step, msg, executed, true_state,
                        parsed, set_scores(parsed.atoms, true_state), set_scores(fluent_pred, fluent_true))
