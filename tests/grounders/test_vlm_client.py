"""Fault injection against the shared chat client: retries, waits, timeouts, fatal vs transient, cache.

Every wait goes through an injected ``sleep`` that records instead of sleeping,
so the tests check the delays the client chose without spending them.
"""

from __future__ import annotations

import email.utils
import random
import threading

import pytest
from openai_server import (Reply, hang, malformed, not_yes_no, rate_limited, server_error, start_fake_openai,
                           unauthorized)

from grounders.cache import ReplyCache
from grounders.client import ChatClient, RetryPolicy, check_base_url, retry_after
from grounders.proposers import VLMPlanProposer
from grounders.vlm import VLMConfig, VLMGrounder
from toolkit.domains import shipped_domain, shipped_problem
from toolkit.errors import EndpointError, GrounderError, MalformedReplyError
from toolkit.protocols import Observation, PlannerPrompt
from toolkit.questions import QuestionBook
from toolkit.task import load_task

KEY = "sk-test-SECRET-0123456789"
MESSAGES = [{"role": "user", "content": "Is the sky blue?"}]
NOW = 1_700_000_000.0


class Sleeps(list):
    """A fake ``sleep``: remembers every wait (thread-safe), never sleeps."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()

    def __call__(self, seconds: float) -> None:
        with self._lock:
            self.append(seconds)


@pytest.fixture()
def server():
    fake = start_fake_openai(lambda request: Reply("Yes"))
    yield fake
    fake.stop()


def _client(url: str, sleeps: Sleeps, seed: int | None = 0, **policy) -> ChatClient:
    return ChatClient("fake-vlm", url, KEY, RetryPolicy(**policy), sleep=sleeps, now=lambda: NOW,
                      rng=random.Random(seed) if seed is not None else None)


def test_5xx_then_success_retries_with_exponential_full_jitter_backoff(server) -> None:
    server.script.extend([server_error(500), server_error(502), server_error(503), Reply("No")])
    sleeps = Sleeps()
    reply = _client(server.base_url, sleeps, backoff_base=1.0, backoff_max=3.0).complete(MESSAGES)
    assert reply.text == "No" and len(server.requests) == 4
    assert len(sleeps) == 3
    for attempt, wait in enumerate(sleeps):  # uniform(0, min(max, base * 2**attempt))
        assert 0.0 <= wait <= min(3.0, 2.0**attempt)
    expected = random.Random(0)
    assert sleeps == [expected.uniform(0, 1.0), expected.uniform(0, 2.0), expected.uniform(0, 3.0)]


@pytest.mark.parametrize("header, wait", [("7", 7.0), ("0.5", 0.5),
                                          (email.utils.formatdate(NOW + 30, usegmt=True), 30.0),
                                          (email.utils.formatdate(NOW - 30, usegmt=True), 0.0),
                                          ("500", 120.0)])  # clamped to retry_after_max
def test_429_honours_retry_after_in_seconds_or_as_an_http_date(server, header: str, wait: float) -> None:
    server.script.extend([rate_limited(header), Reply("Yes")])
    sleeps = Sleeps()
    assert _client(server.base_url, sleeps, backoff_base=0.25).complete(MESSAGES).text == "Yes"
    assert len(sleeps) == 1 and wait <= sleeps[0] <= wait + 0.25  # never earlier than asked, a little jitter


def test_429_without_retry_after_falls_back_to_backoff(server) -> None:
    server.script.extend([rate_limited(None), rate_limited("soon"), Reply("Yes")])
    sleeps = Sleeps()
    _client(server.base_url, sleeps, backoff_base=1.0).complete(MESSAGES)
    assert len(sleeps) == 2 and sleeps[0] <= 1.0 and sleeps[1] <= 2.0


def test_parallel_requests_do_not_retry_in_lock_step(server) -> None:
    """Four questions fail together; their retries are spread out, not all after the same wait."""
    task = load_task(shipped_domain("blocksworld"), shipped_problem("blocksworld", "simple_problem_0"))
    book = QuestionBook(task)
    server.script.extend([server_error(503)] * 4)
    sleeps = Sleeps()
    config = VLMConfig(model="fake-vlm", base_url=server.base_url, api_key=KEY, max_concurrency=4)
    client = ChatClient(config.model, config.base_url, KEY, config.policy(), sleep=sleeps)  # real (system) jitter
    obs = Observation(step=0, truth=task.init, render=lambda: b"png", state_key="s0")
    answers = VLMGrounder(book, config, client).ask(obs, task.all_atoms()[:4])
    assert [a.status for a in answers] == ["ok"] * 4 and len(server.requests) == 8
    assert len(sleeps) == 4 and len(set(sleeps)) == 4


def test_hang_past_the_timeout_is_retried_then_transient(server) -> None:
    server.script.extend([hang(1.0), hang(1.0)])
    sleeps = Sleeps()
    with pytest.raises(EndpointError, match=r"timed out after 0.2 s .*gave up after 2 attempt") as caught:
        _client(server.base_url, sleeps, timeout=0.2, max_retries=1).complete(MESSAGES)
    assert (caught.value.fatal, caught.value.status, len(sleeps)) == (False, None, 1)


def test_hang_then_success_within_the_retries(server) -> None:
    server.script.extend([hang(1.0), Reply("No")])
    assert _client(server.base_url, Sleeps(), timeout=0.2, max_retries=1).complete(MESSAGES).text == "No"


@pytest.mark.parametrize("reply, status", [(unauthorized("Incorrect API key provided: " + KEY), 401),
                                           (Reply(status=403), 403), (Reply(status=404), 404),
                                           (Reply(status=422), 422)])
def test_client_errors_are_fatal_and_not_retried(server, reply: Reply, status: int) -> None:
    server.script.append(reply)
    sleeps = Sleeps()
    with pytest.raises(EndpointError) as caught:
        _client(server.base_url, sleeps).complete(MESSAGES)
    assert (caught.value.fatal, caught.value.status, len(server.requests), sleeps) == (True, status, 1, [])
    assert KEY not in str(caught.value)


def test_5xx_after_retries_is_transient(server) -> None:
    server.script.extend([server_error(500)] * 3)
    with pytest.raises(EndpointError, match="gave up after 3 attempt") as caught:
        _client(server.base_url, Sleeps(), max_retries=2).complete(MESSAGES)
    assert not caught.value.fatal and caught.value.status == 500


def test_connection_refused_is_fatal_after_retries() -> None:
    sleeps = Sleeps()
    with pytest.raises(EndpointError, match="cannot connect to http://127.0.0.1:9/v1") as caught:
        _client("http://127.0.0.1:9/v1", sleeps, max_retries=2).complete(MESSAGES)
    assert caught.value.fatal and len(sleeps) == 2


def test_malformed_reply_is_not_retried_and_not_fatal(server) -> None:
    server.script.append(malformed())
    with pytest.raises(MalformedReplyError, match="malformed reply") as caught:
        _client(server.base_url, Sleeps()).complete(MESSAGES)
    assert not caught.value.fatal and len(server.requests) == 1


def test_cache_key_includes_the_endpoint(tmp_path) -> None:
    cache = ReplyCache(tmp_path / "replies.sqlite")
    with start_fake_openai(lambda r: Reply("Yes")) as one, start_fake_openai(lambda r: Reply("No")) as two:
        first = ChatClient("same-model", one.base_url, KEY, cache=cache)
        assert first.complete(MESSAGES).text == "Yes"
        assert len(one.requests) == 1 and first.complete(MESSAGES).cached
        other = ChatClient("same-model", two.base_url + "/", KEY, cache=cache)
        assert other.complete(MESSAGES).text == "No" and len(two.requests) == 1  # not the first endpoint's answer
        assert ChatClient("other-model", one.base_url, KEY, cache=cache).complete(MESSAGES).cached is False
    assert KEY.encode() not in (tmp_path / "replies.sqlite").read_bytes()


def test_errors_are_never_cached(server, tmp_path) -> None:
    cache = ReplyCache(tmp_path / "replies.sqlite")
    server.script.append(server_error(500))
    client = ChatClient("m", server.base_url, KEY, RetryPolicy(max_retries=0), cache=cache)
    with pytest.raises(EndpointError):
        client.complete(MESSAGES)
    assert len(cache) == 0


def test_plan_proposer_uses_the_same_client(server) -> None:
    prompt = PlannerPrompt(system="You plan.", user="Goal: done. Reply with a JSON plan.")
    obs = Observation(step=0, truth=frozenset(), state_key="s0")
    server.script.extend([rate_limited("3"), Reply('{"plan": []}'), malformed(), not_yes_no("no plan here"),
                          unauthorized()])
    sleeps = Sleeps()
    proposer = VLMPlanProposer(_client(server.base_url, sleeps))
    assert proposer.propose(obs, prompt).text == '{"plan": []}' and 3.0 <= sleeps[0] <= 4.0
    bad = proposer.propose(obs, prompt)
    assert bad.status == "error" and "malformed reply" in bad.text
    assert proposer.propose(obs, prompt).text == "no plan here"
    with pytest.raises(EndpointError) as caught:
        proposer.propose(obs, prompt)
    assert caught.value.fatal


def test_flags_and_settings_are_checked() -> None:
    assert check_base_url(None) == "https://api.openai.com/v1"
    assert check_base_url("http://localhost:8000/v1/") == "http://localhost:8000/v1"
    for bad in ("not a url", "ftp://x/v1", "http://"):
        with pytest.raises(EndpointError, match="--base-url must be an http"):
            check_base_url(bad)
    for timeout in (0, -1, float("nan"), float("inf")):
        with pytest.raises(EndpointError, match="--timeout"):
            RetryPolicy(timeout=timeout)
    with pytest.raises(EndpointError, match="--max-retries"):
        RetryPolicy(max_retries=-1)
    assert retry_after({}, NOW) is None


def test_a_vlm_with_no_model_is_a_fatal_grounder_error(monkeypatch) -> None:
    for name in ("PGT_VLM_MODEL", "OPENAI_MODEL"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(GrounderError, match="no model name") as caught:
        VLMConfig.from_env(model=None)
    assert caught.value.fatal


def test_docstring_examples() -> None:
    import doctest

    import grounders.client

    result = doctest.testmod(grounders.client)
    assert result.attempted > 0 and result.failed == 0
