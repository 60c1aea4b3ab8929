"""The faster scans of the shared text passes against the regular expressions they replace (issue 31).

``keyword_open`` (under :func:`toolkit.reading.text.section`), the action and variable-list scans of
:func:`toolkit.reading.collect.record_duplicates` and :func:`toolkit.textfile.read_text`'s system-call
read must find exactly what the old expressions and ``Path.read_bytes`` found, on every PDDL file of
the shipped domains, the test data and ``/work/shared/ipc-sample``, and on crafted text (upper case,
non-ASCII case folds, white space and comments between the parenthesis and the keyword).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from toolkit.errors import UnsupportedFeatureError
from toolkit.reading import collect
from toolkit.reading import normalise as norm_mod
from toolkit.reading.normalise import UNSUPPORTED_KEYWORDS, normalise
from toolkit.reading.text import blank_comments, keyword_open, line_col, open_before, section
from toolkit.textfile import decode, read_text

ROOT = Path(__file__).resolve().parents[2]
IPC_SAMPLE = Path("/work/shared/ipc-sample")
FILES = [*sorted((ROOT / "pddl_domains").rglob("*.pddl")), *sorted((ROOT / "tests").rglob("*.pddl")),
         *(sorted(IPC_SAMPLE.rglob("*.pddl")) if IPC_SAMPLE.is_dir() else [])]
CRAFTED = [
    "(define (domain d) ( :PREDICATES (p)) (:Action a :parameters (?x ?X) :effect (FORALL (?y ?y) (p))))",
    "(:predicates-x (p)) (x :predicates (q)) (\n\t:predicates (r))",
    "(:action b :parameters(?a)) (  exists(?b ?b) (p)) (xforall (?c) (p)) (exiſts (?d ?d) (p))",
    "(:objects a b) (:OBJECTS c) (:init (p)) (:goal (and))",
    "; (:action a\n(:action  a) (:action\na) :action c (ForAll (?x) (p))",
]
TEXTS = [*CRAFTED, *(p.read_text(errors="replace") for p in FILES)]
KEYWORDS = [":predicates", ":objects", ":init", ":goal", ":types", ":constants", ":metric", ":functions", ":action"]


def test_the_scans_cover_the_collections() -> None:
    assert len(FILES) >= 60


@pytest.mark.parametrize("keyword", KEYWORDS)
def test_keyword_open_finds_what_the_expression_found(keyword) -> None:
    for text in TEXTS:
        code = blank_comments(text)
        mt = re.search(r"\(\s*" + re.escape(keyword) + r"(?![\w-])", code, re.I)
        assert keyword_open(code, keyword) == (mt.start() if mt else None), text[:80]


def test_the_action_and_variable_scans_find_what_the_expressions_found() -> None:
    for text in TEXTS:
        code = blank_comments(text)
        actions = [mt.span(1) for mt in re.finditer(r"\(\s*:action\s+([^\s()]+)", code, re.I)]
        assert [mt.span(1) for mt in collect._ACTION_RE.finditer(code)
                if open_before(code, mt.start()) is not None] == actions
        lists = [("parameter", mt.span(1)) if mt.group(1) is not None else ("variable", mt.span(2))
                 for mt in re.finditer(r":parameters\s*\(([^()]*)\)|\(\s*(?:forall|exists)\s*\(([^()]*)\)", code, re.I)]
        assert collect._variable_lists(code) == lists, text[:80]


@pytest.mark.parametrize("path", FILES[:: max(1, len(FILES) // 40)], ids=lambda p: p.name)
def test_read_text_reads_the_bytes_path_read_bytes_reads(path) -> None:
    text = decode(path.read_bytes(), str(path))
    assert read_text(path) == text.replace("\r\n", "\n").replace("\r", "\n")


def _old_section(code: str, keyword: str) -> tuple[int, int] | None:
    """``section`` as it was: the expression, then every parenthesis visited."""
    mt = re.search(r"\(\s*" + re.escape(keyword) + r"(?![\w-])", code, re.I)
    if not mt:
        return None
    depth = 0
    for paren in re.finditer(r"[()]", code[mt.start():]):
        depth += 1 if paren.group() == "(" else -1
        if depth == 0:
            return mt.start(), mt.start() + paren.end()
    return mt.start(), len(code)


@pytest.mark.parametrize("keyword", KEYWORDS)
def test_section_spans_what_it_spanned(keyword) -> None:
    for text in [*TEXTS, "(:init (p) (q", "(:init ((a)) ) (b))"]:
        code = blank_comments(text)
        assert section(code, keyword) == _old_section(code, keyword), text[:80]


def _old_refusal(text: str) -> str | None:
    """normalise's refusal of an unsupported feature as it was: each keyword's literal sought in the code."""
    code = blank_comments(text)
    lowered = code.lower()
    for kw, feature in UNSUPPORTED_KEYWORDS.items():
        if kw.split("(?", 1)[0].lower() not in lowered:
            continue
        pat = (re.escape(kw) if kw.startswith(":") else r"\(\s*" + kw) + r"(?![\w-])"
        mt = re.search(pat, code, re.I)
        if mt:
            return str(UnsupportedFeatureError("f.pddl", feature, *line_col(text, mt.start())))
    return None


REFUSED = ["(define (domain d) (:requirements :Durative-Actions) (:predicates (p)))",
           "(define (domain d) (:DURATIVE-ACTION a))", "(:durative-action-x a) (:action b)", "(x:vars (?x))",
           "(when (p) (oneof (q) (r)))", "(ONEOF (q))", "(oneof-x)", "; (:constraints\n(p)", "(:constraints (p))",
           "(probabilistic 0.5 (p))", "(probabilistic-x 0.5)", "(preference p1 (at a))", "(:vars\t(?x))",
           "(:timed-initial-literals)", "(:non-deterministic)", "(:OBJECT-FLUENTS)", "(:durative-actions:x)",
           "(\u0130:vars (?x))", "(:preferences)"]


def test_unsupported_features_are_refused_where_they_were() -> None:
    for text in [*REFUSED, *TEXTS]:
        try:
            normalise(text, "f.pddl", collect.Errors("f.pddl"))  # an unknown requirement is collected, not raised
            got = None
        except UnsupportedFeatureError as exc:
            got = str(exc)
        assert got == _old_refusal(text), text[:80]


def test_blank_comments_blanks_what_the_substitution_blanked() -> None:
    for text in [*TEXTS, ";", ";;\n;", "a;b\r\n;c", "(p) ; x ; y\n(q);", "é;ü\n"]:
        text += "\n; a text of its own"  # not the memo's answer
        assert blank_comments(text) == re.sub(r";[^\n]*", lambda mt: " " * len(mt.group()), text)


UPPER = ["(define (domain D) (:Requirements :STRIPS) (:predicates (P ?X)) (:action A :parameters (?X) "
         ":precondition (AND (P ?X)) :effect (NOT (P ?X))))", "(:metric MINIMIZE (total-cost))",
         "(:functions (f) - NUMBER)", "(define (problem P-01) (:domain d) (:objects Ab Cd) (:init (p Ab)) "
         "(:goal (and (p Cd))))", "( ; (AND\n AND x)", "(:goal (ÀND))", "(define (problem p) (:domain d) (:INIT))"]


def test_the_keyword_case_scan_is_skipped_only_where_it_changes_nothing() -> None:
    pattern = norm_mod._KEYWORD_RE
    for text in [*UPPER, *TEXTS]:
        code = blank_comments(text)
        keywords = "".join(pattern.findall(code))
        if keywords == keywords.lower():  # normalise skips the substitution
            assert pattern.sub(lambda mt: mt.group() if mt.group()[0] == ";" else mt.group().lower(), text) == text


@pytest.mark.parametrize("text", ["(define (domain d) (:functions ) (:predicates (p)))", "( :FUNCTIONS\n)",
                                  "; (:functions)\n(p)", "(:functions (f))", "x:functions)", "(\t:Functions)"])
def test_an_empty_functions_section_is_found_where_the_expression_finds_it(text) -> None:
    found = any(open_before(text, mt.start()) is not None for mt in norm_mod._FUNCTIONS_CLOSED_RE.finditer(text))
    assert found == (norm_mod._EMPTY_FUNCTIONS_RE.search(text) is not None)


def test_the_types_list_is_the_one_the_expression_found() -> None:
    for text in [*TEXTS, "(x :types a) ( :types b - object)", "(:types-x a) (:types c)"]:
        code = blank_comments(text)
        old = re.search(r"\(\s*:types\b([^)]*)", code)
        new = next((mt for mt in norm_mod._TYPES_RE.finditer(code) if open_before(code, mt.start()) is not None), None)
        assert (old and old.span(1)) == (new and new.span(1)), text[:80]


ROOTED = ["(:types a b - object c - (either a OBJECT))", "(:types a - ; why\n object)", "(:constants k -\n Object)",
          "(?x - (either a ; b\n object))", "(?x - object;c\n?y - object)", "(?x -object) (?y - objects)",
          "; - object\n(?x - object)"]


def test_the_root_is_renamed_where_the_pieces_between_comments_renamed_it() -> None:
    def old(text: str) -> tuple[str, str]:  # each piece between comments scanned (the comments are the odd chunks)
        chunks = re.split(r"(;[^\n]*)", text)
        chunks[0::2] = [norm_mod._OBJECT_TYPE_RE.sub(norm_mod._rename_root, chunk) for chunk in chunks[0::2]]
        return "".join(chunks), blank_comments("".join(chunks))

    renamed = 0
    for text in [*ROOTED, *TEXTS]:
        code = blank_comments(text)
        hits = list(norm_mod._OBJECT_TYPE_RE.finditer(code))
        if hits:
            renamed += 1
            assert norm_mod._renamed_root(text, code, hits) == old(text), text[:80]
    assert renamed > len(ROOTED)


def test_the_empty_typed_group_pass_is_skipped_only_where_it_changes_nothing() -> None:
    skipped = 0
    for text in [*TEXTS, "(:OBJECTS - board a)", "(:constants\n - t)", "(:objeCts - k)"]:
        code = blank_comments(text)
        lowered = code.lower()
        if lowered.isascii() and ":objects" not in lowered and ":constants" not in lowered:  # normalise skips it
            skipped += 1
            assert norm_mod._drop_empty_typed_group(text, code, "f", []) == (text, code), text[:80]
    assert skipped > 10


def test_predicate_comments_are_read_from_the_lines_they_were_read_from() -> None:
    from toolkit.reading import build

    def old(text: str) -> dict[str, str]:  # every line after (:predicates split, up to the first with an (:action ...
        comments: dict[str, str] = {}
        sec = build._PREDICATES_RE.search(text)
        for line in text[sec.end():].splitlines() if sec else []:
            if re.search(r"\(\s*:(action|functions|derived|constraints)\b", line, re.I):
                break
            mt = re.match(r"\s*\(\s*(\w[\w-]*)[^;]*\)\s*;+\s*(.+?)\s*$", line)
            if mt:
                comments[mt.group(1).lower()] = mt.group(2)
        return comments

    crafted = ["(:predicates (p) ; a p\n (q ?x) ;; the q\n(\n:action a)\n(r) ; the r\n(:action b) (s) ; not s",
               "(:predicates (p) ; a p\n(\x0b:functions (f))\n (q) ; q\n(:ACTION x)", "(:predicates (p) ;; p\n",
               "(:predicates (p) (:functions) ; f\n(q) ; q", "(:predicates\n (p) ; p\u2028(q) ; q\n(:derived (q) (p))"]
    found = 0
    for text in [*crafted, *TEXTS]:
        found += bool(old(text))
        assert build.predicate_comments(text) == old(text), text[:80]
    assert found >= len(crafted) - 1


def test_object_listed_in_types_is_dropped_where_the_scan_dropped_it() -> None:
    def old(text: str, code: str) -> tuple:  # every "object" of the list tried
        block = next((mt for mt in norm_mod._TYPES_RE.finditer(code) if open_before(code, mt.start()) is not None),
                     None)
        if not block:
            return (text, code), []
        hits = [mt for mt in re.finditer(r"object(?<![\w?-]object)(?![\w-])(?!\s*-)", block.group(1), re.I)
                if not re.search(r"-\s*$", block.group(1)[:mt.start()])]
        return norm_mod._drop_listed_object(text, code, "f", []) if hits else (text, code), hits

    crafted = ["(:types a - object b)", "(:types a -object object)", "(:types object a - OBJECT)", "(:types a b)",
               "(:types a -\n  object\tobject - b)", "(:types objects - object)", "(:types a - objectx object)"]
    dropped = 0
    for text in [*crafted, *TEXTS]:
        code = blank_comments(text)
        warnings: list[str] = []
        got = norm_mod._drop_listed_object(text, code, "f", warnings)
        want, hits = old(text, code)
        dropped += bool(hits)
        assert got[:2] == want[:2] and bool(warnings) == bool(hits), text[:80]
    assert dropped >= 4
