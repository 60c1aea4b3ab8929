"""``pgt lsp`` shows a domain's questions.toml findings on the file's own lines, from the editor's unsaved text."""

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

from toolkit.lsp.files import Files  # noqa: E402
from toolkit.lsp.server import lint_diagnostics, quick_diagnostics  # noqa: E402

WAREHOUSE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "warehouse"
BAD = "[questions]\nholding = 'Is {r} holding {i}?'\nitem-at = 'Is {i} at {place}?'\n"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    shutil.copy(WAREHOUSE / "domain.pddl", tmp_path / "domain.pddl")
    (tmp_path / "questions.toml").write_text("[questions]\nholding = 'Is {r} holding {i}?'\n")  # clean on disk
    return tmp_path


def test_an_unsaved_questions_file_is_linted_against_the_domain_beside_it(folder: Path) -> None:
    q = folder / "questions.toml"
    files = Files({q: BAD})
    assert files.domain_of(q) == folder / "domain.pddl"
    found = lint_diagnostics(q, *files.snapshot(q))
    bad = [d for d in found if d.code == "questions-file"]
    assert len(bad) == 1 and "unknown placeholder {place}" in bad[0].message and bad[0].range.start.line == 2
    assert quick_diagnostics(q, BAD) == []  # TOML is not PDDL: no parse errors from the quick step
    # the domain's own diagnostics stay the domain's
    domain = folder / "domain.pddl"
    assert not [d for d in lint_diagnostics(domain, *files.snapshot(domain)) if d.code.startswith("question")]


async def _open_and_fix(q: Path) -> list[list[lsp.Diagnostic]]:
    client = LanguageClient("pgt-test", "1")
    got: asyncio.Queue = asyncio.Queue()

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def published(params: lsp.PublishDiagnosticsParams) -> None:
        got.put_nowait(params.diagnostics)

    await client.start_io(sys.executable, "-m", "toolkit.cli", "lsp", "--stdio")
    uri, out = from_fs_path(str(q)), []
    try:
        await client.initialize_async(lsp.InitializeParams(capabilities=lsp.ClientCapabilities()))
        client.initialized(lsp.InitializedParams())
        client.text_document_did_open(lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(uri=uri, language_id="toml", version=1, text=BAD)))
        out += [await asyncio.wait_for(got.get(), 30), await asyncio.wait_for(got.get(), 30)]
        client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=BAD.replace("{place}", "{l}"))]))
        out += [await asyncio.wait_for(got.get(), 30), await asyncio.wait_for(got.get(), 30)]
    finally:
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()
    return out


def test_the_server_shows_questions_findings_and_clears_them_when_fixed(folder: Path) -> None:
    quick, full, _, fixed = asyncio.run(_open_and_fix(folder / "questions.toml"))
    assert list(quick) == []
    (bad,) = [d for d in full if d.code == "questions-file"]
    assert bad.range.start.line == 2 and bad.severity == lsp.DiagnosticSeverity.Error
    assert [d for d in fixed if d.severity == lsp.DiagnosticSeverity.Error] == []
