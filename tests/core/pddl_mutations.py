"""Real PDDL text and the ways real files vary, for the fuzz tests of the readers and commands.

The corpus is every shipped domain and small problem plus the IPC sample (where the
machine has it); :func:`mutated` edits one text the ways files from other people and
tools differ (case, comments, line ends, requirement lists, ``either`` types, constants,
negations, ``=``, numbers, unicode, variables named like keywords) and the ways they break (swapped, dropped or doubled
tokens and parentheses, damaged characters). It serves every fuzz test of PDDL and
plan text (tests/core and tests/cli). Kept beside the tests, imported as a top-level
module (tests/cli/conftest.py puts this folder on ``sys.path`` there).
"""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import strategies as st

from toolkit.domains import DOMAINS_ROOT

IPC = Path("/work/shared/ipc-sample")
NUMERIC = Path(__file__).resolve().parent / "data" / "numeric"  # numeric fluents: the plain readers take them too
# A token of PDDL text: a parenthesis, a comment, a word, or a run of white space.
TOKEN = re.compile(r"\(|\)|;[^\n]*|[^\s();]+|\s+")


def _small(path: Path) -> bool:
    return path.stat().st_size < 12_000  # a full Lark parse of a large :init costs seconds per example


def _domain_files() -> list[Path]:
    ipc = sorted(IPC.glob("*/domain.pddl")) if IPC.is_dir() else []
    return [*sorted(DOMAINS_ROOT.glob("*/domain.pddl")), *ipc, NUMERIC / "domain.pddl"]


def _problem_files() -> list[tuple[Path, Path]]:
    """(domain, problem) pairs: every small shipped problem, the smallest problem of each IPC domain."""
    pairs = [(p.parent.parent / "domain.pddl", p) for p in sorted(DOMAINS_ROOT.glob("*/problems/*.pddl")) if _small(p)]
    for dom in sorted(IPC.glob("*/domain.pddl")) if IPC.is_dir() else ():
        probs = sorted((p for p in dom.parent.glob("*.pddl") if "domain" not in p.name), key=lambda p: p.stat().st_size)
        if probs and _small(probs[0]):
            pairs.append((dom, probs[0]))
    return [*pairs, (NUMERIC / "domain.pddl", NUMERIC / "problem.pddl")]


DOMAINS = [p.read_text(encoding="utf-8") for p in _domain_files()]
PROBLEMS = _problem_files()

# ------------------------------------------------------------------ mutations

REQUIREMENTS = [":strips", ":typing", ":negative-preconditions", ":disjunctive-preconditions", ":equality",
                ":existential-preconditions", ":universal-preconditions", ":quantified-preconditions",
                ":conditional-effects", ":adl", ":action-costs", ":numeric-fluents", ":fluents",
                ":durative-actions", ":derived-predicates", ":STRIPS", ":Typing", ":object-fluents", "strips", ":"]
SPACES = ["\r\n", "\r", "\t", " \t\n ", "\n\n", "\x0b", "\x0c", "\u00a0", "\u2003", "\u2028", "\x85", "\x1c", ""]
NUMBERS = ["0", "1", "1.5", "01", "1.2.3", "-1", "1e3", ".5", "1.", "007", "3.0"]
UNICODE = ["caf\u00e9", "\u0131f", "\u0130", "stra\u00dfe", "\uff42lock", "\u03b1", "a\u0301", "\ufeff", "\u200b",
           "\uff08", "\uff09", "x\u00e9y", "K"]  # "K" (Kelvin) lower-cases to an ASCII "k"
# Single characters a damaged or hand-edited file holds (a NUL, quotes, brackets, commas, a stray dot).
CHARACTERS = "()?-:;= \n\tabcxyzABC01\u00e9\x00\"'`[]{},."
WORDS = ["either", "object", "Object", "OBJECT", "-", "?x", "?X", "?", ":action", ":parameters", ":precondition",
         ":effect", "total-cost", "number", "and", "or", "not", "=", "define", "domain", "problem", ":domain",
         ":constants", ":types", ":objects", ":init", ":goal", ":metric", "minimize", "increase", "when", "forall",
         "exists", "imply", "assign", "decrease", "scale-up", "<=", ">", "+", "*", "/", "maximize", "a-b", "a_b", "_a", "x1", "(", ")", "()", "( )", "- (either)", "- (either a)", "::"]


def _words(parts: list[str]) -> list[int]:
    return [i for i, t in enumerate(parts) if t not in "()" and not t.isspace() and not t.startswith(";")]


def _atoms(text: str) -> list[re.Match[str]]:
    """Parenthesised atoms ``(name args)`` without nested parentheses."""
    return list(re.finditer(r"\((?!\s*[:=])\s*[a-zA-Z][\w-]*(?:\s+[^\s()]+)*\s*\)", text))


@st.composite
def mutated(draw, text: str) -> str:
    """``text`` after 1-3 of the edits real PDDL files differ by (and a few they should not)."""
    for _ in range(draw(st.integers(1, 3))):
        parts = TOKEN.findall(text)
        words = _words(parts)
        op = draw(st.sampled_from(["swap", "case", "comment", "space", "paren", "requirements", "either",
                                   "constant", "negate", "equality", "number", "twin", "unicode", "word", "delete",
                                   "character", "variable"]))
        if op == "swap" and len(words) > 1:
            i, j = draw(st.sampled_from(words)), draw(st.sampled_from(words))
            parts[i], parts[j] = parts[j], parts[i]
        elif op == "case" and words:
            how = draw(st.sampled_from([str.upper, str.title, str.lower, str.swapcase]))
            if draw(st.booleans()):
                parts = [how(p) if not p.startswith(";") else p for p in parts]
            else:
                i = draw(st.sampled_from(words))
                parts[i] = how(parts[i])
        elif op == "comment":
            i = draw(st.integers(0, len(parts)))
            body = draw(st.sampled_from(["", " (not (p)) )", "(", " caf\u00e9 \u2603", ";;", " \r still comment"]))
            end = draw(st.sampled_from(["\n", "\r\n", "\r", ""]))
            parts.insert(i, ";" + body + end)
        elif op == "space":
            spaces = [i for i, t in enumerate(parts) if t.isspace()]
            if spaces:
                parts[draw(st.sampled_from(spaces))] = draw(st.sampled_from(SPACES[:-1]))
            else:
                parts.insert(draw(st.integers(0, len(parts))), draw(st.sampled_from(SPACES)))
        elif op == "paren":
            parens = [i for i, t in enumerate(parts) if t in "()"]
            if parens:
                i = draw(st.sampled_from(parens))
                if draw(st.booleans()):
                    del parts[i]
                else:
                    parts.insert(i, parts[i])
        elif op == "requirements":
            reqs = " ".join(draw(st.lists(st.sampled_from(REQUIREMENTS), max_size=5)))
            joined = "".join(parts)
            mt = re.search(r"\(\s*:requirements\b[^)]*\)", joined, re.I)
            new = f"(:requirements {reqs})" if draw(st.booleans()) else ""
            if mt:
                return joined[:mt.start()] + new + joined[mt.end():]
            head = re.search(r"\(\s*(domain|problem)\s+[^\s()]+\s*\)", joined, re.I)
            if head:
                return joined[:head.end()] + " " + new + joined[head.end():]
        elif op == "either":
            typed = [i for i in words if i >= 2 and parts[i - 2] == "-"]
            if typed:
                i = draw(st.sampled_from(typed))
                others = [parts[j] for j in typed] + ["object", "Object"]
                kinds = draw(st.lists(st.sampled_from(others), min_size=1, max_size=3))
                parts[i] = "(either " + " ".join(kinds) + ")"
        elif op == "constant":
            joined = "".join(parts)
            name = draw(st.sampled_from(["c0", "C0", "table", "x"]))
            kind = draw(st.sampled_from(["", " - object", " - " + (parts[words[-1]] if words else "t")]))
            mt = re.search(r"\(\s*:(constants|objects)\b", joined, re.I)
            if mt:
                joined = joined[:mt.end()] + f" {name}{kind} " + joined[mt.end():]
            else:
                mt = re.search(r"\(\s*:predicates\b", joined, re.I) or re.search(r"\(\s*:init\b", joined, re.I)
                if mt:
                    joined = joined[:mt.start()] + f"(:constants {name}{kind}) " + joined[mt.start():]
            atoms = _atoms(joined)
            if atoms and draw(st.booleans()):
                at = draw(st.sampled_from(atoms))
                joined = joined[:at.end() - 1] + " " + name + joined[at.end() - 1:]
            return joined
        elif op == "negate":
            joined = "".join(parts)
            atoms = _atoms(joined)
            if atoms:
                at = draw(st.sampled_from(atoms))
                return joined[:at.start()] + "(not " + at.group() + ")" + joined[at.end():]
        elif op == "equality":
            joined = "".join(parts)
            atoms = _atoms(joined)
            if atoms:
                at = draw(st.sampled_from(atoms))
                args = at.group()[1:-1].split()[1:] or ["x"]
                a, b = draw(st.sampled_from(args)), draw(st.sampled_from(args))
                eq = draw(st.sampled_from([f"(= {a} {b})", f"(not (= {a} {b}))", f"(= {a})", f"(= ({a}) 3)"]))
                new = f"(and {at.group()} {eq})" if draw(st.booleans()) else eq  # beside the atom, or instead
                return joined[:at.start()] + new + joined[at.end():]
        elif op == "number" and words:
            numbers = [i for i in words if parts[i][0].isdigit()]  # a value in (= (f o) 3) or (increase ... 3)
            parts[draw(st.sampled_from(numbers if numbers and draw(st.booleans()) else words))] = \
                draw(st.sampled_from(NUMBERS))
        elif op == "twin" and words:
            i = draw(st.sampled_from(words))  # the same name again in another case: names ignore case
            parts.insert(i + 1, " " + draw(st.sampled_from([str.upper, str.swapcase, str.title]))(parts[i]))
        elif op == "unicode" and words:
            i = draw(st.sampled_from(words))
            u = draw(st.sampled_from(UNICODE))
            parts[i] = draw(st.sampled_from([u, parts[i] + u, u + parts[i]]))
        elif op == "word":
            parts.insert(draw(st.integers(0, len(parts))), " " + draw(st.sampled_from(WORDS)) + " ")
        elif op == "delete" and words:
            del parts[draw(st.sampled_from(words))]
        elif op == "variable":
            variables = sorted({p.lower() for p in parts if p.startswith("?") and len(p) > 1})
            if variables:  # every use renamed to a keyword-like name, which the "?" sets apart
                old = draw(st.sampled_from(variables))
                new = "?" + draw(st.sampled_from(["object", "Object", "domain", "either", "and", "not", "number",
                                                  "total-cost", "x", "X"]))
                text = "".join(new if p.lower() == old else p for p in parts)
                continue
        elif op == "character" and text:
            i = draw(st.integers(0, len(text) - 1))  # below the tokens: a character deleted, doubled or replaced
            how = draw(st.sampled_from(["delete", "double", "replace"]))
            new = "" if how == "delete" else text[i] * 2 if how == "double" else draw(st.sampled_from(CHARACTERS))
            text = text[:i] + new + text[i + 1:]
            continue
        text = "".join(parts)
    return text


# Words that are not names of the file's own (keywords of the grammar and of the loader).
RESERVED = frozenset({"and", "assign", "at", "decrease", "define", "domain", "either", "exists", "forall", "imply",
                      "increase", "maximize", "minimize", "not", "number", "object", "oneof", "or", "problem",
                      "scale-down", "scale-up", "total-cost", "when"})
PREFIXES = ["object-", "assign-", "oneof-", "decrease-", "scale-up-", "and-", "not-", "either-", "define-", "when-",
            "forall-", "total-cost-", "number-", "domain-", "problem-", "Object-", "AND-", "x-"]
_NAME = re.compile(r"[a-zA-Z][a-zA-Z0-9_-]*\Z")


def names(*texts: str) -> list[str]:
    """The names (lower case) the texts declare or use: predicates, types, objects, actions; no keywords or variables."""
    found = {t.lower() for text in texts for t in TOKEN.findall(text)
             if _NAME.match(t) and t.lower() not in RESERVED}
    return sorted(found)


def renamed(texts: tuple[str, ...], old: str, new: str) -> tuple[str, ...]:
    """``texts`` with every occurrence of the name ``old`` (in any case, outside comments) spelled ``new``."""
    out = []
    for text in texts:
        parts = TOKEN.findall(text)
        out.append("".join(new if p.lower() == old else p for p in parts))
    return tuple(out)
