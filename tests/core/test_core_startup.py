"""Start-up: a subcommand imports only its own module; the Lark grammar is cached on disk.

Timing lives in ``benchmarks/bench_startup.py``; here are the properties behind it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from toolkit.cli import COMMANDS
from toolkit.domains import DOMAINS_ROOT

BW = DOMAINS_ROOT / "blocksworld"
ARGS = [str(BW / "domain.pddl"), str(BW / "problems" / "simple_problem_1.pddl"),
        str(BW / "golden" / "valid" / "simple_problem_1.plan")]
PROBE = """
import sys
from toolkit.cli import main
code = main(sys.argv[1:])
modules = sorted(sys.modules)
import json
print(json.dumps({"code": code, "modules": modules}))
"""


def _run(args: list[str], cache: Path) -> tuple[int, list[str], str]:
    env = {**os.environ, "PGT_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, env=env, timeout=120)
    last = json.loads(done.stdout.strip().splitlines()[-1]) if done.stdout.strip() else {"code": None, "modules": []}
    return last["code"], last["modules"], done.stderr


def test_validate_imports_no_other_command_module(tmp_path: Path) -> None:
    code, modules, err = _run(["validate", *ARGS], tmp_path)
    assert code == 0, err
    others = set(COMMANDS.values()) - {COMMANDS["validate"]}
    assert not others & set(modules)
    assert not {m for m in modules if m.split(".")[0] in ("networkx", "scene_graphs", "grounders", "unified_planning")}
    # Plain files are read without Lark, so it is not even imported.
    assert not {m for m in modules if m.split(".")[0] == "lark"}


def test_validate_of_a_planners_plan_imports_only_what_validating_needs(tmp_path: Path) -> None:
    code, modules, err = _run(["validate", *ARGS], tmp_path)
    assert code == 0, err
    # The full parser and its error messages, the English reader and its question templates, BDDL:
    # none is needed for plain PDDL files and a plan of "(action args)" lines.
    unneeded = {"toolkit.reading.full_parser", "toolkit.reading.syntax_errors", "toolkit.reading.grammar",
                "toolkit.plan_classify", "toolkit.action_language", "toolkit.questions", "toolkit.question_file",
                "toolkit.bddl", "tomllib"}
    assert not unneeded & set(modules)


def test_validate_of_plain_files_imports_no_heavy_library(tmp_path: Path) -> None:
    code, modules, err = _run(["validate", *ARGS], tmp_path)
    assert code == 0, err
    # The pddl package (and inspect with it), dataclasses and its inspect, shutil (argparse's help width),
    # json (JSON plans and --json only), difflib (did-you-mean only): each cost start-up (issue 33).
    heavy = {"pddl", "dataclasses", "inspect", "shutil", "json", "difflib"}
    assert not heavy & {m.split(".")[0] for m in modules}


def test_help_still_lists_every_command(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "toolkit.cli", "--help"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0
    for name in COMMANDS:
        assert f"    {name}" in done.stdout


def _not_plain_args(tmp_path: Path) -> list[str]:
    """ARGS with a problem the plain reader hands to the full (Lark) parser: it declares requirements."""
    problem = tmp_path / "problem.pddl"
    text = Path(ARGS[1]).read_text()
    problem.write_text(text.replace("(:objects", "(:requirements :strips) (:objects", 1))
    return [ARGS[0], str(problem), ARGS[2]]


def test_plain_files_build_no_grammar(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    assert _run(["validate", *ARGS], cache)[0] == 0
    # Plain domain and problem files are read without Lark (toolkit.plain_domain, toolkit.plain_problem).
    assert not cache.exists() or not list(cache.iterdir())


def test_the_grammar_is_cached_on_disk_and_reused(tmp_path: Path) -> None:
    args, cache = _not_plain_args(tmp_path), tmp_path / "cache"
    assert _run(["validate", *args], cache)[0] == 0
    files = sorted(p.name for p in cache.iterdir())
    assert [f.split("-")[2] for f in files] == ["problem"]  # only the grammar this load needed
    stamps = {p: p.stat().st_mtime_ns for p in cache.iterdir()}
    assert _run(["validate", *args], cache)[0] == 0
    assert {p: p.stat().st_mtime_ns for p in cache.iterdir()} == stamps  # read, not rewritten


def test_a_corrupt_or_unusable_cache_is_ignored(tmp_path: Path) -> None:
    args, cache = _not_plain_args(tmp_path), tmp_path / "cache"
    assert _run(["validate", *args], cache)[0] == 0
    for p in cache.iterdir():
        p.write_bytes(b"not a pickle")
    code, _, err = _run(["validate", *args], cache)
    assert code == 0 and "Traceback" not in err
    blocker = tmp_path / "file"
    blocker.write_text("")
    code, _, err = _run(["validate", *args], blocker / "cache")  # cannot be created: no cache, still works
    assert code == 0 and "Traceback" not in err
