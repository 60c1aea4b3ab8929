"""The one client for OpenAI-compatible chat endpoints: retries, timeouts, reply cache.

Both VLM users (the grounder, :mod:`grounders.vlm`, and the VLM-as-planner
proposer, :mod:`grounders.proposers`) call :meth:`ChatClient.complete`, so retry
policy, error classification and caching live here once. Real endpoints fail
in ordinary ways; the policy is:

* 408, 409, 429, 5xx, timeouts and dropped connections are retried up to
  ``max_retries`` times. The wait honours the server's ``Retry-After`` (seconds
  or an HTTP date, capped at ``retry_after_max``) and otherwise is a *full
  jitter* exponential backoff, ``uniform(0, min(backoff_max, backoff_base * 2**n))``,
  so parallel requests that failed together do not come back together.
* 401, 403, 404 and other 4xx are not retried: they would fail again.
* What is left after retries raises :class:`~toolkit.errors.EndpointError`
  with ``fatal`` saying whether every further request would fail the same way
  (bad key, unknown model, nothing listening) or the failure was transient.
* A 200 reply that is not a chat completion raises
  :class:`~toolkit.errors.MalformedReplyError` (not retried, not fatal): the
  caller records it as one error answer and carries on with the others.

The API key lives in the ``openai`` client only: it is never part of a cache
key. It and the secrets of the base URL (user-info, ``?api-key=``-like query
values, the Basic-auth form derived from them) are registered with
:mod:`toolkit.redact`, the one scrubber every error text, cached reply and
written record passes through; messages name the endpoint by its redacted URL.
``--timeout`` bounds the whole request and ``--max-reply-bytes`` its body, both
enforced while the reply streams in (:mod:`grounders.transport`). The cache key includes the base
URL, so another endpoint serving a model of the same name is asked afresh; a
request another thread is already sending waits for that reply (one payment).
Study-wide limits (in flight, per minute) come from a shared
:class:`~grounders.limits.EndpointLimiter` that every attempt passes through.
``sleep``, ``now`` and ``rng`` are injectable so tests check waits without waiting.
``openai`` is imported only when a client is built, so checking flags stays cheap.
"""

from __future__ import annotations

import email.utils
import hashlib
import json
import math
import random
import threading
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable
from urllib.parse import parse_qsl, urlparse, urlsplit, urlunsplit

from grounders.cache import ReplyCache, cache_key
from grounders.limits import RETRY_AFTER_MAX, EndpointLimiter, estimate_prompt_tokens
from toolkit.errors import EndpointError, MalformedReplyError
from toolkit.redact import redact, redact_url, register_secret, register_url

DEFAULT_BASE_URL = "https://api.openai.com/v1"
_PENDING: dict[str, threading.Event] = {}  # cache keys being fetched by some thread of this process
_PENDING_GUARD = threading.Lock()
_RETRY_STATUS = {408, 409, 429}
DEFAULT_MAX_REPLY_BYTES = 4 * 1024 * 1024  # a 1024-token reply with top-5 logprobs is about 0.5 MB

Logprobs = list[tuple[str, float, list[tuple[str, float]]]]  # (token, logprob, [(alternative, logprob)])


@dataclass(frozen=True)
class RetryPolicy:
    """How long a request may take and how failures are retried."""

    timeout: float = 60.0  # seconds for a whole HTTP request (connect, send, wait, read the body)
    max_retries: int = 4  # retries after the first attempt
    backoff_base: float = 1.0
    backoff_max: float = 30.0
    retry_after_max: float = RETRY_AFTER_MAX  # a longer Retry-After is clamped to this
    max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES  # a longer reply body is dropped while it streams in

    def __post_init__(self) -> None:
        check_timeout(self.timeout)
        check_max_retries(self.max_retries)
        check_max_reply_bytes(self.max_reply_bytes)


@dataclass(frozen=True)
class Completion:
    """One chat completion, reduced to what pgt reads (JSON-able, so it can be cached)."""

    text: str
    logprobs: Logprobs | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool = field(default=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        del data["cached"]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Completion:
        lp = data.get("logprobs")
        logprobs = None if lp is None else [(t, float(p), [(a, float(q)) for a, q in alts]) for t, p, alts in lp]
        return cls(str(data["text"]), logprobs, int(data.get("prompt_tokens", 0)),
                   int(data.get("completion_tokens", 0)), cached=True)


def check_timeout(value: float) -> float:
    if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
        raise EndpointError(f"--timeout must be a positive number of seconds, got {value}", fatal=True)
    return float(value)


def check_max_reply_bytes(value: int) -> int:
    if not isinstance(value, int) or value < 1024:
        raise EndpointError(f"--max-reply-bytes must be at least 1024, got {value}", fatal=True)
    return value


def check_max_retries(value: int) -> int:
    if not isinstance(value, int) or value < 0:
        raise EndpointError(f"--max-retries must be 0 or more, got {value}", fatal=True)
    return value


def check_base_url(url: str | None) -> str:
    """The endpoint's base URL without a trailing slash (the default OpenAI one for None)."""
    if not url:
        return DEFAULT_BASE_URL
    parts = urlparse(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise EndpointError(f"--base-url must be an http(s) URL such as http://localhost:8000/v1, got {url!r}",
                            fatal=True)
    return url.rstrip("/")


def retry_after(headers: Any, now: float) -> float | None:
    """Seconds the server asked us to wait (``Retry-After`` as seconds or HTTP date, or ``retry-after-ms``).

    >>> retry_after({"retry-after": "3"}, 0.0), retry_after({"retry-after-ms": "250"}, 0.0)
    (3.0, 0.25)
    >>> retry_after({"retry-after": "Thu, 01 Jan 1970 00:00:10 GMT"}, 4.0)
    6.0
    >>> retry_after({"retry-after": "soon"}, 0.0) is None
    True
    """
    if headers is None:
        return None
    get = headers.get
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = get(name) or get(name.title())
        if not value:
            continue
        try:
            seconds = float(value) * scale
        except ValueError:
            try:
                when = email.utils.parsedate_to_datetime(value)
            except (TypeError, ValueError, IndexError):
                continue
            seconds = when.timestamp() - now
        if math.isfinite(seconds):
            return max(0.0, seconds)
    return None


class ChatClient:
    """Chat completions from one endpoint and model, with retries and an optional reply cache."""

    def __init__(self, model: str, base_url: str | None = None, api_key: str = "",
                 policy: RetryPolicy = RetryPolicy(), cache: ReplyCache | None = None,
                 sleep: Callable[[float], None] = time.sleep, now: Callable[[], float] = time.time,
                 rng: random.Random | None = None, limiter: EndpointLimiter | None = None) -> None:
        self.model = model
        self.limiter = limiter  # study-wide in-flight and per-minute limits, shared by every episode's client
        self.base_url = check_base_url(base_url)
        register_secret(api_key)
        register_url(self.base_url)
        self.shown_url = redact_url(self.base_url) or self.base_url  # what messages say
        self.policy, self.cache = policy, cache
        self.sleep, self.now = sleep, now
        self.rng = rng or random.SystemRandom()  # no shared state: forked workers never draw alike
        self.waits: list[float] = []  # every backoff wait, for logs and tests
        self._key = api_key
        self._logprobs_ok = True
        import openai

        from grounders.transport import guarded_http_client

        url, query = _split_query(self.base_url)
        self._client = openai.OpenAI(api_key=api_key or "EMPTY", base_url=url, default_query=query or None,
                                     timeout=policy.timeout, max_retries=0,
                                     http_client=guarded_http_client(policy.timeout, policy.max_reply_bytes))

    def scrub(self, text: str) -> str:
        """``text`` without any secret (:func:`toolkit.redact.redact`)."""
        return redact(text)

    def complete(self, messages: list[dict[str, Any]], temperature: float = 0.0, max_tokens: int = 256,
                 logprobs: bool = False) -> Completion:
        """One completion (from the cache if it holds this exact request); raises EndpointError.

        With a cache, a request that another thread of this process is already
        sending waits for that reply and reads it from the cache, as a sequential
        run would: concurrent episodes of one problem (several seeds) ask the same
        first questions at once, and each would otherwise be paid for.
        """
        if self.cache is None:
            return self._with_retries(messages, temperature, max_tokens, logprobs)
        key = cache_key(base_url=self.base_url, model=self.model, messages=_digest_images(messages),
                        temperature=temperature, max_tokens=max_tokens, logprobs=logprobs)
        while True:
            if (hit := self.cache.get(key)) is not None:
                return Completion.from_json(hit)
            with _PENDING_GUARD:
                pending = _PENDING.get(key)
                if pending is None:
                    pending = _PENDING[key] = threading.Event()
                    break
            pending.wait()  # the other request's reply is in the cache now (or it failed: ask ourselves)
        try:
            if (hit := self.cache.get(key)) is not None:  # put by a request that finished since our look-up
                return Completion.from_json(hit)
            reply = self._with_retries(messages, temperature, max_tokens, logprobs)
            self.cache.put(key, reply.to_json())
            return reply
        finally:
            with _PENDING_GUARD:
                del _PENDING[key]
            pending.set()

    def _with_retries(self, messages: list[dict[str, Any]], temperature: float, max_tokens: int,
                      logprobs: bool) -> Completion:
        import openai

        from grounders.transport import ReplyTooLarge

        attempt = 0
        while True:
            kwargs: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": temperature,
                                      "max_tokens": max_tokens}
            if logprobs and self._logprobs_ok:
                kwargs.update(logprobs=True, top_logprobs=5)
            server_wait: float | None = None
            try:
                return self._send(kwargs)
            except openai.BadRequestError as exc:
                if "logprobs" in kwargs:  # some endpoints refuse logprobs: ask again without them
                    self._logprobs_ok = False
                    continue
                raise self._fail(f"{self.shown_url} refused the request (HTTP 400): {_detail(exc)}", True, 400)
            except openai.AuthenticationError as exc:
                raise self._fail(f"authentication failed at {self.shown_url} (HTTP 401): check OPENAI_API_KEY; "
                                 f"{_detail(exc)}", True, 401)
            except openai.PermissionDeniedError as exc:
                raise self._fail(f"permission denied at {self.shown_url} (HTTP 403): {_detail(exc)}", True, 403)
            except openai.NotFoundError as exc:
                raise self._fail(f"not found at {self.shown_url} (HTTP 404): wrong base URL or unknown model "
                                 f"'{self.model}'; {_detail(exc)}", True, 404)
            except ReplyTooLarge as exc:  # asked again, it would be paid for again and come back as large
                raise MalformedReplyError(self.scrub(f"{self.shown_url}: {exc}")) from None
            except openai.APITimeoutError:
                failure, fatal, status = f"timed out after {self.policy.timeout:g} s waiting for {self.shown_url}", \
                    False, None
            except openai.APIConnectionError as exc:
                # refused or unresolvable: every later request fails alike; a dropped connection may not
                fatal = type(exc.__cause__).__name__ in ("ConnectError", "UnsupportedProtocol")
                failure, status = f"cannot connect to {self.shown_url}: {_detail(exc)}", None
            except openai.APIStatusError as exc:
                status = exc.status_code
                failure = f"{self.shown_url} answered HTTP {status}: {_detail(exc)}"
                if status not in _RETRY_STATUS and status < 500:
                    raise self._fail(failure, True, status)
                fatal = False
                server_wait = retry_after(getattr(exc.response, "headers", None), self.now())
                if server_wait is not None:  # a day-long Retry-After must not stall the study for a day
                    server_wait = min(server_wait, self.policy.retry_after_max)
                if status == 429 and self.limiter is not None:  # slow the whole study, not just this request
                    self.limiter.throttled(server_wait)
            except (openai.APIError, ValueError, TypeError, AttributeError, KeyError, IndexError) as exc:
                raise MalformedReplyError(self.scrub(f"malformed reply from {self.shown_url}: "
                                                     f"{type(exc).__name__}: {exc}")) from None
            if attempt >= self.policy.max_retries:
                raise self._fail(f"{failure} (gave up after {attempt + 1} attempt(s))", fatal, status)
            self._wait(attempt, server_wait)
            attempt += 1

    def _send(self, kwargs: dict[str, Any]) -> Completion:
        """One HTTP request, admitted by the limiter (if any) and settled with the reply's token usage."""
        if self.limiter is None:
            return _read(self._client.chat.completions.create(**kwargs))
        estimate = estimate_prompt_tokens(kwargs["messages"]) + int(kwargs["max_tokens"])
        with self.limiter.request(estimate) as slot:
            reply = _read(self._client.chat.completions.create(**kwargs))
            slot.settle(reply.prompt_tokens, reply.completion_tokens)
            return reply

    def _wait(self, attempt: int, server_wait: float | None) -> None:
        p = self.policy
        if server_wait is not None:  # "not before": wait that long, plus a little jitter to spread clients
            delay = min(server_wait, p.retry_after_max) + self.rng.uniform(0.0, p.backoff_base)
        else:
            delay = self.rng.uniform(0.0, min(p.backoff_max, p.backoff_base * 2**attempt))
        self.waits.append(delay)
        self.sleep(delay)

    def _fail(self, message: str, fatal: bool, status: int | None) -> EndpointError:
        return EndpointError(self.scrub(message), fatal=fatal, status=status)


def _split_query(url: str) -> tuple[str, dict[str, str]]:
    """A base URL without its query, and the query's parameters (sent with every request, as Azure's
    ``?api-version=`` must be: the ``openai`` client would append the path after the query)."""
    parts = urlsplit(url)
    if not parts.query:
        return url, {}
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", "")), dict(parse_qsl(parts.query,
                                                                                      keep_blank_values=True))


def _digest_images(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages with every inline image replaced by its SHA-256 (a short, equivalent cache key part)."""
    text = json.dumps(messages, sort_keys=True)
    if "data:image" not in text:
        return messages
    out = json.loads(text)
    for message in out:
        for part in message.get("content") if isinstance(message.get("content"), list) else []:
            url = part.get("image_url", {}).get("url", "") if isinstance(part, dict) else ""
            if url.startswith("data:"):
                part["image_url"]["url"] = "sha256:" + hashlib.sha256(url.encode()).hexdigest()
    return out


def _read(response: Any) -> Completion:
    if not getattr(response, "choices", None):
        raise ValueError("the reply has no choices")
    choice = response.choices[0]
    text = choice.message.content
    if text is None:
        raise ValueError("the reply has no message content")
    usage = getattr(response, "usage", None)
    tokens = getattr(getattr(choice, "logprobs", None), "content", None)
    logprobs = None if tokens is None else [
        (str(t.token), float(t.logprob), [(str(a.token), float(a.logprob)) for a in t.top_logprobs or []])
        for t in tokens]
    # an endpoint that echoes the key (or the base URL's secrets) must not get it into answers, records or the cache
    return Completion(redact(str(text)), logprobs, int(getattr(usage, "prompt_tokens", 0) or 0),
                      int(getattr(usage, "completion_tokens", 0) or 0))


def _detail(exc: Exception) -> str:
    """A short description of an openai exception (the server's message if it sent one)."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error") if isinstance(body.get("error"), dict) else body
        if inner.get("message"):
            return str(inner["message"])
    cause = exc.__cause__ or exc.__context__
    text = str(exc)
    return f"{text} ({cause})" if cause and str(cause) not in text else text
