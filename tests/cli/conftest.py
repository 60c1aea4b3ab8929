"""Make tests/core's shared PDDL mutations (pddl_mutations.py) importable for the command-line fuzz tests."""

from __future__ import annotations

import sys
from pathlib import Path

CORE = str(Path(__file__).resolve().parents[1] / "core")
if CORE not in sys.path:
    sys.path.insert(0, CORE)
