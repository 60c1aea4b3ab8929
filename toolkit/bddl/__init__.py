"""BEHAVIOR's BDDL (the task language of BEHAVIOR-100 and ActPlan-1K) read as PDDL.

:func:`read_as_pddl` is the loader's hook: a file whose name ends in ``.bddl`` is
translated to PDDL text (:mod:`toolkit.bddl.translate`) before the loader parses it,
so every command that takes a domain or a problem file takes a BDDL one.
"""

from __future__ import annotations

from pathlib import Path

from toolkit.bddl.goal import BddlError
from toolkit.bddl.translate import domain_to_pddl, pddl_name, problem_to_pddl, to_pddl

__all__ = ["BddlError", "domain_to_pddl", "is_bddl", "pddl_name", "problem_to_pddl", "read_as_pddl", "to_pddl"]


def is_bddl(path: str | Path) -> bool:
    """Whether a file is read as BDDL (by its name: ``.bddl``)."""
    return str(path).lower().endswith(".bddl")


def read_as_pddl(path: str | Path) -> str:
    """The PDDL text of a BDDL file, each construct on its BDDL line."""
    from toolkit.textfile import read_text

    return to_pddl(read_text(path), str(path))
