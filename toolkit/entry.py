"""The ``pgt`` console script's entry point: Ctrl-C at any moment ends in exit 130 and one line.

The script that pip generates runs ``from MODULE import main`` before anything of ours can
catch an interrupt, so a Ctrl-C while :mod:`toolkit.cli` and its imports load printed a
``KeyboardInterrupt`` traceback. This module imports nothing but :mod:`sys`, which the
interpreter has already loaded, so that window is gone; the rest of the start-up happens
inside :func:`main`'s handler.
"""

from __future__ import annotations

import sys


def main() -> int:
    """Import the command line and run it; an interrupt while importing is reported like one while running."""
    try:
        from toolkit.cli import main as run
    except KeyboardInterrupt:
        print("pgt: interrupted", file=sys.stderr)
        return 130
    return run()
