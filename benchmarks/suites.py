"""Benchmark suites as files: ``benchmarks/suites/<suite>/<split>/*.pddl``.

Each suite folder has a ``suite.toml`` naming its domain (a shipped domain) and,
per split, the step caps of the protocols (ViPlan's code: the Blocksworld grounder
20 on every split; the household grounder and both planners 10 / 20 / 30). A
user's own folder of problem files is a suite too (``--suite DIR --domain NAME``;
the domain is found in or above the folder when not given, so a ViPlan clone's
``data/planning/blocksworld/problems/hard`` runs as it is, with ViPlan's caps).
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
    max_steps: int  # the grounder protocols' cap
    planner_max_steps: int  # viplan-planner's cap (ViPlan: 10 / 20 / 30 by split, both domains)


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
    problem_files = path.is_dir() and any(p.name != "domain.pddl" for p in path.glob("*.pddl"))
    if problem_files and not (path / "suite.toml").is_file():
        found = resolve_domain_arg(domain) if domain is not None else _domain_above(path)
        if found is None:
            raise PgtError(f"--suite {spec} is a folder of problems and no domain.pddl is in it or the two folders "
                           "above it: say which domain with --domain")
        problems = tuple(sorted(p for p in path.glob("*.pddl") if p.name != "domain.pddl"))
        grounder_cap, planner_cap = folder_caps(found, path.name)
        return [Split(path.name, path.name, found, problems, max_steps or grounder_cap, max_steps or planner_cap)]
    name, _, splits = spec.partition("/")
    folder = SUITES_ROOT / name
    if not (folder / "suite.toml").is_file():
        if path.is_dir() or path.is_absolute() or spec.startswith((".", "~")) or splits.count("/"):
            raise PgtError(_not_a_problem_folder(spec, path))
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
        planner_cap = max_steps or int(meta["splits"][split].get("planner_max_steps", cap))
        out.append(Split(name, split, resolve_domain_arg(domain or meta["domain"]), problems, cap, planner_cap))
    return out


def _not_a_problem_folder(spec: str, path: Path) -> str:
    """Why ``--suite PATH`` names no folder of problems (a path is never read as a shipped suite's name)."""
    usage = "a suite is viplan-bw[/SPLIT[,SPLIT]], viplan-hh[/...], or a folder of problem .pddl files"
    if not path.exists():
        return f"--suite {spec}: no such folder ({usage})"
    if not path.is_dir():
        return f"--suite {spec}: not a folder ({usage})"
    inner = sorted(p.name for p in path.iterdir() if p.is_dir() and any(p.glob("*.pddl")))
    hint = f"; these folders in it have some: {', '.join(inner[:8])}" if inner else ""
    return f"--suite {spec}: the folder has no .pddl problem files (domain.pddl aside){hint}"


def _domain_above(folder: Path) -> Path | None:
    """``domain.pddl`` in a problem folder or up to two folders above (ViPlan's ``blocksworld/problems/hard``)."""
    for candidate in (folder, folder.parent, folder.parent.parent):
        if (candidate / "domain.pddl").is_file():
            return candidate / "domain.pddl"
    return None


# ViPlan's step caps by split (sh_scripts/slurm_cluster/scripts/benchmark_*_array.sh: `max_steps=(10 20 30)`,
# passed to the household grounder and to both planner scripts; the Blocksworld grounder keeps check_plan's
# max_actions=20 for every split).
VIPLAN_SPLIT_CAPS = {"simple": 10, "medium": 20, "hard": 30}


def folder_caps(domain: Path, split: str) -> tuple[int, int]:
    """(grounder cap, planner cap) for a folder of problems: ViPlan's on a copy of a ViPlan domain, else 20."""
    from toolkit.domains import shipped_twin
    from toolkit.task import load_domain_cached

    twin = shipped_twin(load_domain_cached(domain)) if split in VIPLAN_SPLIT_CAPS else None
    if twin == "blocksworld":
        return 20, VIPLAN_SPLIT_CAPS[split]
    if twin == "household":
        return VIPLAN_SPLIT_CAPS[split], VIPLAN_SPLIT_CAPS[split]
    return 20, 20
