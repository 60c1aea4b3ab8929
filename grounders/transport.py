"""The HTTP transport under every chat request: a whole-request deadline and a reply size cap.

The ``openai`` client's own timeout limits each socket operation: an endpoint
that trickles one byte every two seconds is never cut off, and a reply has no
size limit (a 100 MB completion is read, parsed, stored whole; an endless body
grows until memory runs out). :class:`GuardedTransport` wraps the HTTP
transport the ``openai`` client sends through and enforces, per request:

* a **deadline** ``timeout`` seconds after the request starts, over the
  connect, the TLS handshake, the request, the response's headers and its
  body: every socket operation (through :class:`DeadlineBackend`, the network
  backend of each connection) waits at most what is left of it and none starts
  after it, so headers or a body trickled one byte at a time end at the
  deadline; each body chunk is checked against it too, and a watchdog shuts the
  connection's socket at the deadline while the body is read. What is cut off
  raises the HTTP library's ``ReadTimeout`` (the client reports and retries it
  as a timeout);
* a **size cap** of ``max_bytes`` on the body (error bodies too), counted while
  it streams in, before it is decoded or kept: past the cap the connection is
  dropped and :class:`ReplyTooLarge` raised (the client records one error
  answer; asking again would be paid for again and come back as large).

The same guards stand on every path a request can take: a proxy named by
``HTTPS_PROXY``/``HTTP_PROXY``/``ALL_PROXY`` (honoured as ``openai``'s own
client honours them, ``NO_PROXY`` included) gets its own guarded transport,
where a client built with a custom transport otherwise ignores them.

The HTTP library is the one ``openai`` ships with (``httpx2`` in ``openai`` 3,
``httpx`` before), imported when a client is built.
"""

from __future__ import annotations

import importlib
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
core = importlib.import_module(http.__name__.replace("httpx", "httpcore"))  # httpcore2 under httpx2

_CURRENT = threading.local()  # .deadline: the deadline of the request this thread is sending or reading


def guarded_http_client(timeout: float, max_bytes: int, clock: Callable[[], float] = time.monotonic) -> Any:
    """An HTTP client for ``openai.OpenAI(http_client=...)`` with openai's defaults and the guards above.

    A client given a transport reads no proxy from the environment (httpx's
    ``Client.__init__``: ``allow_env_proxies = trust_env and transport is None``),
    so the environment's proxies are mounted here, each behind the same guards, with
    the library's own reading of the variables (``get_environment_proxies``, what
    ``openai``'s default client uses); a ``NO_PROXY`` host maps to ``None``, which the
    client sends through the guarded direct transport.
    """
    import openai
    from openai._constants import DEFAULT_CONNECTION_LIMITS

    def guarded(proxy: str | None) -> GuardedTransport:
        inner = http.HTTPTransport(limits=DEFAULT_CONNECTION_LIMITS, proxy=proxy)
        return GuardedTransport(with_deadline_backend(inner, clock), timeout, max_bytes, clock)

    proxies = importlib.import_module(f"{http.__name__}._utils").get_environment_proxies()
    mounts = {pattern: None if url is None else guarded(url) for pattern, url in proxies.items()}
    return openai.DefaultHttpxClient(transport=guarded(None), mounts=mounts, timeout=timeout)


def with_deadline_backend(transport: Any, clock: Callable[[], float] = time.monotonic) -> Any:
    """``transport`` with its connection pool's network backend wrapped in :class:`DeadlineBackend`.

    ``HTTPTransport`` takes no network backend, and its pool (``ConnectionPool``,
    ``HTTPProxy``, ``SOCKSProxy`` alike) hands ``_network_backend`` to each connection
    it opens, so the wrapper set here reaches every connection, proxied or not.
    """
    pool = getattr(transport, "_pool", None)
    if pool is None or not hasattr(pool, "_network_backend"):
        raise RuntimeError(f"{http.__name__} {getattr(http, '__version__', '?')}: its transport's connection pool "
                           "has no network backend to guard; the request deadline cannot be enforced")
    if not isinstance(pool._network_backend, DeadlineBackend):
        pool._network_backend = DeadlineBackend(pool._network_backend, clock)
    return transport


def _left(timeout: float | None, clock: Callable[[], float], what: type[Exception]) -> float | None:
    """``timeout`` cut to what is left of this thread's request deadline; ``what`` once none is left."""
    deadline = getattr(_CURRENT, "deadline", None)
    if deadline is None:
        return timeout
    left = deadline - clock()
    if left <= 0:
        raise what("the request's deadline passed")
    return left if timeout is None else min(timeout, left)


class DeadlineBackend(core.NetworkBackend):
    """A network backend whose connects, reads and writes stop at the current request's deadline.

    ``--timeout`` bounded each socket operation, and the body's watchdog starts once
    the headers are in: an endpoint (or a proxy) that sent its status line and headers
    one byte every second held the request for as long as it liked. Here every
    operation of the thread's current request waits at most what is left, and none
    starts once it is gone.
    """

    def __init__(self, inner: Any, clock: Callable[[], float] = time.monotonic) -> None:
        self.inner, self.clock = inner, clock

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: Any = None) -> Any:
        timeout = _left(timeout, self.clock, core.ConnectTimeout)
        return _DeadlineStream(self.inner.connect_tcp(host, port, timeout=timeout, local_address=local_address,
                                                      socket_options=socket_options), self.clock)

    def connect_unix_socket(self, path: str, timeout: float | None = None, socket_options: Any = None) -> Any:
        timeout = _left(timeout, self.clock, core.ConnectTimeout)
        return _DeadlineStream(self.inner.connect_unix_socket(path, timeout=timeout, socket_options=socket_options),
                               self.clock)

    def sleep(self, seconds: float) -> None:
        self.inner.sleep(seconds)


class _DeadlineStream(core.NetworkStream):
    """A connection's stream whose every operation is cut to the current request's deadline."""

    def __init__(self, inner: Any, clock: Callable[[], float]) -> None:
        self.inner, self.clock = inner, clock

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self.inner.read(max_bytes, timeout=_left(timeout, self.clock, core.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self.inner.write(buffer, timeout=_left(timeout, self.clock, core.WriteTimeout))

    def close(self) -> None:
        self.inner.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None) -> Any:
        timeout = _left(timeout, self.clock, core.ConnectTimeout)
        return _DeadlineStream(self.inner.start_tls(ssl_context, server_hostname=server_hostname, timeout=timeout),
                               self.clock)

    def get_extra_info(self, info: str) -> Any:
        return self.inner.get_extra_info(info)


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
        _CURRENT.deadline = deadline  # DeadlineBackend: the connect, the headers and the body's reads
        try:
            response = self.inner.handle_request(request)
        except http.TimeoutException as exc:
            _CURRENT.deadline = None
            if self.clock() >= deadline:
                raise http.ReadTimeout(f"no complete reply within {self.timeout:g} s "
                                       "(the endpoint sent its headers too slowly)", request=request) from exc
            raise
        except BaseException:
            _CURRENT.deadline = None
            raise
        if self.clock() >= deadline:
            _CURRENT.deadline = None
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
        if getattr(_CURRENT, "deadline", None) == self.deadline:
            _CURRENT.deadline = None
        self.inner.close()
