"""``pgt lsp``: a Language Server for PDDL, so pgt's checks show up where authors edit.

Diagnostics are :func:`toolkit.lint.lint_texts` findings on the editor's unsaved
text (on open at once, on change after a short pause so typing stays fluid), in
two steps: the load errors and domain checks at once (milliseconds), then the
per-problem reachability findings, computed off the event loop (seconds on big
problems), so hover and completion never wait for them.
A problem file is linked to its domain: ``domain.pddl`` in the same folder, else
the ``.pddl`` file there that defines the domain its ``(:domain ...)`` names. A
domain is linted together with the problems beside it, so reachability findings
(actions that can never apply) appear on the domain too. Hover, go-to-definition,
find-references and completion read the text itself (:mod:`toolkit.lsp.symbols`),
so they work while a file is broken.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from toolkit import loader
from toolkit import phrasing as ph
from toolkit.lint import Severity, lint_texts
from toolkit.lsp.symbols import Span, Symbol, declarations, domain_name_of, references, word_at
from toolkit.question_file import find_question_file, load_question_spec

DEBOUNCE_S = 0.25
MAX_SIBLING_PROBLEMS = 8  # problems linted with a domain; more would slow every keystroke
_SEVERITY = {Severity.ERROR: lsp.DiagnosticSeverity.Error, Severity.WARNING: lsp.DiagnosticSeverity.Warning,
             Severity.INFO: lsp.DiagnosticSeverity.Information}
_KINDS = {"predicate": lsp.CompletionItemKind.Function, "action": lsp.CompletionItemKind.Method,
          "type": lsp.CompletionItemKind.Class, "constant": lsp.CompletionItemKind.Constant,
          "object": lsp.CompletionItemKind.Variable}


QUESTIONS_FILE = "questions.toml"  # a domain's question templates (toolkit/question_file.py), linted too


class PddlServer(LanguageServer):
    """The PDDL language server: documents, their linked domain, and pending lint runs."""

    def __init__(self) -> None:
        super().__init__("pgt-lsp", "0.1.0")
        self.pending: dict[str, asyncio.Task] = {}

    # ------------------------------------------------------------ files

    def text(self, path: Path) -> str:
        """An open buffer's text, else the file on disk ('' if unreadable)."""
        doc = self._open().get(from_fs_path(str(path)) or "")
        if doc is not None:
            return doc.source
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return ""

    def _open(self) -> dict:
        try:
            return self.workspace.text_documents
        except RuntimeError:  # not initialised (used as a library, e.g. by the benchmark)
            return {}

    def domain_of(self, path: Path) -> Path | None:
        """The domain file of a domain, problem or ``questions.toml`` file (same folder, else the folder above)."""
        if path.name == QUESTIONS_FILE:  # the question templates of the domain beside them
            beside = path.parent / "domain.pddl"
            return beside if beside.is_file() or from_fs_path(str(beside)) in self._open() else None
        head = domain_name_of(self.text(path))
        if head is None:
            return None
        if head[0] == "domain":
            return path
        for folder in (path.parent, path.parent.parent):
            beside = folder / "domain.pddl"
            if beside.is_file() or from_fs_path(str(beside)) in self._open():
                return beside
            for other in sorted(folder.glob("*.pddl")):
                if domain_name_of(self.text(other)) == ("domain", head[1]):
                    return other
        return None

    def problems_of(self, domain: Path) -> list[Path]:
        """Problem files that name a domain: beside it, or in a ``problems/`` folder beside it."""
        head = domain_name_of(self.text(domain))
        if head is None:
            return []
        candidates = [*sorted(domain.parent.glob("*.pddl")), *sorted((domain.parent / "problems").glob("*.pddl"))]
        found = [p for p in candidates
                 if p != domain and (k := domain_name_of(self.text(p))) and k[0] == "problem"
                 and k[1].lower() == head[1].lower()]
        return found[:MAX_SIBLING_PROBLEMS]

    def symbols(self, path: Path) -> list[tuple[Path, Symbol]]:
        """Names declared in a file and in its domain."""
        out = [(path, s) for s in declarations(self.text(path))]
        domain = self.domain_of(path)
        if domain is not None and domain != path:
            out += [(domain, s) for s in declarations(self.text(domain))]
        return out

    # -------------------------------------------------------- diagnostics

    def snapshot(self, path: Path) -> tuple[Path, dict[Path, str]] | None:
        """The domain of ``path`` and the texts to lint with it (read now, so a later lint may run off-thread)."""
        domain = self.domain_of(path)
        if domain is None:
            return None
        problems = self.problems_of(domain) if domain == path else [path]
        questions = domain.parent / QUESTIONS_FILE
        if path == questions or from_fs_path(str(questions)) in self._open():
            problems = [p for p in problems if p != questions] + [questions]  # its unsaved text is linted
        return domain, {p: self.text(p) for p in (domain, *problems)}

    def diagnostics(self, path: Path, reachability: bool = True) -> list[lsp.Diagnostic]:
        snap = self.snapshot(path)
        return [] if snap is None else lint_diagnostics(path, *snap, reachability=reachability)

    def publish(self, uri: str, reachability: bool = True) -> None:
        path = Path(to_fs_path(uri) or uri)
        self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
            uri=uri, diagnostics=self.diagnostics(path, reachability)))

    def publish_later(self, uri: str, delay: float = DEBOUNCE_S) -> None:
        """After ``delay`` with no further change (debounce): the quick checks at once, then, computed off
        the event loop, the full set with per-problem reachability (slow on large problems), unless the
        text changed meanwhile. Each document gets two publications per settled edit."""
        old = self.pending.pop(uri, None)
        if old is not None:
            old.cancel()
        path = Path(to_fs_path(uri) or uri)

        async def run() -> None:
            await asyncio.sleep(delay)
            self.publish(uri, reachability=False)
            snap = self.snapshot(path)
            if snap is None:
                return
            full = await asyncio.to_thread(lint_diagnostics, path, *snap)
            if self.snapshot(path) == snap:
                self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=full))
            self.pending.pop(uri, None)

        self.pending[uri] = asyncio.get_running_loop().create_task(run())

    # ------------------------------------------------------------- hover

    def hover_text(self, path: Path, sym: Symbol, where: Path) -> str:
        lines = [f"**{sym.kind}** `{sym.name}`", "```pddl", sym.declaration, "```"]
        if sym.kind in ("predicate", "action"):
            template = _template(self.text(where), where, sym)
            if template:
                lines.append(template)
        lines.append(f"declared in {where.name}:{sym.span.line + 1}")
        return "\n".join(lines)


def lint_diagnostics(path: Path, domain: Path, texts: dict[Path, str], reachability: bool = True) -> list[lsp.Diagnostic]:
    """The lint findings on ``path`` as LSP diagnostics (pure: texts in, diagnostics out)."""
    problems = {str(p): t for p, t in texts.items() if p != domain and p.name != QUESTIONS_FILE}
    questions = next(((str(p), t) for p, t in texts.items() if p.name == QUESTIONS_FILE), None)
    report = lint_texts(str(domain), texts[domain], problems, reachability=reachability, questions=questions)
    out = []
    for f in report.findings:
        if Path(f.path) != path:
            continue
        line, col = (f.line or 1) - 1, (f.column or 1) - 1
        rows = texts[path].split("\n")
        word = re.match(r"\(?\s*[^\s()]*", rows[line][col:] if line < len(rows) else "")
        length = max(word.end() if word else 0, 1)  # underline "(name" or the name, not one character
        message = f.message + (f"\nhint: {f.hint}" if f.hint else "")
        out.append(lsp.Diagnostic(range=_range(Span(line, col, col + length)), message=message,
                                  severity=_SEVERITY[f.severity], code=f.code, source="pgt"))
    if domain != path and any(Path(f.path) == domain and f.severity is Severity.ERROR for f in report.findings):
        out.append(lsp.Diagnostic(range=_range(Span(0, 0, 1)), severity=lsp.DiagnosticSeverity.Warning,
                                  message=f"its domain {domain.name} has errors; checks here are partial",
                                  code="domain-errors", source="pgt"))
    return out


def _template(text: str, path: Path, sym: Symbol) -> str:
    """The question (or action text) template of a predicate or action: from questions.toml, else generated."""
    domain = loader.read_domain(text, str(path)).model
    if domain is None:
        return ""
    spec = None
    found = find_question_file(domain)
    if found is not None:
        try:
            spec = load_question_spec(found, domain)
        except Exception:  # a broken questions.toml is lint's business, not hover's
            spec = None
    if sym.kind == "predicate":
        pred = next((p for n, p in domain.predicates.items() if n.lower() == sym.name.lower()), None)
        if pred is None:
            return ""
        if spec is not None and pred.name in spec.questions:
            return f"question (questions.toml): {spec.questions[pred.name].text}"
        args = ["{" + v.lstrip("?") + "}" for v, _ in pred.params]
        return f"question (generated): {ph.name_question(ph.split_words(pred.name), args)}"
    if spec is not None:
        hit = next((t for n, t in spec.actions.items() if n.lower() == sym.name.lower()), None)
        if hit is not None:
            return f"action text (questions.toml): {hit.text}"
    return ""


def _range(span: Span) -> lsp.Range:
    return lsp.Range(start=lsp.Position(line=span.line, character=span.start),
                     end=lsp.Position(line=span.line, character=span.end))


def _location(path: Path, span: Span) -> lsp.Location:
    return lsp.Location(uri=from_fs_path(str(path)) or str(path), range=_range(span))


def build_server() -> PddlServer:
    server = PddlServer()

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: PddlServer, params: lsp.DidOpenTextDocumentParams) -> None:
        ls.publish_later(params.text_document.uri, delay=0)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: PddlServer, params: lsp.DidChangeTextDocumentParams) -> None:
        ls.publish_later(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: PddlServer, params: lsp.DidSaveTextDocumentParams) -> None:
        ls.publish_later(params.text_document.uri, delay=0)

    def lookup(ls: PddlServer, params: lsp.TextDocumentPositionParams) -> tuple[Path, Path, Symbol] | None:
        path = Path(to_fs_path(params.text_document.uri) or params.text_document.uri)
        word = word_at(ls.text(path), params.position.line, params.position.character)
        if word is None:
            return None
        hit = next(((p, s) for p, s in ls.symbols(path) if s.name.lower() == word.lower()), None)
        return (path, *hit) if hit else None

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    def hover(ls: PddlServer, params: lsp.HoverParams) -> lsp.Hover | None:
        found = lookup(ls, params)
        if found is None:
            return None
        path, where, sym = found
        return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown,
                                                    value=ls.hover_text(path, sym, where)))

    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    def definition(ls: PddlServer, params: lsp.DefinitionParams) -> list[lsp.Location]:
        found = lookup(ls, params)
        return [_location(found[1], found[2].span)] if found else []

    @server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
    def refs(ls: PddlServer, params: lsp.ReferenceParams) -> list[lsp.Location]:
        found = lookup(ls, params)
        if found is None:
            return []
        path, where, sym = found
        if sym.kind == "object":  # a problem's objects exist only in that problem
            files = [where]
        else:
            domain = ls.domain_of(path) or where
            files = [domain, *ls.problems_of(domain)]
            if path not in files:
                files.append(path)
        return [_location(f, span) for f in files for span in references(ls.text(f), sym.name)]

    @server.feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=["("]))
    def complete(ls: PddlServer, params: lsp.CompletionParams) -> lsp.CompletionList:
        path = Path(to_fs_path(params.text_document.uri) or params.text_document.uri)
        items = [lsp.CompletionItem(label=s.name, kind=_KINDS[s.kind], detail=f"{s.kind}: {s.declaration}")
                 for _, s in ls.symbols(path)]
        return lsp.CompletionList(is_incomplete=False, items=items)

    return server


def serve() -> None:
    """Serve over standard input and output (how editors start language servers)."""
    build_server().start_io()
