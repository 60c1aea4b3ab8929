"""Frozensets as small as CPython makes them, for structures kept by the million.

It imports nothing from the toolkit, so that a peer's measuring process may use it without loading
pgt's modules into the memory it measures (``benchmarks/grounding_diff.py``'s Fast Downward side).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

T = TypeVar("T")

EMPTY: frozenset = frozenset()


def compact_set(items: Iterable[T]) -> frozenset[T]:
    """``frozenset(items)``, as small as CPython makes it: the one shared empty set, and a table sized for its
    items. Why: ground actions are kept by the million (caldera-sat18 p12: 923,681), and a frozenset built
    from a list grows its table as a set being filled does, to four times its size, while one built from a
    set is sized for its elements (``set_merge`` in CPython's ``Objects/setobject.c``): caldera's ``wmic``
    precondition of 22 atoms takes 1,240 bytes instead of 2,264, and an empty set none instead of 216."""
    if items.__class__ is list:
        if not items:
            return EMPTY
        if len(items) < 5:  # under 5 items: 8 slots either way, and no set built first
            return frozenset(items)
    got = set(items)
    return frozenset(got) if got else EMPTY
