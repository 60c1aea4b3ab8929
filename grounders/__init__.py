"""Concrete grounders and the registry the CLI and study runner choose from.

Each factory takes the task plus keyword options and returns a grounder. Imports
are inside the factories, so choosing ``oracle`` never imports ``openai``.

>>> sorted(GROUNDERS)
['noisy', 'oracle', 'replay', 'vlm']
"""

from __future__ import annotations

from typing import Any, Callable

from toolkit.protocols import Grounder
from toolkit.task import Task


def _oracle(task: Task, privileged: bool = False, **_: Any) -> Grounder:
    from grounders.oracle import Oracle
    from toolkit.questions import QuestionBook

    return Oracle(QuestionBook(task), privileged=privileged)


def _noisy(task: Task, accuracy: float | None = None, fp: float | None = None, fn: float | None = None,
           calibration: str | None = None, split: str = "simple", seed: int = 0, persistence: float = 0.0,
           privileged: bool = False, noise: str | None = None, **_: Any) -> Grounder:
    from grounders.calibration import ErrorModel, load_calibration
    from grounders.noise import resolve_noise
    from grounders.noisy import NoisyOracle
    from toolkit.questions import QuestionBook

    if calibration:
        model = load_calibration(calibration, split)
    elif fp is not None or fn is not None:
        model = ErrorModel.asymmetric(fp or 0.0, fn or 0.0)
    else:
        model = ErrorModel.uniform(0.9 if accuracy is None else accuracy)
    return NoisyOracle(model, seed=seed, privileged=privileged, book=QuestionBook(task),
                       noise=resolve_noise(noise, calibration, persistence))


def _vlm(task: Task, **options: Any) -> Grounder:
    from grounders.vlm import VLMConfig, VLMGrounder
    from toolkit.questions import QuestionBook

    known = VLMConfig.__dataclass_fields__
    return VLMGrounder(QuestionBook(task), VLMConfig.from_env(**{k: v for k, v in options.items() if k in known}))


def _replay(task: Task, log: str = "", match_state: bool = True, **_: Any) -> Grounder:
    from grounders.replay import ReplayGrounder
    from toolkit.errors import PgtError

    if not log:
        raise PgtError("the replay grounder needs an answer log (log=PATH)")
    return ReplayGrounder(log, match_state=match_state)


GROUNDERS: dict[str, Callable[..., Grounder]] = {
    "oracle": _oracle,
    "noisy": _noisy,
    "vlm": _vlm,
    "replay": _replay,
}


def make_grounder(name: str, task: Task, **options: Any) -> Grounder:
    """Build a registered grounder by name; unknown names raise with suggestions."""
    from toolkit.errors import UnknownSymbolError

    if name not in GROUNDERS:
        raise UnknownSymbolError("grounder", name, GROUNDERS)
    return GROUNDERS[name](task, **options)
