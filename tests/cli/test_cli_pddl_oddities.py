"""Every command that reads PDDL, over what editors, shells and hand edits do to PDDL files.

PDDL is case-insensitive and comments may sit anywhere whitespace may; files arrive with
Windows line ends, byte-order marks, UTF-16 from PowerShell and Latin-1 accents from old
IPC sets. Those must give the same outcome as the clean file. Broken files (unclosed or
extra parentheses, nesting thousands deep, duplicate definitions, stray characters, bytes
that are not UTF-8 outside a comment) must be refused with exit 2 and one line
``pgt CMD: error: FILE:LINE:COLUMN: ...`` (``pgt lint`` reports them as a located finding
instead). Runs in-process through :func:`toolkit.cli.main`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from toolkit.cli import main
from toolkit.domains import DOMAINS_ROOT

BW = DOMAINS_ROOT / "blocksworld"
DOMAIN, PROBLEM = BW / "domain.pddl", BW / "problems" / "simple_problem_0.pddl"
PLAN = str(BW / "golden" / "valid" / "simple_problem_0.plan")
TEXT = {"domain": DOMAIN.read_text(encoding="utf-8"), "problem": PROBLEM.read_text(encoding="utf-8")}
LOCATED = re.compile(r"^pgt [a-z-]+: error: \S+\.pddl:\d+:\d+: .+$")


def _code_only(text: str) -> str:
    return re.sub(r";[^\n]*", "", text)


def _comment_everywhere(text: str) -> str:
    """A comment after every parenthesis and name: each ends at a line end, so the meaning is unchanged."""
    return re.sub(r"(\(|\)|[^\s()]+)", r"\1 ; (odd) comment )(\n", _code_only(text))


def _interleave_case(text: str) -> str:
    return "".join(ch.upper() if i % 2 else ch.lower() for i, ch in enumerate(text))


# name -> bytes of the file, from its clean text and kind ("domain" or "problem")
SAME: dict[str, Callable[[str, str], bytes]] = {
    "crlf": lambda t, k: t.replace("\n", "\r\n").encode(),
    "cr-only": lambda t, k: t.replace("\n", "\r").encode(),
    "bom": lambda t, k: b"\xef\xbb\xbf" + t.encode(),
    "utf16": lambda t, k: t.encode("utf-16"),
    "upper-case": lambda t, k: t.upper().encode(),
    "mixed-case": lambda t, k: _interleave_case(t).encode(),
    "latin1-comments": lambda t, k: ("; \u00e9t\u00e9 \u00a9 Fran\u00e7ois\n" + t).encode("latin-1"),
    "comments-everywhere": lambda t, k: _comment_everywhere(t).encode(),
    "no-final-newline-comment": lambda t, k: (t.rstrip() + " ; the end").encode(),
    "tabs-and-form-feeds": lambda t, k: t.replace(" ", "\t").replace("\n", "\n\f").encode(),
}
REFUSED: dict[str, Callable[[str, str], bytes]] = {
    "unclosed": lambda t, k: t.rstrip()[:-1].encode(),
    "extra-close": lambda t, k: (t + ")\n").encode(),
    "two-defines": lambda t, k: (t + t).encode(),
    "trailing-name": lambda t, k: (t + "leftover\n").encode(),
    "deep-nesting": lambda t, k: ("(" * 5000 + ")" * 5000).encode(),
    "deep-inside": lambda t, k: t.replace("(:init" if k == "problem" else "(:action",
                                          ("(:init" if k == "problem" else "(:action") + "(" * 3000 + ")" * 3000,
                                          1).encode(),
    "latin1-in-a-name": lambda t, k: t.replace("(define (", "(define (caf\u00e9 ", 1).encode("latin-1"),
    "zero-width-space": lambda t, k: t.replace("(:", "\u200b(:", 1).encode(),
    "empty-define": lambda t, k: b"(define)",
    "duplicate-section": lambda t, k: t.replace("(:types", "(:types block) (:types", 1).encode() if k == "domain"
    else t.replace("(:init", "(:init) (:init", 1).encode(),
    "duplicate-name": lambda t, k: t.replace("(clear ?b - block)", "(clear ?b - block) (CLEAR ?x - block)").encode()
    if k == "domain" else t.replace("y p r - block", "y p r Y - block").encode(),
    "duplicate-action": lambda t, k: t.replace("(:action moveBlock", "(:action moveblock :parameters () :effect (and))"
                                               " (:action moveBlock").encode()
    if k == "domain" else t.replace("(:goal", "(:goal (and)) (:goal", 1).encode(),
}

# Command lines with the domain (D) and the problem (P) file; one of them is replaced by the odd file.
COMMANDS: dict[str, list[str]] = {
    "validate": ["validate", "D", "P", PLAN],
    "plan": ["plan", "D", "P", "--planner", "astar"],
    "solve-all": ["solve-all", "D", "P", "--planner", "astar"],
    "questions": ["questions", "D", "P"],
    "invariants": ["invariants", "D", "P"],
    "score plan": ["score", "plan", "D", "P", PLAN, "--no-optimal"],
    "lint": ["lint", "D", "P"],
}


def _run(capsys, template: list[str], kind: str, odd: Path) -> tuple[int, str, str]:
    files = {"D": str(odd) if kind == "domain" else str(DOMAIN), "P": str(odd) if kind == "problem" else str(PROBLEM)}
    code = main([files.get(a, a) for a in template])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def clean_codes() -> dict[str, int]:
    return {name: main([{"D": str(DOMAIN), "P": str(PROBLEM)}.get(a, a) for a in argv])
            for name, argv in COMMANDS.items()}


@pytest.mark.parametrize("kind", ["domain", "problem"])
@pytest.mark.parametrize("variant", list(SAME))
@pytest.mark.parametrize("command", list(COMMANDS))
def test_harmless_oddities_give_the_clean_outcome(command: str, variant: str, kind: str, clean_codes, tmp_path: Path,
                                                   capsys) -> None:
    odd = tmp_path / f"{kind}.pddl"
    odd.write_bytes(SAME[variant](TEXT[kind], kind))
    capsys.readouterr()
    code, out, err = _run(capsys, COMMANDS[command], kind, odd)
    assert "Traceback" not in err, err
    if command == "lint":  # lint notes upper-case keywords (a warning in problems), never an error
        assert code in (0, 1) and out.rstrip().splitlines()[-1].startswith(("0 error(s)", "clean: 0 error(s)")), out
    else:
        assert code == clean_codes[command], (code, out, err)


@pytest.mark.parametrize("kind", ["domain", "problem"])
@pytest.mark.parametrize("variant", list(REFUSED))
@pytest.mark.parametrize("command", list(COMMANDS))
def test_broken_pddl_is_refused_at_file_line_column(command: str, variant: str, kind: str, tmp_path: Path,
                                                    capsys) -> None:
    odd = tmp_path / f"{kind}.pddl"
    odd.write_bytes(REFUSED[variant](TEXT[kind], kind))
    code, out, err = _run(capsys, COMMANDS[command], kind, odd)
    assert "Traceback" not in err, err
    in_output = re.search(re.escape(str(odd)) + r":\d+:\d+: ", out)
    if command == "lint" and code == 1:  # lint reports what it can read as a located finding
        assert in_output and re.search(re.escape(str(odd)) + r":\d+:\d+: error", out), (code, out, err)
        return
    if command == "solve-all" and kind == "problem":  # a batch: the bad problem is a located error row
        assert code == 1 and in_output, (code, out, err)
        return
    assert code == 2, (code, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and LOCATED.match(lines[0]) and str(odd) in lines[0], err


def test_objects_differing_only_in_case_are_one_name_declared_twice(tmp_path: Path, capsys) -> None:
    problem = tmp_path / "p.pddl"
    problem.write_text("(define (problem p) (:domain blocksworld)\n (:objects y p Y - block c1 - column)\n"
                       " (:init (clear y)) (:goal (clear y)))\n")
    code, _, err = _run(capsys, COMMANDS["validate"], "problem", problem)
    assert (code, err) == (2, f"pgt validate: error: {problem}:2:16: name 'Y' is declared more than once\n")


def test_a_plan_from_a_pipe_is_read(capsys) -> None:
    """``pgt validate D P <(cmd)`` hands over /dev/fd/N, a pipe: readable, so not 'Permission denied'."""
    import os

    read, write = os.pipe()
    os.write(write, Path(PLAN).read_bytes())
    os.close(write)
    try:
        code, out, err = _run(capsys, ["validate", "D", "P", f"/dev/fd/{read}"], "domain", DOMAIN)
    finally:
        os.close(read)
    assert code == 0 and out.rstrip().endswith("4 steps reach the goal"), (out, err)
