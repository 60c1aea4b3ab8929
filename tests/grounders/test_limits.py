"""The study-wide endpoint limiter: in-flight cap, per-minute buckets on a fake clock, 429 slow-down."""

from __future__ import annotations

import threading
import time

import pytest
from openai_server import Reply, rate_limited, start_fake_openai

from grounders.client import ChatClient, RetryPolicy
from grounders.limits import EndpointLimiter, estimate_prompt_tokens, image_tokens, renew, shared_limiter
from toolkit.errors import EndpointError


class FakeClock:
    """A monotonic clock whose sleep advances it (minutes of limits in microseconds)."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        assert seconds > 0
        self.t += seconds


def _most_in_window(starts: list[float], window: float = 60.0) -> int:
    """The most start times within any half-open window of ``window`` seconds."""
    best, lo = 0, 0
    for hi, t in enumerate(starts):
        while starts[lo] <= t - window:
            lo += 1
        best = max(best, hi - lo + 1)
    return best


def test_in_flight_requests_never_exceed_the_limit_and_reach_it() -> None:
    limiter = EndpointLimiter(max_inflight=3)
    open_now, most, guard = 0, 0, threading.Lock()

    def one() -> None:
        nonlocal open_now, most
        with limiter.request(10):
            with guard:
                open_now += 1
                most = max(most, open_now)
            time.sleep(0.01)
            with guard:
                open_now -= 1

    threads = [threading.Thread(target=lambda: [one() for _ in range(5)]) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert most == 3 == limiter.usage.peak_inflight
    assert limiter.usage.requests == 60 and limiter.inflight == 0


@pytest.mark.parametrize("rpm", [30, 120, 600])
def test_requests_per_minute_hold_in_every_window_and_are_paced(rpm: int) -> None:
    clock = FakeClock()
    limiter = EndpointLimiter(rpm=rpm, clock=clock, sleep=clock.sleep)
    starts = []
    for _ in range(3 * rpm):
        with limiter.request(0):
            starts.append(clock())
    burst = max(1, rpm // 60)  # the bucket holds one second's worth
    assert _most_in_window(starts) <= rpm + burst
    # three minutes' worth takes about three minutes: the limit is a rate, not just a cap
    assert (starts[-1] - starts[0]) == pytest.approx((3 * rpm - burst) * 60 / rpm, rel=1e-6)


def test_tokens_per_minute_are_charged_by_estimate_and_settled_by_usage() -> None:
    clock = FakeClock()
    limiter = EndpointLimiter(tpm=6000, clock=clock, sleep=clock.sleep)  # 100 tokens a second
    starts = []
    for _ in range(120):
        with limiter.request(500) as slot:  # charged 500 before the call ...
            starts.append(clock())
            slot.settle(200, 0)  # ... the reply used 200: 300 come back
    spent = [200] * len(starts)
    for i, t in enumerate(starts):  # tokens started in any minute stay within the limit (+ one second's worth)
        assert sum(s for s, u in zip(spent, starts) if t <= u < t + 60) <= 6000 + 100
    assert starts[-1] - starts[0] == pytest.approx(119 * 2.0, rel=0.02)  # 200 tokens at 100/s: one per 2 s
    assert limiter.usage.prompt_tokens == 120 * 200


def test_a_request_bigger_than_the_bucket_waits_for_a_full_one_and_goes_into_debt() -> None:
    clock = FakeClock()
    limiter = EndpointLimiter(tpm=600, clock=clock, sleep=clock.sleep)  # capacity 10 tokens
    with limiter.request(100) as slot:
        slot.settle(100, 0)
    start = clock()
    with limiter.request(5):
        pass
    assert clock() - start == pytest.approx((90 + 5) / 10)  # the debt of 90 tokens, then 5 more, at 10/s


def test_a_reply_without_usage_keeps_its_estimate_charged() -> None:
    clock = FakeClock()
    limiter = EndpointLimiter(tpm=600, clock=clock, sleep=clock.sleep)
    with limiter.request(40) as slot:
        slot.settle(0, 0)
    start = clock()
    with limiter.request(10):
        pass
    assert clock() - start == pytest.approx(4.0)  # 30 tokens in debt, then 10: 40 tokens at 10/s


def test_a_429_pauses_everyone_then_halves_the_limits_and_successes_restore_them() -> None:
    clock = FakeClock()
    limiter = EndpointLimiter(max_inflight=8, rpm=60, clock=clock, sleep=clock.sleep)
    limiter.throttled(5.0)
    assert limiter.cap() == 4 and limiter.usage.throttled == 1
    start = clock()
    with limiter.request(0) as slot:
        assert clock() - start == pytest.approx(5.0)  # Retry-After for every new request
        slot.settle(1, 1)
    start = clock()
    with limiter.request(0) as slot:
        assert clock() - start == pytest.approx(1 / (0.55 * 1.0))  # refilling at the reduced rate
        slot.settle(1, 1)
    for _ in range(20):
        with limiter.request(0) as slot:
            slot.settle(1, 1)
    assert limiter.cap() == 8


def test_close_refuses_waiting_and_new_requests() -> None:
    limiter = EndpointLimiter(max_inflight=1)
    errors = []

    def waiter() -> None:
        try:
            with limiter.request(1):
                pass
        except EndpointError as exc:
            errors.append(exc)

    with limiter.request(1):
        thread = threading.Thread(target=waiter)
        thread.start()
        time.sleep(0.05)
        limiter.close()
        thread.join(2)
    assert not thread.is_alive() and errors and errors[0].fatal
    with pytest.raises(EndpointError, match="study stopped"):
        with limiter.request(1):
            pass


def test_one_shared_limiter_per_endpoint_and_limits_a_closed_one_stays_until_renewed() -> None:
    assert shared_limiter("http://a/v1", None, None, None) is None
    first = shared_limiter("http://a/v1", 4, 60.0, None)
    assert shared_limiter("http://a/v1", 4, 60.0, None) is first
    assert shared_limiter("http://b/v1", 4, 60.0, None) is not first
    first.close()
    assert shared_limiter("http://a/v1", 4, 60.0, None) is first  # a stopped study's threads get no fresh one
    renew(first)
    assert shared_limiter("http://a/v1", 4, 60.0, None) is not first


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf")])
def test_limits_must_be_positive_and_finite(bad: float) -> None:
    with pytest.raises(ValueError):
        EndpointLimiter(rpm=bad)


def test_prompt_estimate_counts_text_and_the_image_size() -> None:
    import base64
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (1024, 768)).save(buffer, "PNG")
    png = buffer.getvalue()
    assert image_tokens(png) == 85 + 170 * 2 * 2  # 1024 x 768 fits: 2 x 2 tiles of 512
    url = "data:image/png;base64," + base64.b64encode(png).decode()
    messages = [{"role": "system", "content": "x" * 400},
                {"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}},
                                             {"type": "text", "text": "Is the red block on the table?"}]}]
    assert estimate_prompt_tokens(messages) == 4 + 100 + 4 + 765 + 8


def test_the_client_passes_every_attempt_through_the_limiter_and_reports_429s() -> None:
    limiter = EndpointLimiter(max_inflight=2)
    waits = []
    with start_fake_openai(lambda request: Reply("Yes", prompt_tokens=30, completion_tokens=3)) as server:
        server.script.extend([rate_limited("0")])
        client = ChatClient("m", server.base_url, "sk-test", RetryPolicy(max_retries=2, backoff_base=0.0),
                            sleep=waits.append, limiter=limiter)
        reply = client.complete([{"role": "user", "content": "hello"}])
    assert reply.text == "Yes"
    assert limiter.usage.requests == 2 and limiter.usage.throttled == 1
    assert (limiter.usage.prompt_tokens, limiter.usage.completion_tokens) == (30, 3)
    assert limiter.cap() == 1  # halved by the 429; one success gives back 5%, not yet a whole request
