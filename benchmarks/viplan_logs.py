"""Reading ViPlan's released result files (``results/final/.../results_*.json``).

ViPlan (merlerm/ViPlan) publishes, beside its problem files, one JSON per run:
model x chain of thought x split x protocol. This module reads one into a
:class:`ViPlanLog` (what the run was, and its episodes as ViPlan wrote them) and
nothing more; :mod:`benchmarks.viplan_import` turns a log into pgt's records.

The two shapes, as ViPlan's code writes them:

- VLM-as-grounder (``viplan/experiments/benchmark_{blocksworld,igibson}_plan.py``,
  ``main``): one entry per episode, keyed by the problem file (household: the file
  followed by ``_SCENE_INSTANCE``), holding ``action_results``, ``replans``,
  ``remaining_actions``, ``goal_reached`` and, for Blocksworld, ``initial_state_enum``;
  then the run's metrics (``predicate_accuracy`` ...) and ``metadata``.
- VLM-as-planner (``benchmark_{blocksworld,igibson}_vila.py``, ``main``): one
  entry per episode holding ``plans``, ``actions``, ``previous_actions`` and
  ``completed``; then ``statistics`` and ``metadata``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from toolkit.errors import PgtError
from toolkit import jsontext

GROUNDER_KEYS = ("predicate_accuracy", "task_accuracy")
PLANNER_KEYS = ("statistics", "metadata")
RUN_KEYS = frozenset({"problem_stats", "predicate_stats", "predicate_accuracy", "macro_predicate_accuracy",
                      "action_accuracy", "task_accuracy", "fail_ratio", "metadata", "enumeration_accuracy",
                      "statistics"})
SPLITS = ("simple", "medium", "hard")
# ViPlan's household grounder caps: its run scripts pass --max_steps 10/20/30 by split
# (sh_scripts/slurm_cluster/scripts/benchmark_igibson_planning_array.sh); Blocksworld's
# check_plan keeps its default max_actions=20 (benchmark_blocksworld_plan.py, check_plan).
HOUSEHOLD_CAPS = {"simple": 10, "medium": 20, "hard": 30}
_SCENE = re.compile(r"^(?P<file>.+\.pddl)_(?P<scene>.+)$")


@dataclass(frozen=True)
class ViPlanEpisode:
    """One episode as ViPlan logged it: its key, problem file (as ViPlan wrote it) and data."""

    key: str
    problem: str  # e.g. data/planning/blocksworld/problems/simple/simple_problem_20.pddl
    scene: str  # household: "Ihlen_0_int_0"; Blocksworld: ""
    data: dict[str, Any] | None  # None: ViPlan could not load the problem (vila writes None)


@dataclass
class ViPlanLog:
    """One released run: what it was (domain, protocol, model, CoT, split, failures) and its episodes."""

    path: Path
    domain: str  # "blocksworld" or "igibson" (ViPlan's domain names)
    protocol: str  # pgt's name: "viplan-grounder" or "viplan-planner"
    model: str  # the model's short name, e.g. "gpt-4.1", "InternVL3-8B"
    cot: bool
    split: str
    fail_probability: float
    max_steps: int
    metadata: dict[str, Any]
    top: dict[str, Any]  # the run-level entries (metrics, statistics, metadata)
    episodes: list[ViPlanEpisode] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # where the file disagrees with itself

    @property
    def viplan_protocol(self) -> str:
        """ViPlan's own folder name for the protocol: ``predicates`` (grounder) or ``vila`` (planner)."""
        return "predicates" if self.protocol == "viplan-grounder" else "vila"

    @property
    def group(self) -> tuple[str, str, bool, float, str]:
        """What one pgt run folder holds: every split of one domain x protocol x CoT x failures x model."""
        return (self.domain, self.protocol, self.cot, self.fail_probability, self.model)

    def group_name(self) -> str:
        """A folder name for :attr:`group`, e.g. ``blocksworld-grounder-cot-gpt-4.1``."""
        kind = "grounder" if self.protocol == "viplan-grounder" else "planner"
        fail = f"-fail{self.fail_probability:g}" if self.fail_probability else ""
        return f"{self.domain}-{kind}-{'cot' if self.cot else 'nocot'}{fail}-{self.model}"


def find_logs(path: str | Path) -> list[Path]:
    """The ViPlan result files at ``path``: the file itself, or every ``results_*.json`` under a folder."""
    root = Path(path)
    if root.is_file():
        return [root]
    if not root.exists():
        raise PgtError(f"{path}: no such file or folder")
    found = sorted(p for p in root.rglob("results_*.json") if p.is_file())
    if not found:
        raise PgtError(f"{path}: no ViPlan result files (results_*.json) in this folder or below it")
    return found


def read_log(path: str | Path) -> ViPlanLog:
    """Read one ViPlan result JSON; anything else is refused with a one-line error."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise PgtError(f"{path}: not a ViPlan result file (not UTF-8 text)") from None
    except OSError as exc:
        raise PgtError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        data = jsontext.loads(text)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        what = "truncated JSON" if exc.pos >= len(text.rstrip()) - 1 else f"not JSON ({exc.msg})"
        raise PgtError(f"{path}:{exc.lineno}:{exc.colno}: not a ViPlan result file: {what} at {where}") from None
    if not isinstance(data, dict):
        raise PgtError(f"{path}: not a ViPlan result file (the top level is not an object)")
    if all(k in data for k in GROUNDER_KEYS):
        protocol = "viplan-grounder"
    elif all(k in data for k in PLANNER_KEYS) or isinstance(data.get("statistics"), dict):
        protocol = "viplan-planner"
    else:
        raise PgtError(f"{path}: not a ViPlan result file (neither the grounder's metrics nor the planner's "
                       "'statistics' at the top level)")
    meta = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    layout = _layout(path)
    if not meta and not layout:
        raise PgtError(f"{path}: a ViPlan result without metadata must sit in ViPlan's layout "
                       "(.../final_cot/vila/SPLIT/MODEL/results_*.json) to say what it ran")
    episodes = [_episode(path, key, value) for key, value in data.items() if key not in RUN_KEYS]
    if not episodes:
        raise PgtError(f"{path}: a ViPlan result file without episodes")
    parts = PurePosixPath(episodes[0].problem).parts
    domain = "igibson" if "igibson" in parts else "blocksworld" if "blocksworld" in parts else ""
    if not domain:
        raise PgtError(f"{path}: episode {episodes[0].key!r} is neither a Blocksworld nor a household problem")
    split = PurePosixPath(str(meta.get("problems_dir") or PurePosixPath(episodes[0].problem).parent)).name
    if split not in SPLITS:
        raise PgtError(f"{path}: unknown split {split!r} (ViPlan's are {', '.join(SPLITS)})")
    model = str(meta.get("model_name") or meta.get("model") or layout.get("model", ""))
    if not model:
        raise PgtError(f"{path}: the metadata names no model")
    model = model.rstrip("/").rsplit("/", 1)[-1]
    ran_cot = "_cot" in PurePosixPath(str(meta["prompt_path"])).stem if "prompt_path" in meta else None
    # The release's folder decides (ViPlan's tables follow it): two household files filed under
    # final_cot (job 7191532: gemma-3-27b-it and llava-onevision-qwen2-7b-ov-hf, simple) ran prompt.md.
    cot = bool(layout["cot"]) if layout else bool(ran_cot)
    fail = float(meta["fail_probability"] if "fail_probability" in meta else layout.get("fail", 0.0))
    if protocol == "viplan-planner":
        # the run scripts pass --max_steps 10/20/30 by split (sh_scripts/*/benchmark_*_vila_array.sh)
        cap = int(meta.get("max_steps") or HOUSEHOLD_CAPS[split])
    else:
        cap = HOUSEHOLD_CAPS[split] if domain == "igibson" else 20
    top = {k: v for k, v in data.items() if k in RUN_KEYS}
    notes = [] if ran_cot is None or ran_cot == cot else [
        f"filed under {'CoT' if cot else 'no CoT'} but its metadata ran {meta['prompt_path']}"]
    return ViPlanLog(path, domain, protocol, model, cot, split, fail, cap, meta, top, episodes, notes)


def _layout(path: Path) -> dict[str, Any]:
    """What ViPlan's folder layout says of a result file: ``final_cot/vila/hard/gpt-4.1/results_*.json``.

    Some released planner files carry no ``metadata`` (results/final/blocksworld/*/vila);
    their folders still name the CoT setting, the failure probability and the model.
    """
    parts = path.resolve().parts
    if len(parts) < 5 or parts[-4] not in ("predicates", "vila") or parts[-3] not in SPLITS:
        return {}
    run = parts[-5]
    fail = re.search(r"fail(\d+)", run)
    return {"model": parts[-2], "cot": "no_cot" not in run and "cot" in run,
            "fail": float(f"{fail[1][0]}.{fail[1][1:] or 0}") if fail else 0.0}  # fail01: 0.1


def _episode(path: Path, key: str, value: Any) -> ViPlanEpisode:
    if value is not None and not isinstance(value, dict):
        raise PgtError(f"{path}: episode {key!r} is not an object")
    if key.endswith(".pddl"):
        return ViPlanEpisode(key, key, "", value)
    hit = _SCENE.match(key)
    if hit is None:
        raise PgtError(f"{path}: unexpected top-level key {key!r} (neither a problem file nor a run metric)")
    return ViPlanEpisode(key, hit["file"], hit["scene"], value)


def parse_key(key: str) -> tuple[str, tuple[str, ...]]:
    """ViPlan's predicate key ``"on r,g"`` as (predicate, args), lower case as ViPlan writes it.

    >>> parse_key("on r,g"), parse_key("clear g"), parse_key("ontop book_1,table_1")
    (('on', ('r', 'g')), ('clear', ('g',)), ('ontop', ('book_1', 'table_1')))
    """
    name, _, rest = key.strip().partition(" ")
    args = tuple(a for a in re.split(r"[, ]+", rest.strip()) if a)
    return name, args


def parse_action(text: str) -> tuple[str, tuple[str, ...]] | None:
    """ViPlan's action text ``"moveblock(r, c3)"`` as (name, args); None for ``unknown action`` and the like.

    >>> parse_action("moveblock(r, c3)"), parse_action("navigate-to(book_1)"), parse_action("unknown action")
    (('moveblock', ('r', 'c3')), ('navigate-to', ('book_1',)), None)
    """
    hit = re.fullmatch(r"\s*([\w-]+)\s*\((.*)\)\s*", text or "")
    if hit is None:
        return None
    return hit[1], tuple(a.strip() for a in hit[2].split(",") if a.strip())
