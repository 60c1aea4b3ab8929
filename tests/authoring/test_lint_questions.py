"""``pgt lint`` checks a domain's questions.toml; ``pgt questions --init`` writes one that passes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from toolkit.cli import main
from toolkit.lint import lint
from toolkit.question_file import load_question_spec
from toolkit.task import load_domain_cached

ROOT = Path(__file__).resolve().parents[2]
WAREHOUSE = ROOT / "docs" / "examples" / "warehouse"


@pytest.fixture
def domain(tmp_path: Path) -> Path:
    shutil.copy(WAREHOUSE / "domain.pddl", tmp_path / "domain.pddl")
    return tmp_path / "domain.pddl"


BAD = [
    ("[questions]\nitem-at = 'Is {i} at {place}?'\n", 2, "unknown placeholder {place}"),
    ("[questions]\nhand-free = 'Is the hand of {r} free?'\n\n[questions.x]\n", None, ""),
    ("[actions]\ndrive = 'drive {r} to {to}'\n", 2, "does not mention {from}"),
    ("[questions]\nitem-att = 'Is {0} at {1}?'\n", 2, "unknown predicate 'item-att'; did you mean item-at?"),
    ("[questions]\nholding = 'Is {r} holding {i}?'\nholding2 = [\n", 3, "Invalid value"),
]


@pytest.mark.parametrize("text,line,words", [b for b in BAD if b[1]])
def test_a_bad_questions_file_is_a_located_lint_error(domain: Path, text: str, line: int, words: str) -> None:
    (domain.parent / "questions.toml").write_text(text)
    report = lint(domain)
    found = [f for f in report.findings if f.code == "questions-file"]
    assert len(found) == 1 and report.exit_code == 1
    assert found[0].path.endswith("questions.toml") and found[0].line == line and words in found[0].message


def test_predicates_a_questions_section_leaves_out_are_named(domain: Path) -> None:
    (domain.parent / "questions.toml").write_text("[questions]\nholding = 'Is {r} holding {i}?'\n")
    report = lint(domain)
    missing = next(f for f in report.findings if f.code == "question-missing")
    assert "connected, hand-free, item-at, robot-at" in missing.message and missing.line == 1


def test_the_skeleton_loads_lints_clean_and_reads_well(domain: Path, capsys) -> None:
    assert main(["questions", str(domain), "--init"]) == 0
    path = domain.parent / "questions.toml"
    spec = load_question_spec(path, load_domain_cached(str(domain)))
    assert len(spec.phrasings["item-at"]) == 3 and set(spec.actions) == {"drive", "pick", "drop"}
    assert not [f for f in lint(domain).findings if f.code.startswith(("question", "action-text"))]
    assert main(["questions", str(domain), str(WAREHOUSE / "problems/two-boxes.pddl"), "--predicate", "item-at"]) == 0
    assert "Is the item box1 at the location dock?" in capsys.readouterr().out
    assert main(["questions", str(domain), "--init"]) == 2  # never over an author's file
    assert "exists" in capsys.readouterr().err

