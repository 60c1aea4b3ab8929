"""The fast reader for plain domain files (toolkit.plain_domain) against the full Lark parser.

It must build exactly the model the full parser builds (same warnings), take the plain
path on the published domains, and hand every other shape and every malformed file
to the full parser, so that each error message stays what it was, located.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit import loader
from toolkit.domains import DOMAINS_ROOT
from toolkit.plain_domain import read_plain_domain
from toolkit.reading.collect import Errors
from toolkit.reading.normalise import SUPPORTED_REQUIREMENTS as SUPPORTED
from toolkit.reading.normalise import normalised

IPC = Path("/work/shared/ipc-sample")
# Domains the plain reader hands on to the full parser (none: derived predicates are plain now).
NOT_PLAIN: set[str] = set()


def _both(text: str, monkeypatch, path: str = "d.pddl", *, domain=None) -> tuple[object, object]:
    """(model, error texts) read with the plain reader, then with the full parser only: a domain,
    or with ``domain`` given, a problem of it."""

    def load():
        loaded = loader.read_domain(text, path) if domain is None else loader.read_problem(text, domain, path)
        return loaded.model, [str(e) for e in loaded.errors]

    fast = load()
    with monkeypatch.context() as mp:
        mp.setattr(loader, "read_plain_domain" if domain is None else "read_plain_problem", lambda *_, **__: None)
        full = load()
    return fast, full


def _plain(text: str) -> bool:
    norm, _, _ = loader._normalise(text, "d.pddl")
    return read_plain_domain(loader._blank_comments(norm)) is not None


def _domain_files() -> list[Path]:
    ipc = sorted(IPC.rglob("*domain*.pddl")) if IPC.is_dir() else []
    return [*ipc, *sorted(DOMAINS_ROOT.rglob("domain*.pddl"))]


def _id(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


@pytest.mark.parametrize("path", _domain_files(), ids=_id)
def test_the_plain_reader_builds_what_the_full_parser_builds(path: Path, monkeypatch) -> None:
    text = path.read_text()
    fast, full = _both(text, monkeypatch, str(path))
    assert fast == full
    if _id(path) not in NOT_PLAIN:
        assert _plain(text), "a published domain should take the plain path"


def test_the_ipc_sample_is_covered() -> None:
    if not IPC.is_dir():
        pytest.skip("no IPC sample on this machine")
    files = _domain_files()
    assert len([f for f in files if IPC in f.parents]) >= 39


BW = """(define (domain bw) (:requirements :typing :action-costs)
 (:types block - thing thing)
 (:constants table - thing)
 (:predicates (on ?a ?b - thing) (clear ?b - block) (holding ?b) (same ?a ?a))
 (:functions (total-cost) - number (weight ?b - block) - number)
 (:action pick :parameters (?x - block ?y - (either block thing))
  :precondition (and (clear ?x) (not (= ?x ?y)) (or (on ?x ?y) (on ?x table))
                     (imply (holding ?y) (clear ?y)) (forall (?z - block) (not (on ?z ?x)))
                     (exists (?w) (on ?x ?w)))
  :effect (and (holding ?x) (not (clear ?x)) (forall (?z - block) (when (on ?z ?x) (and (clear ?z) (not (on ?z ?x)))))
               (when (on ?x table) (not (on ?x table))) (increase (total-cost) (weight ?x))))
 (:action put :parameters (?x - block) :effect (and (not (holding ?x)) (increase (total-cost) 2)))
 (:action idle :parameters () :precondition () :effect ())
 (:action think :parameters (?x) :precondition (holding ?x)))"""


def test_every_plain_construct_is_read_by_the_plain_reader(monkeypatch) -> None:
    assert _plain(BW)
    fast, full = _both(BW, monkeypatch)
    assert fast == full and fast[0] is not None and not fast[1]
    assert set(fast[0].actions) == {"pick", "put", "idle", "think"}


@pytest.mark.parametrize("requirements", ["", "(:requirements)", "(:requirements :typing :bogus :typing)",
                                          "(:requirements :typing :action-costs)",
                                          f"(:requirements {' '.join(SUPPORTED)})"])
def test_the_requirements_are_granted_to_the_full_parser_alone(requirements: str, monkeypatch) -> None:
    """BW uses quantifiers, disjunctions and conditional effects it never declares: the full parser reads it
    with the missing requirements granted (``normalise``'s text), the plain reader reads the requirements as
    declared (``normalised``'s code, none added), and both build the same model with the same errors."""
    text = BW.replace("(:requirements :typing :action-costs)", requirements)
    fast, full = _both(text, monkeypatch)
    assert fast == full and fast[0] is not None
    bogus = ":bogus" in text and f"d.pddl:1:{text.index(':bogus') + 1}: unsupported PDDL feature requirement :bogus;"
    assert [e.split(" pgt supports")[0] for e in fast[1]] == ([bogus] if bogus else [])
    granted, _, declared = loader._normalise(text, "d.pddl", Errors("d.pddl"))
    assert all(f" {r} " in granted.split("\n")[0].replace(")", " ") for r in SUPPORTED)  # on the head's line
    _, code, _, same = normalised(text, "d.pddl", Errors("d.pddl"), [])
    assert same == declared and read_plain_domain(code) is not None
    listed = [w.strip(")") for w in requirements.split()[1:]]
    assert [w for w in code.replace(")", " ").split() if w in SUPPORTED] == [w for w in listed if w in SUPPORTED]


@pytest.mark.parametrize("old,new", [
    ("(clear ?b - block)", "(clear ?b - blok)"),                          # undeclared type
    ("(on ?x table)", "(on ?x tabel)"),                                   # undeclared constant
    ("(holding ?b)", "(holding ?b) (clear ?c)"),                          # predicate declared twice
    (":action put", ":action pick"),                                      # action declared twice
    ("(on ?x table)))", "(on ?x table))"),                                # unbalanced
    ("(increase (total-cost) 2)", "(increase total-cost 2)"),             # bare function head
    ("(holding ?x) (not (clear", "(and (holding ?x)) (not (clear"),       # nested and in an effect
    ("(when (on ?x table) (not", "(when (on ?x table) (when (clear ?x) (not"),  # when in when
    ("block - thing thing", "block - (either thing) thing"),              # either in :types
    ("block - thing thing", "block - thing thing - block"),               # cyclic types
    ("block - thing thing", "block - thing thing block - other"),         # type under two proper parents
    ("block - thing thing", "block - thing thing block block"),           # type listed three times
    ("block - thing thing", "block - thing thing BLOCK"),                 # type listed twice, spelled twice
    ("(?x - block ?y", "(?x - block ?x"),                                 # parameter listed twice
    ("(:constants table - thing)", "(:constants table - thing table)"),   # constant listed twice
    ("(total-cost) - number (weight", "(total-cost) - number (total-cost) (weight"),  # function twice
    ("(:types", "(:constants c) (:types"),                                # sections out of order
    (":parameters (?x - block) :effect", ":parameters (?x - block) :effect (holding ?x) :effect"),
    ("(on ?x table)))", "(on ?x 1table)))"),                              # a name the grammar refuses
    ("(:action idle :parameters ()", "(:action idle"),                     # no :parameters
    ("(weight ?x)", "(weight ?x) 1"),                                     # increase with three operands
])
def test_other_shapes_and_errors_are_left_to_the_full_parser(old, new, monkeypatch) -> None:
    text = BW.replace(old, new, 1)
    assert text != BW
    assert not _plain(text)
    fast, full = _both(text, monkeypatch)
    assert fast == full  # same model, or the same located errors


@pytest.mark.parametrize("old,new,kept", [
    ("block - thing thing", "block - thing thing block", "thing"),              # then untyped
    ("block - thing thing", "block - object thing - object block - thing", "thing"),  # under object, then a parent
    ("block - thing thing", "block - thing thing - object block - thing", "thing"),  # the same parent twice
    ("block - thing thing", "block - thing thing block - object", "thing"),     # a parent, then object
    ("block - thing thing", "block thing block", "object"),                     # untyped twice
])
def test_a_type_listed_twice_is_read_plain_as_the_full_parser_repairs_it(old, new, kept, monkeypatch) -> None:
    # IPC's storage lists area under object and under surface: the full parser repaired it with a
    # warning, the plain reader handed it on (the differential fuzzer compares the two paths).
    text = BW.replace(old, new, 1)
    assert _plain(text)
    fast, full = _both(text, monkeypatch)
    assert fast == full and fast[0] is not None and not fast[1]
    with monkeypatch.context() as mp:
        mp.setattr(loader, "read_plain_domain", lambda *_, **__: None)
        full_warnings = loader.read_domain(text, "d.pddl").model.warnings
    warning = f"d.pddl:2:{text.split(chr(10))[1].rindex('block') + 1}: type 'block' declared twice; kept as a subtype of {kept}"
    assert fast[0].warnings == full_warnings and warning in fast[0].warnings


@pytest.mark.parametrize("old,new", [
    ("(holding ?x) (not", "(holdin ?x) (not"),                            # unknown predicate
    ("(holding ?x) (not", "(holding ?x ?x) (not"),                        # wrong arity
    ("(clear ?x) (not", "(clear ?y) (not"),                               # type mismatch is no parse error
    ("(on ?x ?w)", "(on ?x ?v)"),                                         # unbound variable
    ("(clear ?x) (not (=", "(clear ?x) (> (weight ?x) 1) (not (="),       # numeric condition (plain now)
    ("(increase (total-cost) 2)", "(increase (total-cost) (+ 1 2))"),      # cost expression: the loader's message
    ("block - thing thing", "block - object thing"),                      # object as a parent (no fault)
])
def test_errors_the_loader_finds_after_parsing_are_the_same_on_both_paths(old, new, monkeypatch) -> None:
    text = BW.replace(old, new, 1)
    assert _plain(text)  # the parse is fine; the shared conversion reports the fault
    fast, full = _both(text, monkeypatch)
    assert fast == full
