"""Grounding benchmark: pgt's relaxed-reachability grounding against Fast Downward's translator.

Run: ``.venv/bin/python benchmarks/bench_grounding.py [--ipc /work/shared/ipc-sample] [--timeout 60]``

With ``--diff ROOT...`` (or ``--git MIRROR...``, bare git mirrors of public
collections such as AI-Planning/classical-domains and aibasel/downward-benchmarks,
extracted to a temporary folder) it is instead the differential benchmark: for the
smallest and the largest problem (by file size) of every domain folder it compares
the ground action and fluent atom sets of both tools and prints every difference
with its class (:mod:`benchmarks.grounding_diff`), per problem, then a table per
domain. ``--out FILE`` keeps one JSON line per problem; a killed run resumes from it.
Identical (domain, problem) files met twice (the collections overlap) run once.
Every problem ends in one row class (:mod:`benchmarks.grounding_diff_report`):
compared; compared on FD's reading of a repaired copy where FD's parser refuses
what pgt reads (:mod:`benchmarks.fd_reading`); not compared, with how far each side
got and the peak memory at the kill, and with ``--proxy N`` the folder's
next-largest problems compared in its place; or a duplicate. ``--by-size`` runs
the smallest files first; ``--no-run`` only prints the table from ``--out``.
Each side of a problem runs in its own process (:mod:`benchmarks.grounding_diff_run`),
each under ``--timeout`` seconds and ``--memory-gb`` of address space, pgt's with
``--max-actions`` as its ground-action budget; ``--workers N`` runs N problems at
once (``--sides-at-once``: both sides of a problem at the same time), and ``--rerun CASE...``
runs named problems again whatever ``--out`` keeps.

With ``--questions DOMAIN PROBLEM`` (repeatable) it times whole commands as users
run them, each in a fresh process: ``pgt questions --json`` of this checkout, of
``--base`` (an older checkout, e.g. ``git archive`` of the commit before a change,
for a before/after in the same run), and Fast Downward's whole translator
(``python -m fast_downward.translate``, to a SAS file in a temporary folder); it
prints seconds and peak memory of each, with the ratios to FD.

For the first problem of every IPC domain folder (typed and untyped, STRIPS and
ADL, with and without action costs) it prints, from this one run:

- ground actions and fluent atoms of pgt (:meth:`toolkit.task.Task.grounding`)
  and of FD's translator (``fast_downward.translate``: parse, normalize, and the
  relaxed exploration ``instantiate.explore``), with their ratio;
- seconds for parse + ground of each, with the ratio pgt / FD, and seconds of the
  grounding alone (pgt ``Task.grounding``, FD ``instantiate.explore``);
- peak memory growth (max RSS after minus before loading) of each.

Each measurement runs in a fresh subprocess, so memory and caches are not shared.
A domain pgt cannot load (for example a numeric feature it refuses) is skipped
with the printed reason. FD's translator simplifies a little differently (it
drops actions whose effects are empty after removing static facts; its operators
split by disjunctive branch are counted once), so counts may differ slightly on ADL domains.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import hashlib
import io
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from benchmarks.grounding_diff_run import RunOptions

DEFAULT_IPC = Path("/work/shared/ipc-sample")


def first_problem(folder: Path) -> tuple[Path, Path] | None:
    """The folder's first problem (by name) and its domain file."""
    problems = sorted(p for p in folder.glob("*.pddl") if "domain" not in p.name)
    for prob in problems:
        for dom in (folder / f"{prob.stem}-domain.pddl", folder / "domain.pddl"):
            if dom.exists():
                return dom, prob
    return None


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure_pgt(domain: str, problem: str) -> dict:
    from toolkit.known_facts import changed_predicates
    from toolkit.task import load_task

    base = _rss_mb()
    t0 = time.perf_counter()
    task = load_task(domain, problem)
    t1 = time.perf_counter()
    g = task.grounding()
    t2 = time.perf_counter()
    fluent = set(changed_predicates(task.domain))
    atoms = sum(1 for a in g.atoms if a.predicate in fluent)
    return {"actions": len(g.actions), "atoms": atoms, "seconds": t2 - t0, "ground_seconds": t2 - t1,
            "mb": _rss_mb() - base}


def measure_fd(domain: str, problem: str) -> dict:
    from fast_downward.translate import instantiate, normalize, options, pddl_parser

    options.set_options([domain, problem])  # FD's default translator options

    base = _rss_mb()
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        task = pddl_parser.open(domain_filename=domain, problem_filename=problem)
        normalize.normalize(task)
        t1 = time.perf_counter()
        _, fluent_facts, actions, _, _, _ = instantiate.explore(task)
    t2 = time.perf_counter()
    # FD splits a disjunctive precondition into one operator per branch; count distinct ground actions.
    # Its normalisation turns complex conditions into axioms (new-axiom@N): their atoms are no fluent of the task.
    derived = {str(ax.name) for ax in task.axioms}
    atoms = sum(1 for f in fluent_facts if str(f.predicate) not in derived)
    return {"actions": len({a.name for a in actions}), "atoms": atoms, "seconds": t2 - t0, "ground_seconds": t2 - t1,
            "mb": _rss_mb() - base}


def measure_diff(domain: str, problem: str, max_actions: int | None = None) -> dict:
    """Both groundings of one problem in this process, their sizes and seconds, and every difference with its
    class (the benchmark runs each side in its own process: :func:`benchmarks.grounding_diff_run.compare_problem`)."""
    from benchmarks.grounding_diff_run import classified, fd_measure, pgt_measure

    ours, pgt = pgt_measure(domain, problem, max_actions)
    fd_side, fd = fd_measure(domain, problem)
    read = {k: fd[k] for k in ("fd_refuses", "fd_read_copy") if k in fd}
    return {"pgt_actions": pgt["actions"], "fd_actions": fd["actions"], "pgt_atoms": pgt["atoms"],
            "fd_atoms": fd["atoms"], "pgt_s": pgt["s"], "fd_s": fd["s"], **read, **classified(ours, fd_side)}


def run_one(tool: str, domain: Path, problem: Path, timeout: float) -> dict:
    """One measurement (``pgt`` or ``fd``) in a fresh process; killed at ``timeout``, the error says so."""
    import os
    import signal

    cmd = [sys.executable, __file__, "--one", tool, str(domain), str(problem)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return {"error": f"over {timeout:g}s"}
    if proc.returncode != 0:
        lines = (err or out).strip().splitlines()
        return {"error": lines[-1][:120] if lines else f"exit {proc.returncode}"}
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ipc", type=Path, default=DEFAULT_IPC, help="folder of IPC domain folders")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per tool and problem")
    ap.add_argument("--only", nargs="*", default=None, help="only these domain folders")
    ap.add_argument("--one", nargs=3, metavar=("TOOL", "DOMAIN", "PROBLEM"), help=argparse.SUPPRESS)
    ap.add_argument("--diff", nargs="*", type=Path, metavar="ROOT",
                    help="differential benchmark over these folders of domain folders (default --ipc)")
    ap.add_argument("--git", nargs="*", type=Path, default=[], metavar="MIRROR",
                    help="with --diff: also the tree of these bare git mirrors")
    ap.add_argument("--out", type=Path, help="with --diff: one JSON line per problem here; problems in it are kept")
    ap.add_argument("--every", action="store_true", help="with --diff: print every difference, not 3 per class")
    ap.add_argument("--smallest", action="store_true", help="with --diff: only the smallest problem per domain folder")
    ap.add_argument("--proxy", type=int, default=0, metavar="N",
                    help="with --diff: for a largest problem over the limit, compare up to N next-largest of its "
                         "folder instead (until one compares)")
    ap.add_argument("--no-run", action="store_true",
                    help="with --diff and --out: run nothing, print the table from what --out holds (a problem "
                         "it lacks is not compared: not run)")
    ap.add_argument("--by-size", action="store_true",
                    help="with --diff: run the problems smallest file first (a long limit then compares the most)")
    ap.add_argument("--memory-gb", type=float, default=None, metavar="G",
                    help="with --diff: address space of each side's process, in GB (default 8; a lower ulimit -v "
                         "is kept); a problem that ran out of a lower cap is run again")
    ap.add_argument("--max-actions", type=int, default=None, metavar="N",
                    help="with --diff: pgt's ground-action budget (default toolkit.reach.DEFAULT_MAX_ACTIONS)")
    ap.add_argument("--workers", type=int, default=1, metavar="N",
                    help="with --diff: run N problems at once (each side of each in its own process)")
    ap.add_argument("--sides-at-once", action="store_true",
                    help="with --diff: run pgt's and FD's side of a problem at the same time (twice the memory)")
    ap.add_argument("--rerun", nargs="*", default=[], metavar="CASE",
                    help="with --diff: run these problems again (as the table names them, e.g. "
                         "downward-benchmarks/folding-sat23-adl/p20.pddl) whatever --out keeps of them")
    ap.add_argument("--questions", nargs=2, action="append", metavar=("DOMAIN", "PROBLEM"),
                    help="time `pgt questions` against FD's translator on this problem (repeatable)")
    ap.add_argument("--base", type=Path, help="with --questions: also time the pgt checkout in this folder")
    args = ap.parse_args()
    if args.questions:
        questions_main(args.questions, args.base, args.timeout)
        return
    if args.diff is not None:
        from benchmarks.grounding_diff_run import DEFAULT_MEMORY_GB, RunOptions

        missing = [str(p) for p in [*args.diff, *args.git] if not p.exists()]
        if missing:  # else an empty table, as if the folders held no problem
            ap.error(f"no such folder: {', '.join(missing)}")
        diff_main(args.diff or ([] if args.git else [args.ipc]), args.git, args.timeout, args.only, args.out,
                  args.every, args.smallest, args.by_size, args.proxy, args.no_run,
                  RunOptions(args.memory_gb or DEFAULT_MEMORY_GB, args.max_actions, max(1, args.workers),
                             frozenset(args.rerun), args.sides_at_once))
        return
    if args.one:
        tool, dom, prob = args.one
        if tool == "pgt":
            from toolkit.errors import PgtError

            try:
                print(json.dumps(measure_pgt(dom, prob)))
            except PgtError as exc:  # refused (out of scope or malformed): the located reason, not a traceback
                print(json.dumps({"error": str(exc).split("; pgt supports")[0].replace(str(args.ipc) + "/", "")}))
            return
        print(json.dumps(measure_fd(dom, prob)))
        return
    print(f"{'problem':<44} {'pgt acts':>8} {'FD acts':>8} {'ratio':>6} {'pgt atoms':>9} {'FD atoms':>8} "
          f"{'pgt s':>7} {'FD s':>7} {'t ratio':>7} {'pgt gnd':>7} {'FD gnd':>7} {'pgt MB':>7} {'FD MB':>7}")
    t_ratios, g_ratios, a_ratios, n, skipped, same, same_atoms = [], [], [], 0, 0, 0, 0
    for folder in sorted(p for p in args.ipc.iterdir() if p.is_dir()):
        if args.only and folder.name not in args.only:
            continue
        pair = first_problem(folder)
        if pair is None:
            print(f"{folder.name:<44} skipped: no domain file next to its problems")
            skipped += 1
            continue
        dom, prob = pair
        name = f"{folder.name}/{prob.name}"
        ours, fd = run_one("pgt", dom, prob, args.timeout), run_one("fd", dom, prob, args.timeout)
        if "error" in ours or "error" in fd:
            print(f"{name:<44} skipped: pgt: {ours.get('error', 'ok')}; FD: {fd.get('error', 'ok')}")
            skipped += 1
            continue
        n += 1
        same += ours["actions"] == fd["actions"]
        same_atoms += ours["atoms"] == fd["atoms"]
        ratio = ours["actions"] / fd["actions"] if fd["actions"] else float(ours["actions"] == 0)
        t_ratio = ours["seconds"] / fd["seconds"]
        a_ratios.append(ratio)
        t_ratios.append(t_ratio)
        g_ratios.append(ours["ground_seconds"] / max(fd["ground_seconds"], 1e-6))
        print(f"{name:<44} {ours['actions']:>8} {fd['actions']:>8} {ratio:>6.2f} {ours['atoms']:>9} "
              f"{fd['atoms']:>8} {ours['seconds']:>7.3f} {fd['seconds']:>7.3f} {t_ratio:>7.2f} "
              f"{ours['ground_seconds']:>7.3f} {fd['ground_seconds']:>7.3f} {ours['mb']:>7.1f} {fd['mb']:>7.1f}", flush=True)
    if n:
        print(f"\n{n} problems ({skipped} skipped); ground actions equal to FD's on {same}/{n}, fluent atoms on {same_atoms}/{n}; ground actions pgt/FD median {statistics.median(a_ratios):.2f} "
              f"(max {max(a_ratios):.2f}); parse+ground time pgt/FD median {statistics.median(t_ratios):.2f} "
              f"(max {max(t_ratios):.2f}); grounding alone pgt/FD median {statistics.median(g_ratios):.2f} "
              f"(max {max(g_ratios):.2f})")


def timed(cmd: list[str], env: dict[str, str], timeout: float,
          cwd: str | None = None) -> tuple[float, float, float] | str:
    """Wall seconds, peak memory (max RSS, MB) and CPU seconds (user + system) of one process, or why it
    gave none. On a machine shared with other jobs the CPU seconds move far less than the wall time."""
    import os
    import threading

    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=cwd)
    killer = threading.Timer(timeout, proc.kill)
    killer.start()
    _, status, usage = os.wait4(proc.pid, 0)  # this child's own rusage (Popen.wait would hide it)
    killer.cancel()
    seconds = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if seconds >= timeout:
        return f"over {timeout:g} s"
    if proc.returncode:
        return f"exit {proc.returncode}"
    return seconds, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def questions_main(problems: list[list[str]], base: Path | None, timeout: float) -> None:
    """``pgt questions`` (this checkout, and ``base``) against FD's translator, seconds and memory with ratios."""
    import os
    import tempfile

    here = Path(__file__).resolve().parent.parent
    sides = [("pgt", here)] + ([("pgt base", base.resolve())] if base else [])
    print(f"{'problem':<48} {'tool':<9} {'seconds':>8} {'CPU s':>8} {'peak MB':>8} {'s / FD':>7} {'CPU / FD':>8} "
          f"{'MB / FD':>7}")
    for dom, prob in problems:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        with tempfile.TemporaryDirectory(prefix="bench-fd-") as tmp:
            fd = timed([sys.executable, "-m", "fast_downward.translate", "--sas-file", f"{tmp}/out.sas",
                        os.path.abspath(dom), os.path.abspath(prob)], env, timeout, cwd=tmp)
        rows = [("FD", fd)]
        for label, root in sides:
            rows.append((label, timed([sys.executable, "-m", "toolkit.cli", "questions", "--json",
                                       os.path.abspath(dom), os.path.abspath(prob)],
                                      {**env, "PYTHONPATH": str(root)}, timeout, cwd=str(root))))  # -m: cwd first
        name = "/".join(Path(prob).parts[-2:])
        for label, got in rows:
            if isinstance(got, str):
                print(f"{name:<48} {label:<9} {got}")
                continue
            ratio = (f"{got[0] / fd[0]:>7.2f} {got[2] / fd[2]:>8.2f} {got[1] / fd[1]:>7.2f}"
                     if not isinstance(fd, str) else "")
            print(f"{name:<48} {label:<9} {got[0]:>8.2f} {got[2]:>8.2f} {got[1]:>8.0f} {ratio}", flush=True)


def smallest_and_largest(root: Path, only: list[str] | None = None,
                         smallest: bool = False) -> list[tuple[str, Path, Path]]:
    """Per domain folder under ``root``: its smallest and its largest problem (by file size) with its domain file."""
    from benchmarks.sweep_ipc import discover

    by_folder: dict[str, list] = collections.defaultdict(list)
    for case in discover(root, only=only or ()):
        if case.domain is not None:
            by_folder[str(Path(case.name).parent)].append(case)
    out = []
    for folder, cases in sorted(by_folder.items()):
        ranked = sorted(cases, key=lambda c: (c.problem.stat().st_size, c.name))
        for case in dict.fromkeys([ranked[0]] if smallest else [ranked[0], ranked[-1]]):
            out.append((f"{root.name}/{case.name}", case.domain, case.problem))
    return out


def _diff_row(rec: dict) -> str:
    c = rec["counts"]
    if "error" in rec:
        return rec["error"]
    if not c:
        return "equal"
    return "; ".join(f"{k} {v}" for k, v in c.items())


def diff_main(roots: list[Path], mirrors: list[Path], timeout: float, only: list[str] | None, out: Path | None,
              every: bool, smallest: bool = False, by_size: bool = False, proxy: int = 0,
              no_run: bool = False, opts: RunOptions | None = None) -> None:
    """The differential benchmark (see the module's docstring); ``opts.workers`` problems run at once."""
    import tempfile
    from concurrent.futures import ThreadPoolExecutor, as_completed

    from benchmarks.grounding_diff import CLASSES
    from benchmarks.grounding_diff_report import over_limit, proxy_candidates, ranked_folders, summary
    from benchmarks.grounding_diff_run import KEPT_PER_CLASS, RunOptions, append_record, compare_problem, kept_records
    from benchmarks.sweep_ipc import extract

    opts = opts or RunOptions()
    done = kept_records(out, timeout, opts, no_run)
    with tempfile.TemporaryDirectory(prefix="grounding-diff-") as tmp, ThreadPoolExecutor(opts.workers) as pool:
        roots = list(roots)
        for i, mirror in enumerate(mirrors):
            root, _ = extract(mirror, "HEAD", Path(tmp) / str(i))
            roots.append(root.rename(root.parent / mirror.parent.name.split("+")[-1]) if mirror.name == "repo"
                         else root)
        cases = [c for root in roots for c in smallest_and_largest(root, only, smallest)]
        if by_size:
            cases.sort(key=lambda c: (c[1].stat().st_size + c[2].stat().st_size, c[0]))
        print(f"# {len(cases)} problems (smallest and largest per domain folder) under {', '.join(map(str, roots))}; "
              f"{timeout:g} s per side and problem, {opts.memory_gb:g} GB per process, {opts.workers} at once; "
              f"{len(done)} kept from {out}", flush=True)

        def kept_or_run(name: str, dom: Path, prob: Path, **extra: str) -> dict:
            rec = done.get(name)
            if rec is None and no_run:
                return {"case": name, "error": "not run", "counts": {}}
            if rec is None:
                t0 = time.perf_counter()
                rec = compare_problem(dom, prob, timeout, opts.memory_gb, opts.max_actions, opts.sides_at_once)
                rec = {"case": name, **rec, **extra, "seconds": round(time.perf_counter() - t0, 1)}
                rec.setdefault("counts", {})
                if out:
                    append_record(out, rec)
            return rec

        def show(rec: dict) -> None:
            name = rec["case"]
            if "same_as" in rec:
                print(f"{name}: the same files as {rec['same_as']}, run once", flush=True)
            elif "error" in rec:
                got = f" ({rec['reached']}; peak {rec['peak_mb']} MB at the kill)" if "reached" in rec else ""
                print(f"{name}: skipped: {rec['error']}{got}", flush=True)
            else:
                print(f"{name}: pgt {rec['pgt_actions']} actions {rec['pgt_atoms']} atoms ({rec['pgt_s']} s), FD "
                      f"{rec['fd_actions']} actions {rec['fd_atoms']} atoms ({rec['fd_s']} s): {_diff_row(rec)}",
                      flush=True)
                shown: collections.Counter = collections.Counter()
                for kind, only_side, item, cls, reason in rec.get("diffs", []):
                    shown[kind, only_side, cls] += 1
                    if every or shown[kind, only_side, cls] <= 3:
                        print(f"    {cls:<18} {kind} only {only_side}: {item}: {reason}")
                    elif shown[kind, only_side, cls] == 4:
                        print(f"    {cls:<18} {kind}s only {only_side}: and more (--every lists them all)")
                if rec.get("diffs_cut"):
                    print(f"    and {rec['diffs_cut']:,} more counted above, not kept in the record (at most "
                          f"{KEPT_PER_CLASS} per class)")

        seen: dict[str, str] = {}
        records: list[dict] = []
        running = {}
        for name, dom, prob in cases:
            key = hashlib.sha1(dom.read_bytes() + b"\0" + prob.read_bytes()).hexdigest()
            if key in seen:
                records.append({"case": name, "same_as": seen[key]})
                show(records[-1])
            else:
                seen[key] = name
                records.append({"case": name})
                running[pool.submit(kept_or_run, name, dom, prob)] = len(records) - 1
        for job in as_completed(running):  # opts.workers at a time, each shown as it ends
            records[running[job]] = job.result()
            show(records[running[job]])

        def with_proxy(rec: dict) -> tuple[str, dict] | None:
            got = None
            for name, dom, prob in proxy_candidates(ranked, rec["case"], proxy):
                if no_run and name not in done:
                    continue
                got = kept_or_run(name, dom, prob, proxy_for=rec["case"])
                if "pgt_actions" in got:
                    break
            return (rec["case"], got) if got is not None else None

        ranked = ranked_folders(roots, only) if proxy else {}
        proxies: dict[str, dict] = {}
        for got in pool.map(with_proxy, [r for r in records if over_limit(r)]):
            if got is not None:
                proxies[got[0]] = got[1]
                print(f"{got[1]['case']}: proxy for {got[0]}: {_diff_row(got[1])}", flush=True)
    print()
    for line in summary(records, proxies):
        print(line)
    ran = [r for r in records if "pgt_actions" in r]
    per_class = collections.Counter()
    for r in ran:
        for k, v in r["counts"].items():
            per_class[k.split(": ", 1)[1]] += v
    differing = [r for r in ran if r["counts"]]
    print(f"# differences by class over the {len(ran)} problems compared (a repaired copy included): "
          + (", ".join(f"{c} {per_class[c]}" for c in CLASSES if per_class[c]) or "none"))
    print("\n| problem | pgt actions | FD actions | pgt atoms | FD atoms | differences (class: count) |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    for r in differing:
        print(f"| {r['case']} | {r['pgt_actions']:,} | {r['fd_actions']:,} | {r['pgt_atoms']:,} | {r['fd_atoms']:,} | "
              f"{_diff_row(r)} |")


if __name__ == "__main__":
    main()
