"""Noise models as data: text form, a calibration's [noise] table, which model a study gets."""

from __future__ import annotations

import pytest

from grounders import make_grounder
from grounders.calibration import load_noise
from grounders.noise import DETERMINISTIC, INDEPENDENT, NOISE_KINDS, NoiseModel, resolve_noise
from toolkit.domains import shipped_domain, shipped_problem
from toolkit.errors import PgtError
from toolkit.task import load_task

CALIBRATION = """model = "test"
source = "test"
[accuracy.simple]
clear = 0.9
"""


@pytest.mark.parametrize("text", ["independent", "independent:persistence=0.5", "deterministic",
                                  "deterministic:overconfidence=0.25", "scene:hard=0.1,factor=4",
                                  "scene:hard=0.15,factor=3,overconfidence=1"])
def test_text_round_trips(text: str) -> None:
    model = NoiseModel.parse(text)
    assert model.text == text and NoiseModel.parse(model.text) == model


def test_parse_fills_the_kind_defaults_and_normalises() -> None:
    assert NoiseModel.parse(" Scene : factor = 2 ").text == "scene:hard=0.15,factor=2"
    assert NoiseModel.parse("independent:persistence=0") == INDEPENDENT
    assert {NoiseModel.of(k).kind for k in NOISE_KINDS} == set(NOISE_KINDS)
    assert INDEPENDENT.deterministic is False and DETERMINISTIC.deterministic is True
    with pytest.raises(PgtError, match="'hard' is a parameter of scene only"):
        NoiseModel("deterministic", hard=0.2)  # built directly: still one model per text


@pytest.mark.parametrize("text,message", [
    ("determ", "unknown noise model 'determ'; did you mean deterministic?"),
    ("deterministic:persistence=0.5", "'persistence' is a parameter of independent only"),
    ("scene:hardness=0.1", "unknown parameter 'hardness'; did you mean hard?"),
    ("scene:hard=1.5", r"hard must be in \[0, 1\], got 1.5"),
    ("scene:factor=0.5", "factor must be at least 1"),
    ("independent:persistence", "expected NAME=VALUE"),
    ("independent:persistence=high", "persistence must be a number, got 'high'"),
    ("deterministic:overconfidence=nan", "overconfidence must be a number"),
])
def test_bad_text_says_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(PgtError, match=message):
        NoiseModel.parse(text)


def test_resolution_flag_then_calibration_table_then_defaults(tmp_path) -> None:
    plain = tmp_path / "plain.toml"
    plain.write_text(CALIBRATION)
    scene = tmp_path / "scene.toml"
    scene.write_text(CALIBRATION + '[noise]\nkind = "scene"\nhard = 0.2\n')
    assert resolve_noise().text == "independent"
    assert resolve_noise(calibration=plain) == DETERMINISTIC  # the temperature-0 default for calibrated runs
    assert resolve_noise(calibration=scene).text == "scene:hard=0.2,factor=3"
    assert resolve_noise("independent", calibration=scene) == INDEPENDENT  # the flag wins
    assert resolve_noise(calibration=scene, persistence=0.5).text == "independent:persistence=0.5"
    assert resolve_noise("independent:persistence=0.5", persistence=0.5).persistence == 0.5
    with pytest.raises(PgtError, match="contradicts"):
        resolve_noise("independent:persistence=0.5", persistence=0.4)
    with pytest.raises(PgtError, match="deterministic model already repeats every answer"):
        resolve_noise("deterministic", persistence=0.4)


@pytest.mark.parametrize("table,message", [
    ('[noise]\nhard = 0.2\n', r"\[noise\]: needs kind"),
    ('[noise]\nkind = "scene"\nhard = "lots"\n', r"\[noise\]: hard must be a number"),
    ('[noise]\nkind = "deterministic"\nhard = 0.2\n', r"\[noise\]: noise deterministic: 'hard' is a parameter of scene"),
    ('noise = "deterministic"\n', r"\[noise\]: a table with 'kind'"),
])
def test_bad_noise_tables_are_located(tmp_path, table: str, message: str) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(table + CALIBRATION if not table.startswith("[") else CALIBRATION + table)
    with pytest.raises(PgtError, match=r"bad.toml: " + message):
        load_noise(bad)


def test_make_grounder_uses_the_resolved_model() -> None:
    task = load_task(shipped_domain("blocksworld"), shipped_problem("blocksworld", "simple_problem_0"))
    assert make_grounder("noisy", task, accuracy=0.9).noise == INDEPENDENT
    assert make_grounder("noisy", task, calibration="viplan-bw-cot-gpt-4.1").noise == DETERMINISTIC
    assert make_grounder("noisy", task, accuracy=0.9, noise="scene").noise.kind == "scene"
    assert make_grounder("noisy", task, accuracy=0.9, persistence=0.3).noise.persistence == 0.3
