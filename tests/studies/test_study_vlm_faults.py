"""``pgt run`` against a misbehaving OpenAI-compatible endpoint: flags, error records, cache, exit codes."""

from __future__ import annotations

import itertools
from collections import Counter
import json
import threading
from pathlib import Path

import pytest
from openai_server import Reply, hang, malformed, question_of, start_fake_openai, unauthorized

from benchmarks.runner import read_records
from toolkit.cli import main

KEY = "sk-test-SECRET-0123456789"


@pytest.fixture(autouse=True)
def _env(monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    for name in ("PGT_VLM_MODEL", "OPENAI_MODEL", "OPENAI_BASE_URL", "PGT_VLM_CACHE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # the default cache folder lands here


def _run(url: str, out: Path, *extra: str) -> int:
    return main(["run", "--suite", "viplan-bw/simple", "--problems", "1", "--max-steps", "1", "--grounder", "vlm",
                 "--model", "fake-vlm", "--base-url", url, "--workers", "1", "--quiet", "--out", str(out), *extra])


@pytest.mark.parametrize("flags, message", [
    (["--model", "m", "--timeout", "-1"], "argument --timeout: must be more than 0 seconds"),
    (["--model", "m", "--timeout", "nan"], "argument --timeout: "),
    (["--model", "m", "--max-retries", "-1"], "argument --max-retries: must be at least 0"),
    (["--model", "m", "--cache", "c.sqlite", "--no-cache"], "--cache and --no-cache contradict"),
    (["--model", "m", "--base-url", "not a url"], "argument --base-url: expected an http:// or https:// URL"),
    ([], "--grounder vlm needs --model"),
])
def test_bad_vlm_flags_fail_before_any_work(tmp_path, capsys, flags: list[str], message: str) -> None:
    out = tmp_path / "run"
    rc = main(["run", "--suite", "viplan-bw/simple", "--grounder", "vlm", "--out", str(out), *flags])
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith("pgt run: error: ") and message in err and err.count("\n") == 1
    assert not out.exists()


def _alternating(*replies: Reply):
    counter, lock = itertools.count(), threading.Lock()

    def respond(request: dict) -> Reply:
        with lock:
            return replies[next(counter) % len(replies)]

    return respond


def test_unreadable_replies_are_kept_and_counted_beside_the_accuracy(tmp_path, capsys) -> None:
    out = tmp_path / "run"
    with start_fake_openai(_alternating(Reply("Maybe."), Reply("Yes"))) as server:
        assert _run(server.base_url, out, "--no-cache") == 0
    printed = capsys.readouterr().out
    assert "unreadable" in printed and "accuracy 1.000," not in printed
    [record] = read_records(out / "episodes.jsonl")
    assert record["unparseable"] > 0 and record["answered"] > 0
    assert any(e.get("status") == "unparseable" and e["raw"] == "Maybe." for e in record["events"])
    assert not (tmp_path / ".pgt-cache").exists()


def test_a_malformed_reply_is_kept_as_error_text_never_as_a_result(tmp_path, capsys) -> None:
    out = tmp_path / "run"
    with start_fake_openai(_alternating(malformed(), Reply("Yes"), Reply("No"))) as server:
        assert _run(server.base_url, out, "--no-cache") == 1  # the only episode could not be judged
    captured = capsys.readouterr()
    assert "malformed reply" in captured.err and "accuracy 1.000" not in captured.out
    [record] = read_records(out / "episodes.jsonl")
    assert "malformed reply" in json.dumps(record)


def test_timeout_and_max_retries_flags_reach_the_client(tmp_path) -> None:
    out = tmp_path / "run"
    with start_fake_openai(lambda request: hang(1.0)) as server:
        _run(server.base_url, out, "--timeout", "0.2", "--max-retries", "1", "--no-cache")
        asked = Counter(question_of(r) for r in server.requests)
    assert asked and set(asked.values()) == {2}  # each question of the first batch: one try, one retry
    text = (out / "episodes.jsonl").read_text(encoding="utf-8")
    assert "timed out after 0.2 s" in text and "gave up after 2 attempt(s)" in text


@pytest.mark.parametrize("protocol", ["viplan-grounder", "pgt-grounder"])
def test_a_wrong_key_is_an_error_record_with_a_scrubbed_message(tmp_path, capsys, protocol: str) -> None:
    out = tmp_path / "run"
    with start_fake_openai(lambda request: unauthorized("Incorrect API key provided: " + KEY)) as server:
        _run(server.base_url, out, "--protocol", protocol)
        asked = Counter(question_of(r) for r in server.requests)
    assert asked and set(asked.values()) == {1}  # 401 is never retried, and the episode stops asking
    [record] = read_records(out / "episodes.jsonl")
    assert record["success"] is False and "authentication failed" in json.dumps(record)
    captured = capsys.readouterr()
    assert KEY not in captured.out + captured.err
    for path in itertools.chain(out.rglob("*"), (tmp_path / ".pgt-cache").rglob("*")):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path


def test_replies_are_cached_in_the_documented_place_and_switchable(tmp_path, monkeypatch) -> None:
    with start_fake_openai(lambda request: Reply("Yes")) as server:
        _run(server.base_url, tmp_path / "a")
        asked = len(server.requests)
        assert asked > 0 and (tmp_path / ".pgt-cache" / "vlm-replies.sqlite").is_file()
        _run(server.base_url, tmp_path / "b")  # same questions, same endpoint: all from the cache
        assert len(server.requests) == asked
        _run(server.base_url, tmp_path / "c", "--no-cache")
        assert len(server.requests) == 2 * asked
        _run(server.base_url, tmp_path / "d", "--cache", str(tmp_path / "mine.sqlite"))
        assert len(server.requests) == 3 * asked and (tmp_path / "mine.sqlite").is_file()
        monkeypatch.setenv("PGT_VLM_CACHE", str(tmp_path / "env.sqlite"))
        _run(server.base_url, tmp_path / "e")
        assert len(server.requests) == 4 * asked and (tmp_path / "env.sqlite").is_file()
