"""Work that depends on a domain's action schemas alone, kept per :class:`~toolkit.model.Domain` object.

Why: a :class:`toolkit.task.Task` grounds its actions on first use, and in a numeric
task each schema's first ground action generated the text of the schema's compiled
code (:mod:`toolkit.fluent_shared`): about 60 us a schema, most of checking a short plan
(IPC's drone: 6 schemas for a 9-step plan). That text, like the analysis of a schema's
precondition into literals and comparisons, is a property of the schema, not of the
problem: every task of the domain (``pgt validate-batch`` over many problems, a study's
thousands of episodes) makes the same. It is kept here, per Domain object, and each
task binds it to its own objects, atoms and fluents.

Nothing here refers to a task or a problem (a task stays free of reference cycles,
``tests/core/test_core_task_freeing.py``); the memo goes when its domain goes.
"""

from __future__ import annotations

import weakref
from typing import Any

from toolkit import model as m


class DomainMemo:
    """One domain's per-schema work, by schema name: ``templates`` (the schema's template skeleton,
    :meth:`toolkit.templates.ActionTemplate.skeleton`, or None), ``updates`` (its numeric effects,
    :class:`toolkit.fluent_effects.UpdateTemplate`) and ``code`` (its shared generated code,
    :class:`toolkit.fluent_shared.SchemaCode`), ``tiers`` (its step function's factory,
    :mod:`toolkit.action_tier`); ``fits``, whether an object of a type may stand for
    a parameter of some types ((type, parameter types) -> bool: the domain's type hierarchy decides);
    and ``plain``, each schema with the types of object found to fit each of its parameters, as
    :meth:`toolkit.task.Task.action`'s common path reads them (None until a task makes it)."""

    __slots__ = ("templates", "updates", "code", "fits", "tiers", "plain")

    def __init__(self) -> None:
        self.templates: dict[str, Any] = {}
        self.updates: dict[str, Any] = {}
        self.code: dict[str, Any] = {}
        self.fits: dict[tuple[str, tuple[str, ...]], bool] = {}
        # (schema name, numeric task) -> the schema's step function's factory and parameters, or None
        # (toolkit.action_tier)
        self.tiers: dict[tuple[str, bool], Any] = {}
        self.plain: dict[str, Any] | None = None


_MEMOS: dict[int, DomainMemo] = {}  # id(domain) -> its memo, dropped when the domain is freed


def domain_memo(domain: m.Domain) -> DomainMemo:
    """The memo of ``domain`` (made on first use; a Domain is immutable, so the memo never goes stale)."""
    memo = _MEMOS.get(id(domain))
    if memo is None:
        memo = _MEMOS[id(domain)] = DomainMemo()
        weakref.finalize(domain, _MEMOS.pop, id(domain), None)
    return memo
