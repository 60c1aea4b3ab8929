"""Every ``pgt`` command in a code block of README.md and docs/*.md runs as written.

Each fenced block is one case: its ``pgt`` lines run in order (a later line may read
what an earlier one wrote; a block that reads what an earlier block wrote joins it) in a temporary copy of the repository, in-process through
:func:`toolkit.cli.main`, with the shell's part done here: ``cd DIR &&``, globs,
``# comments``, ``$`` prompts and ``.venv/bin/pgt``. ``/tmp/X`` outputs go to the
test's own folder. A command passes when it exits 0 or 1 (1 is the documented
negative result, e.g. the invalid plan of the tour) with no traceback; where a
console block shows a deterministic output, that output must match.

Studies (``run``, ``demo``, ``compare``) as written take minutes to half an hour:
here they run with one problem per split and one seed (plus, for ``compare`` and
``demo``, one noise setting), and as written under ``--runslow``. A ``--grounder
vlm`` run talks to the local OpenAI-compatible test server through
``OPENAI_BASE_URL``, as the README tells a user to set it.
"""

from __future__ import annotations

import contextlib
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from toolkit.cli import main

ROOT = Path(__file__).resolve().parents[2]
SUPPORT = str(ROOT / "tests" / "support")
if SUPPORT not in sys.path:
    sys.path.insert(0, SUPPORT)

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```([\w-]*)\n(.*?)^```", re.S | re.M)  # ```text blocks show output only
PGT = re.compile(r"(?:^|(?<=\s))(?:\S*/)?pgt(?=\s|$)")
# Commands whose printed output a console block shows byte for byte (no timings, no paths of the run).
EXACT = ("validate", "lint", "score predict", "score plan ", "invariants", "generate", "questions", "import-scene")
# Quick variants of the studies: appended flags override the documented values (argparse: last wins).
QUICK = {
    "run": ["--problems", "1", "--seeds", "1", "--workers", "1", "--quiet"],
    "demo": ["--problems", "1", "--accuracies", "0.95", "--workers", "1", "--quiet"],
    "fidelity": ["--problems", "1", "--calibrations", "viplan-bw-cot-gpt-4.1", "--workers", "1", "--quiet"],
    "compare": ["--problems", "1", "--suites", "viplan-bw/simple", "--accuracies", "0.95", "--calibrations", "none",
                "--action-failures", "0", "--workers", "1", "--quiet"],
}
# Rate limits a quick variant raises where the command sets them: the README's --rpm 500 paced the three
# episodes' ~260 requests to the local test server over 24 s of waiting (9 s without). The limiter still
# runs; its pacing is tests/grounders/test_limits.py's, against a clock.
QUICK_RATES = {"--rpm": "1000000", "--tpm": "1000000000"}


@dataclass(frozen=True)
class Command:
    doc: str
    line: int
    cwd: str  # relative to the repository root
    argv: tuple[str, ...]
    shown: str  # the output a console block shows under the command ("" if none)


def _commands(doc: Path) -> Iterator[list[Command]]:
    text = doc.read_text(encoding="utf-8")
    for block in FENCE.finditer(text):
        if block.group(1) == "text":
            continue
        first_line = text[: block.start(2)].count("\n") + 1
        lines = block.group(2).replace("\\\n", " ").splitlines()
        found: list[Command] = []
        for i, raw in enumerate(lines):
            line = raw.removeprefix("$ ").strip()
            mt = PGT.search(line)
            if not mt or not line or raw.startswith((" ", "|")) or re.match(r"pgt [a-z -]+: ", line):
                continue  # not a command (output such as "pgt CMD: error: ...", tables, indented text)
            head, tail = line[: mt.start()].strip(), line[mt.end():]
            cd = re.fullmatch(r"cd\s+(\S+)\s*&&", head)
            if head and not cd and not head.endswith("&&"):
                continue  # pgt mentioned inside another program's line
            cwd = cd.group(1) if cd else ""
            argv = tuple(shlex.split(tail, comments=True))
            piped = "|" in argv  # into another program (grep, head): run the pgt part, its output is filtered
            if piped:
                argv = argv[: argv.index("|")]
            shown = []
            if raw.startswith("$ "):
                for out in lines[i + 1:]:
                    if out.startswith("$ "):
                        break
                    shown.append(out)
            found.append(Command(doc.name, first_line + i, cwd, argv, "" if piped else "\n".join(shown).strip()))
        if found:
            yield found


def _chained(blocks: list[list[Command]]) -> list[list[Command]]:
    """A doc's blocks, where a block that reads a folder an earlier block wrote (``--out runs/X``) joins it.

    Test workers each have their own repository copy, so a later block (``pgt report runs/X``)
    run on another worker would not find what the earlier one wrote: chained, they run in order.
    """
    chains: list[list[Command]] = []
    writer: dict[str, int] = {}  # an --out path -> the chain that writes it
    for block in blocks:
        reads = {writer[a] for c in block for i, a in enumerate(c.argv)
                 if a in writer and c.argv[i - 1] != "--out"}  # writing the same folder again is no read
        if reads:
            into = min(reads)
            for other in sorted(reads - {into}, reverse=True):  # one block reading two chains joins them
                chains[into] += chains[other]
                chains[other] = []
                writer.update({k: into for k, v in writer.items() if v == other})
            chains[into] += block
        else:
            into = len(chains)
            chains.append(list(block))
        writer.update({c.argv[i + 1]: into for c in block for i, a in enumerate(c.argv[:-1]) if a == "--out"})
    return [sorted(chain, key=lambda c: c.line) for chain in chains if chain]


def _blocks() -> list[pytest.param]:
    params = []
    for doc in DOCS:
        for block in _chained(list(_commands(doc))):
            label = f"{block[0].doc}:{block[0].line}"
            study = any(c.argv and c.argv[0] in QUICK for c in block)
            params.append(pytest.param(block, False, id=label))
            if study:
                params.append(pytest.param(block, True, id=label + "-as-written", marks=pytest.mark.slow))
    return params


@pytest.fixture(scope="module")
def repo_copy(tmp_path_factory) -> Path:
    """The files a clone has (plus the developer's untracked ones), never what other tests write meanwhile."""
    dest = tmp_path_factory.mktemp("repo") / "pgt"
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=False)
    if listed.returncode != 0:  # not a git checkout (an unpacked archive): copy the tree
        shutil.copytree(ROOT, dest, ignore=shutil.ignore_patterns(".venv", "runs", "__pycache__", "*.egg-info",
                                                                  ".pytest_cache", ".pgt-cache"))
        return dest
    for name in filter(None, listed.stdout.decode().split("\0")):
        source = ROOT / name
        if source.is_file():  # listed but deleted in the work tree, or vanished since: a clone lacks it too
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    return dest


@contextlib.contextmanager
def _fake_endpoint(monkeypatch) -> Iterator[None]:
    from openai_server import start_fake_openai

    server = start_fake_openai()
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-docs-test")
    try:
        yield
    finally:
        server.stop()


def _argv(cmd: Command, tmp: Path, as_written: bool) -> list[str]:
    argv = [a.replace("/tmp/", f"{tmp}/") for a in cmd.argv]
    expanded: list[str] = []
    for a in argv:
        hits = sorted(glob.glob(a)) if any(ch in a for ch in "*?[") else []
        expanded += hits or [a]
    if not as_written and argv and argv[0] in QUICK:
        expanded += QUICK[argv[0]]
        expanded += [a for flag, value in QUICK_RATES.items() if flag in argv for a in (flag, value)]
    return expanded


def _normalise(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


def _exact(cmd: Command) -> bool:
    joined = " ".join(cmd.argv) + " "
    elided = any(line.strip() in ("...", "…") for line in cmd.shown.splitlines())
    return bool(cmd.shown) and joined.startswith(EXACT) and not elided


def _pgt(argv: list[str], capsys) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of ``pgt ARGV``: in this process, or in its own for a Ray run.

    ``--executor ray`` starts a Ray cluster in the process that runs it and leaves
    Ray's threads there; a local study forked later in this test worker could
    deadlock on their locks (CI hung so), so Ray runs in a process of its own.
    """
    if "ray" in argv and "--executor" in argv:
        done = subprocess.run([sys.executable, "-m", "toolkit.cli", *argv], capture_output=True, text=True,
                              timeout=600)
        return done.returncode, done.stdout, done.stderr
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(("block", "as_written"), _blocks())
def test_documented_commands_run_as_written(block: list[Command], as_written: bool, repo_copy: Path,
                                            tmp_path: Path, monkeypatch, capsys) -> None:
    vlm = any("vlm" in c.argv for c in block)
    with _fake_endpoint(monkeypatch) if vlm else contextlib.nullcontext():
        for cmd in block:
            monkeypatch.chdir(repo_copy / cmd.cwd)
            argv = _argv(cmd, tmp_path, as_written)
            code, out, err = _pgt(argv, capsys)
            where = f"{cmd.doc}:{cmd.line}: pgt {' '.join(argv)}"
            assert "Traceback" not in err, f"{where}\n{err}"
            if code == 2 and "pip install" in err:
                pytest.skip(f"{where}: an optional extra is not installed here: {err.strip()}")
            refusal = bool(re.match(r"pgt [a-z -]+: error:", cmd.shown))  # the doc shows the command refusing
            assert code in ((2,) if refusal else (0, 1)), f"{where} exited {code}\n{err[-2000:]}"
            if _exact(cmd):
                printed = err if refusal else out
                assert _normalise(printed.replace(f"{tmp_path}/", "/tmp/")) == _normalise(cmd.shown), where


def test_every_doc_with_commands_is_covered() -> None:
    """The collector finds the commands a reader sees (guards against a silently empty parametrization)."""
    found = {(c.doc, c.argv[0]) for doc in DOCS for block in _commands(doc) for c in block}
    for expected in [("README.md", "validate"), ("README.md", "run"), ("README.md", "report"), ("README.md", "compare"),
                     ("README.md", "demo"), ("authoring.md", "lint"), ("authoring.md", "generate"),
                     ("scoring.md", "score"), ("worlds.md", "render"), ("worlds.md", "import-scene"),
                     ("planning.md", "plan"), ("grounders.md", "questions")]:
        assert expected in found, expected
    exact = {(c.doc, " ".join(c.argv[:2])) for doc in DOCS for block in _commands(doc) for c in block if _exact(c)}
    assert {("README.md", "validate blocksworld"), ("authoring.md", "lint kitchen_broken.pddl"),
            ("scoring.md", "score predict"), ("scoring.md", "score plan")} <= exact
