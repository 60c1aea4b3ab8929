"""Ctrl-C in the middle of a study: exit 130 with one line, from the command and its workers.

A terminal's Ctrl-C signals the whole process group (the command and its worker
processes), so the test starts ``pgt`` in its own session and signals that group once
the first episode is on disk. Real processes, because the point is what a user sees.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

PGT = [sys.executable, "-c", "import sys; from toolkit.cli import main; sys.exit(main())"]


def _interrupt(argv: list[str], out: Path) -> tuple[int, str]:
    proc = subprocess.Popen([*PGT, *argv, "--out", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if any(p.stat().st_size for p in out.rglob("episodes.jsonl")):
                break
            time.sleep(0.05)
        assert proc.poll() is None, f"finished before it could be interrupted: {proc.stderr.read()}"
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        return proc.returncode, err
    finally:  # never leave a study running behind a failed test
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.mark.parametrize("argv", [
    ["run", "--suite", "viplan-bw", "--accuracy", "0.9", "--seeds", "50", "--workers", "1", "--quiet"],
], ids=["run-1-worker"])
def test_ctrl_c_exits_130_with_one_line(argv: list[str], tmp_path: Path) -> None:
    code, err = _interrupt(argv, tmp_path / "out")
    assert code == 130, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines[-1] == f"pgt {argv[0]}: interrupted" and "Traceback" not in err, err
    assert len(lines) == (2 if argv[0] == "compare" else 1), err  # compare first says what it will run


def test_ctrl_c_while_the_command_line_imports_exits_130(monkeypatch, capsys) -> None:
    """The console script's entry catches an interrupt that lands while :mod:`toolkit.cli` loads."""
    import importlib.abc

    from toolkit import entry

    class Interrupting(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "toolkit.cli":
                raise KeyboardInterrupt
            return None

    monkeypatch.delitem(sys.modules, "toolkit.cli", raising=False)
    monkeypatch.setattr(sys, "meta_path", [Interrupting(), *sys.meta_path])
    assert entry.main() == 130
    out, err = capsys.readouterr()
    assert (out, err) == ("", "pgt: interrupted\n")


def test_the_console_script_runs_through_the_guarded_entry() -> None:
    import tomllib

    scripts = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["pgt"] == "toolkit.entry:main"


def _processes_under(folder: Path) -> list[int]:
    """Processes whose working folder lies in ``folder`` (FD runs in a temporary folder there)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and os.readlink(proc / "cwd").startswith(str(folder)):
                found.append(int(proc.name))
        except OSError:
            continue
    return found


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to find FD's processes")
def test_ctrl_c_during_fast_downward_leaves_no_search_behind(tmp_path: Path) -> None:
    """FD runs in its own session (so a timeout can kill its whole group); Ctrl-C must kill it too."""
    pytest.importorskip("up_fast_downward")
    # 7 blocks in 4 columns: blind search is still going after a few seconds
    domain = Path(__file__).resolve().parents[2] / "pddl_domains" / "blocksworld" / "domain.pddl"
    problem = tmp_path / "p.pddl"
    problem.write_text(
        "(define (problem hard) (:domain blocksworld) (:objects a b c d e f g - block c1 c2 c3 c4 - column)\n"
        " (:init (inColumn a c1) (on b a) (inColumn b c1) (on c b) (inColumn c c1) (on d c) (inColumn d c1)\n"
        "  (on e d) (inColumn e c1) (on f e) (inColumn f c1) (on g f) (inColumn g c1) (clear g)\n"
        "  (rightOf c2 c1) (rightOf c3 c2) (rightOf c4 c3) (leftOf c1 c2) (leftOf c2 c3) (leftOf c3 c4))\n"
        " (:goal (and (inColumn a c4) (on b a) (on c b) (on d c) (on e d) (on f e) (on g f))))\n")
    temp = tmp_path / "tmp"
    temp.mkdir()
    proc = subprocess.Popen([*PGT, "plan", str(domain), str(problem), "--planner", "fd-blind", "--timeout", "60"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env={**os.environ, "TMPDIR": str(temp)},
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not _processes_under(temp) and proc.poll() is None:
            time.sleep(0.05)
        time.sleep(1.0)
        assert proc.poll() is None and _processes_under(temp), "FD finished before it could be interrupted"
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 130 and err == "pgt plan: interrupted\n", err
        time.sleep(0.2)
        assert _processes_under(temp) == [], "Fast Downward still running after Ctrl-C"
    finally:
        for pid in _processes_under(temp):
            os.kill(pid, signal.SIGKILL)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
