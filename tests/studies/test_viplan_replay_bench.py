"""The replay benchmark accumulates: a finished group is kept under ``--out`` and reused, never redone.

Replaying the whole ViPlan release takes hours on two cores, so it is measured over
several sessions into one folder. These tests run the benchmark on the miniature
ViPlan clone (one grounder and one planner run) and pin that each finished group
is kept with the engines it was measured with, that a rerun reuses it (and
measures nothing), that a row measured with other engines is measured again, and
that ``--budget-minutes`` leaves groups for a later rerun and says so.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("unified_planning")
pytest.importorskip("up_fast_downward")

from benchmarks import bench_viplan_replay as bench  # noqa: E402

CLONE = Path(__file__).resolve().parent / "data" / "viplan_clone"


def _run(capsys, out: Path, *extra: str) -> str:
    assert bench.main(["--viplan", str(CLONE), "--out", str(out), "--list", "0",
                       "--plan-cache", str(out / "plans.sqlite"), *extra]) == 0
    return capsys.readouterr().out


def _refuse(*_args, **_kwargs):
    raise AssertionError("a kept group must not be measured again")


def test_groups_are_kept_and_reused(tmp_path, capsys, monkeypatch):
    first = _run(capsys, tmp_path)
    rows = sorted((tmp_path / "rows").glob("*.json"))
    assert [p.stem for p in rows] == ["blocksworld-viplan-grounder-cot-TestVLM",
                                      "blocksworld-viplan-planner-cot-TestVLM"]
    kept = json.loads(rows[0].read_text())
    assert kept["episodes"] >= 1 and kept["engines"].startswith("up-oneshot unified-planning==")
    totals = first[first.index("Totals"):]

    monkeypatch.setattr(bench, "measure", _refuse)
    again = _run(capsys, tmp_path)
    assert again.count("[kept]") == 2 and again[again.index("Totals"):] == totals

    # a row measured with other engines is not this measurement: that group is measured again
    stale = json.loads(rows[1].read_text())
    rows[1].write_text(json.dumps({**stale, "engines": "up-oneshot up-fast-downward==0.0.1"}))
    measured = []
    monkeypatch.setattr(bench, "measure", lambda group, *a: measured.append(group) or bench.Row(**{
        k: v for k, v in stale.items() if k != "engines"}))
    third = _run(capsys, tmp_path)
    assert [g[1] for g in measured] == ["viplan-planner"] and third.count("[kept]") == 1
    assert json.loads(rows[1].read_text())["engines"] == kept["engines"]


def test_a_budget_leaves_groups_for_a_rerun(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(bench, "measure", _refuse)
    text = _run(capsys, tmp_path, "--budget-minutes", "0")
    assert "2 of 2 selected groups not measured yet" in text and f"--out {tmp_path}" in text
    assert not (tmp_path / "rows").exists()


def test_a_row_measured_with_other_replay_code_is_measured_again(tmp_path, capsys, monkeypatch):
    """A fix to the replay (importer, replayed world, protocol) makes every kept row stale, with no manual step."""
    first = _run(capsys, tmp_path)
    rows = sorted((tmp_path / "rows").glob("*.json"))
    kept = json.loads(rows[0].read_text())
    assert kept["code"] == bench.replay_code_digest() and len(kept["code"]) == 16
    rows[0].write_text(json.dumps({**kept, "code": "0" * 16}))
    measured = []
    monkeypatch.setattr(bench, "measure", lambda group, *a: measured.append(group) or bench.Row(**{
        k: v for k, v in kept.items() if k not in ("engines", "code")}))
    again = _run(capsys, tmp_path)
    assert [g[1] for g in measured] == ["viplan-grounder"] and again.count("[kept]") == 1
    assert json.loads(rows[0].read_text())["code"] == bench.replay_code_digest()
    # the table: one line per protocol x domain with the groups measured of those selected
    table = again[again.index("Totals"):]
    assert "viplan-grounder blocksworld     1/1" in table and "viplan-planner  blocksworld     1/1" in table
    assert "every protocol  all             2/2" in table


def test_a_bddl_path_that_is_no_folder_is_refused_in_one_line(tmp_path, capsys):
    # a missing snapshot would otherwise read no hidden state yet key the rows as if it had ("+bddl")
    with pytest.raises(SystemExit) as stop:
        bench.main(["--viplan", str(tmp_path), "--bddl", str(tmp_path / "missing"), "--out", str(tmp_path / "out")])
    assert stop.value.code == 2
    assert f"--bddl {tmp_path / 'missing'}: no such folder" in capsys.readouterr().err
