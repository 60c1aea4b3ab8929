"""Lint a domain's ``questions.toml``: the words a VLM (or a temperature-0 simulation of one) is asked.

The loader (:func:`toolkit.question_file.load_question_spec`) refuses a bad file at
its first error; here that error becomes a located finding (file, line, column of
the TOML key), so ``pgt lint`` and ``pgt lsp`` show it beside the domain's own
findings. A file that loads is then checked for what its sections leave out: predicates
without a question and actions without a sentence get the fallback wording, which
reads worse and, under ``--noise deterministic``, is part of the draw (info: the
domain works, its questions could be better; ``pgt questions DOMAIN --init``
writes a skeleton to fill in).
"""

from __future__ import annotations

import re
from pathlib import Path

from toolkit import model as m
from toolkit.lint.findings import Finding, Severity
from toolkit.question_file import QuestionTemplateError, find_question_file, load_question_spec

_TOML_AT = re.compile(r"\(at line (\d+), column (\d+)\)")


def key_position(text: str, key: str) -> tuple[int | None, int | None]:
    """(line, column) of a key written ``[section].name`` or ``name`` in the TOML ``text``; (None, None) if absent."""
    mt = re.fullmatch(r"\[(?P<section>[^\]]+)\]\.(?P<name>.+)", key)
    section, name = (mt.group("section"), mt.group("name")) if mt else (None, key)
    name = name.split("[", 1)[0]  # "[questions].on[1]": a phrasing of on
    current = None
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        head = re.fullmatch(r"\[([^\]]+)\]\s*(#.*)?", stripped)
        if head:
            current = head.group(1).strip()
            if section is None and current == name:
                return number, line.index("[") + 1
            continue
        if current == section and re.match(rf"['\"]?{re.escape(name)}['\"]?\s*=", stripped):
            return number, line.index(stripped[0]) + 1
    return None, None


def check_questions(domain: m.Domain, path: str | Path | None = None, text: str | None = None) -> list[Finding]:
    """Findings for the ``questions.toml`` beside ``domain`` (or at ``path``, with ``text`` if unsaved)."""
    where = Path(path) if path is not None else find_question_file(domain)
    if where is None:
        return []
    if text is None:
        try:
            text = where.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            return [Finding(Severity.ERROR, "questions-file", f"cannot read: {exc}", str(where))]
    try:
        spec = load_question_spec(where, domain) if text is None else _load_text(where, text, domain)
    except QuestionTemplateError as exc:
        line, col = key_position(text, exc.key)
        if exc.key == "<toml>":
            at = _TOML_AT.search(exc.detail)
            line, col = (int(at.group(1)), int(at.group(2))) if at else (None, None)
            if at is None and "end of document" in exc.detail:  # an unclosed value: point at the last line
                line, col = max(len(text.rstrip("\n").split("\n")), 1), 1
        return [Finding(Severity.ERROR, "questions-file", f"{exc.key}: {exc.detail}", str(where), line, col,
                        "fix the template: placeholders name the predicate's or action's parameters "
                        "({b1} or {0}); keys name declared predicates and actions")]
    out = []
    # a file without [questions] (display names, action sentences) chose the fallback wording on purpose
    missing = [p for p in sorted(domain.predicates) if p not in spec.questions] if spec.questions else []
    if missing:
        out.append(Finding(Severity.INFO, "question-missing", f"no question for predicate(s) {', '.join(missing)}: "
                           "they are asked in the fallback wording", str(where), *key_position(text, "questions"),
                           hint="add them under [questions] (pgt questions DOMAIN --init writes a skeleton)"))
    lacking = [a for a in sorted(domain.actions) if a not in spec.actions] if spec.actions else []
    if lacking:
        out.append(Finding(Severity.INFO, "action-text-missing", f"no sentence for action(s) {', '.join(lacking)}: "
                           "plans in English cannot name them", str(where), *key_position(text, "actions"),
                           hint="add them under [actions], e.g. sail = \"sail from {from} to {to}\""))
    return out


def _load_text(path: Path, text: str, domain: m.Domain):
    """``load_question_spec`` on unsaved text (an editor's buffer): through a temporary file of the same name."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / path.name
        copy.write_text(text, encoding="utf-8")
        try:
            return load_question_spec(copy, domain)
        except QuestionTemplateError as exc:
            raise QuestionTemplateError(str(path), exc.key, exc.detail) from None
