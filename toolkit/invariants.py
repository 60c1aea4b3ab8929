"""Mutual-exclusion invariants, derived from the action model (never written by hand).

An *invariant group* is a set of atoms of which at most one is true in every
reachable state ("a block is in at most one column"), and, where the actions also
preserve it, at least one ("exactly one": "a block has exactly one thing on it or
is clear"). Groups come from lifted *patterns* such as ``{on(*, ?b), clear(?b)}``:
every member predicate fixes the group parameters (``?b``) at some argument
positions and counts over the others (``*``).

The analysis follows the balance argument of Helmert's invariant synthesis
(Fast Downward's translator), but checks it on the *ground* actions of one task,
which handles conditional effects under ``forall`` that the lifted synthesis
gives up on (it finds no invariant in either ViPlan domain). A pattern is kept
when every ground action, in every state where it can fire and the group holds:

* adds at most one atom of a group instance (never two at once), and leaves every
  other atom of the instance false: deleted whenever true, known false from the
  precondition, or false because another atom of the instance is known true;
* for *exactly one*, additionally: whenever it deletes a true atom of an
  instance, it surely adds another one.

This proves the group is *preserved*; whether the initial state satisfies it is a
fact about the problem, which an agent without privileged access learns from its
observations (see :mod:`toolkit.agents.belief_agent`). An instance of a single atom
is no group, but under "exactly one" it says the atom is true; :func:`lone_atoms`
checks those instances by the same rule.
"""

from __future__ import annotations

import functools
import itertools
import weakref
from dataclasses import dataclass
from typing import Iterable

from toolkit.model import Atom
from toolkit.task import GroundAction, Task

MAX_MEMBERS = 2  # predicates per pattern; pairs already capture the ViPlan invariants


def _per_task(fn):
    """``fn(task, *args)`` remembered per task, in a memo the task does not outlive.

    Why not ``functools.lru_cache``: its keys hold the last 64-256 tasks (and all their ground
    actions) alive after the caller dropped them, which a study loading many problems pays for in
    memory; here the memo is a ``WeakKeyDictionary`` entry that goes with its task.
    """
    memo: weakref.WeakKeyDictionary[Task, dict] = weakref.WeakKeyDictionary()

    @functools.wraps(fn)
    def cached(task: Task, *args):
        hits = memo.get(task)
        if hits is None:
            hits = memo[task] = {}
        if args not in hits:
            hits[args] = fn(task, *args)
        return hits[args]

    cached.cache_clear = memo.clear  # type: ignore[attr-defined]
    return cached


@dataclass(frozen=True, order=True)
class Member:
    """One predicate of a pattern: ``positions`` hold the group parameters, in group order."""

    predicate: str
    positions: tuple[int, ...]
    arity: int

    def key(self, atom: Atom) -> tuple[str, ...]:
        return tuple(atom.args[p] for p in self.positions)

    def text(self) -> str:
        names = [f"?g{self.positions.index(i)}" if i in self.positions else "*" for i in range(self.arity)]
        return f"({' '.join((self.predicate, *names))})"


@dataclass(frozen=True)
class Pattern:
    """A lifted invariant: per group-parameter binding, at most (or exactly) one member atom is true."""

    members: tuple[Member, ...]
    exactly_one: bool  # the actions also never take the last true atom away

    def __str__(self) -> str:
        kind = "exactly one of" if self.exactly_one else "at most one of"
        return f"{kind} {{{', '.join(m.text() for m in self.members)}}}"


@dataclass(frozen=True)
class Group:
    """A ground instance of a pattern."""

    pattern: Pattern
    key: tuple[str, ...]
    atoms: frozenset[Atom]

    def __str__(self) -> str:
        return f"{self.pattern} with {', '.join(self.key) or 'no parameters'}: {len(self.atoms)} atoms"


@dataclass(frozen=True)
class _Entry:
    """One ground add or delete with the literals under which it fires (besides the precondition)."""

    atom: Atom
    pos: frozenset[Atom]
    neg: frozenset[Atom]


def fluent_predicates(task: Task) -> list[str]:
    """Predicates some action can change."""
    names: set[str] = set()
    for action in task.reachable_actions():
        eff = action.effect
        names.update(a.predicate for a in eff.adds | eff.dels)
        for c in eff.conditional:
            names.update(a.predicate for a in c.adds | c.dels)
    return sorted(names)


def _candidates(task: Task, fluents: list[str]) -> Iterable[tuple[Member, ...]]:
    by_k: dict[int, list[Member]] = {}
    for name in fluents:
        arity = task.domain.predicates[name].arity
        for k in range(arity + 1):
            for positions in itertools.permutations(range(arity), k):
                by_k.setdefault(k, []).append(Member(name, positions, arity))
    for members in by_k.values():
        for size in range(1, MAX_MEMBERS + 1):
            for combo in itertools.combinations(members, size):
                if len({m.predicate for m in combo}) < size:
                    continue  # one predicate twice is a different counting; not needed here
                if all(m.arity == len(m.positions) for m in combo) and size == 1:
                    continue  # a single atom: trivially at most one
                yield combo


@_per_task
def _atoms_by_predicate(task: Task) -> dict[str, list[Atom]]:
    """The reachable atoms per predicate, sorted: one pass instead of a scan of every atom per member
    (``Task.reachable_atoms(p)`` scans them all; on nomystery p01 that was a quarter of the analysis)."""
    out: dict[str, list[Atom]] = {}
    for atom in task.reachable_atoms():
        out.setdefault(atom.predicate, []).append(atom)
    return out


def _instances(task: Task, members: tuple[Member, ...], least: int = 2) -> dict[tuple[str, ...], frozenset[Atom]]:
    """The pattern's ground instances of at least ``least`` reachable atoms, by group key.

    An instance of one atom says nothing under "at most one", so groups are those of two or more;
    :func:`lone_atoms` reads the instances of one atom under "exactly one".
    """
    out: dict[tuple[str, ...], set[Atom]] = {}
    by_predicate = _atoms_by_predicate(task)
    for m in members:
        for atom in by_predicate.get(m.predicate, ()):
            out.setdefault(m.key(atom), set()).add(atom)
    return {k: frozenset(v) for k, v in out.items() if len(v) >= least}


def _entries(action: GroundAction) -> tuple[list[_Entry], list[_Entry]]:
    """Adds and deletes with their (conjunctive) firing conditions; disjunctive parts are ignored (conservative)."""
    eff, none = action.effect, frozenset()
    adds = [_Entry(a, none, none) for a in eff.adds]
    dels = [_Entry(a, none, none) for a in eff.dels]
    for c in eff.conditional:
        adds += [_Entry(a, c.condition.pos, c.condition.neg) for a in c.adds]
        dels += [_Entry(a, c.condition.pos, c.condition.neg) for a in c.dels]
    return adds, dels


def _consistent(pos: frozenset[Atom], neg: frozenset[Atom], group: frozenset[Atom]) -> bool:
    """Could these literals hold together, given that the group holds (at most one true)?"""
    return pos.isdisjoint(neg) and len(pos & group) <= 1


def _implied(entry: _Entry, pos: frozenset[Atom], neg: frozenset[Atom]) -> bool:
    return entry.pos <= pos and entry.neg <= neg


def _preserves_plain(action: GroundAction, group: frozenset[Atom], exactly_one: bool) -> bool:
    """:func:`_preserves` for an action without conditional effects, on whole sets.

    The same rules as the general check with every entry's own condition empty (so
    every add and delete is implied by the precondition); it spares building an
    entry list per (action, group), the bulk of the analysis on STRIPS tasks.
    """
    pre_pos, pre_neg = action.precondition.pos, action.precondition.neg
    known = pre_pos & group
    if len(known) > 1 or not pre_pos.isdisjoint(pre_neg):
        return True  # never fires in a state where the group holds
    eff = action.effect
    g_adds, g_dels = eff.adds & group, eff.dels & group
    if not g_adds:
        # Nothing added: at most one stays true. The last true atom disappears where a deleted
        # atom can be true before (not negated, no other group atom known true).
        return not exactly_one or all(d in pre_neg or not known <= {d} for d in g_dels)
    if len(g_adds) > 1:
        return False  # two atoms of the group at once
    (add,) = g_adds
    if known:
        return known <= g_dels | g_adds
    if len(group) > len(pre_neg) + len(g_dels) + 1:
        return False  # more atoms may be true than the action deletes (no set built)
    return group - pre_neg - g_dels <= g_adds


def _preserves(action: GroundAction, group: frozenset[Atom], adds: list[_Entry], dels: list[_Entry],
               exactly_one: bool) -> bool:
    if action.precondition.tree is False:
        return True  # never applicable
    if not action.effect.conditional:
        return _preserves_plain(action, group, exactly_one)
    pre_pos, pre_neg = action.precondition.pos, action.precondition.neg
    g_adds = [e for e in adds if e.atom in group]
    g_dels = [e for e in dels if e.atom in group]
    deleted = {d.atom for d in g_dels}
    for add in g_adds:
        pos, neg = pre_pos | add.pos, pre_neg | add.neg
        if not _consistent(pos, neg, group):
            continue  # never fires
        for other in g_adds:
            if other.atom != add.atom and _consistent(pos | other.pos, neg | other.neg, group):
                return False  # two atoms of the group can be added at once
        # Every other group atom that may be true before must be deleted whenever it is. One
        # known true atom (at most one: consistent) rules out the rest; else every atom not known
        # false may be true. Only deleted atoms can pass, so those are the only ones tried
        # (a scan of the whole group per add took minutes on parking's groups of hundreds).
        if not pos & group and len(group) > len(neg) + len(deleted) + 1:
            return False  # more atoms may be true than the action deletes (no set built)
        maybe = pos & group or group - neg
        if not maybe - {add.atom} <= deleted:
            return False
        for beta in maybe - {add.atom}:
            if not any(d.atom == beta and _implied(d, pos | {beta}, neg) for d in g_dels):
                return False
    if exactly_one:
        for d in g_dels:
            pos, neg = pre_pos | d.pos | {d.atom}, pre_neg | d.neg
            if not _consistent(pos, neg, group):
                continue
            if not any(_implied(a, pos, neg) for a in g_adds):
                return False  # the last true atom can disappear
    return True


@_per_task
def find_patterns(task: Task) -> tuple[Pattern, ...]:
    """Every pattern (up to :data:`MAX_MEMBERS` predicates) the task's actions preserve.

    Preserved is not yet invariant: the initial state must satisfy the pattern too
    (see :func:`invariants_of`, or the agent's survey).
    """
    actions = task.reachable_actions()
    # Entry lists only for actions with conditional effects (the others are checked on whole sets).
    effects = {a: _entries(a) for a in actions if a.effect.conditional}
    none: tuple[list[_Entry], list[_Entry]] = ([], [])
    # Which actions add or delete each atom: a group is checked against the actions that
    # touch it only, instead of scanning every ground action per group (IPC tasks such as
    # agricola have thousands of groups and actions; the scan took minutes).
    touching: dict[Atom, list[GroundAction]] = {}
    for a in actions:
        adds, dels = effects.get(a, none)
        for atom in {e.atom for e in adds} | {e.atom for e in dels} | a.effect.adds | a.effect.dels:
            touching.setdefault(atom, []).append(a)
    found: list[Pattern] = []
    for members in _candidates(task, fluent_predicates(task)):
        instances = _instances(task, members).values()
        if not instances:
            continue
        relevant = [(g, {a for atom in g for a in touching.get(atom, ())}) for g in instances]
        for exactly in (True, False):
            if all(_preserves(a, g, *effects.get(a, none), exactly) for g, acts in relevant for a in acts):
                found.append(Pattern(members, exactly))
                break
    return tuple(found)


@_per_task
def lone_atoms(task: Task, pattern: Pattern) -> frozenset[Atom]:
    """The atoms an exactly-one pattern pins down alone: its instances of a single reachable atom.

    "Exactly one of one atom" says the atom is true, in every state that satisfies the
    pattern there, if the actions keep it so. :func:`find_patterns` proves preservation
    on the groups (two or more atoms) only, so each such instance is checked here by the
    same rule (no action takes its atom away without adding it back); those that pass
    are returned. Hanoi with one disc: nothing is ever moved onto ``d1``,
    so "``d1`` is clear or has one thing on it" has the single atom ``(clear d1)``.
    Empty for an at-most-one pattern (one atom or none says nothing).
    """
    if not pattern.exactly_one:
        return frozenset()
    lone = {atom for atoms in _instances(task, pattern.members, least=1).values() if len(atoms) == 1
            for atom in atoms}
    touching: dict[Atom, list[GroundAction]] = {atom: [] for atom in lone}
    for action in task.reachable_actions() if lone else ():
        eff = action.effect
        for atom in lone & (eff.adds | eff.dels | {x for c in eff.conditional for x in c.adds | c.dels}):
            touching[atom].append(action)
    return frozenset(atom for atom, actions in touching.items()
                     if all(_preserves(a, frozenset({atom}), *_entries(a), True) for a in actions))


def drop_implied(task: Task, patterns: Iterable[Pattern]) -> tuple[Pattern, ...]:
    """Leave out patterns whose every group another kept pattern already constrains."""
    with_inst = [(p, _instances(task, p.members)) for p in patterns]
    kept: list[tuple[Pattern, dict]] = []
    for pattern, inst in sorted(with_inst, key=lambda f: (-max(map(len, f[1].values())), not f[0].exactly_one)):
        if not any(_implies(p, other, pattern, inst) for p, other in kept):
            kept.append((pattern, inst))
    return tuple(p for p, _ in kept)


def _implies(strong: Pattern, strong_inst: dict, weak: Pattern, weak_inst: dict) -> bool:
    """Whether ``strong``'s groups already say everything ``weak``'s say."""
    if weak.exactly_one:
        return strong.exactly_one and set(weak_inst.values()) <= set(strong_inst.values())
    return all(any(g <= h for h in strong_inst.values()) for g in weak_inst.values())


def groups(task: Task, patterns: Iterable[Pattern] | None = None) -> list[Group]:
    """The ground instances of invariant patterns (default: every preserved one)."""
    out = []
    for pattern in find_patterns(task) if patterns is None else patterns:
        for key, atoms in sorted(_instances(task, pattern.members).items()):
            out.append(Group(pattern, key, atoms))
    return out


def violations(group: Group, state: frozenset[Atom]) -> int:
    """How far ``state`` is from satisfying the group: extra true atoms, or 1 for none under exactly-one."""
    n = len(group.atoms & state)
    return max(n - 1, 0) + (n == 0 and group.pattern.exactly_one)


def invariants_of(task: Task, state: frozenset[Atom] | None = None, majority: bool = False) -> tuple[Pattern, ...]:
    """The preserved patterns that ``state`` (default: the problem's initial state) satisfies.

    A preserved pattern is an invariant of the problem when its initial state
    satisfies it; an exactly-one pattern that the state satisfies only as
    at-most-one is returned as at-most-one. With ``majority``, more than half of a
    pattern's groups satisfying it is enough (a state read from noisy answers).
    """
    state = task.init if state is None else state

    def enough(hits: int, total: int) -> bool:
        return 2 * hits > total if majority else hits == total

    out = []
    for pattern in find_patterns(task):
        counts = [len(g.atoms & state) for g in groups(task, [pattern])]
        if pattern.exactly_one and enough(sum(c == 1 for c in counts), len(counts)):
            out.append(pattern)
        elif enough(sum(c <= 1 for c in counts), len(counts)):
            out.append(Pattern(pattern.members, False))
    return drop_implied(task, out)
