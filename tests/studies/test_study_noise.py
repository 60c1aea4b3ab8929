"""A study's noise model: chosen by flag or calibration, recorded, a result field, kept on resume."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from benchmarks.runner import run_study
from benchmarks.store import read_records
from benchmarks.study_config import RunConfig
from toolkit.cli import main
from toolkit.errors import PgtError

BW = Path(__file__).resolve().parents[2] / "pddl_domains" / "blocksworld" / "problems"
CAL = "viplan-bw-cot-internvl3-8b"


def cfg(**kw) -> RunConfig:
    base = dict(suite=str(BW), domain="blocksworld", grounder="noisy", accuracy=0.9, seeds=1, problems=2)
    base.update(kw)
    return RunConfig(**base)


def test_the_config_records_the_resolved_model() -> None:
    assert cfg().noise == "independent" and cfg().label() == "viplan-grounder[acc=0.9]"
    calibrated = cfg(accuracy=None, calibration=CAL)
    assert calibrated.noise == "deterministic"  # the new default for calibrated studies
    assert calibrated.label() == f"viplan-grounder[cal={CAL},noise=deterministic]"
    assert cfg(persistence=0.5).noise == "independent:persistence=0.5"
    assert cfg(noise="independent:persistence=0.5").persistence == 0.5  # one value, two spellings
    assert RunConfig.from_dict(cfg(noise="scene").to_dict()) == cfg(noise="scene")
    assert "noise" in cfg().result_fields()
    assert cfg(grounder="oracle").noise is None
    with pytest.raises(PgtError, match="--noise deterministic: only for --grounder noisy"):
        cfg(grounder="vlm", model="m", noise="deterministic")


def test_configs_recorded_before_noise_models_resume_as_independent() -> None:
    old = cfg(accuracy=None, calibration=CAL, persistence=0.5).to_dict()
    del old["noise"]
    assert RunConfig.from_dict(old).noise == "independent:persistence=0.5"
    old["persistence"] = 0.0
    assert RunConfig.from_dict(old).noise == "independent"  # not the calibrated default it never ran under
    planner = cfg(protocol="viplan-planner", accuracy=None, plan_wrong=0.2).to_dict()
    del planner["noise"]
    assert RunConfig.from_dict(planner).noise is None  # the simulated planner has no grounder noise


def test_another_noise_model_is_another_study(tmp_path: Path) -> None:
    run_study(cfg(problems=1), tmp_path / "r", progress=False)
    with pytest.raises(PgtError, match=r"noise: 'independent' there, 'deterministic' now.*--noise independent"):
        run_study(cfg(problems=1, noise="deterministic"), tmp_path / "r", progress=False)


def test_legacy_study_folder_resumes_with_its_recorded_model(tmp_path: Path) -> None:
    out = tmp_path / "old"
    run_study(cfg(problems=1, calibration=CAL, accuracy=None, noise="independent"), out, progress=False)
    recorded = json.loads((out / "config.json").read_text())
    del recorded["noise"]  # as written before noise models existed
    (out / "config.json").write_text(json.dumps(recorded))
    run_study(cfg(problems=2, calibration=CAL, accuracy=None, noise="independent"), out, progress=False)
    assert len(read_records(out / "episodes.jsonl")) == 2


def test_deterministic_study_answers_a_repeated_question_the_same_way(tmp_path: Path) -> None:
    records = read_records(run_study(cfg(noise="deterministic", accuracy=0.8, problems=3), tmp_path / "d",
                                     progress=False))
    seen: dict[tuple[str, int, str], set[str]] = defaultdict(set)
    for rec in records:
        for e in rec["events"]:
            if "answer" in e:
                seen[(rec["id"], e["step"], e["atom"])].add(e["answer"])
    assert seen and all(len(answers) == 1 for answers in seen.values())


def test_cli_flag_and_its_errors(tmp_path: Path, capsys) -> None:
    common = ["run", "--suite", str(BW), "--domain", "blocksworld", "--problems", "1", "--quiet"]
    assert main([*common, "--accuracy", "0.9", "--noise", "scene:hard=0.2", "--out", str(tmp_path / "s")]) == 0
    assert json.loads((tmp_path / "s" / "config.json").read_text())["noise"] == "scene:hard=0.2,factor=3"
    capsys.readouterr()
    for extra, message in ((["--noise", "scenic"], "did you mean scene?"),
                           (["--noise", "deterministic", "--persistence", "0.5"], "already repeats every answer"),
                           (["--grounder", "oracle", "--noise", "deterministic"], "only for --grounder noisy")):
        assert main([*common, "--accuracy", "0.9", *extra, "--out", str(tmp_path / "bad")]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("pgt run: error:") and message in err and "\n" not in err


def test_compare_grid_runs_every_setting_under_the_chosen_model() -> None:
    import argparse

    from benchmarks.commands import compare_grid

    base = dict(suites="viplan-bw/simple", accuracies="0.95", calibrations=CAL, action_failures="0",
                persistence=0.0, seeds=1, problems=1)
    grid = compare_grid(argparse.Namespace(**base, noise="deterministic"))
    assert {cfg.noise for _, cfg in grid} == {"deterministic"} and len(grid) == 4
    default = {cfg.accuracy is None: cfg.noise for _, cfg in compare_grid(argparse.Namespace(**base))}
    assert default == {False: "independent", True: "deterministic"}  # accuracies / calibrations
