"""Grounding benchmark: pgt's relaxed-reachability grounding against Fast Downward's translator.

Run: ``.venv/bin/python benchmarks/bench_grounding.py [--ipc /work/shared/ipc-sample] [--timeout 60]``

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
import contextlib
import io
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

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
    from toolkit.task import load_task

    base = _rss_mb()
    t0 = time.perf_counter()
    task = load_task(domain, problem)
    t1 = time.perf_counter()
    g = task.grounding()
    t2 = time.perf_counter()
    fluent = {p for s in task.domain.actions.values() for p in _effect_predicates(s.effect)}
    atoms = sum(1 for a in g.atoms if a.predicate in fluent)
    return {"actions": len(g.actions), "atoms": atoms, "seconds": t2 - t0, "ground_seconds": t2 - t1,
            "mb": _rss_mb() - base}


def _effect_predicates(eff) -> set[str]:
    from toolkit import model as m

    if isinstance(eff, (m.AddEffect, m.DelEffect)):
        return {eff.atom.predicate}
    if isinstance(eff, m.AndEffect):
        return set().union(*(_effect_predicates(p) for p in eff.parts)) if eff.parts else set()
    if isinstance(eff, (m.ForallEffect, m.WhenEffect)):
        return _effect_predicates(eff.body)
    return set()


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


def run_one(tool: str, domain: Path, problem: Path, timeout: float) -> dict:
    cmd = [sys.executable, __file__, "--one", tool, str(domain), str(problem)]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"over {timeout:g}s"}
    if out.returncode != 0:
        lines = (out.stderr or out.stdout).strip().splitlines()
        return {"error": lines[-1][:120] if lines else f"exit {out.returncode}"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ipc", type=Path, default=DEFAULT_IPC, help="folder of IPC domain folders")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per tool and problem")
    ap.add_argument("--only", nargs="*", default=None, help="only these domain folders")
    ap.add_argument("--one", nargs=3, metavar=("TOOL", "DOMAIN", "PROBLEM"), help=argparse.SUPPRESS)
    args = ap.parse_args()
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


if __name__ == "__main__":
    main()
