"""``pgt lsp`` as real editors and hostile inputs drive it, over a raw JSON-RPC pipe (issue 27).

Each test is one finding: URIs in another spelling missed the open buffer; the
lint ran on the event loop (a big domain blocked hover and even ``exit``);
stale lints were never stopped; a FIFO, ``/dev/zero`` or a 20 MB file beside
a domain hung the server or ate memory; invalid requests, requests after
``shutdown`` and bodies that are not JSON got no protocol answer; an unknown
type was underlined at the ``-`` before it.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from urllib.parse import quote

import pytest

pytest.importorskip("pygls", reason="the lsp extra (pygls) is not installed")

from lsp_wire import Wire  # noqa: E402

DOMAIN = """(define (domain lights)
  (:requirements :strips :typing)
  (:types room switch)
  (:predicates (on ?s - switch) (lit ?r - room))
  (:action flip
    :parameters (?s - switch ?r - room)
    :precondition (on ?s)
    :effect (lit ?r)))
"""


def big_domain(actions: int) -> str:
    """A valid domain whose full lint takes seconds (the grammar parse), with one unknown type at the end."""
    lines = ["(define (domain big)", "  (:requirements :strips :typing)", "  (:types room thing)", "  (:predicates"]
    lines += [f"    (p{i} ?r - room ?t - thing)" for i in range(actions)]
    lines.append("  )")
    for i in range(actions):
        typ = "rooom" if i == actions - 1 else "room"
        lines += [f"  (:action act{i}", f"    :parameters (?r - {typ} ?t - thing)",
                  f"    :precondition (and (p{i} ?r ?t) (p{(i + 1) % actions} ?r ?t))",
                  f"    :effect (and (not (p{i} ?r ?t)) (p{(i + 7) % actions} ?r ?t)))"]
    return "\n".join(lines) + ")\n"


@pytest.fixture()
def wire(tmp_path):
    client = Wire()
    client.initialize(tmp_path)
    yield client
    client.close()


@pytest.fixture(scope="module")
def shared_wire(tmp_path_factory):
    """One server for the tests that only open a buffer of their own (a URI no other test opens) and read its
    diagnostics and hover: starting a server is 3-6 s of imports on two busy cores, ten times over. The tests
    that shut it down, stop it, load it or feed it broken frames each start their own (``wire``)."""
    client = Wire()
    client.initialize(tmp_path_factory.mktemp("shared-workspace"))
    yield client
    client.close()


@pytest.mark.parametrize("name", ["with space", "a+b", "c:d", "e#f", "g@h", "i;j", "k(l)", "caf\u00e9"])
def test_the_buffer_is_found_whatever_the_uri_spelling(shared_wire, tmp_path, name: str) -> None:
    folder = tmp_path / name
    folder.mkdir()
    path = folder / "domain.pddl"
    path.write_text(DOMAIN)  # the file on disk is clean; the unsaved buffer is not
    raw = "file://" + str(path)  # Neovim's spelling: unescaped (pygls keys the buffer by it)
    shared_wire.open(raw, DOMAIN.replace("(lit ?r)))", "(lit ?r ?s)))"))
    found = shared_wire.diagnostics(raw) + shared_wire.diagnostics(raw)
    assert any(d["code"] == "arity-error" for d in found), found
    hover = shared_wire.hover(raw, 7, 14)["result"]  # (lit ...) in the buffer
    assert "(lit ?r - room)" in hover["contents"]["value"]


def test_an_unsaved_file_with_odd_characters_gets_hover(shared_wire, tmp_path) -> None:
    path = tmp_path / "new file+1.pddl"  # never written to disk
    uri = "file://" + quote(str(path))  # VS Code's spelling: escaped
    shared_wire.open(uri, DOMAIN)
    shared_wire.diagnostics(uri)
    assert "(on ?s - switch)" in shared_wire.hover(uri, 6, 20)["result"]["contents"]["value"]


def test_an_unknown_type_is_underlined_on_its_name(shared_wire, tmp_path) -> None:
    uri = (tmp_path / "domain.pddl").as_uri()
    text = DOMAIN.replace("(?s - switch ?r - room)", "(?s - switch ?r - rooom)")
    shared_wire.open(uri, text)
    for publication in (shared_wire.diagnostics(uri), shared_wire.diagnostics(uri)):  # the quick step, then the full lint
        (bad,) = [d for d in publication if "rooom" in d["message"]]
        start, end = bad["range"]["start"], bad["range"]["end"]
        assert text.split("\n")[start["line"]][start["character"]:end["character"]] == "rooom"


def test_invalid_params_get_invalid_params(wire) -> None:
    rid = wire.request("textDocument/hover", {"textDocument": 5, "position": "x"})
    assert wire.response(rid, 10)["error"]["code"] == -32602


def test_a_body_that_is_not_json_gets_a_parse_error_not_a_message_box(wire) -> None:
    wire.send_raw(b"{this is not json")
    reply = wire.wait_for(lambda m: "error" in m or m.get("method") == "window/showMessage", 10)
    assert reply.get("error", {}).get("code") == -32700, reply


def test_requests_after_shutdown_get_invalid_request_and_exit_is_honoured(wire) -> None:
    wire.response(wire.request("shutdown", None), 10)
    rid = wire.request("textDocument/hover", {"textDocument": {"uri": "file:///x.pddl"},
                                              "position": {"line": 0, "character": 0}})
    assert wire.response(rid, 10)["error"]["code"] == -32600
    wire.notify("exit", None)
    assert wire.proc.wait(5) == 0


def test_exit_ends_the_process_within_a_second_while_a_lint_runs(wire, tmp_path) -> None:
    uri = (tmp_path / "domain.pddl").as_uri()
    wire.open(uri, big_domain(1500))
    wire.diagnostics(uri, 60)  # the quick step is out; the full lint (seconds to minutes) runs now
    wire.response(wire.request("shutdown", None), 10)
    start = time.monotonic()
    wire.notify("exit", None)
    wire.proc.wait(10)
    assert time.monotonic() - start < 1.0


def test_a_big_domain_gets_quick_diagnostics_and_hover_while_the_full_lint_runs(wire, tmp_path) -> None:
    uri = (tmp_path / "domain.pddl").as_uri()
    text = big_domain(3000)  # about 580 kB
    start = time.monotonic()
    wire.open(uri, text)
    quick = wire.diagnostics(uri, 60)
    assert time.monotonic() - start < 20 and any("rooom" in d["message"] for d in quick)
    for line in (10, 4000, 9000):
        start = time.monotonic()
        reply = wire.hover(uri, line, 6, 30)
        assert time.monotonic() - start < 3.0, "hover waited for the lint"
        assert "result" in reply


def test_a_newer_edit_stops_the_stale_lint(wire, tmp_path) -> None:
    uri = (tmp_path / "domain.pddl").as_uri()
    wire.open(uri, big_domain(1500))
    wire.diagnostics(uri, 60)  # the quick step; the full lint of version 1 runs now
    small = DOMAIN.replace("(lit ?r)))", "(lit ?r ?s)))")
    wire.change(uri, small, 2)
    start = time.monotonic()
    first = wire.diagnostics(uri, 60)
    second = wire.diagnostics(uri, 60)
    assert time.monotonic() - start < 10, "the new version waited for the stale lint"
    for publication in (first, second):
        assert any(d["code"] == "arity-error" for d in publication) and not any("rooom" in d["message"]
                                                                               for d in publication)
    busy = _cpu_seconds(wire.proc.pid)
    with pytest.raises(TimeoutError):  # the stale lint never publishes
        wire.diagnostics(uri, 3)
    if busy is not None:  # nor does it run on unseen: its thread went on for seconds of CPU (minutes on airport)
        assert _cpu_seconds(wire.proc.pid) - busy < 0.15, "the stale lint still runs"


def _cpu_seconds(pid: int) -> float | None:
    """CPU time ``pid`` has used (user + system), from ``/proc``; None without it."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.skipif(not hasattr(os, "mkfifo") or not os.path.exists("/dev/zero"), reason="POSIX only")
def test_a_fifo_dev_zero_and_a_huge_file_beside_a_domain_never_stop_the_server(wire, tmp_path) -> None:
    (tmp_path / "domain.pddl").write_text(DOMAIN)
    os.mkfifo(tmp_path / "fifo.pddl")
    os.symlink("/dev/zero", tmp_path / "zero.pddl")
    with open(tmp_path / "huge.pddl", "wb") as fh:  # 20 MB that names the domain
        fh.write(b"(define (problem huge) (:domain lights) (:objects ")
        fh.truncate(20 * 1024 * 1024)
    problem = tmp_path / "p1.pddl"
    problem.write_text("(define (problem p1) (:domain lights) (:objects r - room s - switch)\n"
                       "  (:init (on s)) (:goal (lit r)))\n")
    for path in (tmp_path / "domain.pddl", problem):
        uri = path.as_uri()
        wire.open(uri, path.read_text())
        wire.diagnostics(uri, 30)
        wire.diagnostics(uri, 60)
        assert "result" in wire.hover(uri, 1, 5, 10)
    with open(f"/proc/{wire.proc.pid}/status") as fh:
        rss_kb = next(int(line.split()[1]) for line in fh if line.startswith("VmRSS"))
    assert rss_kb < 1_000_000, f"{rss_kb} kB resident"


def test_a_20_mb_buffer_never_stops_the_server_answering(wire, tmp_path) -> None:
    uri = (tmp_path / "domain.pddl").as_uri()
    huge = "(define (domain huge)\n" + "".join(f"; line {i} " + "y" * 190 + "\n" for i in range(100_000)) + ")\n"
    wire.open(uri, huge)  # about 20 MB
    start = time.monotonic()
    assert "result" in wire.hover(uri, 0, 17, 30)
    wire.response(wire.request("shutdown", None), 30)
    assert time.monotonic() - start < 10
    start = time.monotonic()
    wire.notify("exit", None)
    wire.proc.wait(10)
    assert time.monotonic() - start < 1.0
