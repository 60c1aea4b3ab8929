"""Differential fuzzing of the fast plain readers against the full Lark parser.

:mod:`toolkit.plain_domain` and :mod:`toolkit.plain_problem` read plain PDDL without
Lark and hand everything else to the full parser. A fast path that accepts something
the grammar refuses, builds a model that differs, or drops a located error, is a bug
the user cannot see (the command just answers differently). So every example here
mutates a real file (shipped domains and problems, the IPC sample) in the ways real
files vary (token swaps, case, comments, whitespace and line ends, dropped or doubled
parentheses, requirement lists, ``either`` types, constants, negative preconditions,
``=``, numbers, unicode) and loads it twice, once as the loader does and once with the
fast reader switched off. Both must give the same model with the same warnings, or the
same errors; and every error about the text must name ``file:line:column``.

Derandomised and bounded (no database, fixed examples): a failure is a regression,
never luck. ``--runslow`` runs a longer, randomised hunt.
"""

from __future__ import annotations

import re
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pddl_mutations import DOMAINS, PREFIXES, PROBLEMS, mutated, names, renamed
from toolkit import loader
from toolkit.errors import DuplicateNameError, PgtError
from toolkit.loader import parse_domain, parse_problem
from toolkit.plain_problem import read_plain_problem

PATH = "fuzz.pddl"
LOCATED = re.compile(re.escape(PATH) + r":\d+:\d+: \S")
FAST = settings(max_examples=120, deadline=None, database=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
HUNT = settings(max_examples=1500, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# ------------------------------------------------------------------ the two paths


def _errors_located(errors: list[str]) -> None:
    for e in errors:
        assert LOCATED.match(e), f"an error without file:line:column: {e!r}"


def _domain_both(text: str) -> tuple[tuple[object, list[str]], tuple[object, list[str]]]:
    def load():
        loaded = loader.read_domain(text, PATH)
        return loaded.model, [str(e) for e in loaded.errors]

    fast = load()
    with mock.patch.object(loader, "read_plain_domain", lambda *_, **__: None):
        full = load()
    return fast, full


def _problem_both(text: str, domain) -> tuple[tuple[object, list[str]], tuple[object, list[str]]]:
    def load():
        loaded = loader.read_problem(text, domain, PATH, "lenient")
        return loaded.model, [str(e) for e in loaded.errors]

    fast = load()
    with mock.patch.object(loader, "read_plain_problem", lambda *_: None):
        full = load()
    return fast, full


def check_domain(text: str) -> None:
    fast, full = _domain_both(text)
    assert fast[1] == full[1], "the two paths report different errors"
    assert fast[0] == full[0], "the two paths build different models"
    _errors_located(fast[1])


def check_problem(text: str, domain) -> None:
    fast, full = _problem_both(text, domain)
    assert fast[1] == full[1], "the two paths report different errors"
    assert fast[0] == full[0], "the two paths build different models"
    _errors_located(fast[1])


_DOMAIN_CACHE: dict[Path, object] = {}


def _domain_of(path: Path):
    if path not in _DOMAIN_CACHE:
        _DOMAIN_CACHE[path] = parse_domain(path.read_text(encoding="utf-8"), str(path))
    return _DOMAIN_CACHE[path]


# ------------------------------------------------------------------ the tests


@FAST
@given(st.data())
def test_mutated_domains_read_the_same_on_both_paths(data) -> None:
    check_domain(data.draw(mutated(data.draw(st.sampled_from(DOMAINS)))))


@FAST
@given(st.data())
def test_mutated_problems_read_the_same_on_both_paths(data) -> None:
    dom, prob = data.draw(st.sampled_from(PROBLEMS))
    check_problem(data.draw(mutated(prob.read_text(encoding="utf-8"))), _domain_of(dom))


@pytest.mark.slow
@HUNT
@given(st.data())
def test_mutated_domains_read_the_same_on_both_paths_long_hunt(data) -> None:
    check_domain(data.draw(mutated(data.draw(st.sampled_from(DOMAINS)))))


@pytest.mark.slow
@HUNT
@given(st.data())
def test_mutated_problems_read_the_same_on_both_paths_long_hunt(data) -> None:
    dom, prob = data.draw(st.sampled_from(PROBLEMS))
    check_problem(data.draw(mutated(prob.read_text(encoding="utf-8"))), _domain_of(dom))


# ------------------------------------------------------------------ regressions the fuzzing found

BW = """(define (domain bw) (:requirements :typing :action-costs) (:types block)
 (:predicates (on ?a ?b - block) (clear ?b - block)) (:functions (total-cost) - number (w ?b - block) - number)
 (:action a :parameters (?x - block) :precondition (clear ?x)
  :effect (and (not (clear ?x)) (increase (total-cost) (w ?x)))))"""
PROBLEM = """(define (problem p) (:domain bw)
 (:objects a b - block)
 (:init (clear a) (on a b) (= (w a) 1) (= (w b) 2.5) (= (total-cost) 0))
 (:goal (and (on b a)))
 (:metric minimize (total-cost)))"""


def _plain_problem(text: str) -> bool:
    norm, _, _ = loader._normalise(text, PATH)
    return read_plain_problem(loader._blank_comments(norm), loader._ROOT) is not None


def test_the_regression_problem_is_plain() -> None:
    assert _plain_problem(PROBLEM)  # so the variants below exercise the plain reader, not only the full parser
    check_problem(PROBLEM, parse_domain(BW, "d.pddl"))


def test_a_number_with_two_dots_in_init_is_a_located_error_not_a_crash() -> None:
    # The grammar's NUMBER takes 1.2.3; the plain reader called float() on it and a ValueError escaped.
    text = PROBLEM.replace("(= (w b) 2.5)", "(= (w b) 2.5.1)")
    assert not _plain_problem(text)
    check_problem(text, parse_domain(BW, "d.pddl"))
    with pytest.raises(PgtError, match=r"^fuzz\.pddl:3:49: "):
        parse_problem(text, parse_domain(BW, "d.pddl"), PATH)


def test_an_object_in_two_spellings_within_one_atom_reads_as_one_object() -> None:
    # Names ignore case: (on a A) is (on a a). The plain reader built the typed a and an untyped A
    # in one atom, which the pddl package refuses with a ValueError (a traceback through every command).
    text = PROBLEM.replace("(on a b)", "(on a A)").replace("(on b a)", "(on B a)")
    assert _plain_problem(text)
    check_problem(text, parse_domain(BW, "d.pddl"))
    problem = parse_problem(text, parse_domain(BW, "d.pddl"), PATH)
    assert {str(a) for a in problem.init} >= {"(on a a)"} and str(problem.goal) == "(on b a)"


CONSTANT_X = """(define (domain c) (:requirements :typing :conditional-effects) (:types block place)
 (:constants x - place) (:predicates (on ?a - block ?b - place) (clear ?b - block))
 (:action a :parameters (?x - block) :precondition (PRE) :effect (and (clear ?x)
  (when (on ?x x) (not (clear ?x))))))"""


@pytest.mark.parametrize(("pre", "error"), [
    ("on ?x x", None),                                                  # a variable and a constant of one name
    ("on ?X X", None),                                                  # in other case
    ("clear ?x x", "fuzz.pddl:3:52: predicate 'clear' takes 1 argument(s), got 2"),  # and an arity fault
])
def test_a_variable_and_a_constant_of_one_name_read_as_two_terms_on_both_paths(pre, error) -> None:
    # PDDL sets ?x and x apart by the "?" (VAL and Fast Downward read them as two terms); the pddl package took
    # them for one and refused the atom ("Term x has inconsistent type tags"), so the full parser's path (here
    # for the conditional effect) refused a good domain, and reported an arity fault as that (the long hunt).
    text = CONSTANT_X.replace("PRE", pre)
    check_domain(text)  # the plain path and the full parser's
    loaded = loader.read_domain(text, PATH)
    assert [str(e) for e in loaded.errors] == ([error] if error else [])
    if error is None:
        assert str(loaded.model.actions["a"].precondition) == f"({pre.split()[0]} ?x x)"
        assert str(loaded.model.actions["a"].params) == "(('?x', ('block',)),)"


def test_objects_declared_twice_in_two_cases_give_the_same_model_and_error_on_both_paths() -> None:
    # The plain reader kept both a and A, the full parser one object: the partial models that lint
    # goes on checking differed.
    text = PROBLEM.replace("a b - block", "a b A - block")
    assert not _plain_problem(text)
    check_problem(text, parse_domain(BW, "d.pddl"))
    with pytest.raises(DuplicateNameError, match=r"^fuzz\.pddl:2:16: name 'A' is declared more than once"):
        parse_problem(text, parse_domain(BW, "d.pddl"), PATH)


# ------------------------------------------------------------------ renaming changes nothing but the name


def _shape(model) -> tuple[int, ...]:
    """What a consistent renaming must keep: how many types, constants, predicates, actions (or objects, init atoms)."""
    if hasattr(model, "actions"):
        return len(model.types), len(model.constants), len(model.predicates), len(model.actions)
    return len(model.objects), len(model.init), len(model.function_values)


def check_renaming(domain: str, problem: str, old: str, new: str) -> None:
    """Renaming ``old`` to ``new`` in both files keeps a clean pair clean, with the same shape, on both paths."""
    before = loader.read_domain(domain, PATH), None
    d2, p2 = renamed((domain, problem), old, new)
    check_domain(d2)
    after = loader.read_domain(d2, PATH)
    assert bool(after.errors) == bool(before[0].errors), [str(e) for e in after.errors]
    if before[0].errors:
        return
    assert _shape(after.model) == _shape(before[0].model)
    check_problem(p2, after.model)
    p_before, p_after = loader.read_problem(problem, before[0].model, PATH), loader.read_problem(p2, after.model, PATH)
    assert [str(e).replace(new, old) for e in p_after.errors] == [str(e) for e in p_before.errors]
    if not p_before.errors:
        assert _shape(p_after.model) == _shape(p_before.model)


@st.composite
def renaming(draw) -> tuple[str, str, str, str]:
    dom, prob = draw(st.sampled_from(PROBLEMS))
    domain, problem = dom.read_text(encoding="utf-8"), prob.read_text(encoding="utf-8")
    old = draw(st.sampled_from(names(domain, problem)))
    new = draw(st.sampled_from([p + old for p in PREFIXES] + [old.upper(), old.title(), old + "-object"]))
    return domain, problem, old, new


@FAST
@given(renaming())
def test_renaming_a_name_consistently_changes_nothing_but_the_name(case) -> None:
    check_renaming(*case)


@pytest.mark.slow
@HUNT
@given(renaming())
def test_renaming_a_name_consistently_long_hunt(case) -> None:
    check_renaming(*case)


KEYWORD_PREFIXED = """(define (domain d) (:requirements :typing)
 (:types thing object-kind - object)
 (:predicates (assign-task ?x - object-kind) (oneof-x ?x - thing) (AND-gate ?x - thing))
 (:action decrease-fuel :parameters (?x - object-kind) :precondition (assign-task ?x) :effect (not (assign-task ?x))))"""


def test_names_that_start_with_a_keyword_are_names() -> None:
    # A type object-kind was renamed to the loader's placeholder for object ("unknown type
    # 'pgtrootobject-kind'", unlocated), (assign-task ?x) refused as a numeric assign effect,
    # (AND-gate ...) reported as an upper-case keyword.
    check_domain(KEYWORD_PREFIXED)
    domain = parse_domain(KEYWORD_PREFIXED, PATH)
    assert domain.types == {"thing": "object", "object-kind": "object"} and not domain.warnings
    assert set(domain.predicates) == {"assign-task", "oneof-x", "AND-gate"} and set(domain.actions) == {"decrease-fuel"}
    problem = "(define (problem p) (:domain d) (:objects k - object-kind) (:init (assign-task k)) (:goal (not (assign-task k))))"
    check_problem(problem, domain)
    assert parse_problem(problem, domain, PATH).objects == {"k": "object-kind"}


def test_an_equality_as_an_effect_is_refused_where_it_is() -> None:
    # The refusal named the file only ("fuzz.pddl: unsupported PDDL feature effect EqualTo (...)").
    text = BW.replace("(not (clear ?x))", "(not (= ?x ?x))")
    check_domain(text)
    with pytest.raises(PgtError, match=r"^fuzz\.pddl:4:16: unsupported PDDL feature effect \(not \(= \?x \?x\)\)"):
        parse_domain(text, PATH)


def test_a_type_written_against_its_dash_is_located() -> None:
    # "home office -K location" declares objects of type K: the unknown type was reported without a
    # position (the name pattern refuses a name right after "-").
    text = PROBLEM.replace("a b - block", "a b -blok")
    check_problem(text, parse_domain(BW, "d.pddl"))
    with pytest.raises(PgtError, match=r"^fuzz\.pddl:2:16: unknown type 'blok'; did you mean block\?"):
        parse_problem(text, parse_domain(BW, "d.pddl"), PATH)
