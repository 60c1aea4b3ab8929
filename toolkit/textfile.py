"""Read a user's text file (PDDL, plan, JSON lines) the one way every command reads it.

Files come from many editors and tools: Windows editors start them with a UTF-8 byte-order
mark, PowerShell's ``>`` writes UTF-16, old Mac tools end lines with a lone CR, old IPC domains carry Latin-1 accents in their
comments, and users point commands at archives or binaries by mistake. ``Path.read_text``
turns the last three into a ``UnicodeDecodeError`` whose message names a byte offset; this
module accepts what can be read without guessing and refuses the rest with the file, line
and column of the first bad byte, so the user can find it.
"""

from __future__ import annotations

import codecs
import os
from pathlib import Path

from toolkit.errors import PgtError

_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def read_text(path: str | Path, comment: str | None = ";") -> str:
    """The text of ``path``; an unreadable or undecodable file is bad input (:class:`PgtError`).

    ``comment`` starts a line comment in the file's language (``;`` in PDDL and plans, None
    for JSON): bytes that are not UTF-8 are accepted inside comments, where they cannot
    change what the file means, and refused anywhere else.
    """
    try:
        raw = _read_bytes(path)
    except OSError as exc:
        raise PgtError(f"cannot read {path}: {exc.strerror or exc}") from None
    text = decode(raw, str(path), comment)
    # Old Mac files end lines with a lone CR, which no PDDL reader takes as the end of a ``;`` comment.
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def _read_bytes(path: str | Path) -> bytes:
    """The file's bytes through the system calls alone: ``Path.read_bytes`` builds a path object and a
    buffered file object first, three times the time of reading a small PDDL file (measured: 18 us
    against 5 us for 1.9 kB); the same ``OSError`` (and ``strerror``) for a missing file, a folder or
    no permission."""
    fd = os.open(path, os.O_RDONLY)
    try:
        chunks = []
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
    finally:
        os.close(fd)


def decode(raw: bytes, path: str, comment: str | None = ";") -> str:
    """``raw`` as text: UTF-8 (a leading byte-order mark skipped) or UTF-16 with its byte-order mark.

    >>> decode(b"\\xef\\xbb\\xbf(a)", "f")
    '(a)'
    >>> decode("(a) ; caf\\u00e9".encode("latin-1"), "f")
    '(a) ; caf\\ufffd'
    >>> decode("(caf\\u00e9)".encode("latin-1"), "f")
    Traceback (most recent call last):
    toolkit.errors.PgtError: f:1:5: not UTF-8 text (Latin-1 or another legacy encoding?); save the file as UTF-8
    """
    if raw.startswith(_UTF16_BOMS):
        try:
            return raw.decode("utf-16")
        except UnicodeDecodeError:
            raise PgtError(f"{path}: starts like UTF-16 text but is not; save the file as UTF-8") from None
    try:
        return raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        pass
    if raw.startswith(b"\x1f\x8b"):
        raise PgtError(f"{path}: is gzip-compressed, not text; decompress it first")
    if b"\x00" in raw[:8192]:
        raise PgtError(f"{path}: is a binary file, not text")
    text = raw.decode("utf-8", errors="replace").removeprefix("\ufeff")
    for number, line in enumerate(text.splitlines(), 1):
        bad = line.find("\ufffd")
        if bad >= 0 and (comment is None or comment not in line[:bad]):
            raise PgtError(f"{path}:{number}:{bad + 1}: not UTF-8 text (Latin-1 or another legacy encoding?); "
                           "save the file as UTF-8")
    return text
