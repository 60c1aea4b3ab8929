"""The whole-request deadline and the size cap on every path: trickled headers, and proxies from the environment.

Two gaps of issue 27's first fix: the deadline's watchdog started once the
response's headers were in, so an endpoint that sent its status line and headers
one byte at a time (each read well inside ``--timeout``) held a request for as
long as it liked; and a client built with its own transport ignores
``HTTP_PROXY``/``HTTPS_PROXY``/``ALL_PROXY``, so a user behind a proxy could not
reach an endpoint at all, while a guard added to the direct path only would
leave the proxied one open. The servers here are raw sockets on 127.0.0.1 that
misbehave on purpose; a request that could hang runs in a thread joined with a
deadline, so a regression fails the test instead of hanging the suite.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from typing import Callable

import pytest
from openai_server import within

from grounders.client import ChatClient, RetryPolicy
from toolkit.errors import EndpointError, MalformedReplyError

MESSAGES = [{"role": "user", "content": "Is the sky blue?"}]
PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")


def _completion_body(text: str = "Yes") -> bytes:
    return json.dumps({"id": "c", "object": "chat.completion", "created": 0, "model": "fake-vlm",
                       "choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": text}}],
                       "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}).encode()


def _ok(conn: socket.socket) -> None:
    body = _completion_body()
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body) + body)


def _trickled_headers(conn: socket.socket) -> None:
    """The status line, then one header byte every 0.1 s for a minute: every read is well inside the timeout."""
    conn.sendall(b"HTTP/1.1 200 OK\r\n")
    for _ in range(600):
        conn.sendall(b"X")
        time.sleep(0.1)


def _oversized(conn: socket.socket) -> None:
    body = _completion_body("Yes " + "x" * 300_000)
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body) + body)


class RawServer:
    """A one-behaviour HTTP server on a raw socket; ``seen`` holds each request's first line."""

    def __init__(self, behave: Callable[[socket.socket], None]) -> None:
        self.behave, self.seen = behave, []
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn: socket.socket) -> None:
        try:
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                data += chunk
            head, _, rest = data.partition(b"\r\n\r\n")
            length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                           if line.lower().startswith(b"content-length:")), 0)
            while len(rest) < length:
                rest += conn.recv(65536)
            self.seen.append(head.split(b"\r\n", 1)[0].decode())
            self.behave(conn)
        except OSError:
            pass  # the client gave up
        finally:
            conn.close()

    def close(self) -> None:
        self.sock.close()


@pytest.fixture()
def no_proxies(monkeypatch):
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    return monkeypatch


def test_headers_trickled_one_byte_at_a_time_are_cut_off_at_the_deadline(no_proxies) -> None:
    server = RawServer(_trickled_headers)
    try:
        client = ChatClient("fake-vlm", server.url + "/v1", "sk-x", RetryPolicy(timeout=1.0, max_retries=0))
        box, took = within(8.0, lambda: client.complete(MESSAGES))
        assert isinstance(box.get("error"), EndpointError) and "timed out after 1 s" in str(box["error"]), box
        assert took < 2.5
    finally:
        server.close()


@pytest.mark.parametrize("variable", ["HTTP_PROXY", "ALL_PROXY"])
def test_a_proxy_from_the_environment_is_used(no_proxies, variable: str) -> None:
    proxy = RawServer(_ok)
    try:
        no_proxies.setenv(variable, proxy.url)
        # the endpoint itself does not exist: only a request sent through the proxy is answered
        client = ChatClient("fake-vlm", "http://endpoint.invalid:9/v1", "sk-x", RetryPolicy(timeout=5.0, max_retries=0))
        box, _ = within(10.0, lambda: client.complete(MESSAGES))
        assert box.get("value") is not None and box["value"].text == "Yes", box
        assert proxy.seen == ["POST http://endpoint.invalid:9/v1/chat/completions HTTP/1.1"]
    finally:
        proxy.close()


def test_no_proxy_sends_a_host_direct(no_proxies) -> None:
    proxy, endpoint = RawServer(_ok), RawServer(_ok)
    try:
        no_proxies.setenv("HTTP_PROXY", proxy.url)
        no_proxies.setenv("NO_PROXY", "127.0.0.1")
        client = ChatClient("fake-vlm", endpoint.url + "/v1", "sk-x", RetryPolicy(timeout=5.0, max_retries=0))
        box, _ = within(10.0, lambda: client.complete(MESSAGES))
        assert box.get("value") is not None, box
        assert (proxy.seen, len(endpoint.seen)) == ([], 1)
    finally:
        proxy.close()
        endpoint.close()


def test_a_proxy_that_trickles_its_headers_is_cut_off_at_the_deadline(no_proxies) -> None:
    proxy = RawServer(_trickled_headers)
    try:
        no_proxies.setenv("HTTP_PROXY", proxy.url)
        client = ChatClient("fake-vlm", "http://endpoint.invalid:9/v1", "sk-x", RetryPolicy(timeout=1.0, max_retries=0))
        box, took = within(8.0, lambda: client.complete(MESSAGES))
        assert isinstance(box.get("error"), EndpointError) and "timed out after 1 s" in str(box["error"]), box
        assert took < 2.5 and proxy.seen
    finally:
        proxy.close()


def test_a_proxy_reply_over_the_size_cap_is_refused(no_proxies) -> None:
    proxy = RawServer(_oversized)
    try:
        no_proxies.setenv("HTTP_PROXY", proxy.url)
        client = ChatClient("fake-vlm", "http://endpoint.invalid:9/v1", "sk-x",
                            RetryPolicy(timeout=5.0, max_retries=0, max_reply_bytes=65536))
        box, _ = within(10.0, lambda: client.complete(MESSAGES))
        assert isinstance(box.get("error"), MalformedReplyError) and "size cap of 65,536 bytes" in str(box["error"]), box
        assert proxy.seen
    finally:
        proxy.close()
