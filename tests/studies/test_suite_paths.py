"""``--suite PATH`` that names no folder of problems: one line that says what is wrong with the path.

Before, a path was split at its first ``/`` and read as a shipped suite's name, so
``--suite /data/blocksworld/problems/simple`` said ``unknown suite ''``, and a folder
holding only ``domain.pddl`` (ViPlan's ``igibson/``) ran a study of 0 episodes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.suites import resolve_suite
from toolkit.domains import shipped_domain
from toolkit.errors import PgtError


@pytest.fixture
def viplan_like(tmp_path: Path) -> Path:
    """ViPlan's layout: the domain beside split folders, no problem at the top."""
    (tmp_path / "domain.pddl").write_text(shipped_domain("blocksworld").read_text())
    for split in ("simple", "hard"):
        (tmp_path / split).mkdir()
        (tmp_path / split / "p1.pddl").write_text("(define (problem p1) (:domain blocksworld))")
    return tmp_path


def test_a_missing_folder_is_named(tmp_path: Path) -> None:
    with pytest.raises(PgtError, match=r"no such folder") as err:
        resolve_suite(str(tmp_path / "problems" / "simple"))
    assert "unknown suite ''" not in str(err.value)


def test_a_folder_with_only_a_domain_points_to_the_split_folders(viplan_like: Path) -> None:
    with pytest.raises(PgtError, match=r"no \.pddl problem files .*hard, simple"):
        resolve_suite(str(viplan_like))


def test_a_file_is_not_a_folder(viplan_like: Path) -> None:
    with pytest.raises(PgtError, match=r"not a folder"):
        resolve_suite(str(viplan_like / "domain.pddl"))


def test_a_split_folder_still_resolves(viplan_like: Path) -> None:
    (split,) = resolve_suite(str(viplan_like / "hard"))
    assert split.name == "hard" and [p.name for p in split.problems] == ["p1.pddl"]


def test_a_misspelt_shipped_suite_still_gets_did_you_mean() -> None:
    with pytest.raises(PgtError, match=r"did you mean viplan-bw"):
        resolve_suite("viplan-bww")
