"""A copy of a shipped domain with other parameter names gets the fallback wording, not the twin's file's error."""

from __future__ import annotations

from pathlib import Path

from toolkit.cli import main
from toolkit.domains import shipped_domain

LOGISTICS = Path(shipped_domain("logistics"))
PROBLEM = sorted((LOGISTICS.parent / "problems").glob("*.pddl"))[0]


def test_a_twin_whose_parameters_are_named_otherwise_falls_back(tmp_path: Path, capsys) -> None:
    # IPC's logistics00 has the shipped logistics' predicates and actions, but calls the package ?obj,
    # while the shipped questions.toml says "load {pkg} into {truck} at {loc}"
    domain = tmp_path / "domain.pddl"
    domain.write_text(LOGISTICS.read_text().replace("?pkg", "?obj"))
    problem = PROBLEM
    assert main(["questions", str(domain), str(problem), "--actions"]) == 0
    out = capsys.readouterr().out
    assert "templates: fallback" in out


def test_a_true_copy_keeps_the_shipped_wording(tmp_path: Path, capsys) -> None:
    domain = tmp_path / "domain.pddl"
    domain.write_text(LOGISTICS.read_text())
    problem = PROBLEM
    assert main(["questions", str(domain), str(problem), "--actions"]) == 0
    assert "logistics/questions.toml" in capsys.readouterr().out
