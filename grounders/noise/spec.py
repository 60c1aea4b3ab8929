"""Noise models as data: a kind plus parameters, written as one line of text.

A study chooses how its simulated grounder is wrong, not only how often: the
error *rates* come from an :class:`~grounders.calibration.ErrorModel` (per
predicate, false-yes and false-no apart), the *noise model* says how the errors
are drawn. The model is part of a study's result-deciding configuration, so it
is stored as canonical text (``deterministic``, ``independent:persistence=0.5``,
``scene:hard=0.15,factor=3``) that parses back to the same model.

Kinds (docs/grounders.md says which real VLM behaviour each stands for):

- ``independent``: every question is a fresh draw; ``persistence`` repeats a
  wrong answer to the same atom in the same state with that probability.
- ``deterministic``: one draw per (seed, state, atom, question wording): the
  temperature-0 model. The default for calibrated studies.
- ``scene``: deterministic draws, plus a latent per-(state, object) difficulty:
  a share ``hard`` of the objects is hard to see in each state, and atoms that
  mention one are wrong up to ``factor`` times as often, the others less, so the
  mean rate stays the configured one.

Every kind takes ``overconfidence`` o: the reported confidence is
``c + o * (1 - c)`` where ``c`` is the calibrated one (o = 0: calibrated).

Every kind also takes ``clean`` c: the share of episodes answered without a
single error (a scene the model sees perfectly); the others are wrong at the
configured rates divided by (1 - c), so the mean rates stay the configured ones.
c = 0 (the default) is every episode alike. ViPlan's released answers show why it
matters: GPT-4.1 (chain of thought) is wrong on 0.5% of its simple-split answers
and 79% of its episodes have no wrong answer, where evenly spread errors leave
about 64% clean (medium: 52% against 17%); the errors of a real model cluster on a
few scenes, and a clean episode is a likely success. A fitted calibration carries c
per split (``[clean]``, used when the noise model sets none):
:mod:`benchmarks.viplan_calibrate` fits it to the released share of clean episodes.

And every kind takes ``sticky`` k: a share k of each rate is drawn once per
(episode, atom, truth value) rather than per state, so a misperceived atom stays
wrong across states while its truth holds (the rest is drawn as the kind says,
the two combining to the configured rate). In ViPlan's released Blocksworld runs
an atom answered right is wrong in the next state (its truth unchanged) 1% of the
time (GPT-4.1 CoT, medium), against 3.2% of all its enumeration answers: most
errors are the same atoms again, few are new. State-keyed draws make each
re-enumeration a fresh set of errors, and each fresh error is another chance to
break the plan. :mod:`benchmarks.viplan_calibrate` fits k as 1 - that
right-to-wrong rate over the error rate of the same answers.

And every kind takes ``focus`` f: each episode has one focus object (drawn from
the seed among the objects of the state), and a share f of the error rate falls on
the atoms that mention it: an atom naming k of the state's n objects is wrong at
``rate * (1 - f + f n / k)`` when one of them is the focus, ``rate * (1 - f)``
otherwise, which averages to ``rate`` over the focus draw. A real model that
misreads one object (the yellow block's position) is wrong about every atom that
mentions it, and right about the rest of the scene: in ViPlan's released
Blocksworld runs 82% of an erring GPT-4.1 CoT episode's distinct wrong atoms mention
one object (errors drawn atom by atom at its rates: 55%), and a belief wrong about one object
leaves a plan the planner can still find and follow. :mod:`benchmarks.viplan_calibrate`
fits f to the released episodes' share of wrong answers on their most-wrong object.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Mapping

from toolkit.errors import PgtError, closest

NOISE_KINDS: dict[str, str] = {
    "independent": "a fresh draw for every question (persistence: repeat a wrong answer in the same state)",
    "deterministic": "the same question about the same state always gets the same answer (temperature 0)",
    "scene": "deterministic, and objects hard to see in a state make every atom that mentions them wrong more often",
}
"""The kinds of noise model, with a one-line description (the ``--noise`` choices)."""

# parameter -> (kinds that take it, default, lowest, highest)
PARAMETERS: dict[str, tuple[tuple[str, ...], float, float, float]] = {
    "persistence": (("independent",), 0.0, 0.0, 1.0),
    "hard": (("scene",), 0.15, 0.0, 1.0),
    "factor": (("scene",), 3.0, 1.0, math.inf),
    "overconfidence": (tuple(NOISE_KINDS), 0.0, 0.0, 1.0),
    "clean": (tuple(NOISE_KINDS), 0.0, 0.0, 0.99),
    "sticky": (tuple(NOISE_KINDS), 0.0, 0.0, 1.0),
    "focus": (tuple(NOISE_KINDS), 0.0, 0.0, 1.0),
}


@dataclass(frozen=True)
class NoiseModel:
    """How a noisy grounder's errors are drawn; build with :meth:`parse` or :meth:`from_table`.

    >>> NoiseModel.parse("scene:factor=4").text
    'scene:hard=0.15,factor=4'
    >>> NoiseModel.parse("independent:persistence=0.5") == NoiseModel("independent", persistence=0.5)
    True
    """

    kind: str = "independent"
    # neutral values here (no effect); NoiseModel.of fills each kind's documented defaults
    persistence: float = 0.0
    hard: float = 0.0
    factor: float = 1.0
    overconfidence: float = 0.0
    clean: float = 0.0
    sticky: float = 0.0
    focus: float = 0.0

    def __post_init__(self) -> None:
        if self.kind not in NOISE_KINDS:
            hint = closest(self.kind, NOISE_KINDS)
            tip = f"did you mean {', '.join(hint)}?" if hint else f"known: {', '.join(NOISE_KINDS)}"
            raise PgtError(f"unknown noise model '{self.kind}'; {tip}")
        for name, (kinds, default, low, high) in PARAMETERS.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
                raise PgtError(f"noise {self.kind}: {name} must be a number, got {value!r}")
            if not low <= value <= high:
                span = f"in [{low:g}, {high:g}]" if high < math.inf else f"at least {low:g}"
                raise PgtError(f"noise {self.kind}: {name} must be {span}, got {value:g}")
            object.__setattr__(self, name, float(value))
            neutral = NoiseModel.__dataclass_fields__[name].default
            if self.kind not in kinds and value != neutral:
                raise PgtError(f"noise {self.kind}: '{name}' is a parameter of {' and '.join(kinds)} only")

    # ------------------------------------------------------------------ build

    @classmethod
    def of(cls, kind: str, **params: float) -> NoiseModel:
        """A model of ``kind``: its own parameters default as documented, others are refused.

        >>> NoiseModel.of("scene").hard, NoiseModel.of("deterministic").hard
        (0.15, 0.0)
        """
        if kind not in NOISE_KINDS:
            cls(kind)  # raises with a suggestion
        values: dict[str, float] = {}
        for name, (kinds, default, _, _) in PARAMETERS.items():
            if name in params:
                if kind not in kinds:
                    takes = ", ".join(n for n, spec in PARAMETERS.items() if kind in spec[0])
                    raise PgtError(f"noise {kind}: '{name}' is a parameter of {' and '.join(kinds)} only "
                                   f"({kind} takes {takes})")
                values[name] = params.pop(name)
            elif kind in kinds:
                values[name] = default
        if params:
            name = next(iter(params))
            known = [n for n, spec in PARAMETERS.items() if kind in spec[0]]
            hint = closest(name, known)
            tip = f"did you mean {', '.join(hint)}?" if hint else f"{kind} takes {', '.join(known)}"
            raise PgtError(f"noise {kind}: unknown parameter '{name}'; {tip}")
        return cls(kind, **values)

    @classmethod
    def parse(cls, text: str) -> NoiseModel:
        """``KIND`` or ``KIND:NAME=VALUE,NAME=VALUE`` (the ``--noise`` flag and ``RunConfig.noise``)."""
        kind, _, rest = text.strip().partition(":")
        params: dict[str, float] = {}
        for item in filter(None, (p.strip() for p in rest.split(","))):
            name, eq, value = item.partition("=")
            if not eq:
                raise PgtError(f"noise '{text}': expected NAME=VALUE, got '{item}'")
            try:
                params[name.strip()] = float(value)
            except ValueError:
                raise PgtError(f"noise '{text}': {name.strip()} must be a number, got '{value.strip()}'") from None
        return cls.of(kind.strip().lower(), **params)

    @classmethod
    def from_table(cls, table: Mapping[str, Any], where: str = "[noise]") -> NoiseModel:
        """A calibration file's ``[noise]`` table: ``kind`` plus parameters."""
        if not isinstance(table, Mapping):
            raise PgtError(f"{where}: a table with 'kind' and parameters, got {type(table).__name__}")
        params = dict(table)
        kind = params.pop("kind", None)
        if not isinstance(kind, str):
            raise PgtError(f"{where}: needs kind = one of {', '.join(NOISE_KINDS)}")
        for name, value in params.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise PgtError(f"{where}: {name} must be a number, got {value!r}")
        try:
            return cls.of(kind, **params)
        except PgtError as exc:
            raise PgtError(f"{where}: {exc}") from None

    # ------------------------------------------------------------------ use

    @property
    def text(self) -> str:
        """Canonical text: the kind, then its parameters (defaults of other kinds left out)."""
        parts = [f"{name}={getattr(self, name):.12g}" for name, (kinds, default, _, _) in PARAMETERS.items()
                 if self.kind in kinds and (name in ("hard", "factor") or getattr(self, name) != default)]
        return self.kind + (":" + ",".join(parts) if parts else "")

    @property
    def deterministic(self) -> bool:
        """True when a repeated question gets the same answer (the draw ignores how often it was asked)."""
        return self.kind != "independent"

    def with_persistence(self, persistence: float) -> NoiseModel:
        """This model with ``--persistence`` applied (only independent draws can persist)."""
        if persistence == self.persistence:
            return self
        if self.kind != "independent":
            raise PgtError(f"--persistence is a parameter of independent noise; the {self.kind} model "
                           "already repeats every answer")
        return dataclasses.replace(self, persistence=persistence)

    def __str__(self) -> str:
        return self.text


INDEPENDENT = NoiseModel.of("independent")
DETERMINISTIC = NoiseModel.of("deterministic")
