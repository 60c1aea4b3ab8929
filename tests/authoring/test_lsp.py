"""``pgt lsp`` driven by pygls' own client over stdio, as an editor drives it."""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls", reason="the lsp extra (pygls) is not installed")

from lsprotocol import types as lsp  # noqa: E402
from pygls.lsp.client import LanguageClient  # noqa: E402
from pygls.uris import from_fs_path  # noqa: E402

DATA = Path(__file__).parent / "data"


def _pos(uri: str, line: int, character: int) -> dict:
    return {"text_document": lsp.TextDocumentIdentifier(uri=uri), "position": lsp.Position(line=line, character=character)}


async def _session(folder: Path) -> dict:
    client = LanguageClient("pgt-test", "1")
    diagnostics: dict[str, asyncio.Queue] = {}

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def got(params: lsp.PublishDiagnosticsParams) -> None:
        diagnostics.setdefault(params.uri, asyncio.Queue()).put_nowait(params.diagnostics)

    async def next_diagnostics(uri: str) -> list[lsp.Diagnostic]:
        return await asyncio.wait_for(diagnostics.setdefault(uri, asyncio.Queue()).get(), 30)

    await client.start_io(sys.executable, "-m", "toolkit.cli", "lsp", "--stdio")
    out: dict = {}
    try:
        init = await client.initialize_async(lsp.InitializeParams(capabilities=lsp.ClientCapabilities(),
                                                                  root_uri=from_fs_path(str(folder))))
        client.initialized(lsp.InitializedParams())
        out["capabilities"] = init.capabilities
        domain, problem = folder / "domain.pddl", folder / "p1.pddl"
        duri, puri = from_fs_path(str(domain)), from_fs_path(str(problem))
        text = domain.read_text()
        client.text_document_did_open(lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(uri=duri, language_id="pddl", version=1, text=text)))
        out["open_quick"] = await next_diagnostics(duri)  # load errors and domain checks first
        out["open"] = await next_diagnostics(duri)  # then with the problems' reachability
        out["hover"] = await client.text_document_hover_async(lsp.HoverParams(**_pos(duri, 13, 27)))  # (lit ...
        out["definition"] = await client.text_document_definition_async(lsp.DefinitionParams(**_pos(duri, 13, 18)))
        out["references"] = await client.text_document_references_async(lsp.ReferenceParams(
            **_pos(duri, 6, 6), context=lsp.ReferenceContext(include_declaration=True)))  # (on ?s - switch)
        out["completion"] = await client.text_document_completion_async(lsp.CompletionParams(**_pos(duri, 13, 20)))
        client.text_document_did_open(lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(uri=puri, language_id="pddl", version=1, text=problem.read_text())))
        await next_diagnostics(puri)
        out["problem"] = await next_diagnostics(puri)
        out["problem_definition"] = await client.text_document_definition_async(
            lsp.DefinitionParams(**_pos(puri, 3, 10)))  # (lit kitchen) in the goal -> the domain
        fixed = (text.replace("(lit ?r ?s)", "(lit ?r)").replace(" (broken ?s)", "")
                 .replace("\n    (dusty ?r - room)", "")
                 .replace("(and (on ?s) (not (on ?s)))\n    :effect (on ?s)", "(not (on ?s))\n    :effect (on ?s)"))
        for version, change in enumerate([text + " ", fixed], start=2):  # two quick edits: one lint run (debounced)
            client.text_document_did_change(lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(uri=duri, version=version),
                content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=change)]))
        out["fixed_quick"] = await next_diagnostics(duri)
        out["fixed"] = await next_diagnostics(duri)
        out["fixed_text"] = fixed
    finally:
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()
    return out


@pytest.fixture(scope="module")
def session(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("lights")
    shutil.copy(DATA / "lights_four_faults.pddl", folder / "domain.pddl")
    shutil.copy(DATA / "lights_p1.pddl", folder / "p1.pddl")
    return asyncio.run(_session(folder))


def test_opening_the_broken_domain_shows_every_fault_at_once(session):
    got = {(d.code, d.range.start.line + 1, d.range.start.character + 1) for d in session["open"]}
    # ranges sit on the offending name ("lit", "broken"), not on the "(" before it
    assert {("arity-error", 14, 27), ("undeclared-name", 17, 33), ("unused-predicate", 10, 5),
            ("action-never-applicable", 19, 12)} <= got
    broken = next(d for d in session["open"] if d.code == "undeclared-name")
    assert broken.severity == lsp.DiagnosticSeverity.Error and broken.message.startswith("unknown predicate 'broken'")
    assert broken.range.end.character - broken.range.start.character == len("broken")


def test_quick_diagnostics_come_first_without_reachability(session):
    quick = {d.code for d in session["open_quick"]}
    assert {"arity-error", "undeclared-name"} <= quick and "action-never-applicable" not in quick
    assert "unused-predicate" not in {d.code for d in session["fixed_quick"]}


def test_hover_shows_the_declaration_and_question_template(session):
    value = session["hover"].contents.value
    assert "(lit ?r - room)" in value and "question (generated): Is {r} lit?" in value


def test_definition_and_references(session):
    (loc,) = session["definition"]  # (on ?s) in flip's effect -> the :predicates line
    assert (loc.range.start.line, loc.range.start.character) == (6, 5)
    lines = sorted(r.range.start.line + 1 for r in session["references"])
    assert lines == [7, 13, 14, 17, 18, 21, 21, 22]


def test_completion_offers_declared_names(session):
    labels = {i.label: i.kind for i in session["completion"].items}
    assert labels["lit"] == lsp.CompletionItemKind.Function and labels["flip"] == lsp.CompletionItemKind.Method
    assert labels["room"] == lsp.CompletionItemKind.Class


def test_a_problem_is_linked_to_its_domain(session):
    (loc,) = session["problem_definition"]
    assert loc.uri.endswith("/domain.pddl") and loc.range.start.line == 8
    assert any(d.code == "domain-errors" for d in session["problem"])


def test_after_the_fixes_the_domain_is_clean(session):
    assert [d for d in session["fixed"] if d.severity != lsp.DiagnosticSeverity.Information] == []
