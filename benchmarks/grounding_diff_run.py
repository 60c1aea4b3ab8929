"""One problem of the differential benchmark, each side in its own process under its own memory cap.

Why: with pgt's and Fast Downward's groundings in one process, a problem whose two
groundings fit the machine one at a time ran out of the address space together
(labyrinth-opt23/sat23-adl p20: MemoryError), and a problem killed at the limit
said only which side had finished, not what each cost. Here each problem runs as
three fresh processes, one after the other, each under ``--memory-gb`` (address
space, ``RLIMIT_AS``; a lower ``ulimit -v`` the caller set is kept) and each under
the time limit of its own:

1. ``pgt``: pgt's grounding (:func:`benchmarks.grounding_diff.pgt_side`, with the
   caller's ground-action budget, ``max_actions``), pickled to a temporary file;
2. ``fd``: FD's translator up to its grounding
   (:func:`benchmarks.grounding_diff.fd_side`; a copy repaired by
   :mod:`benchmarks.fd_reading` where FD's parser refuses what pgt reads), pickled;
   it runs even when pgt's side failed, so the record says how FD alone fared;
3. ``classify``: both pickles loaded, every difference classified
   (:func:`benchmarks.grounding_diff.classify`).

The record keeps each side's seconds and peak memory (``pgt`` and ``fd``: the
process's own max RSS, or its high-water mark when it was killed) beside the
comparison; a problem not compared says which side did not finish
(``reached``) and that side's peak (``peak_mb``), the fields
:mod:`benchmarks.grounding_diff_report` reads.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import pickle
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_MEMORY_GB = 8.0
_ROOT = Path(__file__).resolve().parent.parent


def cap_bytes(memory_gb: float) -> int:
    """The address-space cap a step runs under: ``memory_gb``, or a lower limit this process already has."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    return min([int(memory_gb * (1 << 30)), *(x for x in (soft, hard) if x != resource.RLIM_INFINITY)])


def oom_error(cap: int) -> str:
    return f"out of memory ({cap / (1 << 30):.3g} GB address space)"


def _own_peak_mb() -> int:
    """This process's peak resident memory since it started this program: VmHWM, which ``exec`` resets (the
    max RSS of ``getrusage`` survives ``exec`` and so counts the parent's memory at the fork)."""
    return _hwm_mb(os.getpid()) or round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def pgt_measure(domain: str, problem: str, max_actions: int | None = None) -> tuple[object, dict]:
    """pgt's side and its figures (actions, atoms, seconds)."""
    from benchmarks.grounding_diff import pgt_side

    t0 = time.perf_counter()
    side = pgt_side(domain, problem, max_actions=max_actions)
    return side, {"actions": len(side.actions), "atoms": len(side.atoms), "s": round(time.perf_counter() - t0, 2)}


def fd_measure(domain: str, problem: str) -> tuple[object, dict]:
    """FD's side and its figures; where FD's parser refuses the files, FD's grounding of a repaired copy, with
    the refusal and the repair (``fd_refuses``, ``fd_read_copy``). A refusal no repair answers raises
    ``SystemExit`` with FD's message."""
    from fast_downward.translate.pddl_parser import ParseError

    from benchmarks.fd_reading import fd_refusal, repaired_for_fd
    from benchmarks.grounding_diff import fd_side

    t0 = time.perf_counter()
    read: dict = {}
    try:
        side = fd_side(domain, problem)
    except ParseError:  # FD refuses what pgt reads: compare FD's grounding of a repaired copy
        refusal = (fd_refusal(Path(domain), Path(problem)) or "").replace("\n", " ")
        with tempfile.TemporaryDirectory(prefix="fd-reading-") as tmp:
            repaired = repaired_for_fd(Path(domain), Path(problem), Path(tmp))
            if repaired is None:
                raise SystemExit(f"FD refuses it: {refusal}") from None
            read = {"fd_refuses": refusal, "fd_read_copy": repaired[2]}
            side = fd_side(str(repaired[0]), str(repaired[1]))
    return side, {"actions": len(side.actions), "atoms": len(side.atoms), "s": round(time.perf_counter() - t0, 2),
                  **read}


KEPT_PER_CLASS = 500


def classified(pgt: object, fd: object, kept: int | None = KEPT_PER_CLASS) -> dict:
    """Every difference of the two sides counted by class, and up to ``kept`` of each (kind, side, class) with
    its item and reason (``diffs_cut`` says how many more there are). Why: caldera-sat18 p12 has some 700,000
    effect-free actions only pgt grounds, one class and one reason; a record of each would make one line of
    ``--out`` some 150 MB, and the counts say the same."""
    from collections import Counter

    from benchmarks.grounding_diff import classify, counts

    diffs = classify(pgt, fd)  # type: ignore[arg-type]
    seen: Counter = Counter()
    shown = []
    for d in diffs:
        seen[d.kind, d.only, d.cls] += 1
        if kept is None or seen[d.kind, d.only, d.cls] <= kept:
            shown.append(dataclasses.astuple(d))
    rec = {"counts": counts(diffs), "diffs": shown}
    if len(shown) < len(diffs):
        rec["diffs_cut"] = len(diffs) - len(shown)
    return rec


def _step(argv: list[str]) -> dict:
    """One step in this process (the child's side of :func:`run_step`)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("step", choices=("pgt", "fd", "classify"))
    ap.add_argument("files", nargs=3)
    ap.add_argument("--memory-gb", type=float, default=DEFAULT_MEMORY_GB)
    ap.add_argument("--max-actions", type=int)
    args = ap.parse_args(argv)
    cap = cap_bytes(args.memory_gb)
    resource.setrlimit(resource.RLIMIT_AS, (cap, resource.getrlimit(resource.RLIMIT_AS)[1]))
    from toolkit.errors import PgtError

    a, b, out = args.files
    try:
        if args.step == "classify":
            with open(a, "rb") as f:
                pgt = pickle.load(f)
            with open(b, "rb") as f:
                fd = pickle.load(f)
            return classified(pgt, fd)
        side, rec = pgt_measure(a, b, args.max_actions) if args.step == "pgt" else fd_measure(a, b)
        with open(out, "wb") as f:
            pickle.dump(side, f, protocol=pickle.HIGHEST_PROTOCOL)
        return rec
    except PgtError as exc:
        from benchmarks.fd_reading import fd_refusal

        rec = {"error": "pgt: " + str(exc).splitlines()[0][:150]}
        fd_says = fd_refusal(Path(a), Path(b))
        if fd_says is not None:  # FD's parser refuses the files too: invalid input, nothing to compare
            rec["fd_refuses"] = fd_says.replace("\n", " ")[:150]
        return rec
    except MemoryError:
        return {"error": oom_error(cap)}


def _hwm_mb(pid: int) -> int | None:
    """Peak resident memory (VmHWM) of a live process, in MB; None where it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024)
    except OSError:
        return None
    return None


def run_step(step: str, files: list[str], timeout: float, memory_gb: float = DEFAULT_MEMORY_GB,
             max_actions: int | None = None) -> dict:
    """One step in a fresh process of this checkout (its ``toolkit`` first on the path), killed at ``timeout``
    seconds. The child's figures, with ``peak_mb``; killed or crashed: ``error`` and the peak seen."""
    import signal

    cmd = [sys.executable, __file__, step, *files, "--memory-gb", str(memory_gb)]
    if max_actions is not None:
        cmd += ["--max-actions", str(max_actions)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(_ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, text=True, env=env, start_new_session=True)
        deadline = time.perf_counter() + timeout
        peak = 0
        while True:  # poll, so the peak of a process that is killed (or crashes) is known too
            try:
                proc.wait(timeout=0.2)
                break
            except subprocess.TimeoutExpired:
                peak = max(peak, _hwm_mb(proc.pid) or 0)
                if time.perf_counter() > deadline:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
                    return {"error": f"over {timeout:g}s", "peak_mb": peak}
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    lines = stdout.strip().splitlines()
    try:
        rec = json.loads(lines[-1])
    except (IndexError, ValueError):
        rec = crash_record(stdout, stderr, proc.returncode, memory_gb)
    rec.setdefault("peak_mb", peak)
    return rec


# What a step that died at its address-space cap leaves on stderr: Python's MemoryError, the OS's refusal, or
# CPython's SystemError from a C function whose allocation failed without setting MemoryError (seen once in
# about 40 runs of tests/benchmarks/test_grounding_diff_run.py's capped step, at its 250 MB peak).
_OUT_OF_MEMORY = ("MemoryError", "Cannot allocate memory", "SystemError: error return without exception set")


def crash_record(stdout: str, stderr: str, returncode: int, memory_gb: float) -> dict:
    """The record of a step that printed none: out of memory where its output says so, else its last line."""
    if any(mark in stderr for mark in _OUT_OF_MEMORY):
        return {"error": oom_error(cap_bytes(memory_gb))}
    tail = (stderr or stdout).strip().splitlines()
    return {"error": tail[-1][:120] if tail else f"exit {returncode}"}


@dataclasses.dataclass(frozen=True)
class RunOptions:
    """How the benchmark runs each problem: each side's address space, pgt's ground-action budget, how many
    problems at once, and which problems to run again whatever ``--out`` keeps of them."""

    memory_gb: float = DEFAULT_MEMORY_GB
    max_actions: int | None = None
    workers: int = 1
    rerun: frozenset[str] = frozenset()
    sides_at_once: bool = False


def kept_records(out: Path | None, timeout: float, opts: RunOptions, no_run: bool = False) -> dict[str, dict]:
    """What ``out`` holds that this run keeps, by problem (a later line of one problem replaces an earlier one).

    Run again (left out here): a problem over a shorter limit than ``timeout``; one out of a smaller address space
    than this run's; a refusal or a failure (quick; the code may read the input now); one named in ``rerun``.
    With ``no_run`` everything is kept (only the table is printed)."""
    done: dict[str, dict] = {}
    if out is None or not out.exists():
        return done
    cap = cap_bytes(opts.memory_gb) / (1 << 30)
    for line in out.read_text().splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue  # a line cut by a killed run
        err = rec.get("error", "")
        over = re.fullmatch(r"over ([0-9.]+)s", err)
        oom = re.match(r"out of memory \(([0-9.]+) GB", err)
        failed = bool(err) and not over and "peak_mb" not in rec  # out of memory (with its peak) is kept
        again = ((over and float(over.group(1)) < timeout) or (oom and float(oom.group(1)) < cap - 0.05) or failed
                 or rec.get("case") in opts.rerun)
        if again and not no_run:
            done.pop(rec["case"], None)
        else:
            done[rec["case"]] = rec
    return done


def append_record(out: Path, rec: dict) -> None:
    """One JSON line at the end of ``out``: one write of the whole line under an exclusive lock, so workers (and
    another run on the same file) never interleave lines."""
    import fcntl

    line = (json.dumps(rec) + "\n").encode()
    fd = os.open(out, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, line)
    finally:
        os.close(fd)  # closing releases the lock


def _done(side: str, rec: dict) -> str:
    return f"{side} done ({rec['actions']} actions) after {rec['s']} s {rec['peak_mb']} MB"


def compare_problem(domain: Path, problem: Path, timeout: float, memory_gb: float = DEFAULT_MEMORY_GB,
                    max_actions: int | None = None, sides_at_once: bool = False) -> dict:
    """Both groundings of one problem, each in its own process (see the module's docstring): the record.

    ``timeout`` is per step (pgt's grounding, FD's, the classification), wall seconds. With ``sides_at_once``
    pgt's and FD's processes run at the same time (a machine with the cores and twice the memory: the
    problem then takes the slower side's time, not both)."""
    with tempfile.TemporaryDirectory(prefix="grounding-diff-") as tmp:
        pgt_file, fd_file = f"{tmp}/pgt.pickle", f"{tmp}/fd.pickle"
        fd_run = [str(domain), str(problem), fd_file]
        if sides_at_once:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(1) as other:
                fd_job = other.submit(run_step, "fd", fd_run, timeout, memory_gb)
                pgt = run_step("pgt", [str(domain), str(problem), pgt_file], timeout, memory_gb, max_actions)
                fd = fd_job.result()
        else:
            pgt = run_step("pgt", [str(domain), str(problem), pgt_file], timeout, memory_gb, max_actions)
        if "fd_refuses" in pgt:  # both parsers refuse the input: nothing to run on FD's side
            return {"error": pgt["error"], "fd_refuses": pgt["fd_refuses"], "pgt": pgt}
        if not sides_at_once:
            fd = run_step("fd", fd_run, timeout, memory_gb)
        sides = {"pgt": pgt, "fd": fd}
        if "error" in pgt:  # FD ran alone: the record says how it fared, beside pgt's failure
            if pgt["error"].startswith(("over ", "out of memory")):
                return {"error": pgt["error"], "reached": "pgt not done", "peak_mb": pgt["peak_mb"], **sides}
            return {"error": pgt["error"], **sides}
        if "error" in fd:
            if fd["error"].startswith(("over ", "out of memory")):
                return {"error": fd["error"], "reached": _done("pgt", pgt), "peak_mb": fd["peak_mb"], **sides}
            return {"error": fd["error"] if fd["error"].startswith("FD") else "FD: " + fd["error"], **sides}
        diff = run_step("classify", [pgt_file, fd_file, "-"], timeout, memory_gb)
    read = {k: fd.pop(k) for k in ("fd_refuses", "fd_read_copy") if k in fd}
    if "error" in diff:
        return {"error": diff["error"], "reached": f"{_done('pgt', pgt)}, {_done('FD', fd)}; classifying",
                "peak_mb": diff["peak_mb"], **sides}
    return {"pgt_actions": pgt["actions"], "fd_actions": fd["actions"], "pgt_atoms": pgt["atoms"],
            "fd_atoms": fd["atoms"], "pgt_s": pgt["s"], "fd_s": fd["s"], "pgt_peak_mb": pgt["peak_mb"],
            "fd_peak_mb": fd["peak_mb"], **read, **sides, "counts": diff["counts"], "diffs": diff["diffs"]}


if __name__ == "__main__":
    try:
        got = _step(sys.argv[1:])
    except MemoryError:  # outside the step's own guard (an import, the pickle): the parent maps it to the cap
        sys.exit("MemoryError")
    print(json.dumps({**got, "peak_mb": _own_peak_mb()}))
