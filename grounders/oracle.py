"""The oracle grounder: answers from the world's true state.

It is the upper bound of every study (a perfect VLM) and the reference the
noisy oracle perturbs. Like a camera, it cannot answer about atoms the current
view does not show (``observation.can_see``): those come back UNKNOWN with status
``not_visible``, unless ``privileged=True`` (the ViPlan-HH setting, where
non-visible atoms are filled in from privileged information).
"""

from __future__ import annotations

from typing import Sequence

from toolkit.model import Atom
from toolkit.protocols import Answer, Observation, Verdict
from toolkit.questions import QuestionBook


class Oracle:
    """Perfect answers from ``observation.truth``.

    Args:
        book: optional question book, to fill ``Answer.question`` (useful in logs).
        privileged: answer atoms the observation cannot show, too.
    """

    name = "oracle"

    def __init__(self, book: QuestionBook | None = None, privileged: bool = False) -> None:
        self.book = book
        self.privileged = privileged

    def _question(self, atom: Atom) -> str:
        return self.book.question(atom) if self.book is not None else str(atom)

    def ask(self, observation: Observation, atoms: Sequence[Atom]) -> list[Answer]:
        out = []
        for atom in atoms:
            if not self.privileged and not observation.can_see(atom):
                out.append(Answer(atom, Verdict.UNKNOWN, 0.5, "not visible", self._question(atom), "not_visible"))
                continue
            verdict = Verdict.YES if atom in observation.truth else Verdict.NO
            out.append(Answer(atom, verdict, 1.0, "oracle", self._question(atom)))
        return out
