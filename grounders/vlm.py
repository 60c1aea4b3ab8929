"""The VLM grounder: yes/no questions to any OpenAI-compatible chat endpoint.

Works with OpenAI, vLLM, Ollama or anything else that speaks the chat-completions
API with image inputs. HTTP, retries, timeouts and the reply cache are the job of
:class:`grounders.client.ChatClient` (shared with the VLM plan proposer); this
module turns questions into prompts and replies into verdicts.

Failure handling, per batch of questions about one image: a reply that is not
yes/no is an ``unparseable`` answer and a malformed reply an ``error`` answer,
both keeping the reply or error text in ``raw``, and the other questions of the
batch are still asked. An endpoint that fails after retries raises
:class:`~toolkit.errors.EndpointError` (``fatal`` when it would fail again for
every episode), so a study records an episode that could not be judged as an
error instead of a failure. The API key is never part of a cache key, a log
record or an error text.
"""

from __future__ import annotations

import base64
import dataclasses
import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Sequence

from grounders.cache import ReplyCache
from grounders.client import ChatClient, Completion, Logprobs, RetryPolicy, check_base_url
from grounders.limits import EndpointLimiter, shared_limiter
from grounders.prompts import PromptSet, prompt_set
from grounders.records import AnswerRecord, RecordWriter
from toolkit.answers import parse_answer, parse_viplan_answer
from toolkit.errors import EndpointError, GrounderError, MalformedReplyError
from toolkit.model import Atom
from toolkit.protocols import Answer, Observation, Verdict
from toolkit.questions import QuestionBook


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
    timeout: float = 60.0  # seconds for a whole request
    max_reply_bytes: int | None = None  # None: grounders.client.DEFAULT_MAX_REPLY_BYTES
    temperature: float = 0.0
    max_tokens: int | None = None  # None: 32 without CoT, 1024 with CoT
    logprobs: bool = True
    default_confidence: float = 1.0  # used when the endpoint gives no log-probabilities
    ask_invisible: bool = False  # ask about atoms the observation cannot show
    answer_reading: str = "pgt"  # "viplan": replies read as ViPlan's code reads them (the ViPlan protocols)
    cache_path: str | None = None
    log_path: str | None = None
    max_inflight: int | None = None  # study-wide limits (grounders.limits), shared by every client of the endpoint
    rpm: float | None = None
    tpm: float | None = None

    @classmethod
    def from_env(cls, **overrides: Any) -> VLMConfig:
        """Config from flags (``overrides``, None values ignored) over the environment.

        Environment: ``OPENAI_API_KEY``, ``OPENAI_BASE_URL``, ``PGT_VLM_MODEL`` (or ``OPENAI_MODEL``).
        """
        given = {k: v for k, v in overrides.items() if v is not None}
        given.setdefault("api_key", os.environ.get("OPENAI_API_KEY", ""))
        given.setdefault("base_url", os.environ.get("OPENAI_BASE_URL") or None)
        model = given.pop("model", None) or env_model()
        if not model:
            raise GrounderError("no model name: pass --model or set PGT_VLM_MODEL", fatal=True)
        return cls(model=model, **given)

    def policy(self) -> RetryPolicy:
        policy = RetryPolicy(self.timeout, self.max_retries, self.backoff_base, self.backoff_max)
        if self.max_reply_bytes is not None:
            policy = dataclasses.replace(policy, max_reply_bytes=self.max_reply_bytes)
        return policy

    def limiter(self) -> EndpointLimiter | None:
        """The process's one limiter for this endpoint and limits (None when none is set)."""
        return shared_limiter(check_base_url(self.base_url), self.max_inflight, self.rpm, self.tpm)

    def client(self) -> ChatClient:
        """A chat client for this endpoint: retry policy, reply cache and the shared limiter."""
        return ChatClient(self.model, self.base_url, self.api_key, self.policy(),
                          ReplyCache(self.cache_path) if self.cache_path else None, limiter=self.limiter())


def env_model() -> str | None:
    """The model named by the environment (``PGT_VLM_MODEL``, then ``OPENAI_MODEL``)."""
    return os.environ.get("PGT_VLM_MODEL") or os.environ.get("OPENAI_MODEL") or None


class VLMGrounder:
    """Asks a VLM one question per atom about the observation's image.

    Args:
        book: the question book of the task (questions, prompt style, scene text).
        config: endpoint and behaviour.
        client: the chat client (built from ``config`` if not given; tests inject one with a fake clock).
    """

    name = "vlm"

    def __init__(self, book: QuestionBook, config: VLMConfig, client: ChatClient | None = None) -> None:
        self.book = book
        self.config = config
        self.prompts: PromptSet = prompt_set(book.prompt_style, config.cot, book.scene)
        self.log = RecordWriter(config.log_path) if config.log_path else None
        self.last_error: str | None = None
        self.client = client or config.client()

    # -------------------------------------------------------------- public

    def ask(self, observation: Observation, atoms: Sequence[Atom],
            questions: Sequence[str] | None = None) -> list[Answer]:
        """One answer per atom; raises EndpointError when the endpoint fails after retries.

        ``questions`` optionally words each one (default: the book's canonical question),
        so an agent can ask a temperature-0 model a second time in other words.
        """
        if questions is not None and len(questions) != len(atoms):
            raise ValueError(f"ask: {len(questions)} question texts for {len(atoms)} atoms")
        wording = dict(zip(atoms, questions)) if questions is not None else {}
        try:
            png = observation.png()
        except Exception as exc:  # noqa: BLE001 - a broken renderer must not abort the episode
            return [self._error(a, f"no image to ask about: {exc}") for a in atoms]
        data_url = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
        failed: list[EndpointError] = []  # once the endpoint is down, the rest of the batch is not sent
        lock = threading.Lock()

        def one(atom: Atom) -> Answer | None:
            if not self.config.ask_invisible and not observation.can_see(atom):
                return Answer(atom, Verdict.UNKNOWN, 0.5, "not visible", self.book.question(atom), "not_visible")
            if failed:
                return None
            try:
                answer, cached = self._ask_one(atom, data_url, wording.get(atom))
            except MalformedReplyError as exc:  # one bad reply: an error answer, the batch goes on
                answer, cached = self._error(atom, str(exc)), False
            except EndpointError as exc:
                with lock:
                    failed.append(exc)
                self.last_error = str(exc)
                return None
            if self.log is not None:
                self.log.write(AnswerRecord.from_answer(answer, observation.state_key, observation.step,
                                                        self.name, self.config.model, cached))
            return answer

        workers = max(1, min(max(self.config.max_concurrency, self.config.max_inflight or 0), len(atoms)))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            answers = list(pool.map(one, atoms))
        if failed:
            raise next((e for e in failed if e.fatal), failed[0])
        return [a for a in answers if a is not None]

    # ------------------------------------------------------------- one call

    def _ask_one(self, atom: Atom, data_url: str, question: str | None = None) -> tuple[Answer, bool]:
        question = question or self.book.question(atom)
        reply = self.client.complete(self._messages(self.prompts.user_text(question), data_url),
                                     self.config.temperature, self._max_tokens(), self.config.logprobs)
        return self._answer(atom, question, reply), reply.cached

    def _max_tokens(self) -> int:
        return self.config.max_tokens or (1024 if self.config.cot else 32)

    def _messages(self, user_text: str, data_url: str) -> list[dict[str, Any]]:
        content: list[dict[str, Any]] = []
        if self.prompts.user_preamble:
            content.append({"type": "text", "text": self.prompts.user_preamble})
        content.append({"type": "image_url", "image_url": {"url": data_url}})
        content.append({"type": "text", "text": user_text})
        return [{"role": "system", "content": self.prompts.system}, {"role": "user", "content": content}]

    # ------------------------------------------------------------- answers

    def _answer(self, atom: Atom, question: str, reply: Completion) -> Answer:
        pt, ct = (0, 0) if reply.cached else (reply.prompt_tokens, reply.completion_tokens)
        parsed = parse_viplan_answer(reply.text) if self.config.answer_reading == "viplan" else parse_answer(reply.text)
        if parsed.verdict is Verdict.UNKNOWN:
            return Answer(atom, Verdict.UNKNOWN, 0.5, reply.text, question, "unparseable", pt, ct)
        p_yes = _logprob_yes(reply.logprobs)
        if p_yes is None:
            confidence = self.config.default_confidence
        else:
            confidence = p_yes if parsed.verdict is Verdict.YES else round(1.0 - p_yes, 6)
        return Answer(atom, parsed.verdict, confidence, reply.text, question, "ok", pt, ct)

    def _error(self, atom: Atom, message: str) -> Answer:
        return Answer(atom, Verdict.UNKNOWN, 0.5, self.client.scrub(message), self.book.question(atom), "error")


def _word(token: str) -> str:
    return token.strip().strip("*\"'.<>").lower()


def _logprob_yes(logprobs: Logprobs | None) -> float | None:
    """P(yes) / (P(yes) + P(no)) at the last yes/no token of the reply (the answer), if logprobs came back."""
    for token, logprob, alternatives in reversed(logprobs or []):
        word = _word(token)
        if word not in ("yes", "no"):
            continue
        mass = {"yes": 0.0, "no": 0.0}
        for alt, alt_logprob in alternatives:
            if _word(alt) in mass:
                mass[_word(alt)] += math.exp(alt_logprob)
        if mass[word] == 0.0:
            mass[word] = math.exp(logprob)
        total = mass["yes"] + mass["no"]
        return round(mass["yes"] / total, 6) if total > 0 else None
    return None
