"""``pgt run --dry-run`` / ``pgt compare --dry-run``: the grid and its cost, with nothing run, written or sent."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from openai_server import Reply, start_fake_openai

from benchmarks.store import collect, read_records
from toolkit.cli import main


@pytest.fixture(autouse=True)
def _env(monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789")
    for name in ("PGT_VLM_MODEL", "OPENAI_MODEL", "OPENAI_BASE_URL", "PGT_VLM_CACHE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


def _number(text: str, pattern: str) -> float:
    hit = re.search(pattern, text)
    assert hit, f"{pattern!r} not in:\n{text}"
    return float(hit.group(1).replace(",", ""))


def test_a_vlm_dry_run_contacts_nothing_and_writes_nothing(tmp_path: Path, capsys) -> None:
    out = tmp_path / "study"
    with start_fake_openai() as server:
        rc = main(["run", "--suite", "viplan-bw/simple", "--problems", "4", "--seeds", "2", "--grounder", "vlm",
                   "--model", "gpt-4.1", "--base-url", server.base_url, "--out", str(out), "--dry-run"])
        assert not server.requests
    printed = capsys.readouterr().out
    assert rc == 0 and not out.exists() and list(tmp_path.iterdir()) == []  # no folder, no reply cache
    assert re.search(r"simple\s+4\s+2\s+8\s+0\s+8\s+[\d.]+", printed)
    prompt = _number(printed, r"tokens: about ([\d,]+) prompt")
    completion = _number(printed, r"\+ ([\d,]+) completion")
    requests = _number(printed, r"about ([\d,]+) requests to the endpoint")
    assert 100 < prompt / requests < 3000 and completion == requests  # one "Yes"/"No" token a question
    cost = _number(printed, r"cost: about \$([\d.,]+) at \$2 in / \$8 out")
    assert cost == pytest.approx((prompt * 2 + completion * 8) / 1e6, abs=0.006)


def test_questions_per_episode_are_those_of_a_perfect_grounder(tmp_path: Path, capsys) -> None:
    # with 3 problems the sample is the whole split, so the estimate is the oracle study's own mean
    assert main(["run", "--suite", "viplan-bw/medium", "--problems", "3", "--grounder", "oracle", "--quiet",
                 "--out", str(tmp_path / "oracle")]) == 0
    records = collect(read_records(tmp_path / "oracle" / "episodes.jsonl")).judged
    mean = sum(r["questions"] for r in records) / len(records)
    capsys.readouterr()
    assert main(["run", "--suite", "viplan-bw/medium", "--problems", "3", "--accuracy", "0.9",
                 "--out", str(tmp_path / "noisy"), "--dry-run"]) == 0
    printed = capsys.readouterr().out
    assert _number(printed, r"medium\s+3\s+1\s+3\s+0\s+3\s+([\d.]+)") == pytest.approx(mean, abs=0.05)
    assert "tokens" not in printed and "cost" not in printed  # an offline grounder costs nothing


def test_a_resumed_folder_shows_what_is_done_and_its_measured_tokens(tmp_path: Path, capsys) -> None:
    out = tmp_path / "study"
    with start_fake_openai(lambda request: Reply("No", prompt_tokens=321, completion_tokens=7)) as server:
        base = ["run", "--suite", "viplan-bw/simple", "--max-steps", "2", "--grounder", "vlm", "--model", "local-vlm",
                "--base-url", server.base_url, "--no-cache", "--quiet", "--out", str(out)]
        assert main([*base, "--problems", "2"]) == 0
        asked = len(server.requests)
        capsys.readouterr()
        before = sorted(p.name for p in out.iterdir()), (out / "episodes.jsonl").read_bytes()
        assert main([*base, "--problems", "5", "--dry-run", "--price-in", "1", "--price-out", "10"]) == 0
        assert len(server.requests) == asked
    assert (sorted(p.name for p in out.iterdir()), (out / "episodes.jsonl").read_bytes()) == before
    printed = capsys.readouterr().out
    assert re.search(r"simple\s+5\s+1\s+5\s+2\s+3\s+", printed)
    requests = _number(printed, r"about ([\d,]+) requests")
    assert _number(printed, r"about ([\d,]+) prompt") == pytest.approx(321 * requests, abs=1)
    assert "measured means of this folder's finished episodes" in printed
    assert "--price-in/--price-out" in printed


def test_an_unknown_model_gets_no_invented_price(tmp_path: Path, capsys) -> None:
    assert main(["run", "--suite", "viplan-bw/simple", "--problems", "1", "--protocol", "viplan-planner",
                 "--grounder", "vlm", "--model", "my-local-qwen", "--cot", "--out", str(tmp_path / "s"),
                 "--dry-run"]) == 0
    printed = capsys.readouterr().out
    assert "cost: unknown for model 'my-local-qwen'" in printed and "$" not in printed
    assert "+200 assumed reasoning tokens" in printed


def test_compare_dry_run_lists_every_study_of_the_grid(tmp_path: Path, capsys) -> None:
    out = tmp_path / "grid"
    assert main(["compare", "--suites", "viplan-bw/simple", "--problems", "2", "--calibrations", "none",
                 "--accuracies", "0.9,0.97", "--action-failures", "0", "--out", str(out), "--dry-run"]) == 0
    printed = capsys.readouterr().out
    assert not out.exists()
    assert len(re.findall(r"^viplan-bw-simple-acc0\.9\d?-fail0-(viplan|pgt)-grounder\s+2\s+0\s+2\s+", printed,
                          re.M)) == 4
    assert "grid: 4 studies, 8 episodes, 8 to run" in printed


@pytest.mark.parametrize("flag", ["--price-in", "--price-out"])
def test_a_negative_price_is_refused(tmp_path: Path, capsys, flag: str) -> None:
    rc = main(["run", "--suite", "viplan-bw/simple", "--grounder", "vlm", "--model", "m", "--out",
               str(tmp_path / "s"), "--dry-run", flag, "-1"])
    assert rc == 2 and f"argument {flag}: must be 0 or more" in capsys.readouterr().err
