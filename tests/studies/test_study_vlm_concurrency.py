"""VLM studies with concurrent episodes against one local endpoint: same records, limits held, clean stops."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from pathlib import Path

import pytest
from openai_server import Reply, start_fake_openai, unauthorized

from benchmarks.store import read_records
from benchmarks.study_config import RunConfig
from toolkit.cli import main


@pytest.fixture(autouse=True)
def _env(monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789")
    for name in ("PGT_VLM_MODEL", "OPENAI_MODEL", "OPENAI_BASE_URL", "PGT_VLM_CACHE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


class Endpoint:
    """Answers from a hash of the whole request (image and question), so every run sees the same replies.

    The reply takes ``latency`` seconds; the responder counts the requests open at once.
    """

    def __init__(self, latency: float = 0.0) -> None:
        self.latency = latency
        self.open_now = self.most_open = 0
        self.guard = threading.Lock()

    def __call__(self, request: dict) -> Reply:
        with self.guard:
            self.open_now += 1
            self.most_open = max(self.most_open, self.open_now)
        try:
            if self.latency:
                time.sleep(self.latency)
            digest = hashlib.sha256(json.dumps(request["messages"], sort_keys=True).encode()).digest()
            if "plan" in json.dumps(request["messages"][0]).lower():  # the VLM-as-planner prompt
                return Reply(json.dumps({"plan": []}), prompt_tokens=900, completion_tokens=40)
            return Reply("Yes" if digest[0] % 2 else "No", prompt_tokens=300 + digest[1], completion_tokens=1)
        finally:
            with self.guard:
                self.open_now -= 1


def _run(url: str, out: Path, *extra: str, problems: int = 2) -> int:
    cache = [] if "--cache" in extra else ["--no-cache"]
    return main(["run", "--suite", "viplan-bw/simple", "--problems", str(problems), "--seeds", "2",
                 "--max-steps", "2", "--grounder", "vlm", "--model", "fake-vlm", "--base-url", url, *cache,
                 "--quiet", "--out", str(out), *extra])


def _records(out: Path) -> dict[str, dict]:
    """Records by id without timings and execution options (the endpoint's port, the limits, the log path)."""
    out_records = {}
    for record in read_records(out / "episodes.jsonl"):
        record = {k: v for k, v in record.items() if k != "seconds"}
        record["config"] = RunConfig.from_dict(record["config"]).result_fields()
        out_records[record["id"]] = record
    return out_records


@pytest.mark.parametrize("protocol", ["viplan-grounder", "pgt-grounder", "viplan-planner"])
def test_concurrent_episodes_write_the_records_of_a_sequential_run(tmp_path: Path, protocol: str) -> None:
    endpoint = Endpoint(latency=0.05 if protocol == "viplan-planner" else 0.002)  # the planner asks little
    with start_fake_openai(endpoint) as server:
        assert _run(server.base_url, tmp_path / "seq", "--protocol", protocol, "--max-inflight", "1") == 0
        assert endpoint.most_open == 1
        asked_alone = len(server.requests)
        assert _run(server.base_url, tmp_path / "conc", "--protocol", protocol, "--max-inflight", "5") == 0
    sequential, concurrent = _records(tmp_path / "seq"), _records(tmp_path / "conc")
    assert len(sequential) == 4 and concurrent == sequential
    assert len(server.requests) == 2 * asked_alone  # not one request more
    assert 1 < endpoint.most_open <= 5
    assert sum(r["prompt_tokens"] for r in concurrent.values()) > 0


def test_requests_in_flight_never_exceed_the_limit_and_reach_it(tmp_path: Path) -> None:
    endpoint = Endpoint(latency=0.02)
    with start_fake_openai(endpoint) as server:
        assert _run(server.base_url, tmp_path / "run", "--max-inflight", "3", problems=1) == 0
    assert endpoint.most_open == 3


def test_a_resume_may_change_the_limits_and_ends_as_one_run(tmp_path: Path) -> None:
    endpoint = Endpoint()
    with start_fake_openai(endpoint) as server:
        assert _run(server.base_url, tmp_path / "whole", "--max-inflight", "1") == 0
        assert _run(server.base_url, tmp_path / "parts", "--max-inflight", "4", problems=1) == 0
        assert _run(server.base_url, tmp_path / "parts", "--max-inflight", "2", "--rpm", "100000",
                    "--tpm", "1e9") == 0
    assert _records(tmp_path / "parts") == _records(tmp_path / "whole")
    assert len(read_records(tmp_path / "parts" / "episodes.jsonl")) == 4  # nothing ran twice


def test_a_fatal_endpoint_error_stops_every_episode_thread(tmp_path: Path, capsys) -> None:
    with start_fake_openai(lambda request: unauthorized()) as server:
        assert _run(server.base_url, tmp_path / "run", "--max-inflight", "4", problems=10) == 1
        at_return = len(server.requests)
        deadline = time.monotonic() + 5
        while any(t.name.startswith("pgt-episode") for t in threading.enumerate()) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not any(t.name.startswith("pgt-episode") for t in threading.enumerate())  # every thread ended
        asked = len(server.requests)
        time.sleep(0.2)
        assert len(server.requests) == asked <= at_return + 4  # only the requests in flight at the stop came after
    assert "authentication failed" in capsys.readouterr().err
    assert len(read_records(tmp_path / "run" / "episodes.jsonl")) == 1


@pytest.mark.parametrize("flags, message", [
    (["--grounder", "noisy", "--accuracy", "0.9", "--rpm", "60"], "--rpm: only for --grounder vlm"),
    (["--grounder", "vlm", "--model", "m", "--max-inflight", "0"], "argument --max-inflight: must be at least 1"),
    (["--grounder", "vlm", "--model", "m", "--tpm", "-5"], "argument --tpm: must be more than 0 per minute"),
    (["--grounder", "vlm", "--model", "m", "--rpm", "inf"], "argument --rpm: expected a finite number"),
])
def test_bad_limits_fail_before_any_work(tmp_path: Path, capsys, flags: list[str], message: str) -> None:
    out = tmp_path / "run"
    rc = main(["run", "--suite", "viplan-bw/simple", "--out", str(out), *flags])
    err = capsys.readouterr().err
    assert rc == 2 and message in err and err.count("\n") == 1
    assert not out.exists()


def _without_tokens(record: dict) -> dict:
    """A record without who paid for a reply (a cache hit costs 0 tokens; with threads another episode may pay)."""
    out = {k: v for k, v in record.items() if k not in ("prompt_tokens", "completion_tokens")}
    out["events"] = [{k: v for k, v in e.items() if k not in ("prompt_tokens", "completion_tokens", "cached")}
                     for e in record.get("events", ())]
    return out


def test_with_a_cache_concurrent_seeds_pay_for_each_question_once(tmp_path: Path) -> None:
    endpoint = Endpoint(latency=0.002)
    with start_fake_openai(endpoint) as server:
        assert _run(server.base_url, tmp_path / "seq", "--max-inflight", "1", "--cache", "seq.sqlite",
                    problems=1) == 0
        asked_alone = len(server.requests)
        assert _run(server.base_url, tmp_path / "conc", "--max-inflight", "4", "--cache", "conc.sqlite",
                    problems=1) == 0
    assert len(server.requests) == 2 * asked_alone  # the second seed's questions were cache hits both times
    sequential, concurrent = _records(tmp_path / "seq"), _records(tmp_path / "conc")
    assert {k: _without_tokens(v) for k, v in concurrent.items()} == \
           {k: _without_tokens(v) for k, v in sequential.items()}
    assert sum(r["prompt_tokens"] for r in concurrent.values()) == sum(r["prompt_tokens"] for r in sequential.values())
