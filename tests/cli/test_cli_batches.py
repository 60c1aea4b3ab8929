"""One contract over every batch command: a bad line becomes an error record and the batch goes on.

``validate-batch``, ``score predict-batch``, ``score plan-batch`` and ``score graph``
each read a file of one JSON record per line. Whatever one line holds (JSON nested
thousands deep, an array, a string, fields of the wrong type, text that is not JSON),
the output has one record per non-blank input line in order, the bad ones carry their
line number and a message, the good ones are scored as usual, and the exit code is 1.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolkit.cli import main
from toolkit.domains import DOMAINS_ROOT

DATA = Path(__file__).resolve().parents[1] / "scoring" / "data"
PROBLEM = str(DOMAINS_ROOT / "blocksworld" / "problems" / "simple_problem_0.pddl")
PLAN = (DOMAINS_ROOT / "blocksworld" / "golden" / "valid" / "simple_problem_0.plan").read_text()
GRAPH_TASK = (DATA / "graph_tasks.jsonl").read_text().splitlines()[0]

GOOD = {
    "validate-batch": json.dumps({"id": "good", "domain": "blocksworld", "problem": PROBLEM, "plan": PLAN}),
    "plan-batch": json.dumps({"id": "good", "domain": "blocksworld", "problem": PROBLEM, "plan": PLAN}),
    "predict-batch": json.dumps({"id": "good", "domain": "blocksworld", "problem": PROBLEM, "actions": PLAN,
                                 "prediction": "(clear r)"}),
    "graph": GRAPH_TASK,
}
BAD_FIELDS = {
    "validate-batch": {"id": "fields", "domain": 5, "problem": ["x"], "plan": {"a": 1}},
    "plan-batch": {"id": "fields", "domain": "blocksworld", "problem": PROBLEM, "plan": 3, "gold": 7},
    "predict-batch": {"id": "fields", "domain": "blocksworld", "problem": PROBLEM, "actions": {"x": 1},
                      "prediction": 12},
    "graph": {"id": "fields", "initial": "kitchen", "goal": [1, 2], "plan": 3.5},
}
ARGV = {
    "validate-batch": ["validate-batch"],
    "plan-batch": ["score", "plan-batch", "--no-optimal", "--quiet"],
    "predict-batch": ["score", "predict-batch", "--quiet"],
    "graph": ["score", "graph", "--quiet"],
}


@pytest.mark.parametrize("kind", list(ARGV))
def test_a_bad_line_is_an_error_record_and_the_batch_goes_on(kind: str, tmp_path: Path, capsys) -> None:
    lines = [GOOD[kind], "[" * 20_000 + "]" * 20_000, json.dumps([1, 2]), json.dumps("text"), "null",
             json.dumps(BAD_FIELDS[kind]), "{not json", "", GOOD[kind]]
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code = main([*ARGV[kind], str(path)])
    out, err = capsys.readouterr()
    assert code == 1 and "Traceback" not in err
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["line"] for r in records] == [1, 2, 3, 4, 5, 6, 7, 9]
    key = "message" if kind == "validate-batch" else "error"

    def failed(r: dict) -> bool:
        return r.get("reason") == "bad_input" if kind == "validate-batch" else "error" in r

    assert not failed(records[0]) and not failed(records[-1])
    for r in records[1:-1]:
        assert failed(r) and r[key].startswith(f"line {r['line']}: "), r
    assert "nested too deeply" in records[1][key]
