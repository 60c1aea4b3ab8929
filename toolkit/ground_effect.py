"""A ground action's effect, stepped through its schema's template (split from :mod:`toolkit.templates`).

:class:`GroundEffect` keeps the template's conditional effects, shared by all ground
actions of a schema, and the action's atom vector; it steps a state exactly as
:func:`toolkit.semantics.apply_effect` steps the materialized :class:`CompiledEffect`
(built only when asked for), falling back to it for the rare non-conjunctive effects.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from toolkit.grounding import (CompiledEffect, ConditionalEffect, GLit, atom_set, effect_text, flat_conditional,
                               walk_effect)
from toolkit.model import Atom
from toolkit.semantics import apply_effect, effect_delta

if TYPE_CHECKING:
    from toolkit.templates import ActionTemplate

Slot = int  # a template term: an int is the index of a schema parameter, a str an object


# A template conditional effect, shared by the schema's ground actions; every int is
# a position in the action's atom vector:
# (trigger or -1, other positive literals, negative literals, adds, dels,
#  ((position, positive), ...) in formula order, equalities over slots, ordinal)
_CE = tuple


def eq_holds(eqs: tuple[tuple[Slot | str, Slot | str, bool], ...], args: tuple[str, ...]) -> bool:
    for a, b, positive in eqs:
        if ((args[a] if a.__class__ is int else a) == (args[b] if b.__class__ is int else b)) != positive:
            return False
    return True


class _Entries:
    """What an unpickled :class:`GroundEffect` keeps of its template: the entries :attr:`GroundEffect.compiled` reads."""

    __slots__ = ("_entries",)

    def __init__(self, entries: tuple) -> None:
        self._entries = entries


class GroundEffect:
    """A ground action's effect as template conditional effects over its atom vector.

    :meth:`apply` and :meth:`delta` follow PDDL semantics exactly like
    :func:`toolkit.semantics.apply_effect` / ``effect_delta`` on :attr:`compiled`:
    every conditional effect is evaluated in the old state, deletes before adds.
    """

    __slots__ = ("template", "args", "vec", "adds", "dels", "ces", "ces_nt", "deferred", "generic", "plain",
                 "_compiled", "_explained")

    def __init__(self, template: ActionTemplate, args: tuple[str, ...], vec: tuple[Atom, ...]) -> None:
        self.template, self.args, self.vec = template, args, vec
        adds = [vec[p] for p in template._adds]
        dels = [vec[p] for p in template._dels]
        if template._plain:  # no conditional effect of any kind (most schemas): the rest has nothing to do
            self.deferred = self.ces = self.ces_nt = ()
            self.generic, self.plain = False, True
            self.adds, self.dels = atom_set(adds), atom_set(dels)
            self._compiled = self._explained = None
            return
        ces, ces_nt = template._ces, template._ces_nt
        if template._ces_eq:  # keep the conditional effects whose equalities hold for these arguments
            ces = tuple([ce for ce in ces if not ce[6] or eq_holds(ce[6], args)])
            live_nt = []
            for ce in ces_nt:
                if ce[6] and not eq_holds(ce[6], args):
                    continue
                if not ce[5]:  # only equalities, and they hold: unconditional
                    adds.extend(vec[p] for p in ce[3])
                    dels.extend(vec[p] for p in ce[4])
                else:
                    live_nt.append(ce)
            ces_nt = tuple(live_nt)
        self.deferred: tuple[tuple[frozenset[Atom], frozenset[Atom], tuple[ConditionalEffect, ...]], ...] = ()
        if template._deferred:
            out = []
            for eff, sub, conds in template._deferred:
                full = {var: (args[v] if v.__class__ is int else v) for var, v in sub.items()}
                d_adds: set[Atom] = set()
                d_dels: set[Atom] = set()
                d_ces: list[ConditionalEffect] = []
                walk_effect(eff, full, conds, template._objects_of, d_adds, d_dels, d_ces, template._static)
                adds.extend(d_adds)
                dels.extend(d_dels)
                out.append((atom_set(list(d_adds)), atom_set(list(d_dels)), tuple(d_ces)))
            self.deferred = tuple(out)
        # A non-conjunctive conditional effect: evaluate the materialized effect generically.
        self.generic = any(d[2] for d in self.deferred)
        self.adds: frozenset[Atom] = atom_set(adds)
        self.dels: frozenset[Atom] = atom_set(dels)
        self.ces: tuple[_CE, ...] = ces
        self.ces_nt: tuple[_CE, ...] = ces_nt
        # No conditional effect at all: every state gets exactly ``adds`` and ``dels`` (a stepper's fast path).
        self.plain: bool = not (ces or ces_nt or self.generic)
        self._compiled: CompiledEffect | None = None
        self._explained: dict[int, tuple[frozenset[Atom], frozenset[Atom], str]] | None = None

    def __getstate__(self) -> dict[str, object]:
        """Pickled with the one piece of its template it reads after construction (the conditional-effect
        entries :attr:`compiled` walks): the template's grounding closures do not pickle, and a ground
        action never grounds again (studies ship tasks' ground actions to worker processes)."""
        state = {name: getattr(self, name) for name in self.__slots__}
        state["template"] = _Entries(self.template._entries)
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        for name, value in state.items():
            setattr(self, name, value)

    def _fired(self, state: frozenset[Atom]) -> list[_CE]:
        vec = self.vec
        out = []
        for ce in self.ces:
            if vec[ce[0]] not in state:
                continue
            for p in ce[1]:
                if vec[p] not in state:
                    break
            else:
                for p in ce[2]:
                    if vec[p] in state:
                        break
                else:
                    out.append(ce)
        if self.ces_nt:
            fired_nt = [ce for ce in self.ces_nt
                        if all(vec[p] in state for p in ce[1]) and not any(vec[p] in state for p in ce[2])]
            if fired_nt:
                out = sorted(out + fired_nt, key=lambda ce: ce[7])  # keep the effect's order for reports
        return out

    def apply(self, state: frozenset[Atom]) -> frozenset[Atom]:
        """The successor state; does not check preconditions."""
        if self.generic:
            return apply_effect(self.compiled, state)
        fired = self._fired(state) if (self.ces or self.ces_nt) else None
        if not fired:
            return (state - self.dels) | self.adds
        vec = self.vec
        adds = set(self.adds)
        dels = set(self.dels)
        for ce in fired:
            for p in ce[3]:
                adds.add(vec[p])
            for p in ce[4]:
                dels.add(vec[p])
        return (state - dels) | adds

    def delta(self, state: frozenset[Atom]) -> tuple[frozenset[Atom] | set[Atom], frozenset[Atom] | set[Atom], list[str]]:
        """Adds, deletes and the texts of the conditional effects that fire (as ``effect_delta``)."""
        if self.generic:
            return effect_delta(self.compiled, state)
        fired = self._fired(state) if (self.ces or self.ces_nt) else None
        if not fired:  # the ground effect's own frozensets: a caller reads them, never changes them
            return self.adds, self.dels, []
        adds, dels, texts = set(self.adds), set(self.dels), []
        cache = self._explained
        if cache is None:
            cache = self._explained = {}
        for ce in fired:
            hit = cache.get(ce[7])
            if hit is None:
                hit = cache[ce[7]] = self._explain(ce)
            adds |= hit[0]
            dels |= hit[1]
            texts.append(hit[2])
        return adds, dels, texts

    def _explain(self, ce: _CE) -> tuple[frozenset[Atom], frozenset[Atom], str]:
        """A conditional effect's adds, deletes and ``(when <condition> <effect>)`` text (as ``ConditionalEffect.text``)."""
        vec = self.vec
        c_adds = atom_set([vec[p] for p in ce[3]])
        c_dels = atom_set([vec[p] for p in ce[4]])
        parts = [str(vec[p]) if positive else f"(not {vec[p]})" for p, positive in ce[5]]
        node = parts[0] if len(parts) == 1 else f"(and {' '.join(parts)})"
        return c_adds, c_dels, f"(when {node} {effect_text(c_adds, c_dels)})"

    def relaxed_conditional(self) -> Iterator[tuple[list[Atom], list[Atom]]]:
        """(positive condition atoms, added atoms) of every conditional effect that adds an atom and whose
        condition is no contradiction: what the delete relaxation needs, read off the template without
        materializing :attr:`compiled` (airport's 300-segment ``forall``/``when`` effects, per action)."""
        vec = self.vec
        for ce in (*self.ces, *self.ces_nt):
            if not ce[3]:
                continue  # deletes only
            pos = [vec[p] for p in ce[1]]
            if ce[0] >= 0:
                pos.append(vec[ce[0]])
            if ce[2] and any(vec[p] in pos for p in ce[2]):
                continue  # (and p (not p)): never fires, as flat_conditional drops it
            yield pos, [vec[p] for p in ce[3]]
        for _, _, conditional in self.deferred:
            for c in conditional:
                if c.adds and c.condition.tree is not False:
                    yield list(c.condition.pos), list(c.adds)

    @property
    def compiled(self) -> CompiledEffect:
        """The same effect as a :class:`CompiledEffect` (built on first use; equal to ``compile_effect``'s)."""
        if self._compiled is None:
            self._compiled = self.compile()
        return self._compiled

    def compile(self) -> CompiledEffect:
        """:attr:`compiled`, built anew and not kept: for a reader that passes once over millions of ground
        actions (the grounding benchmark's comparison with Fast Downward) and would otherwise double them."""
        if self._compiled is not None:
            return self._compiled
        vec = self.vec
        live = {ce[7] for ce in self.ces} | {ce[7] for ce in self.ces_nt}
        conditional: list[ConditionalEffect] = []
        for kind, entry in self.template._entries:
            if kind == "d":
                conditional.extend(self.deferred[entry][2])
            elif entry[7] in live:
                lits = tuple([GLit(vec[p], positive) for p, positive in entry[5]])
                conditional.extend(flat_conditional(lits, [vec[p] for p in entry[3]],
                                                     [vec[p] for p in entry[4]]))
        return CompiledEffect(self.adds, self.dels, tuple(conditional))
