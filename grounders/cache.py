"""A disk cache of VLM replies, safe for threads and for concurrent processes.

A re-run of a study asks the same questions about the same images; paying twice
is pointless. Replies are stored in SQLite (WAL mode, busy timeout), keyed by a
SHA-256 of what decides the reply: :class:`grounders.client.ChatClient` builds
it from the endpoint's base URL, the model, the messages (images by their hash)
and the sampling settings, so another endpoint serving the same model name is
asked afresh. Only successful replies are cached, never errors, and never
credentials: the API key is no part of the key or the value.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

from toolkit.redact import redact

_SCHEMA = "CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, value TEXT NOT NULL)"


def cache_key(**parts: Any) -> str:
    """A stable hex digest of the key parts (sorted JSON)."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


class ReplyCache:
    """Key -> JSON value, in one SQLite file."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        with self._connect() as conn:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(_SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=30.0)
            self._local.conn = conn
        return conn

    def get(self, key: str) -> dict[str, Any] | None:
        row = self._connect().execute("SELECT value FROM replies WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, key: str, value: dict[str, Any]) -> None:
        conn = self._connect()
        with conn:
            conn.execute("INSERT OR REPLACE INTO replies (key, value) VALUES (?, ?)",
                         (key, redact(json.dumps(value, sort_keys=True, ensure_ascii=False))))

    def __len__(self) -> int:
        return int(self._connect().execute("SELECT COUNT(*) FROM replies").fetchone()[0])
