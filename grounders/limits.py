"""One study-wide limit on what a study sends to an endpoint: in-flight requests, requests and tokens per minute.

A VLM study is bound by endpoint latency, so its episodes run concurrently (threads
in the study's writer process, :func:`benchmarks.runner.run_study`) and every chat
request of every episode passes through one :class:`EndpointLimiter`:

* at most ``max_inflight`` requests are open at once (a condition variable, not a
  semaphore, because the cap shrinks after a 429 and grows back);
* ``rpm`` and ``tpm`` are token buckets refilled continuously at rate/60 per second
  and holding about one second's worth, so requests are paced evenly instead of
  bursting a minute's quota at once (providers enforce their per-minute limits
  over shorter windows). Tokens are charged *before* a call from an estimate
  (prompt text and image size plus ``max_tokens``, as OpenAI itself counts a
  request against TPM) and settled from the reply's ``usage`` when it comes back;
* a 429 pauses every new request for the server's ``Retry-After`` (or one second;
  at most :data:`RETRY_AFTER_MAX`, the client's per-request cap: a ``Retry-After``
  of a day must not stall a study for a day),
  halves the in-flight cap and the bucket rates, and each success gives back a
  little (additive increase, multiplicative decrease), so a study that trips a
  limit it was not told about slows down on its own instead of retrying in a storm.

``clock`` and ``sleep`` are injectable: the tests run minutes of simulated time in
milliseconds. :func:`shared_limiter` gives every episode of a process the same
limiter for the same endpoint and limits.
"""

from __future__ import annotations

import base64
import json
import math
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from toolkit.errors import EndpointError

RECOVERY = 0.05  # share of the full rate/cap a success gives back after a 429 halved them
MIN_FACTOR = 1.0 / 64  # a 429 storm never slows a study below 1/64 of its limits
DEFAULT_PAUSE = 1.0  # seconds every request waits after a 429 that names no Retry-After
RETRY_AFTER_MAX = 120.0  # the longest study-wide pause a 429 causes (grounders.client clamps to the same cap)


@dataclass
class Usage:
    """What a limiter let through so far (read by progress lines and benchmarks)."""

    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    throttled: int = 0  # 429 replies seen
    retry_after: float = 0.0  # the last 429's study-wide pause, after clamping to RETRY_AFTER_MAX
    peak_inflight: int = 0


class _Bucket:
    """A token bucket: ``rate`` per minute, capacity about one second's worth (at least one request's)."""

    def __init__(self, per_minute: float, now: float) -> None:
        self.per_minute = per_minute
        self.capacity = max(1.0, per_minute / 60.0)
        self.level = self.capacity
        self.stamp = now

    def refill(self, now: float, factor: float) -> None:
        self.level = min(self.capacity, self.level + (now - self.stamp) * self.per_minute * factor / 60.0)
        self.stamp = now

    def wait_for(self, amount: float, factor: float) -> float:
        """Seconds until ``amount`` can be taken (a request bigger than the capacity waits for a full bucket)."""
        need = min(amount, self.capacity) - self.level
        if need <= 1e-9 * max(1.0, amount):  # rounding of the refill must not ask for a sleep too short to advance
            return 0.0
        return need * 60.0 / (self.per_minute * factor)


class EndpointLimiter:
    """In-flight cap plus requests/tokens-per-minute buckets, shared by every thread of a study.

    Args:
        max_inflight: most requests open at once (None: no cap).
        rpm: requests per minute (None: no limit).
        tpm: prompt plus completion tokens per minute (None: no limit).
        clock, sleep: a monotonic clock and its sleep, injectable for tests.

    >>> limiter = EndpointLimiter(max_inflight=2)
    >>> with limiter.request(100) as slot:
    ...     slot.settle(80, 5)
    >>> limiter.usage.requests, limiter.usage.prompt_tokens
    (1, 80)
    """

    def __init__(self, max_inflight: int | None = None, rpm: float | None = None, tpm: float | None = None,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep) -> None:
        for name, value in (("max_inflight", max_inflight), ("rpm", rpm), ("tpm", tpm)):
            if value is not None and not (math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be above 0, got {value}")
        self.max_inflight, self.rpm, self.tpm = max_inflight, rpm, tpm
        self.clock, self.sleep = clock, sleep
        now = clock()
        self._requests = _Bucket(rpm, now) if rpm else None
        self._tokens = _Bucket(tpm, now) if tpm else None
        self._factor = 1.0  # <1 after 429s: scales the cap and both rates
        self._paused_until = now
        self._inflight = 0
        self._closed = False
        self._cond = threading.Condition()
        self.usage = Usage()

    # ---------------------------------------------------------------- limits now

    @property
    def inflight(self) -> int:
        return self._inflight

    def cap(self) -> int | None:
        """The in-flight cap now (the configured one, shrunk after 429s); None when uncapped."""
        if self.max_inflight is None:
            return None
        return max(1, int(self.max_inflight * self._factor))

    def _delay(self, tokens: float) -> float:
        """Seconds to wait before a request of ``tokens`` may start (0: now). Call with the lock held."""
        now = self.clock()
        delay = max(0.0, self._paused_until - now)
        for bucket, amount in ((self._requests, 1.0), (self._tokens, tokens)):
            if bucket is not None:
                bucket.refill(now, self._factor)
                delay = max(delay, bucket.wait_for(amount, self._factor))
        return delay

    # ---------------------------------------------------------------- requests

    @contextmanager
    def request(self, estimated_tokens: int) -> Iterator[_Slot]:
        """Hold one request slot: waits for the cap, the pause and both buckets, charges the estimate."""
        with self._cond:
            while True:
                if self._closed:
                    raise EndpointError("the study stopped: no further requests are sent", fatal=True)
                cap = self.cap()
                if cap is not None and self._inflight >= cap:
                    self._cond.wait()
                    continue
                delay = self._delay(estimated_tokens)
                if delay <= 0:
                    break
                if self.sleep is time.sleep:  # a real wait wakes early on close() (and re-checks on release)
                    self._cond.wait(delay)
                    continue
                self._cond.release()  # an injected sleep (a fake clock) runs without the lock
                try:
                    self.sleep(delay)
                finally:
                    self._cond.acquire()
            if self._requests is not None:
                self._requests.level -= 1.0
            if self._tokens is not None:
                self._tokens.level -= estimated_tokens
            self._inflight += 1
            self.usage.requests += 1
            self.usage.peak_inflight = max(self.usage.peak_inflight, self._inflight)
        slot = _Slot(self, estimated_tokens)
        try:
            yield slot
        finally:
            with self._cond:
                self._inflight -= 1
                self._cond.notify_all()

    def _settle(self, estimated: int, prompt_tokens: int, completion_tokens: int) -> None:
        with self._cond:
            if self._tokens is not None and prompt_tokens + completion_tokens:  # no usage: the estimate stands
                self._tokens.level += estimated - (prompt_tokens + completion_tokens)
            self.usage.prompt_tokens += prompt_tokens
            self.usage.completion_tokens += completion_tokens
            if self._factor < 1.0:
                self._factor = min(1.0, self._factor + RECOVERY)
            self._cond.notify_all()

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Refuse every further request (waiting ones too): the study that shared this limiter stopped."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def throttled(self, retry_after: float | None) -> None:
        """The server said 429: pause every new request and halve the cap and the rates."""
        with self._cond:
            self.usage.throttled += 1
            self._factor = max(MIN_FACTOR, self._factor / 2.0)
            wait = DEFAULT_PAUSE if retry_after is None else min(max(0.0, retry_after), RETRY_AFTER_MAX)
            self.usage.retry_after = wait
            self._paused_until = max(self._paused_until, self.clock() + wait)
            self._cond.notify_all()


class _Slot:
    """One admitted request; :meth:`settle` with the reply's usage when it comes back."""

    def __init__(self, limiter: EndpointLimiter, estimated: int) -> None:
        self.limiter, self.estimated = limiter, estimated
        self.settled = False

    def settle(self, prompt_tokens: int, completion_tokens: int) -> None:
        if not self.settled:
            self.settled = True
            self.limiter._settle(self.estimated, prompt_tokens, completion_tokens)


# ------------------------------------------------------------------ estimates

CHARS_PER_TOKEN = 4  # OpenAI's rule of thumb for English text


def image_tokens(png: bytes) -> int:
    """Prompt tokens of one image at OpenAI's ``detail: high``: 85 + 170 per 512-px tile after scaling.

    The image is scaled to fit 2048 x 2048, then its short side to 768; other
    providers count differently, so this is an estimate.

    >>> import struct; header = b"\\x89PNG\\r\\n\\x1a\\n" + b"\\0\\0\\0\\rIHDR" + struct.pack(">II", 512, 512)
    >>> image_tokens(header)
    255
    """
    if len(png) < 24 or png[12:16] != b"IHDR":
        return 765  # an image of unknown size: the 1024 x 1024 figure
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    if not width or not height:
        return 85
    scale = min(1.0, 2048 / max(width, height))
    width, height = width * scale, height * scale
    scale = min(1.0, 768 / min(width, height))
    width, height = width * scale, height * scale
    return 85 + 170 * math.ceil(width / 512) * math.ceil(height / 512)


def estimate_prompt_tokens(messages: list[dict[str, Any]]) -> int:
    """Prompt tokens of chat messages: text at :data:`CHARS_PER_TOKEN` plus :func:`image_tokens` per image."""
    tokens = 0
    for message in messages:
        content = message.get("content")
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        tokens += 4  # role and separators
        for part in parts:
            if not isinstance(part, dict):
                continue
            if part.get("type") == "image_url":
                url = str(part.get("image_url", {}).get("url", ""))
                tokens += image_tokens(_png_head(url))
            else:
                tokens += math.ceil(len(str(part.get("text", ""))) / CHARS_PER_TOKEN)
    return tokens


def _png_head(url: str) -> bytes:
    """The first bytes of an inline ``data:`` image (enough for the PNG header), else nothing."""
    if not url.startswith("data:") or "," not in url:
        return b""
    try:
        return base64.b64decode(url.split(",", 1)[1][:64])
    except ValueError:
        return b""


# ------------------------------------------------------------------ one per endpoint

_SHARED: dict[str, EndpointLimiter] = {}
_SHARED_GUARD = threading.Lock()


def shared_limiter(base_url: str, max_inflight: int | None, rpm: float | None,
                   tpm: float | None) -> EndpointLimiter | None:
    """The process's one limiter for this endpoint and these limits (None when nothing is limited).

    Every episode of a study builds its own client; they all get this object, so the
    limits hold study-wide across the episode threads. A closed limiter stays (so
    the leftover threads of a stopped study cannot start afresh) until :func:`renew`.
    """
    if max_inflight is None and rpm is None and tpm is None:
        return None
    key = json.dumps([base_url, max_inflight, rpm, tpm])
    with _SHARED_GUARD:
        limiter = _SHARED.get(key)
        if limiter is None:
            limiter = _SHARED[key] = EndpointLimiter(max_inflight, rpm, tpm)
        return limiter


def renew(limiter: EndpointLimiter) -> None:
    """Forget a closed limiter, so the next :func:`shared_limiter` call (a new study) gets a fresh one."""
    with _SHARED_GUARD:
        for key, held in list(_SHARED.items()):
            if held is limiter:
                del _SHARED[key]
