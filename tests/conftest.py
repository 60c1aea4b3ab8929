"""Shared test options: ``slow`` and ``live`` tests are opt-in."""

from __future__ import annotations

import os
import sys
import tempfile

import pytest

# Tests never read or fill the user's store of unified-planning answers (toolkit/planners/plan_store.py):
# one store per test session, shared by its xdist workers' subprocesses through the environment.
os.environ.setdefault("PGT_UP_PLAN_STORE", os.path.join(tempfile.mkdtemp(prefix="pgt-test-plans-"), "plans.sqlite"))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--runslow", action="store_true", help="run tests marked slow")
    parser.addoption("--live", action="store_true", help="run tests that need a real model endpoint")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if "slow" in item.keywords and not config.getoption("--runslow"):
            item.add_marker(pytest.mark.skip(reason="slow: use --runslow"))
        if "live" in item.keywords and not config.getoption("--live"):
            item.add_marker(pytest.mark.skip(reason="live: use --live"))


@pytest.fixture(autouse=True)
def _no_ray_left_in_this_process():
    """A test must not leave a Ray cluster running in the test process: Ray's threads stay, and a study
    forked later in the same process can deadlock on their locks (how CI once hung). Run Ray in a
    subprocess (``pgt run --executor ray``) instead."""
    yield
    ray = sys.modules.get("ray")
    if ray is not None and getattr(ray, "is_initialized", lambda: False)() is True:
        ray.shutdown()
        pytest.fail("this test left Ray running in the test process; run it in a subprocess")
