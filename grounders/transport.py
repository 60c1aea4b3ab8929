"""The HTTP transport under every chat request: a whole-request deadline and a reply size cap.

The ``openai`` client's own timeout limits each socket operation: an endpoint
that trickles one byte every two seconds is never cut off, and a reply has no
size limit (a 100 MB completion is read, parsed, stored whole; an endless body
grows until memory runs out). :class:`GuardedTransport` wraps the HTTP
transport the ``openai`` client sends through and enforces, per request:

* a **deadline** ``timeout`` seconds after the request starts: every socket
  operation waits at most what is left of it, each body chunk is checked
  against it, and a watchdog shuts the connection's socket at the deadline,
  so a silent or trickling body ends within the deadline, not one read later.
  What is cut off raises the HTTP library's ``ReadTimeout`` (the client reports
  and retries it as a timeout);
* a **size cap** of ``max_bytes`` on the body (error bodies too), counted while
  it streams in, before it is decoded or kept: past the cap the connection is
  dropped and :class:`ReplyTooLarge` raised (the client records one error
  answer; asking again would be paid for again and come back as large).

The HTTP library is the one ``openai`` ships with (``httpx2`` in ``openai`` 3,
``httpx`` before), imported when a client is built.
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Any, Callable, Iterator

DEFAULT_MAX_REPLY_BYTES = 4 * 1024 * 1024  # 4 MiB: a 1024-token reply with top-5 logprobs is about 0.5 MB


class ReplyTooLarge(Exception):
    """A reply body passed the size cap while it streamed in."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the reply passed the size cap of {limit:,} bytes (--max-reply-bytes); "
                         "it was dropped unread")
        self.limit = limit


def http_module() -> Any:
    """The HTTP library the installed ``openai`` uses (``httpx2`` or ``httpx``)."""
    import openai._base_client as base

    return getattr(base, "httpx2", None) or getattr(base, "httpx")


http = http_module()


def guarded_http_client(timeout: float, max_bytes: int, clock: Callable[[], float] = time.monotonic) -> Any:
    """An HTTP client for ``openai.OpenAI(http_client=...)`` with openai's defaults and the guards above."""
    import openai
    from openai._constants import DEFAULT_CONNECTION_LIMITS

    inner = http.HTTPTransport(limits=DEFAULT_CONNECTION_LIMITS)
    return openai.DefaultHttpxClient(transport=GuardedTransport(inner, timeout, max_bytes, clock),
                                     timeout=timeout)


class GuardedTransport(http.BaseTransport):
    """Wraps an HTTP transport: a deadline on the whole request and a cap on the body's bytes."""

    def __init__(self, inner: Any, timeout: float, max_bytes: int,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.inner, self.timeout, self.max_bytes, self.clock = inner, timeout, max_bytes, clock

    def handle_request(self, request: Any) -> Any:
        deadline = self.clock() + self.timeout
        left = max(0.001, deadline - self.clock())
        limits = dict(request.extensions.get("timeout") or {})
        for name in ("connect", "read", "write", "pool"):  # no socket operation outlives the deadline
            value = limits.get(name)
            limits[name] = left if value is None else min(float(value), left)
        request.extensions = {**request.extensions, "timeout": limits}
        response = self.inner.handle_request(request)
        if self.clock() >= deadline:
            response.close()
            raise http.ReadTimeout(f"no complete reply within {self.timeout:g} s", request=request)
        response.stream = _GuardedStream(response.stream, self, deadline, request,
                                         response.extensions.get("network_stream"))
        return response

    def close(self) -> None:
        self.inner.close()

    def __enter__(self) -> GuardedTransport:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _GuardedStream(http.SyncByteStream):
    """A response body that stops at the deadline or the size cap (a ``SyncByteStream``)."""

    def __init__(self, inner: Any, owner: GuardedTransport, deadline: float, request: Any, network: Any) -> None:
        self.inner, self.owner, self.deadline, self.request = inner, owner, deadline, request
        self.expired = False
        self._sock = network.get_extra_info("socket") if network is not None else None
        self._timer: threading.Timer | None = None
        if self._sock is not None:
            self._timer = threading.Timer(max(0.0, deadline - owner.clock()), self._expire)
            self._timer.daemon = True
            self._timer.start()

    def _expire(self) -> None:
        """The watchdog: at the deadline, end a read that is still waiting for a slow or silent body."""
        self.expired = True
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _timeout(self) -> Exception:
        return http.ReadTimeout(f"no complete reply within {self.owner.timeout:g} s "
                                           "(the endpoint sent its body too slowly)", request=self.request)

    def __iter__(self) -> Iterator[bytes]:
        size, limit = 0, self.owner.max_bytes
        try:
            for chunk in self.inner:
                size += len(chunk)
                if size > limit:
                    raise ReplyTooLarge(limit)
                if self.expired or self.owner.clock() >= self.deadline:
                    raise self._timeout()
                yield chunk
        except ReplyTooLarge:
            raise
        except Exception as exc:
            if self.expired or self.owner.clock() >= self.deadline:
                raise self._timeout() from exc
            raise

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self.inner.close()
