"""``pgt lsp``: a Language Server for PDDL, so pgt's checks show up where authors edit.

Diagnostics are lint findings on the editor's unsaved text (on open at once, on
change after a short pause so typing stays fluid), in two steps, both off the
event loop: the quick step (:mod:`toolkit.lint.quick`, one linear pass: a 1 MB
domain in about a second), then the full :func:`toolkit.lint.lint_texts` with
the per-problem reachability findings (minutes for a 1 MB domain). A newer edit
stops both (:mod:`toolkit.lsp.jobs`), and requests (hover, definition,
references, completion) run on worker threads, so they never wait for a lint.
A problem file is linked to its domain: ``domain.pddl`` in the same folder, else
the ``.pddl`` file there that defines the domain its ``(:domain ...)`` names. A
domain is linted together with the problems beside it, so reachability findings
(actions that can never apply) appear on the domain too; files beside it are
read only if they are regular files under a size cap (:mod:`toolkit.lsp.files`).
Hover, go-to-definition, find-references and completion read the text itself
(:mod:`toolkit.lsp.symbols`), so they work while a file is broken. Protocol
errors get the specification's error codes (:mod:`toolkit.lsp.protocol`), and
``exit`` ends the process at once."""

from __future__ import annotations

import asyncio
import functools
import os
import re
import sys
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path

from toolkit import loader
from toolkit import phrasing as ph
from toolkit.lint import Severity, lint_texts
from toolkit.lint.findings import Finding
from toolkit.lint.quick import quick_findings
from toolkit.lsp.files import QUESTIONS, Files, is_question_file, read_regular, uri_path
from toolkit.lsp.jobs import Job
from toolkit.lsp.protocol import PddlProtocol, report_error
from toolkit.lsp.symbols import Span, Symbol, declarations, references, word_at
from toolkit.question_file import find_question_file, load_question_spec

DEBOUNCE_S = 0.25
_SEVERITY = {Severity.ERROR: lsp.DiagnosticSeverity.Error, Severity.WARNING: lsp.DiagnosticSeverity.Warning,
             Severity.INFO: lsp.DiagnosticSeverity.Information}
_KINDS = {"predicate": lsp.CompletionItemKind.Function, "action": lsp.CompletionItemKind.Method,
          "type": lsp.CompletionItemKind.Class, "constant": lsp.CompletionItemKind.Constant,
          "object": lsp.CompletionItemKind.Variable}


class PddlServer(LanguageServer):
    """The PDDL language server: open buffers by path, and one pending lint job per file."""

    def __init__(self) -> None:
        super().__init__("pgt-lsp", "0.2.0", protocol_cls=PddlProtocol)
        self.pending: dict[Path, asyncio.Task] = {}
        self.jobs: dict[Path, Job] = {}

    # ------------------------------------------------------------ files

    def _open(self) -> dict:
        try:
            return self.workspace.text_documents
        except RuntimeError:  # not initialised (used as a library, e.g. by the benchmark)
            return {}

    def files(self) -> Files:
        """The open buffers (keyed by the path each URI names, whatever its spelling) over the disk."""
        return Files({uri_path(uri): doc.source for uri, doc in list(self._open().items())})

    def text(self, path: Path) -> str:
        return self.files().text(path)

    def domain_of(self, path: Path) -> Path | None:
        return self.files().domain_of(path)

    def problems_of(self, domain: Path) -> list[Path]:
        return self.files().problems_of(domain)

    def symbols(self, path: Path, files: Files | None = None) -> list[tuple[Path, Symbol]]:
        """Names declared in a file and in its domain."""
        files = files or self.files()
        out = [(path, s) for s in declared(files.text(path))]
        domain = files.domain_of(path)
        if domain is not None and domain != path:
            out += [(domain, s) for s in declared(files.text(domain))]
        return out

    # -------------------------------------------------------- diagnostics

    def diagnostics(self, path: Path, reachability: bool = True) -> list[lsp.Diagnostic]:
        """The full lint's diagnostics of ``path`` (on the caller's thread; the server runs it as a job)."""
        snap = self.files().snapshot(path)
        return [] if snap is None else lint_diagnostics(path, *snap, reachability=reachability)

    def quick(self, path: Path) -> list[lsp.Diagnostic]:
        """The quick step's diagnostics of ``path``: one linear pass over its text."""
        return quick_diagnostics(path, self.text(path))

    def publish_later(self, uri: str, delay: float = DEBOUNCE_S) -> None:
        """After ``delay`` with no further change (debounce): the quick step, then the full lint, both off the
        event loop; a newer edit cancels both (the running lint's thread is stopped, not left to finish)."""
        path = uri_path(uri)
        self.cancel(path)
        files = self.files()  # the buffers as they are now; disk reads happen in the job

        async def run() -> None:
            await asyncio.sleep(delay)
            job = self.jobs[path] = Job(_quick_step, path, files.text(path) if path in files.buffers else None)
            quick = await job.result()
            self._publish(uri, quick)
            job = self.jobs[path] = Job(_full_lint, path, files)
            full = await job.result()
            if full is not None:
                self._publish(uri, full)
            self.jobs.pop(path, None)
            self.pending.pop(path, None)

        self.pending[path] = asyncio.get_running_loop().create_task(run())

    def cancel(self, path: Path) -> None:
        """Stop the pending lint of ``path`` (its debounce wait or its running job)."""
        task, job = self.pending.pop(path, None), self.jobs.pop(path, None)
        if job is not None:
            job.cancel()
        if task is not None:
            task.cancel()

    def location(self, path: Path, span: Span) -> lsp.Location:
        """A location in ``path``, under the URI the client opened it with (its own spelling), if open."""
        uri = next((u for u in list(self._open()) if uri_path(u) == path), None)
        return lsp.Location(uri=uri or from_fs_path(str(path)) or str(path), range=_range(span))

    def _publish(self, uri: str, diagnostics: list[lsp.Diagnostic]) -> None:
        self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics))

    # ------------------------------------------------------------- hover

    def hover_text(self, path: Path, sym: Symbol, where: Path, files: Files | None = None) -> str:
        lines = [f"**{sym.kind}** `{sym.name}`", "```pddl", sym.declaration, "```"]
        if sym.kind in ("predicate", "action"):
            template = _template((files or self.files()).text(where), where, sym)
            if template:
                lines.append(template)
        lines.append(f"declared in {where.name}:{sym.span.line + 1}")
        return "\n".join(lines)


def _full_lint(path: Path, files: Files) -> list[lsp.Diagnostic] | None:
    """The job of the second step: link and read the files (off the loop), then the full lint."""
    if path not in files.buffers:
        files.buffers[path] = files.text(path)
    snap = files.snapshot(path)
    return None if snap is None else lint_diagnostics(path, *snap)


@functools.lru_cache(maxsize=16)
def declared(text: str) -> tuple[Symbol, ...]:
    """:func:`toolkit.lsp.symbols.declarations`, once per text (0.7 s for a 1 MB domain; every hover needs them)."""
    return tuple(declarations(text))


def _quick_step(path: Path, text: str | None) -> list[lsp.Diagnostic]:
    """The first job after an edit: the quick diagnostics, then the declarations hover and completion will read
    (computed now, before the full lint competes for the interpreter)."""
    found = quick_diagnostics(path, text)
    if text is not None:
        declared(text)
    return found


def quick_diagnostics(path: Path, text: str | None) -> list[lsp.Diagnostic]:
    """The quick step (:func:`toolkit.lint.quick.quick_findings`) as LSP diagnostics (none for a questions.toml:
    it is not PDDL, and the full lint that follows checks it against its domain in a moment)."""
    if is_question_file(path):
        return []
    if text is None:
        text = read_regular(path) or ""
    rows = _Rows(text)
    return [_diagnostic(f, rows) for f in quick_findings(str(path), text)]


def lint_diagnostics(path: Path, domain: Path, texts: dict[Path, str], reachability: bool = True) -> list[lsp.Diagnostic]:
    """The lint findings on ``path`` as LSP diagnostics (pure: texts in, diagnostics out).

    A ``questions.toml`` among ``texts`` (the one beside the domain) is checked as the editor holds it, so its
    findings (placeholders against arity, unknown predicates and actions) show on its own lines.
    """
    questions = domain.parent / QUESTIONS
    problems = {str(p): t for p, t in texts.items() if p not in (domain, questions)}
    report = lint_texts(str(domain), texts[domain], problems, reachability=reachability,
                        questions=(str(questions), texts[questions]) if questions in texts else None)
    rows = _Rows(texts[path])
    out = [_diagnostic(f, rows) for f in report.findings if Path(f.path) == path]
    if domain != path and any(Path(f.path) == domain and f.severity is Severity.ERROR for f in report.findings):
        out.append(lsp.Diagnostic(range=_range(Span(0, 0, 1)), severity=lsp.DiagnosticSeverity.Warning,
                                  message=f"its domain {domain.name} has errors; checks here are partial",
                                  code="domain-errors", source="pgt"))
    return out


class _Rows:
    """A text's lines, split once per lint (not once per finding: that was quadratic in the file's size)."""

    def __init__(self, text: str) -> None:
        self.rows = text.split("\n")

    def get(self, line: int) -> str:
        return self.rows[line] if 0 <= line < len(self.rows) else ""


_QUOTED = re.compile(r"'([^'\s]+)'")


def _diagnostic(f: Finding, rows: _Rows) -> lsp.Diagnostic:
    """A finding as a diagnostic whose range covers the offending name.

    A finding's column may point before the name (``unknown type 'rooom'`` at the
    ``-`` of ``?r - rooom``, an arity error at the atom's ``(``): the name the
    message quotes is underlined where it first occurs from that column on the
    line; without one, the word at the column (with its ``(``).
    """
    line, col = (f.line or 1) - 1, (f.column or 1) - 1
    row = rows.get(line)
    span = None
    quoted = _QUOTED.search(f.message)
    if quoted:
        hit = re.compile(r"(?<![\w?-])" + re.escape(quoted.group(1)) + r"(?![\w-])", re.I).search(row, col)
        if hit:
            span = Span(line, hit.start(), hit.end())
    if span is None:
        word = re.match(r"\(?\s*[^\s()]*", row[col:])
        span = Span(line, col, col + max(word.end() if word else 0, 1))
    message = f.message + (f"\nhint: {f.hint}" if f.hint else "")
    return lsp.Diagnostic(range=_range(span), message=message, severity=_SEVERITY[f.severity], code=f.code,
                          source="pgt")


HOVER_PARSE_BYTES = 256 * 1024  # hover reads questions.toml through the parsed domain only up to this size


def _template(text: str, path: Path, sym: Symbol) -> str:
    """The question (or action text) template of a predicate or action: from questions.toml, else generated.

    The parsed domain (needed to check questions.toml) is cached per text; past
    :data:`HOVER_PARSE_BYTES` the grammar parse takes seconds, so a big domain's
    hover gives the generated question from the declaration instead.
    """
    domain = _parsed(text, str(path)) if len(text) <= HOVER_PARSE_BYTES else None
    if domain is None:
        return _generated(sym) if sym.kind == "predicate" else ""
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
        return _generated(sym)
    if spec is not None:
        hit = next((t for n, t in spec.actions.items() if n.lower() == sym.name.lower()), None)
        if hit is not None:
            return f"action text (questions.toml): {hit.text}"
    return ""


@functools.lru_cache(maxsize=8)
def _parsed(text: str, path: str):
    return loader.read_domain(text, path).model


def _generated(sym: Symbol) -> str:
    """The generated question of a predicate, from its declaration's variables."""
    args = ["{" + v.lstrip("?") + "}" for v in re.findall(r"\?[\w-]+", sym.declaration)]
    return f"question (generated): {ph.name_question(ph.split_words(sym.name), args)}"


def _range(span: Span) -> lsp.Range:
    return lsp.Range(start=lsp.Position(line=span.line, character=span.start),
                     end=lsp.Position(line=span.line, character=span.end))


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

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: PddlServer, params: lsp.DidCloseTextDocumentParams) -> None:
        ls.cancel(uri_path(params.text_document.uri))

    @server.feature(lsp.EXIT)
    def on_exit(ls: PddlServer, params: object) -> None:
        """``exit``: gone at once, even while a lint job runs (its thread is a daemon; nothing is left to save)."""
        _leave(0 if ls.protocol._shutdown else 1)

    def lookup(ls: PddlServer, params: lsp.TextDocumentPositionParams, files: Files
               ) -> tuple[Path, Path, Symbol] | None:
        path = uri_path(params.text_document.uri)
        word = word_at(files.text(path), params.position.line, params.position.character)
        if word is None:
            return None
        hit = next(((p, s) for p, s in ls.symbols(path, files) if s.name.lower() == word.lower()), None)
        return (path, *hit) if hit else None

    # Requests run on pygls' worker threads, never behind a lint on the event loop.

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    @server.thread()
    def hover(ls: PddlServer, params: lsp.HoverParams) -> lsp.Hover | None:
        files = ls.files()
        found = lookup(ls, params, files)
        if found is None:
            return None
        path, where, sym = found
        return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown,
                                                    value=ls.hover_text(path, sym, where, files)))

    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    @server.thread()
    def definition(ls: PddlServer, params: lsp.DefinitionParams) -> list[lsp.Location]:
        found = lookup(ls, params, ls.files())
        return [ls.location(found[1], found[2].span)] if found else []

    @server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
    @server.thread()
    def refs(ls: PddlServer, params: lsp.ReferenceParams) -> list[lsp.Location]:
        files = ls.files()
        found = lookup(ls, params, files)
        if found is None:
            return []
        path, where, sym = found
        if sym.kind == "object":  # a problem's objects exist only in that problem
            targets = [where]
        else:
            domain = files.domain_of(path) or where
            targets = [domain, *files.problems_of(domain)]
            if path not in targets:
                targets.append(path)
        return [ls.location(f, span) for f in targets for span in references(files.text(f), sym.name)]

    @server.feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=["("]))
    @server.thread()
    def complete(ls: PddlServer, params: lsp.CompletionParams) -> lsp.CompletionList:
        path = uri_path(params.text_document.uri)
        items = [lsp.CompletionItem(label=s.name, kind=_KINDS[s.kind], detail=f"{s.kind}: {s.declaration}")
                 for _, s in ls.symbols(path)]
        return lsp.CompletionList(is_incomplete=False, items=items)

    return server


def _leave(code: int) -> None:
    """End the process now: flush what was written, skip joining threads (a lint may still run)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def serve() -> None:
    """Serve over standard input and output (how editors start language servers).

    When the editor closes the pipe without ``exit`` (it crashed or was killed),
    the process ends too, whatever lint job is still running.
    """
    server = build_server()
    server.report_server_error = lambda error, source: report_error(server, error, source)  # type: ignore[method-assign]
    server.start_io()
    _leave(0)
