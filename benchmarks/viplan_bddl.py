"""The hidden initial state of ViPlan's household problems: the BEHAVIOR activity's ``:init``.

ViPlan's household problem files leave much of ``:init`` empty (``organizing_file_cabinet_hard``'s
is empty); the state the runs started in is the one iGibson builds from the BEHAVIOR activity.
ViPlan's ``benchmark_igibson_plan.py`` (``main``) reads the activity from the problem folder's
``metadata.json`` (``activity_name``) and starts its ``iGibsonClient`` on it; the iGibson fork's
``igibson_semantic_actions_env.py`` (``iGibsonSemanticActionEnv.__init__``) sets
``env_config["task_id"] = 0``, and ``igibson/tasks/behavior_task.py`` (``BehaviorTask.__init__`` ->
``update_problem(behavior_activity, activity_definition=task_id)``) loads the activity's
definition 0, i.e. StanfordVL/bddl ``bddl/activity_definitions/<activity>/problem0.bddl``, whose
``:init`` the scene is sampled to satisfy (``get_initial_conditions``). Objects the runs never
looked at keep that state, so no released log holds it (document_2 and document_4 inside
cabinet_1 in organizing_file_cabinet), yet ViPlan's planner saw it in ``env.state``.

The bddl snapshot is the user's (``--bddl PATH`` or ``PGT_BDDL``): a checkout or a bare git
mirror of StanfordVL/bddl, read in place (its files are never copied into pgt).
"""

from __future__ import annotations

import json
import os
import subprocess
from functools import lru_cache
from pathlib import Path

from toolkit.errors import PgtError
from toolkit.model import Atom
from toolkit.task import Task

ENV = "PGT_BDDL"
_DEFINITION = "bddl/activity_definitions/{activity}/problem0.bddl"  # task_id 0 (see the module docstring)


def bddl_source() -> str | None:
    """The bddl snapshot the user named (``PGT_BDDL``), or None."""
    return os.environ.get(ENV) or None


def activity_of(problem_file: Path) -> str | None:
    """The BEHAVIOR activity ViPlan loads for ``problem_file`` (its folder's ``metadata.json``), or None."""
    meta = problem_file.parent / "metadata.json"
    try:
        entry = json.loads(meta.read_text()).get(problem_file.name)
    except (OSError, ValueError):
        return None
    return entry.get("activity_name") if isinstance(entry, dict) else None


@lru_cache(maxsize=None)
def _definition_text(source: str, activity: str) -> str | None:
    rel = _DEFINITION.format(activity=activity)
    root = Path(source)
    if (root / rel).is_file():
        return (root / rel).read_text()
    git_dir = root if (root / "HEAD").is_file() and (root / "objects").is_dir() else None
    if git_dir is None and (root / ".git").exists():
        git_dir = root / ".git"
    if git_dir is None:
        return None
    done = subprocess.run(["git", "--git-dir", str(git_dir), "show", f"HEAD:{rel}"],
                          capture_output=True, text=True)
    return done.stdout if done.returncode == 0 else None


def bddl_name(name: str) -> str:
    """ViPlan's object name for a BEHAVIOR one: iGibson fork ``bddl_to_pddl`` (``document.n.01_2`` -> ``document_2``)."""
    return f"{name.split('.')[0]}_{name.split('_')[-1]}"


def init_atoms(text: str) -> list[tuple[str, tuple[str, ...]]]:
    """The positive ground atoms of a bddl problem's ``:init`` (negated ones are false already in PDDL),
    read with pgt's BEHAVIOR-faithful reader (:func:`toolkit.bddl.sexpr.read_sexpr`)."""
    from toolkit.bddl.sexpr import read_sexpr

    init = next((n for n in read_sexpr(text, "<bddl>").items if n.head() == ":init"), None)
    if init is None:
        raise PgtError("a bddl problem with no (:init section")
    return [(atom.items[0].text, tuple(bddl_name(t.text) for t in atom.items[1:]))
            for atom in init.items[1:]
            if atom.head() not in (None, "not") and all(not t.is_list for t in atom.items)]


def hidden_init(task: Task, problem_file: Path, source: str | None = None) -> frozenset[Atom] | None:
    """The activity's ``:init`` atoms over the domain's predicates and the problem's objects; None if unread.

    Atoms over predicates ViPlan's domain lacks (``onfloor``, ``inroom``) or objects its problem
    does not declare are left out: ViPlan's planner state (``env.state``) holds only the domain's.
    """
    source = source if source is not None else bddl_source()
    activity = activity_of(problem_file)
    if source is None or activity is None:
        return None
    text = _definition_text(source, activity)
    if text is None:
        return None
    predicates = {p.lower(): p for p in task.domain.predicates}
    atoms = set()
    for name, args in init_atoms(text):
        if name.lower() not in predicates:
            continue
        try:
            atoms.add(Atom(predicates[name.lower()], tuple(task.resolve_object(a) for a in args)))
        except PgtError:
            continue
    return frozenset(atoms)


def unread_problems(folder: Path, source: str | None) -> list[str]:
    """The household problems under ``folder`` (``split/name``) whose activity's ``:init`` cannot be read."""
    unread = []
    for problem in sorted(folder.glob("*/*.pddl")):
        activity = activity_of(problem)
        if source is None or activity is None or _definition_text(source, activity) is None:
            unread.append(f"{problem.parent.name}/{problem.stem}")
    return unread
