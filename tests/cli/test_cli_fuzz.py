"""Every subcommand over a catalogue of bad inputs: never a traceback, only exit codes 0/1/2.

The convention (README, "Exit codes"): 0 done, 1 a negative result (invalid plan, no
plan, lint findings, batch lines with bad input), 2 bad input or usage with one line
``pgt CMD: error: ...`` on standard error, 130 interrupted. Runs in-process through
:func:`toolkit.cli.main` so the whole sweep takes seconds; an exception escaping
``main`` fails the test with its traceback. A refused command must leave nothing
behind: every case points ``--out`` at a fresh folder and checks it was not created.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from toolkit.cli import main
from toolkit.domains import DOMAINS_ROOT

ROOT = Path(__file__).resolve().parents[2]
BW = DOMAINS_ROOT / "blocksworld"
DOMAIN = str(BW / "domain.pddl")
PROBLEM = str(BW / "problems" / "simple_problem_0.pddl")
PLAN = str(BW / "golden" / "valid" / "simple_problem_0.plan")
SCENE = str(ROOT / "tests" / "worlds" / "data" / "grasif_living_room.json")
ERROR_LINE = re.compile(r"^pgt( [a-z-]+){0,2}: (error: .+|interrupted)$")

# ------------------------------------------------------------------ the catalogue

VALID_TEXT = {"domain": Path(DOMAIN).read_text(), "problem": Path(PROBLEM).read_text(), "plan": Path(PLAN).read_text(),
              "scene": Path(SCENE).read_text()}


def catalogue(base: Path) -> dict[str, Path]:
    """Bad files, one per kind, shared by every slot."""
    base.mkdir(parents=True, exist_ok=True)
    (base / "folder").mkdir(exist_ok=True)
    files: dict[str, bytes] = {
        "empty": b"",
        "binary": bytes(range(256)) * 64,
        "non-utf8": "(define (problem caf\u00e9) ; \u00e9t\u00e9\n".encode("latin-1"),
        "nul": b"(define (domain d)\x00\x00)",
        "huge": b"(on a b) " * 120_000,  # about 1 MB on one line
        "malformed-pddl": b"(define (problem p) (:domain blocksworld) (:objects a - block",
        "malformed-json": b'{"nodes": [1, 2,',
        "deep-json": b"[" * 100_000 + b"]" * 100_000,
        "json-not-object": b'[1, 2, 3]\n"text"\n42\n',
        "jsonl-mixed": b'\n'.join([b'{"id": 1, "domain": 5, "problem": [], "plan": {}}', b"[" * 50_000,
                                   b'"just a string"', b'{"id": 2}', b'{broken', b'null']) + b"\n",
        "bom-garbage": "\ufeff)))((( not pddl".encode("utf-8"),
        "scene-bad-shape": b'{"nodes": [1, {"id": 2}, {"id": 3, "category": 4, "properties": 5}], "edges": [7, {}]}\n',
        "wrapped-bad-shape": b'{"init_graph": {"nodes": {"room": [1], "asset": "x"}}, "final_graph": []}',
        "episodes-incomplete": b'{"schema": 1}\n{"schema": 1, "id": "x", "split": ["a"], "success": "maybe", '
                               b'"questions": null, "config": 3, "label": 7}\n{"schema": 1, "id"',
        # issue 27: bytes that are not UTF-8 (pgt run --replay raised UnicodeDecodeError), a foreign line in an
        # episodes file (resume: KeyError 'split'), a record whose config lacks the protocol (report: KeyError)
        "not-utf8-bytes": b'\xff\xfe{"atom": "(on a b)"}\n',
        "episodes-foreign": b'{"schema": 1, "id": "x"}\n',
        "episodes-no-protocol": (json.dumps({
            "schema": 1, "id": "simple/simple_0/seed0", "suite": "viplan-bw/simple", "split": "simple",
            "problem": "simple_0", "seed": 0, "label": "x", "config": {"suite": "viplan-bw/simple", "accuracy": 0.9},
            "success": True, "outcome": "success", "questions": 1, "answered": 1, "correct": 1}) + "\n").encode(),
    }
    out = {}
    for name, data in files.items():
        (base / name).write_bytes(data)
        out[name] = base / name
    out["missing"] = base / "no-such-file"
    out["folder"] = base / "folder"
    return out


@pytest.fixture(scope="module")
def bad(tmp_path_factory) -> dict[str, Path]:
    return catalogue(tmp_path_factory.mktemp("bad"))


# A slot is a command line with one FILE placeholder (and OUT for a fresh output folder).
SLOTS: dict[str, list[str]] = {
    "validate domain": ["validate", "FILE", PROBLEM, PLAN],
    "validate problem": ["validate", "blocksworld", "FILE", PLAN],
    "validate plan": ["validate", "blocksworld", PROBLEM, "FILE"],
    "validate-batch": ["validate-batch", "FILE"],
    "plan problem": ["plan", "blocksworld", "FILE", "--planner", "astar"],
    "solve-all problem": ["solve-all", "blocksworld", "FILE", "--planner", "astar"],
    "lint domain": ["lint", "FILE"],
    "lint problem": ["lint", "blocksworld", "FILE"],
    "generate domain": ["generate", "FILE", "--blocks", "3", "--columns", "3", "--count", "1", "--out", "OUT"],
    "questions problem": ["questions", "blocksworld", "FILE"],
    "invariants problem": ["invariants", "blocksworld", "FILE"],
    "score predict actions": ["score", "predict", "blocksworld", PROBLEM, "FILE", PLAN],
    "score predict state": ["score", "predict", "blocksworld", PROBLEM, PLAN, "FILE"],
    "score plan": ["score", "plan", "blocksworld", PROBLEM, "FILE", "--no-optimal"],
    "score plan gold": ["score", "plan", "blocksworld", PROBLEM, PLAN, "--gold", "FILE", "--no-optimal"],
    "score predict-batch": ["score", "predict-batch", "FILE", "--md", "OUT/s.md"],
    "score plan-batch": ["score", "plan-batch", "FILE", "--no-optimal", "--csv", "OUT/s.csv"],
    "score graph": ["score", "graph", "FILE"],
    "score lcs plan": ["score", "lcs", "FILE", PLAN, "--metric", "exact"],
    "score lcs gold": ["score", "lcs", PLAN, "FILE", "--metric", "exact"],
    "render problem": ["render", "blocksworld", "FILE", "--out", "OUT"],
    "render plan": ["render", "blocksworld", PROBLEM, "--plan", "FILE", "--out", "OUT"],
    "import-scene": ["import-scene", "FILE", "--out", "OUT"],
    "import-scene goal": ["import-scene", SCENE, "--goal", "FILE", "--out", "OUT"],
    "import-scene pruned": ["import-scene", "FILE", "--prune", "goal", "--out", "OUT"],
    "run replay": ["run", "--suite", "viplan-bw/simple", "--grounder", "replay", "--replay", "FILE", "--problems", "1",
                   "--workers", "1", "--quiet", "--out", "OUT"],
    "run calibration": ["run", "--suite", "viplan-bw/simple", "--calibration", "FILE", "--problems", "1",
                        "--workers", "1", "--quiet", "--out", "OUT"],
    "run domain": ["run", "--suite", str(BW / "problems"), "--domain", "FILE", "--grounder", "oracle",
                   "--problems", "1", "--workers", "1", "--quiet", "--out", "OUT"],
    "report": ["report", "FILE", "--out", "OUT"],
    "compare calibrations": ["compare", "--suites", "viplan-bw/simple", "--calibrations", "FILE", "--accuracies", "0.9",
                             "--action-failures", "0", "--problems", "1", "--workers", "1", "--quiet", "--out", "OUT"],
}
KINDS = ["missing", "folder", "empty", "binary", "non-utf8", "nul", "huge", "malformed-pddl", "malformed-json",
         "deep-json", "json-not-object", "jsonl-mixed", "bom-garbage", "scene-bad-shape", "wrapped-bad-shape",
         "episodes-incomplete", "not-utf8-bytes", "episodes-foreign", "episodes-no-protocol"]
# Commands whose input is read as text in full: a file that is missing or a folder is bad input (2).
MUST_REFUSE = {"missing", "folder"}


def call(capsys, argv: list[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def check(code: int, err: str, out_dir: Path, argv: list[str]) -> None:
    assert "Traceback" not in err, err
    assert code in (0, 1, 2), (argv, code, err)
    if code == 2:
        lines = err.strip().splitlines()
        assert lines and ERROR_LINE.match(lines[-1]), (argv, err)
        assert not out_dir.exists(), f"refused command left {out_dir} behind: {argv}"


def fill(template: list[str], file: Path | str, out_dir: Path) -> list[str]:
    return [str(file) if a == "FILE" else a.replace("OUT", str(out_dir)) for a in template]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("slot", list(SLOTS))
def test_bad_file_in_every_slot(slot: str, kind: str, bad, tmp_path: Path, capsys) -> None:
    out_dir = tmp_path / "out"
    argv = fill(SLOTS[slot], bad[kind], out_dir)
    code, _, err = call(capsys, argv)
    check(code, err, out_dir, argv)
    if kind in MUST_REFUSE:
        assert code == 2, (argv, err)


# ------------------------------------------------------------------ numbers, URLs, names

STUDY = ["--suite", "viplan-bw/simple", "--workers", "1", "--quiet"]
BAD_FLAGS: list[list[str]] = [
    ["run", *STUDY, "--accuracy", "0.9", "--problems", "-1"],
    ["run", *STUDY, "--accuracy", "0.9", "--problems", "0"],
    ["run", *STUDY, "--accuracy", "0.9", "--workers", "0"],
    ["run", *STUDY, "--accuracy", "0.9", "--max-steps", "0"],
    ["run", *STUDY, "--accuracy", "0.9", "--seeds", "0"],
    ["run", *STUDY, "--accuracy", "1.5"],
    ["run", *STUDY, "--accuracy", "nan"],
    ["run", *STUDY, "--accuracy", "-0.1"],
    ["run", *STUDY, "--fp", "inf"],
    ["run", *STUDY, "--accuracy", "0.9", "--action-failure", "2"],
    ["run", *STUDY, "--accuracy", "0.9", "--persistence", "x"],
    ["run", *STUDY, "--grounder", "vlm", "--model", "m", "--base-url", "not a url"],
    ["run", *STUDY, "--grounder", "vlm", "--model", "m", "--base-url", "ftp://host/v1"],
    ["run", *STUDY, "--grounder", "vlm", "--model", "m", "--base-url", "http://host:port/v1"],
    ["run", *STUDY, "--grounder", "vlm", "--model", ""],
    ["run", *STUDY, "--accuracy", "0.9", "--planner", "nosuch"],
    ["run", *STUDY, "--accuracy", "0.9", "--suite", ""],
    ["run", *STUDY, "--grounder", "noisy"],
    ["run", *STUDY, "--suite", "viplan-xx", "--accuracy", "0.9"],
    ["demo", "--accuracies", ""],
    ["demo", "--accuracies", "0.9,,1"],
    ["demo", "--accuracies", "0.9,nan"],
    ["demo", "--problems", "-1"],
    ["demo", "--workers", "0"],
    ["compare", "--accuracies", ""],
    ["compare", "--action-failures", "1.1"],
    ["compare", "--suites", ""],
    ["compare", "--suites", "viplan-xx"],
    ["compare", "--calibrations", ""],
    ["compare", "--calibrations", "viplan-bw-gpt4"],
    ["compare", "--seeds", "0"],
    ["compare", "--problems", "-3"],
    ["compare", "--persistence", "-1"],
    ["plan", "blocksworld", PROBLEM, "--timeout", "-1"],
    ["plan", "blocksworld", PROBLEM, "--timeout", "nan"],
    ["plan", "blocksworld", PROBLEM, "--timeout", "0"],
    ["plan", "blocksworld", PROBLEM, "--planner", "nosuch"],
    ["solve-all", "blocksworld", PROBLEM, "--timeout", "inf"],
    ["score", "plan", "blocksworld", PROBLEM, PLAN, "--timeout", "-5"],
    ["score", "plan", "blocksworld", PROBLEM, PLAN, "--planner", "nosuch"],
    ["score", "plan-batch", str(ROOT / "tests" / "scoring" / "data" / "llm_plans.jsonl"), "--timeout", "nan"],
    ["generate", "blocksworld", "--count", "0"],
    ["generate", "blocksworld", "--count", "-1"],
    ["generate", "blocksworld", "--blocks", "0", "--columns", "3"],
    ["generate", "blocksworld", "--blocks", "3", "--columns", "3", "--min-length", "-1"],
    ["generate", "blocksworld", "--blocks", "3", "--columns", "3", "--min-length", "5", "--max-length", "2"],
    ["generate", "blocksworld", "--blocks", "3", "--columns", "3", "--seed", "x"],
    ["generate", "blocksworld", "--blocks", "3", "--columns", "3", "--prefix", ""],
    ["generate", "gripper", "--count", "1"],
    ["generate", "blocksworld", "--blocks", "3", "--columns", "1000"],  # used to eat GBs for minutes
    ["generate", "blocksworld", "--blocks", "3", "--columns", "3", "--count", "1000000000000"],  # used to spin forever
    ["generate", "blocksworld", "--blocks", "2", "--columns", "2", "--count", "40"],  # more than the 36 pairs
    ["run", *STUDY, "--accuracy", "0.9", "--seeds", "99999999999"],  # used to fill memory building specs
    ["compare", "--seeds", "10001"],
    ["generate", "household", "--task", "nosuch"],
    ["render", "blocksworld", PROBLEM, "--failure-prob", "1.01"],
    ["render", "blocksworld", PROBLEM, "--failure-prob", "nan"],
    ["render", "blocksworld", PROBLEM, "--seed", "1.5"],
    ["questions", "blocksworld", PROBLEM, "--predicate", ""],
    ["questions", "blocksworld", PROBLEM, "--predicate", "nosuch"],
    ["import-scene", SCENE, "--name", ""],
    ["validate", "nosuchdomain", PROBLEM, PLAN],
    ["validate", "blocksworld", "simple_problem_0", PLAN],
    ["score", "nosuch"],
    ["nosuch-command"],
    [],
]


@pytest.mark.parametrize("argv", BAD_FLAGS, ids=lambda a: " ".join(a)[:80] or "no-args")
def test_bad_flags_are_refused_before_any_work(argv: list[str], tmp_path: Path, capsys) -> None:
    out_dir = tmp_path / "out"
    full = [*argv, "--out", str(out_dir)] if argv and argv[0] in ("run", "demo", "compare", "generate", "render",
                                                                  "import-scene") else argv
    code, out, err = call(capsys, full)
    assert code == 2, (full, code, out, err)
    if full:  # bare ``pgt`` prints the help
        assert ERROR_LINE.match(err.strip()), err  # exactly one line
    assert not out_dir.exists()


# ------------------------------------------------------------------ outputs

def _out_cases(tmp: Path) -> dict[str, str]:
    (tmp / "a-file").write_text("x")
    (tmp / "a-folder").mkdir()
    return {"file-for-folder": str(tmp / "a-file"), "under-a-file": str(tmp / "a-file" / "sub"),
            "unwritable": "/proc/pgt-cannot-write-here", "empty": ""}


OUT_COMMANDS: dict[str, list[str]] = {
    "generate": ["generate", "blocksworld", "--blocks", "3", "--columns", "3", "--count", "1", "--out"],
    "render": ["render", "blocksworld", PROBLEM, "--out"],
    "import-scene": ["import-scene", SCENE, "--out"],
    "run": ["run", *STUDY, "--accuracy", "0.9", "--problems", "1", "--out"],
    "report": ["report", str(ROOT / "tests"), "--out"],
    "demo": ["demo", "--problems", "1", "--out"],
    "compare": ["compare", "--problems", "1", "--out"],
}
FILE_COMMANDS: dict[str, list[str]] = {
    "score --md": ["score", "plan-batch", str(ROOT / "tests" / "scoring" / "data" / "llm_plans.jsonl"), "--no-optimal",
                   "--md"],
    "score --csv": ["score", "graph", str(ROOT / "tests" / "scoring" / "data" / "graph_tasks.jsonl"), "--csv"],
    "plan --cache": ["plan", "blocksworld", PROBLEM, "--cache"],
}


@pytest.mark.parametrize("case", ["file-for-folder", "under-a-file", "unwritable", "empty"])
@pytest.mark.parametrize("command", list(OUT_COMMANDS))
def test_unwritable_out_folder_is_refused(command: str, case: str, tmp_path: Path, capsys) -> None:
    target = _out_cases(tmp_path)[case]
    before = sorted(p.name for p in tmp_path.rglob("*"))
    code, _, err = call(capsys, [*OUT_COMMANDS[command], target])
    assert code == 2 and ERROR_LINE.match(err.strip()), err
    assert sorted(p.name for p in tmp_path.rglob("*")) == before


@pytest.mark.parametrize("case", ["folder-for-file", "under-a-file", "unwritable", "empty"])
@pytest.mark.parametrize("command", list(FILE_COMMANDS))
def test_unwritable_out_file_is_refused(command: str, case: str, tmp_path: Path, capsys) -> None:
    cases = _out_cases(tmp_path)
    target = {"folder-for-file": str(tmp_path / "a-folder"), "under-a-file": cases["under-a-file"],
              "unwritable": "/proc/pgt-cannot-write-here.md", "empty": ""}[case]
    before = sorted(p.name for p in tmp_path.rglob("*"))
    code, out, err = call(capsys, [*FILE_COMMANDS[command], target])
    assert code == 2 and ERROR_LINE.match(err.strip()), err
    assert out == "" and sorted(p.name for p in tmp_path.rglob("*")) == before


# ------------------------------------------------------------------ accepted oddities

def test_bom_in_pddl_is_accepted(tmp_path: Path, capsys) -> None:
    domain, problem, plan = tmp_path / "d.pddl", tmp_path / "p.pddl", tmp_path / "plan.txt"
    domain.write_text("\ufeff" + VALID_TEXT["domain"], encoding="utf-8")
    problem.write_text("\ufeff" + VALID_TEXT["problem"], encoding="utf-8")
    plan.write_text("\ufeff" + VALID_TEXT["plan"], encoding="utf-8")
    code, out, err = call(capsys, ["validate", str(domain), str(problem), str(plan)])
    assert code == 0 and out.rstrip().splitlines()[-1].startswith("VALID"), err


def test_bom_in_json_inputs_is_accepted(tmp_path: Path, capsys) -> None:
    scene = tmp_path / "scene.json"
    scene.write_text("\ufeff" + VALID_TEXT["scene"], encoding="utf-8")
    code, _, err = call(capsys, ["import-scene", str(scene), "--out", str(tmp_path / "imp")])
    assert code == 0, err
    batch = tmp_path / "b.jsonl"
    batch.write_text("\ufeff" + json.dumps({"domain": "blocksworld", "problem": PROBLEM, "plan": VALID_TEXT["plan"]})
                     + "\n", encoding="utf-8")
    code, out, err = call(capsys, ["validate-batch", str(batch)])
    assert code == 0 and json.loads(out.splitlines()[0])["valid"], out


def test_interrupt_exits_130_with_one_line(monkeypatch, capsys) -> None:
    import toolkit.commands.lint as lint_command

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(lint_command, "run", interrupted)
    code, out, err = call(capsys, ["lint", "blocksworld"])
    assert code == 130 and err == "pgt lint: interrupted\n" and out == ""


def test_generate_without_out_is_refused_before_generating(capsys) -> None:
    code, out, err = call(capsys, ["generate", "blocksworld", "--blocks", "3", "--columns", "3"])
    assert (code, out) == (2, "") and err == "pgt generate: error: give --out DIR\n"


@pytest.mark.parametrize("command", ["plan", "solve-all"])
def test_a_plan_cache_that_is_not_sqlite_is_bad_input(command: str, bad, tmp_path: Path, capsys) -> None:
    for kind in ("binary", "huge"):
        code, out, err = call(capsys, [command, "blocksworld", PROBLEM, "--planner", "astar", "--cache", str(bad[kind])])
        assert code == 2 and err.startswith(f"pgt {command}: error: {bad[kind]}: cannot use as a plan cache"), err
    empty = tmp_path / "empty.sqlite"  # SQLite takes an empty file as a new database
    empty.write_bytes(b"")
    assert call(capsys, [command, "blocksworld", PROBLEM, "--planner", "astar", "--cache", str(empty)])[0] == 0


def _subcommand_paths() -> list[list[str]]:
    """Every subcommand, and every kind of a subcommand that has kinds (``score graph``)."""
    import argparse

    from toolkit.cli import build_parser

    paths = []

    def walk(parser: argparse.ArgumentParser, prefix: list[str]) -> None:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        for action in subs:
            for name, sub_parser in action.choices.items():
                paths.append([*prefix, name])
                walk(sub_parser, [*prefix, name])

    walk(build_parser(), [])
    return paths


@pytest.mark.parametrize("path", _subcommand_paths(), ids=" ".join)
def test_stray_arguments_are_reported_by_the_subcommand(path: list[str], capsys) -> None:
    code, _, err = call(capsys, [*path, "--no-such-flag"])
    assert code == 2 and "Traceback" not in err
    line = err.strip().splitlines()[-1]
    # argparse may first complain about a missing required argument; either way it is the subcommand's own line
    assert line.startswith(f"pgt {' '.join(path)}: error: "), line
