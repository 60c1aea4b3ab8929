"""The noisy oracle: the truth, wrong at known rates, drawn by a chosen noise model.

Offline studies need a grounder whose errors are known exactly, so the gap
between per-question accuracy and task success can be measured without paying
for a VLM. How *often* it is wrong comes from an error model
(:class:`grounders.calibration.ErrorModel`: false-positive and false-negative
rates per predicate, from a uniform accuracy, asymmetric rates or a calibration
file); how the errors are *drawn* comes from a noise model
(:class:`grounders.noise.NoiseModel`):

- ``independent``: the draw is a hash of ``(seed, state, atom, ask-count)``, the
  ask-count being how often this atom was already asked in this state. With
  persistence ``q``, a wrong previous answer to the same atom in the same state
  is repeated with probability ``q``, otherwise the draw is fresh.
- ``deterministic``: the draw is a hash of ``(seed, state, atom, question
  wording)``: asking again gets the same answer, asking differently a new draw.
- ``scene``: deterministic draws at rates raised for atoms that mention an object
  that is hard to see in this state (and lowered for the others, keeping the mean).

With a ``clean`` share c > 0 (the noise model's, else the error model's: a fitted
calibration's ``[clean]`` per split) the seed first decides whether the episode is
clean (P c: no error at all) or not (every rate divided by 1 - c), so errors
cluster on some episodes as a real model's do on hard scenes.

With ``sticky`` k > 0 a share k of every rate is drawn once per (episode, atom,
truth value) instead of per state: a misperceived atom stays misperceived while
its truth holds, across states, and the rest of the rate is drawn as the kind
says (the two combine to the configured rate). A real model's errors are tied to
what the picture shows of the atom, and moving one block leaves the rest of the
picture as it was.

With ``focus`` f > 0 each episode has a focus object (the seed's choice among the
state's objects) and a share f of every rate falls on the atoms that mention it,
the others wrong at ``(1 - f)`` times their rate: a real model's errors in an
episode mostly concern one misread object, the rest of the scene read right.

With a ``[neither]`` share (a fitted calibration's, per split: one for the
episode's first question batch, one for later ones) a reply is neither yes nor no
(``unparseable``, drawn per state and atom): ViPlan's protocols end the episode
on one, and the released runs of some models end a third of their replans so.

No draw depends on batch order, batch size or process, so two protocols that ask
the same questions in different groupings see the same answers.

Confidence: P(verdict right | verdict) under the atom's own rates and a 50/50
prior (the configured accuracy when fp = fn; lower for atoms about a hard object),
raised toward 1 by the noise model's ``overconfidence``.
"""

from __future__ import annotations

from typing import Sequence

from grounders.calibration import ErrorModel, Rates
from grounders.noise import NoiseModel, resolve_noise
from grounders.noise.draw import (digest, episode_factor, focus_factor, focus_object, hard_share, reported, scaled,
                                  scene_rates, uniform)
from grounders.records import state_key_text
from toolkit.errors import PgtError
from toolkit.model import Atom
from toolkit.protocols import Answer, Observation, Verdict
from toolkit.questions import QuestionBook


class NoisyOracle:
    """Answers from ``observation.truth``, flipped at the error model's rates as the noise model draws.

    Args:
        model: error rates per predicate.
        seed: the only source of randomness.
        persistence: independent noise: probability of repeating a wrong answer for the same atom
            in the same state (shorthand for ``noise=NoiseModel.of("independent", persistence=q)``).
        privileged: answer atoms the observation cannot show (else UNKNOWN, ``not_visible``).
        book: optional question book, for ``Answer.question`` and the wording deterministic draws key on.
        noise: the noise model (or its text, e.g. ``"deterministic"``); default independent.
    """

    name = "noisy"

    def __init__(self, model: ErrorModel, seed: int = 0, persistence: float = 0.0, privileged: bool = False,
                 book: QuestionBook | None = None, noise: NoiseModel | str | None = None) -> None:
        if not 0.0 <= persistence <= 1.0:
            raise PgtError(f"persistence must be in [0, 1], got {persistence}")
        self.model = model
        self.seed = seed
        self.noise = resolve_noise(noise, persistence=persistence)
        self.persistence = self.noise.persistence
        self.privileged = privileged
        self.book = book
        # 1.0 unless some episodes are clean: by the noise model if it says so, else by the error model
        self.difficulty = episode_factor(seed, self.noise.clean or model.clean)
        self._objects: dict[frozenset[Atom], tuple[frozenset[str], str | None]] = {}
        self._asked: dict[tuple[str, Atom], int] = {}
        self._last_wrong: dict[tuple[str, Atom], bool] = {}
        self._answered = False  # whether a batch with a visible atom was answered (the first batch: see ask)

    def reset(self) -> None:
        """Forget ask-counts and previous answers (a fresh episode)."""
        self._asked.clear()
        self._last_wrong.clear()
        self._answered = False

    @staticmethod
    def state_text(observation: Observation) -> str:
        """The canonical text of the state an observation shows (what draws are keyed on)."""
        return state_key_text(observation.state_key if observation.state_key is not None else observation.truth)

    def is_hard(self, observation: Observation, obj: str) -> bool:
        """Scene noise: whether ``obj`` is hard to see in this observation's state (False for other kinds)."""
        return self._is_hard(digest(self.state_text(observation)), obj)

    def _is_hard(self, state_id: str, obj: str) -> bool:
        return self.noise.kind == "scene" and uniform(self.seed, "hard", state_id, obj) < self.noise.hard

    def atom_rates(self, observation: Observation, atom: Atom) -> Rates:
        """The fp/fn rates this atom is drawn with in this state (the predicate's, or scene-adjusted)."""
        return self._atom_rates(digest(self.state_text(observation)), atom)

    def _atom_rates(self, state_id: str, atom: Atom) -> Rates:
        rates = scaled(self.model.rates(atom.predicate), self.difficulty)
        if self.noise.kind != "scene":
            return rates
        objects = set(atom.args)
        hard = any(self._is_hard(state_id, obj) for obj in objects)
        return scene_rates(rates, hard_share(self.noise.hard, len(objects)), self.noise.factor, hard)

    def ask(self, observation: Observation, atoms: Sequence[Atom],
            questions: Sequence[str] | None = None) -> list[Answer]:
        """One answer per atom; ``questions`` optionally words each one (default: the book's wording).

        Under deterministic and scene noise the wording is part of the draw: the same
        question gets the same answer, a differently worded one is a new draw.
        """
        if questions is not None and len(questions) != len(atoms):
            raise PgtError(f"ask: {len(questions)} question texts for {len(atoms)} atoms")
        state = self.state_text(observation)
        state_id = digest(state) if self.noise.deterministic else ""
        objects, focus = self._focus(observation)
        first = not self._answered  # the episode's first question batch (a protocol's initial enumeration)
        out = []
        for i, atom in enumerate(atoms):
            question = questions[i] if questions is not None else \
                self.book.question(atom) if self.book is not None else str(atom)
            if not self.privileged and not observation.can_see(atom):
                out.append(Answer(atom, Verdict.UNKNOWN, 0.5, "not visible", question, "not_visible"))
                continue
            neither = self.model.neither[0 if first else 1]
            if neither and uniform(self.seed, "neither", state, atom) < neither:
                out.append(Answer(atom, Verdict.UNKNOWN, 0.5, "noisy oracle: neither yes nor no", question,
                                  "unparseable"))
                continue
            truth = atom in observation.truth
            if self.noise.deterministic:
                rates = self._atom_rates(state_id, atom)
            else:
                rates = scaled(self.model.rates(atom.predicate), self.difficulty)
            if focus is not None:
                rates = scaled(rates, focus_factor(self.noise.focus, focus, objects, atom.args))
            rate = rates.fn if truth else rates.fp
            sticky = self.noise.sticky * rate  # the part of the rate tied to the atom and its truth, not the state
            if sticky and uniform(self.seed, "sticky", atom, truth) < sticky:
                wrong = True
            else:
                fresh = (rate - sticky) / (1.0 - sticky) if sticky < 1.0 else 0.0  # a + (1 - a) b = rate
                if self.noise.deterministic:
                    wrong = uniform(self.seed, "det", state_id, atom, question) < fresh
                else:
                    wrong = self._independent(state, atom, fresh)
            verdict = Verdict.YES if truth != wrong else Verdict.NO
            confidence = reported(rates.confidence(verdict), self.noise.overconfidence)
            out.append(Answer(atom, verdict, confidence, "noisy oracle", question))
        self._answered = self._answered or any(a.status != "not_visible" for a in out)
        return out

    def _focus(self, observation: Observation) -> tuple[frozenset[str], str | None]:
        """The objects of the observed state and the episode's focus object among them (None without focus)."""
        if self.noise.focus <= 0.0:
            return frozenset(), None
        found = self._objects.get(observation.truth)
        if found is None:
            objects = frozenset(obj for atom in observation.truth for obj in atom.args)
            found = self._objects[observation.truth] = (objects, focus_object(self.seed, sorted(objects)))
        return found

    def _independent(self, state: str, atom: Atom, rate: float) -> bool:
        """A fresh draw per ask, repeating a wrong previous answer with P ``persistence``."""
        key = (state, atom)
        count = self._asked.get(key, 0)
        self._asked[key] = count + 1
        if self._last_wrong.get(key) and uniform(self.seed, state, atom, count, "persist") < self.persistence:
            wrong = True
        else:
            wrong = uniform(self.seed, state, atom, count, "error") < rate
        self._last_wrong[key] = wrong
        return wrong
