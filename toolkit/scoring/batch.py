"""Batch scoring over JSON Lines, and the mean ± standard error summary (Markdown, CSV).

Why JSON Lines: model outputs from a study arrive one record per line; a bad line
must be reported on its own output line while the batch goes on. Every output
line carries the input ``id`` and ``line``; a line that could not be scored has
``"error"`` and no metrics, and is left out of the summary (counted apart).

Fields of an input record (any text field ``X`` may instead be given as ``X_path``,
a file relative to the input file's folder):

* predict: ``domain`` (path or shipped name), ``problem`` (path, or a shipped
  problem name), ``actions`` (plan text or list), ``prediction`` (state text, list or object);
* plan: ``domain``, ``problem``, ``plan``, optional ``gold`` (list of plan texts;
  ``gold_paths`` for files);
* graph: ``initial``, ``goal`` and/or ``goal_graph``, ``plan`` (see :mod:`toolkit.scoring.graph`).
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from toolkit import loader
from toolkit.domains import resolve_domain_arg, shipped_problem
from toolkit.errors import PgtError
from toolkit.scoring.graph import score_graph_record
from toolkit.scoring.metrics import mean_stderr
from toolkit.scoring.optimal import OptimalLength, optimal_length
from toolkit.scoring.plan import score_plan
from toolkit.scoring.predict import score_prediction
from toolkit.task import Task, load_domain_cached
from toolkit import jsontext
from toolkit.textfile import read_text

# Metric columns of the summary, per batch kind: (output key, label).
SUMMARY_METRICS: dict[str, list[tuple[str, str]]] = {
    "predict": [("exact", "exact match"), ("precision", "atom precision"), ("recall", "atom recall"),
                ("f1", "atom F1"), ("distance", "distance (symmetric difference)"), ("normalized_distance", "normalized distance"),
                ("fluent_exact", "fluent exact match"), ("fluent_f1", "fluent F1"),
                ("actions_executable", "actions executable")],
    "plan": [("success", "success"), ("partial_credit", "partial credit"), ("efficiency", "efficiency ratio"),
             ("plan_length", "plan length"), ("best_lcs", "LCS (best gold)"),
             ("best_normalized_lcs", "normalized LCS (best gold)")],
    "graph": [("success", "success rate"), ("precision", "plan precision (APP)"), ("goal_share", "goal share")],
    # Official definitions (``--metric``): see toolkit/scoring/babybench.py and semantic.py.
    "plan:babybench": [("success", "success rate"), ("efficiency", "efficiency ratio (0 for failures)"),
                       ("pgt_efficiency", "efficiency to the goal (pgt)"), ("steps_taken", "steps to the goal")],
    "predict:babybench": [("success", "success rate (position and direction)"), ("manhattan", "Manhattan distance"),
                          ("pgt_position_success", "position success (pgt)")],
    "plan:actplan": [("best_lcs", "semantic LCS (best gold)"), ("best_normalized_lcs", "normalized semantic LCS (best gold)")],
}


class BatchContext:
    """Per-batch caches: tasks by (domain, problem) and optimal lengths by task."""

    def __init__(self, base: Path, timeout: float = 10.0, optimal: bool = True, planner: str = "auto") -> None:
        self.base, self.timeout, self.optimal, self.planner = base, timeout, optimal, planner
        self.position: str | None = None  # --metric babybench: the predicate placing the agent
        self.direction: str | None = None  # --metric babybench: the predicate turning the agent
        self.model: str | None = None  # --metric actplan: a local all-MiniLM-L6-v2 folder
        self.tasks: dict[tuple[str, str], Task] = {}
        self.optima: dict[int, OptimalLength] = {}

    def path(self, value: str) -> Path:
        p = Path(value)
        return p if p.is_absolute() or p.exists() or not (self.base / p).exists() else self.base / p

    def text(self, rec: dict[str, Any], key: str, required: bool = True) -> str | None:
        """Field ``key`` inline (text, or JSON for lists/objects) or from ``key_path``."""
        if key in rec and rec[key] is not None:
            return _text_field(rec[key], key)
        if f"{key}_path" in rec:
            return self.read(rec[f"{key}_path"], f"{key}_path")
        if required:
            raise PgtError(f"record needs '{key}' (or '{key}_path')")
        return None

    def read(self, value: Any, field: str) -> str:
        """The text of a file named by a record field (relative to the input file's folder)."""
        if not isinstance(value, str) or not value:
            raise PgtError(f"'{field}' must be a file name")
        try:
            return read_text(self.path(value))
        except PgtError as exc:
            raise PgtError(f"{field}: {exc}") from None

    def task(self, rec: dict[str, Any]) -> Task:
        dom, prob = rec.get("domain"), rec.get("problem")
        if not isinstance(dom, str) or not isinstance(prob, str):
            raise PgtError("record needs 'domain' and 'problem' as strings")
        key = (dom, prob)
        if key not in self.tasks:
            dom_path = self.path(dom) if self.path(dom).exists() else resolve_domain_arg(dom)
            prob_path = self.path(prob)
            if not prob_path.exists() and "/" not in prob and not prob.endswith(".pddl"):
                prob_path = shipped_problem(dom, prob)
            domain = load_domain_cached(dom_path)
            self.tasks[key] = Task(domain, loader.load_problem(prob_path, domain))
        return self.tasks[key]

    def optimal_for(self, task: Task) -> Callable[[], OptimalLength] | None:
        if not self.optimal:
            return None

        def get() -> OptimalLength:
            if id(task) not in self.optima:
                self.optima[id(task)] = optimal_length(task, self.timeout, planner=self.planner)
            return self.optima[id(task)]

        return get


def _text_field(value: Any, field: str) -> str:
    """A text field as text; lists and objects (JSON plans and states) as their JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, (list, dict)):
        return json.dumps(value)
    raise PgtError(f"'{field}' must be text, a list or an object, got {json.dumps(value)}")


def _list_field(rec: dict[str, Any], field: str) -> list[Any]:
    value = rec.get(field) or []
    if not isinstance(value, list):
        raise PgtError(f"'{field}' must be a list, got {json.dumps(value)[:60]}")
    return value


def score_predict_record(rec: dict[str, Any], ctx: BatchContext) -> dict[str, Any]:
    task = ctx.task(rec)
    result = score_prediction(task, ctx.text(rec, "actions") or "", ctx.text(rec, "prediction") or "").to_json()
    result.pop("true_state")
    result["fluent_exact"], result["fluent_f1"] = result["fluent"]["exact"], result["fluent"]["f1"]
    return result


def score_plan_record(rec: dict[str, Any], ctx: BatchContext) -> dict[str, Any]:
    task = ctx.task(rec)
    return score_plan(task, ctx.text(rec, "plan") or "", _gold_of(rec, ctx), ctx.optimal_for(task)).to_json()


def score_graph_json(rec: dict[str, Any], ctx: BatchContext) -> dict[str, Any]:
    rec = dict(rec)
    for key in ("initial", "goal_graph", "goal", "plan"):
        if key not in rec and f"{key}_path" in rec:
            rec[key] = jsontext.loads(ctx.text(rec, key) or "null")
    return score_graph_record(rec).to_json()


def _gold_of(rec: dict[str, Any], ctx: BatchContext) -> list[tuple[str, str]]:
    gold = [(f"gold[{i}]", _text_field(g, f"gold[{i}]")) for i, g in enumerate(_list_field(rec, "gold"))]
    return gold + [(str(p), ctx.read(p, "gold plan")) for p in _list_field(rec, "gold_paths")]


def score_plan_babybench_record(rec: dict[str, Any], ctx: BatchContext) -> dict[str, Any]:
    from toolkit.scoring.babybench import score_plan_babybench

    task = ctx.task(rec)
    return score_plan_babybench(task, ctx.text(rec, "plan") or "", ctx.optimal_for(task)).to_json()


def score_predict_babybench_record(rec: dict[str, Any], ctx: BatchContext) -> dict[str, Any]:
    from toolkit.scoring.babybench import score_prediction_babybench

    position, direction = rec.get("position") or ctx.position, rec.get("direction") or ctx.direction
    if not position or not direction:
        raise PgtError("--metric babybench needs the position and direction predicates (--position PRED "
                       "--direction PRED, or \"position\" and \"direction\" keys)")
    return score_prediction_babybench(ctx.task(rec), ctx.text(rec, "actions") or "",
                                      ctx.text(rec, "prediction") or "", str(position), str(direction)).to_json()


def score_plan_actplan_record(rec: dict[str, Any], ctx: BatchContext) -> dict[str, Any]:
    from toolkit.scoring.semantic import lcs_table

    gold = _gold_of(rec, ctx)
    if not gold:
        raise PgtError("--metric actplan needs gold plans (\"gold\" or \"gold_paths\")")
    rows = lcs_table(ctx.text(rec, "plan") or "", gold, "actplan", ctx.model)
    return {"metric": "actplan", "gold": rows, "best_lcs": max(r["lcs"] for r in rows),
            "best_normalized_lcs": max(r["normalized_lcs"] for r in rows)}


SCORERS: dict[str, Callable[[dict[str, Any], BatchContext], dict[str, Any]]] = {
    "predict": score_predict_record, "plan": score_plan_record, "graph": score_graph_json,
    "plan:babybench": score_plan_babybench_record, "predict:babybench": score_predict_babybench_record,
    "plan:actplan": score_plan_actplan_record,
}


def score_records(kind: str, records: Iterable[tuple[int, str]], ctx: BatchContext) -> Iterator[dict[str, Any]]:
    """Score (line number, JSON text) pairs; one output dict per non-blank input line."""
    scorer = SCORERS[kind]
    for lineno, line in records:
        if not line.strip():
            continue
        out: dict[str, Any] = {"id": None, "line": lineno}
        try:
            rec = jsontext.loads(line) if isinstance(line, str) else line
            if not isinstance(rec, dict):
                raise PgtError("each record must be a JSON object")
            out["id"] = rec.get("id", lineno)
            out.update(scorer(rec, ctx))
        except json.JSONDecodeError as exc:
            out["error"] = f"line {lineno}: not JSON: {exc.msg}"
        except PgtError as exc:
            out["error"] = f"line {lineno}: {exc}"
        yield out


def records_of(text: str, path: str = "") -> list[tuple[int, str]]:
    """JSON Lines, or (for a ``.json`` file) one task object or a list of them."""
    if path.endswith(".json"):
        try:
            data = jsontext.loads(text)
        except json.JSONDecodeError:
            data = None  # maybe JSON Lines after all
        if data is not None:
            items = data if isinstance(data, list) else [data]
            return [(i, json.dumps(item)) for i, item in enumerate(items, 1)]
    return list(enumerate(text.splitlines(), 1))


def summarize(kind: str, results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per metric: mean, standard error and n over the records that have it."""
    scored = [r for r in results if "error" not in r]
    rows = []
    for key, label in SUMMARY_METRICS[kind]:
        mean, se, n = mean_stderr(r.get(key) for r in scored)
        rows.append({"metric": key, "label": label, "n": n, "mean": mean, "stderr": se})
    return rows


def _fmt(x: float | None) -> str:
    return "–" if x is None else f"{x:.3f}"


def summary_markdown(kind: str, rows: list[dict[str, Any]], total: int, errors: int) -> str:
    lines = [f"{total} record(s), {total - errors} scored, {errors} with bad input", "",
             "| metric | n | mean | ± s.e. |", "|---|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['label']} | {r['n']} | {_fmt(r['mean'])} | {_fmt(r['stderr'])} |")
    return "\n".join(lines) + "\n"


def summary_csv(rows: list[dict[str, Any]]) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=["metric", "label", "n", "mean", "stderr"], lineterminator="\n")
    writer.writeheader()
    for r in rows:
        writer.writerow({k: ("" if r[k] is None else r[k]) for k in writer.fieldnames})
    return buf.getvalue()
