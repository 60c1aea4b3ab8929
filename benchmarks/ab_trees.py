"""Two source trees measured in alternating child processes: the harness of the ``bench_ab_*`` scripts.

Why: on a machine shared with other jobs only runs interleaved in time compare, and a tree's figures
must come from its own code. Each round runs the script once per tree, before then after, as a child
process whose ``PYTHONPATH`` is that tree (the script is run by path, so a tree older than the script
still serves; the child part of a script must import nothing this module's tree alone has).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path


def checked_trees(prog: str, *trees: Path) -> None:
    """Refuse, naming it, a folder that holds no checkout of the project."""
    for tree in trees:
        if not (Path(tree) / "toolkit").is_dir():
            raise SystemExit(f"{prog}: {tree}: no toolkit/ there (a checkout of the project)")


def alternate(script: str, before: Path, after: Path, rounds: int,
              child_args: list[str]) -> Iterator[tuple[int, str, subprocess.CompletedProcess]]:
    """``(round, "before" | "after", the finished child)`` for each round and tree, in the order they ran.

    The child is ``python SCRIPT --child CHILD_ARGS...`` in the tree's folder with the tree first on the path.
    """
    for k in range(1, rounds + 1):
        for side, tree in (("before", before), ("after", after)):
            root = str(Path(tree).resolve())
            env = {**os.environ, "PYTHONPATH": root}
            yield k, side, subprocess.run([sys.executable, str(Path(script).resolve()), "--child", *child_args],
                                          cwd=root, env=env, capture_output=True, text=True)
