"""A bounded on-disk store of planner answers keyed by a digest of what the planner read.

Why not :class:`toolkit.planners.cache.PlanCache`: that cache keys a plan by pgt's
model of the task (canonical PDDL, sorted objects), which is right for pgt's own
planners but wrong for one whose plan depends on the *text* it reads: Fast
Downward breaks ties by the order of objects and actions in the files, so two
files pgt reads as the same task may get different plans. This store's key is a
digest of the file contents, the believed state and the planner settings
(versions of the packages that decide the plan included), so a hit is the plan
the planner returns for exactly those bytes. It is answered before anything is
parsed, so a hit costs neither unified-planning's import nor its parse.

One SQLite file in WAL mode: the workers of a study, and later studies, share it
safely. It keeps at most ``max_entries`` rows; past that the oldest written go
first (first in, first out: a hit does not write, so it stays cheap).
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from pathlib import Path
from typing import Any, Iterable

from toolkit.errors import PgtError

DEFAULT_MAX_ENTRIES = 200_000
"""About 60 MB at the ~300 bytes a ViPlan plan takes; a full ``pgt compare`` grid needs a few thousand."""


def content_key(parts: Iterable[bytes | str]) -> str:
    """A digest of ``parts`` in order; each is length-prefixed, so no two sequences collide by concatenation."""
    digest = hashlib.blake2b(digest_size=20)
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


class PlanStore:
    """Planner answers (JSON values) by content key, in one SQLite file shared by processes.

    Args:
        path: the SQLite file (created with its folder if missing).
        max_entries: rows kept; the oldest written are dropped past it.
    """

    def __init__(self, path: str | Path, max_entries: int = DEFAULT_MAX_ENTRIES) -> None:
        if max_entries < 1:
            raise PgtError(f"a plan store keeps at least one entry, not {max_entries}")
        self.path = Path(path)
        self.max_entries = max_entries
        self.hits = self.misses = 0
        self._conn: sqlite3.Connection | None = None
        self._pid = 0
        self._connect()  # a bad path fails here, when the planner is built, not at its first answer

    def _connect(self) -> sqlite3.Connection:
        """This process's connection: a forked worker opens its own (SQLite connections must not cross a fork)."""
        if self._conn is not None and self._pid == os.getpid():
            return self._conn
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(str(self.path), timeout=60, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        except (OSError, sqlite3.DatabaseError) as exc:  # a typo'd path, another tool's file, a read-only folder
            raise PgtError(f"{self.path}: cannot use as a plan store: {exc}") from None
        self._conn, self._pid = conn, os.getpid()
        return conn

    def get(self, key: str) -> Any | None:
        """The stored value, or None (also when the file cannot be read now: a store is only ever a shortcut)."""
        try:
            row = self._connect().execute("SELECT value FROM answers WHERE key = ?", (key,)).fetchone()
            value = None if row is None else json.loads(row[0])
        except (sqlite3.Error, ValueError):  # locked past the timeout, or a damaged row: answer afresh
            value = None
        if value is None:
            self.misses += 1
            return None
        self.hits += 1
        return value

    def put(self, key: str, value: Any) -> None:
        """Keep ``value``; a file that cannot be written now (locked, full disk) loses this entry only."""
        try:
            self._connect().execute("INSERT OR REPLACE INTO answers (key, value) VALUES (?, ?)",
                                    (key, json.dumps(value, separators=(",", ":"))))
            self.trim()  # a count is a scan of ~ms, and a put follows a planner call of ~1 s
        except sqlite3.Error:
            pass

    def trim(self) -> None:
        """Drop the oldest written rows beyond ``max_entries`` (rowids grow with each write)."""
        db = self._connect()
        (count,) = db.execute("SELECT count(*) FROM answers").fetchone()
        if count > self.max_entries:
            db.execute("DELETE FROM answers WHERE rowid IN (SELECT rowid FROM answers ORDER BY rowid LIMIT ?)",
                             (count - self.max_entries,))

    def __len__(self) -> int:
        return int(self._connect().execute("SELECT count(*) FROM answers").fetchone()[0])

    def close(self) -> None:
        if self._conn is not None and self._pid == os.getpid():
            self._conn.close()
        self._conn = None
