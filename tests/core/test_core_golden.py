"""Every shipped domain's golden plans behave as recorded.

Valid plans (``golden/valid/<problem>.plan``) must be valid; every invalid case in
``golden/invalid/cases.toml`` must fail at the recorded step, for the recorded
reason, with the recorded unmet atoms (precondition literals, or goal literals
when the reason is ``goal_unmet``).
"""

from __future__ import annotations

import tomllib

import pytest

from core_support import shipped_task
from toolkit.domains import DOMAINS_ROOT
from toolkit.verify import check_plan

VALID = sorted(DOMAINS_ROOT.glob("*/golden/valid/*.plan"))
CASES = [
    (toml.parent.parent.parent.name, name, case)
    for toml in sorted(DOMAINS_ROOT.glob("*/golden/invalid/cases.toml"))
    for name, case in tomllib.loads(toml.read_text()).items()
]


def test_there_are_golden_plans_for_every_domain() -> None:
    domains = {p.parent.name for p in DOMAINS_ROOT.glob("*/domain.pddl")}
    assert domains
    assert {p.parent.parent.parent.name for p in VALID} == domains
    assert {d for d, _, _ in CASES} == domains


@pytest.mark.parametrize("plan", VALID, ids=lambda p: f"{p.parent.parent.parent.name}/{p.stem}")
def test_golden_valid_plan_is_valid(plan) -> None:
    domain = plan.parent.parent.parent.name
    report = check_plan(shipped_task(domain, plan.stem), plan.read_text())
    assert report.valid, report.message
    assert report.failed_step is None and report.reason is None
    assert report.message.startswith("plan valid")


@pytest.mark.parametrize(("domain", "name", "case"), CASES, ids=[f"{d}/{n}" for d, n, _ in CASES])
def test_golden_invalid_plan_fails_as_recorded(domain: str, name: str, case: dict) -> None:
    plan = DOMAINS_ROOT / domain / "golden" / "invalid" / f"{name}.plan"
    report = check_plan(shipped_task(domain, case["problem"]), plan.read_text())
    assert not report.valid
    assert report.failed_step == case["failing_step"], report.message
    assert report.reason.value == case["reason"], report.message
    got = list(report.goal_unmet) if case["reason"] == "goal_unmet" else list(report.unmet)
    assert got == case.get("unmet", []), report.message
    assert report.message.startswith(f"step {case['failing_step']}")
