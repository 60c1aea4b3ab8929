"""The per-user folder where pgt keeps what is worth keeping between runs (Lark's built parser, planner answers)."""

from __future__ import annotations

import os


def user_cache_dir() -> str:
    """``$PGT_CACHE_DIR``, else ``$XDG_CACHE_HOME/pgt``, else ``~/.cache/pgt``."""
    return os.environ.get("PGT_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "pgt")
