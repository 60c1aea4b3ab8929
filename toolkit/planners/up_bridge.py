"""Build a unified-planning problem from the toolkit model.

Two routes, same result: :func:`to_up_problem` builds the UP objects directly
(fluents, typed objects, actions with flattened conditional/forall effects),
and :func:`to_up_problem_via_text` prints canonical PDDL and uses UP's
``PDDLReader``. The direct route is the one used: it costs a few milliseconds
where the reader costs 45-130 ms per problem (``benchmarks/bench_planning.py``
measures both). The text route remains as a fallback for what the direct route
does not translate ("either" types).

Action costs (``costs``: the static cost function values, given when the problem
minimises ``total-cost``) become UP's ``MinimizeActionCosts`` metric, whose cost
expressions read static numeric fluents; FD then minimises cost.
"""

from __future__ import annotations

import warnings
from typing import Any, Mapping

from toolkit import model as m
from toolkit.errors import PgtError
from toolkit.model import Atom


class Untranslatable(PgtError):
    """The direct route cannot express this task (the text route is used instead)."""


def up_param_names(params: tuple[m.Param, ...]) -> list[str]:
    """UP-safe, pairwise distinct names for declared parameters.

    PDDL lets a declaration repeat a name (logistics' ``(in ?obj ?obj)``); UP keys
    parameters by name, so a repeat would silently drop one and change the arity.
    Repeats get a positional suffix.
    """
    from toolkit.planners.pddl_text import distinct

    return distinct([v[1:].replace("-", "_") for v, _ in params])


def _signature(params: tuple[m.Param, ...], one_type: Any) -> dict[str, Any]:
    return {n: one_type(t) for n, (_, t) in zip(up_param_names(params), params)}


class GoalNeverHolds(PgtError):
    """The goal is false in every reachable state (it needs atoms of the wrong type)."""


def allow_shared_names() -> None:
    """Let one name stand for several things (action ``open`` and predicate ``open``, object ``character``
    of type ``character``), as PDDL allows; UP refuses it unless told before the problem is built.

    UP still warns on each shared name; PDDL allows it, so the warning is silenced.
    """
    from unified_planning import shortcuts as up

    up.get_environment().error_used_name = False
    warnings.filterwarnings("ignore", r"Name .* already defined", UserWarning, r"unified_planning\.")


def without_inert_actions(problem: Any) -> Any:
    """The problem less its actions without effects (written out with no ``:effect``, which FD's translator
    refuses). They cannot change a state, so no plan needs them and every plan found is still a plan."""
    inert = [a for a in problem.actions if not a.effects]
    if not inert:
        return problem
    kept = [a for a in problem.actions if a not in inert]
    problem = problem.clone()
    problem.clear_actions()
    for a in kept:
        problem.add_action(a)
    _drop_costs_of(problem, inert)
    return problem


def _drop_costs_of(problem: Any, removed: list[Any]) -> None:
    """Keep a ``MinimizeActionCosts`` metric to the actions still in ``problem``."""
    from unified_planning.model.metrics import MinimizeActionCosts

    metrics = list(problem.quality_metrics)
    if not any(isinstance(q, MinimizeActionCosts) for q in metrics):
        return
    names = {a.name for a in removed}
    problem.clear_quality_metrics()
    for q in metrics:
        if isinstance(q, MinimizeActionCosts):
            q = MinimizeActionCosts({a: c for a, c in q.costs.items() if a.name not in names}, q.default)
        problem.add_quality_metric(q)


def to_up_problem(domain: m.Domain, objects: dict[str, str], init: frozenset[Atom], goal: m.Condition,
                  costs: Mapping[Atom, m.Number] | None = None) -> Any:
    """A ``unified_planning.model.Problem`` for the domain, objects, state and goal."""
    from unified_planning import shortcuts as up
    from unified_planning.model import InstantaneousAction, Problem

    if domain.derived:
        raise Untranslatable("derived predicates (unified-planning has no axioms)")
    allow_shared_names()
    types: dict[str, Any] = {"object": up.UserType("object")}

    def utype(name: str) -> Any:
        if name not in types:
            parent = domain.types.get(name, "object")
            types[name] = up.UserType(name, utype(parent) if parent != name else types["object"])
        return types[name]

    def one_type(ts: tuple[str, ...]) -> Any:
        if len(ts) != 1:
            raise Untranslatable("either types")
        return utype(ts[0])

    problem = Problem(domain.name)
    fluents = {}
    for p in domain.predicates.values():
        fl = up.Fluent(p.name, up.BoolType(), **_signature(p.params, one_type))
        problem.add_fluent(fl, default_initial_value=False)
        fluents[p.name] = fl
    objs = {}
    for name, t in sorted({**domain.constants, **objects}.items()):
        objs[name] = up.Object(name, utype(t))
        problem.add_object(objs[name])

    def term(t: str, scope: dict[str, Any]) -> Any:
        return scope[t] if t.startswith("?") else objs[t]

    def variables(params: tuple[m.Param, ...], scope: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        vs = [up.Variable(f"{n}_{len(scope)}", one_type(t)) for n, (_, t) in zip(up_param_names(params), params)]
        inner = dict(scope)
        inner.update({v: var for (v, _), var in zip(params, vs)})
        return vs, inner

    def cond(c: m.Condition, scope: dict[str, Any]) -> Any:
        if isinstance(c, m.Pred):
            return fluents[c.predicate](*(term(t, scope) for t in c.terms))
        if isinstance(c, m.Equals):
            return up.Equals(term(c.left, scope), term(c.right, scope))
        if isinstance(c, m.Not):
            return up.Not(cond(c.arg, scope))
        if isinstance(c, m.And):
            return up.And(*(cond(p, scope) for p in c.parts)) if c.parts else up.TRUE()
        if isinstance(c, m.Or):
            return up.Or(*(cond(p, scope) for p in c.parts)) if c.parts else up.FALSE()
        if isinstance(c, m.Imply):
            return up.Implies(cond(c.premise, scope), cond(c.conclusion, scope))
        vs, inner = variables(c.params, scope)
        body = cond(c.body, inner)
        return up.Forall(body, *vs) if isinstance(c, m.Forall) else up.Exists(body, *vs)

    def effects(action: Any, e: m.Effect, scope: dict[str, Any], conds: tuple[Any, ...], vs: tuple[Any, ...]) -> None:
        if isinstance(e, (m.AddEffect, m.DelEffect)):
            fl = fluents[e.atom.predicate](*(term(t, scope) for t in e.atom.terms))
            guard = up.And(*conds) if conds else True
            action.add_effect(fl, isinstance(e, m.AddEffect), guard, vs)
        elif isinstance(e, m.AndEffect):
            for p in e.parts:
                effects(action, p, scope, conds, vs)
        elif isinstance(e, m.WhenEffect):
            effects(action, e.body, scope, (*conds, cond(e.condition, scope)), vs)
        else:
            new, inner = variables(e.params, scope)
            effects(action, e.body, inner, conds, (*vs, *new))

    for a in domain.actions.values():
        act = InstantaneousAction(a.name, **_signature(a.params, one_type))
        # A repeated action parameter name refers to its last declaration, as in the grounder.
        scope = {v: act.parameter(n) for (v, _), n in zip(a.params, up_param_names(a.params))}
        pre = cond(a.precondition, scope)
        if not (pre.is_bool_constant() and pre.bool_constant_value()):
            act.add_precondition(pre)
        effects(act, a.effect, scope, (), ())
        problem.add_action(act)
    init, goal = typed_view(domain, objects, init, goal)
    for atom in init:
        problem.set_initial_value(fluents[atom.predicate](*(objs[o] for o in atom.args)), True)
    problem.add_goal(cond(goal, {}))
    if costs is not None:
        _add_action_costs(problem, domain, costs, one_type, objs)
    return problem


def _number(value: m.Number) -> Any:
    from fractions import Fraction

    from unified_planning import shortcuts as up

    return up.Int(int(value)) if float(value).is_integer() else up.Real(Fraction(str(value)))


def _add_action_costs(problem: Any, domain: m.Domain, costs: Mapping[Atom, m.Number], one_type: Any,
                      objs: dict[str, Any]) -> None:
    """Static cost fluents with their values and a ``MinimizeActionCosts`` metric."""
    import itertools

    from unified_planning import shortcuts as up
    from unified_planning.model.metrics import MinimizeActionCosts

    numeric = {}
    for f in domain.functions.values():
        if f.name == m.TOTAL_COST:
            continue
        kind = up.IntType() if all(float(v).is_integer() for a, v in costs.items() if a.predicate == f.name) \
            else up.RealType()
        numeric[f.name] = up.Fluent(f.name, kind, **_signature(f.params, one_type))
        problem.add_fluent(numeric[f.name])
    for atom, value in costs.items():
        if atom.predicate != m.TOTAL_COST:
            problem.set_initial_value(numeric[atom.predicate](*(objs[o] for o in atom.args)), _number(value))
    for name, fl in numeric.items():  # PDDL leaves unset values undefined; UP needs every one
        for args in itertools.product(*(problem.objects(p.type) for p in fl.signature)):
            if fl(*args) not in problem.explicit_initial_values:
                raise Untranslatable(f"cost function {name} has no value for some arguments")
    per_action = {}
    for a in domain.actions.values():
        act = problem.action(a.name)
        names = dict(zip((v for v, _ in a.params), up_param_names(a.params)))
        terms = [_number(t) if not isinstance(t, m.FTerm)
                 else numeric[t.function](*(act.parameter(names[x]) if x.startswith("?") else objs[x]
                                            for x in t.terms))
                 for t in a.cost]
        per_action[act] = up.Plus(*terms) if len(terms) > 1 else terms[0] if terms else up.Int(0)
    problem.add_quality_metric(MinimizeActionCosts(per_action))


def well_typed(domain: m.Domain, objects: dict[str, str], predicate: str, args: tuple[str, ...]) -> bool:
    """Whether every argument fits the predicate's declared type (``--typing lenient`` keeps atoms that do not)."""
    params = domain.predicates[predicate].params
    return all(any(domain.is_subtype(objects[o], t) for t in types) for o, (_, types) in zip(args, params))


def typed_view(domain: m.Domain, objects: dict[str, str], init: frozenset[Atom],
               goal: m.Condition) -> tuple[frozenset[Atom], m.Condition]:
    """The initial state and goal without atoms whose objects have the wrong type (``--typing lenient``).

    UP refuses such atoms. No action can change one (its parameters are typed), so
    a goal atom of the wrong type holds exactly when the initial state has it, as
    in Fast Downward; it is replaced by that constant.

    Raises:
        GoalNeverHolds: the goal is false whatever the actions do.
    """
    every = {**domain.constants, **objects}
    kept = frozenset(a for a in init if well_typed(domain, every, a.predicate, a.args))

    def settle(c: m.Condition) -> m.Condition | bool:
        if isinstance(c, m.Pred):
            if any(m.is_var(t) for t in c.terms) or well_typed(domain, every, c.predicate, c.terms):
                return c
            return Atom(c.predicate, c.terms) in init
        if isinstance(c, m.Not):
            arg = settle(c.arg)
            return (not arg) if isinstance(arg, bool) else m.Not(arg)
        if isinstance(c, (m.And, m.Or)):
            decisive = isinstance(c, m.Or)  # True decides an Or, False an And
            parts = [settle(p) for p in c.parts]
            if decisive in parts:
                return decisive
            rest = tuple(p for p in parts if not isinstance(p, bool))
            return type(c)(rest) if rest else not decisive
        if isinstance(c, m.Imply):
            return settle(m.Or((m.Not(c.premise), c.conclusion)))
        return c

    settled = settle(goal)
    if settled is False:
        raise GoalNeverHolds("the goal needs an atom of the wrong type that the initial state lacks")
    return kept, (m.TRUE if settled is True else settled)


def to_up_problem_via_text(domain: m.Domain, objects: dict[str, str], init: frozenset[Atom],
                           goal: m.Condition, costs: Mapping[Atom, m.Number] | None = None) -> Any:
    """The same problem through canonical PDDL text and UP's ``PDDLReader``."""
    from unified_planning.io import PDDLReader

    from toolkit.planners.pddl_text import domain_to_pddl, problem_to_pddl

    allow_shared_names()
    init, goal = typed_view(domain, objects, init, goal)
    return PDDLReader().parse_problem_string(domain_to_pddl(domain),
                                             problem_to_pddl(domain, objects, init, goal, costs=costs))
