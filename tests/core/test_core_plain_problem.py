"""The fast reader for plain problem files (toolkit.plain_problem) against the full Lark parser.

It must build exactly the model the full parser builds, hand every other shape
(and everything malformed) to the full parser, and so leave every error message as it was.
Also: IPC inputs the loader accepts with a warning (a type listed twice, as storage does)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from toolkit import loader
from toolkit.domains import domain_dir, list_domains
from toolkit.errors import DuplicateNameError, PgtError
from toolkit.loader import parse_domain, parse_problem
from toolkit.plain_problem import read_plain_problem

IPC = Path("/work/shared/ipc-sample")


def _both(text: str, domain, path: str, monkeypatch) -> tuple[object, object]:
    """The problem (or error text) read with the plain reader, then with the full parser only."""

    def load():
        try:
            return parse_problem(text, domain, path, "lenient")
        except PgtError as exc:
            return str(exc)

    fast = load()
    with monkeypatch.context() as mp:
        mp.setattr(loader, "read_plain_problem", lambda *_: None)
        full = load()
    return fast, full


def _plain(text: str) -> bool:
    norm, _, _ = loader._normalise(text, "p.pddl")
    return read_plain_problem(loader._blank_comments(norm), loader._ROOT) is not None


def _shipped_pairs():
    for name in list_domains():
        folder = domain_dir(name)
        for prob in sorted(folder.rglob("*.pddl")):
            if prob.name != "domain.pddl":
                yield folder / "domain.pddl", prob


def _ipc_pairs():
    for folder in sorted(p for p in IPC.iterdir() if p.is_dir()) if IPC.is_dir() else ():
        dom = folder / "domain.pddl"
        probs = sorted(p for p in folder.glob("*.pddl") if "domain" not in p.name)
        if dom.exists() and probs:
            yield dom, probs[0]


@pytest.mark.parametrize("pair", [*_shipped_pairs(), *_ipc_pairs()], ids=lambda p: f"{p[1].parent.name}/{p[1].name}")
def test_the_plain_reader_builds_what_the_full_parser_builds(pair, monkeypatch) -> None:
    dom_path, prob_path = pair
    try:
        domain = parse_domain(dom_path.read_text(), str(dom_path))
    except PgtError:
        pytest.skip("domain out of scope")
    fast, full = _both(prob_path.read_text(), domain, str(prob_path), monkeypatch)
    assert fast == full


BW = """(define (domain bw) (:requirements :typing) (:types block)
 (:predicates (on ?a ?b - block) (clear ?b - block)) (:functions (total-cost) - number)
 (:action a :parameters (?x - block) :precondition (clear ?x) :effect (and (not (clear ?x)) (increase (total-cost) 1))))"""
PLAIN = """(define (problem p) (:domain bw)
 (:objects a b - block c)  ; c untyped
 (:init (clear a) (not (clear b)) (on a b) (= (total-cost) 0))
 (:goal (and (on b a) (or (clear a) (not (clear b)))))
 (:metric minimize (total-cost)))"""


def test_the_plain_shape_is_read_by_the_plain_reader(monkeypatch) -> None:
    assert _plain(PLAIN)
    fast, full = _both(PLAIN, parse_domain(BW, "d.pddl"), "p.pddl", monkeypatch)
    assert fast == full and not isinstance(fast, str)


@pytest.mark.parametrize("old,new", [
    ("(:goal (and", "(:goal (and (clear ?x)"),                       # a variable no quantifier binds
    ("(:domain bw)", "(:domain bw) (:requirements :typing)"),        # requirements in a problem
    ("a b - block c", "a b - (either block) c"),                     # either
    ("(on a b)", "(on a a b)"),                                      # wrong arity: our checker's message
    ("(on a b)", "(on a zz)"),                                       # unknown object
    ("(on a b)", "(onn a b)"),                                       # unknown predicate
    ("a b - block", "a b a - block"),                                # duplicate object
    ("(on a b)", "(on a 1b)"),                                       # name the grammar refuses
    ("(on a b)", "(on a b"),                                         # unbalanced
    ("(= (total-cost) 0)", "(= (total-cost) -1)"),                   # not a grammar NUMBER
    *[("(= (total-cost) 0)", f"(= (total-cost) 0) (= (total-cost) {word})") for word in  # odd numbers, after a good one
      ("1.2.3", "1_0", "+1", "1e3", "1.", ".5", "2.5", "-0.0", "\u0661", "x", "(x)")],
    ("(:metric minimize (total-cost))", "(:metric maximize (total-cost))"),
    ("(:goal", "(:goal (clear a)) (:goal"),                          # two goals
])
def test_other_shapes_and_errors_are_left_to_the_full_parser(old, new, monkeypatch) -> None:
    text = PLAIN.replace(old, new, 1)
    assert text != PLAIN
    fast, full = _both(text, parse_domain(BW, "d.pddl"), "p.pddl", monkeypatch)
    assert fast == full  # same model, or the same located error


@pytest.mark.parametrize("goal", [
    "(forall (?x - block) (clear ?x))",                                  # miconic-fulladl's shape
    "(exists (?x ?y - block) (and (on ?x ?y) (not (= ?x ?y))))",
    "(forall (?x - (either block)) (imply (clear ?x) (exists (?y) (on ?y ?x))))",
    "(and (= a a) (not (= a b)) (forall (?x - block) (or (clear ?x) (on ?x a))))",
    "(forall (?x - block) (forall (?x - block) (clear ?x)))",               # an inner ?x shadows the outer
    "(forall (?X - block) (clear ?x))",                                  # names ignore case
    "(forall (?x - blok) (clear ?x))",                                   # unknown type: our message
    "(forall (?x - block) (clear ?x ?x))",                               # wrong arity: our message
    "(forall (?x - block) (clear zz))",                                  # unknown object: our message
])
def test_quantified_and_equality_goals_are_plain_and_read_as_the_full_parser_reads_them(goal, monkeypatch) -> None:
    text = PLAIN.replace("(and (on b a) (or (clear a) (not (clear b))))", goal, 1)
    assert text != PLAIN and _plain(text)
    fast, full = _both(text, parse_domain(BW, "d.pddl"), "p.pddl", monkeypatch)
    assert fast == full


def _read_both(text: str, domain, monkeypatch) -> tuple[tuple, tuple]:
    """read_problem's whole answer (model, warnings, every error) with the plain reader, then the full parser."""
    def load():
        loaded = loader.read_problem(text, domain, "p.pddl")
        return loaded.model, loaded.model and loaded.model.warnings, [str(e) for e in loaded.errors]

    fast = load()
    with monkeypatch.context() as mp:
        mp.setattr(loader, "read_plain_problem", lambda *_: None)
        return fast, load()


BW_K = BW.replace("(:types block)", "(:types block) (:constants k - block)")
BW_BORROWED = BW.replace(":precondition (clear ?x)", ":precondition (and (clear ?x) (on ?x w))")


@pytest.mark.parametrize("domain_text", [BW, BW_K, BW_BORROWED], ids=["plain", "constant", "borrowed"])
@pytest.mark.parametrize("objects", [
    "a b - block c", "b a - block c", "a b - block c - object", "a B - block c",
    "a b k - block c",                                                   # repeats a constant (BW_K)
    "a b K w - block c",                                                 # in other case; declares the borrowed w
    "a b - blok c d - blok e - bloc",                                    # unknown types, each reported once
])
def test_the_objects_are_read_alike_by_the_plain_reader_and_the_full_parser(domain_text, objects,
                                                                            monkeypatch) -> None:
    text = PLAIN.replace("a b - block c", objects, 1)
    fast, full = _read_both(text, parse_domain(domain_text, "d.pddl"), monkeypatch)
    assert _plain(text) and fast == full


@pytest.mark.parametrize("objects", ["a b - block c", "a b - blok c"])  # an error recorded before the goal is read
@pytest.mark.parametrize("cost", ["0", "5"])                               # an error raised after it
@pytest.mark.parametrize(("goal", "plain"), [
    ("(and (on b a) (< (total-cost) 1.2.3))", False),                    # no number
    ("(and (on b a) (= a 1))", False),                                   # an ambiguous =
    ("(and (on b a) (< (total-cost x) 1))", False),                      # a keyword as a function
    ("(and (on b a) (> (+ (total-cost)) 1))", False),                    # + of one operand
    ("(and (on b a) (on a (b)))", False),                                # a list as a term
    ("(and (on b a) (on a either))", False),                             # a keyword as an object
    ("(and (on b a) (not (on a b) (on b a)))", False),                   # not of two
    ("(and (on b a) (clear ?x))", False),                                # a free variable
    ("(and (onn b a) (< (total-cost) 1.2.3))", False),                   # a fault first, then no number
    ("(and (or (on b a)) (on b a))", True),                              # a repeat the forms drop
    ("(and (on b a) (< (total-cost) 1) (< (TOTAL-COST) 01))", False),    # total-cost in upper case
    ("(and (on b a) (or (< (total-cost) 1) (not (clear a))))", True),
])
def test_a_goal_found_not_plain_as_it_is_read_leaves_the_file_to_the_full_parser(objects, cost, goal, plain,
                                                                                 monkeypatch) -> None:
    """The loader reads a plain problem's goal after its objects, its shape checked as it is read (plain_goal):
    where it is not plain, the full parser reads the file, and the attempt leaves nothing behind."""
    text = (PLAIN.replace("a b - block c", objects, 1).replace("(= (total-cost) 0)", f"(= (total-cost) {cost})", 1)
            .replace("(and (on b a) (or (clear a) (not (clear b))))", goal, 1))
    assert goal in text and _plain(text) == plain
    fast, full = _read_both(text, parse_domain(BW, "d.pddl"), monkeypatch)
    assert fast == full


@pytest.mark.parametrize(("op", "depth"), [("and", 600), ("and", 3000), ("not", 3000), ("and (not", 1500)])
def test_a_goal_nested_too_deeply_for_the_plain_reader_is_the_located_syntax_error_it_was(op, depth) -> None:
    """The goal is read directly first (plain_goal), its check only after: a goal the reader's own check could
    not walk (Python's recursion limit) still leaves the file to the full parser, whose nesting error it gives."""
    goal = f"({op} " * depth + "(clear a)" + ")" * (depth * (op.count("(") + 1))
    text = PLAIN.replace("(and (on b a) (or (clear a) (not (clear b))))", goal, 1)
    loaded = loader.read_problem(text, parse_domain(BW, "d.pddl"), "p.pddl")
    assert loaded.model is None and len(loaded.errors) == 1
    assert re.fullmatch(r"p\.pddl:4:\d+: formulas nested too deeply \(\d+ levels of parentheses\)", str(loaded.errors[0]))


STORAGE = """(define (domain storage) (:requirements :typing)
 (:types hoist surface place area - object
  container depot - place
  storearea transitarea - area
  area crate - surface)
 (:predicates (clear ?s - storearea) (on ?c - crate ?s - surface)))"""


def test_a_type_listed_under_object_and_a_proper_parent_keeps_the_parent_with_a_warning() -> None:
    domain = parse_domain(STORAGE, "s.pddl")
    assert domain.types["area"] == "surface" and domain.is_subtype("storearea", "surface")
    assert domain.warnings == ("s.pddl:5:3: type 'area' declared twice; kept as a subtype of surface",)
    reverse = parse_domain(STORAGE.replace("hoist surface place area - object", "hoist surface place - object area - surface")
                           .replace("area crate - surface", "area crate - object"), "s.pddl")
    assert reverse.types["area"] == "surface" and reverse.types["crate"] == "object"
    same = parse_domain(STORAGE.replace("area crate - surface", "area crate - object"), "s.pddl")
    assert same.types["area"] == "object"
    assert any("type 'area' declared twice; kept as a subtype of object" in w for w in same.warnings)


def test_a_type_with_two_proper_parents_is_still_refused() -> None:
    with pytest.raises(DuplicateNameError, match=r"^s.pddl:5:3: "):
        parse_domain(STORAGE.replace("place area - object", "place - object area - place"), "s.pddl")


def test_a_type_listed_twice_is_warned_about_without_importing_the_full_parser() -> None:
    """IPC's storage is plain: its warning must not pull in Lark and the pddl package (~35 ms of a cold load)."""
    import subprocess
    import sys

    code = ("import sys\nfrom toolkit.loader import parse_domain\n"
            f"d = parse_domain({STORAGE!r}, 's.pddl')\n"
            "assert d.warnings == (\"s.pddl:5:3: type 'area' declared twice; kept as a subtype of surface\",), d.warnings\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('lark', 'pddl', 'difflib')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_blank_comments_is_read_once_per_text_and_stays_exact() -> None:
    """Loading one file asks for its comment-blanked code about a dozen times: the text last blanked is
    kept (the same object back), and every answer, through evictions, is the regex's, offsets unchanged."""
    import re

    from toolkit.reading.text import blank_comments

    def expected(t: str) -> str:
        return re.sub(r";[^\n]*", lambda mt: " " * len(mt.group()), t)

    texts = [f"(define (problem p{i}) ; note {i}\n (:init (a)) ;; end\n;x" * (i + 1) for i in range(20)]
    texts += ["(no comment)", "", ";", "a;b\nc;\n;;d", "(x) ; é ünïcode\r\n(y)"]
    for _ in range(2):
        for t in texts:
            got = blank_comments(t)
            assert got == expected(t) and len(got) == len(t)
    big = texts[3]
    assert blank_comments(big) is blank_comments(big)  # kept, not blanked again
