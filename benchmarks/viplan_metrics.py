"""ViPlan's metrics, under ViPlan's names, computed as ViPlan's code computes them.

From pgt episode records (one per ViPlan episode, from ``pgt run`` with a
``viplan-*`` protocol or from ``pgt import viplan-results``). The reference is
ViPlan's code, quirks included:

VLM-as-grounder (``compute_metrics`` in ``viplan/experiments/benchmark_blocksworld_plan.py``
and ``benchmark_igibson_plan.py``; the enumeration accuracy in their ``main``):

- ``task_accuracy``: episodes whose goal was reached over all episodes; an
  episode that never had a first plan has no ``goal_reached`` and counts 0.
- ``action_accuracy``: summed over episodes, attempts whose every answer matched
  the true state and whose action ran (``action_state_correct``), over attempts
  plus the actions left in the queue when the episode ended (``remaining_actions``).
  An episode that never had a first plan counts 0 of 1 (``failed``).
- ``fail_ratio``: episodes that never had a first plan, over all episodes.
- ``predicate_accuracy`` / ``macro_predicate_accuracy``: over *enumeration*
  answers only (the initial one and those before each replan). compute_metrics
  also defines ``update_predicate_stats`` for the answers to precondition and
  effect questions, but defines it inside an ``else`` branch and never calls it,
  so those answers never count. A reply that is neither yes nor no counts in the
  total and never as correct. Micro: correct over total; macro: the mean of the
  per-predicate accuracies. Predicates are named as ViPlan names them (lower case).
- ``enumeration_accuracy``: the mean over episodes with an initial enumeration
  of that enumeration's accuracy (``main``, after compute_metrics); absent (None)
  when no episode enumerated its initial state (the household runs).

VLM-as-planner (``main`` of ``benchmark_*_vila.py``, its "Compute some statistics"):
``action_success_rate`` (actions that ran over actions tried), ``action_failure_rate``
and ``task_completion_rate`` (episodes completed over episodes).
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

Record = dict[str, Any]
GROUNDER_METRICS = ("predicate_accuracy", "macro_predicate_accuracy", "action_accuracy", "task_accuracy",
                    "fail_ratio", "enumeration_accuracy")
PLANNER_METRICS = ("action_success_rate", "action_failure_rate", "task_completion_rate")
_ANSWER_PHASES = ("precondition", "effect")


def _said(event: Record) -> str:
    return str(event.get("answer", ""))


def _right(event: Record) -> bool:
    """The answer matches the true value (a reply that is neither yes nor no never does)."""
    return _said(event) == ("yes" if event.get("truth") else "no")


def _predicate(event: Record) -> str:
    return str(event["atom"]).strip("()").split(" ", 1)[0].lower()


def failed(record: Record) -> bool:
    """ViPlan's ``failed``: the episode never had a first plan (its ``action_results`` is None)."""
    if "viplan_failed" in record:
        return bool(record["viplan_failed"])
    return not any(e.get("phase") == "plan" and isinstance(e.get("plan"), list) for e in record.get("events", ()))


def initial_enumeration(record: Record) -> list[Record]:
    """The answers of the enumeration that opens the episode (empty when it starts from the true state)."""
    out = []
    for event in record.get("events", ()):
        if event.get("phase") != "enumerate":
            break
        out.append(event)
    return out


def attempts(record: Record) -> list[list[Record]]:
    """The episode's action attempts, each the events from trying one action.

    Imported records mark each attempt with an ``attempt`` event. Records without
    such marks start an attempt at the first precondition answer after any other
    event, and at an ``act`` event when the current attempt already acted.
    """
    events = [e for e in record.get("events", ()) if e.get("phase") in ("attempt", "act", *_ANSWER_PHASES,
                                                                          "replan", "plan", "enumerate")]
    marked = any(e.get("phase") == "attempt" for e in events)
    groups: list[list[Record]] = []
    current: list[Record] | None = None
    previous = ""
    for event in events:
        phase = event.get("phase")
        if phase in ("replan", "plan", "enumerate"):
            current, previous = None, phase
            continue
        starts = (phase == "attempt") if marked else (
            (phase == "precondition" and previous != "precondition") or
            (phase == "act" and (current is None or any(e.get("phase") == "act" for e in current))))
        if starts or current is None:
            current = []
            groups.append(current)
        current.append(event)
        previous = phase
    return groups


def attempt_correct(group: Sequence[Record]) -> bool:
    """ViPlan's ``action_state_correct``: the action ran and every answer matched the true state."""
    ran = any(e.get("phase") == "act" and e.get("executed") for e in group)
    return ran and all(_right(e) for e in group if e.get("phase") in _ANSWER_PHASES)


def remaining_actions(record: Record) -> int:
    """Actions left in ViPlan's queue at the end: recorded, else the last plan less the attempts made since."""
    if "remaining_actions" in record:
        return len(record["remaining_actions"])
    last, tried = None, 0
    for event in record.get("events", ()):
        if event.get("phase") == "plan" and isinstance(event.get("plan"), list):
            last, tried = len(event["plan"]), 0
        elif event.get("phase") in ("attempt",) or (event.get("phase") == "act"):
            tried += 1
    return max((last or 0) - tried, 0)


def predicate_stats(records: Iterable[Record]) -> dict[str, dict[str, float]]:
    """Per predicate over enumeration answers: yes/no totals and correct counts, accuracy (compute_metrics)."""
    stats: dict[str, dict[str, float]] = {}
    for record in records:
        for event in record.get("events", ()):
            if event.get("phase") != "enumerate":
                continue
            s = stats.setdefault(_predicate(event), {"yes_correct": 0, "yes_total": 0, "no_correct": 0,
                                                     "no_total": 0})
            side = "yes" if event.get("truth") else "no"
            s[f"{side}_total"] += 1
            s[f"{side}_correct"] += _right(event)
    for s in stats.values():
        s["correct"] = s["yes_correct"] + s["no_correct"]
        s["total"] = s["yes_total"] + s["no_total"]
        s["accuracy"] = s["correct"] / s["total"] if s["total"] else 0
    return dict(sorted(stats.items()))


def grounder_metrics(records: Sequence[Record]) -> dict[str, float | None]:
    """ViPlan's VLM-as-grounder metrics over one run's episodes (one split, as ViPlan computes them)."""
    n = len(records)
    if not n:
        return {k: None for k in GROUNDER_METRICS}
    correct = total = fails = reached = 0
    for record in records:
        if failed(record):
            fails += 1
            total += 1
            continue
        reached += bool(record.get("success"))
        groups = attempts(record)
        correct += sum(attempt_correct(g) for g in groups)
        total += len(groups) + remaining_actions(record)
    stats = predicate_stats(records)
    asked = sum(s["total"] for s in stats.values())
    enumerated = [initial_enumeration(r) for r in records]
    enumerated = [e for e in enumerated if e]
    return {
        "predicate_accuracy": sum(s["correct"] for s in stats.values()) / asked if asked else None,
        "macro_predicate_accuracy": sum(s["accuracy"] for s in stats.values()) / len(stats) if stats else None,
        "action_accuracy": correct / total if total else None,
        "task_accuracy": reached / n,
        "fail_ratio": fails / n,
        "enumeration_accuracy": (sum(sum(map(_right, e)) / len(e) for e in enumerated) / len(enumerated)
                                 if enumerated else None),
    }


def planner_metrics(records: Sequence[Record]) -> dict[str, float | None]:
    """ViPlan's VLM-as-planner statistics (benchmark_*_vila.py, main): every action tried counts."""
    tried = ran = done = 0
    for record in records:
        for event in record.get("events", ()):
            if event.get("phase") == "act":  # imported records say "executed", the protocol ViPlan's "success"
                tried += 1
                ran += bool(event.get("executed", event.get("success")))
            elif event.get("phase") == "invalid":  # pgt's record of a step whose reply named no runnable action
                tried += 1
        done += bool(record.get("success"))
    return {"action_success_rate": ran / tried if tried else 0, "action_failure_rate": (tried - ran) / tried if tried
            else 0, "task_completion_rate": done / len(records) if records else 0}


def viplan_metrics(records: Sequence[Record]) -> dict[str, dict[str, float | None]]:
    """Per split, ViPlan's metrics for the records' protocol (grounder or planner); {} for pgt's own protocols."""
    from benchmarks.metrics import by_split

    out = {}
    for split, recs in by_split(records).items():
        protocol = (recs[0].get("config") or {}).get("protocol")
        if protocol == "viplan-grounder":
            out[split] = grounder_metrics(recs)
        elif protocol == "viplan-planner":
            out[split] = planner_metrics(recs)
    return out


def markdown(runs: Sequence[Any]) -> str:
    """A report section with ViPlan's metrics per run and split, for the runs of a ``viplan-*`` protocol."""
    rows = []
    for run in runs:
        for split, values in viplan_metrics(run.records).items():
            rows.append((f"{run.label}", split, values))
    if not rows:
        return ""
    names = list(dict.fromkeys(k for _, _, values in rows for k in values))
    lines = ["", "ViPlan's metrics, as ViPlan's code computes them (benchmarks/viplan_metrics.py):", "",
             "| run | split | " + " | ".join(names) + " |", "|---|---|" + "---:|" * len(names)]
    for label, split, values in rows:
        cells = ["" if k not in values else "n/a" if values[k] is None else f"{values[k]:.3f}" for k in names]
        lines.append(f"| {label} | {split} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
