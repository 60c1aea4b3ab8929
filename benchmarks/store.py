"""A study folder on disk: append-only ``episodes.jsonl``, its writer lock, ``config.json``.

Results are expensive (hours of endpoint calls), so this module never rewrites
them. The only writes to ``episodes.jsonl`` are appends of whole lines, each with
one ``write`` call; a line torn by a kill is repaired by *truncating* the file at
its last complete line, so a kill during the repair leaves either the torn file
or the repaired one, never less. ``config.json`` is replaced atomically
(temporary file, then rename).

One writer at a time: :class:`StudyLock` holds a POSIX record lock on
``<folder>/.lock`` (with the holder's PID written in it for the message). The
kernel drops the lock when its process dies, so the lock of a killed run is
taken over without any clean-up, and forked worker processes do not inherit it.

Several records may share an episode id: a retried ``error`` episode appends its
new record after the old one, and files written before the lock existed may hold
true duplicates. :func:`collect` picks one record per id and counts the rest.
"""

from __future__ import annotations

import errno
import functools
import json
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolkit.errors import PgtError
from toolkit import jsontext
from toolkit.redact import redact

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no lock (documented in docs/studies.md)
    fcntl = None  # type: ignore[assignment]

SCHEMA = 1
Record = dict[str, Any]


def encode(record: Record) -> bytes:
    """A record's line in ``episodes.jsonl``: its JSON (secrets redacted) and a newline, UTF-8."""
    return (redact(json.dumps(record)) + "\n").encode("utf-8")


def brief(record: Record) -> Record:
    """A record's scalar fields: all that progress, stop rules, :func:`collect` and the summary table read.

    Events, per-predicate tallies and the config stay in the file: a writer that
    keeps only briefs of the episodes it wrote keeps a few hundred bytes each.
    """
    return {k: v for k, v in record.items() if not isinstance(v, (list, dict))}


@dataclass(frozen=True)
class Finished:
    """A finished episode as its writer takes it: the file line, encoded where the episode ran, and its brief.

    Encoding in the worker that ran the episode spares the one writer process (the
    serial part of a parallel study) both the encoding and unpickling the whole record.
    """

    line: bytes
    record: Record  # the record's brief

    @classmethod
    def of(cls, record: Record) -> Finished:
        return cls(encode(record), brief(record))


_NUMBERS = ("seed", "questions", "replans", "actions", "prompt_tokens", "completion_tokens", "answered", "correct",
            "predictions_needed")


def not_an_episode(rec: Any) -> str | None:
    """Why a parsed line is not an episode record this tool can count (None: it is one).

    Everything :func:`collect`, resume and the report read must be there with its
    type: a foreign line such as ``{"schema": 1, "id": "x"}`` is refused here, once,
    instead of failing later with a ``KeyError`` in whichever command reads it first.
    """
    if not isinstance(rec, dict):
        return f"a JSON {type(rec).__name__}, not an episode object"
    if rec.get("schema") != SCHEMA:
        return f"schema {rec.get('schema')!r}, not {SCHEMA}"
    for key in ("id", "split"):
        if not isinstance(rec.get(key), str):
            return f"field '{key}' is {'missing' if key not in rec else 'not text'}"
    for key in ("suite", "problem", "label", "outcome", "error"):
        if rec.get(key) is not None and not isinstance(rec[key], str):
            return f"field '{key}' is not text"
    if rec.get("outcome") is None and not isinstance(rec.get("success"), bool):
        return "no outcome (neither 'outcome' nor 'success')"
    if "success" in rec and not isinstance(rec["success"], bool):
        return "field 'success' is not true or false"
    for key in _NUMBERS:
        value = rec.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            return f"field '{key}' is not a number"
    if "config" in rec and not isinstance(rec["config"], dict):
        return "field 'config' is not an object"
    per = rec.get("per_predicate", {})
    if not isinstance(per, dict) or not all(
            isinstance(t, dict) and all(isinstance(t.get(k), int) for k in ("answered", "correct"))
            for t in per.values()):
        return "field 'per_predicate' is not an object of {answered, correct} counts"
    return None


_SAID: set[tuple[str, int, int]] = set()  # (file, line, hash) of skipped lines already reported by this process


def read_records(path: Path, warn: Any = None) -> list[Record]:
    """Episode records of an episodes file in file order; every other line is skipped and reported once.

    ``warn`` takes each report (default: a line on stderr, ``FILE:LINE: skipped ...``);
    a complete last record without its newline counts (a torn one does not).
    """
    if not path.is_file():
        return []
    out = []
    with path.open("rb") as fh:
        for number, raw in enumerate(fh, 1):
            if not raw.strip():
                continue
            try:
                rec = jsontext.loads(raw.decode("utf-8"))
            except UnicodeDecodeError:
                why: str | None = "not UTF-8 text"
            except ValueError as exc:  # a torn last line, or JSON nested too deep
                why = "a torn last line (an interrupted write)" if not raw.endswith(b"\n") else f"not JSON ({exc})"
            else:
                why = not_an_episode(rec)
            if why is None:
                out.append(rec)
                continue
            key = (str(path), number, hash(raw))
            if key not in _SAID:
                _SAID.add(key)
                (warn or _stderr)(f"{path}:{number}: skipped, not an episode record of this tool: {why}")
    return out


def _stderr(message: str) -> None:
    import sys

    print(message, file=sys.stderr, flush=True)


def outcome(record: Record) -> str:
    """``success``, ``failure`` or ``error``; records from before outcomes existed are judged by ``success``."""
    found = record.get("outcome")
    if found in ("success", "failure", "error"):
        return found
    if record.get("stop_reason") == "error":
        return "error"
    return "success" if record.get("success") else "failure"


@dataclass
class Episodes:
    """One record per episode id: judged ones (success/failure) and those that only errored."""

    judged: list[Record] = field(default_factory=list)
    errors: list[Record] = field(default_factory=list)  # the latest error of ids never judged
    duplicates: int = 0  # extra judged records of an id (the first one counts)
    retried: int = 0  # error records superseded by a later attempt

    @property
    def all(self) -> list[Record]:
        return self.judged + self.errors

    def counts(self) -> dict[str, int]:
        ok = sum(outcome(r) == "success" for r in self.judged)
        return {"success": ok, "failure": len(self.judged) - ok, "error": len(self.errors)}


def collect(records: list[Record]) -> Episodes:
    """The records that count, one per id, in file order of their first appearance."""
    judged: dict[str, Record] = {}
    errors: dict[str, Record] = {}
    out = Episodes()
    for rec in records:
        rid = rec["id"]
        if outcome(rec) == "error":
            if rid in judged:
                out.retried += 1  # an error after a judged record changes nothing
            else:
                out.retried += rid in errors
                errors[rid] = rec
        elif rid in judged:
            out.duplicates += 1
        else:
            judged[rid] = rec
            if errors.pop(rid, None) is not None:
                out.retried += 1
    out.judged, out.errors = list(judged.values()), list(errors.values())
    return out


def complete_tail(path: Path) -> bool:
    """Add the newline a complete last record lacks (a hand edit, another tool); True if one was added.

    Only an episode record counts as complete: anything else after the last
    newline is a torn write, left for :func:`repair` to drop.
    """
    if not path.is_file():
        return False
    with path.open("rb+") as fh:
        size = fh.seek(0, os.SEEK_END)
        if size == 0:
            return False
        start = max(0, size - (1 << 20))
        fh.seek(start)
        tail = fh.read()
        if tail.endswith(b"\n") or (start and b"\n" not in tail):
            return False
        last = tail[tail.rfind(b"\n") + 1:]
        try:
            if not_an_episode(jsontext.loads(last.decode("utf-8"))) is not None:
                return False
        except ValueError:
            return False
        fh.write(b"\n")
        fh.flush()
        os.fsync(fh.fileno())
        return True


def repair(path: Path) -> int:
    """Truncate a torn last line (a write cut by a kill); returns the bytes dropped. Never rewrites."""
    if not path.is_file():
        return 0
    with path.open("rb+") as fh:
        size = fh.seek(0, os.SEEK_END)
        if size == 0:
            return 0
        fh.seek(size - 1)
        if fh.read(1) == b"\n":
            return 0
        keep, pos, block = 0, size, 1 << 16
        while pos > 0:  # find the last newline, reading backwards
            start = max(0, pos - block)
            fh.seek(start)
            chunk = fh.read(pos - start)
            hit = chunk.rfind(b"\n")
            if hit >= 0:
                keep = start + hit + 1
                break
            pos = start
        fh.truncate(keep)
        fh.flush()
        os.fsync(fh.fileno())
        return size - keep


class Appender:
    """Appends records to an episodes file, one ``write`` of a whole line each (``O_APPEND``)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        except OSError as exc:
            raise write_error(path, exc) from None

    def write(self, record: Record) -> None:
        self.write_line(encode(record))

    def write_line(self, data: bytes) -> None:
        """Append one encoded line (:func:`encode`) with one ``write``."""
        view = memoryview(data)
        try:
            while view:  # a regular file takes it whole; loop only for the rare partial write
                view = view[os.write(self._fd, view):]
        except OSError as exc:  # disk full, quota, a vanished mount: say which file
            raise write_error(self.path, exc) from None

    def close(self) -> None:
        os.close(self._fd)

    def __enter__(self) -> Appender:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def write_error(path: Path | str, exc: OSError) -> PgtError:
    """A failed write as one line that names the file (``os.write`` errors carry no file name)."""
    why = exc.strerror or str(exc)
    hint = "; free some space and run the same command again (finished episodes are kept)" \
        if exc.errno in (errno.ENOSPC, errno.EDQUOT) else ""
    return PgtError(f"cannot write {path}: {why}{hint}")


def write_config(path: Path, data: dict[str, Any]) -> None:
    """Replace ``config.json`` atomically, so a kill never leaves it half written."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(redact(json.dumps(data, indent=2)) + "\n", encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        raise write_error(path, exc) from None


_HELD: set[str] = set()  # folders locked by this process (POSIX locks do not exclude their own process)
_HELD_GUARD = threading.Lock()


class StudyLock:
    """The one-writer lock of a study folder; refuses a second writer with a clear message."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.path = folder / ".lock"
        self._fd: int | None = None
        self._key = str(folder.resolve())

    def acquire(self) -> None:
        with _HELD_GUARD:
            if self._key in _HELD:
                raise PgtError(f"{self.folder} is in use by another study in this process; use another --out")
            if fcntl is not None:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
                try:
                    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip() or "unknown"
                    os.close(fd)
                    raise PgtError(f"{self.folder} is in use by another pgt run (PID {holder}); wait for it to "
                                   "finish or use another --out") from None
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
                self._fd = fd
            _HELD.add(self._key)

    def release(self) -> None:
        with _HELD_GUARD:
            _HELD.discard(self._key)
            if self._fd is not None:
                os.close(self._fd)  # closing drops the lock; the file stays (unlinking would race)
                self._fd = None

    def __enter__(self) -> StudyLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


@functools.lru_cache(maxsize=4)
def recorded_replies(path: str) -> dict[str, list[str]]:
    """Episode id -> the plan replies a viplan-planner run recorded, in order."""
    file = Path(path) / "episodes.jsonl" if Path(path).is_dir() else Path(path)
    if not file.is_file():
        raise PgtError(f"--replay {path}: no such run folder or episodes file")
    episodes = collect(read_records(file)).judged
    if not episodes:
        raise PgtError(f"--replay {path}: no finished episodes in {file}")
    protocols = {r.get("config", {}).get("protocol") for r in episodes}
    if protocols != {"viplan-planner"}:
        raise PgtError(f"--replay {path}: a viplan-planner run's episodes are needed, this holds "
                       f"{', '.join(sorted(map(str, protocols)))}")
    return {r["id"]: [str(e.get("reply", "")) for e in r.get("events", ()) if e.get("phase") == "propose"]
            for r in episodes}
