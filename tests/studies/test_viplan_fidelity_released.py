"""``pgt fidelity --released``: a simulated split none of whose episodes finished is an error, not a crash."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.viplan_fidelity import finished, recorded
from tests.studies.test_viplan_fidelity_episodes import CALIBRATION, _released
from toolkit.errors import PgtError


def _error_record(i: int) -> dict:
    return {"schema": 1, "id": f"simple/simple_problem_0/seed{i}", "split": "simple", "problem": "simple_problem_0",
            "seed": i,
            "outcome": "error", "error": "AttributeError: boom"}


def test_a_split_whose_episodes_all_failed_is_one_line_naming_it(tmp_path: Path) -> None:
    study = tmp_path / "out" / "run" / "simple"
    study.mkdir(parents=True)
    (study / "episodes.jsonl").write_text("".join(json.dumps(_error_record(i)) + "\n" for i in range(3)),
                                          encoding="utf-8")
    with pytest.raises(PgtError, match=r"simple: no simulated episode finished \(3 errors, the first: "
                                       r"AttributeError: boom\); run the same command again"):
        finished(study)
    released = _released(tmp_path / "released", {"simple_problem_0": 3})
    (study.parent / "released.json").write_text(json.dumps({"released": str(released),
                                                            "calibration": str(CALIBRATION),
                                                            "splits": ["simple"]}), encoding="utf-8")
    with pytest.raises(PgtError, match="no simulated episode finished"):  # the table reports it the same way
        recorded(tmp_path / "out")
