"""The chance mechanics of the noise models: seeded hashes, scene difficulty, reported confidence.

Every chance draw is a hash of the seed and the draw's identity, never a shared
random stream, so an answer does not depend on which other questions were asked,
in which order, batch or process. What goes into the identity is what makes the
models differ: the ask-count (independent), the question wording (deterministic),
the objects of the atom (scene difficulty).
"""

from __future__ import annotations

import hashlib
from typing import Iterable

from grounders.calibration import Rates


def uniform(seed: int, *parts: object) -> float:
    """A deterministic number in [0, 1) from the seed and the parts (stable across processes).

    >>> uniform(1, "a") == uniform(1, "a") != uniform(2, "a")
    True
    """
    text = "\x1f".join(map(str, (seed, *parts))).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") / 2.0**64


def digest(text: str) -> str:
    """A short stable name for a long text (a state), so per-atom hashes stay cheap."""
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def hard_share(hard: float, objects: int) -> float:
    """P(at least one of ``objects`` distinct objects is hard) when each is hard with P ``hard``."""
    return 1.0 - (1.0 - hard) ** objects


def split_rate(rate: float, share: float, factor: float) -> tuple[float, float]:
    """(rate of hard atoms, rate of easy atoms) whose mean over a ``share`` of hard atoms is ``rate``.

    Hard atoms are wrong ``factor`` times as often, capped where the easy ones would
    need a negative rate (then every error falls on hard atoms) and at 1.

    >>> split_rate(0.1, 0.2, 3.0)
    (0.3, 0.05)
    >>> split_rate(0.1, 0.5, 3.0)  # 0.3 on half the atoms would exceed the mean: capped at 0.2
    (0.2, 0.0)
    """
    if share <= 0.0 or share >= 1.0:
        return rate, rate
    hard = min(1.0, factor * rate, rate / share)
    easy = max(0.0, (rate - share * hard) / (1.0 - share))
    return round(hard, 12), round(easy, 12)


def scene_rates(rates: Rates, share: float, factor: float, is_hard: bool) -> Rates:
    """The rates of one atom given whether an object it mentions is hard (each class split on its own)."""
    fp_hard, fp_easy = split_rate(rates.fp, share, factor)
    fn_hard, fn_easy = split_rate(rates.fn, share, factor)
    return Rates(fp_hard, fn_hard) if is_hard else Rates(fp_easy, fn_easy)


def episode_factor(seed: int, clean: float) -> float:
    """An episode's multiplier of the error rates: 0 for a clean episode (P ``clean``), else ``1 / (1 - clean)``.

    The mean over episodes is 1, so the configured rates stay the mean rates.

    >>> episode_factor(7, 0.0)
    1.0
    >>> sorted({episode_factor(seed, 0.75) for seed in range(50)})
    [0.0, 4.0]
    """
    if clean <= 0.0:
        return 1.0
    return 0.0 if uniform(seed, "clean episode") < clean else 1.0 / (1.0 - clean)


def focus_object(seed: int, objects: Iterable[str]) -> str | None:
    """The episode's focus object among ``objects``: the one whose seeded hash is lowest (None if none).

    It depends on the seed and the set of objects only, so it stays the same across
    the states of an episode whose objects stay the same.

    >>> focus_object(3, ["a", "b", "c"]) == focus_object(3, ["c", "b", "a"])
    True
    """
    return min(objects, key=lambda obj: uniform(seed, "focus object", obj), default=None)


def focus_factor(focus: float, focus_obj: str | None, objects: frozenset[str], args: Iterable[str]) -> float:
    """The multiplier of one atom's rates under ``focus`` f: ``1 - f + f n / k`` if the atom names the
    focus object, else ``1 - f`` (n objects in the state, k of them named by the atom); 1 for an atom
    that names none of the state's objects. Averaged over the focus draw it is 1.

    >>> focus_factor(0.5, "a", frozenset("abcd"), ["a", "b"]), focus_factor(0.5, "a", frozenset("abcd"), ["c"])
    (1.5, 0.5)
    """
    if focus <= 0.0 or focus_obj is None:
        return 1.0
    named = objects.intersection(args)
    if not named:
        return 1.0
    if focus_obj in named:
        return 1.0 - focus + focus * len(objects) / len(named)
    return 1.0 - focus


def scaled(rates: Rates, factor: float) -> Rates:
    """``rates`` times an episode's difficulty, capped at 1."""
    if factor == 1.0:
        return rates
    return Rates(round(min(1.0, rates.fp * factor), 12), round(min(1.0, rates.fn * factor), 12))


def reported(confidence: float, overconfidence: float) -> float:
    """The confidence a grounder reports: the calibrated one pushed toward 1 by ``overconfidence``.

    >>> reported(0.8, 0.0), reported(0.8, 0.5), reported(0.8, 1.0)
    (0.8, 0.9, 1.0)
    """
    return round(confidence + overconfidence * (1.0 - confidence), 12)
