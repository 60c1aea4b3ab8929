"""The plain readers on numeric files (toolkit.reading.plain_numeric) against the full Lark parser.

Numeric domains and problems used to go through Lark (5-50 ms a domain, most of a numeric
``pgt validate``). The plain readers must take them and build exactly the model the full
parser builds, the same warnings and the same located errors, and still hand every shape they
do not read to the full parser. With a snapshot of ipc2023-numeric/ipc2023-dataset (a git
mirror or a checkout, ``IPC2023_NUMERIC``), every domain and problem of the track is checked.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from toolkit import loader
from toolkit.plain_problem import read_plain_problem

from tests.core.test_core_plain_domain import _both, _plain as _plain_domain

IPC = Path(os.environ.get("IPC2023_NUMERIC", "/work/.mirror/ipc2023-numeric+ipc2023-dataset/repo"))

DOMAIN = """(define (domain trucks) (:requirements :typing :fluents :conditional-effects)
 (:types truck -object place - object)
 (:constants depot - place)
 (:predicates (at ?t - truck ?p - place) (road ?a ?b - place))
 (:functions (fuel ?t - truck) (capacity ?t) (dist ?a ?b - place) (spent) (total-cost) - number)
 (:action drive :parameters (?t - truck ?a ?b - place)
  :precondition (and (at ?t ?a) (road ?a ?b) (>= (fuel ?t) (* 2 (dist ?a ?b)))
                     (< (spent) (+ 100 (capacity ?t) 1.5)) (> (- (fuel ?t)) (- 0 1000))
                     (<= (/ (fuel ?t) 2) (capacity ?t)) (= (dist ?a ?b) (dist ?b ?a)) (not (= ?a ?b)))
  :effect (and (not (at ?t ?a)) (at ?t ?b) (decrease (fuel ?t) (* 2 (dist ?a ?b)))
               (increase (spent) (dist ?a ?b)) (when (at ?t depot) (assign (fuel ?t) (capacity ?t)))
               (forall (?o - truck) (when (at ?o ?b) (scale-up (fuel ?o) 1)))
               (increase (total-cost) 1)))
 (:action halve :parameters (?t - truck) :effect (and (scale-down (capacity ?t) 2) (increase (total-cost) (spent)))))"""

PROBLEM = """(define (problem p) (:domain trucks)
 (:objects t1 t2 -truck a b - place)
 (:init (at t1 a) (at t2 depot) (road a b) (road b a) (= (fuel t1) 10) (= (fuel t2) 2.5) (= (capacity t1) 20)
        (= (capacity t2) 20) (= (dist a b) 3) (= (dist b a) 3) (= (spent) 0) (= (total-cost) 0))
 (:goal (and (at t1 b) (> (fuel t1) 1) (forall (?t - truck) (>= (capacity ?t) (fuel ?t)))
             (= (+ (fuel t1) (fuel t2)) (* 2 (- (spent) 0.5)))))
 (:metric maximize (- (* 2 (fuel t1)) (+ (spent) (total-cost) 3))))"""


def _domain_both(text: str, monkeypatch, path: str = "d.pddl") -> tuple[object, object]:
    return _both(text, monkeypatch, path)


def _problem_both(text: str, domain, monkeypatch, path: str = "p.pddl") -> tuple[object, object]:
    return _both(text, monkeypatch, path, domain=domain)


def _plain_problem(text: str) -> bool:
    norm, _, _ = loader._normalise(text, "p.pddl")
    return read_plain_problem(loader._blank_comments(norm), loader._ROOT) is not None


def test_every_numeric_construct_is_read_plain_as_the_full_parser_reads_it(monkeypatch) -> None:
    assert _plain_domain(DOMAIN) and _plain_problem(PROBLEM)
    fast, full = _domain_both(DOMAIN, monkeypatch)
    assert fast == full and fast[0] is not None and not fast[1]
    assert fast[0].numeric and len(fast[0].actions["drive"].numeric) == 5  # total-cost is a fluent here
    fast_p, full_p = _problem_both(PROBLEM, fast[0], monkeypatch)
    assert fast_p == full_p and fast_p[0] is not None and not fast_p[1]
    assert fast_p[0].metric_expr is not None and not fast_p[0].minimize


@pytest.mark.parametrize("old,new", [
    ("(>= (fuel ?t) (* 2", "(>= (fuel ?tt) (* 2"),                        # unknown variable in a function term
    ("(< (spent) (+", "(< (spend) (+"),                                   # unknown function: did-you-mean
    ("(<= (/ (fuel ?t) 2)", "(<= (/ (fuel ?t ?t) 2)"),                    # wrong arity
    ("(scale-down (capacity ?t) 2)", "(scale-down (capacity ?t) (fule ?t))"),  # unknown function in an update
])
def test_errors_in_numeric_parts_are_the_same_on_both_paths(old, new, monkeypatch) -> None:
    text = DOMAIN.replace(old, new, 1)
    assert text != DOMAIN and _plain_domain(text)
    fast, full = _domain_both(text, monkeypatch)
    assert fast == full and fast[1]


@pytest.mark.parametrize("old,new", [
    ("(= (dist ?a ?b) (dist ?b ?a))", "(= ?a 3)"),                        # a word beside a number: the grammar decides
    ("(* 2 (dist ?a ?b)))", "(* 2))"),                                    # * with one operand
    ("(/ (fuel ?t) 2)", "(/ (fuel ?t) 2 2)"),                              # / with three
    ("(- 0 1000)", "(- 0 1000 1)"),                                       # - with three
    ("(increase (spent) (dist ?a ?b))", "(increase spent (dist ?a ?b))"),  # a bare function name
    ("(increase (spent) (dist ?a ?b))", "(increase (spent) ?a)"),          # a variable as an expression
    ("(increase (spent) (dist ?a ?b))", "(increase (spent) (dist ?a ?b) 1)"),  # three operands
    ("(> (- (fuel ?t)) (- 0 1000))", "(> (fuel ?t))"),                    # a comparison with one side
    ("(<= (/ (fuel ?t) 2)", "(<= (/ (fuel ?t) 1.2.3)"),                   # the grammar's NUMBER, no number
])
def test_other_numeric_shapes_are_left_to_the_full_parser(old, new, monkeypatch) -> None:
    text = DOMAIN.replace(old, new, 1)
    assert text != DOMAIN and not _plain_domain(text)
    fast, full = _domain_both(text, monkeypatch)
    assert fast == full


@pytest.mark.parametrize("old,new,plain", [
    ("(> (fuel t1) 1)", "(> (fuel t3) 1)", True),                         # unknown object: the loader's message
    ("(> (fuel t1) 1)", "(> (fule t1) 1)", True),                         # unknown function
    ("(> (fuel t1) 1)", "(> (fuel ?x) 1)", False),                        # a variable no quantifier binds
    ("(:metric maximize", "(:metric minimize", True),
    ("(:metric maximize (- (* 2 (fuel t1)) (+ (spent) (total-cost) 3)))", "(:metric minimize (total-cost))", True),
    ("(:metric maximize (- (* 2 (fuel t1)) (+ (spent) (total-cost) 3)))", "(:metric minimize (* (fuel t1)))", False),
    ("(:metric maximize", "(:metric most", False),
])
def test_numeric_goals_and_metrics_read_as_the_full_parser_reads_them(old, new, plain, monkeypatch) -> None:
    text = PROBLEM.replace(old, new, 1)
    assert text != PROBLEM and _plain_problem(text) == plain
    domain = loader.parse_domain(DOMAIN, "d.pddl")
    fast, full = _problem_both(text, domain, monkeypatch)
    assert fast == full


def _ipc_texts() -> list[tuple[str, str, list[tuple[str, str]]]]:
    """(domain name, domain text, [(problem name, text)]) of every domain of the snapshot."""
    def show(path: str) -> str:
        return subprocess.run(["git", "-C", str(IPC), "show", f"HEAD:{path}"], capture_output=True, text=True,
                              check=True).stdout

    out = []
    if (IPC / "HEAD").exists() or (IPC / ".git").exists():
        files = subprocess.run(["git", "-C", str(IPC), "ls-tree", "-r", "--name-only", "HEAD"], capture_output=True,
                               text=True, check=True).stdout.split()
        for name in sorted({f.split("/")[0] for f in files if f.endswith("/domain.pddl")}):
            probs = sorted(f for f in files if f.startswith(f"{name}/instances/") and f.endswith(".pddl"))
            out.append((name, show(f"{name}/domain.pddl"), [(p, show(p)) for p in probs]))
    elif IPC.is_dir():
        for d in sorted(p for p in IPC.iterdir() if (p / "domain.pddl").is_file()):
            out.append((d.name, (d / "domain.pddl").read_text(),
                        [(p.name, p.read_text()) for p in sorted((d / "instances").glob("*.pddl"))]))
    return out


@pytest.mark.skipif(not IPC.exists(), reason="no IPC 2023 numeric snapshot (set IPC2023_NUMERIC)")
def test_the_ipc_2023_numeric_track_takes_the_plain_path_with_the_full_parsers_models(monkeypatch) -> None:
    domains = _ipc_texts()
    assert len(domains) >= 20
    problems = 0
    for name, dtext, probs in domains:
        assert _plain_domain(dtext), f"{name}: the domain should take the plain path"
        fast, full = _domain_both(dtext, monkeypatch, f"{name}/domain.pddl")
        assert fast == full, name
        for pname, ptext in probs[:5]:  # the first five of each: the shapes repeat, Lark is slow per file
            assert _plain_problem(ptext), f"{pname}: the problem should take the plain path"
            fast_p, full_p = _problem_both(ptext, fast[0], monkeypatch, pname)
            assert fast_p == full_p, pname
            problems += 1
    assert problems >= 100


@pytest.mark.parametrize("old,new,fast_path", [
    ("(= (fuel t1) 10)", "(= (fuel t1) 10)", True),                      # as written
    ("(= (fuel t1) 10)", "(= (FUEL T1) 10.0)", True),                    # case, an integral float
    ("(= (fuel t1) 10)", "(= (fuel t1) -0.50)", True),                   # a float as it reads
    ("(= (fuel t1) 10)", "(= (fuel t1) " + "0" * 310 + "10)", True),     # 312 digits, a small value
    ("(= (fuel t1) 10)", "(= (fuel t1) 9" + "0" * 299 + ")", True),      # a large integer, its own value
    ("(= (fuel t1) 10)", "(= (fuel t1) " + "9" * 299 + ")", True),        # 299 digits: its own value, told by length
    ("(= (fuel t1) 10)", "(= (fuel t1) 2.0)", True),                      # a float of an integral value: an int
    ("(= (dist a b) 3)", "(= (dist depot a) 3) (= (dist a b) 3)", True),  # a domain constant as argument
    ("(= (fuel t1) 10)", "(= (fuel t1) 10) (= (fuel t1) 4) (not (at t1 b))", True),  # a value given twice
    ("(= (fuel t1) 10)", "(= (fule t1) 10)", False),                     # unknown function
    ("(= (fuel t1) 10)", "(= (fuel t1 a) 10)", False),                   # wrong arity
    ("(= (fuel t1) 10)", "(= (fuel t3) 10)", False),                     # unknown object
    ("(= (fuel t1) 10)", "(= (fuel a) 10)", False),                      # an object of the wrong type
    ("(= (total-cost) 0)", "(= (total-cost) 5)", False),                 # the initial cost must be 0
])
@pytest.mark.parametrize("typing", ["strict", "lenient"])
def test_numeric_init_values_take_the_fast_path_only_where_the_checked_path_finds_no_fault(
        old, new, fast_path, typing, monkeypatch) -> None:
    """The loader reads a plain problem's values straight from its words (``_checked_values``); the model,
    warnings and errors must be those of the checked path (parsed forms converted one by one), and every
    fault must leave the fast path for the checked one, which locates it."""
    text = PROBLEM.replace(old, new, 1)
    assert _plain_problem(text)
    domain = loader.parse_domain(DOMAIN, "d.pddl")
    taken = []
    real = loader._checked_values

    def spy(*args):
        taken.append(real(*args) is not None)
        return None if not taken[-1] else real(*args)

    def load():
        loaded = loader.read_problem(text, domain, "p.pddl", typing)
        return loaded.model, [str(e) for e in loaded.errors]

    with monkeypatch.context() as mp:
        mp.setattr(loader, "_checked_values", spy)
        fast = load()
    with monkeypatch.context() as mp:
        mp.setattr(loader, "_checked_values", lambda *_: None)
        checked = load()
    assert taken == [fast_path]
    assert fast == checked
    if fast[0] is not None:
        assert [type(v) for v in fast[0].function_values.values()] == [type(v) for v in checked[0].function_values.values()]
