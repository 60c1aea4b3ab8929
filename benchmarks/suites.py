"""Benchmark suites as files: ``benchmarks/suites/<suite>/<split>/*.pddl``.

Each suite folder has a ``suite.toml`` naming its domain (a shipped domain) and,
per split, the step cap of the protocols (ViPlan: 20 for Blocksworld; 10 / 20 /
30 for the household splits). A user's own folder of problem files is a suite
too (``--suite DIR --domain NAME``).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from toolkit.domains import resolve_domain_arg
from toolkit.errors import PgtError, UnknownSymbolError

SUITES_ROOT = Path(__file__).resolve().parent / "suites"


@dataclass(frozen=True)
class Split:
    suite: str
    name: str
    domain: Path
    problems: tuple[Path, ...]
    max_steps: int


def list_suites() -> list[str]:
    return sorted(p.name for p in SUITES_ROOT.iterdir() if (p / "suite.toml").is_file()) if SUITES_ROOT.is_dir() else []


def _suite_meta(folder: Path) -> dict:
    try:
        return tomllib.loads((folder / "suite.toml").read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise PgtError(f"{folder / 'suite.toml'}: {exc}") from None


def resolve_suite(spec: str, domain: str | None = None, max_steps: int | None = None) -> list[Split]:
    """Splits for ``viplan-bw``, ``viplan-bw/hard``, ``viplan-bw/simple,hard`` or a folder of problems."""
    path = Path(spec)
    if path.is_dir() and not (path / "suite.toml").is_file() and list(path.glob("*.pddl")):
        if domain is None:
            raise PgtError(f"--suite {spec} is a folder of problems: say which domain with --domain")
        problems = tuple(sorted(p for p in path.glob("*.pddl") if p.name != "domain.pddl"))
        return [Split(path.name, path.name, resolve_domain_arg(domain), problems, max_steps or 20)]
    name, _, splits = spec.partition("/")
    folder = SUITES_ROOT / name
    if not (folder / "suite.toml").is_file():
        raise UnknownSymbolError("suite", name, list_suites())
    meta = _suite_meta(folder)
    known = list(meta.get("splits", {}))
    wanted = splits.split(",") if splits else known
    out = []
    for split in wanted:
        if split not in known:
            raise UnknownSymbolError(f"split of {name}", split, known)
        problems = tuple(sorted((folder / split).glob("*.pddl")))
        if not problems:
            raise PgtError(f"suite {name}/{split} has no problem files in {folder / split}")
        cap = max_steps or int(meta["splits"][split].get("max_steps", 20))
        out.append(Split(name, split, resolve_domain_arg(domain or meta["domain"]), problems, cap))
    return out
