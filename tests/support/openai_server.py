"""A scriptable OpenAI-compatible chat-completions server on 127.0.0.1, for tests.

Real HTTP, so the real ``openai`` client is exercised end to end. Replies come
from a script (a queue of :class:`Reply`, consumed first) and then from a
responder callable. :func:`truth_responder` answers each question from a truth
function, so an agent test can run a whole episode against a "VLM" that is
right (or wrong) exactly where the test wants.

    with start_fake_openai(truth_responder(lambda q: q in true_questions)) as server:
        config = VLMConfig(model="fake", base_url=server.base_url, api_key="sk-test")

Fault-injection modes (:func:`server_error`, :func:`rate_limited`, :func:`hang`,
:func:`trickle`, :func:`oversized`, :func:`endless`, :func:`malformed`, :func:`not_yes_no`,
:func:`unauthorized`) build the scripted
replies of a misbehaving endpoint: ``server.script.extend([server_error(), Reply("Yes")])``.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable


@dataclass
class Reply:
    """One scripted HTTP reply.

    ``content`` is the assistant message; ``body`` (if set) is sent verbatim instead of
    a completion (for malformed replies); ``logprobs`` is a list of
    ``(token, logprob, [(alternative, logprob), ...])``.
    """

    content: str | None = "Yes"
    status: int = 200
    body: str | None = None
    delay: float = 0.0
    logprobs: list[tuple[str, float, list[tuple[str, float]]]] | None = None
    prompt_tokens: int = 11
    completion_tokens: int = 2
    headers: dict[str, str] = field(default_factory=dict)  # extra response headers, e.g. Retry-After
    trickle: float = 0.0  # send the body one byte per this many seconds (a slow-loris endpoint)
    endless: bool = False  # after the headers, send body bytes until the client hangs up (no Content-Length)


# Fault-injection modes: what misbehaving endpoints do, one scripted reply each.

def server_error(status: int = 503) -> Reply:
    """A 5xx (retried by the client)."""
    return Reply(status=status)


def rate_limited(retry_after: str | None = "2") -> Reply:
    """HTTP 429, with ``Retry-After`` (seconds or an HTTP date) unless None."""
    return Reply(status=429, headers={"Retry-After": retry_after} if retry_after is not None else {})


def hang(seconds: float = 2.0) -> Reply:
    """A reply that comes only after ``seconds`` (past the client's timeout)."""
    return Reply(delay=seconds)


def trickle(interval: float = 0.2, content: str = "Yes") -> Reply:
    """A completion whose body comes one byte every ``interval`` seconds: each read is quick, the whole is not."""
    return Reply(content, trickle=interval)


def oversized(size: int) -> Reply:
    """A completion whose text is ``size`` bytes long."""
    return Reply("Yes " + "x" * size)


def endless() -> Reply:
    """A 200 whose body never ends (chunks until the client hangs up)."""
    return Reply(endless=True)


def malformed(body: str = '{"choices": [{"message": ') -> Reply:
    """HTTP 200 whose body is not a chat completion (truncated JSON by default)."""
    return Reply(body=body)


def not_yes_no(text: str = "The image is too blurry to say.") -> Reply:
    """A well-formed completion whose text is not a yes/no answer."""
    return Reply(text)


def unauthorized(message: str = "Incorrect API key provided") -> Reply:
    """HTTP 401 (never retried; fatal for a study)."""
    return Reply(status=401, body=json.dumps({"error": {"message": message, "type": "invalid_request_error"}}))


ENDLESS_CHUNKS = 1024  # 64 MiB: "endless" for any sane reply cap


Responder = Callable[[dict[str, Any]], "Reply | str"]


def within(seconds: float, call):
    """``call()``'s result or exception, failing the test if it has not returned after ``seconds``."""
    box: dict = {}

    def run() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    start = time.monotonic()
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still running after {seconds} s"
    return box, time.monotonic() - start


def question_of(request: dict[str, Any]) -> str:
    """The question text (after ``Question:``) of a chat-completions request body."""
    for message in reversed(request.get("messages", [])):
        content = message.get("content")
        parts = [content] if isinstance(content, str) else [
            p.get("text", "") for p in content or [] if isinstance(p, dict) and p.get("type") == "text"]
        for text in reversed(parts):
            hit = re.search(r"Question:\s*(.*)", text, re.DOTALL)
            if hit:
                return hit.group(1).strip()
    return ""


def truth_responder(truth: Callable[[str], bool | None], cot: bool = False) -> Responder:
    """Answer "Yes"/"No" from ``truth(question)``; None gives an unreadable reply."""

    def respond(request: dict[str, Any]) -> Reply:
        value = truth(question_of(request))
        if value is None:
            return Reply("I cannot tell from this image.")
        word = "Yes" if value else "No"
        if cot:
            return Reply(f"<explanation>Looking at the image carefully.</explanation>\n<answer>{word}</answer>")
        return Reply(word)

    return respond


@dataclass
class FakeOpenAI:
    """The running server: its base URL, what it received, and its script."""

    responder: Responder
    refuse_logprobs: bool = False
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    script: deque[Reply] = field(default_factory=deque)
    base_url: str = ""
    _server: ThreadingHTTPServer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def next_reply(self, request: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(request)
            if self.script:
                return self.script.popleft()
        if self.refuse_logprobs and request.get("logprobs"):
            return Reply(status=400, body=json.dumps({"error": {"message": "logprobs are not supported",
                                                                 "type": "invalid_request_error"}}))
        out = self.responder(request)
        return Reply(out) if isinstance(out, str) else out

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeOpenAI:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _completion(reply: Reply, model: str) -> dict[str, Any]:
    choice: dict[str, Any] = {"index": 0, "finish_reason": "stop",
                              "message": {"role": "assistant", "content": reply.content}}
    if reply.logprobs is not None:
        choice["logprobs"] = {"content": [
            {"token": tok, "logprob": lp, "bytes": None,
             "top_logprobs": [{"token": t, "logprob": p, "bytes": None} for t, p in alts]}
            for tok, lp, alts in reply.logprobs]}
    return {"id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()), "model": model,
            "choices": [choice], "usage": {"prompt_tokens": reply.prompt_tokens,
                                           "completion_tokens": reply.completion_tokens,
                                           "total_tokens": reply.prompt_tokens + reply.completion_tokens}}


def start_fake_openai(responder: Responder | None = None, refuse_logprobs: bool = False) -> FakeOpenAI:
    """Start a server on a free port of 127.0.0.1; ``base_url`` ends in ``/v1``. Stop it with ``stop()``."""
    fake = FakeOpenAI(responder or (lambda request: Reply("Yes")), refuse_logprobs)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # keep test output quiet
            pass

        def _send(self, status: int, body: str, headers: dict[str, str] | None = None, trickle: float = 0.0,
                  endless: bool = False) -> None:
            data = body.encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                if endless:
                    self.send_header("Connection", "close")
                    self.end_headers()
                    chunk = b" " * 65536
                    for _ in range(ENDLESS_CHUNKS):  # until the client hangs up (bounded, so a test of
                        self.wfile.write(chunk)      # a client without a size cap cannot eat the machine)
                    return
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if trickle:
                    for i in range(len(data)):
                        self.wfile.write(data[i:i + 1])
                        self.wfile.flush()
                        time.sleep(trickle)
                else:
                    self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError, OSError):
                pass  # the client gave up (timeout test)

        def do_GET(self) -> None:  # noqa: N802 - http.server naming
            self._send(200, json.dumps({"object": "list", "data": [{"id": "fake", "object": "model"}]}))

        def do_POST(self) -> None:  # noqa: N802
            length = int(self.headers.get("Content-Length", 0))
            try:
                request = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                request = {}
            with fake._lock:
                fake.headers.append({**{k.lower(): v for k, v in self.headers.items()}, ":path": self.path})
            reply = fake.next_reply(request)
            if reply.delay:
                time.sleep(reply.delay)
            if reply.endless or reply.trickle:
                self._send(200, json.dumps(_completion(reply, request.get("model", "fake"))), reply.headers,
                           reply.trickle, reply.endless)
            elif reply.body is not None:
                self._send(reply.status, reply.body, reply.headers)
            elif reply.status != 200:
                self._send(reply.status, json.dumps({"error": {"message": f"scripted HTTP {reply.status}",
                                                               "type": "server_error"}}), reply.headers)
            else:
                self._send(200, json.dumps(_completion(reply, request.get("model", "fake"))), reply.headers)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    fake._server = server
    fake.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    return fake
