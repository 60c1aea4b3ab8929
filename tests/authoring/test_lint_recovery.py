"""The loader collects every independent error of a file, and lint checks what it understood.

Purpose-built files with several faults each: one run reports them all, in file
order, messages and locations pinned.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.cli import main
from toolkit.errors import ArityError, PddlSyntaxError
from toolkit.lint import Severity, lint
from toolkit.loader import parse_domain, read_domain

DATA = Path(__file__).parent / "data"
LIGHTS, LIGHTS_P1 = DATA / "lights_four_faults.pddl", DATA / "lights_p1.pddl"
DEPOT, DEPOT_P1 = DATA / "depot_many_faults.pddl", DATA / "depot_many_faults_p1.pddl"


def _rows(report):
    return [(Path(f.path).name, f.line, f.column, f.code, f.message) for f in report.findings]


def test_all_four_planted_faults_in_one_run():
    rows = _rows(lint(LIGHTS, [LIGHTS_P1]))
    for row in [
        ("lights_four_faults.pddl", 14, 26, "arity-error", "predicate 'lit' takes 1 argument(s), got 2"),
        ("lights_four_faults.pddl", 17, 32, "undeclared-name", "unknown predicate 'broken'"),
        ("lights_four_faults.pddl", 10, 5, "unused-predicate", "predicate dusty is declared but never used"),
        ("lights_four_faults.pddl", 19, 12, "action-never-applicable",
         "action repair can never be applied in problem p1 (relaxed reachability)"),
    ]:
        assert row in rows


def test_every_load_error_of_both_files_in_file_order():
    report = lint(DEPOT, [DEPOT_P1])
    errors = [r for r, f in zip(_rows(report), report.findings) if f.severity is Severity.ERROR]
    assert errors == [
        ("depot_many_faults.pddl", 3, 34, "unsupported-feature", "unsupported PDDL feature requirement :teleport"),
        ("depot_many_faults.pddl", 8, 6, "duplicate-name", "predicate 'at' is declared more than once"),
        ("depot_many_faults.pddl", 9, 15, "undeclared-name", "unknown type 'crat'; did you mean crate?"),
        ("depot_many_faults.pddl", 12, 38, "arity-error", "predicate 'free' takes 1 argument(s), got 2"),
        ("depot_many_faults.pddl", 13, 50, "undeclared-name", "unknown predicate 'shiny'"),
        ("depot_many_faults.pddl", 14, 12, "duplicate-name", "action 'push' is declared more than once"),
        ("depot_many_faults.pddl", 17, 24, "undeclared-name", "unknown variable '?q'"),
        ("depot_many_faults_p1.pddl", 2, 19, "duplicate-name", "name 'c1' is declared more than once"),
        ("depot_many_faults_p1.pddl", 2, 46, "undeclared-name", "unknown type 'zone'"),
        ("depot_many_faults_p1.pddl", 3, 20, "arity-error", "predicate 'free' takes 1 argument(s), got 2"),
        ("depot_many_faults_p1.pddl", 3, 31, "type-error", "object 'c1' has type crate, expected place"),
        ("depot_many_faults_p1.pddl", 3, 48, "undeclared-name", "unknown object 'nowhere'"),
        ("depot_many_faults_p1.pddl", 4, 25, "undeclared-name", "unknown predicate 'lost'"),
    ]


def test_the_partial_model_leaves_out_only_the_faulty_pieces():
    loaded = read_domain(DEPOT.read_text(), str(DEPOT))
    push = loaded.model.actions["push"]  # the first of the two declarations
    assert [p for p, _ in push.params] == ["?c", "?from", "?to"]
    assert "(at ?c ?from)" in str(push.precondition) and "free" not in str(push.precondition)
    assert "shiny" not in str(push.effect) and "(at ?c ?to)" in str(push.effect)
    assert loaded.model.predicates["heavy"].params == (("?c", ("object",)),)  # unknown type read as object
    assert "crat" not in loaded.model.types


def test_same_fault_twice_is_located_at_each_use(tmp_path):
    text = LIGHTS.read_text().replace("(not (lit ?r))", "(not (lit ?r ?s))")
    errors = read_domain(text, "d.pddl").errors
    assert [str(e) for e in errors] == [
        "d.pddl:14:26: predicate 'lit' takes 1 argument(s), got 2",
        "d.pddl:17:32: unknown predicate 'broken'",
        "d.pddl:18:37: predicate 'lit' takes 1 argument(s), got 2",
    ]


def test_parse_raises_the_first_error_and_counts_the_rest():
    with pytest.raises(ArityError) as err:
        parse_domain(LIGHTS.read_text(), "d.pddl")
    assert str(err.value) == ("d.pddl:14:26: predicate 'lit' takes 1 argument(s), got 2 (and 1 more error(s) in "
                              "this file; `pgt lint` lists them all)")
    assert [str(e) for e in err.value.also] == ["d.pddl:17:32: unknown predicate 'broken'"]


def test_a_syntax_error_stops_at_the_first_one_located():
    text = LIGHTS.read_text().replace(":parameters (?s - switch)", ":parameters (?s - switch")
    loaded = read_domain(text, "d.pddl")
    assert loaded.model is None
    (err,) = loaded.errors
    assert isinstance(err, PddlSyntaxError) and (err.line, err.column) == (21, 5)


def test_cli_lint_lists_every_fault_and_exits_1(capsys):
    assert main(["lint", str(LIGHTS), str(LIGHTS_P1)]) == 1
    out = capsys.readouterr().out
    for code in ("arity-error", "undeclared-name", "unused-predicate", "action-never-applicable"):
        assert f"[{code}]" in out
