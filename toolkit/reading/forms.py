"""The parsed forms the plain readers build: the ``pddl`` package's shapes, without importing the package.

Why: importing the ``pddl`` package (and :mod:`inspect`, which it imports) was a third of
``pgt validate``'s own start-up (issue 33), and the plain readers
(:mod:`toolkit.plain_domain`, :mod:`toolkit.plain_problem`), which read nearly every
published file, only need its objects as a hand-over to the converter. These classes have
the attributes and the printed form (``str``) of the package's classes of the same names
(``pddl/logic/base.py``, ``predicates.py``, ``effects.py``, ``functions.py``, ``terms.py``,
``pddl/action.py``), so the converter reads either; :func:`kind` tells them apart for it
(one name per shape: the package has two classes named ``EqualTo``).
"""

from __future__ import annotations


class _Form:
    __slots__ = ("_lowered",)
    KIND = ""
    FAMILY: tuple[str, ...] = ()  # the package's base classes the converter asks about

    # Equal when printed alike up to case, as the package's objects compare (names ignore case):
    # ``and``/``or`` drop repeated operands by it.
    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Form) and other.KIND == self.KIND and other.lowered() == self.lowered()

    def __hash__(self) -> int:
        return hash((self.KIND, self.lowered()))

    def lowered(self) -> str:
        """The printed form in lower case, made once: a form is never changed after it is built, and an
        ``and`` hashes each operand, whose printing prints the whole subtree (a nested effect was
        printed once per enclosing level)."""
        try:
            return self._lowered
        except AttributeError:
            text = self._lowered = str(self).lower()
            return text


class Term(_Form):
    __slots__ = ("name", "type_tags")

    def __init__(self, name: str, type_tags=()) -> None:
        self.name, self.type_tags = name, frozenset(type_tags or ())


class Constant(Term):
    __slots__ = ()
    KIND = "Constant"

    def __init__(self, name: str, type_tag: str | None = None) -> None:
        super().__init__(name, () if type_tag is None else (type_tag,))

    def __str__(self) -> str:
        return self.name


class Variable(Term):
    __slots__ = ()
    KIND = "Variable"

    def __str__(self) -> str:
        return f"?{self.name}"


class Predicate(_Form):
    __slots__ = ("name", "terms")
    KIND = "Predicate"

    def __init__(self, name: str, *terms: Term) -> None:
        self.name, self.terms = name, terms

    def __str__(self) -> str:
        return f"({' '.join([self.name, *map(str, self.terms)])})"


class EqualTo(_Form):
    """``(= t1 t2)`` over terms."""

    __slots__ = ("left", "right")
    KIND = "EqualTo"

    def __init__(self, left: Term, right: Term) -> None:
        self.left, self.right = left, right

    def __str__(self) -> str:
        return f"(= {self.left} {self.right})"


class _Operands(_Form):
    __slots__ = ("operands",)
    SYMBOL = ""

    def __init__(self, *operands) -> None:
        self.operands = operands

    def __str__(self) -> str:
        return f"({self.SYMBOL} {' '.join(map(str, self.operands))})"


class _Monotone(_Operands):
    """``and``/``or`` as the package builds them (``BinaryLogicOpMetaclass`` and
    ``_simplify_monotone_op_operands`` in ``pddl/logic/base.py``): nested ones of the same
    operator are lifted into it, a repeated operand is kept once, and one operand alone is
    the formula itself."""

    __slots__ = ()

    def __new__(cls, *operands):
        flat: list = list(dict.fromkeys(operands))
        stack = flat[::-1]
        if len(stack) > 1 and any(element.__class__ is cls for element in flat):
            flat = []
            seen: set = set()
            while stack:
                element = stack.pop()
                if element.__class__ is cls:
                    stack.extend(reversed(element.operands))
                elif element not in seen:
                    seen.add(element)
                    flat.append(element)
        if len(flat) == 1:
            return flat[0]
        made = super().__new__(cls)
        made.operands = tuple(flat)
        return made

    def __init__(self, *operands) -> None:  # __new__ set the operands
        pass


class And(_Monotone):
    __slots__ = ()
    KIND, SYMBOL = "And", "and"


class Or(_Monotone):
    __slots__ = ()
    KIND, SYMBOL = "Or", "or"


class Imply(_Operands):
    __slots__ = ()
    KIND, SYMBOL = "Imply", "imply"


class Not(_Form):
    __slots__ = ("argument",)
    KIND = "Not"

    def __init__(self, argument) -> None:
        self.argument = argument

    def __str__(self) -> str:
        return f"(not {self.argument})"


def _variables(variables) -> str:
    return " ".join(f"{v}{' - ' + ' '.join(v.type_tags) if v.type_tags else ''}" for v in variables)


class ForallCondition(_Form):
    __slots__ = ("condition", "variables")
    KIND, SYMBOL = "ForallCondition", "forall"

    def __init__(self, cond, variables) -> None:
        self.condition, self.variables = cond, tuple(variables)

    def __str__(self) -> str:
        return f"({self.SYMBOL} ({_variables(self.variables)}) {self.condition})"


class ExistsCondition(ForallCondition):
    __slots__ = ()
    KIND, SYMBOL = "ExistsCondition", "exists"


class When(_Form):
    __slots__ = ("condition", "effect")
    KIND = "When"

    def __init__(self, condition, effect) -> None:
        self.condition, self.effect = condition, effect

    def __str__(self) -> str:
        return f"(when {self.condition} {self.effect})"


class Forall(_Form):
    """The ``forall`` effect."""

    __slots__ = ("effect", "variables")
    KIND = "Forall"

    def __init__(self, effect, variables) -> None:
        self.effect, self.variables = effect, tuple(variables)

    def __str__(self) -> str:
        return f"(forall ({_variables(self.variables)}) {self.effect})"


class NumericFunction(_Form):
    __slots__ = ("name", "terms")
    KIND, FAMILY = "NumericFunction", ("FunctionExpression",)

    def __init__(self, name: str, *terms: Term) -> None:
        self.name, self.terms = name, terms

    def __str__(self) -> str:
        return f"({' '.join([self.name, *map(str, self.terms)])})"


class NumericValue(_Form):
    __slots__ = ("value",)
    KIND, FAMILY = "NumericValue", ("FunctionExpression",)

    def __init__(self, value: int | float) -> None:
        self.value = value

    def __str__(self) -> str:
        return str(self.value)


class Increase(_Operands):
    __slots__ = ()
    KIND, SYMBOL, FAMILY = "Increase", "increase", ("BinaryFunction", "FunctionExpression")


class Decrease(_Operands):
    __slots__ = ()
    KIND, SYMBOL, FAMILY = "Decrease", "decrease", ("BinaryFunction", "FunctionExpression")


class Assign(_Operands):
    __slots__ = ()
    KIND, SYMBOL, FAMILY = "Assign", "assign", ("BinaryFunction", "FunctionExpression")


class ScaleUp(_Operands):
    __slots__ = ()
    KIND, SYMBOL, FAMILY = "ScaleUp", "scale-up", ("BinaryFunction", "FunctionExpression")


class ScaleDown(_Operands):
    __slots__ = ()
    KIND, SYMBOL, FAMILY = "ScaleDown", "scale-down", ("BinaryFunction", "FunctionExpression")


class LesserThan(_Operands):
    __slots__ = ()
    KIND, SYMBOL, FAMILY = "LesserThan", "<", ("BinaryFunction", "FunctionExpression")


class LesserEqualThan(_Operands):
    __slots__ = ()
    KIND, SYMBOL, FAMILY = "LesserEqualThan", "<=", ("BinaryFunction", "FunctionExpression")


class GreaterThan(_Operands):
    __slots__ = ()
    KIND, SYMBOL, FAMILY = "GreaterThan", ">", ("BinaryFunction", "FunctionExpression")


class GreaterEqualThan(_Operands):
    __slots__ = ()
    KIND, SYMBOL, FAMILY = "GreaterEqualThan", ">=", ("BinaryFunction", "FunctionExpression")


class Plus(_Operands):
    """``(+ a b ...)``: two or more operands, never flattened (the package's ``Plus``)."""

    __slots__ = ()
    KIND, SYMBOL, FAMILY = "Plus", "+", ("BinaryFunction", "FunctionExpression")


class Minus(_Operands):
    __slots__ = ()
    KIND, SYMBOL, FAMILY = "Minus", "-", ("BinaryFunction", "FunctionExpression")


class Times(_Operands):
    __slots__ = ()
    KIND, SYMBOL, FAMILY = "Times", "*", ("BinaryFunction", "FunctionExpression")


class Divide(_Operands):
    __slots__ = ()
    KIND, SYMBOL, FAMILY = "Divide", "/", ("BinaryFunction", "FunctionExpression")


class UnaryMinus(_Form):
    """``(- a)``, one ``operand`` (the package's ``UnaryMinus``)."""

    __slots__ = ("operand",)
    KIND, FAMILY = "UnaryMinus", ("FunctionExpression",)

    def __init__(self, operand) -> None:
        self.operand = operand

    def __str__(self) -> str:
        return f"(- {self.operand})"


class FunctionEqualTo(_Operands):
    """``(= (f objs) number)`` in ``:init`` (the package's ``pddl.logic.functions.EqualTo``)."""

    __slots__ = ()
    KIND, SYMBOL, FAMILY = "FunctionEqualTo", "=", ("BinaryFunction", "FunctionExpression")


class Metric(_Form):
    __slots__ = ("expression", "optimization")
    KIND = "Metric"

    def __init__(self, expression, optimization: str = "minimize") -> None:
        self.expression, self.optimization = expression, optimization

    def __str__(self) -> str:
        return f"{self.optimization} {self.expression}"


class Action(_Form):
    __slots__ = ("name", "parameters", "precondition", "effect")
    KIND = "Action"

    def __init__(self, name: str, parameters, precondition=None, effect=None) -> None:
        self.name, self.parameters = name, tuple(parameters)
        self.precondition, self.effect = precondition, effect

    def __str__(self) -> str:
        return f"(:action {self.name} :parameters ({_variables(self.parameters)}) " \
               f":precondition {self.precondition} :effect {self.effect})"


class DerivedPredicate(_Form):
    __slots__ = ("predicate", "condition")
    KIND = "DerivedPredicate"

    def __init__(self, predicate: Predicate, condition) -> None:
        self.predicate, self.condition = predicate, condition

    def __str__(self) -> str:
        return f"(:derived {self.predicate} {self.condition})"


# The pddl package's classes by module and name -> their kind (filled from the package when the full parser ran).
_PACKAGE_KINDS = {
    ("pddl.logic.predicates", "EqualTo"): "EqualTo", ("pddl.logic.functions", "EqualTo"): "FunctionEqualTo",
}
_KINDS: dict[type, str] = {}


def kind(form) -> str:
    """The shape of a parsed piece, from these classes or the ``pddl`` package's: its class name, except
    ``FunctionEqualTo`` for the package's numeric ``EqualTo``; for the package's other classes the nearest
    named base among those the converter knows (``FunctionExpression``, ``BinaryFunction``...)."""
    own = getattr(form, "KIND", None)
    if own:
        return own
    cls = type(form)
    hit = _KINDS.get(cls)
    if hit is None:
        hit = _KINDS[cls] = next((_PACKAGE_KINDS.get((c.__module__, c.__name__), c.__name__)
                                  for c in cls.__mro__ if c.__module__.startswith("pddl.")), cls.__name__)
    return hit


def is_a(form, *kinds: str) -> bool:
    """Whether ``form`` is of one of ``kinds``, or (a ``pddl`` package object) has a base class of that name."""
    if getattr(form, "KIND", None):
        return form.KIND in kinds or any(k in kinds for k in form.FAMILY)
    return any(_PACKAGE_KINDS.get((c.__module__, c.__name__), c.__name__) in kinds for c in type(form).__mro__)
