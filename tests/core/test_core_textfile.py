"""Reading users' files: every encoding an editor or shell writes is read or refused at file:line:column."""

from __future__ import annotations

import gzip
from dataclasses import replace
from pathlib import Path

import pytest

from toolkit.errors import PgtError
from toolkit.loader import load_domain, load_problem
from toolkit.domains import DOMAINS_ROOT
from toolkit.textfile import read_text

BW = DOMAINS_ROOT / "blocksworld"
DOMAIN_TEXT = (BW / "domain.pddl").read_text(encoding="utf-8")
PROBLEM_TEXT = (BW / "problems" / "simple_problem_0.pddl").read_text(encoding="utf-8")


@pytest.mark.parametrize("encode", [
    lambda t: t.encode("utf-8"),
    lambda t: b"\xef\xbb\xbf" + t.encode("utf-8"),
    lambda t: t.encode("utf-16"),  # PowerShell's ``>``: UTF-16 with a byte-order mark
    lambda t: t.encode("utf-16-be").join([b"\xfe\xff", b""]),
    lambda t: t.replace("\n", "\r\n").encode("utf-8"),
    lambda t: ("; auteur: Fran\u00e7ois\n" + t.replace(")\n", ") ; d\u00e9j\u00e0 vu\n", 3)).encode("latin-1"),
], ids=["utf8", "bom", "utf16-le", "utf16-be", "crlf", "latin1-comments"])
def test_readable_encodings_load_the_same_model(encode, tmp_path: Path) -> None:
    domain, problem = tmp_path / "d.pddl", tmp_path / "p.pddl"
    domain.write_bytes(encode(DOMAIN_TEXT))
    problem.write_bytes(encode(PROBLEM_TEXT))
    reference = load_domain(BW / "domain.pddl")
    assert replace(load_domain(domain), path="") == replace(reference, path="")
    assert replace(load_problem(problem, reference), path="") == \
        replace(load_problem(BW / "problems" / "simple_problem_0.pddl", reference), path="")


def test_latin1_outside_a_comment_is_located(tmp_path: Path) -> None:
    path = tmp_path / "p.pddl"
    path.write_bytes("; caf\u00e9 is fine here\n(define (problem caf\u00e9)".encode("latin-1"))
    with pytest.raises(PgtError, match=r"^.*p.pddl:2:21: not UTF-8 text \(Latin-1 or another legacy encoding\?\); "
                                       r"save the file as UTF-8$"):
        load_problem(path, load_domain(BW / "domain.pddl"))


def test_latin1_in_json_is_never_taken_for_a_comment(tmp_path: Path) -> None:
    path = tmp_path / "b.jsonl"
    path.write_bytes('{"plan": "; caf\u00e9"}\n'.encode("latin-1"))
    with pytest.raises(PgtError, match=r"b.jsonl:1:16: not UTF-8"):
        read_text(path, comment=None)


@pytest.mark.parametrize("data, message", [
    (gzip.compress(DOMAIN_TEXT.encode()), "is gzip-compressed, not text; decompress it first"),
    (bytes(range(256)), "is a binary file, not text"),
    (b"\xff\xfe(", "starts like UTF-16 text but is not; save the file as UTF-8"),
])
def test_files_that_are_not_text_are_refused_by_name(data: bytes, message: str, tmp_path: Path) -> None:
    path = tmp_path / "x.pddl"
    path.write_bytes(data)
    with pytest.raises(PgtError) as exc:
        load_domain(path)
    assert str(exc.value) == f"{path}: {message}"
