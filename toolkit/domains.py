"""Where the shipped domains live (package data under ``pddl_domains/``).

>>> "blocksworld" in list_domains()
True
"""

from __future__ import annotations

import argparse
import functools
from pathlib import Path

from toolkit.errors import PgtError, UnknownSymbolError

DOMAINS_ROOT = Path(__file__).resolve().parent.parent / "pddl_domains"


def list_domains() -> list[str]:
    return sorted(p.name for p in DOMAINS_ROOT.iterdir() if (p / "domain.pddl").is_file())


def domain_dir(name: str) -> Path:
    """The folder of a shipped domain, by name (case-insensitive)."""
    for known in list_domains():
        if known.lower() == name.lower():
            return DOMAINS_ROOT / known
    raise UnknownSymbolError("shipped domain", name, list_domains())


def shipped_domain(name: str) -> Path:
    return domain_dir(name) / "domain.pddl"


def shipped_problem(domain: str, problem: str) -> Path:
    folder = domain_dir(domain) / "problems"
    known = sorted(p.stem for p in folder.glob("*.pddl"))
    if problem not in known:
        raise UnknownSymbolError(f"problem of {domain}", problem, known)
    return folder / f"{problem}.pddl"


def _signature(domain) -> tuple[frozenset, frozenset]:
    preds = frozenset((p.lower(), d.arity) for p, d in domain.predicates.items())
    acts = frozenset((a.lower(), s.arity) for a, s in domain.actions.items())
    return preds, acts


@functools.lru_cache(maxsize=1)
def _shipped_signatures() -> tuple[tuple[str, tuple[frozenset, frozenset]], ...]:
    from toolkit.task import load_domain_cached

    return tuple((name, _signature(load_domain_cached(shipped_domain(name)))) for name in list_domains())


def shipped_twin(domain) -> str | None:
    """The shipped domain a domain file is a copy of, e.g. ViPlan's own ``data/planning/blocksworld/domain.pddl``.

    A copy has every predicate and action of the shipped domain with the same arities
    (names compared case-insensitively, extra ones allowed: ViPlan's household file
    adds ``slice``); it then gets the shipped domain's question wording, display
    names and planner prompt. A shipped domain is its own twin.
    """
    preds, acts = _signature(domain)
    for name, (want_preds, want_acts) in _shipped_signatures():
        if want_preds <= preds and want_acts <= acts and domain.name.lower() in (name.lower(), _DOMAIN_NAMES.get(name)):
            return name
    return None


# The names ViPlan's own files give the shipped domains (data/planning/*/domain.pddl).
_DOMAIN_NAMES = {"household": "igibson"}


def resolve_domain_arg(arg: str) -> Path:
    """A CLI domain argument: a file path, a folder with domain.pddl, or a shipped name."""
    p = Path(arg)
    if p.is_file():
        return p
    if p.is_dir() and (p / "domain.pddl").is_file():
        return p / "domain.pddl"
    if not p.exists() and "/" not in arg and not arg.endswith(".pddl"):
        return shipped_domain(arg)
    return p


def resolve_problem_arg(domain_arg: str, problem_arg: str) -> Path:
    """A CLI problem argument: a file path, or a shipped problem name such as ``simple_problem_0``."""
    p = Path(problem_arg)
    if p.is_file():
        return p
    if not p.exists() and "/" not in problem_arg and not Path(domain_arg).exists():
        return shipped_problem(domain_arg, problem_arg.removesuffix(".pddl"))
    if p.is_dir():
        raise PgtError(f"cannot read {problem_arg}: Is a directory")  # as every other command says it
    raise PgtError(f"problem file not found: {problem_arg}")


def add_task_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``DOMAIN PROBLEM`` positionals of commands that work on one problem."""
    parser.add_argument("domain", help="domain file, folder with domain.pddl, or shipped domain name")
    parser.add_argument("problem", help="problem file, or the name of a shipped problem of the domain")


def add_typing_option(parser: argparse.ArgumentParser) -> None:
    """``--typing strict|lenient``: how objects of the wrong type in initial and goal atoms are treated."""
    parser.add_argument("--typing", choices=("strict", "lenient"), default="strict",
                        help="strict (default): an object of the wrong type in :init or :goal is an error; "
                             "lenient: keep the atom and warn, as Fast Downward does")


def load_task_args(args: argparse.Namespace):
    """The :class:`~toolkit.task.Task` named by :func:`add_task_arguments`' positionals."""
    from toolkit.task import load_task

    return load_task(resolve_domain_arg(args.domain), resolve_problem_arg(args.domain, args.problem))
