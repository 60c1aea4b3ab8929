"""The record format of grounder answers: one JSON object per line.

The VLM grounder (and the study runner) append one record per answer, so an
expensive run can be re-analysed offline by :class:`grounders.replay.ReplayGrounder`.
Records are append-only JSON Lines with a schema version; a killed run loses
nothing. A record never contains credentials.

State keys are written as canonical text (:func:`state_key_text`): a frozenset of
atoms becomes its sorted atoms joined by spaces, so the text is identical across
processes (Python's string hashing is salted per process; set order is not stable).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Hashable, Iterable, Iterator

from toolkit.errors import PgtError
from toolkit.model import Atom
from toolkit.protocols import Answer, Verdict
from toolkit import jsontext
from toolkit.redact import redact

SCHEMA = 1


def state_key_text(key: Hashable) -> str:
    """Canonical, process-independent text for an observation's ``state_key``.

    >>> state_key_text(frozenset({Atom("b"), Atom("a")}))
    '(a) (b)'
    >>> state_key_text(("ep", 3)), state_key_text(None)
    ('ep|3', '')
    """
    if key is None:
        return ""
    if isinstance(key, str):
        return key
    if isinstance(key, (set, frozenset)):
        return " ".join(sorted(state_key_text(k) for k in key))
    if isinstance(key, (tuple, list)):
        return "|".join(state_key_text(k) for k in key)
    return str(key)


@dataclass(frozen=True)
class AnswerRecord:
    """One answer as written to a log."""

    atom: str
    question: str
    verdict: str
    confidence: float
    raw: str
    state_key: str
    status: str = "ok"
    step: int = 0
    grounder: str = ""
    model: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool = False
    episode: str = ""  # the study episode that asked ("": any); one log may answer several episodes
    schema: int = SCHEMA

    @classmethod
    def from_answer(cls, answer: Answer, state_key: Hashable, step: int = 0, grounder: str = "",
                    model: str = "", cached: bool = False) -> AnswerRecord:
        return cls(str(answer.atom), answer.question, answer.verdict.value, answer.confidence, answer.raw,
                   state_key_text(state_key), answer.status, step, grounder, model,
                   answer.prompt_tokens, answer.completion_tokens, cached)

    def to_answer(self) -> Answer:
        return Answer(Atom.parse(self.atom), Verdict(self.verdict), self.confidence, self.raw, self.question,
                      self.status, self.prompt_tokens, self.completion_tokens)

    def to_json(self) -> str:
        # every field is a scalar: the instance's own dict is asdict's result without its deep copy per field
        return json.dumps(vars(self), sort_keys=True, ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any], where: str = "") -> AnswerRecord:
        try:
            known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
            record = cls(**known)
            Verdict(record.verdict)
            Atom.parse(record.atom)
        except (TypeError, ValueError, PgtError) as exc:
            raise PgtError(f"{where}: not an answer record: {exc}") from None
        return record


def read_records(path: str | Path) -> Iterator[AnswerRecord]:
    """Records of a JSON Lines log; blank lines are skipped, bad lines raise a located PgtError."""
    try:
        data_bytes = Path(path).read_bytes()
    except OSError as exc:
        raise PgtError(f"cannot read answer log {path}: {exc.strerror}") from None
    for number, raw in enumerate(data_bytes.splitlines(), 1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise PgtError(f"{path}:{number}:{exc.start + 1}: not UTF-8 text (byte 0x{raw[exc.start]:02x}); "
                           "an answer log is JSON Lines written by pgt run --grounder vlm") from None
        if not line.strip():
            continue
        try:
            data = jsontext.loads(line)
        except ValueError as exc:
            raise PgtError(f"{path}:{number}: not JSON: {exc}") from None
        if isinstance(data, dict) and "atom" in data:
            yield AnswerRecord.from_dict(data, f"{path}:{number}")


class RecordWriter:
    """Appends records to a JSON Lines file; safe to share between threads."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()

    def write(self, record: AnswerRecord) -> None:
        self.write_all((record,))

    def write_all(self, records: Iterable[AnswerRecord]) -> None:
        """Append several records with one open (an importer writes an episode's thousands at once)."""
        text = "".join(redact(record.to_json()) + "\n" for record in records)  # a reply that echoes a secret
        if text:
            with self._lock, self.path.open("a", encoding="utf-8") as fh:
                fh.write(text)
