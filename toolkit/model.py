"""The toolkit's own immutable PDDL model: atoms, formulas, schemas, domains, problems.

Only :mod:`toolkit.loader` talks to the ``pddl`` parser; everything else sees these
types. Terms are plain strings: a variable starts with ``?``, anything else is an
object or constant name. Lifted and ground formulas share the same node types;
ground ones simply contain no variables.
"""

from __future__ import annotations

from toolkit.records import field, record
from types import MappingProxyType
from typing import Mapping, Union

from toolkit.errors import PgtError

Term = str
TypeName = str
# A typed parameter: variable name and the type(s) it ranges over ("either" types
# have several).
Param = tuple[str, tuple[TypeName, ...]]


_set = object.__setattr__


@record(slots=True)
class Atom:
    """A ground atom such as ``(on a b)``; hashable, printable, parseable.

    >>> str(Atom("on", ("a", "b")))
    '(on a b)'
    >>> Atom.parse("(on a b)") == Atom("on", ("a", "b"))
    True
    """

    predicate: str
    args: tuple[str, ...] = ()
    _hash: int = field(init=False, repr=False, compare=False)

    def __init__(self, predicate: str, args: tuple[str, ...] = ()) -> None:
        # Written out (the record's own would call a __post_init__): atoms are made by the ten thousand.
        if not isinstance(args, tuple):
            args = tuple(args)
        _set_predicate(self, predicate)  # the slots' own setters (below): no attribute lookup per field
        _set_args(self, args)
        _set_hash(self, hash((predicate, args)))

    def __reduce__(self):
        # Rebuilt through __init__ on unpickling: the cached hash of strings differs between processes.
        return Atom, (self.predicate, self.args)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        # Every set and dict lookup of an equal atom that is not the same object ends here: compare the
        # cached hashes first, and build no tuples (the generated __eq__ builds two per call).
        if self is other:
            return True
        if other.__class__ is not Atom:
            return NotImplemented
        return self._hash == other._hash and self.predicate == other.predicate and self.args == other.args

    def __str__(self) -> str:
        return f"({' '.join((self.predicate, *self.args))})"

    def __lt__(self, other: Atom) -> bool:
        return (self.predicate, self.args) < (other.predicate, other.args)

    @classmethod
    def parse(cls, text: str) -> Atom:
        """Parse ``(pred a b)`` (parentheses optional) into an atom."""
        body = text.strip()
        if body.startswith("(") and body.endswith(")"):
            body = body[1:-1]
        parts = body.split()
        if not parts or any(c in body for c in "()"):
            raise PgtError(f"not an atom: {text!r}")
        return cls(parts[0], tuple(parts[1:]))


_set_predicate, _set_args, _set_hash = Atom.predicate.__set__, Atom.args.__set__, Atom._hash.__set__

State = frozenset  # a state is a frozenset[Atom] of the true atoms (closed world)


def is_var(term: Term) -> bool:
    return term.startswith("?")


# ---------------------------------------------------------------- conditions


@record(slots=True)
class Pred:
    """An atomic formula over terms (variables or constants)."""

    predicate: str
    terms: tuple[Term, ...]

    def __str__(self) -> str:
        return f"({' '.join((self.predicate, *self.terms))})"


@record(slots=True)
class Equals:
    left: Term
    right: Term

    def __str__(self) -> str:
        return f"(= {self.left} {self.right})"


@record(slots=True)
class Not:
    arg: Condition

    def __str__(self) -> str:
        return f"(not {self.arg})"


@record(slots=True)
class And:
    parts: tuple[Condition, ...]

    def __str__(self) -> str:
        return f"(and {' '.join(map(str, self.parts))})" if self.parts else "(and)"


@record(slots=True)
class Or:
    parts: tuple[Condition, ...]

    def __str__(self) -> str:
        return f"(or {' '.join(map(str, self.parts))})" if self.parts else "(or)"


@record(slots=True)
class Imply:
    premise: Condition
    conclusion: Condition

    def __str__(self) -> str:
        return f"(imply {self.premise} {self.conclusion})"


def format_params(params: tuple[Param, ...]) -> str:
    out = []
    for var, types in params:
        tname = types[0] if len(types) == 1 else f"(either {' '.join(types)})"
        out.append(f"{var} - {tname}")
    return " ".join(out)


@record(slots=True)
class Exists:
    params: tuple[Param, ...]
    body: Condition

    def __str__(self) -> str:
        return f"(exists ({format_params(self.params)}) {self.body})"


@record(slots=True)
class Forall:
    params: tuple[Param, ...]
    body: Condition

    def __str__(self) -> str:
        return f"(forall ({format_params(self.params)}) {self.body})"


@record(slots=True)
class Arith:
    """A numeric expression ``(op a b ...)``: ``+ - * /`` (``-`` with one argument negates)."""

    op: str
    args: tuple[NumExpr, ...]

    def __str__(self) -> str:
        return f"({self.op} {' '.join(map(format_expr, self.args))})"


@record(slots=True)
class Compare:
    """A numeric condition ``(op left right)`` with op one of ``< <= = >= >`` (PDDL 2.1)."""

    op: str
    left: NumExpr
    right: NumExpr

    def __str__(self) -> str:
        return f"({self.op} {format_expr(self.left)} {format_expr(self.right)})"


Condition = Union[Pred, Equals, Not, And, Or, Imply, Exists, Forall, Compare]
TRUE: Condition = And(())

# ------------------------------------------------------------------- effects


@record(slots=True)
class AddEffect:
    atom: Pred

    def __str__(self) -> str:
        return str(self.atom)


@record(slots=True)
class DelEffect:
    atom: Pred

    def __str__(self) -> str:
        return f"(not {self.atom})"


@record(slots=True)
class AndEffect:
    parts: tuple[Effect, ...]

    def __str__(self) -> str:
        return f"(and {' '.join(map(str, self.parts))})" if self.parts else "(and)"


@record(slots=True)
class ForallEffect:
    params: tuple[Param, ...]
    body: Effect

    def __str__(self) -> str:
        return f"(forall ({format_params(self.params)}) {self.body})"


@record(slots=True)
class WhenEffect:
    condition: Condition
    body: Effect

    def __str__(self) -> str:
        return f"(when {self.condition} {self.body})"


Effect = Union[AddEffect, DelEffect, AndEffect, ForallEffect, WhenEffect]

# ------------------------------------------------------------ action costs
# PDDL's :action-costs fragment: one numeric fluent, ``total-cost``, increased by
# actions and minimised by the metric; other functions are static (fixed by the
# problem's init) and only appear as cost terms. Nothing else numeric is modelled.

TOTAL_COST = "total-cost"
# PDDL 2.1's built-in term of a metric, the plan's duration: a sequential plan's number of steps (VAL's
# happenings at times 1..n); read only in :metric, where the domain declares no function of that name.
TOTAL_TIME = "total-time"
Number = Union[int, float]


@record(slots=True)
class FunctionDef:
    """A declared numeric function, e.g. ``(road-length ?l1 ?l2 - location) - number``."""

    name: str
    params: tuple[Param, ...]

    def __str__(self) -> str:
        params = format_params(self.params)
        return f"({self.name}{' ' + params if params else ''}) - number"


@record(slots=True)
class FTerm:
    """A function term in a cost expression, e.g. ``(road-length ?from ?to)``."""

    function: str
    terms: tuple[Term, ...] = ()

    def __str__(self) -> str:
        return f"({' '.join((self.function, *self.terms))})"


# The summands of an action's ``(increase (total-cost) X)`` effects; () = no cost effect.
CostTerm = Union[int, float, FTerm]
# A numeric expression (PDDL 2.1): a number, a function term, or arithmetic over them.
NumExpr = Union[int, float, FTerm, "Arith"]
NUMERIC_OPS = ("assign", "increase", "decrease", "scale-up", "scale-down")


def format_expr(expr: NumExpr) -> str:
    return str(expr) if isinstance(expr, (FTerm, Arith)) else format_number(expr)


@record(slots=True)
class NumericEffect:
    """``(op target value)``, op one of :data:`NUMERIC_OPS`, under the ``forall`` parameters and
    ``when`` condition that enclose it in the action's effect (PDDL 2.1 level 2)."""

    op: str
    target: FTerm
    value: NumExpr
    params: tuple[Param, ...] = ()
    condition: Condition = And(())

    def __str__(self) -> str:
        text = f"({self.op} {self.target} {format_expr(self.value)})"
        if self.condition != And(()):
            text = f"(when {self.condition} {text})"
        return f"(forall ({format_params(self.params)}) {text})" if self.params else text


def format_number(value: Number) -> str:
    """``3`` for integral values, else the shortest float text (``2.5``)."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def format_cost_effects(cost: tuple[CostTerm, ...]) -> list[str]:
    return [f"(increase ({TOTAL_COST}) {t if isinstance(t, FTerm) else format_number(t)})" for t in cost]

# ------------------------------------------------------- schemas and files


@record(slots=True)
class PredicateDef:
    name: str
    params: tuple[Param, ...]
    comment: str = ""  # the domain's ";;" comment on the declaration, if any

    @property
    def arity(self) -> int:
        return len(self.params)


def effect_predicates(effect: Effect) -> set[str]:
    """The predicates an effect adds or deletes, conditional and quantified parts included."""
    if isinstance(effect, (AddEffect, DelEffect)):
        return {effect.atom.predicate}
    if isinstance(effect, AndEffect):
        return set().union(*map(effect_predicates, effect.parts))
    if isinstance(effect, (ForallEffect, WhenEffect)):
        return effect_predicates(effect.body)
    return set()


def static_predicates(domain: Domain) -> frozenset[str]:
    """Declared predicates no action adds or deletes: their truth is the problem's ``:init`` forever.

    Derived predicates are never static: no action changes them, but their rules do.
    """
    changed = set().union(*(effect_predicates(a.effect) for a in domain.actions.values()))
    return frozenset(domain.predicates) - changed - domain.derived_predicates


@record(slots=True)
class ActionSchema:
    """A lifted action: typed parameters, a precondition and an effect."""

    name: str
    params: tuple[Param, ...]
    precondition: Condition
    effect: Effect
    cost: tuple[CostTerm, ...] = ()  # summands of (increase (total-cost) ...); () = none
    numeric: tuple[NumericEffect, ...] = ()  # effects on numeric fluents (not in ``effect``)

    @property
    def arity(self) -> int:
        return len(self.params)

    def effect_text(self) -> str:
        """The effect as PDDL, cost increases and numeric effects included."""
        if not self.cost and not self.numeric:
            return str(self.effect)
        parts = list(self.effect.parts) if isinstance(self.effect, AndEffect) else [self.effect]
        return f"(and {' '.join([*map(str, parts), *format_cost_effects(self.cost), *map(str, self.numeric)])})"


@record(slots=True)
class DerivedRule:
    """One ``(:derived (head ?x - t) body)`` rule (PDDL 2.2): ``head`` holds in a state wherever ``body`` does.

    A derived predicate may have several rules (it holds where any does); no action
    changes it, and its value in a state is the stratified least fixpoint of the rules
    over the state's basic atoms (:mod:`toolkit.derived`).
    """

    predicate: str
    params: tuple[Param, ...]
    body: Condition

    def __str__(self) -> str:
        params = format_params(self.params)
        return f"(:derived ({self.predicate}{' ' + params if params else ''}) {self.body})"


@record
class Domain:
    """A parsed, validated PDDL domain (immutable)."""

    name: str
    requirements: frozenset[str]
    types: Mapping[TypeName, TypeName]  # child -> parent; "object" is the root
    constants: Mapping[str, TypeName]
    predicates: Mapping[str, PredicateDef]
    actions: Mapping[str, ActionSchema]
    path: str = "<string>"
    source: str = field(default="", repr=False, compare=False)
    warnings: tuple[str, ...] = field(default=(), compare=False)
    functions: Mapping[str, FunctionDef] = field(default_factory=dict)  # incl. total-cost
    # Observations about the text that change nothing (upper-case keywords): lint shows them, commands do not.
    notes: tuple[str, ...] = field(default=(), compare=False)
    # Whether a precondition compares numbers or an effect changes a fluent other than total-cost's
    # (PDDL 2.1 numeric fluents): then states carry fluent values.
    numeric: bool = False
    # The :derived rules in file order (PDDL 2.2 derived predicates); () in most domains.
    derived: tuple[DerivedRule, ...] = ()
    # Names the actions use as constants that the domain never declares (tyreworld's wrench): each
    # problem's object of that name stands for it (toolkit.loader.read_problem), as in FD and VAL.
    borrowed: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        for name in ("types", "constants", "predicates", "actions", "functions"):
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))

    def __reduce__(self):
        return _rebuilt(self)

    @property
    def derived_predicates(self) -> frozenset[str]:
        """The predicates defined by :derived rules (no action may change them)."""
        return frozenset(r.predicate for r in self.derived)

    @property
    def has_costs(self) -> bool:
        """Whether the domain uses action costs (declares total-cost or increases it)."""
        return TOTAL_COST in self.functions or any(a.cost for a in self.actions.values())

    def ancestors(self, type_name: TypeName) -> tuple[TypeName, ...]:
        """The type itself and all its supertypes up to ``object``."""
        chain, seen = [type_name], {type_name}
        while type_name in self.types and self.types[type_name] not in seen:
            type_name = self.types[type_name]
            chain.append(type_name)
            seen.add(type_name)
        if "object" not in seen:
            chain.append("object")
        return tuple(chain)

    def is_subtype(self, sub: TypeName, sup: TypeName) -> bool:
        return sup == sub or sup == "object" or sup in self.ancestors(sub)  # (a type is its own first ancestor)


@record
class Problem:
    """A parsed PDDL problem: objects, initial state and goal (immutable)."""

    name: str
    domain_name: str
    objects: Mapping[str, TypeName]
    init: frozenset[Atom]
    goal: Condition
    path: str = "<string>"
    source: str = field(default="", repr=False, compare=False)
    warnings: tuple[str, ...] = field(default=(), compare=False)
    # Values of the static cost functions from init, e.g. (road-length a b) -> 7.
    function_values: Mapping[Atom, Number] = field(default_factory=dict)
    # True for (:metric minimize (total-cost)), the only metric supported: then a
    # plan's cost is the sum of its actions' costs, else its length (as FD and VAL count).
    metric: bool = False
    notes: tuple[str, ...] = field(default=(), compare=False)  # as Domain.notes
    # A numeric goal or a :metric over fluents other than (total-cost): its expression and
    # whether it is minimised; None where the metric is absent or plain (total-cost).
    metric_expr: NumExpr | None = None
    minimize: bool = True
    numeric: bool = False  # the goal compares numbers

    def __post_init__(self) -> None:
        object.__setattr__(self, "objects", MappingProxyType(dict(self.objects)))
        object.__setattr__(self, "function_values", MappingProxyType(dict(self.function_values)))

    def __reduce__(self):
        return _rebuilt(self)


def _rebuilt(rec: Domain | Problem) -> tuple:
    """A domain or problem pickled as its constructor's arguments, its read-only mappings as dicts: a
    ``mappingproxy`` does not pickle, and ``__post_init__`` wraps the dicts again on the other side
    (studies ship tasks and their ground actions to worker processes)."""
    return rec.__class__, tuple(dict(v) if v.__class__ is MappingProxyType else v
                                for v in (getattr(rec, f.name) for f in rec.__record_fields__))
