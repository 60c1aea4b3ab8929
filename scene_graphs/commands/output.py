"""Where a ``pgt *-problem`` command's text goes: a file (its folder made) or standard output.

One helper for the commands that write a generated problem (``babyai-problem``,
``lohoravens-problem``), so they say the same thing and behave the same way.
"""

from __future__ import annotations

from pathlib import Path


def write_or_print(text: str, out: str | Path | None) -> None:
    """Write ``text`` to ``out`` and say so, or print it when ``out`` is None."""
    if out:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(text, encoding="utf-8")
        print(f"wrote {out}")
    else:
        print(text, end="")
