"""``pgt plan`` imports what planning needs and nothing else (start-up is most of a small task's time).

Timing lives in ``benchmarks/bench_planning.py --ipc``; here are the properties behind it:
no plan cache (sqlite3) without ``--cache``, no unified-planning, no Lark for plain files,
no other command's module, on both the own-search and the Fast Downward (own SAS) routes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from toolkit.cli import COMMANDS

ROADS = Path(__file__).parents[1] / "core" / "data" / "costs" / "roads"
PROBE = """
import json, sys
from toolkit.cli import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""
UNWANTED = ("sqlite3", "unified_planning", "lark", "networkx", "scene_graphs", "grounders", "scipy")


@pytest.mark.parametrize("planner,expected", [("astar", "; astar: solved"), ("fd-opt", "; fd-opt: solved")])
def test_plan_imports_only_what_it_uses(planner, expected):
    done = subprocess.run([sys.executable, "-c", PROBE, "plan", str(ROADS / "domain.pddl"),
                           str(ROADS / "problem.pddl"), "--planner", planner],
                          capture_output=True, text=True, timeout=120)
    lines = done.stdout.strip().splitlines()
    result = json.loads(lines[-1])
    assert result["code"] == 0, done.stderr
    assert any(line.startswith(expected) and "total cost 8" in line for line in lines)
    modules = set(result["modules"])
    assert not {m for m in modules if m.split(".")[0] in UNWANTED}
    assert "toolkit.planners.cache" not in modules
    assert not (set(COMMANDS.values()) - {COMMANDS["plan"]}) & modules
