"""Generators: determinism, byte-stable text, optimal lengths in range, clean lint."""

from __future__ import annotations

import pytest

from toolkit import loader
from toolkit.cli import main
from toolkit.domains import shipped_domain
from toolkit.errors import PgtError, UnknownSymbolError
from toolkit.generators import generate_blocksworld, generate_household, load_families
from toolkit.lint import lint
from toolkit.planners.search import AStarPlanner
from toolkit.task import Task


def _solve_length(domain_name: str, text: str) -> int:
    domain = loader.load_domain(shipped_domain(domain_name))
    task = Task(domain, loader.parse_problem(text, domain))
    return len(AStarPlanner().solve(task).plan)


def test_blocksworld_same_seed_same_bytes_other_seed_differs():
    a = generate_blocksworld(3, 4, 3, 5, count=3, seed=11)
    b = generate_blocksworld(3, 4, 3, 5, count=3, seed=11)
    c = generate_blocksworld(3, 4, 3, 5, count=3, seed=12)
    assert [p.text for p in a] == [p.text for p in b]
    assert [p.text for p in a] != [p.text for p in c]


@pytest.mark.parametrize("blocks,columns,lo,hi", [(3, 4, 3, 5), (5, 5, 5, 10)])
def test_blocksworld_lengths_are_optimal_and_in_range(blocks, columns, lo, hi):
    for p in generate_blocksworld(blocks, columns, lo, hi, count=3, seed=5):
        assert lo <= p.optimal_length <= hi
        assert _solve_length("blocksworld", p.text) == p.optimal_length
        assert f"optimal plan length {p.optimal_length}" in p.text


def test_blocksworld_text_follows_viplan_conventions():
    (p,) = generate_blocksworld(6, 4, 8, 15, count=1, seed=3)
    assert "    r g b y p o - block\n    c1 c2 c3 c4 - column)" in p.text
    assert "(rightOf c2 c1) (rightOf c3 c2) (rightOf c4 c3)" in p.text
    assert "(leftOf c1 c2) (leftOf c2 c3) (leftOf c3 c4)" in p.text
    goal = p.text.split("(:goal")[1]
    assert goal.count("(inColumn ") == 6 and "(clear " in goal


def test_blocksworld_impossible_range_is_a_clear_error():
    with pytest.raises(PgtError, match=r"found only 0 of 1 column Blocksworld problems with optimal length in \[9, 9\]"):
        generate_blocksworld(2, 3, 9, 9, count=1, seed=0, max_tries=20)


@pytest.mark.parametrize("family", sorted(load_families()))
def test_household_families_generate_valid_problems(family, tmp_path):
    (p,) = generate_household(family, 4, 12, count=1, seed=2)
    assert 4 <= p.optimal_length <= 12
    assert _solve_length("household", p.text) == p.optimal_length
    path = tmp_path / f"{p.name}.pddl"
    path.write_text(p.text)
    report = lint(shipped_domain("household"), [path])
    assert not [f for f in report.findings if f.code in ("goal-unreachable", "action-never-applicable")]


def test_household_deterministic_and_unknown_family():
    a = generate_household("sorting_books", 4, 8, count=2, seed=9)
    assert [p.text for p in a] == [p.text for p in generate_household("sorting_books", 4, 8, count=2, seed=9)]
    with pytest.raises(UnknownSymbolError, match="did you mean sorting_books"):
        generate_household("sorting_book", 4, 12, count=1, seed=0)


def test_cli_generate_writes_files(tmp_path, capsys):
    out = tmp_path / "simple"
    assert main(["generate", "blocksworld", "--split", "simple", "--count", "2", "--seed", "4", "--out", str(out)]) == 0
    files = sorted(out.glob("*.pddl"))
    assert [f.name for f in files] == ["simple_0.pddl", "simple_1.pddl"]
    again = tmp_path / "again"
    main(["generate", "blocksworld", "--split", "simple", "--count", "2", "--seed", "4", "--out", str(again)])
    assert [f.read_bytes() for f in files] == [f.read_bytes() for f in sorted(again.glob("*.pddl"))]
    capsys.readouterr()
    assert main(["solve-all", "blocksworld", *map(str, files)]) == 0
    assert main(["generate", "blocksworld", "--count", "1", "--out", str(out)]) == 2
