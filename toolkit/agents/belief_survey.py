"""``pgt-grounder``'s first look: ask until the start state is known, not every atom once.

An invariant group such as "a disc sits on exactly one thing" turns one "yes" into
"no" for every other place the disc could be, so asking each of its atoms once (the
survey before issue 28's hanoi measurement: 21.3 of 24.4 questions per hanoi episode)
spends most questions on what one answer already says. The survey therefore holds
the groups the action model proves *preserved* (:func:`toolkit.invariants.find_patterns`)
once its answers show them holding: the smallest group of each pattern is asked in
full, and the next smallest (up to ``WITNESSES``, 2) only where the first does not
show the pattern as it stands; a pattern is held when one of them satisfies it (one
wrong answer in one witness does not drop it; a pattern of one group, such as
hanoi's ``{(clear *)}``, a count the moves keep rather than "exactly one", is not
held, since verifying it is asking it all). Asking the second witness whatever the
first said cost hanoi's small groups (two to four atoms) most of its survey, though
its verdict could only repeat the first's. The other atoms of held groups are
asked one question at a time, the atom of most expected information about the
atoms still below ``survey_trust`` (0.95) certainty, until all are that certain (at
``settle``, 0.9, one wrong "yes" among four Blocksworld columns passed as 0.915
certain, and the plan built on it ran out of steps on a hard problem).

An exactly-one instance of a single reachable atom (:func:`toolkit.invariants.lone_atoms`:
nothing is ever put on hanoi's only disc, so "clear or one thing on it" is just
``(clear d1)``) is set true without a question once a witness verifies its pattern,
and reopened (asked) if the judged patterns below drop it (:func:`decide_lone_atoms`).

Whether the problem's start satisfies each pattern is then judged from the answers
(:func:`supported_patterns`), never read from the problem file; the atoms that no
supported group covers and that were never answered are asked as before, so a
pattern the answers refute costs questions, never a guess. An atom a kept group
decided without a question is asked where a plan breaks at an action that names
it (:func:`complete_survey`): a wrong "yes" is otherwise contradicted by
nothing asked before acting.

Atoms in no group, and atoms the view cannot show (filled from privileged
information, as the ViPlan protocol does), are asked in one batch first, as the
full survey asked them: the rule only changes how grouped atoms are surveyed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from toolkit.invariants import Group, Pattern, drop_implied, find_patterns, groups, lone_atoms
from toolkit.model import Atom

WITNESSES = 2  # groups of a pattern asked in full before the survey holds it

if TYPE_CHECKING:  # the episode class imports this module
    from toolkit.agents.belief_agent import _Episode
    from toolkit.task import GroundAction, Task


def _verdict(pattern: Pattern, atoms: frozenset[Atom], yes: set[Atom]) -> Pattern | None:
    """What one fully answered group says of its pattern: as is, at most one, or nothing (None)."""
    hits = len(atoms & yes)
    if hits == 1 or (hits == 0 and not pattern.exactly_one):
        return pattern
    return Pattern(pattern.members, False) if hits == 0 else None


def _strongest(pattern: Pattern, witnesses: Sequence[Group], yes: set[Atom]) -> Pattern | None:
    """The strongest verdict of the witness groups: one wrong answer in one witness does not drop a pattern."""
    if not witnesses:
        return pattern
    verdicts = [_verdict(pattern, g.atoms, yes) for g in witnesses]
    return max((v for v in verdicts if v is not None), key=lambda v: v.exactly_one, default=None)


def candidates(task: Task, atoms: Sequence[Atom]) -> list[tuple[Pattern, list[Group]]]:
    """The preserved patterns the survey may hold, each with its groups over ``atoms`` in witness order.

    A pattern of one group is left out: verifying it would be asking it all (``{(clear *)}``
    in hanoi, a count the moves keep, not "exactly one"); it is judged afterwards on the
    state the survey reached. Witness order is smallest first: a witness is asked in full.
    """
    wanted = set(atoms)
    many = [p for p in find_patterns(task) if sum(g.atoms <= wanted for g in groups(task, [p])) > 1]
    return [(p, sorted((g for g in groups(task, [p]) if g.atoms <= wanted), key=lambda g: (len(g.atoms), g.key)))
            for p in drop_implied(task, many)]


def survey(ep: _Episode, atoms: Sequence[Atom]) -> tuple[set[Atom], frozenset[Pattern], set[Atom]]:
    """Ask about ``atoms`` until each is ``survey_trust`` certain under the verified groups.

    Returns the atoms answered, the patterns held (as their witnesses judged them) and
    the lone atoms of held patterns (:func:`toolkit.invariants.lone_atoms`), set true unasked.

    The first witness group of each pattern is asked in full with the atoms no pattern
    covers and the hidden ones; a pattern is held when a witness satisfies it, and its
    second witness is asked only where the first does not show it as it stands. The other
    atoms of held groups are asked by expected information; atoms of no held pattern once each.
    """
    wanted = set(atoms)
    preserved = candidates(ep.task, atoms)
    # an exactly-one instance of one atom is true where the pattern holds: asked only if no witness verifies it
    lone = {a for p, _ in preserved for a in lone_atoms(ep.task, p) if a in wanted}
    grouped = {a for _, gs in preserved for g in gs for a in g.atoms} | lone
    answered: set[Atom] = set()
    tried: set[Atom] = set()  # asked once in this first look (an unreadable answer is not asked again here)
    asked: dict[Pattern, list[Group]] = {p: [] for p, _ in preserved}
    for turn in range(WITNESSES):
        # A further witness only for a pattern its witnesses so far do not verify as it stands: the
        # verdict is their strongest, and none can be stronger than the pattern itself.
        yes = {a for a in answered if ep.belief.logodds[a] > 0}
        for p, gs in preserved:
            if turn < len(gs) and (not asked[p] or _strongest(p, asked[p], yes) != p):
                asked[p].append(gs[turn])
        shown = {a for ws in asked.values() for g in ws for a in g.atoms}
        batch = [a for a in atoms if a not in tried
                 and (a in shown or (turn == 0 and (a not in grouped or not ep.obs.can_see(a))))]
        tried.update(batch)
        answered.update(a for a, value, _ in ep.ask(batch, "survey") if value is not None)
    yes = {a for a in answered if ep.belief.logodds[a] > 0}
    held = [(v, gs) for p, gs in preserved if (v := _strongest(p, asked[p], yes)) is not None]
    for v, gs in held:
        for g in gs:
            ep.belief.add_group(Group(v, g.key, g.atoms))
    covered = {a for _, gs in held for g in gs for a in g.atoms}
    # true unasked (so the patterns are judged on them too), until the patterns are judged (decide_lone_atoms)
    decided = {a for v, _ in held for a in lone_atoms(ep.task, v) if a in wanted and ep.obs.can_see(a)}
    for atom in sorted(decided):
        ep.belief.set(atom, True, ep.belief.max_confidence)
    rest = [a for a in atoms if a not in answered and a not in decided and ep.obs.can_see(a)]
    answered.update(a for a, value, _ in ep.ask([a for a in rest if a not in covered], "survey")
                    if value is not None)
    _ask_by_information(ep, [a for a in rest if a in covered], answered)
    return answered, frozenset(v for v, _ in held), decided


def _neighbours(ep: _Episode, atom: Atom) -> set[Atom]:
    """``atom`` and its group-mates: the atoms whose posterior an answer about it moves."""
    return {atom, *(m for g in ep.belief.groups_of.get(atom, ()) for m in g.atoms)}


def _ask_by_information(ep: _Episode, targets: Sequence[Atom], answered: set[Atom]) -> None:
    """Greedy by expected information about the uncertain targets, scored locally.

    An answer about ``c`` moves the posterior of ``c``'s group-mates only, so its
    information about the open targets is its information about the open targets
    among them (:meth:`~toolkit.agents.evidence.EvidenceBelief.information` over
    every target gives the same number, at a cost quadratic in the atoms). Scores
    are cached and recomputed only around the atom last asked.
    """
    level = ep.config.survey_trust
    wanted = set(targets)
    scores: dict[Atom, float] = {}
    for _ in range(3 * len(wanted) + 1):  # at most the three phrasings of every target
        open_ = {a for a in wanted if ep.belief.confidence(a) < level}
        if not open_:
            return
        candidates = {c for a in open_ for c in _neighbours(ep, a) if c in wanted and ep.askable(c)}
        for c in candidates - scores.keys():
            local = sorted(_neighbours(ep, c) & open_)
            scores[c] = ep.belief.information(c, local, ep.reliability(c)) if local else 0.0
        best = max(candidates, default=None, key=lambda c: (scores[c], c in open_, c))
        if best is None or scores[best] < ep.config.min_bits:
            return
        answered.update(a for a, value, _ in ep.ask([best], "survey") if value is not None)
        for a in {m for n in _neighbours(ep, best) for m in _neighbours(ep, n)}:
            scores.pop(a, None)


def supported_patterns(ep: _Episode, answered: set[Atom], held: frozenset[Pattern]) -> tuple[Pattern, ...]:
    """The preserved patterns the survey supports in most of their groups (call before the groups are cleared).

    A held pattern is judged on the answers, an answered atom counting as its
    evidence says (yes above 0 log-odds): a group contradicts "at most one" with two
    "yes", "exactly one" also with every atom answered "no"; an unasked atom is no
    evidence against. Any other preserved pattern is judged, as
    :func:`toolkit.invariants.invariants_of` with ``majority`` judges one, on the most
    likely state under the held groups (every atom there was answered or follows
    from a held group). An exactly-one pattern that holds only as at-most-one is
    kept as that. With every atom answered, both are that function on the answers.
    """
    yes = {a for a in answered if ep.belief.logodds[a] > 0}
    state = ep.belief.state()
    members = {p.members: p for p in held}
    kept: list[Pattern] = []
    for pattern in find_patterns(ep.task):
        instances = groups(ep.task, [pattern])
        if pattern.members in members:
            pattern = members[pattern.members]
            many = sum(len(g.atoms & yes) > 1 for g in instances)
            none = sum(not g.atoms & yes and g.atoms <= answered for g in instances)
        else:
            many = sum(len(g.atoms & state) > 1 for g in instances)
            none = sum(not g.atoms & state for g in instances)
        if pattern.exactly_one and 2 * (many + none) < len(instances):
            kept.append(pattern)
        elif 2 * many < len(instances):
            kept.append(Pattern(pattern.members, False))
    return drop_implied(ep.task, kept)


def decide_lone_atoms(ep: _Episode, kept: Sequence[Pattern], decided: set[Atom]) -> set[Atom]:
    """The lone atoms the survey set true (``decided``) that a kept pattern still decides; the others are reopened.

    "Exactly one of one atom" (:func:`toolkit.invariants.lone_atoms`) decides the atom as
    a group decides an atom whose mates are all false, so it takes the belief's cap (a
    confirmed prediction's certainty) without a question: the disc of a one-disc
    hanoi, ``(clear d1)``, was asked twice before (in the survey, then before the move, to
    reach ``trust``). Where the answers do not support its pattern after all, its evidence
    is cleared, so that it is asked with the atoms no kept group covers. Like every atom
    a group decided, a kept one is asked where a plan breaks at an action naming it
    (:func:`complete_survey`).
    """
    keep = {a for p in kept for a in lone_atoms(ep.task, p)} & decided
    for atom in sorted(decided - keep):
        ep.belief.logodds[atom] = 0.0
    return keep


def complete_survey(ep: _Episode, action: GroundAction) -> None:
    """The plan broke at ``action``: ask what the survey left to a group about its arguments, then settle.

    A survey answer decides its group's other atoms without asking them (one
    "yes" for a block's column says it is in no other); a wrong "yes" is then
    contradicted by nothing the agent asks before acting, and at accuracy 0.99 the
    group holds the wrong column 0.99 certain, so no precondition check asks
    either. Where a precondition turns out false or an action does nothing, the
    atoms naming its arguments are the suspects; those never answered are asked
    once (each survey gap at most once per episode), under the phase ``survey_gap``.
    """
    args = set(action.args)
    gaps = sorted(a for a in ep.left_to_groups if args & set(a.args))
    ep.left_to_groups.difference_update(gaps)
    answered = [a for a, value, _ in ep.ask([a for a in gaps if a in ep.belief], "survey_gap")
                if value is not None]
    if answered:
        ep.settle(answered)


def predict_group_mates(ep: _Episode, changed: Sequence[Atom], predicted: frozenset[Atom]) -> None:
    """Give the unchanged atoms of a changed atom's invariant groups the prediction's certainty, where weaker.

    The prediction places the disc on its new peg, and with it off every other
    place of its group; an atom the survey left to the group (no answer, log-odds
    0) would otherwise keep the changed atom's group posterior below ``goal_trust``
    (with six such places, 0.995 after a 0.999 prediction), and the goal check
    would ask what the prediction already says.
    """
    for atom in changed:
        sure = ep.belief.confidence(atom)
        weight = ep.belief.weight(sure)
        for g in ep.belief.groups_of.get(atom, ()):
            for mate in g.atoms:
                if mate not in changed and abs(ep.belief.logodds[mate]) < weight:
                    ep.belief.set(mate, mate in predicted, sure)
