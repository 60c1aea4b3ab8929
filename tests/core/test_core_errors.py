"""Every loader error path, with its message pinned: located syntax errors,
unknown names with did-you-mean, arity and type errors, unsupported features,
unreadable files; and the lenient paths that warn instead of refusing."""

from __future__ import annotations

import pytest

from toolkit.domains import shipped_domain, shipped_problem
from toolkit.errors import (
    ArityError,
    DuplicateNameError,
    PddlSyntaxError,
    PgtError,
    TypeMismatchError,
    UnknownSymbolError,
    UnsupportedFeatureError,
)
from toolkit.loader import load_domain, load_problem, parse_domain, parse_problem, read_domain

BW = shipped_domain("blocksworld").read_text()
PROB = shipped_problem("blocksworld", "simple_problem_0").read_text()
DOMAIN = parse_domain(BW, "bw.pddl")
SUPPORTED = ("pgt supports STRIPS, typing, negative/disjunctive/quantified preconditions, "
             "equality, conditional effects (ADL), action costs, numeric fluents and derived predicates")
COSTS = "  (:functions (total-cost) - number (fuel ?b - block) - number)\n  (:action"


def _cost_domain(old: str, new: str) -> str:
    """The blocksworld domain with action-cost functions declared, ``old`` replaced by ``new``."""
    return _domain("  (:action", COSTS).replace(old, new, 1)


def _domain(old: str, new: str) -> str:
    assert old in BW
    return BW.replace(old, new, 1)


def _problem(old: str, new: str) -> str:
    assert old in PROB
    return PROB.replace(old, new, 1)


# ------------------------------------------------------------ syntax


@pytest.mark.parametrize(("text", "message"), [
    (_domain("(clear ?b1) (not", "(clear ?b1 (not"),
     "bw.pddl:16:35: unexpected '('; expected ')', '?' or a name"),
    (_domain(":parameters", ":parameter"), "bw.pddl:15:5: unexpected character ':'"),
    (BW.rstrip()[:-1], "bw.pddl:30:1: unexpected end of file (1 unclosed parenthesis)"),
    ("", "bw.pddl:1:1: unexpected end of file"),
    ("(define (problem p))", "bw.pddl:1:10: unexpected 'problem'; expected 'domain'"),
])
def test_syntax_errors_name_file_line_and_column(text: str, message: str) -> None:
    with pytest.raises(PddlSyntaxError) as err:
        parse_domain(text, "bw.pddl")
    assert str(err.value) == message
    assert err.value.path == "bw.pddl" and err.value.line == int(message.split(":")[1])


def test_deep_nesting_is_a_syntax_error_not_a_crash() -> None:
    deep = "(not " * 3000 + "(q)" + ")" * 3000
    text = f"(define (domain d) (:predicates (q)) (:action a :parameters () :precondition {deep}))"
    deepest = text.rindex("(q)") + 1  # the column of the innermost parenthesis
    with pytest.raises(PddlSyntaxError, match=rf"^d.pddl:1:{deepest}: formulas nested too deeply \(3003 levels"):
        parse_domain(text, "d.pddl")


# ------------------------------------------------------------ names, arity, types


@pytest.mark.parametrize(("text", "kind", "message"), [
    (_domain("(clear ?b1) (not", "(cleer ?b1) (not"), "predicate",
     "bw.pddl:16:24: unknown predicate 'cleer'; did you mean clear?"),
    (_domain("?c1 - column)", "?c1 - colum)"), "type", "bw.pddl:15:34: unknown type 'colum'; did you mean column?"),
    (_domain("(clear ?b1) (not", "(clear ?b3) (not"), "variable",
     "bw.pddl:16:31: unknown variable '?b3'; did you mean ?b1?"),
])
def test_unknown_names_in_domains_suggest_the_closest(text: str, kind: str, message: str) -> None:
    with pytest.raises(UnknownSymbolError) as err:
        parse_domain(text, "bw.pddl")
    assert str(err.value) == message
    assert err.value.kind == kind and err.value.suggestions


@pytest.mark.parametrize(("old", "new", "kind", "message"), [
    ("(clear r)", "(clear rr)", "object", "p.pddl:12:12: unknown object 'rr'; did you mean r?"),
    ("(clear r)", "(clearr r)", "predicate", "p.pddl:12:5: unknown predicate 'clearr'; did you mean clear?"),
    ("- block", "- blok", "type", "p.pddl:6:13: unknown type 'blok'; did you mean block?"),
])
def test_unknown_names_in_problems_suggest_the_closest(old: str, new: str, kind: str, message: str) -> None:
    with pytest.raises(UnknownSymbolError) as err:
        parse_problem(_problem(old, new), DOMAIN, "p.pddl")
    assert str(err.value) == message and err.value.kind == kind


def test_wrong_arity_points_at_the_use() -> None:
    with pytest.raises(ArityError, match=r"^bw.pddl:16:24: predicate 'clear' takes 1 argument\(s\), got 2$") as err:
        parse_domain(_domain("(clear ?b1) (not", "(clear ?b1 ?c1) (not"), "bw.pddl")
    assert (err.value.expected, err.value.got) == (1, 2)
    with pytest.raises(ArityError, match=r"^p.pddl:12:5: predicate 'clear' takes 1 argument\(s\), got 2$"):
        parse_problem(_problem("(clear r)", "(clear r c1)"), DOMAIN, "p.pddl")


def test_wrong_type_in_the_initial_state() -> None:
    with pytest.raises(TypeMismatchError, match=r"^p.pddl:12:5: object 'c1' has type column, expected block$"):
        parse_problem(_problem("(clear r)", "(clear c1)"), DOMAIN, "p.pddl")


# ------------------------------------------------------------ unsupported features


@pytest.mark.parametrize(("text", "feature", "where"), [
    (_domain("(:action moveBlock", "(:durative-action moveBlock"), "durative actions (:durative-action)", "14:4"),
    (_domain("(clear ?b1)))", "(clear ?b1) (oneof (clear ?b1) (clear ?b1))))"),
     "non-deterministic effects (oneof)", "29:19"),
])
def test_unsupported_features_are_refused_with_a_clear_message(text: str, feature: str, where: str) -> None:
    with pytest.raises(UnsupportedFeatureError) as err:
        parse_domain(text, "bw.pddl")
    assert str(err.value) == f"bw.pddl:{where}: unsupported PDDL feature {feature}; {SUPPORTED}"
    assert err.value.feature == feature


def test_unsupported_problem_features_are_refused() -> None:
    cost_domain = parse_domain(_cost_domain("", ""), "bw.pddl")
    with pytest.raises(PddlSyntaxError, match=r"^p.pddl:12:15: the initial \(total-cost\) must be 0, not 3$"):
        parse_problem(_problem("(clear r)", "(clear r) (= (total-cost) 3)"), cost_domain, "p.pddl")


# ------------------------------------------------------------ files


def test_unreadable_files(tmp_path) -> None:
    with pytest.raises(PgtError, match=r"^cannot read /nonexistent/d.pddl: No such file or directory$"):
        load_domain("/nonexistent/d.pddl")
    with pytest.raises(PgtError, match=r"^cannot read .*: Is a directory$"):
        load_domain(tmp_path)
    binary = tmp_path / "bin.pddl"
    binary.write_bytes(b"\x7fELF\x02\x01\x00\x00\xff")
    with pytest.raises(PgtError, match=r"^.*bin.pddl: is a binary file, not text$"):
        load_problem(binary, DOMAIN)


# ------------------------------------------------------------ lenient paths


def test_upper_case_keywords_are_accepted_silently_with_a_lint_note() -> None:
    domain = parse_domain(_domain("(:action moveBlock", "(:ACTION moveBlock").replace("(and (clear", "(AND (clear"),
                          "bw.pddl")
    assert domain == DOMAIN
    assert domain.warnings == ()  # PDDL is case-insensitive: nothing to warn about
    assert domain.notes == ("bw.pddl: keywords in upper case normalised (:ACTION, AND)",)


def test_undeclared_requirements_are_accepted_with_a_warning() -> None:
    domain = parse_domain(_domain(" :conditional-effects", ""), "bw.pddl")
    assert domain.actions == DOMAIN.actions
    assert domain.warnings == ("bw.pddl: uses :conditional-effects without declaring it in :requirements",)
    bare = parse_domain(_domain("(:requirements :strips :typing :negative-preconditions :conditional-effects :equality)",
                                ""), "bw.pddl")
    assert bare.actions == DOMAIN.actions
    assert bare.warnings == (
        "bw.pddl: uses :conditional-effects without declaring it in :requirements",
        "bw.pddl: uses :equality without declaring it in :requirements",
        "bw.pddl: uses :negative-preconditions without declaring it in :requirements",
        "bw.pddl: uses types without declaring :typing in :requirements",
    )


def test_omitted_or_empty_precondition_and_effect_mean_none() -> None:
    for body in (":effect (q)", ":precondition () :effect (q)", ":precondition (and) :effect (and (q))"):
        domain = parse_domain(f"(define (domain d) (:predicates (q)) (:action a :parameters () {body}))")
        assert str(domain.actions["a"].precondition) == "(and)"
    assert str(parse_domain("(define (domain d) (:predicates (q)) (:action a :parameters ()))").actions["a"].effect) == "(and)"


def test_problem_goals_may_use_quantifiers_and_equality_undeclared() -> None:
    problem = parse_problem("(define (problem p) (:domain blocksworld) (:objects a b - block c - column) (:init)"
                            " (:goal (and (forall (?x - block) (exists (?k - column) (inColumn ?x ?k)))"
                            " (not (= a b)))))", DOMAIN, "p.pddl")
    assert str(problem.goal) == "(and (forall (?x - block) (exists (?k - column) (inColumn ?x ?k))) (not (= a b)))"


def test_cost_function_errors_point_at_the_use() -> None:
    with pytest.raises(UnknownSymbolError, match=r"^bw.pddl:30:19: unknown function 'fuels'; did you mean fuel\?$"):
        parse_domain(_cost_domain("(clear ?b1)))", "(clear ?b1) (increase (total-cost) (fuels ?b1))))"), "bw.pddl")
    with pytest.raises(ArityError, match=r"^bw.pddl:30:19: function 'fuel' takes 1 argument\(s\), got 2$"):
        parse_domain(_cost_domain("(clear ?b1)))", "(clear ?b1) (increase (total-cost) (fuel ?b1 ?b1))))"), "bw.pddl")
    cost_domain = parse_domain(_cost_domain("", ""), "bw.pddl")
    with pytest.raises(ArityError, match=r"^p.pddl:12:15: function 'fuel' takes 1 argument\(s\), got 2$"):
        parse_problem(_problem("(clear r)", "(clear r) (= (fuel r r) 3)"), cost_domain, "p.pddl")


def test_two_actions_with_one_name_are_refused_at_the_second() -> None:
    text = ("(define (domain d) (:predicates (p))\n"
            " (:action go :parameters () :precondition (p) :effect (not (p)))\n"
            " ; (:action go ...) in a comment does not count\n"
            " (:action GO :parameters () :effect (p)))\n")
    with pytest.raises(DuplicateNameError) as info:
        parse_domain(text, "d.pddl")
    assert str(info.value) == "d.pddl:4:11: action 'GO' is declared more than once"


def test_either_types_of_two_predicates_are_no_predicate_declared_twice() -> None:
    """Only a declaration's own name counts: two predicates typed ``(either a b)`` once read as two
    declarations of a predicate ``either``; a real repeat (``P`` after ``p``) is still found."""
    text = ("(define (domain d) (:requirements :typing) (:types a b)\n"
            " (:predicates (p ?x - (either a b)) (q ?y - (either a b)))\n"
            " (:action go :parameters (?x - a) :precondition (p ?x) :effect (not (p ?x))))\n")
    assert [str(e) for e in read_domain(text, "d.pddl").errors] == []
    twice = text.replace("(q ?y", "(P ?y")
    assert [str(e) for e in read_domain(twice, "d.pddl").errors] == ["d.pddl:2:38: predicate 'P' is declared more than once"]


def test_a_byte_order_mark_is_skipped(tmp_path) -> None:
    path = tmp_path / "bw.pddl"
    path.write_text("\ufeff" + BW, encoding="utf-8")
    assert load_domain(path).actions == DOMAIN.actions


def test_cost_function_values_in_init_are_type_checked_and_located() -> None:
    cost_domain = parse_domain(_cost_domain("", ""), "bw.pddl")
    with pytest.raises(TypeMismatchError, match=r"^p.pddl:12:18: object 'c1' has type column, expected block$"):
        parse_problem(_problem("(clear r)", "(clear r) (= (fuel c1) 3)"), cost_domain, "p.pddl")
    problem = parse_problem(_problem("(clear r)", "(clear r) (= (fuel c1) 3)"), cost_domain, "p.pddl", "lenient")
    assert any("object 'c1' has type column, expected block in (fuel c1)" in w for w in problem.warnings)
    # the second of two uses is the one located
    with pytest.raises(ArityError, match=r"^p.pddl:12:30: function 'fuel' takes 1 argument\(s\), got 2"):
        parse_problem(_problem("(clear r)", "(clear r) (= (fuel r) 3) (= (fuel r r) 3)"), cost_domain, "p.pddl")


# ------------------------------------------------------------ what earlier sessions found unclear

TYPED = """(define (domain t) (:requirements :typing :action-costs)
 (:types block)
 (:predicates (p ?x - block))
 (:functions (total-cost) - number)
 (:action a :parameters (?x - block) :precondition (p ?x) :effect (and (not (p ?x)) (increase (total-cost) 1))))"""


@pytest.mark.parametrize("spelled", ["(either block object)", "(either Object block)", "Object", "OBJECT"])
def test_object_is_the_root_type_in_any_case_and_inside_either(spelled: str) -> None:
    # (either block object) leaked the pddl package's own message at 1:1 ("types ['block', 'object'] of
    # term Variable(x) are not in available types {'block'}"); Object was an unknown type.
    domain = parse_domain(TYPED.replace("(?x - block) :pre", f"(?x - {spelled}) :pre"), "d.pddl")
    assert domain.actions["a"].params[0][1] in (("block", "object"), ("object",))


@pytest.mark.parametrize("either", ["(either block blok)", "(either blok object)"])
def test_an_unknown_type_in_either_is_a_located_pgt_error(either: str) -> None:
    with pytest.raises(UnknownSymbolError) as err:
        parse_domain(TYPED.replace("(?x - block) :pre", f"(?x - {either}) :pre"), "d.pddl")
    assert str(err.value) == "d.pddl:5:29: unknown type 'blok'; did you mean block?"


def test_an_undeclared_type_is_the_only_error_not_number_as_well() -> None:
    # The repair scanned every "- name" for the first undeclared type and met (:functions ... - number).
    loaded = read_domain(TYPED.replace("(?x - block) :pre", "(?x - blok) :pre"), "d.pddl")
    assert [str(e) for e in loaded.errors] == ["d.pddl:5:29: unknown type 'blok'; did you mean block?"]


NOT_A_NUMBER = "is not a number: PDDL numbers are digits with at most one decimal point, such as 3 or 1.5"


@pytest.mark.parametrize("number", ["1.2.3", "1.", ".5", "+1", "1e3", "2.5E-1"])
def test_a_malformed_number_is_named_where_it_is(number: str) -> None:
    # 1.2.3 gave "could not convert string to float: Token('NUMBER', '1.2.3')"; 1e3 "unexpected 'e3'".
    text = TYPED.replace("(total-cost) 1)", f"(total-cost) {number})")
    with pytest.raises(PddlSyntaxError) as err:
        parse_domain(text, "d.pddl")
    line = text.split("\n")[4]
    assert str(err.value) == f"d.pddl:5:{line.index(number) + 1}: '{number}' {NOT_A_NUMBER}"


def test_a_malformed_number_in_init_is_named_where_it_is() -> None:
    domain = parse_domain(TYPED, "d.pddl")
    text = "(define (problem q) (:domain t) (:objects b - block)\n (:init (p b) (= (total-cost) 1.2.3))\n (:goal (p b)))"
    with pytest.raises(PddlSyntaxError, match=rf"^p\.pddl:2:31: '1\.2\.3' {NOT_A_NUMBER}$"):
        parse_problem(text, domain, "p.pddl")


@pytest.mark.parametrize("spelled", ["Number", "NUMBER"])
def test_a_function_value_type_in_upper_case_is_read(spelled: str) -> None:
    # "(total-cost) - Number" was refused: "unexpected 'Number'; expected one of TYPE_NUMBER".
    domain = parse_domain(TYPED.replace("- number", f"- {spelled}"), "d.pddl")
    assert "total-cost" in domain.functions and not domain.warnings
    assert domain.notes == (f"d.pddl: keywords in upper case normalised (- {spelled})",)


@pytest.mark.parametrize("types", ["(:types)", ""])
def test_types_used_but_none_declared_is_a_located_pgt_error(types: str) -> None:
    # An empty (:types) leaked the package's "types ['block'] of term Variable(x) are not in available
    # types set()" at 1:1.
    with pytest.raises(UnknownSymbolError, match=r"^d\.pddl:3:21: unknown type 'block'"):
        parse_domain(TYPED.replace("(:types block)", types), "d.pddl")


@pytest.mark.parametrize(("old", "new", "message"), [
    # The package merged a parameter listed twice with one type: an action of two parameters took one argument.
    ("(?x - block) :pre", "(?x - block ?x - block) :pre", "d.pddl:5:37: parameter '?x' is declared more than once"),
    ("(?x - block) :pre", "(?x ?X - block) :pre", "d.pddl:5:29: parameter '?X' is declared more than once"),
    ("(?x - block) :pre", "(?x - block ?x) :pre", "d.pddl:5:37: parameter '?x' is declared more than once"),
    ("(p ?x - block))", "(p ?x - block ?x))", "d.pddl:3:29: variable '?x' is declared more than once"),
    (":precondition (p ?x)", ":precondition (forall (?y ?y - block) (p ?x))",
     "d.pddl:5:64: variable '?y' is declared more than once"),
])
def test_a_variable_listed_twice_is_a_located_duplicate(old: str, new: str, message: str) -> None:
    # With two types it leaked "error while parsing tokens ['x', '-', ['block'], 'x']: invalid types for item 'x'".
    with pytest.raises(DuplicateNameError) as err:
        parse_domain(TYPED.replace(old, new), "d.pddl")
    assert str(err.value) == message


@pytest.mark.parametrize(("types", "cycle"), [("block - thing thing - block", "block -> thing -> block"),
                                              ("a - b b - c c - a block", "a -> b -> c -> a")])
def test_a_cycle_of_types_is_named_where_the_types_are(types: str, cycle: str) -> None:
    # It said "d.pddl:1:1: cycle detected in the type hierarchy: block -> thing".
    with pytest.raises(PgtError) as err:
        parse_domain(TYPED.replace("(:types block)", f"(:types {types})"), "d.pddl")
    assert str(err.value) == f"d.pddl:2:10: the types form a cycle ({cycle}); a type cannot be its own ancestor"


def test_variables_spelled_like_keywords_are_read() -> None:
    # PDDL sets variables apart with "?": (holding ?object) is common in embodied domains, and the
    # package refused it ("invalid name 'object': it is a keyword").
    text = TYPED.replace("?x", "?object").replace("(p ?object - block)", "(p ?AND - block)")
    domain = parse_domain(text.replace("(p ?object) :effect", "(and (p ?object) (forall (?domain - block) (p ?domain))) :effect"),
                          "d.pddl")
    assert domain.predicates["p"].params == (("?AND", ("block",)),)
    assert domain.actions["a"].params == (("?object", ("block",)),)
    assert str(domain.actions["a"].precondition) == "(and (p ?object) (forall (?domain - block) (p ?domain)))"
    assert parse_domain("; Thi\u00e9baux\n" + text, "d.pddl").actions == parse_domain("\n" + text, "d.pddl").actions
    with pytest.raises(UnknownSymbolError, match=r"^d\.pddl:5:90: unknown variable '\?objec'; did you mean \?object\?"):
        parse_domain(text.replace("(not (p ?object))", "(not (p ?objec))"), "d.pddl")


@pytest.mark.parametrize("text", [
    "(define (domain t) (:predicates (p ?x)) (:action a :parameters (?x - ) :effect (p ?x)))",
    "(define (domain t) (:types b) (:predicates (p ?x - object)) (:action a :parameters (?x - object ?y - ) :effect (p ?x)))",
    "(define (domain t) (:predicates (p ?object)) (:action a :parameters (?object - ) :effect (p ?object)))",
])
def test_a_syntax_error_on_a_one_line_file_points_into_the_line(text: str) -> None:
    # Columns came from the normalised text, which gains the granted requirements (and placeholders for
    # object and keyword-named variables) on the first line: an LLM's one-line domain got 1:300 and more.
    with pytest.raises(PddlSyntaxError) as err:
        parse_domain(text, "d.pddl")
    assert err.value.line == 1 and text[err.value.column - 1:].startswith(") :effect")


def test_a_repeated_unknown_name_is_matched_once() -> None:
    """A reply repeating one unknown step 240,000 times asked difflib for each (48 of 94 s of the fuzz
    suite's 1 MB plan); the suggestions are now kept per (name, known names)."""
    from toolkit.errors import _closest, closest

    _closest.cache_clear()
    for _ in range(5):
        assert closest("moveblok", ["moveBlock", "clear"]) == ["moveBlock"]
    assert closest("moveblok", ["moveBlock", "clear", "moveBlocks"]) == ["moveBlock", "moveBlocks"]
    assert _closest.cache_info().misses == 2  # another list of known names is asked again
