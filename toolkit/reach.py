"""Relaxed-reachability grounding: the ground actions and atoms a task can ever use.

Enumerating every type-consistent argument tuple explodes on IPC inputs
(zenotravel's 6-parameter ``zoom`` alone gives millions of tuples). Like Fast
Downward's translator, this module instead grows the set of reachable facts from
a start state under the delete relaxation and instantiates a schema only for the
bindings that join its positive precondition atoms against facts already reached.

Soundness (nothing that can ever happen is dropped):

* negative literals and ``(not (= ..))`` under quantifiers or disjunctions are
  ignored (they can only make an action *less* applicable);
* a disjunction is reachable through any branch (each branch is its own join);
* ``exists`` adds join variables; ``forall`` in a precondition is ignored by the
  lifted join and checked only through the ground top-level positive atoms;
* static (in)equalities in the top-level conjunction prune bindings (they are
  decided by the arguments alone);
* a ground action whose top-level precondition negates an atom that holds at the
  start and that no action ever deletes is dropped: it can never be applied (Fast
  Downward's translator drops the same actions: ``pddl/conditions.py``,
  ``NegatedAtom.instantiate`` raises ``Impossible`` for a negated atom that is in
  the initial state and no effect's; pgt also counts predicates that actions only
  add, whose true atoms stay true as well);
* a conditional effect's adds become reachable once its action is and the
  positive atoms of its condition are.

Every fact is processed once (semi-naive evaluation): a binding is found when the
last of its facts is processed, because the others are indexed by then. The
grounding honours a deadline and a ground-action budget and names the schema
that is too large when it gives up.
"""

from __future__ import annotations

import itertools
import math
import time
from toolkit.records import record
from typing import TYPE_CHECKING, Callable, Iterable, Iterator

from toolkit import model as m
from toolkit.errors import PgtError
from toolkit.model import Atom

if TYPE_CHECKING:
    from toolkit.task import GroundAction, Task

DEFAULT_MAX_ACTIONS = 2_000_000  # ground actions kept before giving up (roughly 2-4 GB of Python objects)
_MAX_BRANCHES = 64  # disjunctive branches per schema before a disjunction is dropped (over-approximation)


class GroundingError(PgtError):
    """Grounding gave up: the task is too large for the budget or the deadline passed."""

    def __init__(self, message: str, schema: str | None = None, timeout: bool = False) -> None:
        super().__init__(message)
        self.schema = schema
        self.timeout = timeout


@record
class Grounding:
    """The relaxed-reachable part of a task from one start state."""

    actions: tuple[GroundAction, ...]  # in discovery order, each once
    atoms: frozenset[Atom]  # every atom that can ever hold (start state included)
    seconds: float


# ------------------------------------------------------------------ rules
#
# A rule is one way to make a schema applicable in the relaxation: positive atom
# patterns over variables (schema parameters plus ``exists`` variables), the type
# domain of every variable, and the static (in)equalities among them.


@record
class _Rule:
    schema: m.ActionSchema
    atoms: tuple[tuple[str, tuple[str, ...]], ...]
    domains: dict[str, frozenset[str]]  # variable -> allowed objects
    eqs: tuple[tuple[str, str, bool], ...]
    params: tuple[str, ...]


def _branches(cond: m.Condition, positive: bool, sub: dict[str, str] | None = None,
              fresh: Iterator[int] | None = None) -> list[tuple[list, list, list]] | None:
    """The condition as alternatives of (atoms, equalities, exists-params); None = no constraint.

    Each ``exists`` variable gets a name of its own (``?x~1``, ``sub`` maps the written name in
    its scope): two quantifiers that reuse a name, or one that reuses a parameter's, bind
    different objects, and joined as one variable they would ask one object for both and
    leave reachable actions out. FD renames them likewise before it explores (``Action.__init__`` ->
    ``uniquify_variables``, ``translate/pddl/actions.py``).
    """
    sub = {} if sub is None else sub
    fresh = itertools.count(1) if fresh is None else fresh
    if isinstance(cond, m.Pred):
        return [([(cond.predicate, tuple(sub.get(t, t) for t in cond.terms))], [], [])] if positive else None
    if isinstance(cond, m.Equals):
        return [([], [(sub.get(cond.left, cond.left), sub.get(cond.right, cond.right), positive)], [])]
    if isinstance(cond, m.Not):
        return _branches(cond.arg, not positive, sub, fresh)
    if isinstance(cond, m.Imply):
        return _branches(m.Or((m.Not(cond.premise), cond.conclusion)), positive, sub, fresh)
    if isinstance(cond, (m.And, m.Or)):
        parts = [_branches(p, positive, sub, fresh) for p in cond.parts]
        if isinstance(cond, m.And) == positive:  # conjunction: cross product of the parts' branches
            out: list[tuple[list, list, list]] = [([], [], [])]
            for alts in parts:
                if alts is None:
                    continue
                out = [(a1 + a2, e1 + e2, p1 + p2) for a1, e1, p1 in out for a2, e2, p2 in alts]
                if len(out) > _MAX_BRANCHES:
                    return None
            return out
        if any(alts is None for alts in parts):  # a branch without constraint: the whole disjunction is free
            return None
        flat = [alt for alts in parts for alt in alts]  # type: ignore[union-attr]
        return flat if len(flat) <= _MAX_BRANCHES else None
    if isinstance(cond, m.Exists) and positive:
        params = [(f"{v}~{next(fresh)}", t) for v, t in cond.params]
        inner = _branches(cond.body, positive, {**sub, **{v: new for (v, _), (new, _) in zip(cond.params, params)}},
                          fresh)
        if inner is None:
            return None
        return [(a, e, params + p) for a, e, p in inner]
    return None  # forall (or a negated exists): over-approximated as no constraint


def _rules(task: Task, schema: m.ActionSchema) -> list[_Rule]:
    alts = _branches(schema.precondition, True) or [([], [], [])]
    params = tuple(v for v, _ in schema.params)
    rules = []
    for atoms, eqs, extra in alts:
        domains = {v: frozenset(task.objects_of(t)) for v, t in (*schema.params, *extra)}
        if any(not d for v, d in domains.items() if v in params):
            continue  # a parameter type without objects: no ground action at all
        # (Possibly renamed) exists variables must not clash with parameters; the loader keeps them distinct.
        rules.append(_Rule(schema, tuple(atoms), domains, tuple(eqs), params))
    return rules


# ------------------------------------------------------------------ fixpoint


class _Index:
    """Processed facts by predicate, and by (predicate, position, object)."""

    def __init__(self) -> None:
        self.by_pred: dict[str, list[tuple[str, ...]]] = {}
        self.by_arg: dict[tuple[str, int, str], list[tuple[str, ...]]] = {}

    def add(self, atom: Atom) -> None:
        self.by_pred.setdefault(atom.predicate, []).append(atom.args)
        for i, obj in enumerate(atom.args):
            self.by_arg.setdefault((atom.predicate, i, obj), []).append(atom.args)


def _unify(terms: tuple[str, ...], args: tuple[str, ...], binding: dict[str, str],
           domains: dict[str, frozenset[str]]) -> dict[str, str] | None:
    if len(terms) != len(args):
        return None
    out = binding
    for t, a in zip(terms, args):
        if t.startswith("?"):
            bound = out.get(t)
            if bound is None:
                if a not in domains.get(t, (a,)):
                    return None
                if out is binding:
                    out = dict(binding)
                out[t] = a
            elif bound != a:
                return None
        elif t != a:
            return None
    return out


# A compiled join step: the atom's predicate, the position and term to look facts up by (-1: all facts of the
# predicate), then per position: ("c", const) must equal, ("b", var) must equal the bound value, ("n", var) binds.
# Last, the (in)equalities of the rule that the step's bindings decide (checked as soon as they can be).
_Step = tuple


def _plan(rule: _Rule, first: int) -> tuple[_Step, ...]:
    """The join order for facts matching atom ``first``: most-bound atom next, decided once per rule atom."""
    bound = {t for t in rule.atoms[first][1] if t.startswith("?")}
    rest = [j for j in range(len(rule.atoms)) if j != first]
    steps = []
    decided = {e for e in rule.eqs if _decidable(e, bound)}  # checked by _complete once the first atom binds
    # Each atom's count of bound terms, kept up to date as variables bind (a rescan per pick was quadratic in
    # terms: a ground domain's actions of ~30 precondition atoms each cost openstacks-strips p25 two minutes).
    score = {j: sum(1 for t in rule.atoms[j][1] if not t.startswith("?") or t in bound) for j in rest}
    uses: dict[str, list[int]] = {}
    for j in rest:
        for t in rule.atoms[j][1]:
            if t.startswith("?") and t not in bound:
                uses.setdefault(t, []).append(j)
    def width(j: int) -> int:  # how many objects the atom's unbound variables may take, at most
        return math.prod(len(rule.domains.get(t, ())) or 1
                         for t in rule.atoms[j][1] if t.startswith("?") and t not in bound)

    while rest:
        # The most-bound atom; among equals the narrowest, then the first (rest is ordered). Why narrowest: in a
        # tree-shaped body (organic synthesis' dieckmanncyclization, 16 bond atoms) binding the any-atom leaves
        # (?r1 - chemical_atom) before the oxygen ends multiplied the bindings those ends then rejected (sat18 p19
        # stalled on some hash seeds). The order changes the work only, never the bindings found.
        top = max(score[j] for j in rest)
        ties = [j for j in rest if score[j] == top]
        j = ties[0] if len(ties) == 1 else min(ties, key=width)
        rest.remove(j)
        pred, terms = rule.atoms[j]
        key_pos, key_term = -1, ""
        for pos, t in enumerate(terms):
            if not t.startswith("?") or t in bound:
                key_pos, key_term = pos, t
                break
        ops = []
        for pos, t in enumerate(terms):
            if not t.startswith("?"):
                ops.append((pos, "c", t))
            elif t in bound:
                ops.append((pos, "b", t))
            else:
                ops.append((pos, "n", t))
                bound.add(t)
                for k in uses.get(t, ()):
                    score[k] += 1
        # (In)equalities this step's bindings decide are checked here, not after the whole join: organic
        # synthesis' (not (= ?c_3 ?c_5)) over symmetric bond facts otherwise lets the join walk back and
        # forth and _complete reject nearly all it finds (70 bindings per ground action on sat18 p19).
        checks = tuple(e for e in rule.eqs if e not in decided and _decidable(e, bound))
        decided.update(checks)
        steps.append((pred, len(terms), key_pos, key_term, tuple(ops), checks))
    return tuple(steps)


def fact_bindings(rule: _Rule, entry: list, fact: Atom, index: _Index,
                  complete: Callable[[_Rule, dict[str, str]], Iterable[tuple[str, ...]]] | None = None,
                  ) -> Iterator[tuple[str, ...]]:
    """The values of ``rule.params`` that ``fact``, matched against rule atom ``entry[1]``, completes with the
    facts in ``index`` (each join binding completed by ``complete``, :func:`_complete` by default); the atom's
    join plan is made on first use and kept in ``entry[2]``."""
    i = entry[1]
    binding = _unify(rule.atoms[i][1], fact.args, {}, rule.domains)
    if binding is None:
        return
    steps = entry[2]
    if steps is None:
        steps = entry[2] = _plan(rule, i)
    complete = complete or _complete
    for full in _join(rule, steps, 0, binding, index):
        yield from complete(rule, full)


def _decidable(eq: tuple[str, str, bool], bound: set[str]) -> bool:
    return all(not t.startswith("?") or t in bound for t in eq[:2])


def _join(rule: _Rule, steps: tuple[_Step, ...], k: int, binding: dict[str, str],
          index: _Index) -> Iterator[dict[str, str]]:
    """Extend ``binding`` over ``steps[k:]`` using processed facts."""
    if k == len(steps):
        yield binding
        return
    pred, arity, key_pos, key_term, ops, checks = steps[k]
    if key_pos < 0:
        candidates = index.by_pred.get(pred, ())
    else:
        candidates = index.by_arg.get((pred, key_pos, binding.get(key_term, key_term)), ())
    domains = rule.domains
    for args in list(candidates):
        if len(args) != arity:
            continue
        nxt = binding
        for pos, kind, t in ops:
            a = args[pos]
            if kind == "c":
                if a != t:
                    break
            elif kind == "b" or t in nxt:
                if nxt[t] != a:
                    break
            else:
                if a not in domains[t]:
                    break
                if nxt is binding:
                    nxt = dict(binding)
                nxt[t] = a
        else:
            if checks and any((nxt.get(left, left) == nxt.get(right, right)) != positive
                              for left, right, positive in checks):
                continue
            yield from _join(rule, steps, k + 1, nxt, index)


def _complete(rule: _Rule, binding: dict[str, str]) -> Iterator[tuple[str, ...]]:
    """Parameter tuples: unbound parameters range over their type; static (in)equalities filter."""
    free = [v for v in rule.params if v not in binding]
    pools = [sorted(rule.domains[v]) for v in free]
    for values in itertools.product(*pools):
        full = dict(binding)
        full.update(zip(free, values))
        ok = True
        for left, right, positive in rule.eqs:
            lv, rv = full.get(left, left), full.get(right, right)
            if (lv.startswith("?") or rv.startswith("?")):
                continue  # an equality over an unbound exists variable: undecided here
            if (lv == rv) != positive:
                ok = False
                break
        if ok:
            yield tuple(full[v] for v in rule.params)


def _changed(eff: m.Effect, kind: type, out: set[str]) -> None:
    """Collect into ``out`` every predicate that ``eff`` can add (``kind`` AddEffect) or delete (DelEffect)."""
    if isinstance(eff, kind):
        out.add(eff.atom.predicate)  # type: ignore[union-attr]
    elif isinstance(eff, m.AndEffect):
        for p in eff.parts:
            _changed(p, kind, out)
    elif isinstance(eff, (m.ForallEffect, m.WhenEffect)):
        _changed(eff.body, kind, out)


def changed_predicates(task: Task, kind: type) -> set[str]:
    """The predicates some action can add (``m.AddEffect``) or delete (``m.DelEffect``)."""
    out: set[str] = set()
    for schema in task.domain.actions.values():
        _changed(schema.effect, kind, out)
    return out


def permanent_atoms(task: Task, state: frozenset[Atom]) -> frozenset[Atom]:
    """The atoms of ``state`` that hold in every state reachable from it: no action deletes their predicate
    (and it is not derived: a derived atom comes and goes with the atoms its rules read)."""
    deleted = changed_predicates(task, m.DelEffect) | task.domain.derived_predicates
    return frozenset(a for a in state if a.predicate not in deleted)


def _axiom_schemas(domain: m.Domain) -> dict[str, m.ActionSchema]:
    """Each :derived rule as a pseudo-schema for the relaxed exploration: its body as the precondition,
    its head as the one add (Fast Downward's translator explores axioms as rules beside the actions:
    ``translate/build_model.py``). The names start with ``:``, which no action name can."""
    return {f":derived {k} {r.predicate}": m.ActionSchema(f":derived {k} {r.predicate}", r.params, r.body,
                                                           m.AddEffect(m.Pred(r.predicate, tuple(v for v, _ in r.params))))
            for k, r in enumerate(domain.derived)}


def ground(task: Task, init: frozenset[Atom] | None = None, *, deadline: float | None = None,
           max_actions: int = DEFAULT_MAX_ACTIONS) -> Grounding:
    """Relaxed-reachable ground actions and atoms of ``task`` from ``init`` (the task's initial state by default).

    Raises:
        GroundingError: more than ``max_actions`` ground actions, or ``deadline``
            (a ``time.perf_counter()`` value) passed; the message names the schema.
    """
    start = time.perf_counter()
    state = task.init if init is None else init
    # Rule atoms a fact can match: by predicate for atoms without constants, else by (predicate, position,
    # constant) of the atom's first constant. The STRIPS airport's domains have 1,400 schemas, each naming
    # its segments as constants: a fact then meets the few atoms of its own segments, not all of them.
    by_pred: dict[str, list[list]] = {}  # [rule, atom index, join plan or None]
    by_const: dict[tuple[str, int, str], list[list]] = {}
    const_positions: dict[str, set[int]] = {}
    rules: list[_Rule] = []
    axioms = _axiom_schemas(task.domain)
    ground_rules: list[_Rule] = []  # rules whose atoms have no variables: they wait on their atoms, no join
    for schema in (*task.domain.actions.values(), *axioms.values()):
        for rule in _rules(task, schema):
            rules.append(rule)
            if rule.atoms and not any(t.startswith("?") for _, terms in rule.atoms for t in terms):
                # A grounded domain's (openstacks-strips p25: ~5,000 schemas of ~30 ground atoms each) would
                # be joined again from each of its atoms as it is reached, quadratic per rule; waiting on the
                # atoms gives the same bindings once, when the last of them is reached.
                ground_rules.append(rule)
                continue
            for i, (pred, terms) in enumerate(rule.atoms):
                first = next((k for k, t in enumerate(terms) if not t.startswith("?")), None)
                entry = [rule, i, None]  # its join plan is made when a fact first matches it
                if first is None:
                    by_pred.setdefault(pred, []).append(entry)
                else:
                    by_const.setdefault((pred, first, terms[first]), []).append(entry)
                    const_positions.setdefault(pred, set()).add(first)

    permanent = permanent_atoms(task, state)
    # Predicates no action adds: a conditional effect waiting on a false atom of one never fires. (Derived
    # predicates hold without an action adding them: they are left out.)
    never_added = (set(task.domain.predicates) - changed_predicates(task, m.AddEffect)
                   - task.domain.derived_predicates)
    reached: set[Atom] = set(state)
    queue: list[Atom] = list(state)
    index = _Index()
    seen: set[tuple[str, tuple[str, ...]]] = set()
    actions: list[GroundAction] = []
    # Ground positive atoms an action or conditional effect still waits for, and what waits on each atom.
    waiting: dict[Atom, list[list]] = {}
    work = 0

    def reach(atoms) -> None:
        for a in atoms:
            if a not in reached:
                reached.add(a)
                queue.append(a)

    def fire_effect(eff) -> None:
        reach(eff.adds)
        for pos, adds in eff.relaxed_conditional():
            if any(a.predicate in never_added and a not in reached for a in pos):
                continue  # waits on an atom nothing adds: never fires (and would wait forever)
            wait(pos, lambda adds=adds: reach(adds))

    def wait(pos: frozenset[Atom], then) -> None:
        missing = [a for a in pos if a not in reached]
        if not missing:
            then()
            return
        entry = [len(missing), then]
        for a in missing:
            waiting.setdefault(a, []).append(entry)

    def found(rule: _Rule, args: tuple[str, ...]) -> None:
        key = (rule.schema.name, args)
        if key in seen:
            return
        seen.add(key)
        if rule.schema.name in axioms:  # a derived atom: reached once its rule's joined atoms are
            reach((task.atom_table.atom(rule.schema.effect.atom.predicate, args),))
            return
        act = task.instantiate(rule.schema.name, args)
        pre = act.precondition
        if pre.tree is False:
            return  # a static contradiction or a false (in)equality
        if pre.neg and not pre.neg.isdisjoint(permanent):
            return  # negates an atom that holds forever: never applicable

        def fire(act=act) -> None:
            actions.append(act)
            if len(actions) > max_actions:
                raise GroundingError(
                    f"grounding gave up: more than {max_actions:,} relaxed-reachable ground actions; schema "
                    f"{act.name!r} alone has {sum(1 for a in actions if a.schema is act.schema):,} "
                    "(a smaller problem, or fewer parameters in that schema)", act.name)
            eff = act.ground_effect
            if eff.ces or eff.ces_nt or eff.deferred:
                fire_effect(eff)
            else:
                reach(eff.adds)

        # Top-level positive atoms (forall expansions included) must all be reached first.
        wait(act.precondition.pos, fire)

    def tick(schema: str) -> None:
        nonlocal work
        work += 1
        if deadline is not None and work % 512 == 0 and time.perf_counter() > deadline:
            raise GroundingError(f"grounding ran past the time limit (while instantiating {schema!r})",
                                 schema, timeout=True)

    def complete(rule: _Rule) -> None:  # every type-consistent tuple (budget-guarded)
        for args in _complete(rule, {}):
            tick(rule.schema.name)
            found(rule, args)

    for rule in rules:
        if not rule.atoms:  # nothing to join on
            complete(rule)
    for rule in ground_rules:
        wait(frozenset(task.atom_table.atom(pred, terms) for pred, terms in rule.atoms),
             lambda rule=rule: complete(rule))
    head = 0
    while head < len(queue):
        fact = queue[head]
        head += 1
        if deadline is not None and head % 256 == 0 and time.perf_counter() > deadline:
            raise GroundingError("grounding ran past the time limit", timeout=True)
        index.add(fact)
        for entry in waiting.pop(fact, ()):
            entry[0] -= 1
            if entry[0] == 0:
                entry[1]()
        matching = by_pred.get(fact.predicate, ())
        positions = const_positions.get(fact.predicate)
        if positions:
            matching = [*matching, *(e for k in positions if k < len(fact.args)
                                     for e in by_const.get((fact.predicate, k, fact.args[k]), ()))]
        for entry in matching:
            rule = entry[0]
            for args in fact_bindings(rule, entry, fact, index):
                tick(rule.schema.name)
                found(rule, args)
    # Discovery order follows set iteration (hash seeds differ between processes); a
    # canonical order keeps searches, tie-breaks and so study records reproducible.
    order = {name: i for i, name in enumerate(task.domain.actions)}
    actions.sort(key=lambda a: (order[a.name], a.args))
    return Grounding(tuple(actions), frozenset(reached), time.perf_counter() - start)
