"""Opt-in: pgt's LoHoRavens reward trace equals the official pybullet environment's, step by step.

Runs with ``--runslow`` where a snapshot of Shengqiang-Zhang/LoHo-Ravens
(``PGT_LOHORAVENS_REPO``, default the fetched mirror) and a Python with its task code's
packages (``PGT_LOHORAVENS_PYTHON``: torch, kornia, meshcat, pybullet; see
docs/scoring.md) are present; skips cleanly elsewhere. The physics runs on the CPU at
a few seconds per pick-and-place, hence ``slow``. ``benchmarks/bench_lohoravens_official.py``
runs the same comparison over every family and prints the table of docs/scoring.md.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from benchmarks import bench_lohoravens_official as bl

if not (Path(bl.DEFAULT_REPO).is_dir() and os.access(bl.DEFAULT_PYTHON, os.X_OK)):
    pytest.skip("needs a LoHo-Ravens snapshot and its Python (PGT_LOHORAVENS_REPO, PGT_LOHORAVENS_PYTHON)",
                allow_module_level=True)

FAMILY = "put-hidden-blocks-in-two-layer-towers-into-matching-bowls"


@pytest.mark.slow
def test_the_official_oracle_and_a_reordering_score_as_pgt_scores_them(tmp_path):
    records = bl.run_official(bl.DEFAULT_PYTHON, bl.checkout(bl.DEFAULT_REPO, tmp_path), [FAMILY], [10001], 1,
                              timeout=1800)
    assert [r["order"] for r in records] == ["oracle", "reordered-1"]
    oracle = records[0]
    assert [s["max_reward"] for s in oracle["steps"]] == pytest.approx([0.02, 0.98])
    assert oracle["done"][-1] and oracle["official"][-1] == pytest.approx(1.0)
    rows = bl.compare(records)
    assert all(r["equal"] == r["steps"] > 0 and r["structure"] for r in rows), rows
