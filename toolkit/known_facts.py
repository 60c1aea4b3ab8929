"""Known facts: atoms no action can change, read from the problem instead of asked.

A grounding study asks a grounder (a VLM, or a noisy oracle standing in for one)
what holds in a picture. Some predicates no action ever adds or deletes: ferry's
``(not-eq l1 l2)``, a grid's ``(connected a b)``, and in an untyped domain the
predicates that stand in for types (``(car c0)``, ``(location l1)``). Their atoms
hold in every state exactly as the problem's ``:init`` says, so asking about them
spends questions on what the problem already tells, and a noisy answer can only
make the belief worse (ferry at accuracy 0.97: 0 of 6 episodes succeeded while
`pgt-grounder` asked them).

Which predicates are static is read off the *domain* (every add and delete of
every action schema, through ``and``, ``forall`` and ``when``), so the set is the
same for every problem of a domain. :func:`known_facts` returns them with the
problem's true atoms of them; ``pgt-grounder`` never asks them (a study's
``--ask-static yes`` makes it). The ViPlan protocol asks every atom of its state,
static ones included, as ViPlan's own code does
(``viplan/experiments/benchmark_blocksworld_plan.py`` ``get_enumeration_questions``
enumerates ``leftof``/``rightof`` with ``on``); ``known_facts`` is what it would
call to be given them instead.

>>> from toolkit.domains import shipped_domain, shipped_problem
>>> from toolkit.task import load_task
>>> facts = known_facts(load_task(shipped_domain("blocksworld"), shipped_problem("blocksworld", "simple_problem_0")))
>>> facts.predicates
('leftOf', 'rightOf')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from toolkit import model as m
from toolkit.model import Atom
from toolkit.task import Task


def changed_predicates(domain: m.Domain) -> frozenset[str]:
    """Predicates that some action schema adds or deletes (conditional and quantified effects included)."""
    return frozenset().union(*(m.effect_predicates(schema.effect) for schema in domain.actions.values()))


def static_predicates(domain: m.Domain) -> tuple[str, ...]:
    """Declared predicates no action changes, sorted (:func:`toolkit.model.static_predicates`)."""
    return tuple(sorted(m.static_predicates(domain)))


def is_untyped(domain: m.Domain) -> bool:
    """True when the domain declares no types besides ``object`` (types are then unary predicates)."""
    return set(domain.types) <= {"object"}


def type_predicates(domain: m.Domain) -> tuple[str, ...]:
    """In an untyped domain, the static unary predicates: they say what kind of thing an object is."""
    if not is_untyped(domain):
        return ()
    return tuple(p for p in static_predicates(domain) if len(domain.predicates[p].params) == 1)


@dataclass(frozen=True)
class KnownFacts:
    """The predicates a study gives instead of asking, and the problem's true atoms of them.

    ``types`` is the part of ``predicates`` that are type predicates of an untyped
    domain (reports name them apart); ``atoms`` the true ones (closed world: every
    other atom of these predicates is false in every state).
    """

    predicates: tuple[str, ...]
    types: tuple[str, ...]
    atoms: frozenset[Atom]

    def __contains__(self, atom: object) -> bool:
        return isinstance(atom, Atom) and atom.predicate in self.predicates

    def split(self, atoms: Iterable[Atom]) -> tuple[list[Atom], list[Atom]]:
        """``atoms`` as (to ask, known), each in the given order."""
        ask, known = [], []
        for a in atoms:
            (known if a in self else ask).append(a)
        return ask, known

    def to_json(self) -> dict[str, list[str]]:
        """What a record says was given: ``{"given": [...], "types": [...]}``."""
        return {"given": list(self.predicates), "types": list(self.types)}


NO_KNOWN_FACTS = KnownFacts((), (), frozenset())


def known_facts(task: Task) -> KnownFacts:
    """The static predicates of ``task``'s domain and the problem's true atoms of them."""
    predicates = static_predicates(task.domain)
    names = set(predicates)
    return KnownFacts(predicates, type_predicates(task.domain),
                      frozenset(a for a in task.init if a.predicate in names))

