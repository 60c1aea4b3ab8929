"""The files an editor session sees: open buffers by path, and the files beside them, read with care.

Editors send URIs in their own spelling: VS Code percent-encodes ``:``, ``@``, ``+``,
spaces and non-ASCII characters, Neovim sends some of them raw, and pygls keys
its open documents by the URI exactly as sent. Looking a buffer up by a URI
rebuilt from a path missed every file with such a character (diagnostics,
hover and completion then read the file on disk instead of the unsaved
buffer). :class:`Files` keys buffers by the *path* each URI names, so either
spelling finds the same buffer.

Files beside a domain are read only when they are regular files under
:data:`MAX_FILE_BYTES`, opened without blocking: a FIFO named ``x.pddl`` hung the
server for good and a symlink to ``/dev/zero`` took 4.4 GB in 5 s. Linking a
problem to its domain reads only each candidate's head (:data:`HEAD_BYTES`).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Mapping

from pygls.uris import to_fs_path

from toolkit.lsp.symbols import domain_name_of

MAX_FILE_BYTES = 4 * 1024 * 1024  # larger files beside a domain are not read (an open buffer always is)
HEAD_BYTES = 64 * 1024  # enough for the comments and (define (domain ...)) / (:domain ...) that link files
MAX_SIBLING_PROBLEMS = 8  # problems linted with a domain; more would slow every lint
QUESTIONS = "questions.toml"  # a domain's question templates, beside it (toolkit.question_file.find_question_file)


def is_question_file(path: Path) -> bool:
    """A domain's ``questions.toml``: linted with the domain beside it, shown on its own lines."""
    return path.name == QUESTIONS


def uri_path(uri: str) -> Path:
    """The file a ``file:`` URI names, in whichever spelling the client sent it."""
    return Path(os.path.normpath(to_fs_path(uri) or uri))


def read_regular(path: Path, limit: int = MAX_FILE_BYTES) -> str | None:
    """A regular file's text if it has at most ``limit`` bytes (None otherwise: FIFO, device, too big, unreadable)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)  # what was opened, not what the name pointed to a moment ago
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(limit + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(data) > limit:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


class Files:
    """Buffers (path -> text, as the editor has them) over the disk, with the domain/problem links."""

    def __init__(self, buffers: Mapping[Path, str]) -> None:
        self.buffers = dict(buffers)

    def text(self, path: Path) -> str:
        """An open buffer's text, else the file on disk if it is a regular file under the cap ('' otherwise)."""
        found = self.buffers.get(path)
        if found is not None:
            return found
        return read_regular(path) or ""

    def head(self, path: Path) -> tuple[str, str] | None:
        """``("domain", name)`` or ``("problem", its domain's name)`` from the first :data:`HEAD_BYTES` of a file."""
        found = self.buffers.get(path)
        if found is None:
            found = _read_head(path)
        return domain_name_of(found[:HEAD_BYTES]) if found else None

    def _pddl_files(self, folder: Path) -> list[Path]:
        try:
            on_disk = [p for p in folder.glob("*.pddl")]
        except OSError:
            on_disk = []
        return sorted({*on_disk, *(p for p in self.buffers if p.parent == folder and p.suffix == ".pddl")})

    def domain_of(self, path: Path) -> Path | None:
        """The domain file of a domain or problem file (same folder, else the folder above), or of a questions.toml
        (the domain beside it, where ``pgt lint`` looks for it)."""
        if is_question_file(path):
            return self._domain_in(path.parent)
        head = self.head(path)
        if head is None:
            return None
        if head[0] == "domain":
            return path
        for folder in (path.parent, path.parent.parent):
            beside = folder / "domain.pddl"
            if beside in self.buffers or _is_regular(beside):
                return beside
            for other in self._pddl_files(folder):
                if self.head(other) == ("domain", head[1]):
                    return other
        return None

    def _domain_in(self, folder: Path) -> Path | None:
        """``domain.pddl`` in ``folder``, else the first ``.pddl`` file there that defines a domain."""
        beside = folder / "domain.pddl"
        if beside in self.buffers or _is_regular(beside):
            return beside
        return next((p for p in self._pddl_files(folder) if (self.head(p) or ("",))[0] == "domain"), None)

    def problems_of(self, domain: Path) -> list[Path]:
        """Problem files that name a domain: beside it, or in a ``problems/`` folder beside it."""
        head = self.head(domain)
        if head is None:
            return []
        found = []
        for p in [*self._pddl_files(domain.parent), *self._pddl_files(domain.parent / "problems")]:
            k = self.head(p) if p != domain else None
            if k and k[0] == "problem" and k[1].lower() == head[1].lower():
                found.append(p)
                if len(found) == MAX_SIBLING_PROBLEMS:
                    break
        return found

    def snapshot(self, path: Path) -> tuple[Path, dict[Path, str]] | None:
        """The domain of ``path`` and the texts to lint with it (its questions.toml when that is ``path`` or open)."""
        domain = self.domain_of(path)
        if domain is None:
            return None
        questions = domain.parent / QUESTIONS
        problems = [] if path == questions else self.problems_of(domain) if domain == path else [path]
        texts = {p: self.text(p) for p in (domain, *problems)}
        if path == questions or questions in self.buffers:
            texts[questions] = self.text(questions)
        return domain, texts


def _is_regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _read_head(path: Path) -> str | None:
    """The first :data:`HEAD_BYTES` of a regular file (undecodable bytes replaced), else None."""
    if not _is_regular(path):
        return None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.read(fd, HEAD_BYTES).decode("utf-8", "replace")
    except OSError:
        return None
    finally:
        os.close(fd)
