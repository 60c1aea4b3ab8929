"""``pgt lint``: tell a domain author what is wrong before any model sees the domain.

:func:`lint` loads a domain and its problems, turns load errors into findings
(the loader collects every independent error of a file and leaves the faulty
pieces out, so the checks still run on whatever it understood), and runs the
domain checks (:mod:`toolkit.lint.domain_checks`) and, per problem, relaxed
reachability (:mod:`toolkit.lint.reachability`): actions that can never fire and
goal atoms that can never hold.

>>> from toolkit.domains import shipped_domain
>>> report = lint(shipped_domain("blocksworld"))
>>> report.exit_code, [f.code for f in report.findings]
(0, ['unused-predicate', 'unused-predicate'])
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolkit import loader
from toolkit import model as m
from toolkit.errors import TypeMismatchError, UnknownSymbolError
from toolkit.lint.domain_checks import check_domain
from toolkit.lint.findings import Finding, Severity, at, from_error
from toolkit.lint.question_checks import check_questions
from toolkit.lint.reachability import relaxed_reachability
from toolkit.task import Task
from toolkit.textfile import read_text

__all__ = ["Finding", "LintReport", "Severity", "lint", "lint_texts"]


@dataclass(frozen=True)
class LintReport:
    """All findings for a domain and its problems, errors first."""

    findings: tuple[Finding, ...] = field(default=())

    @property
    def exit_code(self) -> int:
        """0 clean (or info only), 1 errors or warnings."""
        return 1 if any(f.severity is not Severity.INFO for f in self.findings) else 0

    def count(self, severity: Severity) -> int:
        return sum(f.severity is severity for f in self.findings)

    def summary(self) -> str:
        return (f"{self.count(Severity.ERROR)} error(s), {self.count(Severity.WARNING)} warning(s), "
                f"{self.count(Severity.INFO)} info")

    def to_json(self) -> dict[str, Any]:
        return {"exit_code": self.exit_code, "errors": self.count(Severity.ERROR),
                "warnings": self.count(Severity.WARNING), "info": self.count(Severity.INFO),
                "findings": [f.to_json() for f in self.findings]}


_ORDER = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


def _read(path: Path) -> str:
    """The file's text; an unreadable file is bad input (PgtError, exit 2). BDDL is read as PDDL (toolkit.bddl)."""
    from toolkit.bddl import is_bddl, read_as_pddl

    return read_as_pddl(path) if is_bddl(path) else read_text(path)


def lint(domain_path: str | Path, problem_paths: tuple[str | Path, ...] | list[str | Path] = (),
         typing: str = "strict") -> LintReport:
    """Lint a domain file and any problem files (``typing``: see :func:`toolkit.loader.parse_problem`).

    Raises:
        PgtError: a file cannot be read at all (bad input).
    """
    texts = {str(p): _read(Path(p)) for p in problem_paths}
    return lint_texts(str(domain_path), _read(Path(domain_path)), texts, typing=typing)


def lint_texts(domain_path: str, domain_text: str, problem_texts: dict[str, str], *,
               typing: str = "strict", reachability: bool = True,
               questions: tuple[str, str] | None = None) -> LintReport:
    """Lint texts already in memory (an editor's unsaved buffers); ``problem_texts`` maps path to text.

    ``reachability=False`` skips the per-problem relaxed reachability (the slow part), for a first quick answer.
    ``questions``: (path, text) of the domain's ``questions.toml`` as an editor holds it (else read from disk).
    """
    dpath, dtext, texts = domain_path, domain_text, problem_texts
    findings: list[Finding] = []
    loaded = loader.read_domain(dtext, str(dpath))
    findings.extend(from_error(exc, str(dpath), dtext) for exc in (*loaded.errors, *loaded.borrowed))
    domain = loaded.model
    if domain is None:  # a syntax error: nothing to check beyond it
        return LintReport(tuple(findings))
    # Constants the domain uses undeclared are declared (as objects) for the rest of the load; what
    # follows from that in a problem that declares them (its object "repeats" the constant, is "of
    # type object") is a consequence of the domain's error, not a finding of its own.
    invented = {e.name.lower() for e in loaded.borrowed if isinstance(e, UnknownSymbolError)}
    problems: list[m.Problem] = []
    whole: list[bool] = []  # loaded without errors (with domain): no piece left out of the model
    for path, text in texts.items():
        lp = loader.read_problem(text, domain, path, typing)
        findings.extend(from_error(exc, path, text) for exc in lp.errors
                        if not (isinstance(exc, TypeMismatchError) and exc.obj.lower() in invented))
        if lp.model is not None:
            problems.append(lp.model)
            whole.append(not lp.errors and not loaded.errors)
    findings.extend(check_domain(domain, tuple(problems)))
    findings.extend(check_questions(domain, *(questions or ())))  # the questions.toml beside the domain, if any
    for problem, complete in zip(problems, whole) if reachability else ():
        found = [f for f in check_problem(domain, problem) if not _repeats_invented(f, invented)]
        if not complete:
            # Reachability over a model missing the faulty pieces may report their consequences (a goal
            # "never reachable" because the action that adds it was left out): warnings, not errors.
            found = [dataclasses.replace(f, severity=Severity.WARNING) if f.severity is Severity.ERROR else f
                     for f in found]
            found.append(Finding(Severity.INFO, "reachability-partial",
                                 f"reachability of problem {problem.name} was checked without the pieces the errors "
                                 "above leave out: its findings may follow from those errors", problem.path,
                                 hint="fix the errors, then lint again"))
        findings.extend(found)
    findings.sort(key=lambda f: (_ORDER[f.severity], f.path, f.line or 0, f.code))
    return LintReport(tuple(findings))


def _repeats_invented(finding: Finding, invented: set[str]) -> bool:
    mt = re.fullmatch(r"object '(.+)' repeats a domain constant", finding.message)
    return finding.code == "problem-warning" and mt is not None and mt.group(1).lower() in invented


def check_problem(domain: m.Domain, problem: m.Problem) -> list[Finding]:
    """Problem warnings from the loader, never-applicable actions, unreachable goals."""
    out: list[Finding] = []
    for note in problem.notes:  # PDDL is case-insensitive: info, as for the domain
        out.append(Finding(Severity.INFO, "keyword-case", note.split(": ", 1)[-1], problem.path,
                           hint="write PDDL keywords in lower case"))
    for w in problem.warnings:
        if w.endswith("(kept: --typing lenient)"):  # a type error demoted to a warning; keep its position
            place, message = w.split(": ", 1)
            line, col = (int(x) for x in place.rsplit(":", 2)[1:]) if place.count(":") >= 2 else (None, None)
            out.append(Finding(Severity.WARNING, "type-error", message, problem.path, line, col,
                               hint="give the object the declared type (or a subtype), or widen the parameter's type"))
            continue
        place, message = w.split(": ", 1) if ": " in w else ("", w)
        pos = re.search(r":(\d+):(\d+)$", place)
        hint = ("delete the object: the domain's constant is that object in every problem"
                if message.endswith("repeats a domain constant")
                else "make the problem's (:domain ...) and objects match the domain")
        out.append(Finding(Severity.WARNING, "problem-warning", message, problem.path,
                           *((int(pos.group(1)), int(pos.group(2))) if pos else (None, None)), hint=hint))
    task = Task(domain, problem)
    reached, fired, never = relaxed_reachability(task)
    fired_schemas = {a.name for a in fired}
    for schema in domain.actions.values():
        if schema.name in fired_schemas:
            continue
        instances = [a for a in never if a.name == schema.name]
        start = _offset(domain.source, r"\(\s*:action\s+" + re.escape(schema.name) + r"(?![\w-])")
        if not instances:
            types = ", ".join(f"{v} - {' '.join(t)}" for v, t in schema.params)
            out.append(at(Severity.INFO, "action-without-objects",
                          f"action {schema.name} has no instances in problem {problem.name}", domain.path,
                          domain.source, r"(?<![\w-])" + re.escape(schema.name) + r"(?![\w-])",
                          f"the problem has no objects for its parameters ({types}); fine if it is not needed",
                          start))
            continue
        best = min(instances, key=lambda a: len(a.precondition.pos - reached))
        missing = sorted(best.precondition.pos - reached)
        hint = (f"e.g. {best} needs {', '.join(map(str, missing))}, which the initial state lacks and no "
                "action adds" if missing else f"e.g. {best}: its precondition can never hold")
        out.append(at(Severity.WARNING, "action-never-applicable",
                      f"action {schema.name} can never be applied in problem {problem.name} (relaxed reachability)",
                      domain.path, domain.source, r"(?<![\w-])" + re.escape(schema.name) + r"(?![\w-])", hint,
                      start))
    deletable = set()
    for a in fired:
        deletable |= a.effect.dels
        for ce in a.effect.conditional:
            deletable |= ce.dels
    goal = task.goal
    gstart = _offset(problem.source, r"\(\s*:goal\b")
    if goal.tree is False:
        out.append(at(Severity.ERROR, "goal-unreachable", "the goal is a contradiction and can never hold",
                      problem.path, problem.source, r"\(\s*:goal\b", "remove the contradicting goal literals"))
    for lit in goal.literals:
        atom = lit.atom
        if lit.positive and atom not in reached:
            why = "no applicable action adds it and the initial state lacks it"
            out.append(_goal_finding(problem, atom, f"goal atom {atom} can never become true: {why}",
                                     f"add {atom} to :init, or check which action should produce it", gstart))
        elif not lit.positive and atom in problem.init and atom not in deletable:
            out.append(_goal_finding(problem, atom, f"goal literal (not {atom}) can never hold: {atom} is "
                                     "initially true and no applicable action deletes it",
                                     f"remove {atom} from :init, or check which action should delete it", gstart))
    return out


def _goal_finding(problem: m.Problem, atom: m.Atom, message: str, hint: str, start: int) -> Finding:
    pat = r"\(\s*" + r"\s+".join(re.escape(x) for x in (atom.predicate, *atom.args)) + r"\s*\)"
    return at(Severity.ERROR, "goal-unreachable", message, problem.path, problem.source, pat, hint, start)


def _offset(text: str, pattern: str) -> int:
    from toolkit.loader import _blank_comments

    mt = re.compile(pattern, re.I).search(_blank_comments(text))
    return mt.start() if mt else 0
