"""The derived atoms that can hold in some state of a task: a semi-naive fixpoint over the rules' joins.

Why: grounding a ``:derived`` rule for every type-correct head tuple costs the
product of its parameter types. psr-large's ``(upstream ?x ?sx ?y ?sy)`` has
4·D² heads, over a million for p50's 511 devices, almost all with a body that
static facts leave open, so pgt spent minutes on rules whose heads no state can
make true. Fast Downward's translator grounds only the derived heads its relaxed
exploration reaches: axioms are rules of its Datalog program beside the actions
(``translate/build_model.py``), instantiated by their joins
(``translate/instantiate.py``, ``instantiate``). pgt's rules close *any* state a
caller hands in, not only the reachable ones, so the fixpoint here reaches a head
when its body can hold in some state that agrees with the task's static facts:

* a positive static atom must be a fact of the initial state (it is in every such
  state);
* a positive derived atom must be a head reached already;
* every other literal (a basic atom some action changes, any negated atom, a
  forall, a numeric comparison) is taken as able to hold: dropped from the join,
  which over-approximates (as :mod:`toolkit.reach` does for actions).

A derived atom outside the result is false in every state that agrees with the
static facts (by induction over the least fixpoint: each rule that makes it hold
has a join binding whose atoms all hold, hence were reached), so grounding only
these heads, and reading the others as false inside rule bodies, closes every
such state exactly as grounding all heads does. The join is the relaxed
exploration's (:mod:`toolkit.reach`): each fact is processed once and a binding is
found when the last of its facts is.

A rule whose body is a disjunction of conjunctions of literals once ``exists`` is
pulled out (:func:`literal_branches`: no ``forall``, no numeric comparison, at
most 64 branches) is also ground from the same joins: each binding of a branch
(head and ``exists`` values) is one conjunction of the branch's literals, static
ones decided, so the bodies cost the bindings found and not the head tuples times
the quantified values (FD's translator likewise instantiates each axiom by its
join bindings). Other rules are ground top-down over the reached heads
(:func:`toolkit.rule_grounding.ground_rules`).
"""

from __future__ import annotations

import itertools
from typing import Callable

from toolkit import model as m
from toolkit.model import Atom
from toolkit.reach import _axiom_schemas, _branches, _Index, _Rule, fact_bindings

ObjectsOf = Callable[[tuple[str, ...]], tuple[str, ...]]
# One disjunct of a rule body: its literals (predicate, terms, positive), (in)equalities (left, right, positive)
# and the ``exists`` variables it binds besides the head's.
Branch = tuple[tuple[tuple[str, tuple[str, ...], bool], ...], tuple[tuple[str, str, bool], ...], tuple[m.Param, ...]]
_MAX_BRANCHES = 64


def literal_branches(cond: m.Condition, positive: bool = True) -> list[Branch] | None:
    """``cond`` (under ``positive``) as a disjunction of conjunctions of literals with its ``exists`` variables
    pulled out; None where that is not exact or too large (a ``forall`` or a negated ``exists``, a numeric
    comparison, two quantifiers reusing one variable name, over :data:`_MAX_BRANCHES` branches)."""
    if isinstance(cond, m.Pred):
        return [(((cond.predicate, cond.terms, positive),), (), ())]
    if isinstance(cond, m.Equals):
        return [((), ((cond.left, cond.right, positive),), ())]
    if isinstance(cond, m.Not):
        return literal_branches(cond.arg, not positive)
    if isinstance(cond, m.Imply):
        return literal_branches(m.Or((m.Not(cond.premise), cond.conclusion)), positive)
    if isinstance(cond, (m.And, m.Or)):
        parts = [literal_branches(p, positive) for p in cond.parts]
        if any(alts is None for alts in parts):
            return None
        if isinstance(cond, m.And) != positive:  # a disjunction: the parts' branches side by side
            flat = [alt for alts in parts for alt in alts]  # type: ignore[union-attr]
            return flat if len(flat) <= _MAX_BRANCHES else None
        out: list[Branch] = [((), (), ())]
        for alts in parts:  # a conjunction: the cross product of the parts' branches
            new = []
            for (l1, e1, x1), (l2, e2, x2) in itertools.product(out, alts):  # type: ignore[arg-type]
                if {v for v, _ in x1} & {v for v, _ in x2}:
                    return None  # two quantifiers of one name would become one variable
                new.append((l1 + l2, e1 + e2, x1 + x2))
            out = new
            if len(out) > _MAX_BRANCHES:
                return None
        return out
    if isinstance(cond, m.Exists if positive else m.Forall):
        inner = literal_branches(cond.body, positive)
        if inner is None:
            return None
        names = {v for v, _ in cond.params}
        if any(names & {v for v, _ in x} for _, _, x in inner):
            return None
        return [(lits, eqs, tuple(cond.params) + x) for lits, eqs, x in inner]
    return None


def _rules(domain: m.Domain, objects_of: ObjectsOf,
           static: frozenset[str]) -> list[tuple[int, _Rule, Branch | None]]:
    """Each rule's disjunctive branches as joins over their positive static and derived atoms, with the branch
    itself where the rule has exact literal branches (None where only its heads are computed here)."""
    derived = domain.derived_predicates
    out: list[tuple[int, _Rule, Branch | None]] = []
    for k, (rule, schema) in enumerate(zip(domain.derived, _axiom_schemas(domain).values())):
        params = tuple(v for v, _ in schema.params)
        exact = literal_branches(rule.body)
        if exact is not None and any(v in params for _, _, extra in exact for v, _ in extra):
            exact = None  # an exists variable shadows a head parameter: heads only
        if exact is not None:
            alts = [([(p, t) for p, t, pos in lits if pos], list(eqs), list(extra)) for lits, eqs, extra in exact]
        else:
            alts = _branches(schema.precondition, True) or [([], [], [])]
        for b, (atoms, eqs, extra) in enumerate(alts):
            kept = tuple((p, t) for p, t in atoms if p in static or p in derived)
            domains = {v: frozenset(objects_of(t)) for v, t in (*schema.params, *extra)}
            if any(not d for d in domains.values()) if exact is not None else any(not domains[v] for v in params):
                continue  # a head type (or, exactly, an exists type) without objects: this branch never holds
            if exact is not None:  # every variable of the branch is bound: its literals are ground per binding
                params_all = params + tuple(v for v, _ in extra if v not in params)
                out.append((k, _Rule(schema, kept, domains, tuple(eqs), params_all), exact[b]))
            else:
                out.append((k, _Rule(schema, kept, domains, tuple(eqs), params), None))
    return out


def _complete(rule: _Rule, binding: dict[str, str]) -> list[tuple[str, ...]]:
    """The values of ``rule.params`` extending ``binding``: unbound ones over their objects, (in)equalities
    among bound ones checked (as :func:`toolkit.reach._complete`, in a stable object order)."""
    if not rule.eqs and all(v in binding for v in rule.params):  # the join bound every variable
        return [tuple([binding[v] for v in rule.params])]
    pools = [(binding[v],) if v in binding else sorted(rule.domains[v]) for v in rule.params]
    out = []
    for values in itertools.product(*pools):
        full = dict(zip(rule.params, values))
        if all((full.get(a, a) == full.get(b, b)) == pos for a, b, pos in rule.eqs
               if not full.get(a, a).startswith("?") and not full.get(b, b).startswith("?")):
            out.append(values)
    return out


class RuleHeads:
    """The fixpoint's result: per rule (file order) the reached head tuples; per rule with exact literal
    branches, the bindings found ((head values, branch, all its variables' values)); the bindings tried."""

    def __init__(self, n: int) -> None:
        self.heads: list[set[tuple[str, ...]]] = [set() for _ in range(n)]
        self.bindings: list[list[tuple[tuple[str, ...], Branch, tuple[str, ...], tuple[str, ...]]] | None] = \
            [None] * n
        self.work = 0


def reachable_heads(domain: m.Domain, objects_of: ObjectsOf, static_facts: frozenset[Atom],
                    static: frozenset[str]) -> RuleHeads:
    """Per rule of ``domain.derived`` (in file order), the head tuples its body can make hold in a state that
    agrees with ``static_facts`` (the true atoms of the ``static`` predicates), with the join bindings found.

    >>> from toolkit.loader import parse_domain
    >>> d = parse_domain('''(define (domain g) (:predicates (edge ?a ?b) (path ?a ?b))
    ...   (:derived (path ?a ?b) (or (edge ?a ?b) (exists (?c) (and (edge ?a ?c) (path ?c ?b))))))''')
    >>> objs = lambda t: ("a", "b", "c")
    >>> found = reachable_heads(d, objs, frozenset({Atom("edge", ("a", "b")), Atom("edge", ("b", "c"))}),
    ...                         frozenset({"edge"}))
    >>> sorted(found.heads[0])
    [('a', 'b'), ('a', 'c'), ('b', 'c')]
    """
    rules = _rules(domain, objects_of, static)
    out = RuleHeads(len(domain.derived))
    for k, _, branch in rules:
        if branch is not None:
            out.bindings[k] = []
    by_pred: dict[str, list[list]] = {}  # predicate -> [rule index, atom index, join plan or None]
    for n, (_, rule, _) in enumerate(rules):
        for i, (pred, _terms) in enumerate(rule.atoms):
            by_pred.setdefault(pred, []).append([n, i, None])
    queue: list[Atom] = list(static_facts)
    arity = {k: len(r.params) for k, r in enumerate(domain.derived)}

    seen: set[tuple[int, tuple[str, ...]]] = set()

    def found(n: int, values: tuple[str, ...]) -> None:
        k, rule, branch = rules[n]
        head = values[:arity[k]]
        bindings = out.bindings[k]
        if bindings is not None and (n, values) not in seen:  # a binding two of its atoms' facts both find
            seen.add((n, values))
            bindings.append((head, branch, rule.params, values))  # type: ignore[arg-type]
        if head not in out.heads[k]:
            out.heads[k].add(head)
            queue.append(Atom(domain.derived[k].predicate, head))

    for n, (_, rule, _) in enumerate(rules):
        if not rule.atoms:  # nothing to join on: every binding the (in)equalities allow
            for values in _complete(rule, {}):
                out.work += 1
                found(n, values)
    index = _Index()
    head = 0
    while head < len(queue):
        fact = queue[head]
        head += 1
        index.add(fact)
        for entry in by_pred.get(fact.predicate, ()):
            n = entry[0]
            for values in fact_bindings(rules[n][1], entry, fact, index, _complete):
                out.work += 1
                found(n, values)
    return out
