"""The ``pgt`` console script's entry point: Ctrl-C at any moment ends in exit 130 and one line.

The script that pip generates runs ``from MODULE import main`` before anything of ours can
catch an interrupt, so a Ctrl-C while :mod:`toolkit.cli` and its imports load printed a
``KeyboardInterrupt`` traceback. This module imports nothing but :mod:`sys` and :mod:`signal`,
which the interpreter has already loaded, so that window is gone; the rest of the start-up
happens inside :func:`main`'s handler.
"""

from __future__ import annotations

import signal
import sys


def answer_sigint() -> None:
    """Make SIGINT raise ``KeyboardInterrupt`` even where ``pgt`` was started with it ignored.

    A shell without job control (any ``sh -c``, script, CI step or test harness) starts a
    background command (``pgt run ... &``) with SIGINT ignored, and Python then installs no
    handler: ``kill -INT`` was ignored, so a study ran on to its end, ``pgt plan`` to its time
    limit (exit 1), ``pgt validate`` and ``solve-all`` to exit 0 (issue 27). A SIGINT sent to
    ``pgt`` is a request to stop it, whoever sends it. A handler a host program installed
    (``main`` called in-process) is left alone; so is any thread but the main one, where
    signals cannot be set.
    """
    try:
        if signal.getsignal(signal.SIGINT) in (signal.SIG_IGN, signal.SIG_DFL, None):
            signal.signal(signal.SIGINT, signal.default_int_handler)
    except ValueError:  # not the main thread
        pass


def main() -> int:
    """Import the command line and run it; an interrupt while importing is reported like one while running."""
    answer_sigint()
    try:
        from toolkit.cli import main as run
    except KeyboardInterrupt:
        print("pgt: interrupted", file=sys.stderr)
        return 130
    return run()


if __name__ == "__main__":  # python -m toolkit.entry, the same as the pgt script
    sys.exit(main())
