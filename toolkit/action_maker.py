"""A task's ground actions made from its schemas (split from :mod:`toolkit.task`).

:class:`ActionMaker` holds what making a ground action needs (the task's objects, atom
table, fluent index, derived rules and the domain's per-schema memo) and no reference to
the task itself, so the deferred ground actions it makes, which keep it until their parts
are built, put no task on a reference cycle (``tests/core/test_core_task_freeing.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolkit import model as m
from toolkit.action_tier import Numbers, TierStep, bind, tier_source
from toolkit.derived import DerivedRules
from toolkit.fluent_effects import UpdateTemplate
from toolkit.fluent_shared import SchemaCode
from toolkit.fluent_slots import FluentIndex
from toolkit.ground_action import DeferredGroundAction, DeferredNumericGroundAction, GroundAction, NumericGroundAction
from toolkit.model import Atom
from toolkit.rule_grounding import StaticView
from toolkit.schema_memo import DomainMemo
from toolkit.templates import ActionTemplate, AtomTable

if TYPE_CHECKING:
    from toolkit.task import TypedObjects

_new = object.__new__


class ActionMaker:
    """Ground actions of one task: built at once (:meth:`ground`) or deferred (:meth:`make`)."""

    def __init__(self, domain: m.Domain, problem: m.Problem, objects_of: TypedObjects, atom_table: AtomTable,
                 fluent_index: FluentIndex, derived: DerivedRules | None, numeric: bool, memo: DomainMemo) -> None:
        self.domain, self.init, self.function_values = domain, problem.init, problem.function_values
        self.uses_costs = problem.metric
        self.objects_of, self.atom_table, self.fluent_index = objects_of, atom_table, fluent_index
        self.derived, self.numeric, self.memo = derived, numeric, memo
        self.templates: dict[str, ActionTemplate] = {}
        self.tiers: dict[str, TierStep | None] = {}  # schema name -> its bound step function (toolkit.action_tier)
        self.numbers: dict[str, Numbers] = {}  # the fluents' numbers those functions read, by function (bind)
        self._starts: dict[str, dict[str, object]] = {}  # schema name -> what each of its deferred actions starts with
        self._static: StaticView | None = None

    @property
    def static_view(self) -> StaticView:
        """The problem's static facts (:class:`toolkit.rule_grounding.StaticView`), made on first use."""
        if self._static is None:
            self._static = StaticView(self.domain, self.init)
        return self._static

    def template(self, name: str) -> ActionTemplate:
        """The schema ``name`` compiled against this task's objects (built on first use)."""
        hit = self.templates.get(name)
        if hit is None:
            skeletons = self.memo.templates
            if name not in skeletons:  # the schema's walk, once per domain (toolkit.schema_memo)
                skeletons[name] = ActionTemplate.skeleton(self.domain.actions[name])
            skeleton = skeletons[name]
            if skeleton is None:  # a forall effect: expanded over this task's objects
                hit = ActionTemplate(self.domain.actions[name], self.objects_of, self.atom_table, self.static_view)
            else:
                hit = skeleton.bound(self.objects_of, self.atom_table, lambda: self.static_view)
            self.templates[name] = hit
        return hit

    def cost_of(self, schema: m.ActionSchema, args: tuple[str, ...]) -> m.Number | None:
        """The ground action's cost; None if a cost function term has no value in :init (see Task.cost_of)."""
        if not self.uses_costs:
            return 1
        total: m.Number = 0
        binding = dict(zip((v for v, _ in schema.params), args))
        for term in schema.cost:
            if isinstance(term, m.FTerm):
                value = self.function_values.get(Atom(term.function, tuple(binding.get(t, t) for t in term.terms)))
                if value is None:
                    return None
                total += value
            else:
                total += term
        return total

    def ground(self, schema: m.ActionSchema, args: tuple[str, ...]) -> GroundAction:
        """The ground action with every part built now (whole-task grounding reads them all)."""
        parts = (*self.template(schema.name).ground(args), self.cost_of(schema, args))
        if not self.numeric:
            return GroundAction(schema, args, *parts, None, self.derived)
        updates, code = self._numeric(schema.name)
        return NumericGroundAction(schema, args, *parts, updates.ground(args, self.objects_of, self.atom_table.atom),
                                   self.derived, self.fluent_index, self.atom_table, code)

    def make(self, schema: m.ActionSchema, args: tuple[str, ...]) -> GroundAction:
        """The ground action with its compiled parts deferred to their first read (:meth:`build`), and its
        schema's step function (``tier``) for the validator."""
        start = self._starts.get(schema.name)
        if start is None:
            start = self._starts[schema.name] = self._start(schema)
        act = _new(DeferredNumericGroundAction if self.numeric else DeferredGroundAction)
        own = act.__dict__
        own.update(start)  # one call for the items every action of the schema has
        own["args"] = args
        if self.uses_costs:
            cost = own["cost"] = self.cost_of(schema, args)
            if cost is None:  # the validator reports the step on the action's own path, never steps it
                own["tier"] = None
        return act

    def _start(self, schema: m.ActionSchema) -> dict[str, object]:
        """The attributes every deferred action of ``schema`` starts with, besides its arguments (and its cost
        under a cost metric)."""
        start = {"schema": schema, "derived": self.derived, "maker": self, "tier": self._tier(schema.name),
                 "uses": 0, "cost": 1}
        if self.numeric:
            start["fluent_index"], start["atom_table"] = self.fluent_index, self.atom_table
        else:
            start["updates"] = None
        return start

    def build(self, act: GroundAction) -> None:
        """Build a deferred action's parts (:meth:`ground`'s, the same objects it would make)."""
        out = act.__dict__
        name = act.schema.name
        out["precondition"], out["ground_effect"] = self.template(name).ground(act.args)
        if self.numeric:
            updates, code = self._numeric(name)
            out["updates"] = updates.ground(act.args, self.objects_of, self.atom_table.atom)
            out["code"] = code

    def _numeric(self, name: str) -> tuple[UpdateTemplate, SchemaCode]:
        """The schema's numeric effects and shared generated code, once per domain (toolkit.schema_memo)."""
        updates = self._numeric_updates(name)
        code = self.memo.code.get(name)
        if code is None:
            code = self.memo.code[name] = SchemaCode(self.template(name).shared_shape, updates.plain)
        return updates, code

    def _tier(self, name: str) -> TierStep | None:
        """The schema's step function bound to this task (None: it has none; toolkit.action_tier)."""
        made: object = None
        if self.derived is None:
            key = (name, self.numeric)
            made = self.memo.tiers.get(key, self)
            if made is self:
                made = self.memo.tiers[key] = tier_source(self.domain.actions[name], self.numeric)
        tier = None if made is None else bind(made, self.fluent_index, self.atom_table, self.numbers)  # type: ignore[arg-type]
        self.tiers[name] = tier
        return tier

    def _numeric_updates(self, name: str) -> UpdateTemplate:
        """The schema's numeric effects walked once per domain (toolkit.schema_memo)."""
        updates = self.memo.updates.get(name)
        if updates is None:
            updates = self.memo.updates[name] = UpdateTemplate(self.domain.actions[name])
        return updates

