"""A copy of a problem Fast Downward's translator refuses, repaired to read as pgt reads the original.

Why: the differential benchmark (:mod:`benchmarks.grounding_diff`) can only compare
groundings FD produces. Where FD's parser refuses input pgt reads, the difference is
one of reading, and to show it hides no unsoundness of pgt, the benchmark compares
pgt's grounding of the original files with FD's grounding of a copy (in a temporary
folder, never the project) changed as little as FD needs to read it the way pgt does.
Two refusals of FD's parser are repaired, each by the PDDL rule it enforces:

- a hyphen glued to a type name (IPC fridge's ``(fits ?s - screw ?c -compressor)``):
  FD's tokenizer splits only at white space and parentheses
  (``pddl_parser/lisp_parser.py``, ``tokenize``), so ``-compressor`` is one word and
  ``parse_typed_list`` (``pddl_parser/parsing_functions.py``) refuses it ("Expected a
  variable but the given word does not start with '?'"). A PDDL name starts with a
  letter (the BNF's ``<name> ::= <letter> <any char>*``), and VAL's lexer reads the
  word as the ``-`` separator and the name (``libraries/VAL/src/Parser/pddl+.l``:
  ``"-"`` is its own token, ``string {char}+(-|{char}|{digit})*``), as pgt does. The
  copy writes ``- compressor``.
- a domain that names a problem's object (IPC tyreworld's ``(have wrench)`` in
  ``loosen``, ``wrench`` declared in each problem's ``:objects``): in a domain, a
  term is a parameter or a domain constant (``parse_action`` passes
  ``constant_names | parameters`` down to ``parse_literal``, whose
  ``check_predicate_and_terms_existence`` raises "Undefined object"), and PDDL
  declares a domain's names in its ``:constants``. pgt reads the name as the
  problem's object (its lint reports the domain error, ``undeclared-name``). The copy
  moves the object, with its type, from the problem's ``:objects`` to the domain's
  ``:constants``, one name per refusal, until FD reads it.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

# A "-" that starts a word and is glued to a name (not a negative number): FD reads the word whole.
_GLUED_HYPHEN = re.compile(r"(?<=\s)-(?=[A-Za-z_])")
_UNDEFINED = re.compile(r"Undefined object\s*\nGot: (\S+)")


def fd_refusal(domain: Path, problem: Path) -> str | None:
    """FD's parse error on these files (its last two lines), or None where its parser reads them."""
    from fast_downward.translate import pddl_parser

    try:
        with contextlib.redirect_stdout(io.StringIO()):
            pddl_parser.open(domain_filename=str(domain), problem_filename=str(problem))
    except pddl_parser.ParseError as exc:
        return "\n".join(str(exc).strip().splitlines()[-2:])
    return None


def _objects_block(text: str) -> re.Match[str] | None:
    return re.search(r"\(\s*:objects\b([^()]*)\)", text, re.I)


def _typed_groups(body: str) -> list[tuple[list[str], str]]:
    """``a b - t c - u d`` as ``[(["a", "b"], "t"), (["c"], "u"), (["d"], "object")]``."""
    words = re.sub(r";[^\n]*", "", body).split()
    groups, names, i = [], [], 0
    while i < len(words):
        if words[i] == "-" and i + 1 < len(words):
            groups.append((names, words[i + 1]))
            names, i = [], i + 2
            continue
        names.append(words[i])
        i += 1
    if names:
        groups.append((names, "object"))
    return groups


def _move_to_constants(domain: str, problem: str, name: str) -> tuple[str, str] | None:
    """The texts with problem object ``name`` declared in the domain's ``:constants`` instead; None where the
    problem declares no such object."""
    block = _objects_block(problem)
    if block is None:
        return None
    groups = _typed_groups(block.group(1))
    kind = next((t for names, t in groups if name.lower() in (n.lower() for n in names)), None)
    if kind is None:
        return None
    kept = [([n for n in names if n.lower() != name.lower()], t) for names, t in groups]
    body = " ".join(f"{' '.join(names)} - {t}" for names, t in kept if names)
    problem = problem[:block.start()] + f"(:objects {body})" + problem[block.end():]
    constants = re.search(r"\(\s*:constants\b", domain, re.I)
    if constants:
        domain = domain[:constants.end()] + f" {name} - {kind}" + domain[constants.end():]
    else:
        after = re.search(r"\(\s*:predicates\b", domain, re.I)
        if after is None:
            return None
        domain = domain[:after.start()] + f"(:constants {name} - {kind})\n" + domain[after.start():]
    return domain, problem


def repaired_for_fd(domain: Path, problem: Path, folder: Path, rounds: int = 50) -> tuple[Path, Path, list[str]] | None:
    """Copies of ``domain`` and ``problem`` in ``folder`` that FD's parser reads, and what was changed; None where
    FD reads the originals, or refuses them for a reason no repair here answers."""
    if fd_refusal(domain, problem) is None:
        return None
    dom, prob = domain.read_text(errors="replace"), problem.read_text(errors="replace")
    changes: list[str] = []
    glued = sorted({m.group() for t in (dom, prob) for m in re.finditer(r"(?<=\s)-[A-Za-z_][\w-]*", t)})
    if glued:
        dom, prob = _GLUED_HYPHEN.sub("- ", dom), _GLUED_HYPHEN.sub("- ", prob)
        changes.append(f"{', '.join(glued)} read as '- {glued[0][1:]}' (a name starts with a letter; VAL's lexer)")
    out_dom, out_prob = folder / "domain.pddl", folder / "problem.pddl"
    constants: list[str] = []
    for _ in range(rounds):
        out_dom.write_text(dom)
        out_prob.write_text(prob)
        refusal = fd_refusal(out_dom, out_prob)
        if refusal is None:
            if constants:
                changes.append(f"problem objects {', '.join(constants)} declared as domain constants (the domain "
                               "names them)")
            return out_dom, out_prob, changes
        undefined = _UNDEFINED.search(refusal)
        moved = _move_to_constants(dom, prob, undefined.group(1)) if undefined else None
        if moved is None:
            return None
        dom, prob = moved
        constants.append(undefined.group(1))
    return None
