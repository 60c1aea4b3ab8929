"""``pgt score babybench-batch``: LLM-BabyBench items in the benchmark's own formats, scored as its code scores them.

Input, one item per JSON line (or a ``.json`` list), or a CSV as the
benchmark's ``generate/`` scripts write it (``LLM_BABYBENCH_Predict.csv``,
``_Plan.csv``, ``_Decompose.csv``) with the model's answers in an ``output``
column. Fields, with the benchmark's own column names accepted beside pgt's:

* ``task``: ``predict``, ``plan`` or ``decompose`` (in a CSV, or when absent,
  read from the columns: ``action_sequence`` → predict,
  ``expert_action_sequence`` → plan, ``mission``/``help_count`` → decompose);
* ``env`` (``env_name``) and ``seed``: the BabyAI level and its seed;
* ``actions`` (``action_sequence``): Predict's action prefix;
  ``optimal`` (``expert_action_sequence``): Plan's bot actions;
* ``output`` (``parsed_llm_output``): the answer as the evaluator receives it,
  or ``reply`` (``all_llm_output``): the model's whole reply, cut first by the
  pipeline's reader (:func:`toolkit.scoring.babybench_tasks.pipeline_parse`).

One JSON line out per item, with the official keys of
:mod:`toolkit.scoring.babybench_tasks` / :mod:`toolkit.scoring.babybench_decompose`
and ``id``, ``line``, ``task``, ``env``, ``seed``; an item the official
evaluator would refuse gets ``error`` and is left out of the summary.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any, Iterator

from toolkit import jsontext
from toolkit.errors import PgtError, closest
from toolkit.scoring.metrics import mean_stderr

TASKS = ("predict", "plan", "decompose")
ALIASES = {"env_name": "env", "env_seed": "seed", "action_sequence": "actions", "expert_action_sequence": "optimal",
           "parsed_llm_output": "output", "all_llm_output": "reply"}
# Summary rows: (task, output key, label).
SUMMARY = (("predict", "success", "Predict success"), ("predict", "manhattan_distance", "Predict Manhattan distance"),
           ("predict", "pgt_position_success", "Predict position success (pgt)"),
           ("plan", "CR", "Plan CR"), ("plan", "llm_efficiency", "Plan efficiency"),
           ("plan", "pgt_efficiency", "Plan efficiency to the goal (pgt)"),
           ("plan", "llm_ball_distance", "Plan distance to the ball"),
           ("decompose", "CR", "Decompose CR"), ("decompose", "PR", "Decompose PR"),
           ("decompose", "ACI", "Decompose ACI"))


def read_items(text: str, path: str = "") -> list[tuple[int, dict[str, Any] | str]]:
    """(line or row number, item) pairs; an item that is not a JSON object is its error text."""
    if path.lower().endswith(".csv"):
        reader = csv.DictReader(io.StringIO(text))
        return [(reader.line_num, dict(row)) for row in reader]
    if path.endswith(".json"):
        data = jsontext.loads(text)
        return list(enumerate(data if isinstance(data, list) else [data], 1))
    items: list[tuple[int, dict[str, Any] | str]] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            items.append((lineno, jsontext.loads(line)))
        except json.JSONDecodeError as exc:
            items.append((lineno, f"not JSON: {exc.msg}"))
    return items


def normalize(item: dict[str, Any]) -> dict[str, Any]:
    """The item with the benchmark's column names mapped to pgt's and ``task`` and ``seed`` settled."""
    rec = {ALIASES.get(k, k): v for k, v in item.items()}
    task = rec.get("task")
    if task in (None, ""):
        task = ("predict" if "actions" in rec else "plan" if "optimal" in rec
                else "decompose" if "mission" in rec or "help_count" in rec else None)
        if task is None:
            raise PgtError("item needs 'task' (predict, plan or decompose)")
    if task not in TASKS:
        hint = closest(str(task), TASKS)
        raise PgtError(f"unknown task '{task}'" + (f"; did you mean {hint[0]}?" if hint else " (predict, plan, decompose)"))
    rec["task"] = task
    if not isinstance(rec.get("env"), str) or not rec["env"]:
        raise PgtError("item needs 'env', the BabyAI level (e.g. BabyAI-GoToObj-v0)")
    seed = rec.get("seed")
    if isinstance(seed, str) and seed.strip().lstrip("-").isdigit():
        seed = int(seed)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise PgtError(f"item needs an integer 'seed', got {json.dumps(seed)}")
    rec["seed"] = seed
    for key in ("output", "reply", "actions", "optimal"):
        if key in rec and rec[key] is not None and not isinstance(rec[key], str):
            raise PgtError(f"'{key}' must be text, got {json.dumps(rec[key])[:60]}")
    if rec.get("output") is None:
        if rec.get("reply") is None:
            raise PgtError("item needs 'output' (the parsed answer) or 'reply' (the whole model reply)")
        from toolkit.scoring.babybench_tasks import pipeline_parse

        rec["output"] = pipeline_parse(rec["reply"], task)
    needed = {"predict": "actions", "plan": "optimal"}.get(task)
    if needed and not isinstance(rec.get(needed), str):
        raise PgtError(f"a {task} item needs '{needed}'")
    return rec


def score_item(rec: dict[str, Any], code_dir: str | None = None) -> dict[str, Any]:
    """The official keys for one normalized item."""
    from toolkit.scoring import babybench_tasks as bt

    if rec["task"] == "predict":
        return bt.score_predict(rec["env"], rec["seed"], rec["actions"], rec["output"])
    if rec["task"] == "plan":
        return bt.score_plan(rec["env"], rec["seed"], rec["optimal"], rec["output"])
    from toolkit.scoring.babybench_decompose import score_decompose

    return score_decompose(rec["env"], rec["seed"], rec["output"], code_dir)


def score_items(items: list[tuple[int, dict[str, Any] | str]], code_dir: str | None = None) -> Iterator[dict[str, Any]]:
    """One output dict per item; bad input and refused items carry ``error`` and the batch goes on."""
    from toolkit.scoring.babyai_levels import require_minigrid

    require_minigrid()  # a missing extra is one error for the whole batch, not one per item
    for lineno, item in items:
        out: dict[str, Any] = {"id": lineno, "line": lineno}
        try:
            if isinstance(item, str):
                raise PgtError(item)
            if not isinstance(item, dict):
                raise PgtError("each item must be a JSON object")
            out["id"] = item.get("id", lineno)
            rec = normalize(item)
            out.update(task=rec["task"], env=rec["env"], seed=rec["seed"])
            out.update(score_item(rec, code_dir))
        except PgtError as exc:
            out["error"] = f"line {lineno}: {exc}"
        yield out


def summarize(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Mean ± standard error per task and key, over the items scored without error."""
    rows = []
    for task, key, label in SUMMARY:
        values = [r.get(key) for r in results if r.get("task") == task and "error" not in r]
        if not values:
            continue
        mean, se, n = mean_stderr(values)
        rows.append({"metric": f"{task}.{key}", "label": label, "n": n, "mean": mean, "stderr": se})
    return rows
