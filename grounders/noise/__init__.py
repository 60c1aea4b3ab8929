"""Noise models of the noisy grounder: how its errors are drawn, chosen per study.

``spec`` holds the data (:class:`NoiseModel`, its text form, a calibration's
``[noise]`` table); ``draw`` the chance mechanics the grounder uses. Which model a
study gets is decided once, by :func:`resolve_noise`, and recorded in its
configuration, so a resumed study keeps drawing the way it started.
"""

from __future__ import annotations

from pathlib import Path

from grounders.noise.spec import DETERMINISTIC, INDEPENDENT, NOISE_KINDS, PARAMETERS, NoiseModel
from toolkit.errors import PgtError

__all__ = ["DETERMINISTIC", "INDEPENDENT", "NOISE_KINDS", "PARAMETERS", "NoiseModel", "resolve_noise"]


def resolve_noise(noise: str | NoiseModel | None = None, calibration: str | Path | None = None,
                  persistence: float = 0.0) -> NoiseModel:
    """The noise model of a study, from its flags.

    ``noise`` (``--noise``) wins; else a calibration file's ``[noise]`` table;
    else ``deterministic`` for a calibrated study (a real model at temperature 0
    answers the same question about the same image the same way) and
    ``independent`` for a uniform accuracy or ``--fp/--fn`` (the historical
    default). ``persistence`` (``--persistence``) is independent noise's parameter.

    >>> resolve_noise().text, resolve_noise(persistence=0.5).text
    ('independent', 'independent:persistence=0.5')
    >>> resolve_noise(calibration="viplan-bw-cot-gpt-4.1").text
    'deterministic'
    """
    if isinstance(noise, str):
        model = NoiseModel.parse(noise)
    elif noise is not None:
        model = noise
    elif persistence:
        model = INDEPENDENT
    elif calibration:
        from grounders.calibration import load_noise

        model = load_noise(calibration) or DETERMINISTIC
    else:
        model = INDEPENDENT
    if persistence and model.persistence and persistence != model.persistence:
        raise PgtError(f"--persistence {persistence:g} contradicts noise {model.text}; give the persistence once")
    return model.with_persistence(persistence) if persistence else model
