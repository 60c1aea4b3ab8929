"""The progress line: episodes and questions per second, tokens, an ETA; on stderr only."""

from __future__ import annotations

import re

from benchmarks.runner import Progress, _duration, _si


def test_the_line_shows_questions_per_second_tokens_and_an_eta(monkeypatch, capsys) -> None:
    clock = iter([100.0, 110.0, 110.0])  # start, then two reads 10 s later
    monkeypatch.setattr("benchmarks.runner.time.perf_counter", lambda: next(clock))
    bar = Progress(total=6, done=1, label="study", bar=True)
    for _ in range(2):
        bar.update({"id": "x", "outcome": "success", "questions": 50, "prompt_tokens": 1200, "completion_tokens": 30})
    line = bar.line()
    assert re.search(r"3/6 success 1\.00 0\.2 ep/s 10\.0 q/s 2\.5k tokens eta 15s$", line), line
    bar.close()
    captured = capsys.readouterr()
    assert captured.out == "" and "q/s" in captured.err  # never on stdout (a --json or piped table stays clean)


def test_token_counts_and_durations_read_at_a_glance() -> None:
    assert [_si(n) for n in (999, 1500, 2_345_678, 3e9)] == ["999", "1.5k", "2.3M", "3.0G"]
    assert [_duration(s) for s in (59.4, 75, 4000)] == ["59s", "1m15s", "1h06m"]


def test_the_line_reports_429s_and_the_clamped_study_wide_pause() -> None:
    from grounders.limits import EndpointLimiter

    limiter = EndpointLimiter(max_inflight=4, clock=lambda: 0.0, sleep=lambda s: None)
    limiter.throttled(100000.0)  # Retry-After: 100000 (27.8 h) pauses the study at most the cap
    bar = Progress(total=2, done=0, label="study", bar=False)
    bar.limiter = limiter
    assert " 429s 1 (paused 2m00s) " in bar.line()
