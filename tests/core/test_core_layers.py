"""Imports run down the layers only (docs: architecture), at module level or inside a function.

benchmarks -> grounders, scene_graphs -> toolkit: a module of a layer never imports
one of a layer above it, so ``toolkit`` works without the outer packages and a
study's file format stays the study layer's business. The CLI's lists of
outer-layer pieces are module paths as strings, not imports.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# grounders and scene_graphs are one layer (grounders may import scene_graphs); what lies above each.
ABOVE = {"toolkit": {"grounders", "scene_graphs", "benchmarks"},
         "grounders": {"benchmarks"},
         "scene_graphs": {"benchmarks"}}


def _imports(path: Path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.lineno, node.module
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name


@pytest.mark.parametrize("layer", sorted(ABOVE))
def test_no_import_runs_up_the_layers(layer: str):
    bad = [f"{path.relative_to(ROOT)}:{line}: imports {module}"
           for path in sorted((ROOT / layer).rglob("*.py"))
           for line, module in _imports(path) if module.split(".")[0] in ABOVE[layer]]
    assert not bad, "\n".join(bad)


def _toolkit_imports(module: str) -> set[str]:
    """Every toolkit module ``module`` imports, at the top or inside a function."""
    path = ROOT / (module.replace(".", "/") + ".py")
    return {name for _, name in _imports(path) if name.startswith("toolkit.")}


def test_grounding_semantics_and_templates_import_one_way():
    # grounding (formulas to ground structures) <- semantics (evaluate, apply) <- templates (fast stepping):
    # before the split, grounding's GroundEffect imported semantics inside its methods, a two-file circle.
    assert not _toolkit_imports("toolkit.grounding") & {"toolkit.semantics", "toolkit.templates"}
    assert "toolkit.templates" not in _toolkit_imports("toolkit.semantics")


def test_no_toolkit_module_is_over_500_lines():
    # Small modules (house style; issue 31 split the loader, grounding and plans to get here): past 500
    # lines a module holds more than one thing, and the next feature grows it further.
    long = {str(p.relative_to(ROOT)): n for p in sorted((ROOT / "toolkit").rglob("*.py"))
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 500}
    assert not long, f"split these along their seams: {long}"
