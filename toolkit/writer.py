"""Write the toolkit's model back to PDDL text: sorted and byte-stable.

Why: generated problems (benchmarks, suites, problem generators) must be files
that any planner reads, and a domain that went through the toolkit must come
back out unchanged. The output is a pure function of the model: the same model
always gives the same bytes, and ``parse(write(x)) == x`` for every field that
the model compares (pinned by tests over every shipped domain and problem).

Ordering: requirements, types, constants, predicates, objects and initial atoms
are sorted; actions keep the model's order (the file's declaration order, which
is what ``Task.all_actions`` enumerates); formulas print through their own
``__str__`` in :mod:`toolkit.model`. Types whose parent is ``object`` and objects
of type ``object`` are written as bare names at the end of their typed list, the
PDDL spelling every parser accepts.
"""

from __future__ import annotations

from collections.abc import Mapping

from toolkit import model as m

_INDENT = "  "


def _typed_list(names: Mapping[str, str]) -> list[str]:
    """Group ``name -> type`` into ``a b - t`` chunks, sorted, ``object`` last and bare."""
    by_type: dict[str, list[str]] = {}
    for name, type_name in names.items():
        by_type.setdefault(type_name, []).append(name)
    chunks = [f"{' '.join(sorted(by_type[t]))} - {t}" for t in sorted(by_type) if t != "object"]
    if "object" in by_type:
        chunks.append(" ".join(sorted(by_type["object"])))
    return chunks


def _section(keyword: str, chunks: list[str], indent: str = _INDENT) -> list[str]:
    if not chunks:
        return []
    if len(chunks) == 1:
        return [f"{indent}({keyword} {chunks[0]})"]
    inner = indent + _INDENT
    return [f"{indent}({keyword}", *(inner + c for c in chunks[:-1]), f"{inner}{chunks[-1]})"]


def _predicate_line(pred: m.PredicateDef) -> str:
    params = m.format_params(pred.params)
    text = f"({pred.name}{' ' + params if params else ''})"
    return f"{text} ;; {pred.comment}" if pred.comment else text


def _action_lines(action: m.ActionSchema) -> list[str]:
    inner = _INDENT * 2
    return [
        f"{_INDENT}(:action {action.name}",
        f"{inner}:parameters ({m.format_params(action.params)})",
        f"{inner}:precondition {action.precondition}",
        f"{inner}:effect {action.effect})",
    ]


def write_domain(domain: m.Domain) -> str:
    """PDDL text of a domain; ``parse_domain(write_domain(d))`` equals ``d``.

    >>> from toolkit.loader import parse_domain
    >>> d = parse_domain("(define (domain t) (:predicates (p ?x)) (:action a :parameters (?x) :precondition (p ?x) :effect (not (p ?x))))")
    >>> print(write_domain(d))
    (define (domain t)
      (:predicates
        (p ?x - object)
      )
      (:action a
        :parameters (?x - object)
        :precondition (p ?x)
        :effect (not (p ?x)))
    )
    <BLANKLINE>
    """
    lines = [f"(define (domain {domain.name})"]
    if domain.requirements:
        lines.append(f"{_INDENT}(:requirements {' '.join(sorted(domain.requirements))})")
    lines += _section(":types", _typed_list(domain.types))
    lines += _section(":constants", _typed_list(domain.constants))
    preds = [_predicate_line(domain.predicates[name]) for name in sorted(domain.predicates)]
    if preds:
        # One predicate per line, so a trailing ";;" comment stays on its declaration.
        lines.append(f"{_INDENT}(:predicates")
        lines += [f"{_INDENT * 2}{p}" for p in preds]
        lines.append(f"{_INDENT})")
    for action in domain.actions.values():
        lines += _action_lines(action)
    lines.append(")")
    return "\n".join(lines) + "\n"


def write_problem(problem: m.Problem) -> str:
    """PDDL text of a problem; ``parse_problem(write_problem(p), domain)`` equals ``p``."""
    lines = [f"(define (problem {problem.name})", f"{_INDENT}(:domain {problem.domain_name})"]
    lines += _section(":objects", _typed_list(problem.objects))
    atoms = [str(a) for a in sorted(problem.init)]
    if atoms:
        lines += _section(":init", atoms)
    else:
        lines.append(f"{_INDENT}(:init)")
    lines.append(f"{_INDENT}(:goal {problem.goal})")
    lines.append(")")
    return "\n".join(lines) + "\n"
