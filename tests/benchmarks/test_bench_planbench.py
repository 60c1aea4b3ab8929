"""bench_planbench on a PlanBench-shaped snapshot written here (three replies, two verdicts each way).

The real snapshot is fetched, never shipped; this checks that the script imports without
it, says what it needs, and reads a snapshot's layout (config, instances, results) into
the per-dataset table and its disagreement classes.
"""

from __future__ import annotations

import json

from benchmarks import bench_planbench
from toolkit.domains import domain_dir

CONFIG = """domain_file: blocksworld/generated_domain.pddl
instance_dir: blocksworld/generated_basic
instances_template: instance-{}.pddl
actions:
  {pick-up: "pick up the {}", put-down: "put down the {}", stack: "stack the {} on top of the {}",
   unstack: "unstack the {} from on top of the {}"}
encoded_objects: {"a": "red block", "b": "blue block", "c": "orange block", "d": "yellow block"}
encoded_objects_compact: {"a": "red", "b": "blue", "c": "orange", "d": "yellow"}
"""
GOOD = ("1. Unstack orange from red\n2. Put down the orange block on the table\n3. Pick up blue\n"
        "4. Stack blue on top of orange\n5. Pick up red\n6. Stack red on top of blue\n\n### Summary:\n"
        "1. Unstack orange from red\n2. Put down orange\n3. Pick up blue\n4. Stack blue on top of orange\n"
        "5. Pick up red\n6. Stack red on top of blue")
PLAN = "(unstack c a)\n(put-down c)\n(pick-up b)\n(stack b c)\n(pick-up a)\n(stack a b)\n"


def snapshot(root) -> None:
    base = root / "llm_planning_analysis"
    (base / "configs").mkdir(parents=True)
    (base / "configs" / "blocksworld.yaml").write_text(CONFIG)
    inst = base / "instances" / "blocksworld"
    (inst / "generated_basic").mkdir(parents=True)
    (inst / "generated_domain.pddl").write_text((domain_dir("blocksworld-4ops") / "domain.pddl").read_text())
    (inst / "generated_basic" / "instance-1.pddl").write_text(
        (domain_dir("blocksworld-4ops") / "problems" / "bw4-3.pddl").read_text())
    results = base / "results" / "blocksworld" / "some-model"
    results.mkdir(parents=True)
    records = [
        {"instance_id": 1, "llm_raw_response": GOOD, "extracted_llm_plan": PLAN, "llm_correct": True},
        # PlanBench read the plan and its summary as one plan: incorrect; pgt reads it once
        {"instance_id": 1, "llm_raw_response": GOOD, "extracted_llm_plan": PLAN * 2, "llm_correct": False},
        {"instance_id": 1, "llm_raw_response": "1. Put down the mauve block", "extracted_llm_plan": "",
         "llm_correct": True},
    ]
    (results / "task_1_plan_generation.json").write_text(json.dumps({"instances": records}))


def test_the_table_and_the_disagreement_classes(tmp_path, capsys) -> None:
    snapshot(tmp_path / "snap")
    assert bench_planbench.main(["--planbench", str(tmp_path / "snap"), "--show", "1"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("blocksworld "))
    assert row.split()[-5:] == ["3", "2", "1", "50.0%", "33.3%"]
    assert "1  correct, pgt: unparseable_step" in out
    assert "1  incorrect, pgt valid: PlanBench read the plan and its restatement as one" in out
    assert "# english replies: 2 restate their plan (read once), 0 correct it" in out


def test_without_a_snapshot_it_says_what_it_needs(monkeypatch, capsys) -> None:
    monkeypatch.delenv("PGT_PLANBENCH", raising=False)
    assert bench_planbench.main([]) == 2
    assert "give --planbench DIR" in capsys.readouterr().err
