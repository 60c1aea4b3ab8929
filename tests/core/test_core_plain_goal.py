"""The direct reading of plain problems (issue 31's load speed) against the checked path it stands beside.

A plain problem's ``:init`` atoms and values, goal and metric go from the plain reader's words
straight into the model (``loader._checked_atoms``/``_checked_values``,
:class:`toolkit.reading.plain_goal.PlainGoal`) when every name checks out; the checked path (parsed
forms through :class:`toolkit.reading.convert.Converter`) reads the rest and reports each fault. The
two must build the same model, warnings and errors on every problem we can find (the shipped
domains, the test data, ``/work/shared/ipc-sample``, and when present the IPC 2023 numeric track at
``/tmp/h31/ipc`` or ``$PGT_IPC_NUMERIC`` and two problems of every classical domain at
``/tmp/h34/classical-domains`` or ``$PGT_CLASSICAL_DOMAINS``), and on each shape the direct path declines.
The word lists the plain readers take from ``json.loads`` must be those of the word-by-word loop, and
the scans :func:`toolkit.reading.normalise.normalise` now skips must be ones that would change nothing.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from toolkit import loader
from toolkit.plain_problem import KEYWORDS, _NotPlain, _sexpr, _sexpr_words, read_plain_problem
from toolkit.reading import normalise as norm_mod
from toolkit.reading.plain_goal import PlainGoal

ROOT = Path(__file__).resolve().parents[2]
IPC_SAMPLE = Path("/work/shared/ipc-sample")
IPC_NUMERIC = Path(os.environ.get("PGT_IPC_NUMERIC", "/tmp/h31/ipc"))
# A checkout of aibasel/downward-benchmarks' classical domains (opt-in): the first two problems of each.
CLASSICAL = Path(os.environ.get("PGT_CLASSICAL_DOMAINS", "/tmp/h34/classical-domains"))


def _domain_of(problem: Path) -> Path | None:
    """The domain file beside a problem file, as the collections name it."""
    for name in (f"{problem.stem}-domain.pddl", "domain.pddl", f"domain_{problem.name}", f"domain-{problem.name}"):
        if (problem.parent / name).is_file():
            return problem.parent / name
    if problem.parent.name == "problems" and (problem.parent.parent / "domain.pddl").is_file():
        return problem.parent.parent / "domain.pddl"
    if problem.parent.name == "instances" and (problem.parent.parent / "domain.pddl").is_file():
        return problem.parent.parent / "domain.pddl"
    return None


def _pairs() -> list[tuple[Path, Path]]:
    found = [*sorted((ROOT / "pddl_domains").rglob("*.pddl")), *sorted((ROOT / "tests").rglob("*.pddl")),
             *(sorted(IPC_SAMPLE.rglob("*.pddl")) if IPC_SAMPLE.is_dir() else []),
             *(sorted(IPC_NUMERIC.glob("*/instances/*.pddl")) if IPC_NUMERIC.is_dir() else []),
             *(p for d in (sorted(CLASSICAL.iterdir()) if CLASSICAL.is_dir() else []) if d.is_dir()
               for p in sorted(q for q in d.glob("*.pddl") if "domain" not in q.name)[:2]
               if p.stat().st_size < 300_000)]
    pairs = []
    for path in found:
        if "domain" in path.name:
            continue
        domain = _domain_of(path)
        if domain is not None and domain != path:
            pairs.append((domain, path))
    return pairs


def _load(domain, text: str, path: str, typing: str = "strict") -> tuple:
    loaded = loader.read_problem(text, domain, path, typing)
    model = loaded.model
    shown = None if model is None else (model, model.warnings, model.notes, model.numeric, model.metric_expr)
    return shown, [str(e) for e in loaded.errors]


def _both(domain, text: str, path: str, monkeypatch, typing: str = "strict") -> tuple[tuple, tuple]:
    """(direct, checked): the problem read as it is, then with every direct path declining."""
    direct = _load(domain, text, path, typing)
    with monkeypatch.context() as mp:
        mp.setattr(loader, "_checked_atoms", lambda *_: None)
        mp.setattr(loader, "_checked_values", lambda *_: None)
        mp.setattr(PlainGoal, "goal", lambda *_: None)
        mp.setattr(PlainGoal, "metric", lambda *_: None)
        checked = _load(domain, text, path, typing)
    return direct, checked


def _direct_reads(owner, name: str, domain, text: str, typing: str, monkeypatch) -> list[bool]:
    """Whether each call of the direct path ``owner.name`` in one read of the problem ``text`` read it (gave a
    model, not None: the checked path's turn)."""
    taken = []
    real = getattr(owner, name)

    def spy(*args):
        out = real(*args)
        taken.append(out is not None)
        return out

    with monkeypatch.context() as mp:
        mp.setattr(owner, name, spy)
        loader.read_problem(text, domain, "p.pddl", typing)
    return taken


PAIRS = _pairs()


@pytest.mark.parametrize("pair", PAIRS, ids=[f"{p.parent.name}/{p.name}" for _, p in PAIRS])
def test_every_problem_reads_to_the_same_model_directly_and_through_the_checked_path(pair, monkeypatch) -> None:
    domain_path, problem_path = pair
    try:
        domain = loader.load_domain(domain_path)
    except Exception:  # noqa: BLE001 - a domain pgt refuses (durative, unsupported): nothing to compare
        pytest.skip("domain not loaded")
    text = problem_path.read_text(errors="replace")
    direct, checked = _both(domain, text, str(problem_path), monkeypatch)
    assert direct == checked


def test_the_comparison_covers_the_collections() -> None:
    assert len(PAIRS) >= 40  # the shipped domains and the test data alone


DOMAIN = """(define (domain d) (:requirements :typing :numeric-fluents :equality)
  (:types truck place - object)
  (:constants depot - place)
  (:predicates (at ?t - truck ?p - place) (open ?p - place))
  (:functions (fuel ?t - truck) (dist ?a ?b - place) (total-cost))
  (:action go :parameters (?t - truck ?a ?b - place) :precondition (at ?t ?a)
     :effect (and (at ?t ?b) (not (at ?t ?a)) (decrease (fuel ?t) (dist ?a ?b)))))"""

PROBLEM = """(define (problem p) (:domain d)
  (:objects t1 t2 - truck a b - place)
  (:init (at t1 a) (open b) (= (fuel t1) 10) (= (fuel t2) 3) (= (dist a b) 2.5))
  (:goal (and (at t1 b) (>= (fuel t1) (- (* 2 (dist a b)) 1)) (not (= a b))))
  (:metric minimize (+ (fuel t1) (total-cost))))"""


@pytest.mark.parametrize(("new", "direct"), [
    ("(at t1 a) (open b)", True),                                            # as written
    ("(at t1 a) (open b) (at t1 a) (open a)", True),                         # a repeat
    ("(AT t1 a) (Open b) (at t1 b)", True),                                  # predicates in any case
    ("(at T1 a) (open B) (at t1 b)", True),                                  # objects in other case: word by word
    ("(at t1 depot) (open depot) (open DEPOT)", True),                       # a domain constant
    ("(at t1 a) (open c)", False),                                           # an unknown object
    ("(at t1 a) (open b a)", False),                                         # a wrong arity
    ("(at t1 a) (open t1)", False),                                          # a type that does not fit
    ("(at t1 a) (opn b)", False),                                            # an unknown predicate
    ("(at T1 a) (open c)", False),                                           # word by word, then a fault
])
@pytest.mark.parametrize("typing", ["strict", "lenient"])
def test_the_init_atoms_are_read_directly_only_where_the_checked_path_finds_no_fault(new, direct, typing,
                                                                                       monkeypatch) -> None:
    text = PROBLEM.replace("(at t1 a) (open b)", new, 1)
    domain = loader.parse_domain(DOMAIN, "d.pddl")
    assert _direct_reads(loader, "_checked_atoms", domain, text, typing, monkeypatch) == [direct]
    fast, checked = _both(domain, text, "p.pddl", monkeypatch, typing)
    assert fast == checked


@pytest.mark.parametrize(("old", "new", "direct"), [
    ("(:goal (and (at t1 b)", "(:goal (and (at t1 b)", True),                  # as written
    ("(and (at t1 b) (>=", "(and (AT T1 B) (>=", True),                       # names in any case
    ("(:goal (and (at t1 b) (>= (fuel t1) (- (* 2 (dist a b)) 1)) (not (= a b))))", "(:goal (and (at t1 b)))", True),
    ("(:goal (and (at t1 b) (>= (fuel t1) (- (* 2 (dist a b)) 1)) (not (= a b))))", "(:goal (at t1 depot))", True),
    ("(:goal (and (at t1 b) (>= (fuel t1) (- (* 2 (dist a b)) 1)) (not (= a b))))", "(:goal (or (at t1 b) (imply (open a) (< (fuel t2) -1.5))))", True),
    ("(and (at t1 b) (>=", "(and (at t1 b) (at t1 b) (>=", False),            # a repeat the forms drop
    ("(and (at t1 b) (>=", "(and (at t1 b) (AT T1 B) (>=", False),            # the same, in other case
    ("(and (at t1 b) (>=", "(and (at t1 b) (< (fuel t1) 1) (< (fuel t1) 1.0) (>=", False),  # equal models
    ("(and (at t1 b) (>=", "(and (at t1 b) (< (fuel t1) 1) (< (fuel t1) 2) (>=", True),
    # three or more operands are told apart by keys (plain_goal._key): each kind's repeats, and their look-alikes
    ("(and (at t1 b) (>=", "(and (at t1 b) (or (open a) (at t1 b)) (OR (open A) (at t1 b)) (>=", False),
    ("(and (at t1 b) (>=", "(and (at t1 b) (or (open a) (at t1 b)) (or (open b) (at t1 b)) (>=", True),
    ("(and (at t1 b) (>=", "(and (at t1 b) (not (open a)) (not (OPEN a)) (>=", False),
    ("(and (at t1 b) (>=", "(and (at t1 b) (< (+ (fuel t1) 1) 2) (< (+ (fuel t1) 1.0) 2) (>=", False),
    ("(and (at t1 b) (>=", "(and (at t1 b) (< (+ (fuel t1) 1) 2) (< (+ (fuel t2) 1) 2) (>=", True),
    ("(and (at t1 b) (>=", "(and (at t1 b) (= (fuel t1) (fuel t2)) (= (fuel t2) (fuel t1)) (>=", True),
    ("(and (at t1 b) (>=", "(and (at t1 b) (= (fuel t1) (fuel t2)) (= (FUEL T1) (fuel t2)) (>=", False),
    ("(>= (fuel t1)", "(>= (+ (fuel t1) (FUEL t1) (fuel t1) (fuel t2))", True),  # a term read again (memo)
    ("(>= (fuel t1)", "(>= (+ (fuel t1) (fuel t1 a))", False),                # a term's arity, after a good one
    ("(and (at t1 b) (>=", "(and (and (at t1 b)) (>=", False),                # a nested and the forms lift
    ("(:goal (and (at t1 b)", "(:goal (and (forall (?t - truck) (at ?t b)) (at t1 b)", False),  # a quantifier
    ("(and (at t1 b) (>=", "(and (at t1 c) (>=", False),                      # an unknown object
    ("(and (at t1 b) (>=", "(and (at t1 b t2) (>=", False),                   # a wrong arity
    ("(and (at t1 b) (>=", "(and (at a b) (>=", False),                       # a type that does not fit
    ("(and (at t1 b) (>=", "(and (att t1 b) (>=", False),                     # an unknown predicate
    ("(>= (fuel t1)", "(>= (fule t1)", False),                                # an unknown function
    ("(>= (fuel t1)", "(>= (fuel t1 a)", False),                              # a function's arity
    ("(not (= a b))", "(not (= a c))", False),                                # an unknown object in an equality
])
@pytest.mark.parametrize("typing", ["strict", "lenient"])
def test_the_goal_is_read_directly_only_where_the_checked_path_finds_no_fault(old, new, direct, typing,
                                                                                monkeypatch) -> None:
    text = PROBLEM.replace(old, new, 1)
    assert text != PROBLEM or old == new
    domain = loader.parse_domain(DOMAIN, "d.pddl")
    norm, _, _ = loader._normalise(text, "p.pddl")
    assert read_plain_problem(loader._blank_comments(norm), loader._ROOT) is not None
    assert _direct_reads(PlainGoal, "goal", domain, text, typing, monkeypatch) == [direct]
    fast, checked = _both(domain, text, "p.pddl", monkeypatch, typing)
    assert fast == checked


@pytest.mark.parametrize(("old", "new"), [
    ("(:metric minimize (+ (fuel t1) (total-cost)))", "(:metric maximize (fuel t2))"),
    ("(:metric minimize (+ (fuel t1) (total-cost)))", "(:metric minimize (total-cost))"),
    ("(:metric minimize (+ (fuel t1) (total-cost)))", "(:metric minimize (/ (fule t1) 2))"),  # a fault: located
    ("(:metric minimize (+ (fuel t1) (total-cost)))", "(:metric minimize (fuel t3))"),
])
def test_the_metric_reads_the_same_directly_and_through_the_checked_path(old, new, monkeypatch) -> None:
    domain = loader.parse_domain(DOMAIN, "d.pddl")
    fast, checked = _both(domain, PROBLEM.replace(old, new), "p.pddl", monkeypatch)
    assert fast == checked


WORDS = st.lists(st.sampled_from(["(", ")", "a", "b-1", '"', "\\", ",", "[", "]", "\x01", "é", "{", "x,]", '"(",']),
                 max_size=30)


def _words_or_fault(words: list[str]):
    try:
        return _sexpr_words(words)
    except _NotPlain:
        return _NotPlain


@settings(max_examples=400, deadline=None, database=None, derandomize=True)
@given(WORDS, st.sampled_from([" ", "\n", "\t", "  ", ""]), st.lists(st.booleans(), max_size=30))
def test_the_json_word_lists_are_those_of_the_word_loop(words, space, glued) -> None:
    # ``glued``: where a word follows the one before it without a space ("((a)(b))", "a)", "()": empty strings
    # between the parentheses' brackets in the JSON text)
    code = "".join(w if k and k - 1 < len(glued) and glued[k - 1] else space + w for k, w in enumerate(words))
    try:
        got = _sexpr(code)
    except _NotPlain:
        got = _NotPlain
    assert got == _words_or_fault(code.replace("(", " ( ").replace(")", " ) ").split())


@pytest.mark.parametrize("pair", PAIRS[:: max(1, len(PAIRS) // 60)], ids=lambda p: p[1].name)
def test_the_json_word_lists_of_real_files_are_those_of_the_word_loop(pair) -> None:
    for path in pair:
        code = loader._blank_comments(path.read_text(errors="replace"))
        assert _sexpr(code) == _words_or_fault(code.replace("(", " ( ").replace(")", " ) ").split())


def _group_without_names(tokens: list[str]) -> bool:
    """Whether ``_drop_empty_typed_group``'s loop blanks a ``- type`` in this list (its rule, restated)."""
    names = 0
    for i, token in enumerate(tokens):
        if token != "-":
            names += 1
            continue
        if names == 0 and i + 1 < len(tokens):
            return True
        names = -1
    return False


@settings(max_examples=400, deadline=None, database=None, derandomize=True)
@given(st.lists(st.sampled_from(["-", "a", "t", "-b", "object", "a-"]), max_size=12),
       st.sampled_from([" ", "\n  ", "\t"]))
def test_a_group_without_names_is_never_skipped(tokens, space) -> None:
    """The precheck of ``_drop_empty_typed_group`` matches wherever its loop would blank something, and
    the loop then warns."""
    listed = space.join(tokens)
    if _group_without_names(tokens):
        assert norm_mod._FIRST_DASH_RE.match(listed) or norm_mod._DASH_AFTER_ONE_RE.search(listed)
        text = f"(define (problem p) (:domain d) (:objects {listed}) (:init) (:goal (a)))"
        warnings: list[str] = []
        norm_mod._drop_empty_typed_group(text, text, "p.pddl", warnings)
        assert warnings


@pytest.mark.parametrize("text", [
    "(:action a :parameters (?AND ?x) :precondition (p ?And))", "(p ?object-2 ?or_)", "(p ?not)",
    "; ?and in a comment\n(p ?x)", "(p ?x?and)", "(p ?\u017fcale-up)", "; caf\u00e9\n(p ?object)",
    "; caf\u00e9 ?and\n(p ?x ?Or)", "(p ?x) ; ?and",
])
def test_a_keyword_variable_is_never_skipped(text) -> None:
    """``normalised`` seeks keyword variables in the lower-case code (a comment's accent or ``?and`` does not
    count): every one outside the comments is renamed, and a comment is kept as written where none is."""
    norm, code, _, _ = norm_mod.normalised(text, "f.pddl", loader.Errors("f.pddl"), [])
    assert norm_mod._KEYWORD_VARIABLE_RE.search(code) is None, code
    assert code == loader._blank_comments(norm)
    if norm_mod._KEYWORD_VARIABLE_RE.search(loader._blank_comments(text)) is None:
        assert norm == text


@pytest.mark.parametrize("keyword", sorted(KEYWORDS))
def test_every_keyword_variable_is_seen_in_any_case(keyword) -> None:
    for spelled in (keyword, keyword.upper(), keyword.title()):
        for text in (f"(p ?{spelled})", f"(p ?{spelled}-x)", f"(p ?x{spelled})", f"(p ?{spelled}\n)", f"(p ?{spelled}_)"):
            renamed = norm_mod._KEYWORD_VARIABLE_RE.search(text) is not None
            assert (norm_mod._LOWER_KEYWORD_VARIABLE_RE.search(text.lower()) is not None) == renamed, text


@pytest.mark.parametrize("text", ["(define (domain d))", "(  define\n(  domain d))", "(define (problem p) (:domain d))",
                                  "; (define (domain x)\n(define (problem p))", "(x define (domain d))",
                                  "(define (x) define (domain d)) (define\t(domain-2 d))", "(define (domaine d))"])
def test_a_domain_is_told_from_a_problem_as_the_regular_expression_tells_it(text) -> None:
    code = loader._blank_comments(text)
    assert norm_mod._is_domain(code) == (re.search(r"\(\s*define\s*\(\s*domain\b", code) is not None)


def _files() -> list[Path]:
    return sorted({p for pair in PAIRS for p in pair})


_REQUIREMENT_VARIANTS = [
    lambda t: t,
    lambda t: re.sub(r"\(\s*:requirements[^)]*\)", "(:requirements)", t, count=1, flags=re.I),
    lambda t: re.sub(r"\(\s*:requirements[^)]*\)", "(:requirements :strips :bogus ; x\n :typing)", t, count=1, flags=re.I),
    lambda t: re.sub(r"\(\s*:requirements[^)]*\)", "", t, count=1, flags=re.I),
    lambda t: t.replace("(", "( ;c\n", 3),
    # the root type renamed and declared (``- object``), with comments where the renaming and the
    # declaration go
    lambda t: "; (:types a - object\n" + t.replace(" - ", " - object ", 1),
    lambda t: t.replace(" - ", " - ;c\n object ", 1),
    lambda t: re.sub(r"\(\s*:types", "(:types ;c ) - object\n", t, count=1, flags=re.I).replace(" - ", " - Object ", 2),
    lambda t: re.sub(r"\(\s*:types[^)]*\)", "", t, count=1, flags=re.I).replace(" - ", " - object ", 1),
]


@pytest.mark.parametrize("path", _files()[:: max(1, len(_files()) // 120)], ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_normalised_code_is_the_blanked_normalised_text(path) -> None:
    """``normalised`` hands the readers the comment-blanked code of its text, kept beside the text as it is
    changed (not blanked again): it must be ``blank_comments`` of that text, on every file and with its
    :requirements empty, faulty, commented or absent; ``normalise`` gives the rest unchanged, the text with its
    requirements granted (the full parser's)."""
    for variant in _REQUIREMENT_VARIANTS:
        text = variant(path.read_text(errors="replace"))
        try:
            got = norm_mod.normalised(text, "f.pddl", loader.Errors("f.pddl"), [])
        except loader.PgtError:
            continue
        assert got[1] == loader._blank_comments(got[0]), path
        granted = norm_mod.granted(got[0])
        assert norm_mod.normalise(text, "f.pddl", loader.Errors("f.pddl"), []) == (granted, got[2], got[3])


@settings(max_examples=300, deadline=None, database=None, derandomize=True)
@given(st.lists(st.sampled_from(["object", "OBJECT", "Object", "objects", "-", "object", "a", "b", "\u017fx",
                                 "(either a object)", "obj", "; object\n", "\u212a", "t"]), max_size=8),
       st.sampled_from([":types", ":objects", ":constants", ":OBJECTS"]))
def test_the_object_and_empty_group_prechecks_skip_only_lists_that_change_nothing(words, section) -> None:
    """``_drop_listed_object`` and ``_drop_empty_typed_group`` return at once where the lower-case text of
    ASCII code shows no ``object`` or no list: each warns exactly where its full scan finds something."""
    text = f"(define (domain d) ({section} {' '.join(words)}) (:predicates (p)))"
    code = loader._blank_comments(text)
    listed: list[str] = []
    norm_mod._drop_listed_object(text, code, "d", listed)
    block = next((mt for mt in norm_mod._TYPES_RE.finditer(code) if norm_mod.open_before(code, mt.start()) is not None),
                 None)
    hits = [] if not block else [
        mt for mt in re.finditer(r"object(?<![\w?-]object)(?![\w-])(?!\s*-)", code[block.start(1):block.end(1)], re.I)
        if not re.search(r"-\s*$", code[block.start(1):block.start(1) + mt.start()])]
    assert bool(listed) == bool(hits)
    empty: list[str] = []
    norm_mod._drop_empty_typed_group(text, code, "d", empty)
    assert bool(empty) == any(_group_without_names(b.group(1).split()) for b in norm_mod._TYPED_GROUP_RE.finditer(code))
