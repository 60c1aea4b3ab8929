"""The one-pass domain path (toolkit.reading.direct_actions, toolkit.reading.domain_model.direct_domain) against the two-pass one.

A plain, error-free domain's actions are built straight into the model from the
s-expression; anything else declines to the plain reader's forms and the converter.
Both must give the same model (equal, actions in the same order), warnings and
errors on every domain file at hand, and on mutants of them made to be faulty or
unusual (repeated operands, empty ``or``, case, number spellings, undeclared names),
where the one-pass path must decline. The collections outside the repository are
opt-in: each is skipped when absent.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from toolkit import loader
from toolkit.domains import DOMAINS_ROOT
from toolkit.plain_domain import read_plain_domain, var_list
from toolkit.plain_problem import _NotPlain, _typed_list
from toolkit.reading import domain_model
from toolkit.reading.collect import Errors, record_duplicates
from toolkit.reading.normalise import normalise
from toolkit.reading.text import blank_comments

REPO = Path(__file__).resolve().parents[2]
CORPORA = {
    "repository": [*sorted((REPO / "tests").rglob("*.pddl")), *sorted(DOMAINS_ROOT.rglob("*.pddl"))],
    "ipc-sample": sorted(Path("/work/shared/ipc-sample").rglob("*domain*.pddl")),
    "ipc2023-numeric": sorted(Path(os.environ.get("PGT_IPC2023_NUMERIC_DIR", "/tmp/h31/ipc")).rglob("domain*.pddl")),
    "classical-domains": sorted(Path(os.environ.get("PGT_CLASSICAL_DOMAINS", "/tmp/h34/classical-domains"))
                                .rglob("*domain*.pddl")),
}


def _domains(paths: list[Path]) -> list[tuple[str, str]]:
    out = []
    for path in paths:
        text = path.read_text(encoding="utf-8", errors="replace")
        if "(domain" in text.lower():
            out.append((str(path), text))
    return out


def _read(text: str, path: str, monkeypatch, direct: bool) -> tuple:
    """Everything a load hands back, through the one-pass path (where it does not decline) or the two-pass one."""
    with monkeypatch.context() as mp:
        if not direct:
            mp.setattr(loader, "direct_domain", lambda *_a, **_k: None)
        loaded = loader.read_domain(text, path)
    model = loaded.model
    return (model, list(model.actions) if model else None, model.warnings if model else None,
            [str(e) for e in loaded.errors], [str(e) for e in loaded.borrowed])


def _taken(text: str, path: str) -> bool:
    errors = Errors(path)
    norm, warnings, declared = normalise(text, path, errors, [])
    pdom = read_plain_domain(blank_comments(norm), lazy=True)
    return pdom is not None and domain_model.direct_domain(text, path, pdom, declared, warnings, [], errors) is not None


@pytest.mark.parametrize("corpus", [pytest.param(c, marks=pytest.mark.slow) if c == "classical-domains" else c
                                    for c in sorted(CORPORA)])  # classical-domains: about 4 minutes on 2 cores
def test_one_pass_and_two_pass_read_every_domain_alike(corpus: str, monkeypatch) -> None:
    domains = _domains(CORPORA[corpus])
    if not domains:
        pytest.skip(f"no {corpus} files here")
    taken = 0
    for path, text in domains:
        assert _read(text, path, monkeypatch, True) == _read(text, path, monkeypatch, False), path
        if _taken(text, path):
            taken += 1
            # The one-pass path skips record_duplicates: the plain reader refuses what it would report.
            errors = Errors(path)
            record_duplicates(text, path, errors)
            assert not errors.items, path
    assert taken >= len(domains) // 2, f"the one-pass path read only {taken} of {len(domains)}"


_NUMERIC = """(define (domain trucks)
 (:requirements :typing :numeric-fluents :action-costs :conditional-effects :negative-preconditions :equality)
 (:types truck place - object)
 (:constants depot - place)
 (:predicates (at ?t - truck ?p - place) (road ?a ?b - place) (busy ?t - truck))
 (:functions (fuel ?t - truck) (cap ?t - truck) (dist ?a ?b - place) (total-cost) - number)
 (:action drive :parameters (?t - truck ?a ?b - place)
  :precondition (and (at ?t ?a) (road ?a ?b) (not (= ?a ?b)) (>= (fuel ?t) (dist ?a ?b)) (not (busy ?t)))
  :effect (and (not (at ?t ?a)) (at ?t ?b) (decrease (fuel ?t) (dist ?a ?b)) (increase (total-cost) 1)
               (when (at ?t depot) (assign (fuel ?t) (cap ?t)))
               (forall (?c - place) (when (road ?b ?c) (increase (fuel ?t) 0)))))
 (:action refuel :parameters (?t - truck)
  :precondition (or (at ?t depot) (exists (?p - place) (and (at ?t ?p) (road ?p depot))))
  :effect (and (assign (fuel ?t) (* 2 (- (cap ?t) 1))) (increase (total-cost) (dist depot depot)))))
"""

# Each variant either stays plain (the one-pass path must build the same) or must decline.
_VARIANTS = [
    ("(at ?t ?a) (road ?a ?b)", "(at ?t ?a) (at ?t ?a) (road ?a ?b)"),  # a repeated operand, dropped by the package
    ("(not (busy ?t)))", "(not (busy ?t)) (or))"),  # an empty or
    ("(or (at ?t depot)", "(or (or (at ?t depot))"),  # nested or, lifted
    ("(and (at ?t ?p) (road ?p depot))", "(and (and (at ?t ?p)) (road ?p depot))"),  # nested and, lifted
    (":precondition (or", ":precondition (and (or"),
    ("(increase (total-cost) 1)", "(increase (total-cost) 01)"),
    ("(increase (total-cost) 1)", "(increase (total-cost) 1.0)"),
    ("(increase (total-cost) 1)", "(increase (total-cost) 1) (increase (total-cost) 1)"),
    ("(increase (total-cost) 1)", "(increase (TOTAL-COST) 1)"),
    ("(increase (total-cost) 1)", "(increase (totalcost) 1)"),
    ("(increase (total-cost) 1)", "(increase (total-cost) (+ 1 2))"),
    ("(increase (fuel ?t) 0)", "(increase (fuel ?t) 0) (increase (fuel ?t) 0)"),
    ("(at ?t ?b)", "(AT ?T ?B)"),
    ("(at ?t ?b)", "(at ?t ?x)"),  # an unknown variable
    ("(at ?t ?b)", "(at ?t nowhere)"),  # an undeclared constant
    ("(at ?t ?b)", "(at ?t)"),  # arity
    ("(at ?t ?b)", "(lost ?t ?b)"),  # an unknown predicate
    ("(at ?t ?b)", "(= ?t ?b)"),  # an equality as an effect
    ("(at ?t ?b)", "(not (= ?t ?b))"),
    ("(fuel ?t) (dist ?a ?b)", "(fuel ?t ?a) (dist ?a ?b)"),  # a function's arity
    ("(dist ?a ?b))", "(gas ?a ?b))"),  # an unknown function
    ("(?c - place)", "(?c - city)"),  # an unknown type
    ("(?c - place)", "(?c ?c - place)"),  # a repeated variable
    ("(?t - truck ?a ?b - place)", "(?t - truck ?a ?b -place)"),  # a type glued to its dash
    ("(?t - truck ?a ?b - place)", "(?t - (either truck place) ?a ?b - place)"),
    (":precondition (or", ":precondition ()"),
    (":effect (and (assign", ":effect ()"),
    (":effect (and (assign", ":effect (and) :foo (and (assign"),
    ("(:action refuel", "(:action DRIVE"),  # an action declared twice
    ("(:action refuel :parameters (?t - truck)", "(:action refuel :parameters (?t - truck ?T - truck)"),
    ("(when (at ?t depot) (assign (fuel ?t) (cap ?t)))", "(when (at ?t depot) (and (assign (fuel ?t) (cap ?t))))"),
    ("(when (at ?t depot) (assign (fuel ?t) (cap ?t)))", "(when (at ?t depot) (and (forall (?c) (at ?t ?c))))"),
    ("(>= (fuel ?t) (dist ?a ?b))", "(>= (fuel ?t) ?a)"),
    ("(>= (fuel ?t) (dist ?a ?b))", "(= (fuel ?t) 3)"),
    ("(>= (fuel ?t) (dist ?a ?b))", "(< (- (fuel ?t)) (/ 1 2 3))"),
    ("(* 2 (- (cap ?t) 1))", "(* 2)"),
    ("(not (busy ?t))", "(imply (busy ?t) (at ?t depot))"),
    ("(:constants depot - place)", ""),
    ("(at ?t ?b)", "(at ?t ?b) (AT ?t ?B)"),  # repeated atoms: dropped alike on both paths
    ("(not (at ?t ?a))", "(not (at ?t ?a)) (not (at ?t ?a))"),
    ("(not (= ?a ?b))", "(not (= ?a ?b)) (not (= ?A ?b))"),
    ("(assign (fuel ?t) (cap ?t))", "(and (busy ?t) (busy ?t))"),
    ("(>= (fuel ?t) (dist ?a ?b))", "(>= (fuel ?t) 1) (>= (fuel ?t) 1.0)"),  # equal models, different forms
    ("(>= (fuel ?t) (dist ?a ?b))", "(>= (fuel ?t) 1) (>= (fuel ?t) 1)"),
    ("(at ?t ?p) (road ?p depot)", "(at ?t ?p) (road ?p depot) (exists (?q - place) (at ?t ?q)) "
                                   "(exists (?q - place) (at ?t ?q))"),
]


@pytest.mark.parametrize("old,new", _VARIANTS)
def test_unusual_and_faulty_variants_read_alike(old: str, new: str, monkeypatch) -> None:
    assert old in _NUMERIC
    text = _NUMERIC.replace(old, new, 1)
    assert _read(text, "d.pddl", monkeypatch, True) == _read(text, "d.pddl", monkeypatch, False)


def test_the_template_takes_the_one_pass_path() -> None:
    assert _taken(_NUMERIC, "d.pddl")
    assert _taken(_NUMERIC.replace("(at ?t ?b)", "(at ?t ?b) (AT ?t ?B)"), "d.pddl")  # a repeated atom: dropped
    assert not _taken(_NUMERIC.replace("(at ?t ?b)", "(at ?t ?x)"), "d.pddl")  # the two-pass path reports it


def test_random_mutants_read_alike(monkeypatch) -> None:
    """Seeded token edits (drop, repeat, swap, upper-case) of the shipped domains: the two paths agree."""
    rng = random.Random(31)
    domains = _domains(sorted(DOMAINS_ROOT.rglob("domain*.pddl")))[:40] or _domains(CORPORA["repository"])[:40]
    for path, text in domains:
        words = _tree_words(text)
        for _ in range(4):
            edited = list(words)
            k = rng.randrange(len(edited))
            how = rng.choice(("drop", "repeat", "swap", "upper"))
            if how == "drop":
                del edited[k]
            elif how == "repeat":
                edited.insert(k, edited[k])
            elif how == "swap" and k + 1 < len(edited):
                edited[k], edited[k + 1] = edited[k + 1], edited[k]
            else:
                edited[k] = edited[k].upper()
            mutant = " ".join(edited)
            assert _read(mutant, path, monkeypatch, True) == _read(mutant, path, monkeypatch, False), (path, how, k)


def _tree_words(text: str) -> list[str]:
    return blank_comments(text).replace("(", " ( ").replace(")", " ) ").split()


@pytest.mark.parametrize("items", [
    ["?a", "?b", "-", "t", "?c"], ["?a", "-", "t", "?b", "-", "u"], ["?a", "?A"], ["?a", "?a"], ["?a", "-"],
    ["-", "t"], ["?a", "-", "-", "t"], ["?a", "-place"], ["?a", "-", ["either", "t", "u"]], ["a"], ["?"],
    ["?a", "-", "?t"], ["?a", "-", "object"], [["x"]], ["?and"], ["?a", "?b", "-", "t", "-", "u"], [],
    # each name its own type (read by the triples' shortcut, or declined to the loop)
    ["?a", "-", "t", "?A", "-", "u"], ["a", "-", "t"], ["?a", "-", "-"], ["?a", "-", "t", "b", "-", "u"],
    [["x"], "-", "t"], ["?a", "-", "t", "?b", "-", ["either", "t", "u"]], ["?a", "-", "t", "?b", "-", "?c"],
    ["?a", "t", "-"], ["-", "-", "-"], ["?", "-", "t"],
])
@pytest.mark.parametrize("repeats", [False, True])
def test_variable_lists_read_as_the_typed_list_reads_them(items: list, repeats: bool) -> None:
    def both(fn):
        try:
            return fn()
        except _NotPlain:
            return "not plain"

    assert both(lambda: var_list(list(items), repeats)) == both(lambda: _typed_list(list(items), True, repeats=repeats))
