"""Hostile endpoints on 127.0.0.1: a trickling body, a day-long Retry-After, oversized and endless replies.

Each case is one finding of issue 27: ``--timeout`` limited each read, not the
request; a ``Retry-After: 100000`` paused the whole study for 27.8 h; replies
had no size limit. Requests that could hang run in a thread joined with a
deadline, so a regression fails the test instead of hanging the suite.
"""

from __future__ import annotations

import random

import pytest
from openai_server import Reply, endless, oversized, rate_limited, start_fake_openai, trickle, within

from grounders.client import ChatClient, RetryPolicy
from grounders.limits import RETRY_AFTER_MAX, EndpointLimiter
from toolkit.errors import EndpointError, MalformedReplyError

MESSAGES = [{"role": "user", "content": "Is the sky blue?"}]


@pytest.fixture()
def server():
    fake = start_fake_openai(lambda request: Reply("Yes"))
    yield fake
    fake.stop()


def test_a_trickling_body_is_cut_off_at_the_whole_request_deadline(server) -> None:
    server.script.append(trickle(0.05))  # ~300 bytes at 20 per second: 15 s, every read well inside the timeout
    client = ChatClient("fake-vlm", server.base_url, "sk-x", RetryPolicy(timeout=1.0, max_retries=0))
    box, took = within(6.0, lambda: client.complete(MESSAGES))
    assert isinstance(box.get("error"), EndpointError) and "timed out after 1 s" in str(box["error"])
    assert took < 2.5


def test_a_huge_retry_after_is_clamped_for_the_request_and_the_study() -> None:
    fake = start_fake_openai(lambda request: Reply("Yes"))
    try:
        fake.script.extend([rate_limited("100000"), Reply("Yes")])
        clock = [0.0]
        limiter = EndpointLimiter(max_inflight=2, clock=lambda: clock[0], sleep=lambda s: clock.__setitem__(0, clock[0] + s))
        waits: list[float] = []
        client = ChatClient("fake-vlm", fake.base_url, "sk-x", RetryPolicy(timeout=5.0, backoff_base=0.01),
                            sleep=waits.append, rng=random.Random(0), limiter=limiter)
        assert client.complete(MESSAGES).text == "Yes"
        assert waits and waits[0] <= RETRY_AFTER_MAX + 0.01
        assert limiter._paused_until <= RETRY_AFTER_MAX  # the study-wide pause, not 27.8 h
        assert limiter.usage.retry_after == RETRY_AFTER_MAX
    finally:
        fake.stop()


def test_the_limiter_itself_clamps_a_huge_pause() -> None:
    limiter = EndpointLimiter(max_inflight=1, clock=lambda: 0.0, sleep=lambda s: None)
    limiter.throttled(100000.0)
    assert limiter._paused_until == RETRY_AFTER_MAX


def test_a_reply_over_the_size_cap_is_an_error_answer_not_stored(server) -> None:
    server.script.append(oversized(200_000))
    client = ChatClient("fake-vlm", server.base_url, "sk-x", RetryPolicy(timeout=10.0, max_retries=2,
                                                                          max_reply_bytes=65536))
    with pytest.raises(MalformedReplyError, match=r"size cap of 65,536 bytes"):
        client.complete(MESSAGES)
    assert len(server.requests) == 1  # not asked (and paid for) again


def test_an_endless_body_stops_at_the_size_cap(server) -> None:
    server.script.append(endless())
    client = ChatClient("fake-vlm", server.base_url, "sk-x", RetryPolicy(timeout=20.0, max_retries=0,
                                                                          max_reply_bytes=1 << 20))
    box, took = within(10.0, lambda: client.complete(MESSAGES))
    assert isinstance(box.get("error"), MalformedReplyError), box


def test_replies_under_the_cap_and_in_time_still_arrive(server) -> None:
    server.script.append(oversized(10_000))
    client = ChatClient("fake-vlm", server.base_url, "sk-x", RetryPolicy(timeout=5.0, max_reply_bytes=65536))
    assert client.complete(MESSAGES).text.startswith("Yes xxx")


def test_a_cap_below_one_kib_is_refused() -> None:
    with pytest.raises(EndpointError, match="--max-reply-bytes must be at least 1024"):
        RetryPolicy(max_reply_bytes=10)
