"""pgt compare: the paired grid, its report, and clear errors for bad settings."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from benchmarks.commands import compare_grid
from toolkit.cli import main
from toolkit.errors import PgtError


def args(**kw) -> argparse.Namespace:
    base = dict(suites="viplan-bw/simple", accuracies="0.95", calibrations="none", action_failures="0",
                persistence=0.0, seeds=1, problems=1, workers=1, out="x", quiet=True)
    base.update(kw)
    return argparse.Namespace(**base)


def test_the_grid_pairs_both_protocols_for_every_setting():
    grid = compare_grid(args(accuracies="0.9,0.97", calibrations="shipped", action_failures="0,0.1",
                             suites="viplan-bw,viplan-hh"))
    names = [n for n, _ in grid]
    assert len(names) == len(set(names))
    protocols = {cfg.protocol for _, cfg in grid}
    assert protocols == {"viplan-grounder", "pgt-grounder"}
    cals = {cfg.calibration for _, cfg in grid if cfg.calibration}
    assert cals and all(c.startswith(("viplan-bw-", "viplan-hh-")) for c in cals)
    for _, cfg in grid:  # each suite only gets its own calibrations
        if cfg.calibration:
            assert cfg.calibration.startswith(cfg.suite + "-")
    assert "viplan-bw-cal-viplan-bw-cot-gpt-4.1-fail0.1-pgt-grounder" in names


@pytest.mark.parametrize("bad,match", [(dict(calibrations="viplan-bw-gpt4"), "did you mean"),
                                       (dict(accuracies="0.9,high"), "numbers separated by commas"),
                                       (dict(action_failures="1.5"), r"must be in \[0, 1\]"),
                                       (dict(suites="viplan-xx"), "viplan-xx"),
                                       (dict(persistence=2.0), "persistence")])
def test_bad_settings_fail_before_anything_runs(bad, match):
    with pytest.raises(PgtError, match=match):
        compare_grid(args(**bad))


def test_compare_writes_a_paired_report(tmp_path: Path, capsys):
    rc = main(["compare", "--suites", "viplan-bw/simple", "--accuracies", "0.95", "--calibrations", "none",
               "--action-failures", "0", "--problems", "2", "--workers", "1", "--out", str(tmp_path), "--quiet"])
    assert rc == 0
    report = (tmp_path / "report" / "report.md").read_text()
    assert "## pgt-grounder against viplan-grounder" in report
    assert "| viplan-bw | acc=0.95 | 0 | simple |" in report
    for png in ("protocol_success.png", "protocol_questions.png", "success_vs_accuracy.png"):
        assert (tmp_path / "report" / png).stat().st_size > 1000
    assert main(["report", *map(str, sorted(tmp_path.glob("viplan-bw-*"))), "--out", str(tmp_path / "again")]) == 0
    again = (tmp_path / "again" / "report.md").read_text()
    assert again.split("\n\n| run |")[0] == report.split("\n\n| run |")[0]  # pgt report makes the same table


def test_demo_runs_both_protocols_and_reports_the_pairs(tmp_path: Path, capsys):
    assert main(["demo", "--problems", "1", "--accuracies", "0.95,1.0", "--workers", "1", "--out", str(tmp_path),
                 "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "| viplan-bw | acc=0.95 | 0 | combined |" in out and "| viplan-bw | acc=1.0 | 0 | combined |" in out
    assert main(["demo", "--accuracies", "0.9,x", "--out", str(tmp_path)]) == 2
