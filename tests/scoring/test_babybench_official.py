"""Opt-in: pgt's LLM-BabyBench scores equal the official evaluators', item by item.

Runs where a snapshot of choukrani/llm-babybench (``PGT_BABYBENCH_REPO``, default the
fetched mirror) and a Python with minigrid for it (``PGT_BABYBENCH_PYTHON``) are
present; skips cleanly elsewhere. ``benchmarks/bench_babybench.py`` runs the
same comparison on more levels and seeds and prints the table of docs/scoring.md.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest.importorskip("minigrid")

from benchmarks import bench_babybench as bb  # noqa: E402

if not (Path(bb.DEFAULT_REPO).is_dir() and os.access(bb.DEFAULT_PYTHON, os.X_OK)):
    pytest.skip("needs an llm-babybench snapshot and its Python (PGT_BABYBENCH_REPO, PGT_BABYBENCH_PYTHON)",
                allow_module_level=True)


def test_pgt_equals_the_official_evaluators_item_by_item(tmp_path):
    code = bb.checkout(bb.DEFAULT_REPO, tmp_path)
    specs = ["predict:BabyAI-GoToLocal-v0:1-2", "predict:BabyAI-PutNextLocal-v0:1-1",
             "plan:CustomBabyAI-GoToRedBall-Small-5Dists-v0:1-2", "plan:CustomBabyAI-GoToRedBall-Medium-20Dists-v0:1-1",
             "decompose:BabyAI-GoToObj-v0:1-2", "decompose:BabyAI-PickupLoc-v0:1-1"]
    items, ours, theirs, _, _ = bb.run(bb.DEFAULT_PYTHON, code, specs)
    assert len(items) > 40 and {i["task"] for i in items} == {"predict", "plan", "decompose"}
    assert bb.compare(items, ours, theirs) == []
    assert any("error" in t for t in theirs) and any(t.get("CR") == 1 for t in theirs)
