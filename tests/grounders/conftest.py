"""Grounder tests: make tests/support (the fake OpenAI server) importable.

The repository root goes first on sys.path too: pytest puts ``tests/`` on the
path, where ``tests/grounders`` would otherwise shadow the real ``grounders``
package as a namespace package.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
for entry in (str(ROOT / "tests" / "support"), str(ROOT)):
    if entry in sys.path:
        sys.path.remove(entry)
    sys.path.insert(0, entry)
