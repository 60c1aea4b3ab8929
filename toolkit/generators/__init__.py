"""Seeded problem generators with a requested optimal plan-length range.

``GENERATORS`` maps a domain's PDDL name to its generator module's entry point;
``pgt generate`` dispatches on it.

- :func:`generate_blocksworld` (domain ``blocksworld``): N blocks, M columns.
- :func:`generate_household` (domain ``igibson``): task families from
  ``pddl_domains/household/tasks.toml``.
"""

from __future__ import annotations

from toolkit.generators.blocksworld import SPLITS, generate_blocksworld
from toolkit.generators.common import ProblemText
from toolkit.generators.household import generate_household, load_families

GENERATORS = {"blocksworld": generate_blocksworld, "igibson": generate_household}

__all__ = ["GENERATORS", "ProblemText", "SPLITS", "generate_blocksworld", "generate_household", "load_families"]
