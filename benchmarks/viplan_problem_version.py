"""The household problem a released ViPlan run really ran, where ViPlan's snapshot holds another version.

ViPlan's household grounder asks about an action's effects over ``env.all_objects``
(``get_effect_predicates`` in ``viplan/experiments/benchmark_igibson_plan.py``: a
``forall`` effect ranges over ``env.all_objects[type]``), and ``iGibsonClient`` builds
``all_objects`` from the loaded problem file's objects (``viplan/planning/igibson_client_env.py``,
``__init__`` and ``reset``). So every object an action's precondition or effect results
name was an object of the problem file the run loaded. The released CoT runs of
``cleaning_out_drawers_simple`` ask ``(reachable cabinet_2)`` after ``navigate-to(cabinet_1)``,
yet the snapshot's problem file declares only bowl_1, cabinet_1 and sink_1: those runs
loaded a version with cabinet_2 that ViPlan's repository (one commit) does not hold.

:func:`run_objects` reads the objects a log's action checks name; :func:`missing_objects`
types those the problem file lacks from the domain's predicate and action parameters (the
most specific type every use allows); :func:`with_objects` writes the problem text with
them declared. Objects named only in replan enumerations are not counted: those come from
iGibson's symbolic state (``env.state``), which holds scene objects beyond the problem's.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any, Iterable

from toolkit.errors import PgtError
from toolkit.model import Domain

_SECTIONS = ("preconditions_results", "non_visible_precond_results", "effects_results")
_NOT_ATOMS = ("all_correct", "all_state_correct", "updated_non_visible_preds")
_ACTION = re.compile(r"^\s*([\w-]+)\s*\((.*)\)\s*$")

Uses = dict[str, set[tuple[str, str, int]]]  # object -> {("pred"|"action", name, position)}


def run_objects(episodes: Iterable[dict[str, Any] | None]) -> Uses:
    """Each object the episodes' action checks name, with where it was named."""
    uses: Uses = defaultdict(set)
    for data in episodes:
        for attempt in (data or {}).get("action_results") or ():
            match = _ACTION.match(str(attempt.get("action", "")))
            if match:
                for i, arg in enumerate(a.strip() for a in match.group(2).split(",") if a.strip()):
                    uses[arg].add(("action", match.group(1), i))
            for section in _SECTIONS:
                results = attempt.get(section) or {}
                keys = [k for k in results if k not in _NOT_ATOMS]
                keys += list(results.get("updated_non_visible_preds") or ())
                for key in keys:
                    predicate, _, args = str(key).partition(" ")
                    for i, arg in enumerate(a for a in args.split(",") if a):
                        uses[arg].add(("pred", predicate, i))
    return uses


def _ancestors(domain: Domain, name: str) -> list[str]:
    chain = [name]
    while chain[-1] in domain.types and domain.types[chain[-1]] != chain[-1]:
        chain.append(domain.types[chain[-1]])
    return chain if chain[-1] == "object" else [*chain, "object"]


def missing_objects(domain: Domain, declared: Iterable[str], uses: Uses) -> dict[str, str]:
    """The objects ``uses`` names that ``declared`` lacks, each with the most specific type its uses allow."""
    known = set(declared) | set(domain.constants)
    found: dict[str, str] = {}
    for obj in sorted(set(uses) - known):
        required: set[str] = set()
        for kind, name, i in uses[obj]:
            params = (domain.predicates[name].params if kind == "pred" and name in domain.predicates
                      else domain.actions[name].params if kind == "action" and name in domain.actions else None)
            if params is None or i >= len(params):
                raise PgtError(f"the log names {obj!r} in {name} (position {i + 1}), which the domain does not declare")
            required.update(params[i][1])
        # the most specific required type: one whose ancestors hold every other
        fitting = [t for t in sorted(required) if required <= set(_ancestors(domain, t))]
        if not fitting:
            raise PgtError(f"the log uses {obj!r} as {' and '.join(sorted(required))}; no type is both")
        found[obj] = fitting[0]
    return found


def with_objects(text: str, objects: dict[str, str], path: str) -> str:
    """``text`` (a problem file) with ``objects`` added to its ``:objects`` section."""
    match = re.search(r"\(\s*:objects\b", text, re.IGNORECASE)
    if match is None:
        raise PgtError(f"{path}: no :objects section to add {', '.join(objects)} to")
    depth, i = 0, match.start()
    for i in range(match.start(), len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            break
    lines = "".join(f"    {name} - {type_}  ; named by the released run's action checks\n"
                    for name, type_ in objects.items())
    return text[:i].rstrip() + "\n" + lines + "    " + text[i:]
