"""Fuzz tests (Hypothesis): random and mutated PDDL and plan text.

Whatever the input, loading ends in a model or in one of the toolkit's own
classified errors (:class:`~toolkit.errors.PgtError` subclasses), never a bare
traceback; ``check_plan`` never raises for plan text, it returns a report. The
edits are the shared ones of pddl_mutations.py.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core_support import shipped_pairs, shipped_task
from pddl_mutations import CHARACTERS, mutated
from toolkit.domains import DOMAINS_ROOT
from toolkit.errors import PgtError
from toolkit.loader import load_domain, parse_domain, parse_problem
from toolkit.verify import PlanReport, check_plan

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
DOMAIN_FILES = sorted(DOMAINS_ROOT.glob("*/domain.pddl"))
DOMAIN_TEXTS = [p.read_text() for p in DOMAIN_FILES]
PROBLEMS = [(load_domain(p.parent.parent / "domain.pddl"), p.read_text()) for p in sorted(DOMAINS_ROOT.glob("*/problems/*.pddl"))]
PLANS = sorted(DOMAINS_ROOT.glob("*/golden/*/*.plan"))


def _load_or_classified_error(load) -> None:
    try:
        load()
    except PgtError as exc:
        assert str(exc)  # a message, never an empty error


@SETTINGS
@given(st.data())
def test_mutated_domains_load_or_fail_with_a_toolkit_error(data) -> None:
    text = data.draw(mutated(data.draw(st.sampled_from(DOMAIN_TEXTS))))
    _load_or_classified_error(lambda: parse_domain(text, "fuzz.pddl"))


@SETTINGS
@given(st.data())
def test_mutated_problems_load_or_fail_with_a_toolkit_error(data) -> None:
    domain, text = data.draw(st.sampled_from(PROBLEMS))
    text = data.draw(mutated(text))
    _load_or_classified_error(lambda: parse_problem(text, domain, "fuzz.pddl"))


@SETTINGS
@given(st.text(alphabet=st.sampled_from(CHARACTERS), max_size=200) | st.text(max_size=100))
def test_random_text_as_pddl_fails_with_a_toolkit_error(text: str) -> None:
    _load_or_classified_error(lambda: parse_domain(text, "fuzz.pddl"))
    _load_or_classified_error(lambda: parse_problem(text, PROBLEMS[0][0], "fuzz.pddl"))
    _load_or_classified_error(lambda: parse_domain("(define (domain d) " + text + ")", "fuzz.pddl"))


def _never_raises(task, text: str) -> None:
    for keep_going in (False, True):
        report = check_plan(task, text, keep_going=keep_going)
        assert isinstance(report, PlanReport)
        assert report.valid or (report.failed_step is not None and report.reason is not None and report.message)
        json.dumps(report.to_json())


TASKS = [shipped_task(d, p) for d, p in shipped_pairs()]


@SETTINGS
@given(st.data())
def test_mutated_plans_always_give_a_report(data) -> None:
    plan = data.draw(st.sampled_from(PLANS))
    task = data.draw(st.sampled_from(TASKS))
    _never_raises(task, data.draw(mutated(plan.read_text())))


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(
        st.sampled_from(["plan", "action", "name", "parameters", "args", "steps", "x"]), children, max_size=4),
    max_leaves=12,
)


@SETTINGS
@given(st.sampled_from(TASKS), st.text(max_size=200) | JSONISH.map(json.dumps))
def test_random_plan_text_and_json_always_give_a_report(task, text: str) -> None:
    _never_raises(task, text)
    _never_raises(task, f"```json\n{text}\n```")
