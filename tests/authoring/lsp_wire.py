"""A raw JSON-RPC client for ``pgt lsp``: frames on the wire, no library between (so malformed input can be sent)."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


class Wire:
    """``pgt lsp --stdio`` in a subprocess; :meth:`request` and :meth:`notify` send, :meth:`wait_for` reads."""

    def __init__(self) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.proc = subprocess.Popen([sys.executable, "-c", "import sys; from toolkit.cli import main; "
                                      "sys.exit(main(['lsp', '--stdio']))"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=env)
        self.inbox: queue.Queue[dict[str, Any]] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        self._next = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        while True:
            length = 0
            while True:
                line = out.readline()
                if not line:
                    return
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
                if line in (b"\r\n", b"\n"):
                    break
            self.inbox.put(json.loads(out.read(length)))

    def send_raw(self, body: bytes) -> None:
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.send_raw(json.dumps({"jsonrpc": "2.0", **message}).encode())

    def request(self, method: str, params: Any) -> int:
        self._next += 1
        self.send({"id": self._next, "method": method, "params": params})
        return self._next

    def notify(self, method: str, params: Any) -> None:
        self.send({"method": method, "params": params})

    def wait_for(self, match, timeout: float = 30.0) -> dict[str, Any]:
        """The first message (seen before or arriving within ``timeout``) for which ``match(message)`` is true."""
        for i, message in enumerate(self.seen):
            if match(message):
                return self.seen.pop(i)
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no matching message within {timeout} s; seen: {self.seen[-5:]}")
            try:
                message = self.inbox.get(timeout=left)
            except queue.Empty:
                continue
            if match(message):
                return message
            self.seen.append(message)

    def response(self, msg_id: int, timeout: float = 30.0) -> dict[str, Any]:
        return self.wait_for(lambda m: m.get("id") == msg_id and "method" not in m, timeout)

    def diagnostics(self, uri: str, timeout: float = 30.0) -> list[dict[str, Any]]:
        return self.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                             and m["params"]["uri"] == uri, timeout)["params"]["diagnostics"]

    def initialize(self, root: Path) -> None:
        rid = self.request("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {}})
        self.response(rid, 60)
        self.notify("initialized", {})

    def open(self, uri: str, text: str, version: int = 1) -> None:
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "pddl", "version": version,
                                                               "text": text}})

    def change(self, uri: str, text: str, version: int) -> None:
        self.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                               "contentChanges": [{"text": text}]})

    def hover(self, uri: str, line: int, character: int, timeout: float = 30.0) -> dict[str, Any]:
        rid = self.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                  "position": {"line": line, "character": character}})
        return self.response(rid, timeout)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                stream.close()
            except OSError:
                pass
