"""Ground actions: a schema's action on given objects, its precondition and effects compiled.

Split from :mod:`toolkit.task`, which makes them (:mod:`toolkit.action_maker`). A ground
action named by a plan is made *deferred*: its name, arguments and cost at once, its
compiled precondition, effect and numeric updates on first read. Why: a plan checked
against a fresh task names most of its ground actions once or twice (IPC's hydropower:
75 distinct in 100 steps), and building each one's compiled parts cost more than
checking the plan; the validator steps such an action through its schema's step code
(:mod:`toolkit.action_tier`), which reads the action's arguments, and the parts are built
only where a report or a later caller reads them.
"""

from __future__ import annotations

from typing import Callable, Sequence

from toolkit import model as m
from toolkit.derived import DerivedRules
from toolkit.fluent_code import Changes, compile_changes, compile_check
from toolkit.fluent_effects import update_values, with_values
from toolkit.fluent_shared import SchemaCode, shared_check, shared_step
from toolkit.fluent_slots import FluentIndex
from toolkit.fluent_writes import Step, Writes, compile_step, compile_writes
from toolkit.ground_effect import GroundEffect
from toolkit.grounding import CompiledCondition, CompiledEffect
from toolkit.model import Atom
from toolkit.records import field, lazy, record, replace
from toolkit.semantics import Unmet, explain, holds
from toolkit.templates import AtomTable


@record(eq=False)
class GroundAction:
    """A compiled ground action, e.g. ``(moveBlock a c1)``."""

    schema: m.ActionSchema
    args: tuple[str, ...]
    precondition: CompiledCondition = field(repr=False)
    ground_effect: GroundEffect = field(repr=False)
    # What the step adds to a plan's cost: 1 without a (:metric minimize (total-cost)),
    # else the action's (increase (total-cost) X) summed (0 without one); None when a
    # cost function has no value in :init (the action cannot be used: see Task.cost_of).
    cost: m.Number | None = 1
    # Numeric effects (toolkit.fluent_effects.GroundUpdate) in a task with numeric fluents; None in a boolean task.
    updates: tuple | None = field(default=None, repr=False)
    # The task's derived-predicate rules (toolkit.derived.DerivedRules): every successor is closed under them.
    derived: DerivedRules | None = field(default=None, repr=False)

    # A deferred action's schema step function (toolkit.action_tier) and how many steps it took there
    # (see toolkit.verify); a built action has none.
    tier = None
    uses = 0

    @property
    def effect(self) -> CompiledEffect:
        """The effect as unconditional adds/deletes plus conditional effects (built on first use)."""
        return self.ground_effect.compiled

    @property
    def name(self) -> str:
        return self.schema.name

    @lazy
    def text(self) -> str:
        """``(moveBlock a c1)``, built once: every report of a step that uses the action prints it."""
        return f"({' '.join((self.schema.name, *self.args))})"

    def __str__(self) -> str:
        return self.text

    def is_applicable(self, state: frozenset[Atom]) -> bool:
        return holds(self.precondition, state)

    def unmet(self, state: frozenset[Atom]) -> list[Unmet]:
        """The precondition literals that are false in ``state`` (empty if applicable)."""
        return explain_derived(self.derived, explain(self.precondition, state), state)

    def apply(self, state: frozenset[Atom]) -> frozenset[Atom]:
        """Successor state (PDDL semantics); does not check the precondition."""
        if self.updates is None:
            nxt = self.ground_effect.apply(state)
        else:
            nxt = with_values(state, self.ground_effect.apply(state), self.value_changes(state)[0])
        return nxt if self.derived is None else self.derived.closure(nxt)

    def apply_explained(self, state: frozenset[Atom]) -> tuple[frozenset[Atom], list[str]]:
        """Successor state and the conditional effects that fired."""
        return self.apply_checked(state)[:2]

    def apply_checked(self, state: frozenset[Atom]) -> tuple[frozenset[Atom], list[str], list[str]]:
        """Successor state, the conditional effects that fired, and the numeric effects that read a
        fluent without a value in ``state`` (VAL refuses such a step; empty in a boolean task)."""
        adds, dels, fired = self.ground_effect.delta(state)
        if self.updates is None:
            nxt, undefined = (state - dels) | adds, []
        else:
            changes, undefined, _ = self.value_changes(state)
            nxt = with_values(state, (state - dels) | adds, changes)
        return (nxt if self.derived is None else self.derived.closure(nxt)), fired, undefined

    def value_changes(self, state: frozenset[Atom]) -> tuple[dict[Atom, m.Number], Sequence[str], None]:
        """The fluents the numeric effects set, computed in ``state``, the effects that read a fluent
        without a value (:func:`toolkit.fluent_effects.update_values`), and the set fluents' old values
        where they were read on the way (here never: None; see :func:`toolkit.fluent_code.compile_changes`)."""
        return (*update_values(self.updates or (), state), None)


@record(eq=False)
class NumericGroundAction(GroundAction):
    """A ground action of a numeric task: its precondition and numeric effects run as code compiled on
    first use (:mod:`toolkit.fluent_code`), with the same answers as the interpreter's.

    ``is_applicable`` and ``value_changes`` are the compiled functions themselves, cached on the
    action: a step calls them without a method frame around them.
    """

    # The task's fluents by number (a working state's value list; a frozen state's dict keys by identity).
    fluent_index: FluentIndex = field(default_factory=FluentIndex, repr=False)
    atom_table: AtomTable | None = field(default=None, repr=False)  # the task's atom objects, for the same reason
    # The generated text its schema's ground actions share (toolkit.fluent_shared); None: its own.
    code: SchemaCode | None = field(default=None, repr=False)

    @lazy
    def is_applicable(self) -> Callable[[frozenset[Atom]], bool]:  # type: ignore[override]
        if self.code is not None:
            return shared_check(self.precondition, self.fluent_index, self.atom_table, self.code)
        return compile_check(self.precondition, self.fluent_index, self.atom_table)

    @lazy
    def value_changes(self) -> Changes:  # type: ignore[override]
        return compile_changes(self.updates or (), self.fluent_index)

    @lazy
    def write_values(self) -> Writes:
        """The numeric effects written into a working state's value list in place (the stepper's path)."""
        return compile_writes(self.updates or (), self.fluent_index)

    @lazy
    def step_in_place(self) -> Step:
        """The whole step applied to a working state in place, record included (the validator's path); an
        action with conditional effects, or in a task with derived predicates, never takes it."""
        ground = self.ground_effect
        if not ground.plain or self.derived is not None:
            return _never
        if self.code is not None:
            return shared_step(self.updates or (), self.fluent_index, ground.adds, ground.dels, self.code)
        return compile_step(self.updates or (), self.fluent_index, ground.adds, ground.dels)

    def __getstate__(self) -> dict[str, object]:
        """Pickled without the compiled functions (rebuilt on first use in the other process)."""
        return {k: v for k, v in self.__dict__.items() if k not in _COMPILED}


_COMPILED = ("is_applicable", "value_changes", "write_values", "step_in_place")


def _never(state: frozenset[Atom], record: list) -> bool:
    return False


class _Part:
    """A deferred action's compiled part: on the first read of any, its maker builds them all
    (:meth:`toolkit.action_maker.ActionMaker.build`) into the action's ``__dict__``, where later reads find them."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, obj: GroundAction | None, owner: type | None = None) -> object:
        if obj is None:
            return self
        state = obj.__dict__
        state.pop("maker").build(obj)
        return state[self.name]


_RUN = ("maker", "tier", "uses")  # what a deferred action keeps for a run, never pickled


class DeferredGroundAction(GroundAction):
    """A ground action of a boolean task whose precondition and effect are built on first read."""

    precondition = _Part("precondition")  # type: ignore[assignment]
    ground_effect = _Part("ground_effect")  # type: ignore[assignment]

    def __getstate__(self) -> dict[str, object]:
        """Pickled built, without its maker and step function (they hold the task's tables and code)."""
        self.precondition  # noqa: B018  (builds the parts)
        return {k: v for k, v in self.__dict__.items() if k not in _RUN}


class DeferredNumericGroundAction(NumericGroundAction):
    """A ground action of a numeric task whose precondition, effect, numeric updates and shared code are
    built on first read."""

    precondition = _Part("precondition")  # type: ignore[assignment]
    ground_effect = _Part("ground_effect")  # type: ignore[assignment]
    updates = _Part("updates")  # type: ignore[assignment]
    code = _Part("code")  # type: ignore[assignment]

    def __getstate__(self) -> dict[str, object]:
        """As :class:`DeferredGroundAction`'s, without the compiled functions either."""
        self.precondition  # noqa: B018
        return {k: v for k, v in self.__dict__.items() if k not in _RUN and k not in _COMPILED}


def explain_derived(derived: DerivedRules | None, unmet: list[Unmet], state: frozenset[Atom]) -> list[Unmet]:
    """``unmet`` with each false derived atom explained: the basic literals that would make it hold."""
    if derived is None:
        return unmet
    out = []
    for u in unmet:
        if u.atom is not None and u.positive and u.atom.predicate in derived.predicates and not u.detail:
            u = replace(u, detail=derived.why_not(u.atom, state))
        out.append(u)
    return out


