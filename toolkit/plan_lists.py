"""One plan per reply: the lists of steps a reply holds, and which of them is the plan.

Models restate their plan (a numbered list, then "### Summary of the Plan:" with the
same steps in another style), correct it ("Here is the correct plan:"), or offer a
second one ("However, a more efficient plan would be:"). A reader takes the first
complete list, skips its restatements, follows an announced correction, and refuses
to pick between two plans the reply leaves standing. :func:`restatements` does that
for :func:`toolkit.plans.parse_plan`, on its classified step candidates; it knows no
domain (steps are compared by the ground actions they name).
"""

from __future__ import annotations

import re
from typing import Sequence

from toolkit.plan_reader import Candidate

# A line that asks for the plan to run again.
_REPEAT = re.compile(r"\b(?:again|repeat\w*|twice|second\s+time)\b", re.I)

# A line that announces the next list as a correction of the one before.
_SUPERSEDE = re.compile(r"\b(?:correct(?:ed)?|revised|updated|fixed|amended|improved|better|new|right|valid|"
                        r"working|final|optimal|shorter|simpler|efficient)\s+(?:plan|sequence|solution|version|list|"
                        r"steps?|actions?)\b|\bcorrection\b|"
                        r"\b(?:mistake|error|incorrect|wrong|not\s+(?:correct|valid|possible))\b", re.I)
_NUMBER = re.compile(r"^\s*(?:[-*+\u2022]\s+)?[*_]*\s*(?:(?:step|action)\s*)?#?\s*(\d{1,4})\s*[.):]", re.I)


def _number(cand: Candidate) -> int | None:
    """The list number a step's line starts with ("3.", "**Step 3:**", "- 3)"), if any."""
    hit = _NUMBER.match(cand.source)
    return int(hit.group(1)) if hit else None


def _runs(cands: Sequence[Candidate], kinds: Sequence[tuple[str, object]], nested: set[int],
          breaks: frozenset[int]) -> list[tuple[list[int], bool]]:
    """The reply's steps cut into lists: (indexes, restarted) each, ``restarted`` when the list's
    numbering starts again or a heading stands before it (a reader sees a new list then).

    A numbered list whose numbering goes on is one list, whatever lies between its items
    (notes, state descriptions); unnumbered steps with prose between them are cut at the
    prose, as a restated copy ("In PDDL:") usually is."""
    runs: list[tuple[list[int], bool]] = []
    last: int | None = None
    between = False
    for i, (kind, _) in enumerate(kinds):
        if kind not in ("step", "error"):
            if last is not None and i not in nested and cands[i].indent <= cands[last].indent:
                between = True
            continue
        if last is not None and (cands[i].line, cands[i].source) == (cands[last].line, cands[last].source):
            runs[-1][0].append(i)  # several actions written on one line
            continue
        number, before = _number(cands[i]), (_number(cands[last]) if last is not None else None)
        heading = last is not None and any((cands[last].line or 0) < b < (cands[i].line or 0) for b in breaks)
        restart = number is not None and before is not None and number <= before
        goes_on = number is not None and before is not None and number == before + 1
        if last is None or restart or ((between or heading) and not goes_on):
            runs.append(([i], last is not None and (restart or heading or (number == 1 and before is None))))
        else:
            runs[-1][0].append(i)
        last, between = i, False
    return runs


def _same_plan(a: list[int], b: list[int], keys: Sequence[str | None]) -> bool:
    """Two lists are one plan written twice: as long, and equal wherever both were read (a step one
    copy writes in words pgt cannot read, "**Unstack Blue from Red**: ...", may be read in the other)."""
    if len(a) != len(b):
        return False
    agree = 0
    for i, j in zip(a, b):
        if keys[i] is not None and keys[j] is not None:
            if keys[i] != keys[j]:
                return False
            agree += 1
    return agree > 0


def restatements(cands: Sequence[Candidate], kinds: Sequence[tuple[str, object]], nested: set[int],
                  breaks: frozenset[int], keys: Sequence[str | None],
                  lines: Sequence[str]) -> tuple[dict[int, str], str | None]:
    """Which steps to leave out as restatements, and the reply's verdict when it holds two plans.

    The plan is the first complete list, the way a reader finds it; a later list that
    is the same plan ("### Summary of the Plan:", "In PDDL:", "Final plan:") is skipped
    with why. A later list that differs, after a heading or a new numbering, is a second
    plan: the verdict ``two_different_plans``, never a merge, unless a line between them
    announces it as a correction ("Here is the correct plan:", "### Revised Plan"): then it
    replaces the earlier one. A line between two copies that asks for a repetition
    ("again", "twice") means the plan really runs twice.
    """
    runs = _runs(cands, kinds, nested, breaks)
    if len(runs) < 2:
        return {}, None
    skip: dict[int, str] = {}
    read = [key is not None for key in keys]
    complete = next((run for run, _ in runs if all(read[i] for i in run)), None)
    if complete is not None:  # after a plan read in full, a list with no step pgt can read is a note on it
        # ("Unstack Y from O" with initials, "- Orange (on the table)" for the final stack)
        for run, _ in runs:
            if run is not complete and not any(read[i] for i in run):
                skip.update((i, f"no step pgt can read, after the plan at line {cands[complete[0]].line}")
                            for i in run)
        runs = [(run, restarted) for run, restarted in runs if run[0] not in skip]
        if len(runs) < 2:
            return skip, None
    first = runs[0][0]
    copies = [run for run, _ in runs[1:] if _same_plan(first, run, keys)]
    if len(copies) == len(runs) - 1:
        gap = range(first[-1] + 1, runs[-1][0][0])
        if any(kinds[i][0] not in ("step", "error") and _REPEAT.search(cands[i].text) for i in gap):
            return {}, None
        lists = [first, *copies]
        chosen = next((run for run in lists if all(kinds[i][0] == "step" for i in run)), first)
        where = cands[chosen[0]].line
        return {**skip, **{i: f"the same plan as at line {where}: read once" for run in lists if run is not chosen
                           for i in run}}, None
    if not any(restarted for _, restarted in runs[1:]):
        return skip, None  # steps with prose between them: one plan
    # Walk the lists: a copy of the plan so far is a restatement; a different list that the reply
    # announces as a correction ("Here is the correct plan:") replaces it; any other is a second plan.
    current = first
    for run, _ in runs[1:]:
        if _same_plan(current, run, keys):
            skip.update((i, f"the same plan as at line {cands[current[0]].line}: read once") for i in run)
            continue
        start, end = cands[current[-1]].line or 0, cands[run[0]].line or 0
        if any(_SUPERSEDE.search(line) for line in lines[start:end - 1]):
            skip.update((i, f"replaced by the corrected plan at line {end}") for i in current)
            current = run
            continue
        return {**skip, **{i: "a second, different plan" for i in run}}, (
            f"two different plans: lines {cands[current[0]].line}-{cands[current[-1]].line} ({len(current)} "
            f"steps) and lines {cands[run[0]].line}-{cands[run[-1]].line} ({len(run)} steps)")
    return skip, None
