"""The noisy oracle: the truth, wrong at known rates.

Offline studies need a grounder whose errors are known exactly, so the gap
between per-question accuracy and task success can be measured without paying
for a VLM. Each predicate has a false-positive and a false-negative rate
(:class:`grounders.calibration.ErrorModel`, from a uniform accuracy, per-predicate
accuracies, asymmetric rates, or a calibration file).

Determinism: the chance draw of a question is a hash of ``(seed, state, atom,
ask-count)``, where the ask-count is how often this atom was already asked in this
state. Answers therefore do not depend on batch order or batch size, so two
protocols that ask the same questions in different groupings see the same
answers. Persistence ``q``: when the previous answer to the same atom in the same
state was wrong, the next one repeats it with probability ``q`` (real models are
consistently wrong about a given image), otherwise it is drawn afresh; ``q > 0``
raises the error rate of repeated questions above the configured rate.

Confidence: the grounder is calibrated, so it reports P(verdict right | verdict)
of its own error model under a 50/50 prior, which is the configured accuracy of
the predicate when fp = fn.
"""

from __future__ import annotations

import hashlib
from typing import Sequence

from grounders.calibration import ErrorModel
from grounders.records import state_key_text
from toolkit.errors import PgtError
from toolkit.model import Atom
from toolkit.protocols import Answer, Observation, Verdict
from toolkit.questions import QuestionBook


def _uniform(seed: int, *parts: object) -> float:
    """A deterministic number in [0, 1) from the seed and the parts (stable across processes)."""
    text = "\x1f".join(map(str, (seed, *parts))).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") / 2.0**64


class NoisyOracle:
    """Answers from ``observation.truth``, flipped at the error model's rates.

    Args:
        model: error rates per predicate.
        seed: the only source of randomness.
        persistence: probability of repeating a wrong answer for the same atom in the same state.
        privileged: answer atoms the observation cannot show (else UNKNOWN, ``not_visible``).
        book: optional question book, to fill ``Answer.question``.
    """

    name = "noisy"

    def __init__(self, model: ErrorModel, seed: int = 0, persistence: float = 0.0, privileged: bool = False,
                 book: QuestionBook | None = None) -> None:
        if not 0.0 <= persistence <= 1.0:
            raise PgtError(f"persistence must be in [0, 1], got {persistence}")
        self.model = model
        self.seed = seed
        self.persistence = persistence
        self.privileged = privileged
        self.book = book
        self._asked: dict[tuple[str, Atom], int] = {}
        self._last_wrong: dict[tuple[str, Atom], bool] = {}

    def reset(self) -> None:
        """Forget ask-counts and previous answers (a fresh episode)."""
        self._asked.clear()
        self._last_wrong.clear()

    def ask(self, observation: Observation, atoms: Sequence[Atom]) -> list[Answer]:
        state = state_key_text(observation.state_key) if observation.state_key is not None \
            else state_key_text(observation.truth)
        out = []
        for atom in atoms:
            question = self.book.question(atom) if self.book is not None else str(atom)
            if not self.privileged and not observation.can_see(atom):
                out.append(Answer(atom, Verdict.UNKNOWN, 0.5, "not visible", question, "not_visible"))
                continue
            key = (state, atom)
            count = self._asked.get(key, 0)
            self._asked[key] = count + 1
            truth = atom in observation.truth
            rates = self.model.rates(atom.predicate)
            if self._last_wrong.get(key) and _uniform(self.seed, state, atom, count, "persist") < self.persistence:
                wrong = True
            else:
                wrong = _uniform(self.seed, state, atom, count, "error") < (rates.fn if truth else rates.fp)
            self._last_wrong[key] = wrong
            verdict = Verdict.YES if truth != wrong else Verdict.NO
            out.append(Answer(atom, verdict, rates.confidence(verdict), "noisy oracle", question))
        return out
