"""``pgt questions DOMAIN --init``: a ``questions.toml`` skeleton for the domain's author to edit.

Question wording matters twice: a VLM reads it, and under ``--noise deterministic``
(a temperature-0 model) the wording is part of the draw, so three phrasings per
predicate give an agent three independent looks. The skeleton holds, for every
predicate, three phrasings written as the fallback would write them (so it is
valid, and no worse than no file, before any edit); a display name per type; and
a sentence per action, which ``pgt validate`` uses to read plans written in English.
The result loads (:func:`toolkit.question_file.load_question_spec`) as written.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Iterator

from toolkit import model as m
from toolkit import phrasing as ph
from toolkit.known_facts import static_predicates, type_predicates


def _slot(var: str, index: int) -> str:
    """A placeholder for a parameter: ``{c}`` by name when it is a plain identifier, else ``{0}``."""
    name = var.lstrip("?")
    return f"{{{name}}}" if name.isidentifier() else f"{{{index}}}"


def _toml(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a TOML basic string is a JSON string


def _preds(node: Any) -> Iterator[m.Pred]:
    """Every atomic formula in a condition or effect tree (any nesting of the model's dataclasses)."""
    if isinstance(node, m.Pred):
        yield node
    elif isinstance(node, (tuple, list, frozenset)):
        for item in node:
            yield from _preds(item)
    elif dataclasses.is_dataclass(node):
        for f in dataclasses.fields(node):
            yield from _preds(getattr(node, f.name))


def untyped_kinds(domain: m.Domain) -> dict[tuple[str, int], str]:
    """In an untyped domain, the type predicate of each predicate argument, read off the actions.

    ``(board ?car ?loc)`` requires ``(car ?car)`` and adds ``(on ?car)``: the first
    argument of ``on`` is a car. An argument that takes objects of several kinds
    (zenotravel's ``at``: a person or an aircraft) gets none: a wrong type word
    would be worse than none.
    """
    kinds = set(type_predicates(domain))
    seen: dict[tuple[str, int], set[str]] = {}
    for name in sorted(domain.actions):
        schema = domain.actions[name]
        found = list(_preds((schema.precondition, schema.effect)))
        var_kind = {p.terms[0]: p.predicate for p in found if p.predicate in kinds and len(p.terms) == 1}
        for p in found:
            for i, term in enumerate(p.terms):
                if p.predicate not in kinds:
                    seen.setdefault((p.predicate, i), set()).add(var_kind.get(term, ""))
    return {key: next(iter(found)) for key, found in seen.items() if len(found) == 1 and "" not in found}


def skeleton(domain: m.Domain) -> str:
    """The ``questions.toml`` text for ``domain`` (see the module docstring)."""
    static = set(static_predicates(domain))
    types = set(type_predicates(domain))
    out = [f"# Questions for domain {domain.name}, written by `pgt questions DOMAIN --init`: edit the wording.",
           "# A VLM reads these words, and under --noise deterministic the wording is part of the draw: the",
           "# three phrasings of a predicate are three independent looks for pgt-grounder. Placeholders name",
           "# the predicate's parameters ({c}) or their position ({0}); {c.name} is the object's raw name.",
           "# Check with `pgt lint DOMAIN` and read the result with `pgt questions DOMAIN PROBLEM`.", ""]
    named = [t for t in sorted(domain.types) if t != "object"]
    if named:
        out += ["[display.types]  # how an object of a type is named: {name} raw, {words} spaced"]
        out += [f"{t} = {_toml(f'the {ph.split_words(t)} {{name}}')}" for t in named]
        out.append("")
    inferred = untyped_kinds(domain) if not named else {}
    out += ["[questions]"]
    for name in sorted(domain.predicates):
        pred = domain.predicates[name]
        slots = [_slot(v, i) for i, (v, _) in enumerate(pred.params)]
        kinds = [ph.split_words(t[0]) if t and t[0] != "object" else ph.split_words(inferred.get((name, i), ""))
                 for i, (_, t) in enumerate(pred.params)]
        # typed objects are named by [display.types]; an untyped one by its type predicate, written here
        shown = [f"the {k} {s}" if k and not named else s for s, k in zip(slots, kinds)]
        phrasings = ph.name_phrasings(ph.split_words(name), shown, kinds, slots)
        note = ("  # a type predicate: known from the problem, asked only with --ask-static yes" if name in types
                else "  # no action changes it: known from the problem, asked only with --ask-static yes"
                if name in static else "")
        out.append(f"{_toml(name) if not name.replace('-', '_').isidentifier() else name} = "
                   f"[{', '.join(_toml(p) for p in phrasings)}]{note}")
    out += ["", "[actions]  # how each action reads in English (pgt validate reads such plans back)"]
    for name in sorted(domain.actions):
        schema = domain.actions[name]
        slots = " ".join(_slot(v, i) for i, (v, _) in enumerate(schema.params))
        out.append(f"{name if name.replace('-', '_').isidentifier() else _toml(name)} = "
                   f"{_toml((ph.split_words(name) + ' ' + slots).strip())}")
    return "\n".join(out) + "\n"
