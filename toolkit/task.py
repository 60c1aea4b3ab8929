"""A planning task: a domain and a problem, with grounding caches.

:class:`Task` is the object the rest of the toolkit works with. Each action schema
is compiled once per task into a template (:class:`toolkit.templates.ActionTemplate`);
ground actions are made from it on first use and cached, so stepping a plan is a
few set operations.

>>> from toolkit.domains import shipped_domain, shipped_problem
>>> task = load_task(shipped_domain("blocksworld"), shipped_problem("blocksworld", "simple_problem_0"))
>>> str(task.action("moveblock", ["Y", "c3"]))
'(moveBlock y c3)'
"""

from __future__ import annotations

import functools
import itertools
from pathlib import Path
from typing import Iterator

from toolkit import loader, reach
from toolkit import model as m
from toolkit.action_maker import ActionMaker
from toolkit.derived import DerivedRules, derived_rules_of
from toolkit.errors import ArityError, TypeMismatchError, UnknownSymbolError
from toolkit.fluent_slots import FluentIndex
from toolkit.fluents import FluentState, functions_in
from toolkit.gc_pause import paused_gc
from toolkit.goal_test import GoalTest, goal_test
from toolkit.ground_action import GroundAction, NumericGroundAction, explain_derived
from toolkit.grounding import CompiledCondition, compile_condition
from toolkit.model import Atom
from toolkit.reach import DEFAULT_MAX_ACTIONS, Grounding
from toolkit.records import lazy
from toolkit.rule_grounding import StaticView
from toolkit.schema_memo import domain_memo
from toolkit.semantics import Unmet, condition_size, explain, holds
from toolkit.successors import SuccessorGenerator
from toolkit.templates import ActionTemplate, AtomTable

__all__ = ["GroundAction", "NumericGroundAction", "Task", "TypedObjects", "explain_derived", "load_domain_cached",
           "load_task"]


class TypedObjects:
    """A task's objects by type (``task.objects_of(types)``), memoised, with no reference to the task.

    The action templates and derived rules keep it; when it was a bound method of the task, every
    ground action was on a cycle back to the task, so a task was freed only by the cyclic collector,
    which traversed all of it (measured on IPC's grid prob03: 0.14 s against 0.02 s freed by reference
    counts).
    """

    __slots__ = ("objects", "domain", "by_type")

    def __init__(self, objects: dict[str, str], domain: m.Domain) -> None:
        self.objects, self.domain = objects, domain
        self.by_type: dict[tuple[str, ...], tuple[str, ...]] = {}

    def __call__(self, types: tuple[str, ...]) -> tuple[str, ...]:
        """Objects (and constants) whose type is one of ``types`` or a subtype, sorted."""
        hit = self.by_type.get(types)
        if hit is None:
            hit = tuple(sorted(o for o, t in self.objects.items()
                               if any(self.domain.is_subtype(t, want) for want in types)))
            self.by_type[types] = hit
        return hit


class Task:
    """A domain plus a problem, with cached grounding."""

    def __init__(self, domain: m.Domain, problem: m.Problem) -> None:
        self.domain = domain
        self.problem = problem
        # {**constants, **objects}, made from the mappings' dicts (a read-only proxy's copy is its dict's, one C call;
        # merging the proxies themselves reads them key by key)
        self.objects: dict[str, str] = domain.constants.copy()
        self.objects.update(problem.objects.copy())
        # With numeric fluents a state carries the fluents' values (toolkit.fluents.FluentState).
        # A metric reads fluents' values, except PDDL 2.1's built-in (total-time) (a sequential plan's length).
        metric = problem.metric_expr
        self.numeric: bool = domain.numeric or problem.numeric or (
            metric is not None and any(f != m.TOTAL_TIME for f in functions_in(metric)))
        self.init: frozenset[Atom] = (FluentState(problem.init, problem.function_values) if self.numeric
                                      else problem.init)
        # The fluents by number, seeded with the values' own keys (compiled numeric code reads by them).
        self.fluent_index = FluentIndex(problem.function_values)
        # objects_of(types): the objects (and constants) of one of ``types`` or a subtype, sorted.
        self.objects_of: TypedObjects = TypedObjects(self.objects, domain)
        self._actions: dict[tuple[str, tuple[str, ...]], GroundAction] = {}
        # Distinct lines of plain plan text read against this task (toolkit.plans.plain_lines' memory).
        self.plan_lines: dict[str, object] = {}
        self._groundings: dict[frozenset[Atom], Grounding] = {}
        self._successors: SuccessorGenerator | None = None  # over the grounding from self.init
        # Ground atoms interned per task (seeded with the initial state) and one template per schema.
        self.atom_table = AtomTable(problem.init)
        self.atom_table.add_all(self.fluent_index.atoms)  # fluent atoms made in grounding are the index's own
        # Per schema, shared by the domain's tasks (toolkit.schema_memo): template skeletons, numeric
        # effects (numeric tasks), generated text and the type checks of arguments.
        memo = domain_memo(domain)
        self._fits: dict[tuple[str, tuple[str, ...]], bool] = memo.fits  # (type, parameter types) -> a subtype
        self._update_templates = memo.updates  # schema name -> its numeric effects (fluent_effects.UpdateTemplate)
        plain = memo.plain
        if plain is None:
            plain = memo.plain = _plain_schemas(domain)
        # action()'s common path (the domain's, see there); none where two object names differ only in case (names
        # that are all their own lower case never do: one string test, where _object_names is a dict to build).
        joined = "\n".join(self.objects)
        exact = joined.lower() == joined or len(self._object_names) == len(self.objects)
        self._plain: dict[str, tuple[m.ActionSchema, tuple[set[str], ...]]] = plain if exact else _NO_PLAIN
        # Costs count only under (:metric minimize (total-cost)), as in FD and VAL; else plan length.
        self.uses_costs: bool = problem.metric
        # Derived predicates (PDDL 2.2): ground once; every state the task makes holds its derived atoms.
        self.derived: DerivedRules | None = derived_rules_of(domain, self.objects_of, problem.init,
                                                                self.atom_table.atom)
        if self.derived is not None:
            self.init = self.derived.closure(self.init)
        # Makes the ground actions (toolkit.action_maker), with no reference back to the task.
        self._maker = ActionMaker(domain, problem, self.objects_of, self.atom_table, self.fluent_index, self.derived,
                                  self.numeric, memo)

    # ------------------------------------------------------------ objects

    @lazy
    def _action_names(self) -> dict[str, str]:
        """Lower-case action name -> the domain's (made on first use: action()'s common path never reads it)."""
        return {a.lower(): a for a in self.domain.actions}

    @lazy
    def _object_names(self) -> dict[str, str]:
        """Lower-case object name -> the task's (made on first use: action()'s common path never reads it)."""
        return {o.lower(): o for o in self.objects}

    def resolve_action(self, name: str) -> str:
        hit = self._action_names.get(name.lower())
        if hit is None:
            raise UnknownSymbolError("action", name, self.domain.actions)
        return hit

    def respell(self, atoms: frozenset[Atom]) -> frozenset[Atom]:
        """Atoms a world wrote in lower-case names, spelt as the problem spells its objects (PDDL names are
        case-insensitive, so ``C-3-4`` in a problem is minigrid's ``c-3-4``)."""
        differ = self._respelled
        if not differ:
            return atoms
        return frozenset(Atom(a.predicate, tuple(differ.get(x, x) for x in a.args)) for a in atoms)

    @functools.cached_property
    def _respelled(self) -> dict[str, str]:
        """Lower-case name -> the problem's spelling, for the objects whose spelling is not lower case."""
        return {k: v for k, v in self._object_names.items() if k != v}

    def resolve_object(self, name: str) -> str:
        hit = self._object_names.get(name.lower())
        if hit is None:
            raise UnknownSymbolError("object", name, self.objects)
        return hit

    def _resolve_argument(self, name: str, types: tuple[str, ...]) -> str:
        """Like :meth:`resolve_object`, but an unknown name is matched against objects of the parameter's type first."""
        try:
            return self.resolve_object(name)
        except UnknownSymbolError as error:
            fitting = [o for o, t in self.objects.items() if any(self.domain.is_subtype(t, want) for want in types)]
            typed = UnknownSymbolError("object", name, fitting)
            if typed.suggestions or error.suggestions or not 0 < len(fitting) <= _LISTED_FITS:
                raise (typed if typed.suggestions else error) from None
            raise UnknownSymbolError("object", name, fitting, fits=sorted(fitting)) from None

    # ------------------------------------------------------------ actions

    def action(self, name: str, args: tuple[str, ...] | list[str]) -> GroundAction:
        """The compiled ground action; names are matched case-insensitively.

        Raises:
            UnknownSymbolError: unknown action or object.
            ArityError: wrong number of arguments.
            TypeMismatchError: an argument of the wrong type.
        """
        key = (name, args if args.__class__ is tuple else tuple(args))  # (a plan's lines give tuples: no call)
        actions = self._actions
        hit = actions.get(key)
        if hit is not None:
            return hit
        plain = self._plain.get(name)
        if plain is not None:
            # The common line: the action and objects spelt as the task spells them (no two of its names differ
            # only in case), of types found to fit before (the domain's memo, _plain_schemas: filled by the path
            # below); anything else (another spelling, an object of a type not met there yet, an error to raise)
            # takes the path below.
            schema, kinds = plain
            objs = key[1]
            if len(objs) == len(kinds):
                kind_of = self.objects.get
                i = 0
                for fit in kinds:  # (by index: no zip to make, no pairs to unpack)
                    if kind_of(objs[i]) not in fit:
                        break
                    i += 1
                else:
                    hit = actions[key] = self._maker.make(schema, objs)
                    return hit
        schemas, objects = self.domain.actions, self.objects
        canonical = self._action_names.get(name.lower())  # resolve_action inline (a plan's every new line)
        if canonical is None:
            raise UnknownSymbolError("action", name, schemas)
        schema = schemas[canonical]
        params = schema.params
        arity = len(params)
        names = self._object_names
        exact = len(names) == len(objects)  # no two names differ only in case: an object's own spelling is itself
        objs = tuple([a if exact and a in objects else names.get(a.lower())
                      or self._resolve_argument(a, params[i][1] if i < arity else ())
                      for i, a in enumerate(args)])  # the lookup inline; a miss raises with did-you-mean
        if len(objs) != arity:
            raise ArityError("action", schema.name, arity, len(objs))
        fits = self._fits
        for obj, (var, types) in zip(objs, params):
            kind = objects[obj]
            ok = fits.get((kind, types))
            if ok is None:
                ok = fits[kind, types] = kind in types or any(self.domain.is_subtype(kind, t) for t in types)
            if not ok:
                raise TypeMismatchError(obj, kind, " or ".join(types), f"parameter {var} of {schema.name}")
        plain = self._plain.get(canonical)
        if plain is not None:  # the types found to fit, for the common path above
            for fit, obj in zip(plain[1], objs):
                fit.add(objects[obj])
        if schema.name == name and objs == key[1]:  # spelt as the task spells it: the key looked up above
            hit = actions[key] = self._maker.make(schema, objs)  # its parts deferred (toolkit.ground_action)
            return hit
        canon = (schema.name, objs)
        hit = actions.get(canon)
        if hit is None:
            hit = actions[canon] = self._maker.make(schema, objs)
        actions[key] = hit
        return hit

    def cost_of(self, schema: m.ActionSchema, args: tuple[str, ...]) -> m.Number | None:
        """The ground action's cost; None if a cost function term has no value in :init.

        PDDL leaves such an action undefined; VAL rejects a plan using it and FD's
        translator stops, so the validator reports the step and planners skip it.
        """
        return self._maker.cost_of(schema, args)

    def undefined_cost(self, action: GroundAction) -> list[str]:
        """The cost function terms of ``action`` with no value in :init, e.g. ``['(road-length a b)']``."""
        binding = dict(zip((v for v, _ in action.schema.params), action.args))
        out = []
        for term in action.schema.cost:
            if isinstance(term, m.FTerm):
                atom = Atom(term.function, tuple(binding.get(t, t) for t in term.terms))
                if atom not in self.problem.function_values:
                    out.append(str(atom))
        return out

    def instantiate(self, schema: str, args: tuple[str, ...]) -> GroundAction:
        """The ground action of schema ``schema`` (exact name) on resolved, type-correct ``args`` (no checks)."""
        key = (schema, args)
        hit = self._actions.get(key)
        if hit is None:
            hit = self._actions[key] = self._maker.ground(self.domain.actions[schema], args)
        return hit

    @property
    def static_view(self) -> StaticView:
        """The problem's initial atoms of the predicates no action changes, which decide quantified parts of
        ground actions (:class:`toolkit.rule_grounding.StaticView`: every state a plan reaches has them)."""
        return self._maker.static_view

    def template(self, name: str) -> ActionTemplate:
        """The schema ``name`` compiled against this task's objects (built on first use)."""
        return self._maker.template(name)

    def grounding(self, init: frozenset[Atom] | None = None, *, deadline: float | None = None,
                  max_actions: int = DEFAULT_MAX_ACTIONS) -> Grounding:
        """The relaxed-reachable ground actions and atoms from ``init`` (default: the initial state).

        The one place whole-task grounding happens (planners, lint, questions,
        invariants, belief, scoring); see :mod:`toolkit.reach`. Cached per start state.

        Raises:
            GroundingError: too many ground actions, or ``deadline`` (``time.perf_counter()``) passed.
        """
        state = self.init if init is None else frozenset(init)
        hit = self._groundings.get(state)
        if hit is None:
            with paused_gc():  # tens of thousands of objects that all survive (toolkit.gc_pause)
                hit = reach.ground(self, state, deadline=deadline, max_actions=max_actions)
            if len(self._groundings) >= 8:
                self._groundings.pop(next(iter(self._groundings)))
            self._groundings[state] = hit
        return hit

    def reachable_actions(self, init: frozenset[Atom] | None = None) -> tuple[GroundAction, ...]:
        """Ground actions that can ever fire from ``init`` (a relaxed over-approximation; never misses one)."""
        return self.grounding(init).actions

    def reachable_atoms(self, predicate: str | None = None) -> list[Atom]:
        """Atoms that can ever hold from the initial state (static facts included), sorted."""
        atoms = self.grounding().atoms
        if predicate is not None:
            atoms = frozenset(a for a in atoms if a.predicate == predicate)
        return sorted(atoms)

    def all_actions(self) -> Iterator[GroundAction]:
        """Every type-correct ground action (compiled lazily, cached); exhaustive, for tests and
        checks over arbitrary states. Whole-task work uses :meth:`reachable_actions`."""
        for schema in self.domain.actions.values():
            for args in itertools.product(*(self.objects_of(t) for _, t in schema.params)):
                yield self.action(schema.name, args)

    def applicable_actions(self, state: frozenset[Atom]) -> list[GroundAction]:
        """Every ground action applicable in ``state``, in canonical (schema, arguments) order.

        A state made of atoms reachable from the initial state (every state a plan
        or a walk can visit) is answered by a successor generator over the
        relaxed-reachable grounding, which holds every action such a state can
        enable; any other state by an exhaustive scan, so the answer is always exact.
        """
        try:
            reachable = self.grounding()
        except reach.GroundingError:  # beyond the grounding budget: the exhaustive scan is all there is
            reachable = None
        if reachable is None or not state <= reachable.atoms:
            return [a for a in self.all_actions() if a.is_applicable(state)]
        if self._successors is None:
            self._successors = SuccessorGenerator(reachable.actions)
        return self._successors.applicable(state)

    # -------------------------------------------------------------- atoms

    def all_atoms(self, predicate: str | None = None) -> list[Atom]:
        """Every type-correct ground atom (of one predicate, or of all), sorted; whole-task work
        (questions, beliefs) uses :meth:`reachable_atoms`."""
        preds = [self.domain.predicates[predicate]] if predicate else list(self.domain.predicates.values())
        out = []
        for p in preds:
            for args in itertools.product(*(self.objects_of(t) for _, t in p.params)):
                out.append(Atom(p.name, args))
        return sorted(out)

    @lazy
    def goal(self) -> CompiledCondition:
        """The goal ground (:func:`toolkit.grounding.compile_condition`), on first use: a plan check of a
        numeric goal reads it through :attr:`_goal_test` instead, and may never ground it."""
        return compile_condition(self.problem.goal, {}, self.objects_of)

    @lazy
    def _goal_test(self) -> GoalTest | None:
        """The goal over the fluent numbers (:mod:`toolkit.goal_test`); None: the compiled goal answers."""
        return goal_test(self.problem, self.fluent_index) if self.numeric else None

    @lazy
    def goal_size(self) -> int:
        """How many parts an explanation of the goal can list (:func:`toolkit.semantics.condition_size`)."""
        test = self._goal_test
        return test.size if test is not None else condition_size(self.goal)

    def goal_holds(self, state: frozenset[Atom]) -> bool:
        test = self._goal_test
        slots = None if test is None else test.slots_of(state)
        return holds(self.goal, state) if slots is None else test.holds(state, slots)  # type: ignore[union-attr]

    def goal_unmet(self, state: frozenset[Atom]) -> list[Unmet]:
        """The goal's unmet parts in ``state`` (:func:`toolkit.semantics.explain`); empty where it holds."""
        test = self._goal_test
        slots = None if test is None else test.slots_of(state)
        if slots is not None:
            unmet = test.unmet(state, slots)  # type: ignore[union-attr]
        else:
            goal = self.goal
            if goal.literals and holds(goal, state):  # two set operations, where explaining walks every part
                return []
            unmet = explain(goal, state)
        return explain_derived(self.derived, unmet, state)

    def derive(self, state: frozenset[Atom]) -> frozenset[Atom]:
        """``state`` with its derived atoms recomputed (itself in a domain without derived predicates):
        the one call a stepper that builds states by other means makes on each state it hands out."""
        return state if self.derived is None else self.derived.closure(state)


_LISTED_FITS = 8  # an unknown object with no close name: the objects of its parameter's types, listed up to this many
_NO_PLAIN: dict = {}  # action() of a task whose action or object names differ only in case: no common path (never written)


def _plain_schemas(domain: m.Domain) -> dict[str, tuple[m.ActionSchema, tuple[set[str], ...]]]:
    """Task.action's common path, per schema spelt as its key: the schema, and per parameter the types of the objects
    the full path let stand for it (filled there; parameters of the same types share one set, so what one schema
    finds serves all); none where two action names differ only in case (the lower-case name decides there)."""
    if len({a.lower() for a in domain.actions}) != len(domain.actions):
        return _NO_PLAIN
    fitting: dict[tuple[str, ...], set[str]] = {}
    out = {}
    for key, schema in domain.actions.items():
        if schema.name == key:
            sets = []
            for _, types in schema.params:
                fit = fitting.get(types)
                if fit is None:
                    fit = fitting[types] = set()
                sets.append(fit)
            out[key] = (schema, tuple(sets))
    return out


@functools.lru_cache(maxsize=64)
def _cached_domain(given: str, resolved: str, mtime: float) -> m.Domain:
    # Keyed by the file (``resolved``: a relative path means another file once the working folder changes),
    # but read and named as the user spelled it: an error for "d.pddl" says d.pddl, not /home/.../d.pddl.
    return loader.load_domain(given)


def load_domain_cached(path: str | Path) -> m.Domain:
    """Load a domain once per (path as given, file, modification time) in this process."""
    p = Path(path)
    try:
        mtime = p.stat().st_mtime
    except OSError:
        return loader.load_domain(p)  # raises the toolkit's own read error
    return _cached_domain(str(path), str(p.resolve()), mtime)


def load_task(domain_path: str | Path, problem_path: str | Path) -> Task:
    """Load a domain and a problem file into a :class:`Task`."""
    domain = loader.load_domain(domain_path)
    return Task(domain, loader.load_problem(problem_path, domain))

