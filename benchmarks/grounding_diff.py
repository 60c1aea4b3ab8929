"""Which ground actions and fluent atoms only pgt or only Fast Downward's translator has, and why.

pgt's relaxed-reachable grounding (:mod:`toolkit.reach`) and FD's translator
(``fast_downward.translate``: parse, ``normalize``, ``instantiate.explore``) should
agree on which ground actions and fluent atoms a task can ever use. Where they do
not, every difference gets one class:

- ``pgt unsound``: FD has an action (or atom) whose precondition is relaxed-reachable
  through the ground actions of either side, and pgt lacks it. Plans, questions,
  invariants and lint would miss it. Must never happen.
- ``pgt more precise``: FD has an action or atom that no ground action of either side
  can ever make reachable: FD's relaxed model (its Datalog program,
  ``pddl_to_prolog``/``build_model``) over-approximates, e.g. its rule for a
  ``forall`` effect ignores the type of the quantified variable
  (``normalize.py``, ``EffectConditionProxy.build_rules`` adds no type atom for
  ``effect.parameters``), so an atom reached for an object of another type enables
  actions FD then instantiates.
- ``FD simplifying``: pgt has an action FD's ``Action.instantiate``
  (``pddl/actions.py``) drops on purpose: one with no effect left (it keeps no no-op
  operators), or one negating an atom true initially that no effect touches
  (``NegatedAtom.instantiate`` raises ``Impossible``); and the atoms only such
  actions add.
- ``pgt less precise``: pgt has an action whose positive precondition no ground
  action makes reachable (harmless over-approximation).
- ``reading difference``: the two read the input differently (an action schema or
  object only one side knows).
- ``unexplained``: none of the above; to be looked into (the benchmark flags it).

The classes are decided against a reference computed here, independently of both
groundings' exploration: the delete-relaxed closure from the initial state over the
union of both sides' ground actions (and FD's ground axioms for the conditions it
compiles away), each with its positive precondition and its (conditional) adds.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
from collections import Counter
from collections.abc import Iterable

from toolkit.compact import EMPTY as _NONE, compact_set as _set  # imports no other toolkit module

CLASSES = ("pgt unsound", "pgt more precise", "FD simplifying", "pgt less precise", "reading difference",
           "unexplained")


@dataclasses.dataclass(frozen=True, slots=True)
class Op:
    """One ground action (or FD axiom) as the delete relaxation sees it; atoms are ``(pred a b)`` in lower case."""

    pre: frozenset[str]  # positive precondition atoms
    adds: tuple[tuple[frozenset[str], str], ...]  # (positive condition atoms, added atom)
    neg: frozenset[str] = frozenset()  # negated precondition atoms
    no_effect: bool = False  # nothing FD would keep as an effect (pgt's side only)
    dels: frozenset[str] = frozenset()  # atoms it may delete (conditional deletes included)


@dataclasses.dataclass
class Side:
    """One grounding: ground actions by name (FD splits a disjunction into several operators of one name)."""

    actions: dict[str, list[Op]]
    atoms: set[str]  # reachable fluent atoms (of predicates some effect changes)
    init: set[str]
    static_true: set[str]  # initial atoms no effect changes
    schemas: set[str]
    objects: set[str]
    axioms: list[Op] = dataclasses.field(default_factory=list)


@dataclasses.dataclass(frozen=True)
class Difference:
    kind: str  # "action" or "atom"
    only: str  # "pgt" or "FD"
    item: str
    cls: str
    reason: str


def _s(predicate: str, args: Iterable[str]) -> str:
    return "(" + " ".join((str(predicate), *map(str, args))).lower() + ")"


class _Names(dict):
    """Each atom's ``(pred a b)`` text made once and shared by every action that names it (a million ground
    actions name the same few thousand atoms)."""

    def __init__(self, text) -> None:
        super().__init__()
        self.text = text

    def __missing__(self, key) -> str:
        got = self[key] = self.text(key)
        return got


def closure(init: Iterable[str], ops: Iterable[Op]) -> set[str]:
    """The delete-relaxed closure: every atom some sequence of these ops (negations ignored) can add."""
    reached = set(init)
    waiting: dict[str, list[list]] = {}
    queue: list[str] = list(reached)

    def wait(pre: frozenset[str], cond: frozenset[str], atoms: list[str]) -> None:
        missing = [a for a in pre if a not in reached]
        if cond:  # pre | cond, without a union set per conditional add (a million ground actions)
            missing += [a for a in cond if a not in reached and a not in pre]
        if not missing:
            for a in atoms:
                if a not in reached:
                    reached.add(a)
                    queue.append(a)
            return
        entry = [len(missing), atoms]
        for a in missing:
            waiting.setdefault(a, []).append(entry)

    for op in ops:
        wait(op.pre, _NONE, [a for c, a in op.adds if not c])
        by_cond: dict[frozenset[str], list[str]] = {}
        for cond, atom in op.adds:
            if cond:
                by_cond.setdefault(cond, []).append(atom)
        for cond, atoms in by_cond.items():
            wait(op.pre, cond, atoms)
    while queue:
        fact = queue.pop()
        for entry in waiting.pop(fact, ()):
            entry[0] -= 1
            if entry[0] == 0:
                for a in entry[1]:
                    if a not in reached:
                        reached.add(a)
                        queue.append(a)
    return reached


def _schema_and_objects(name: str) -> tuple[str, list[str]]:
    parts = name.strip("()").split()
    return parts[0], parts[1:]


def classify(pgt: Side, fd: Side) -> list[Difference]:
    """Every ground action and fluent atom only one side has, each with its class and reason."""
    everything = [op for ops in pgt.actions.values() for op in ops] + \
                 [op for ops in fd.actions.values() for op in ops] + fd.axioms
    # An action negating an atom that holds initially and that no action of either side deletes can
    # never fire: the reference leaves it out (pgt drops it; FD only where the atom's predicate is
    # static, NegatedAtom.instantiate, so it keeps e.g. nurikabe's (not (blocked ?to)), blocked only added).
    forever = (pgt.init | fd.init) - {a for op in everything for a in op.dels}
    reach_live = closure(pgt.init | fd.init, [op for op in everything if op.neg.isdisjoint(forever)])
    reach_all = closure(pgt.init | fd.init, everything)  # for pgt's own: never firing is FD simplifying there
    out: list[Difference] = []

    for name in sorted(set(fd.actions) - set(pgt.actions)):
        schema, objs = _schema_and_objects(name)
        unknown = [o for o in objs if o not in pgt.objects]
        if schema not in pgt.schemas or unknown:
            out.append(Difference("action", "FD", name, "reading difference",
                                  f"pgt knows no {'schema ' + schema if schema not in pgt.schemas else unknown[0]}"))
            continue
        never = sorted(a for op in fd.actions[name] for a in op.neg & forever)
        if all(not op.neg.isdisjoint(forever) for op in fd.actions[name]):
            out.append(Difference("action", "FD", name, "pgt more precise",
                                  f"negates {never[0]}, true initially and deleted by no action: never applicable"))
            continue
        live = [op for op in fd.actions[name] if op.pre <= reach_live and op.neg.isdisjoint(forever)]
        if live:
            out.append(Difference("action", "FD", name, "pgt unsound",
                                  "its precondition is relaxed-reachable, yet pgt's grounding lacks it"))
            continue
        missing = sorted(min(fd.actions[name], key=lambda op: len(op.pre - reach_live)).pre - reach_live)
        out.append(Difference("action", "FD", name, "pgt more precise",
                              f"needs {missing[0]}, which FD's relaxed model holds but no ground action adds"))

    for atom in sorted(fd.atoms - pgt.atoms):
        if atom in reach_live:
            out.append(Difference("atom", "FD", atom, "pgt unsound", "relaxed-reachable, yet not in pgt's grounding"))
        else:
            out.append(Difference("atom", "FD", atom, "pgt more precise",
                                  "in FD's relaxed model, but no ground action that can fire adds it"))

    # pgt's own: direct reasons first, then atoms and actions that follow from already classified ones.
    pending = sorted(set(pgt.actions) - set(fd.actions))
    cls_of: dict[str, tuple[str, str]] = {}
    for name in pending:
        schema, objs = _schema_and_objects(name)
        op = pgt.actions[name][0]
        negated = sorted(op.neg & fd.static_true)
        if negated:
            cls_of[name] = ("FD simplifying", f"negates {negated[0]}, true initially and in no effect: FD drops it")
        elif op.no_effect:
            cls_of[name] = ("FD simplifying", "no effect: FD keeps no operator without effects")
        elif schema not in fd.schemas or any(o not in fd.objects for o in objs):
            cls_of[name] = ("reading difference", "FD knows no such schema or object")
        elif not op.pre <= reach_all:
            cls_of[name] = ("pgt less precise", "its positive precondition is never relaxed-reachable")
    atom_cls: dict[str, tuple[str, str]] = {}
    only_atoms = pgt.atoms - fd.atoms
    changed = True
    while changed:
        changed = False
        for name in pending:
            if name in cls_of:
                for _, atom in pgt.actions[name][0].adds:
                    if atom in only_atoms and atom not in atom_cls:
                        atom_cls[atom] = (cls_of[name][0], f"added only by {name} ({cls_of[name][0]})")
                        changed = True
                continue
            needs = sorted(a for a in pgt.actions[name][0].pre if a in atom_cls)
            if needs:
                cls_of[name] = (atom_cls[needs[0]][0], f"needs {needs[0]} ({atom_cls[needs[0]][0]})")
                changed = True
    for name in pending:
        cls, reason = cls_of.get(name, ("unexplained", "FD reaches its precondition but has no such action"))
        out.append(Difference("action", "pgt", name, cls, reason))
    for atom in sorted(only_atoms):
        cls, reason = atom_cls.get(atom, ("unexplained", "not added by an action only pgt has"))
        out.append(Difference("atom", "pgt", atom, cls, reason))
    return out


def counts(diffs: Iterable[Difference]) -> dict[str, int]:
    """Differences per ``"<kind>s only <side>: <class>"``, e.g. ``{"actions only FD: pgt more precise": 6}``."""
    c = Counter(f"{d.kind}s only {d.only}: {d.cls}" for d in diffs)
    return dict(sorted(c.items()))


# ------------------------------------------------------------------ the two sides


def pgt_side(domain: str, problem: str, max_actions: int | None = None) -> Side:
    """pgt's relaxed-reachable grounding (:meth:`toolkit.task.Task.grounding`) as a :class:`Side`; ``max_actions``
    raises its ground-action budget (``toolkit.reach.DEFAULT_MAX_ACTIONS`` by default)."""
    from toolkit.known_facts import changed_predicates
    from toolkit.task import load_task

    task = load_task(domain, problem)
    g = task.grounding() if max_actions is None else task.grounding(max_actions=max_actions)
    fluent = set(changed_predicates(task.domain))
    reached = g.atoms
    actions: dict[str, list[Op]] = {}
    n = _Names(lambda atom: str(atom).lower())
    for a in g.actions:
        eff = a.ground_effect.compile()  # not kept on the action: the side would hold every effect twice
        adds = [(_NONE, n[x]) for x in eff.adds]
        live = bool(eff.adds) or not eff.dels.isdisjoint(reached)
        for ce in eff.conditional:
            cond = _set(n[x] for x in ce.condition.pos)
            adds += [(cond, n[x]) for x in ce.adds]
            live = live or (ce.condition.pos <= reached and (bool(ce.adds) or not ce.dels.isdisjoint(reached)))
        dels = [n[x] for x in eff.dels] + [n[x] for ce in eff.conditional for x in ce.dels]
        actions[str(a).lower()] = [Op(_set(n[x] for x in a.precondition.pos), tuple(adds),
                                      _set(n[x] for x in a.precondition.neg), not live, _set(dels))]
    init = {str(x).lower() for x in task.init}
    return Side(actions, {str(x).lower() for x in reached if x.predicate in fluent}, init,
                {str(x).lower() for x in task.init if x.predicate not in fluent},
                {n.lower() for n in task.domain.actions}, {o.lower() for o in task.objects})


def fd_side(domain: str, problem: str) -> Side:
    """FD's translator up to its grounding (``instantiate.explore``, default options) as a :class:`Side`."""
    from fast_downward.translate import instantiate, normalize, options, pddl, pddl_parser

    options.set_options([domain, problem])
    with contextlib.redirect_stdout(io.StringIO()):
        task = pddl_parser.open(domain_filename=domain, problem_filename=problem)
        normalize.normalize(task)
        _, fluent_facts, actions, _, axioms, _ = instantiate.explore(task)
    derived = {str(ax.name) for ax in task.axioms}
    fluent = {eff.literal.predicate for act in task.actions for eff in act.effects}
    ops: dict[str, list[Op]] = {}
    n = _Names(lambda key: _s(*key))
    for a in actions:
        pre = _set(n[lit.predicate, lit.args] for lit in a.precondition if not lit.negated)
        adds = tuple((_set(n[c.predicate, c.args] for c in cond if not c.negated), n[e.predicate, e.args])
                     for cond, e in a.add_effects)
        neg = _set(n[lit.predicate, lit.args] for lit in a.precondition if lit.negated)
        dels = _set(n[e.predicate, e.args] for _, e in a.del_effects)
        name = "(" + " ".join(a.name.lower().strip("()").split()) + ")"  # FD writes "(noop )" without arguments
        ops.setdefault(name, []).append(Op(pre, adds, neg, dels=dels))
    ax_ops = [Op(frozenset(_s(c.predicate, c.args) for c in ax.condition if not c.negated),
                 ((frozenset(), _s(ax.effect.predicate, ax.effect.args)),))
              for ax in axioms if not ax.effect.negated]
    init_atoms = [a for a in task.init if isinstance(a, pddl.Atom)]
    return Side(ops, {_s(f.predicate, f.args) for f in fluent_facts if str(f.predicate) not in derived},
                {_s(a.predicate, a.args) for a in init_atoms},
                {_s(a.predicate, a.args) for a in init_atoms if a.predicate not in fluent and a.predicate != "="},
                {a.name.lower() for a in task.actions}, {o.name.lower() for o in task.objects}, ax_ops)
