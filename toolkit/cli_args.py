"""Argument types shared by every ``pgt`` parser, so a bad flag fails before any work.

Each function here is an argparse ``type=``: it turns the flag's text into a value or
raises :class:`argparse.ArgumentTypeError`, which argparse prints as one line
``pgt CMD: error: argument --flag: ...`` and exits 2. Nothing here creates a file:
output checks look for the nearest existing folder and test that a file can be
created there (a temporary file, removed at once), so a refused command leaves
nothing behind. Checks that need two flags together stay in the command.

>>> count("3"), probability("0.5"), seconds("1.5")
(3, 0.5, 1.5)
>>> probabilities("0.9, 1")
[0.9, 1.0]
"""

from __future__ import annotations

import argparse
import errno
import math
import os
from collections.abc import Callable
from pathlib import Path

ArgumentTypeError = argparse.ArgumentTypeError


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ArgumentTypeError(f"expected a whole number, got {text!r}") from None


def int_at_least(minimum: int, maximum: int | None = None) -> Callable[[str], int]:
    """An integer type that refuses values below ``minimum`` (and above ``maximum``, where one is given)."""

    def parse(text: str) -> int:
        value = _int(text)
        if value < minimum:
            raise ArgumentTypeError(f"must be at least {minimum}, got {value}")
        if maximum is not None and value > maximum:
            raise ArgumentTypeError(f"must be at most {maximum:,}, got {value:,}")
        return value

    parse.__name__ = f"int>={minimum}"  # argparse names the type in some messages
    return parse


count = int_at_least(1)
"""A positive integer: problems, seeds, workers, steps, blocks."""

seeds = int_at_least(1, 10_000)
"""Seeds per problem: a study holds every episode's spec in memory, so a typo such as 10**11 must not
exhaust it (ViPlan's studies use 1 to 5)."""

non_negative = int_at_least(0)
"""An integer >= 0: seeds of random generators, lengths that may be zero."""


def seed(text: str) -> int:
    """Any integer (a seed may be negative; it only feeds a private RNG)."""
    return _int(text)


def _float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def seconds(text: str) -> float:
    """A time limit: a finite number of seconds above zero."""
    value = _float(text)
    if value <= 0:
        raise ArgumentTypeError(f"must be more than 0 seconds, got {text!r}")
    return value


def price(text: str) -> float:
    """A price: a finite number, 0 or more (USD per 1M tokens; 0 for a local endpoint)."""
    value = _float(text)
    if value < 0:
        raise ArgumentTypeError(f"must be 0 or more, got {text!r}")
    return value


def per_minute(text: str) -> float:
    """A rate limit: a finite number above zero (requests or tokens per minute)."""
    value = _float(text)
    if value <= 0:
        raise ArgumentTypeError(f"must be more than 0 per minute, got {text!r}")
    return value


def probability(text: str) -> float:
    """A probability or accuracy in [0, 1]."""
    value = _float(text)
    if not 0.0 <= value <= 1.0:
        raise ArgumentTypeError(f"must be in [0, 1], got {text!r}")
    return value


def probabilities(text: str) -> list[float]:
    """A non-empty comma-separated list of probabilities, e.g. ``0.9,0.95``."""
    parts = [p.strip() for p in text.split(",")]
    if not any(parts):
        raise ArgumentTypeError("expected one or more numbers in [0, 1] separated by commas, got an empty list")
    if not all(parts):
        raise ArgumentTypeError(f"empty item in the list {text!r}")
    try:
        return [probability(p) for p in parts]
    except ArgumentTypeError as exc:
        raise ArgumentTypeError(f"takes numbers separated by commas, each in [0, 1]: {exc}") from None


def names(text: str) -> str:
    """A non-empty comma-separated list of names (kept as text for the command to split)."""
    parts = [p.strip() for p in text.split(",")]
    if not any(parts) or not all(parts):
        raise ArgumentTypeError(f"expected names separated by commas, got {text!r}")
    return ",".join(parts)


def url(text: str) -> str:
    """An http(s) URL with a host, e.g. ``http://127.0.0.1:8000/v1``."""
    try:
        from urllib.parse import urlsplit  # imported when used: start-up of every command

        parts = urlsplit(text.strip())
        parts.port  # raises ValueError for a port that is not a number
    except ValueError as exc:
        raise ArgumentTypeError(f"not a valid URL {text!r}: {exc}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ArgumentTypeError(f"expected an http:// or https:// URL with a host, got {text!r}")
    return text.strip()


def non_empty(text: str) -> str:
    """A value that must not be blank (model names, prefixes)."""
    if not text.strip():
        raise ArgumentTypeError("must not be empty")
    return text


def input_file(text: str) -> str:
    """An existing readable file (not a folder); ``-`` (standard input) passes through."""
    if text == "-":
        return text
    if not text:
        raise ArgumentTypeError("empty file name")
    p = Path(text)
    # Pipes and devices are files too: ``<(cmd)`` process substitution, /dev/stdin.
    problem = (errno.EISDIR if p.is_dir() else errno.ENOENT if not p.exists()
               else None if os.access(p, os.R_OK) else errno.EACCES)
    if problem is not None:
        raise ArgumentTypeError(f"cannot read {text}: {os.strerror(problem)}")
    return text


def input_path(text: str) -> str:
    """An existing file or folder (run folders, domain folders)."""
    if not text:
        raise ArgumentTypeError("empty path")
    if not Path(text).exists():
        raise ArgumentTypeError(f"no such file or folder: {text}")
    return text


def _creatable_in(p: Path, text: str) -> None:
    """Refuse ``p`` unless its nearest existing ancestor is a folder we can create files in."""
    parent = p.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise ArgumentTypeError(f"cannot create {text}: {parent} is a file, not a folder")
    _probe_write(parent, str(parent))


def _probe_write(folder: Path, shown: str) -> None:
    """Refuse ``folder`` unless a file can be made in it (permission bits lie to root; a real write does not)."""
    try:
        import tempfile  # imported when used: start-up of every command

        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise ArgumentTypeError(f"cannot write in {shown}: {exc.strerror or exc}") from None


def output_dir(text: str) -> str:
    """A folder to write into: an existing writable folder, or one that can be created.

    Nothing is created here; the command creates it when it has something to write.
    """
    if not text:
        raise ArgumentTypeError("empty folder name")
    p = Path(text)
    if p.exists():
        if not p.is_dir():
            raise ArgumentTypeError(f"{text} is a file, expected a folder")
        _probe_write(p, text)
        return text
    _creatable_in(p, text)
    return text


def output_file(text: str) -> str:
    """A file to write: not a folder, in a folder that exists or can be created."""
    if not text:
        raise ArgumentTypeError("empty file name")
    p = Path(text)
    if p.is_dir():
        raise ArgumentTypeError(f"{text} is a folder, expected a file")
    if p.exists() and not os.access(p, os.W_OK):
        raise ArgumentTypeError(f"cannot write {text}: permission denied")
    if not p.exists():
        _creatable_in(p, text)
    elif not p.parent.is_dir():
        raise ArgumentTypeError(f"cannot write {text}")
    return text


def planner_name(text: str) -> str:
    """A key of the planners registry, or ``default`` (the registry's default planner)."""
    if text == "default":
        return text
    from toolkit.planners import PLANNERS  # only when the flag is given: the registry imports the planners

    if text not in PLANNERS:
        from toolkit.errors import closest

        hint = closest(text, PLANNERS)
        raise ArgumentTypeError(f"unknown planner {text!r} (choose from {', '.join(PLANNERS)})"
                                + (f"; did you mean {', '.join(hint)}?" if hint else ""))
    return text
