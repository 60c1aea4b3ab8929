"""The VLM grounder against a local OpenAI-compatible server (real HTTP, real openai client)."""

from __future__ import annotations

import math
import threading
import time

import pytest
from openai_server import (Reply, hang, malformed, not_yes_no, server_error, start_fake_openai, truth_responder,
                           unauthorized)

from grounders import make_grounder
from grounders.prompts import BASE_COT, BASE_NO_COT, BW_SCENE
from grounders.records import read_records
from grounders.replay import ReplayGrounder
from grounders.vlm import VLMConfig, VLMGrounder
from toolkit.errors import EndpointError
from toolkit.domains import shipped_domain, shipped_problem
from toolkit.model import Atom
from toolkit.protocols import Observation, Verdict
from toolkit.questions import QuestionBook
from toolkit.task import load_task

KEY = "sk-test-SECRET-0123456789"
PNG = b"\x89PNG\r\n\x1a\nfake image bytes"


@pytest.fixture(scope="module")
def book() -> QuestionBook:
    return QuestionBook(load_task(shipped_domain("blocksworld"), shipped_problem("blocksworld", "simple_problem_0")))


@pytest.fixture()
def server(book: QuestionBook):
    true_questions = {book.question(a) for a in book.task.init}
    fake = start_fake_openai(truth_responder(lambda q: q in true_questions))
    yield fake
    fake.stop()


def _obs(book: QuestionBook) -> Observation:
    return Observation(step=0, truth=book.task.init, render=lambda: PNG, state_key="s0")


def _grounder(book: QuestionBook, url: str, **kw) -> VLMGrounder:
    kw.setdefault("backoff_base", 0.01)
    return VLMGrounder(book, VLMConfig(model="fake-vlm", base_url=url, api_key=KEY, **kw))


def test_answers_every_atom_and_sends_the_viplan_prompt_with_the_question(book, server) -> None:
    atoms = book.task.all_atoms()
    answers = _grounder(book, server.base_url).ask(_obs(book), atoms)
    assert [a.value for a in answers] == [a in book.task.init for a in atoms]
    assert all(a.status == "ok" and a.prompt_tokens == 11 and a.completion_tokens == 2 for a in answers)
    request = server.requests[0]
    system, user = request["messages"]
    assert system["content"].startswith(BASE_NO_COT) and BW_SCENE in system["content"]
    image, question = user["content"]
    assert image["image_url"]["url"].startswith("data:image/png;base64,")
    assert question["text"].startswith("Question: ") and question["text"].endswith("?")
    assert request["logprobs"] is True and request["top_logprobs"] == 5
    assert server.headers[0]["authorization"] == f"Bearer {KEY}"


def test_chain_of_thought_prompt_and_replies(book) -> None:
    true_questions = {book.question(a) for a in book.task.init}
    with start_fake_openai(truth_responder(lambda q: q in true_questions, cot=True)) as fake:
        atoms = book.task.all_atoms()[:12]
        answers = _grounder(book, fake.base_url, cot=True).ask(_obs(book), atoms)
        assert [a.value for a in answers] == [a in book.task.init for a in atoms]
        system, user = fake.requests[0]["messages"]
        assert system["content"] == BASE_COT
        assert user["content"][0] == {"type": "text", "text": BW_SCENE}


def test_retries_429_and_500_then_answers(book, server) -> None:
    server.script.extend([Reply(status=429), server_error(500), Reply("No")])
    [answer] = _grounder(book, server.base_url).ask(_obs(book), [Atom("clear", ("r",))])
    assert (answer.verdict, answer.status, len(server.requests)) == (Verdict.NO, "ok", 3)


def test_gives_up_after_retries_with_a_transient_endpoint_error(book, server) -> None:
    server.script.extend([server_error(503)] * 3)
    with pytest.raises(EndpointError) as caught:
        _grounder(book, server.base_url, max_retries=2).ask(_obs(book), [Atom("clear", ("r",))])
    assert not caught.value.fatal and caught.value.status == 503
    assert "HTTP 503" in str(caught.value) and "gave up after 3 attempt(s)" in str(caught.value)


def test_hang_past_the_timeout_is_a_transient_endpoint_error(book, server) -> None:
    server.script.append(hang(1.0))
    with pytest.raises(EndpointError, match=r"timed out after 0.2 s") as caught:
        _grounder(book, server.base_url, timeout=0.2, max_retries=0).ask(_obs(book), [Atom("clear", ("r",))])
    assert not caught.value.fatal


@pytest.mark.parametrize("reply", [malformed("this is not json"), malformed('{"choices": []}'), malformed(),
                                   Reply(content=None)])
def test_one_malformed_reply_is_one_error_answer_and_the_batch_goes_on(book, server, reply: Reply) -> None:
    server.script.append(reply)
    atoms = book.task.all_atoms()[:3]
    answers = _grounder(book, server.base_url, max_concurrency=1).ask(_obs(book), atoms)
    assert (answers[0].verdict, answers[0].status) == (Verdict.UNKNOWN, "error")
    assert "malformed reply" in answers[0].raw
    assert [a.status for a in answers[1:]] == ["ok", "ok"] and len(server.requests) == 3


def test_unreadable_text_is_unparseable_not_an_error(book, server) -> None:
    server.script.append(not_yes_no("Perhaps, hard to say."))
    [answer] = _grounder(book, server.base_url).ask(_obs(book), [Atom("clear", ("r",))])
    assert (answer.verdict, answer.status, answer.raw) == (Verdict.UNKNOWN, "unparseable", "Perhaps, hard to say.")


def test_logprobs_become_the_confidence(book, server) -> None:
    lp = [("Yes", math.log(0.8), [("Yes", math.log(0.8)), ("No", math.log(0.2)), ("The", math.log(0.01))])]
    server.script.extend([Reply("Yes", logprobs=lp), Reply("No", logprobs=[("No", math.log(0.6), [
        ("No", math.log(0.6)), ("Yes", math.log(0.3))])])])
    g = _grounder(book, server.base_url, max_concurrency=1)
    first, second = g.ask(_obs(book), [Atom("clear", ("r",)), Atom("clear", ("y",))])
    assert first.confidence == pytest.approx(0.8 / 1.0)
    assert second.verdict is Verdict.NO and second.confidence == pytest.approx(0.6 / 0.9, abs=1e-5)


def test_endpoint_that_refuses_logprobs_still_answers(book) -> None:
    with start_fake_openai(lambda request: Reply("Yes"), refuse_logprobs=True) as fake:
        answers = _grounder(book, fake.base_url, max_concurrency=1).ask(
            _obs(book), [Atom("clear", ("r",)), Atom("clear", ("y",))])
        assert [a.status for a in answers] == ["ok", "ok"] and answers[0].confidence == 1.0
        assert [bool(r.get("logprobs")) for r in fake.requests] == [True, False, False]


def test_wrong_url_is_a_fatal_error_quickly(book) -> None:
    g = _grounder(book, "http://127.0.0.1:9/v1", max_retries=1)
    with pytest.raises(EndpointError, match="cannot connect to http://127.0.0.1:9/v1") as caught:
        g.ask(_obs(book), book.task.all_atoms()[:20])
    assert caught.value.fatal and g.last_error and "Connection refused" in g.last_error


def test_auth_error_is_fatal_not_retried_and_the_key_never_leaks(book, server, tmp_path) -> None:
    server.script.append(unauthorized("Incorrect API key provided: " + KEY))
    g = _grounder(book, server.base_url, cache_path=str(tmp_path / "cache.sqlite"),
                  log_path=str(tmp_path / "answers.jsonl"), max_concurrency=1)
    with pytest.raises(EndpointError, match="authentication failed") as caught:
        g.ask(_obs(book), book.task.all_atoms()[:5])
    assert caught.value.fatal and caught.value.status == 401
    assert len(server.requests) == 1  # neither retried nor sent for the rest of the batch
    assert KEY not in str(caught.value) and KEY not in repr(g.config)
    g.ask(_obs(book), book.task.all_atoms()[:5])  # now succeeds, and fills cache and log
    for path in tmp_path.iterdir():
        assert KEY.encode() not in path.read_bytes(), path


def test_disk_cache_answers_repeats_without_calls_across_instances(book, server, tmp_path) -> None:
    atoms = book.task.all_atoms()[:8]
    cache = str(tmp_path / "c.sqlite")
    first = _grounder(book, server.base_url, cache_path=cache).ask(_obs(book), atoms)
    calls = len(server.requests)
    second = _grounder(book, server.base_url, cache_path=cache).ask(_obs(book), atoms)
    assert len(server.requests) == calls
    assert [a.verdict for a in first] == [a.verdict for a in second]
    assert all(a.prompt_tokens == 0 for a in second)
    other_image = Observation(step=0, truth=book.task.init, render=lambda: PNG + b"2", state_key="s1")
    _grounder(book, server.base_url, cache_path=cache).ask(other_image, atoms)
    assert len(server.requests) == calls + len(atoms)


def test_concurrency_limit(book) -> None:
    lock, state = threading.Lock(), {"now": 0, "peak": 0}

    def slow(request):
        with lock:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
        time.sleep(0.05)
        with lock:
            state["now"] -= 1
        return Reply("Yes")

    with start_fake_openai(slow) as fake:
        _grounder(book, fake.base_url, max_concurrency=3).ask(_obs(book), book.task.all_atoms()[:12])
    assert 1 < state["peak"] <= 3


def test_answer_log_replays_offline(book, server, tmp_path) -> None:
    log = tmp_path / "answers.jsonl"
    atoms = book.task.all_atoms()[:10]
    live = _grounder(book, server.base_url, log_path=str(log)).ask(_obs(book), atoms)
    assert len(list(read_records(log))) == 10
    replayed = ReplayGrounder(log).ask(_obs(book), atoms)
    assert [(a.atom, a.verdict, a.raw, a.question) for a in live] == \
        [(a.atom, a.verdict, a.raw, a.question) for a in replayed]
    missing = ReplayGrounder(log).ask(Observation(step=1, truth=frozenset(), state_key="other"), atoms[:1])[0]
    assert missing.status == "error" and "no recorded answer for (clear p) in state 'other'" in missing.raw


def test_registry_builds_every_grounder(book, server, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    task = book.task
    atom = Atom("inColumn", ("y", "c2"))
    for name, options in [("oracle", {}), ("noisy", {"accuracy": 1.0}), ("vlm", {"model": "m", "seed": 1}),
                          ("noisy", {"calibration": "viplan-bw-cot-gpt-4.1", "split": "hard"})]:
        [answer] = make_grounder(name, task, **options).ask(_obs(book), [atom])
        assert answer.status == "ok", name
        if "calibration" in options:  # GPT-4.1, hard split, inColumn: accuracy 0.96
            assert answer.confidence == pytest.approx(0.96)
        else:
            assert answer.verdict is Verdict.YES, name
    log = tmp_path / "a.jsonl"
    _grounder(book, server.base_url, log_path=str(log)).ask(_obs(book), [atom])
    assert make_grounder("replay", task, log=str(log)).ask(_obs(book), [atom])[0].verdict is Verdict.YES
