"""Make tests/support importable (the fake OpenAI server) for the study tests."""

from __future__ import annotations

import sys
from pathlib import Path

SUPPORT = str(Path(__file__).resolve().parents[1] / "support")
if SUPPORT not in sys.path:
    sys.path.insert(0, SUPPORT)
