"""Episodes that could not be judged are errors, not failures: recorded, printed, retried, never silent."""

from __future__ import annotations

import json
import re
import socket
import time
from pathlib import Path

import pytest
from openai_server import start_fake_openai, truth_responder

import benchmarks.episode as episode
import benchmarks.runner as runner
from benchmarks.runner import StudyStopped, run_study
from benchmarks.store import collect, read_records
from benchmarks.study_config import RunConfig, episode_specs
from toolkit.cli import main

KEY = "sk-test-very-secret-0123456789"
SMALL = dict(suite="viplan-bw/simple", problems=4, seeds=1)


def _have(folder: Path):
    return collect(read_records(folder / "episodes.jsonl"))


class Fatal(Exception):
    fatal = True


@pytest.fixture
def breaking(monkeypatch):
    """Make the viplan-grounder protocol raise ``exc`` for the problems named in ``broken`` (set by the test)."""
    original = episode.PROTOCOL_RUNNERS["viplan-grounder"]
    state = {"broken": set(), "exc": RuntimeError("boom")}

    def maybe_break(task, env, spec, seed):
        if spec.problem.endswith(tuple(f"{p}.pddl" for p in state["broken"])):
            raise state["exc"]
        return original(task, env, spec, seed)

    monkeypatch.setitem(episode.PROTOCOL_RUNNERS, "viplan-grounder", maybe_break)
    return state


def test_a_crash_is_an_error_record_with_scrubbed_text_and_the_study_goes_on(tmp_path, breaking, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    breaking["broken"] = {"simple_1"}
    breaking["exc"] = ValueError(f"key {KEY} and token sk-other0123456789 via http://user:pw@host/v1")
    run_study(RunConfig(grounder="oracle", **SMALL), tmp_path / "r", progress=False)
    have = _have(tmp_path / "r")
    assert have.counts() == {"success": 3, "failure": 0, "error": 1}
    err = have.errors[0]
    assert err["outcome"] == "error" and err["error_kind"] == "crash" and not err["fatal"]
    assert err["error"].startswith("ValueError: key ***")
    text = (tmp_path / "r" / "episodes.jsonl").read_text()
    assert KEY not in text and "sk-other" not in text and "pw@" not in text


def test_errors_are_printed_as_they_happen_and_summarized(tmp_path, breaking, capsys):
    breaking["broken"] = {"simple_0", "simple_1"}
    code = main(["run", "--suite", "viplan-bw/simple", "--problems", "4", "--grounder", "oracle", "--workers", "1",
                 "--out", str(tmp_path / "r"), "--quiet"])
    err = capsys.readouterr()
    assert code == 0  # some episodes were judged
    assert err.err.count("error (crash): RuntimeError: boom") == 2
    assert "2 success, 0 failure, 2 error" in err.out
    assert "could not be judged" in err.err


def test_a_run_where_every_episode_errored_exits_non_zero(tmp_path, breaking, capsys):
    breaking["broken"] = {f"simple_{i}" for i in range(25)}
    code = main(["run", "--suite", "viplan-bw/simple", "--problems", "3", "--grounder", "oracle", "--workers", "1",
                 "--out", str(tmp_path / "r"), "--quiet"])
    assert code == 1
    assert "every episode errored" in capsys.readouterr().err


def test_a_fatal_error_stops_at_once_keeps_finished_episodes_and_resume_finishes(tmp_path, breaking, capsys):
    second = episode_specs(RunConfig(suite="viplan-bw/simple", problems=4))[1]
    breaking["broken"] = {Path(second.problem).stem}
    breaking["exc"] = Fatal("authentication failed (HTTP 401)")
    argv = ["run", "--suite", "viplan-bw/simple", "--problems", "4", "--grounder", "oracle", "--workers", "1",
            "--out", str(tmp_path / "r"), "--quiet"]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert f"stopped at episode {second.id}: Fatal: authentication failed (HTTP 401)" in err
    assert err.count("\n") == 1  # one line, said once
    assert "run the same command again" in err
    have = _have(tmp_path / "r")
    assert have.counts() == {"success": 1, "failure": 0, "error": 1}  # the other two never started
    breaking["broken"] = set()  # "fix the flag"
    assert main(argv) == 0
    have = _have(tmp_path / "r")
    assert have.counts() == {"success": 4, "failure": 0, "error": 0} and have.retried == 1
    assert len(read_records(tmp_path / "r" / "episodes.jsonl")) == 5  # the old error stays: appends only


def test_a_fatal_error_with_workers_stops_the_pool(tmp_path, breaking):
    breaking["broken"] = {f"simple_{i}" for i in range(25)}
    breaking["exc"] = Fatal("unknown model")
    with pytest.raises(StudyStopped, match="unknown model"):
        run_study(RunConfig(grounder="oracle", suite="viplan-bw/simple", problems=8), tmp_path / "r", workers=2,
                  progress=False)
    assert len(read_records(tmp_path / "r" / "episodes.jsonl")) <= 2


def _dead_url() -> str:
    with socket.socket() as s:  # a port nobody listens on once this socket is closed
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def test_dead_endpoint_says_so_at_once_then_fixed_base_url_finishes_the_study(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    out = tmp_path / "r"
    argv = ["run", "--suite", "viplan-bw/simple", "--problems", "3", "--grounder", "vlm", "--model", "fake-vlm",
            "--max-retries", "0", "--no-cache", "--workers", "1", "--out", str(out), "--quiet"]
    # connection refused is fatal: the study stops at its first episode, at once, with one clear line
    start = time.perf_counter()
    assert main([*argv, "--base-url", _dead_url()]) == 1
    assert time.perf_counter() - start < 30
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("pgt run: error: ")
    assert re.search(r"stopped at episode simple/simple_\d+/seed0", err) and "cannot connect" in err  # concurrent
    assert "run the same command again" in err and KEY not in err
    records = read_records(out / "episodes.jsonl")
    assert len(records) == 1 and records[0]["fatal"] and records[0]["error_kind"] == "endpoint"
    # the fix: another base URL (an execution option) is accepted on resume, and the error is retried
    with start_fake_openai(truth_responder(lambda q: True)) as server:
        assert main([*argv, "--base-url", server.base_url]) == 0
    have = _have(out)
    assert have.counts()["error"] == 0 and len(have.judged) == 3 and have.retried == 1
    assert len(read_records(out / "episodes.jsonl")) == 4  # the old error stays: appends only
    assert json.loads((out / "config.json").read_text())["base_url"] == server.base_url
    assert KEY not in (out / "episodes.jsonl").read_text()


def test_a_bad_setting_fails_before_any_file_is_written(tmp_path, capsys):
    for extra in (["--planner", "nosuch"], ["--grounder", "replay", "--replay", str(tmp_path / "none.jsonl")],
                  ["--grounder", "vlm"], ["--protocol", "viplan-planner", "--grounder", "noisy"],
                  ["--plan-wrong", "0.2", "--grounder", "oracle"]):
        code = main(["run", "--suite", "viplan-bw/simple", "--problems", "1", "--out", str(tmp_path / "r"),
                     *(["--grounder", "oracle"] if "--grounder" not in extra else []), *extra])
        assert code == 2, extra
        assert capsys.readouterr().err.startswith("pgt run: error: ")
        assert not (tmp_path / "r").exists()


def test_execution_options_may_change_on_resume_results_may_not(tmp_path):
    base = RunConfig(grounder="noisy", accuracy=0.9, suite="viplan-bw/simple", problems=1)
    run_study(base, tmp_path / "r", progress=False)
    import dataclasses

    run_study(dataclasses.replace(base, timeout=5.0, max_retries=7, base_url="http://x/v1", cache="c.jsonl",
                                  problems=2), tmp_path / "r", progress=False)
    assert len(_have(tmp_path / "r").judged) == 2
    with pytest.raises(Exception, match="another configuration.*accuracy"):
        run_study(dataclasses.replace(base, accuracy=0.8), tmp_path / "r", progress=False)


def test_a_rejected_key_ends_each_episode_at_its_first_question(tmp_path, monkeypatch, capsys):
    from openai_server import Reply

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with start_fake_openai(lambda request: Reply(status=401)) as server:
        config = RunConfig(grounder="vlm", model="fake-vlm", base_url=server.base_url, max_retries=0, no_cache=True,
                           suite="viplan-bw/simple", problems=2)
        try:
            episodes = run_study(config, tmp_path / "r", progress=False)
        except StudyStopped:  # where the client marks HTTP 401 fatal, the study stops at the first episode
            episodes = tmp_path / "r" / "episodes.jsonl"
        requests = len(server.requests)
    have = _have(tmp_path / "r")
    # one batch per episode at most (up to --max-inflight questions at once), never a whole episode of them
    assert 1 <= requests <= 2 * runner.DEFAULT_MAX_INFLIGHT and not have.judged and have.errors
    assert all(r["error_kind"] == "endpoint" and "401" in r["error"] for r in have.errors)
    assert KEY not in episodes.read_text() and KEY not in capsys.readouterr().err


def test_an_endpoint_that_fails_the_opening_episodes_stops_the_study(tmp_path, monkeypatch):
    from openai_server import server_error

    from benchmarks.runner import ENDPOINT_STOP

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with start_fake_openai(lambda request: server_error(503)) as server:  # up, but failing: not fatal by itself
        config = RunConfig(grounder="vlm", model="fake-vlm", base_url=server.base_url, max_retries=0, timeout=5.0,
                           no_cache=True, suite="viplan-bw/simple", problems=ENDPOINT_STOP + 3)
        with pytest.raises(StudyStopped, match=f"the first {ENDPOINT_STOP} episodes all failed at the endpoint"):
            run_study(config, tmp_path / "r", progress=False)
    records = read_records(tmp_path / "r" / "episodes.jsonl")
    assert len(records) == ENDPOINT_STOP
    assert all(r["outcome"] == "error" and r["error_kind"] == "endpoint" and not r["fatal"] for r in records)


def test_a_planner_endpoint_error_is_an_error_record_without_the_key(tmp_path, monkeypatch):
    from openai_server import Reply

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with start_fake_openai(lambda request: Reply(status=500, body=f'{{"error": {{"message": "bad key {KEY}"}}}}')) \
            as server:
        config = RunConfig(protocol="viplan-planner", grounder="vlm", model="fake-vlm", base_url=server.base_url,
                           max_retries=0, suite="viplan-bw/simple", problems=1)
        run_study(config, tmp_path / "r", progress=False)
    have = _have(tmp_path / "r")
    assert not have.judged and len(have.errors) == 1
    err = have.errors[0]
    assert err["outcome"] == "error" and err["error_kind"] == "endpoint" and not err["fatal"]
    assert "500" in err["error"] and KEY not in err["error"]
    assert KEY not in (tmp_path / "r" / "episodes.jsonl").read_text()
