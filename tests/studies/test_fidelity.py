"""pgt fidelity: the statistics against hand-computed values, the paper data, and the command's table."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from benchmarks.fidelity import Estimate, combine, evaluate, judge, load_paper, paper_row, resolution_sem
from grounders.calibration import list_calibrations
from toolkit.cli import main
from toolkit.errors import PgtError


def test_a_split_at_zero_is_floored_at_one_success_in_n():
    assert resolution_sem(25) == pytest.approx(math.sqrt(0.04 * 0.96 / 25))  # 0.039192
    assert resolution_sem(25) == pytest.approx(0.039192, abs=1e-6)
    assert Estimate.of_split(0.0, 0.0, 25).sem == pytest.approx(0.039192, abs=1e-6)
    assert Estimate.of_split(0.48, 0.10, 25).sem == 0.10  # above the floor: as printed


def test_combined_over_splits_is_the_mean_with_eq2_sem():
    # Table 7, Qwen2.5-VL 72B CoT: 0.48 (0.10), 0.20 (0.08), 0.00 (0.00 -> floor 0.039192)
    c = combine([Estimate.of_split(0.48, 0.10, 25), Estimate.of_split(0.20, 0.08, 25), Estimate.of_split(0, 0, 25)])
    assert c.mean == pytest.approx(0.226667, abs=1e-6)
    assert c.sem == pytest.approx(math.sqrt(0.01 + 0.0064 + 0.001536) / 3)  # 0.044642
    assert c.sem == pytest.approx(0.044642, abs=1e-6)
    assert c.n == 75


def test_verdict_uses_the_root_sum_of_squared_sems():
    paper = Estimate(0.20, 0.08, 25)
    near = judge(Estimate(0.40, 0.10, 25), paper)  # se = sqrt(0.01 + 0.0064) = 0.128062, 2 se = 0.256125
    assert near.se == pytest.approx(0.128062, abs=1e-6)
    assert near.diff == pytest.approx(0.20)
    assert near.z == pytest.approx(1.561738, abs=1e-6)
    assert near.within
    far = judge(Estimate(0.60, 0.10, 25), paper)  # diff 0.40 > 0.256
    assert not far.within and far.z == pytest.approx(3.123475, abs=1e-6)
    low = judge(Estimate(0.0, 0.10, 25), Estimate(0.40, 0.08, 25))  # below the paper counts too
    assert not low.within and low.z < 0


def test_a_difference_of_exactly_two_se_is_within():
    edge = judge(Estimate(0.5, 0.15, 9), Estimate(0.0, 0.2, 9))  # se = 0.25, diff = 0.5 = 2 se
    assert edge.se == pytest.approx(0.25) and edge.within
    assert not judge(Estimate(0.5001, 0.15, 9), Estimate(0.0, 0.2, 9)).within


def records(outcomes: dict[str, list[bool]]) -> list[dict]:
    return [{"split": split, "success": ok, "answered": 10, "correct": 9}
            for split, oks in outcomes.items() for ok in oks]


def test_evaluate_by_hand_on_synthetic_episodes():
    # Table 9, InternVL3 8B no CoT: 0.00 (0.00), 0.00 (0.00), 0.04 (0.04)
    same = evaluate("viplan-hh-internvl3-8b", records({"simple": [False] * 5, "medium": [False] * 5,
                                                       "hard": [False] * 5}))
    assert same.row.citation == "Table 9, InternVL3 8B"
    assert all(v.within for v in same.splits.values()) and same.combined.within
    assert same.splits["simple"].simulated.sem == pytest.approx(0.178885, abs=1e-6)  # floor at n = 5
    off = evaluate("viplan-hh-internvl3-8b", records({"simple": [True] * 5, "medium": [False] * 5,
                                                      "hard": [False] * 5}))
    s = off.splits["simple"]  # diff 1.0 against 2 * hypot(0.178885, 0.039192) = 0.366
    assert not s.within and s.se == pytest.approx(0.183128, abs=1e-6)
    c = off.combined  # sim 1/3 (SEM 0.103280) vs paper 0.013333 (SEM 0.022784): diff 0.32 > 2 * 0.105763
    assert c.simulated.mean == pytest.approx(1 / 3) and c.simulated.sem == pytest.approx(0.103280, abs=1e-6)
    assert c.paper.mean == pytest.approx(0.013333, abs=1e-6) and c.paper.sem == pytest.approx(0.022784, abs=1e-6)
    assert c.se == pytest.approx(0.105763, abs=1e-6) and not c.within
    assert off.accuracy["simple"] == pytest.approx(0.9)


def test_a_split_without_episodes_is_a_clear_error():
    with pytest.raises(PgtError, match="no judged episodes on split"):
        evaluate("viplan-hh-internvl3-8b", records({"simple": [False]}))


@pytest.mark.parametrize("name", [n for n in list_calibrations() if not n.startswith("viplan-logs-")])
def test_every_shipped_calibration_has_its_paper_row(name):
    row = paper_row(name)
    assert row.table == (7 if row.domain == "blocksworld" else 9)
    assert name.startswith("viplan-bw-" if row.domain == "blocksworld" else "viplan-hh-")
    assert ("-cot-" in name) == row.chain_of_thought


def test_the_paper_data_matches_the_gaps_quoted_in_issue_16():
    rows = {(r.table, r.model, r.chain_of_thought): r for r in load_paper()}
    mean = lambda r: combine(list(r.success.values())).mean  # noqa: E731
    assert mean(rows[7, "Qwen2.5-VL 72B", True]) == pytest.approx(0.2267, abs=1e-4)  # "~0.23"
    assert mean(rows[9, "InternVL3 8B", False]) == pytest.approx(0.0133, abs=1e-4)  # "~0.01"
    assert mean(rows[9, "GPT-4.1", False]) == pytest.approx(0.0533, abs=1e-4)  # "~0.05"


def test_a_malformed_paper_file_names_the_row(tmp_path: Path):
    bad = tmp_path / "paper.toml"
    bad.write_text('[[row]]\ntable = 7\ndomain = "blocksworld"\nmodel = "X"\nchain_of_thought = false\n'
                   'success = { simple = [0.1, 0.1] }\n', encoding="utf-8")
    with pytest.raises(PgtError, match="row 1: needs"):
        load_paper(bad)


def test_a_calibration_without_a_paper_row_is_refused(tmp_path: Path):
    cal = tmp_path / "mine.toml"
    cal.write_text('model = "Nobody 1B"\ndomain = "blocksworld"\n[accuracy.simple]\non = 0.9\n', encoding="utf-8")
    with pytest.raises(PgtError, match="no row of ViPlan's success tables"):
        paper_row(str(cal))


ROW = re.compile(r"^\| (\S+) \| (simple|medium|hard) \| (\d+) \| ([\d.]+) \(([\d.]+)\) \| ([\d.]+) \(([\d.]+)\) "
                 r"\| ([+-][\d.]+|[+-]?inf) \| (yes|\*\*no\*\*) \| ([\d.]+) / ([\d.]+) \|$")


def test_the_command_prints_both_tables_and_writes_them(tmp_path: Path, capsys):
    out = tmp_path / "fid"
    assert main(["fidelity", "--calibrations", "viplan-bw-cot-gpt-4.1", "--problems", "1", "--workers", "1",
                 "--out", str(out), "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "| viplan-bw-cot-gpt-4.1 | Table 7, GPT-4.1 CoT | deterministic |" in text
    rows = [m for m in map(ROW.match, text.splitlines()) if m]
    assert [m.group(2) for m in rows] == ["simple", "medium", "hard"]
    for m in rows:  # one episode per split; the paper figures are Table 7's
        assert m.group(3) == "1" and m.group(4) in ("0.00", "1.00")
        assert m.group(7) in ("0.05", "0.09", "0.10")
    assert "within 2 SEM" in (out / "fidelity.md").read_text(encoding="utf-8")
    # resumable: the same command again reuses the finished episodes and prints the same table
    assert main(["fidelity", "--calibrations", "viplan-bw-cot-gpt-4.1", "--problems", "1", "--workers", "1",
                 "--out", str(out), "--quiet"]) == 0
    assert capsys.readouterr().out == text


@pytest.mark.parametrize("argv,match", [(["--calibrations", "viplan-bw-gpt4"], "did you mean"),
                                        (["--problems", "0"], "--problems"),
                                        (["--noise", "sceen"], "did you mean scene")])
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, capsys, argv, match):
    try:  # argparse's type errors exit; the command's own errors return the code
        code = main(["fidelity", *argv, "--out", str(tmp_path / "o")])
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and re.search(match, err) and "Traceback" not in err
    assert not (tmp_path / "o").exists()



def test_the_fit_keeps_the_default_unless_beaten_by_one_chi2_sd():
    from benchmarks.fit_noise import choose

    # k = 4 calibrations: sqrt(8) = 2.83; a gain of 0.53 is noise, one of 6 is evidence
    assert choose({"deterministic": 3.20, "scene:hard=0.15,factor=3": 2.67, "independent": 5.72}, 4) == "deterministic"
    assert choose({"deterministic": 9.0, "scene:hard=0.15,factor=3": 3.0}, 4) == "scene:hard=0.15,factor=3"
    assert choose({"deterministic": 5.84, "independent": 3.0}, 4) == "independent"  # 2.84 > 2.83


def test_writing_a_fitted_noise_table_replaces_the_old_one(tmp_path: Path):
    import shutil

    from benchmarks.fit_noise import write_noise
    from grounders.calibration import load_calibration, load_noise, resolve_calibration

    cal = tmp_path / "cal.toml"
    shutil.copy(resolve_calibration("viplan-hh-gpt-4.1"), cal)
    write_noise(str(cal), "scene:hard=0.2,factor=4", "first fit")
    write_noise(str(cal), "scene:hard=0.15,factor=3", "second fit")
    text = cal.read_text(encoding="utf-8")
    assert text.count("[noise]") == 1 and "first fit" not in text and "# fitted noise: second fit" in text
    assert load_noise(str(cal)).text == "scene:hard=0.15,factor=3"
    assert load_calibration(str(cal), "hard").rates("reachable") == load_calibration("viplan-hh-gpt-4.1", "hard").rates(
        "reachable")
