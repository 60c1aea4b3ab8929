"""The ``focus`` of a noise model, fitted from released answers: how much of an episode's errors concern one object.

A real VLM that misreads one object of a scene (where the yellow block is) gives
wrong answers to the atoms that mention it and right answers to the rest; errors
drawn atom by atom at per-predicate rates scatter over the scene instead. The
statistic that tells them apart: in an episode with at least two distinct atoms
answered wrong (an atom wrong in several states counts once, so errors that carry
over states do not pass for focus), the share of those atoms that mention the
episode's most-wrong object. In ViPlan's released Blocksworld runs it is 0.82 for
GPT-4.1 with chain of thought, where its errors drawn atom by atom at its own rates
give 0.55.

:func:`fit_focus` finds the ``focus`` f of :mod:`grounders.noise` (a share f of the
rate on the atoms of one focus object per episode, ``1 - f + f n / k`` times the
rate for an atom naming k of the n objects with the focus among them, ``1 - f`` for
the others) under which the expected share equals the released one: for each
released episode, its distinct answered atoms weighted by their split's rate for
their predicate and truth (the fitted fp or fn), a focus drawn uniformly from the
episode's objects, the episode's number of wrong atoms drawn without replacement
in proportion to the weights (Gumbel top-k, the same random numbers for every f, so
the expected share rises smoothly with f), averaged over :data:`REPLICATES` draws
and over the episodes; then bisection on f.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

REPLICATES = 200  # focus and error draws per released episode, per value of f
MIN_WRONG = 2  # an episode with fewer distinct wrong atoms says nothing about where its errors fall


@dataclass(frozen=True)
class EpisodeAtoms:
    """One episode's distinct answered atoms: their objects, predicate, truth, and whether any answer was wrong."""

    split: str
    atoms: tuple[tuple[tuple[str, ...], str, bool, bool], ...]

    @property
    def wrong(self) -> int:
        return sum(w for *_, w in self.atoms)


def episode_atoms(split: str, events: Iterable[dict[str, Any]]) -> EpisodeAtoms:
    """The distinct atoms an episode's yes/no answers were about (the first truth seen; wrong if ever wrong)."""
    seen: dict[str, list[Any]] = {}
    for event in events:
        if "atom" not in event or "truth" not in event or event.get("answer") not in ("yes", "no"):
            continue
        atom, truth = str(event["atom"]), bool(event["truth"])
        wrong = (event["answer"] == "yes") != truth
        key = f"{atom}|{truth}"  # the same atom under the other truth is another chance to misread
        if key in seen:
            seen[key][3] = seen[key][3] or wrong
            continue
        predicate, *args = atom.strip("()").split()
        seen[key] = [tuple(a.lower() for a in args), predicate.lower(), truth, wrong]
    return EpisodeAtoms(split, tuple((tuple(v[0]), v[1], v[2], v[3]) for v in seen.values()))


def top_share(episode: EpisodeAtoms) -> float:
    """The share of an episode's wrong atoms that mention its most-wrong object."""
    counts: dict[str, int] = {}
    for objects, _, _, wrong in episode.atoms:
        if wrong:
            for obj in set(objects):
                counts[obj] = counts.get(obj, 0) + 1
    return max(counts.values(), default=0) / episode.wrong if episode.wrong else 0.0


def fit_focus(episodes: Sequence[EpisodeAtoms], rate: Callable[[str, str, bool], float], seed: int = 0) -> float:
    """The focus f whose expected top share equals the released episodes' mean (module docstring); 0 without
    evidence or when evenly drawn errors already concentrate as much."""
    import numpy as np

    usable = [e for e in episodes if e.wrong >= MIN_WRONG]
    if not usable:
        return 0.0
    rng = np.random.default_rng(seed)
    prepared = []
    for e in usable:
        objects = sorted({o for objs, *_ in e.atoms for o in objs})
        index = {o: i for i, o in enumerate(objects)}
        mentions = np.zeros((len(objects), len(e.atoms)), dtype=bool)
        for j, (objs, *_rest) in enumerate(e.atoms):
            for o in objs:
                mentions[index[o], j] = True
        named = mentions.sum(axis=0)
        base = np.array([max(rate(e.split, p, t), 1e-9) for _, p, t, _ in e.atoms])
        focus = rng.integers(len(objects), size=REPLICATES)
        gumbel = rng.gumbel(size=(REPLICATES, len(e.atoms)))
        prepared.append((mentions, named, base, focus, gumbel, e.wrong, len(objects)))
    observed = sum(top_share(e) for e in usable) / len(usable)

    def expected(f: float) -> float:
        total = 0.0
        for mentions, named, base, focus, gumbel, m, n in prepared:
            on_focus = mentions[focus]  # (replicates, atoms): the atom names the replicate's focus
            boost = np.where(named > 0, 1.0 - f + f * n / np.maximum(named, 1), 1.0)
            weight = base * np.where(on_focus, boost, np.where(named > 0, 1.0 - f, 1.0))
            keys = np.log(np.maximum(weight, 1e-300)) + gumbel
            chosen = np.argpartition(-keys, m - 1, axis=1)[:, :m]  # the m largest keys: a weighted draw of m
            hits = mentions[:, chosen].sum(axis=2)  # (objects, replicates): chosen atoms naming each object
            total += float((hits.max(axis=0) / m).mean())
        return total / len(prepared)

    if expected(0.0) >= observed:
        return 0.0
    low, high = 0.0, 0.99
    if expected(high) <= observed:
        return high
    for _ in range(14):
        mid = (low + high) / 2
        low, high = (mid, high) if expected(mid) < observed else (low, mid)
    return round((low + high) / 2, 3)
