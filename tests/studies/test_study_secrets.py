"""A canary key in the base URL never reaches a file, record, cache entry or message of a run.

The key travels as user-info (``http://user:KEY@host/v1``), as a query parameter
(``?api-key=KEY``), as the Basic-auth header httpx derives from the user-info,
and back from an endpoint that echoes what it was sent. Every file under the
run's folder and the cache, and everything printed, is searched for each form.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from urllib.parse import quote

import pytest
from openai_server import Reply, start_fake_openai

from toolkit.cli import main
from toolkit.redact import redact, redact_url

USER, CANARY, QUERY_CANARY, ENV_KEY = "alice", "CANARY-pass-7f3a9e", "CANARY-query-51c0d2", "sk-env-CANARY-88e1"


def _forms() -> list[str]:
    basic = base64.b64encode(f"{USER}:{CANARY}".encode()).decode()
    return [CANARY, QUERY_CANARY, ENV_KEY, basic, quote(basic), "CANARY"]


@pytest.fixture(autouse=True)
def _env(monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", ENV_KEY)
    for name in ("PGT_VLM_MODEL", "OPENAI_MODEL", "OPENAI_BASE_URL", "PGT_VLM_CACHE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


def _echoing():
    """A server that answers "Yes" plus everything secret it was sent (headers and path), and once a 500 doing so."""
    fake = start_fake_openai()
    calls = [0]

    def respond(request: dict) -> Reply:
        sent = fake.headers[-1]
        echo = f"auth={sent.get('authorization')} path={sent.get(':path')}"
        calls[0] += 1
        if calls[0] == 1:  # an error text quoting the request
            return Reply(status=500, body=json.dumps({"error": {"message": f"upstream failed for {echo}"}}))
        return Reply(f"Yes. ({echo})")

    fake.responder = respond
    return fake


def test_no_form_of_a_base_url_secret_is_written_anywhere(tmp_path, capsys) -> None:
    fake = _echoing()
    try:
        port_url = fake.base_url.replace("http://", f"http://{USER}:{CANARY}@") + f"?api-key={QUERY_CANARY}&region=eu"
        out, cache = tmp_path / "run", tmp_path / "cache" / "replies.sqlite"
        rc = main(["run", "--suite", "viplan-bw/simple", "--problems", "2", "--max-steps", "2", "--grounder", "vlm",
                   "--model", "fake-vlm", "--base-url", port_url, "--max-retries", "0", "--workers", "1",
                   "--out", str(out), "--cache", str(cache)])
        report_rc = main(["report", str(out)])
    finally:
        fake.stop()
    printed = capsys.readouterr()
    assert rc in (0, 1) and report_rc == 0, printed.err
    # the endpoint did receive the secrets (so the test is about what pgt writes, not what it sends)
    assert any(QUERY_CANARY in h.get(":path", "") for h in fake.headers)
    assert any((h.get("authorization") or "").startswith("Basic ") for h in fake.headers)
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert {"config.json", "episodes.jsonl", "answers.jsonl"} <= {p.name for p in files}
    assert any(p.name.startswith("replies.sqlite") for p in files)
    for path in files:
        data = path.read_bytes()
        for form in _forms():
            assert form.encode() not in data, f"{form} in {path.relative_to(tmp_path)}"
    for form in _forms():
        assert form not in printed.out + printed.err
    config = json.loads((out / "config.json").read_text())
    assert config["base_url"] == redact_url(port_url) and "region=eu" in config["base_url"]
    assert "***@" in config["base_url"] and "api-key=***" in config["base_url"]


def test_redact_covers_derived_forms_of_a_registered_url() -> None:
    from toolkit.redact import register_url

    register_url(f"https://bob:{CANARY}x@example.org/v1?token={QUERY_CANARY}x")
    basic = base64.b64encode(f"bob:{CANARY}x".encode()).decode()
    text = f"{CANARY}x {quote(CANARY + 'x')} {basic} {json.dumps(QUERY_CANARY + 'x')} Basic {basic}"
    assert "CANARY" not in redact(text) and basic not in redact(text)


def test_redact_leaves_ordinary_text_alone() -> None:
    text = "(on a b) is false; Basic blocks; the key is on the table; x=1&y=2"
    assert redact(text) == text
