"""``pgt validate-batch``: domains and problems parsed once by content; ``--workers`` keeps results and order."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from toolkit.cli import main
from toolkit.commands.validate_batch import TaskCache, validate_records
from toolkit.domains import DOMAINS_ROOT

BW = DOMAINS_ROOT / "blocksworld"


def _lines(folder: Path, n: int) -> list[str]:
    plans = sorted((BW / "golden" / "valid").glob("*.plan"))
    out = []
    for i in range(n):
        plan = plans[i % len(plans)]
        text = plan.read_text() if i % 3 else "(moveBlock nope c1)"
        out.append(json.dumps({"id": i, "domain": "blocksworld", "problem": str(BW / "problems" / f"{plan.stem}.pddl"),
                               "plan": text}))
    out.insert(5, "not json")
    return out


def test_the_same_text_under_two_paths_is_parsed_once_and_an_edited_file_again(tmp_path: Path) -> None:
    for name in ("a.pddl", "b.pddl"):
        shutil.copy(BW / "problems" / "simple_problem_0.pddl", tmp_path / name)
    cache = TaskCache(tmp_path)
    first = cache.get("blocksworld", "a.pddl")
    assert cache.get("blocksworld", "b.pddl") is first and len(cache.domains) == 1
    edited = (tmp_path / "a.pddl").read_text().replace("(:goal", "; edited\n  (:goal")
    (tmp_path / "a.pddl").write_text(edited)
    os.utime(tmp_path / "a.pddl", ns=(1, 1))  # a different modification time, whatever the clock's resolution
    again = cache.get("blocksworld", "a.pddl")
    assert again is not first and again.problem.source == edited and len(cache.tasks) == 2


def test_workers_give_the_same_records_in_the_same_order(tmp_path: Path) -> None:
    lines = _lines(tmp_path, 70)
    one = list(validate_records(lines, tmp_path))
    two = list(validate_records(lines, tmp_path, workers=2, chunk=8))
    assert one == two and len(one) == 71
    assert [r["line"] for r in one] == list(range(1, 72))
    assert {r["reason"] for r in one} == {None, "unknown_object", "bad_input"}


@pytest.mark.parametrize("bad", ["0", "-1", "two"])
def test_bad_worker_counts_are_refused(bad: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    batch = tmp_path / "b.jsonl"
    batch.write_text("")
    assert main(["validate-batch", str(batch), "--workers", bad]) == 2
    err = capsys.readouterr().err
    assert err.startswith("pgt validate-batch: error: argument --workers: ") and err.count("\n") == 1


def test_a_worker_that_dies_is_a_located_error_after_the_lines_before_it(tmp_path: Path, monkeypatch,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    # multiprocessing.Pool waited for a killed worker's results forever
    import toolkit.commands.validate_batch as batch_module

    real = batch_module._validate_line

    def dying(cache, lineno, line, keep_going, *rest):
        if lineno == 40:
            os._exit(9)  # as the out-of-memory killer would
        return real(cache, lineno, line, keep_going, *rest)

    monkeypatch.setattr(batch_module, "_validate_line", dying)  # forked workers inherit it
    batch = tmp_path / "b.jsonl"
    batch.write_text("\n".join(_lines(tmp_path, 70)) + "\n")
    assert main(["validate-batch", str(batch), "--workers", "2"]) == 2
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and "worker process died" in err, err
    first = int(err.split("from line ")[1].split()[0])  # the first line not written (its chunk's, or earlier)
    assert first <= 40 and [json.loads(line)["line"] for line in out.splitlines()] == list(range(1, first))
