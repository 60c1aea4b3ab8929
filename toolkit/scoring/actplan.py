"""ActPlan-1K's LCS exactly as its own script computes it, and its batch over the annotation folders.

The reference is the code (HKUST-KnowComp/ActPlan-1K), not the paper's sentence:

* ``auto_lcs/lcs.py``, ``calculate_len``: a plan's steps are ``text.split("\\n")``, so a
  trailing newline makes an empty last step, blank lines are steps and numbering is
  kept; ``is_similar``: two steps match when the cosine similarity of their
  all-MiniLM-L6-v2 embeddings is **>= 0.8** (the paper says "greater than");
  ``lcs``: the longest common subsequence under that match; the normalised value is
  ``lcs / max(m, n)``.
* ``auto_lcs/generate_sentence_pair.py`` and ``generate_sentence_pair_gemini.py``: the
  candidate of a folder is its ``plan_<model>.txt``; the reference is
  ``plan_gold_1.txt`` for GPT-4V and Claude and ``plan_gold_2.txt`` for Gemini
  (``auto_lcs/readme.md``); **when the gold file is missing, the candidate itself** is
  the reference (so that folder scores 1.0). Files are read in text mode, so ``\\r\\n``
  is ``\\n``.

This is ``--metric actplan``. pgt's own variant, which reads numbered and bulleted
steps and drops blank lines (:func:`toolkit.scoring.semantic.step_texts`), is
``--metric semantic``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from toolkit.errors import PgtError

THRESHOLD = 0.8  # auto_lcs/lcs.py, is_similar: cosine_score >= 0.8

# The gold file each model's plans are paired with (generate_sentence_pair*.py, auto_lcs/readme.md).
OFFICIAL_GOLD = {
    "gpt-4v": "plan_gold_1.txt",
    "claude_v3_haiku": "plan_gold_1.txt",
    "claude_v3_sonnet": "plan_gold_1.txt",
    "gemini": "plan_gold_2.txt",
}


def official_steps(text: str) -> list[str]:
    """The steps ``lcs.py`` sees: the text split on ``"\\n"``, nothing dropped.

    >>> official_steps("1. walk\\n2. open\\n")
    ['1. walk', '2. open', '']
    """
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def official_lcs_length(x: Sequence[str], y: Sequence[str], similar: Callable[[int, int], bool]) -> int:
    """``lcs.py``'s ``lcs(X, Y, m, n, dp)``: match the last steps when similar, else the better of dropping one.

    Written as the same recurrence filled bottom-up (the script's memoised recursion
    overflows Python's stack on long plans, the answer is the same).

    >>> official_lcs_length("abc", "axc", lambda i, j: "abc"[i] == "axc"[j])
    2
    """
    m, n = len(x), len(y)
    dp = [[0] * (n + 1) for _ in range(m + 1)]
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            dp[i][j] = dp[i - 1][j - 1] + 1 if similar(i - 1, j - 1) else max(dp[i][j - 1], dp[i - 1][j])
    return dp[m][n]


@dataclass(frozen=True)
class OfficialLcs:
    lcs: int
    normalized: float
    candidate_steps: int
    reference_steps: int

    def to_json(self) -> dict[str, Any]:
        return {"lcs": self.lcs, "normalized_lcs": self.normalized,
                "candidate_steps": self.candidate_steps, "reference_steps": self.reference_steps}


def official_lcs(candidate: str, reference: str, model: str | Path | None = None,
                 threshold: float = THRESHOLD) -> OfficialLcs:
    """LCS and normalised LCS of two plan texts as ``calculate_len`` computes them."""
    from toolkit.scoring.semantic import similarity

    x, y = official_steps(candidate), official_steps(reference)
    sim = similarity(x, y, model)
    length = official_lcs_length(x, y, lambda i, j: sim[i][j] >= threshold)
    return OfficialLcs(length, length / max(len(x), len(y)), len(x), len(y))


@dataclass(frozen=True)
class Pair:
    """One (candidate, reference) pair of the annotation layout."""

    folder: Path
    model: str
    candidate: Path
    reference: Path  # the candidate itself when the gold file is missing
    gold_missing: bool


def annotation_pairs(root: str | Path, models: Sequence[str], gold_file: str | None = None) -> Iterator[Pair]:
    """The pairs ``generate_sentence_pair*.py`` write, over ``annotation/<scene>/<activity>/<n>/sample_*/``.

    Every folder under ``root`` holding ``plan_<model>.txt`` gives one pair (``os.walk``, here
    in sorted order); ``gold_file`` overrides the official pairing (needed for models the
    scripts do not name, such as ``gemini_text_only``).
    """
    base = Path(root)
    if not base.is_dir():
        raise PgtError(f"{root}: not a folder (expected the dataset's annotation/ folder)")
    for model in models:
        gold = gold_file or OFFICIAL_GOLD.get(model)
        if gold is None:
            raise PgtError(f"no official gold file for model {model!r} (the scripts pair "
                           f"{', '.join(sorted(OFFICIAL_GOLD))}); pass --gold-file plan_gold_1.txt or plan_gold_2.txt")
    found = False
    for current, dirs, files in os.walk(base):
        dirs.sort()
        for model in models:
            name = f"plan_{model}.txt"
            if name not in files:
                continue
            found = True
            gold = gold_file or OFFICIAL_GOLD[model]
            here = Path(current)
            missing = gold not in files
            yield Pair(here, model, here / name, here / name if missing else here / gold, missing)
    if not found:
        raise PgtError(f"{root}: no plan_<model>.txt for {', '.join(models)} in any folder below it")


def read_plan(path: Path) -> str:
    """A plan file as the scripts read it: ``open()`` in text mode, so UTF-8 with universal newlines."""
    try:
        return path.read_bytes().decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    except OSError as exc:
        raise PgtError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise PgtError(f"{path}: not UTF-8 text (byte {exc.start})") from None


def score_pairs(pairs: Sequence[Pair], score: Callable[[str, str], dict[str, Any]]) -> list[dict[str, Any]]:
    """One record per pair: folder, model, files, and what ``score(candidate, reference)`` gives."""
    out = []
    for p in pairs:
        rec = {"folder": str(p.folder), "model": p.model, "candidate": p.candidate.name,
               "reference": p.reference.name, "gold_missing": p.gold_missing}
        rec.update(score(read_plan(p.candidate), read_plan(p.reference)))
        out.append(rec)
    return out
