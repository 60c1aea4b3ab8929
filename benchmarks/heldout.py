"""Held-out IPC problems for the speed benchmarks: files read from a git mirror of a public
collection, never from the shipped sample, and the machine load printed beside each figure.

The mirrors are bare git repositories (``fetch`` of aibasel/downward-benchmarks or
AI-Planning/classical-domains, e.g. /work/.mirror/aibasel+downward-benchmarks/repo); a file is
read with ``git show`` into a temporary folder. Timings on a shared machine are noisy, so every
benchmark that imports this measures pgt and its peer interleaved, in the same run, and reports
medians and ratios.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

DOWNWARD_BENCHMARKS = Path("/work/.mirror/aibasel+downward-benchmarks/repo")
CLASSICAL_DOMAINS = Path("/work/.mirror/AI-Planning+classical-domains/repo")


def load_text() -> str:
    """``load 1.23 (2 cores)``: the 1-minute load average, to print with each figure."""
    try:
        one = os.getloadavg()[0]
    except OSError:
        return "load unknown"
    return f"load {one:.2f} ({os.cpu_count()} cores)"


def mirror_file(git_dir: Path, path: str, into: Path) -> Path:
    """``path`` of the mirror's HEAD, written under ``into`` (same relative path); raises SystemExit if absent."""
    target = into / path
    if not target.exists():
        done = subprocess.run(["git", "--git-dir", str(git_dir), "show", f"HEAD:{path}"], capture_output=True)
        if done.returncode != 0:
            raise SystemExit(f"{path} is not in the mirror {git_dir}: {done.stderr.decode().strip()} "
                             "(fetch github:aibasel/downward-benchmarks or github:AI-Planning/classical-domains)")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(done.stdout)
    return target


def mirror_pair(git_dir: Path, domain: str, problem: str, into: Path) -> tuple[Path, Path]:
    return mirror_file(git_dir, domain, into), mirror_file(git_dir, problem, into)


def with_goal(problem_text: str, goal: str) -> str:
    """The problem text with its ``(:goal ...)`` replaced by ``goal`` (e.g. a static fact of :init, so
    that random walks are valid plans and are checked to their end)."""
    start = re.search(r"\(\s*:goal\b", problem_text, re.I)
    if start is None:
        raise ValueError("no (:goal ...) section")
    depth, i = 0, start.start()
    while True:
        c = problem_text[i]
        depth += c == "("
        depth -= c == ")"
        i += 1
        if depth == 0:
            break
    return problem_text[:start.start()] + f"(:goal {goal})" + problem_text[i:]
