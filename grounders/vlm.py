"""The VLM grounder: yes/no questions to any OpenAI-compatible chat endpoint.

This is the only module that imports ``openai``. It works with OpenAI, vLLM,
Ollama or anything else that speaks the chat-completions API with image inputs.
Real endpoints fail in ordinary ways (rate limits, 5xx, timeouts, dropped
connections, odd replies), so :meth:`VLMGrounder.ask` never raises for them: it
retries with exponential backoff, then returns an ``error`` answer (verdict
UNKNOWN) whose ``raw`` says what went wrong in words a CLI can print. The API
key is held by the client only: it is never part of a cache key, a log record
or an error text (error texts are scrubbed of it).
"""

from __future__ import annotations

import base64
import hashlib
import math
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Sequence

import openai

from grounders.cache import ReplyCache, cache_key
from grounders.prompts import PromptSet, prompt_set
from grounders.records import AnswerRecord, RecordWriter
from toolkit.answers import parse_answer
from toolkit.errors import PgtError
from toolkit.model import Atom
from toolkit.protocols import Answer, Observation, Verdict
from toolkit.questions import QuestionBook

_RETRY_STATUS = {408, 409, 429}


@dataclass(frozen=True)
class VLMConfig:
    """Endpoint and behaviour of a :class:`VLMGrounder`; ``api_key`` is never printed."""

    model: str
    base_url: str | None = None
    api_key: str = field(default="", repr=False)
    cot: bool = False
    max_concurrency: int = 4
    max_retries: int = 4
    backoff_base: float = 1.0
    backoff_max: float = 30.0
    timeout: float = 60.0
    temperature: float = 0.0
    max_tokens: int | None = None  # None: 32 without CoT, 1024 with CoT
    logprobs: bool = True
    default_confidence: float = 1.0  # used when the endpoint gives no log-probabilities
    ask_invisible: bool = False  # ask about atoms the observation cannot show
    cache_path: str | None = None
    log_path: str | None = None

    @classmethod
    def from_env(cls, **overrides: Any) -> VLMConfig:
        """Config from flags (``overrides``, None values ignored) over the environment.

        Environment: ``OPENAI_API_KEY``, ``OPENAI_BASE_URL``, ``PGT_VLM_MODEL`` (or ``OPENAI_MODEL``).
        """
        given = {k: v for k, v in overrides.items() if v is not None}
        given.setdefault("api_key", os.environ.get("OPENAI_API_KEY", ""))
        given.setdefault("base_url", os.environ.get("OPENAI_BASE_URL") or None)
        model = given.pop("model", None) or os.environ.get("PGT_VLM_MODEL") or os.environ.get("OPENAI_MODEL")
        if not model:
            raise PgtError("no model name: pass --model or set PGT_VLM_MODEL")
        return cls(model=model, **given)


class _Fatal(Exception):
    """An endpoint failure that retrying will not fix (or retries are exhausted)."""


class VLMGrounder:
    """Asks a VLM one question per atom about the observation's image.

    Args:
        book: the question book of the task (questions, prompt style, scene text).
        config: endpoint and behaviour.
    """

    name = "vlm"

    def __init__(self, book: QuestionBook, config: VLMConfig) -> None:
        self.book = book
        self.config = config
        self.prompts: PromptSet = prompt_set(book.prompt_style, config.cot, book.scene)
        self.cache = ReplyCache(config.cache_path) if config.cache_path else None
        self.log = RecordWriter(config.log_path) if config.log_path else None
        self.last_error: str | None = None
        self._logprobs_ok = config.logprobs
        self._client = openai.OpenAI(api_key=config.api_key or "EMPTY", base_url=config.base_url,
                                     timeout=config.timeout, max_retries=0)
        self._where = config.base_url or "https://api.openai.com/v1"

    # -------------------------------------------------------------- public

    def ask(self, observation: Observation, atoms: Sequence[Atom]) -> list[Answer]:
        """One answer per atom; endpoint failures become ``error`` answers, never exceptions."""
        try:
            png = observation.png()
        except Exception as exc:  # noqa: BLE001 - a broken renderer must not abort the episode
            return [self._error(a, f"no image to ask about: {exc}") for a in atoms]
        image_hash = hashlib.sha256(png).hexdigest()
        data_url = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
        abort: list[str] = []  # set once a failure makes further calls pointless in this batch

        def one(atom: Atom) -> Answer:
            if not self.config.ask_invisible and not observation.can_see(atom):
                return Answer(atom, Verdict.UNKNOWN, 0.5, "not visible", self.book.question(atom), "not_visible")
            answer, cached = self._ask_one(atom, data_url, image_hash, abort)
            if self.log is not None:
                self.log.write(AnswerRecord.from_answer(answer, observation.state_key, observation.step,
                                                        self.name, self.config.model, cached))
            return answer

        workers = max(1, min(self.config.max_concurrency, len(atoms)))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(one, atoms))

    # ------------------------------------------------------------- one call

    def _ask_one(self, atom: Atom, data_url: str, image_hash: str, abort: list[str]) -> tuple[Answer, bool]:
        question = self.book.question(atom)
        user_text = self.prompts.user_text(question)
        key = cache_key(model=self.config.model, system=self.prompts.system, preamble=self.prompts.user_preamble,
                        user=user_text, image=image_hash, temperature=self.config.temperature,
                        max_tokens=self._max_tokens())
        if self.cache is not None and (hit := self.cache.get(key)) is not None:
            return self._answer(atom, question, hit["raw"], hit.get("p_yes"), 0, 0), True
        if abort:
            return self._error(atom, abort[0], question), False
        try:
            reply = self._call(user_text, data_url)
        except _Fatal as exc:
            message = self._scrub(str(exc))
            self.last_error = message
            abort.append(message)
            return self._error(atom, message, question), False
        if self.cache is not None:
            self.cache.put(key, reply)
        return self._answer(atom, question, reply["raw"], reply["p_yes"],
                            reply["prompt_tokens"], reply["completion_tokens"]), False

    def _max_tokens(self) -> int:
        return self.config.max_tokens or (1024 if self.config.cot else 32)

    def _messages(self, user_text: str, data_url: str) -> list[dict[str, Any]]:
        content: list[dict[str, Any]] = []
        if self.prompts.user_preamble:
            content.append({"type": "text", "text": self.prompts.user_preamble})
        content.append({"type": "image_url", "image_url": {"url": data_url}})
        content.append({"type": "text", "text": user_text})
        return [{"role": "system", "content": self.prompts.system}, {"role": "user", "content": content}]

    def _call(self, user_text: str, data_url: str) -> dict[str, Any]:
        """One completion with retries; returns raw text, log-prob confidence and token counts."""
        messages = self._messages(user_text, data_url)
        attempt = 0
        while True:
            kwargs: dict[str, Any] = {"model": self.config.model, "messages": messages,
                                      "temperature": self.config.temperature, "max_tokens": self._max_tokens()}
            if self._logprobs_ok:
                kwargs.update(logprobs=True, top_logprobs=5)
            try:
                response = self._client.chat.completions.create(**kwargs)
                return self._read(response)
            except openai.BadRequestError as exc:
                if self._logprobs_ok:  # the endpoint may refuse logprobs: ask again without them
                    self._logprobs_ok = False
                    continue
                raise _Fatal(f"{self._where} refused the request (HTTP 400): {_detail(exc)}") from None
            except openai.AuthenticationError as exc:
                raise _Fatal(f"authentication failed at {self._where} (HTTP 401): check OPENAI_API_KEY; "
                             f"{_detail(exc)}") from None
            except openai.PermissionDeniedError as exc:
                raise _Fatal(f"permission denied at {self._where} (HTTP 403): {_detail(exc)}") from None
            except openai.NotFoundError as exc:
                raise _Fatal(f"not found at {self._where} (HTTP 404): wrong base URL or unknown model "
                             f"'{self.config.model}'; {_detail(exc)}") from None
            except openai.APITimeoutError:
                failure = f"timed out after {self.config.timeout:g} s waiting for {self._where}"
            except openai.APIConnectionError as exc:
                failure = f"cannot connect to {self._where}: {_detail(exc)}"
            except openai.APIStatusError as exc:
                if exc.status_code not in _RETRY_STATUS and exc.status_code < 500:
                    raise _Fatal(f"{self._where} answered HTTP {exc.status_code}: {_detail(exc)}") from None
                failure = f"{self._where} answered HTTP {exc.status_code}: {_detail(exc)}"
            except (openai.APIError, ValueError, TypeError, AttributeError, KeyError, IndexError) as exc:
                raise _Fatal(f"malformed reply from {self._where}: {type(exc).__name__}: {exc}") from None
            if attempt >= self.config.max_retries:
                raise _Fatal(f"{failure} (gave up after {attempt + 1} attempt(s))")
            time.sleep(min(self.config.backoff_max, self.config.backoff_base * 2**attempt))
            attempt += 1

    def _read(self, response: Any) -> dict[str, Any]:
        if not getattr(response, "choices", None):
            raise ValueError("the reply has no choices")
        choice = response.choices[0]
        raw = choice.message.content
        if raw is None:
            raise ValueError("the reply has no message content")
        usage = getattr(response, "usage", None)
        return {"raw": raw, "p_yes": _logprob_yes(getattr(choice, "logprobs", None)),
                "prompt_tokens": int(getattr(usage, "prompt_tokens", 0) or 0),
                "completion_tokens": int(getattr(usage, "completion_tokens", 0) or 0)}

    # ------------------------------------------------------------- answers

    def _answer(self, atom: Atom, question: str, raw: str, p_yes: float | None, pt: int, ct: int) -> Answer:
        parsed = parse_answer(raw)
        if parsed.verdict is Verdict.UNKNOWN:
            return Answer(atom, Verdict.UNKNOWN, 0.5, raw, question, "unparseable", pt, ct)
        if p_yes is None:
            confidence = self.config.default_confidence
        else:
            confidence = p_yes if parsed.verdict is Verdict.YES else round(1.0 - p_yes, 6)
        return Answer(atom, parsed.verdict, confidence, raw, question, "ok", pt, ct)

    def _error(self, atom: Atom, message: str, question: str | None = None) -> Answer:
        return Answer(atom, Verdict.UNKNOWN, 0.5, self._scrub(message),
                      question if question is not None else self.book.question(atom), "error")

    def _scrub(self, text: str) -> str:
        key = self.config.api_key
        return text.replace(key, "***") if key and len(key) >= 4 else text


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


def _word(token: Any) -> str:
    return str(getattr(token, "token", "")).strip().strip("*\"'.<>").lower()


def _logprob_yes(logprobs: Any) -> float | None:
    """P(yes) / (P(yes) + P(no)) at the last yes/no token of the reply (the answer), if logprobs came back."""
    tokens = getattr(logprobs, "content", None) or []
    for token in reversed(tokens):
        word = _word(token)
        if word not in ("yes", "no"):
            continue
        mass = {"yes": 0.0, "no": 0.0}
        for alt in getattr(token, "top_logprobs", None) or []:
            if _word(alt) in mass:
                mass[_word(alt)] += math.exp(float(getattr(alt, "logprob", -math.inf)))
        if mass[word] == 0.0:
            mass[word] = math.exp(float(getattr(token, "logprob", 0.0)))
        total = mass["yes"] + mass["no"]
        return round(mass["yes"] / total, 6) if total > 0 else None
    return None
