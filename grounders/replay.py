"""The replay grounder: answers from a recorded log, for offline re-analysis.

A VLM run is expensive; its answer log (JSON Lines of
:class:`grounders.records.AnswerRecord`) is not. Replaying it through the same
agent code lets a study be re-analysed (new metrics, a different belief update)
without calling the model again.

Lookup is by (state key text, atom); the n-th time an atom is asked in a state it
gets the n-th recorded answer there (the last one once the log runs out). With
``match_state=False`` the state is ignored (for logs recorded without state
keys). A log may answer several episodes (an imported ViPlan run holds one per
problem and scene): given ``episode``, only that episode's records (and records
that name no episode) answer. An atom the log does not have comes back UNKNOWN with status ``error`` and
a message that says so; replay never invents an answer.

A record whose atom is ``*`` (:data:`ANY_ATOM`) answers, in its state, every
question the log holds no (further) answer for: a recorded run that says "a
question here got a reply that was neither yes nor no, and which one went
unlogged" (an imported ViPlan episode whose last enumeration its code never wrote
down) replays as that reply, not as a gap.
"""

from __future__ import annotations

import functools
import heapq
import os
from collections import defaultdict
from pathlib import Path
from typing import Sequence

from grounders.records import AnswerRecord, read_records, state_key_text
from toolkit.errors import PgtError
from toolkit.model import Atom
from toolkit.protocols import Answer, Observation, Verdict


ANY_ATOM = "*"
_ByEpisode = dict[str, tuple[tuple[int, AnswerRecord], ...]]  # episode -> (line order, record) pairs


class ReplayGrounder:
    """Answers read back from an answer log.

    Args:
        log: a JSON Lines file, or records already read.
        match_state: look answers up by state as well as atom.
        episode: answer only from the records of this episode (and those naming none).
    """

    name = "replay"

    def __init__(self, log: str | Path | Sequence[AnswerRecord], match_state: bool = True,
                 episode: str | None = None) -> None:
        if isinstance(log, (str, Path)):
            self.total, by_episode = _read_log(str(log))
            if episode is None:
                records = [r for _, r in heapq.merge(*by_episode.values(), key=lambda pair: pair[0])]
            else:  # the episode's records and those naming none, in the log's order
                records = [r for _, r in heapq.merge(by_episode.get("", ()), by_episode.get(episode, ()),
                                                     key=lambda pair: pair[0])]
        else:
            records = list(log)
            self.total = len(records)
            if episode is not None:
                records = [r for r in records if r.episode in ("", episode)]
        self.source = str(log) if isinstance(log, (str, Path)) else "<records>"
        self.episode = episode
        self.match_state = match_state
        self._table: dict[tuple[str, str], list[AnswerRecord]] = defaultdict(list)
        for record in records:
            self._table[(record.state_key if match_state else "", record.atom)].append(record)
        self._asked: dict[tuple[str, str], int] = defaultdict(int)

    def __len__(self) -> int:
        return sum(len(v) for v in self._table.values())

    def reset(self) -> None:
        self._asked.clear()

    def ask(self, observation: Observation, atoms: Sequence[Atom]) -> list[Answer]:
        state = state_key_text(observation.state_key) if self.match_state else ""
        out = []
        for atom in atoms:
            key = (state, str(atom))
            found = self._table.get(key)
            rest = self._table.get((state, ANY_ATOM))
            if rest and self._asked[key] >= len(found or ()):
                self._asked[key] += 1
                wild = rest[0].to_answer()
                out.append(Answer(atom, wild.verdict, wild.confidence, wild.raw, wild.question, wild.status))
                continue
            if not found:
                where = f" in state {state!r}" if self.match_state else ""
                episode = f" for episode {self.episode}" if self.episode is not None else ""
                out.append(Answer(atom, Verdict.UNKNOWN, 0.5,
                                  f"replay: no recorded answer for {atom}{where}{episode} in {self.source}",
                                  str(atom), "error"))
                continue
            index = min(self._asked[key], len(found) - 1)
            self._asked[key] += 1
            out.append(found[index].to_answer())
        return out


def _read_log(path: str) -> tuple[int, _ByEpisode]:
    """The log's record count and its ``(line order, record)`` pairs by episode, read once per file version.

    A study builds one replay grounder per episode from the same log; an imported ViPlan
    run's log holds every episode of the run (60,000 records for a household model), so
    reading it whole for each episode made a replay quadratic in the run's size.
    """
    try:
        stat = os.stat(path)
    except OSError as exc:
        raise PgtError(f"cannot read answer log {path}: {exc.strerror}") from None
    return _read_log_version(os.path.abspath(path), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=2)
def _read_log_version(path: str, mtime_ns: int, size: int) -> tuple[int, _ByEpisode]:
    grouped: dict[str, list[tuple[int, AnswerRecord]]] = defaultdict(list)
    total = 0
    for total, record in enumerate(read_records(path), 1):
        grouped[record.episode].append((total, record))
    return total, {episode: tuple(pairs) for episode, pairs in grouped.items()}
