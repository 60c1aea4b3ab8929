"""The replay grounder's log reading: once per file version, each episode's answers in the log's order.

A study builds one replay grounder per episode from the same answer log, and an
imported ViPlan run's log holds every episode of the run; reading it whole for
each episode made a household replay spend 85% of its time parsing the same file.
"""

from __future__ import annotations

import os

import pytest

import grounders.replay as replay_module
from grounders.records import AnswerRecord, RecordWriter
from grounders.replay import ReplayGrounder
from toolkit.errors import PgtError
from toolkit.model import Atom
from toolkit.protocols import Observation


def _record(atom: str, verdict: str, episode: str = "", state: str = "s0") -> AnswerRecord:
    return AnswerRecord(atom, f"is {atom}?", verdict, 1.0, verdict, state, episode=episode)


def _answers(grounder: ReplayGrounder, atom: str, times: int, state: str = "s0") -> list[str]:
    observation = Observation(step=0, truth=frozenset(), state_key=state)
    return [grounder.ask(observation, [Atom.parse(atom)])[0].verdict.value for _ in range(times)]


def test_log_read_once_per_version(tmp_path, monkeypatch):
    log = tmp_path / "answers.jsonl"
    RecordWriter(log).write_all([_record("(on a b)", "yes", "e1"), _record("(on a b)", "no", "e2")])
    reads = []
    real = replay_module.read_records
    monkeypatch.setattr(replay_module, "read_records", lambda path: reads.append(path) or real(path))
    first = ReplayGrounder(log, episode="e1")
    second = ReplayGrounder(log, episode="e2")
    assert len(reads) == 1
    assert _answers(first, "(on a b)", 1) == ["yes"] and _answers(second, "(on a b)", 1) == ["no"]
    assert first.total == second.total == 2
    # a log written again (another import into the same folder) is read again, never answered from the old one
    RecordWriter(log).write(_record("(on a b)", "no", "e1"))
    os.utime(log, ns=(os.stat(log).st_atime_ns, os.stat(log).st_mtime_ns + 1_000_000))
    third = ReplayGrounder(log, episode="e1")
    assert len(reads) == 2 and third.total == 3
    assert _answers(third, "(on a b)", 2) == ["yes", "no"]


def test_episode_answers_keep_the_log_order_with_shared_records(tmp_path):
    """Records naming no episode answer every episode, in their place in the log among the episode's own."""
    log = tmp_path / "answers.jsonl"
    RecordWriter(log).write_all([_record("(clear a)", "yes", "e1"), _record("(clear a)", "no", ""),
                                 _record("(clear a)", "yes", "e2"), _record("(clear a)", "yes", "")])
    assert _answers(ReplayGrounder(log, episode="e1"), "(clear a)", 3) == ["yes", "no", "yes"]
    assert _answers(ReplayGrounder(log, episode="e2"), "(clear a)", 3) == ["no", "yes", "yes"]
    assert _answers(ReplayGrounder(log), "(clear a)", 4) == ["yes", "no", "yes", "yes"]


def test_missing_log_is_one_clear_error(tmp_path):
    with pytest.raises(PgtError, match="cannot read answer log .*nothing.jsonl"):
        ReplayGrounder(tmp_path / "nothing.jsonl")


def test_batch_write_matches_one_by_one(tmp_path):
    records = [_record("(on a b)", "yes", "e1"), _record("(clear a)", "no", "e1", state="s1")]
    one, batch = tmp_path / "one.jsonl", tmp_path / "batch.jsonl"
    for record in records:
        RecordWriter(one).write(record)
    RecordWriter(batch).write_all(records)
    assert one.read_bytes() == batch.read_bytes()
    assert '"atom": "(on a b)"' in one.read_text() and '"episode": "e1"' in one.read_text()
