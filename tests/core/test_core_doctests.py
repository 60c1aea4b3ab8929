"""The examples in docstrings run, so they cannot drift from the code."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import toolkit

MODULES = sorted(m.name for m in pkgutil.walk_packages(toolkit.__path__, "toolkit."))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} docstring examples fail"
