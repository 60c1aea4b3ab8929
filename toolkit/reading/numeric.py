"""Numeric expressions, conditions and effects (PDDL 2.1 level 2) from the parsed forms (the plain readers' or the ``pddl`` package's).

A mix-in of :class:`toolkit.reading.convert.Converter`: every function term is
checked like an atom (declared, right arity, known objects and variables) and
located at its use. Numeric effects are taken out of the boolean effect tree
into :attr:`toolkit.model.ActionSchema.numeric`, each with the ``forall``
parameters and ``when`` condition around it.
"""

from __future__ import annotations

from toolkit import model as m
from toolkit.reading.forms import kind

# By the kind of the parsed piece (toolkit.reading.forms.kind: the pddl package's class names).
_COMPARISONS = {"LesserThan": "<", "LesserEqualThan": "<=", "GreaterThan": ">", "GreaterEqualThan": ">=",
                "FunctionEqualTo": "="}
_ARITH = {"Plus": "+", "Minus": "-", "Times": "*", "Divide": "/"}
UPDATES = {"Assign": "assign", "Increase": "increase", "Decrease": "decrease", "ScaleUp": "scale-up",
           "ScaleDown": "scale-down"}


def is_comparison(f) -> bool:
    return kind(f) in _COMPARISONS


def is_update(f) -> bool:
    return kind(f) in UPDATES


class NumericConversion:
    """Conversion of numeric formulas; expects ``fterm``, ``condition`` and ``used_requirements`` of the converter."""

    numeric_effects: list[m.NumericEffect]
    uses_numbers: bool = False  # a comparison or a numeric effect other than an action cost was met

    def num_expr(self, f, scope: dict[str, str]) -> m.NumExpr:
        shape = kind(f)
        if shape == "NumericValue":
            return _number(f.value)
        if shape == "NumericFunction":
            return self.fterm(f, scope)
        if shape == "UnaryMinus":
            return m.Arith("-", (self.num_expr(f.operand, scope),))  # pddl's UnaryMinus has one ``operand``
        op = _ARITH.get(shape)
        if op is not None:
            return m.Arith(op, tuple(self.num_expr(x, scope) for x in f.operands))
        raise self.unsupported(f"numeric expression {f}", r"\(\s*[-+*/]\s")

    def compare(self, f, scope: dict[str, str]) -> m.Compare:
        self.used_requirements.add(":numeric-fluents")
        self.uses_numbers = True
        left, right = f.operands
        return m.Compare(_COMPARISONS[kind(f)], self.num_expr(left, scope), self.num_expr(right, scope))

    def update(self, f, scope: dict[str, str], params: tuple[m.Param, ...], conds: tuple[m.Condition, ...]) -> None:
        """Record ``(op (f ...) value)`` with its enclosing ``forall`` parameters and ``when`` conditions."""
        target, value = f.operands
        if kind(target) != "NumericFunction":
            raise self.unsupported(f"numeric effect on {target} (the target is a function term)",
                                   r"\(\s*(increase|decrease|assign|scale-up|scale-down)\b")
        op = UPDATES[kind(f)]
        term = self.fterm(target, scope, r"\(\s*" + op + r"\s*")
        if not (op == "increase" and term.function == m.TOTAL_COST):
            self.used_requirements.add(":numeric-fluents")
            self.uses_numbers = True
        cond = conds[0] if len(conds) == 1 else m.And(conds) if conds else m.TRUE
        self.numeric_effects.append(m.NumericEffect(op, term, self.num_expr(value, scope), params, cond))


def _number(value: float) -> m.Number:
    return int(value) if float(value).is_integer() else float(value)
