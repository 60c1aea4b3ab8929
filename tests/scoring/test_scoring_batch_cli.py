"""`pgt score` commands and batches: per-line errors, summaries in Markdown and CSV, the sample data."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from toolkit.cli import main
from toolkit.domains import shipped_domain, shipped_problem
from toolkit.scoring.batch import summarize

DATA = Path(__file__).parent / "data"
GOLD = shipped_domain("blocksworld").parent / "golden" / "valid" / "simple_problem_0.plan"


def run_json_lines(capsys, argv):
    code = main(argv)
    out = capsys.readouterr()
    return code, [json.loads(line) for line in out.out.splitlines()], out.err


def test_plan_batch_on_llm_style_sample(capsys, tmp_path):
    md, csv_path = tmp_path / "s.md", tmp_path / "s.csv"
    code, rows, err = run_json_lines(capsys, ["score", "plan-batch", str(DATA / "llm_plans.jsonl"),
                                              "--md", str(md), "--csv", str(csv_path)])
    assert code == 1  # two lines of bad input
    by_id = {r["id"]: r for r in rows}
    assert by_id["bw-fenced-optimal"]["success"] and by_id["bw-fenced-optimal"]["efficiency"] == 1.0
    assert by_id["bw-calls-detour"]["efficiency"] == pytest.approx(0.8)
    assert by_id["bw-json-covered"]["failed_step"] == 2
    assert by_id["bw-hallucinated-action"]["reason"] == "unknown_action"
    assert "error" in by_id["missing-problem"] and "error" in rows[-1] and rows[-1]["line"] == 10
    assert len(rows) == 10
    table = list(csv.DictReader(csv_path.open()))
    success = next(r for r in table if r["metric"] == "success")
    scored = [r for r in rows if "error" not in r]
    assert int(success["n"]) == len(scored) == 8
    assert float(success["mean"]) == pytest.approx(sum(r["success"] for r in scored) / 8)
    assert "| success | 8 |" in md.read_text() and "| success | 8 |" in err


def test_predict_batch_sample(capsys):
    code, rows, _ = run_json_lines(capsys, ["score", "predict-batch", str(DATA / "llm_predictions.jsonl"), "--quiet"])
    assert code == 0
    by_id = {r["id"]: r for r in rows}
    assert by_id["exact-fluents-and-statics"]["exact"]
    assert by_id["fluents-only-calls"]["fluent_exact"] and not by_id["fluents-only-calls"]["exact"]
    assert not by_id["bad-actions"]["actions_executable"]


def test_graph_batch_sample(capsys):
    code, rows, _ = run_json_lines(capsys, ["score", "graph", str(DATA / "graph_tasks.jsonl"), "--quiet", "--json"])
    assert code == 1
    summary = rows[-1]
    assert summary["summary"] and summary["errors"] == 1
    by_id = {r.get("id"): r for r in rows[:-1]}
    assert by_id["kitchen-json-actions"]["success"] and by_id["kitchen-other-bottles"]["success"]
    assert by_id["kitchen-closed-fridge"]["failed_step"] == 4


def test_graph_single_json_task(capsys, tmp_path):
    task = json.loads((DATA / "graph_tasks.jsonl").read_text().splitlines()[0])
    path = tmp_path / "task.json"
    path.write_text(json.dumps(task, indent=2))
    code, rows, _ = run_json_lines(capsys, ["score", "graph", str(path), "--quiet"])
    assert code == 0 and len(rows) == 1 and rows[0]["success"]


def test_summary_skips_missing_values():
    rows = summarize("plan", [{"success": True, "efficiency": 0.5}, {"success": False, "efficiency": None},
                              {"error": "bad"}])
    eff = next(r for r in rows if r["metric"] == "efficiency")
    succ = next(r for r in rows if r["metric"] == "success")
    assert (eff["n"], eff["mean"]) == (1, 0.5) and (succ["n"], succ["mean"]) == (2, 0.5)


def test_score_plan_command(capsys, tmp_path):
    plan = tmp_path / "model.txt"
    plan.write_text("```\n1. moveBlock(r, c2)\n2. moveBlock(p, c4)\n3. moveBlock(r, c1)\n4. moveBlock(y, c3)\n```\n")
    code = main(["score", "plan", "blocksworld", str(shipped_problem("blocksworld", "simple_problem_0")),
                 str(plan), "--gold", str(GOLD), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["success"] and data["efficiency"] == 1.0 and data["best_normalized_lcs"] == 1.0
    code = main(["score", "plan", "blocksworld", str(shipped_problem("blocksworld", "simple_problem_0")),
                 str(plan), "--no-optimal"])
    assert code == 0 and "not computed" in capsys.readouterr().out


def test_score_predict_command(capsys, tmp_path):
    actions, pred = tmp_path / "a.plan", tmp_path / "p.txt"
    actions.write_text("(moveBlock r c2)\n(moveBlock y c3)\n")
    pred.write_text("on(r, y)\n")
    code = main(["score", "predict", "blocksworld", str(shipped_problem("blocksworld", "simple_problem_0")),
                 str(actions), str(pred)])
    out = capsys.readouterr().out
    assert code == 0 and "ACTIONS NOT EXECUTABLE" in out and "first 1 step" in out


def test_missing_file_is_bad_input(capsys):
    code = main(["score", "plan", "blocksworld", str(shipped_problem("blocksworld", "simple_problem_0")),
                 "/nonexistent/plan.txt"])
    assert code == 2 and "cannot read" in capsys.readouterr().err
