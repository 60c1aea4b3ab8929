"""Error models for the noisy oracle, and calibration files that define them.

An :class:`ErrorModel` gives each predicate a false-positive rate (answering yes
when the atom is false) and a false-negative rate (answering no when it is true).

Calibration files (TOML or JSON, shipped in ``grounders/calibrations/``) come from
published per-predicate accuracy tables. Those tables give one accuracy per
predicate, not separate rates, so we split it symmetrically: ``fp = fn = 1 -
accuracy``. That is the only split under which the simulated accuracy equals the
published one whatever the share of true atoms among the questions (accuracy =
1 - p*fn - (1-p)*fp, which is free of p only when fp = fn). A file may override
that with explicit rates per predicate (``[rates.<split>.<predicate>] fp, fn``).

File format::

    model = "GPT-4.1"
    domain = "blocksworld"
    source = "ViPlan (Merler et al., 2025), appendix L, Table 14 ..."
    [accuracy.simple]        # one table per split; predicate names case-insensitive
    clear = 1.00
    [clean]                  # optional, per split: share of episodes without any error (the others are
    simple = 0.4             # wrong at rates / (1 - clean): errors cluster on some scenes); default 0
    [neither]                # optional, per split: share of replies neither yes nor no, in the
    simple = [0.0, 0.006]    # episode's first question batch and in later ones (a protocol may end on
                             # one); default none
    [noise]                  # optional: how errors are drawn (grounders/noise); default deterministic
    kind = "scene"
    hard = 0.1
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from toolkit.errors import PgtError, closest
from toolkit.protocols import Verdict
from toolkit import jsontext

CALIBRATIONS_DIR = Path(__file__).resolve().parent / "calibrations"


@dataclass(frozen=True)
class Rates:
    """False-positive and false-negative rates of one predicate."""

    fp: float = 0.0
    fn: float = 0.0

    def __post_init__(self) -> None:
        for name in ("fp", "fn"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise PgtError(f"{name} rate must be in [0, 1], got {value}")

    @classmethod
    def from_accuracy(cls, accuracy: float) -> Rates:
        if not 0.0 <= accuracy <= 1.0:
            raise PgtError(f"accuracy must be in [0, 1], got {accuracy}")
        return cls(round(1.0 - accuracy, 12), round(1.0 - accuracy, 12))

    def confidence(self, verdict: Verdict) -> float:
        """P(verdict is right | verdict) under a 50/50 prior; equals the accuracy when fp = fn.

        >>> Rates(0.1, 0.1).confidence(Verdict.YES)
        0.9
        """
        if verdict is Verdict.YES:
            right, wrong = 1.0 - self.fn, self.fp
        elif verdict is Verdict.NO:
            right, wrong = 1.0 - self.fp, self.fn
        else:
            return 0.5
        return round(right / (right + wrong), 12) if right + wrong > 0 else 0.5


@dataclass(frozen=True)
class ErrorModel:
    """Per-predicate error rates; predicates not listed use ``default`` (matched case-insensitively)."""

    default: Rates = Rates()
    per_predicate: Mapping[str, Rates] = field(default_factory=dict)
    source: str = ""
    # How unevenly errors fall on episodes: the share of episodes answered without any error, the others
    # wrong at the rates / (1 - clean) (0: every episode alike). The noisy grounder draws it from its seed.
    clean: float = 0.0
    # The share of replies that are neither yes nor no, in the episode's first question batch and in later
    # ones: a real model's replies after actions and replans may fail where its first ones do not.
    neither: tuple[float, float] = (0.0, 0.0)

    def __post_init__(self) -> None:
        if not 0.0 <= self.clean <= 0.99:
            raise PgtError(f"clean must be a share in [0, 0.99], got {self.clean}")
        if len(self.neither) != 2 or not all(0.0 <= v <= 1.0 for v in self.neither):
            raise PgtError(f"neither must be two shares in [0, 1] (first question batch, later ones), got {self.neither}")
        lowered = {k.lower(): v for k, v in self.per_predicate.items()}
        object.__setattr__(self, "per_predicate", MappingProxyType(lowered))

    def rates(self, predicate: str) -> Rates:
        return self.per_predicate.get(predicate.lower(), self.default)

    @classmethod
    def uniform(cls, accuracy: float) -> ErrorModel:
        return cls(Rates.from_accuracy(accuracy), source=f"uniform accuracy {accuracy}")

    @classmethod
    def asymmetric(cls, fp: float, fn: float) -> ErrorModel:
        return cls(Rates(fp, fn), source=f"fp={fp} fn={fn}")

    @classmethod
    def from_accuracies(cls, accuracies: Mapping[str, float], default: float = 1.0, source: str = "") -> ErrorModel:
        return cls(Rates.from_accuracy(default), {p: Rates.from_accuracy(a) for p, a in accuracies.items()}, source)


def _read(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PgtError(f"cannot read calibration {path}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        data = jsontext.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        raise PgtError(f"{path}: not valid {path.suffix.lstrip('.').upper() or 'TOML'}: {exc}") from None
    if not isinstance(data, dict):
        raise PgtError(f"{path}: a calibration is a table with an 'accuracy' section, got {type(data).__name__}")
    return data


def list_calibrations() -> list[str]:
    """Names of the shipped calibration files (without extension)."""
    return sorted(p.stem for p in CALIBRATIONS_DIR.glob("*") if p.suffix in (".toml", ".json"))


def resolve_calibration(name_or_path: str | Path) -> Path:
    """A calibration file path, or the name of a shipped one (``viplan-bw-cot-gpt-4.1``)."""
    p = Path(name_or_path)
    if p.is_file():
        return p
    for suffix in (".toml", ".json"):
        hit = CALIBRATIONS_DIR / f"{name_or_path}{suffix}"
        if hit.is_file():
            return hit
    hint = closest(str(name_or_path), list_calibrations())
    tip = f"; did you mean {', '.join(hint)}?" if hint else f" (shipped: {', '.join(list_calibrations())})"
    raise PgtError(f"unknown calibration '{name_or_path}'{tip}")


def load_calibration(name_or_path: str | Path, split: str = "simple") -> ErrorModel:
    """The error model of one split of a calibration file.

    Raises:
        PgtError: unknown file or split, or values outside [0, 1] (located by key).
    """
    path = resolve_calibration(name_or_path)
    data = _read(path)
    tables = data.get("accuracy", {})
    if split not in tables:
        raise PgtError(f"{path}: no split '{split}' (known: {', '.join(sorted(tables)) or 'none'})")
    per: dict[str, Rates] = {}
    for pred, acc in tables[split].items():
        try:
            per[pred] = Rates.from_accuracy(float(acc))
        except (PgtError, TypeError, ValueError) as exc:
            raise PgtError(f"{path}: accuracy.{split}.{pred}: {exc}") from None
    for pred, rates in data.get("rates", {}).get(split, {}).items():
        try:
            per[pred] = Rates(float(rates["fp"]), float(rates["fn"]))
        except (KeyError, PgtError, TypeError, ValueError) as exc:
            raise PgtError(f"{path}: rates.{split}.{pred}: needs fp and fn in [0, 1] ({exc})") from None
    default = Rates.from_accuracy(float(data.get("default_accuracy", 1.0)))
    source = f"{data.get('model', path.stem)} ({split}): {data.get('source', path.name)}"
    shares = data.get("clean", {})
    value = shares.get(split, 0.0) if isinstance(shares, dict) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 0.99:
        raise PgtError(f"{path}: clean.{split}: must be a share in [0, 0.99], got {value!r}")
    return ErrorModel(default, per, source, float(value), _neither(path, data, split))


def _neither(path: Path, data: dict[str, Any], split: str) -> tuple[float, float]:
    """The file's ``[neither]`` pair for ``split`` (first question batch, later ones); none: (0, 0)."""
    table = data.get("neither", {})
    pair = table.get(split, [0.0, 0.0]) if isinstance(table, dict) else None
    if not isinstance(pair, list) or len(pair) != 2 or \
            not all(isinstance(v, (int, float)) and not isinstance(v, bool) and 0.0 <= v <= 1.0 for v in pair):
        raise PgtError(f"{path}: neither.{split}: must be two shares in [0, 1] (first question batch, later ones), "
                       f"got {pair!r}")
    return float(pair[0]), float(pair[1])


def load_noise(name_or_path: str | Path):
    """The calibration file's ``[noise]`` table as a :class:`~grounders.noise.NoiseModel`; None without one."""
    from grounders.noise.spec import NoiseModel

    path = resolve_calibration(name_or_path)
    table = _read(path).get("noise")
    return None if table is None else NoiseModel.from_table(table, f"{path}: [noise]")
