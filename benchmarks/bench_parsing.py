"""Parsing large problem files: pgt's growth in the number of objects, and parse + ground against
Fast Downward's translator, from one run (a script, not a test).

Why: a problem file of thousands of objects (visitall's grids, nomystery's fuel levels) must be
read in time linear in its size, as FD's translator reads it; a quadratic step (a name looked up
in a list per object) turns a 2,500-object file into seconds.

1. **Slope.** For visitall (sat11), nomystery (opt11) and logistics (logistics00) problems of a
   git mirror of aibasel/downward-benchmarks (:mod:`benchmarks.heldout`), pgt's problem loading
   (``toolkit.loader.load_problem``, domain loaded before) and FD's parser
   (``fast_downward.translate.pddl_parser.open``, which reads the domain file too) are timed in
   this process, CPU seconds, interleaved, median of ``--repeat``; the slope of log(seconds) against log(objects), and against log(file size), is
   fitted by least squares. Linear reading has slope near 1.0 in the file's size; in objects where
   the file grows linearly in them (visitall, logistics; nomystery's fuel facts grow faster, and
   FD's slope shows it).
2. **Parse + ground.** For the largest problem (by file size) of each domain folder of the IPC
   sample (``--ipc``), the same phases on both sides: pgt reads the domain and problem files and
   grounds (``toolkit.task.load_task`` + ``Task.grounding``: parsing, the model with every name,
   arity and type checked, and relaxed reachability); FD's translator runs the phases its ``main``
   (translate/main.py) runs before writing its task, up to grounding: ``pddl_parser.open`` (reading
   both files), ``normalize.normalize`` and ``instantiate.explore`` (relaxed reachability, the first
   step of ``pddl_to_sas``). Two figures per problem, each a median of CPU seconds (user + system,
   so that other jobs on a loaded machine shift them far less than wall time):

   - *warm*: both sides in one fresh process per problem (:func:`measure_pair`); the modules of both
     imported and one untimed run of each on the domain's smallest problem first (imports,
     first-use set-up, pgt's Lark cache: fixed costs left out of both alike), then rounds of one run
     of each, the order alternating per round, until each side has spent ``--min-cpu`` seconds
     (``--min-rounds`` to ``--max-rounds``). Before each run the garbage of the last is collected
     and pgt's process-wide memo (``flat_literals``) cleared, and a run's result is freed after its
     clocks stop, on both sides.
   - *cold*: a fresh interpreter per run for each side (``COLD``: interpreter start, the imports and
     the work, and its exit), interleaved, CPU seconds from the child's own resource usage; at least
     5 runs each and until each side has spent ``--min-cpu`` seconds (``--cold-max`` runs at most).

   ``--only`` picks domain folders; ``--skip-cold`` leaves out the cold runs.

The machine load is printed with each table and each parse + ground row. Run:
``python -m benchmarks.bench_parsing`` (``--repeat N``, ``--skip-slope``, ``--skip-ground``,
``--only DOMAIN...``).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import io
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.heldout import DOWNWARD_BENCHMARKS, load_text, mirror_pair

SERIES = {
    "visitall": ("visitall-sat11-strips/domain.pddl",
                 [f"visitall-sat11-strips/problem{n}.pddl" for n in (12, 20, 30, 40, 50)]),
    "nomystery": ("nomystery-opt11-strips/domain.pddl",
                  [f"nomystery-opt11-strips/p{n:02d}.pddl" for n in (1, 5, 10, 15, 20)]),
    "logistics": ("logistics98/domain.pddl", [f"logistics98/prob{n:02d}.pddl" for n in (1, 5, 26, 30, 28)]),
}


def slope(xs: list[float], ys: list[float]) -> float:
    """Least-squares slope of log(y) against log(x)."""
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = statistics.fmean(lx), statistics.fmean(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sum((a - mx) ** 2 for a in lx)


def time_pgt(domain, problem: Path) -> float:
    from toolkit.loader import load_problem

    t0 = time.process_time()
    load_problem(problem, domain)
    return time.process_time() - t0


def time_fd(domain: Path, problem: Path) -> float:
    from fast_downward.translate import options, pddl_parser

    options.set_options([str(domain), str(problem)])
    t0 = time.process_time()
    with contextlib.redirect_stdout(io.StringIO()):
        pddl_parser.open(domain_filename=str(domain), problem_filename=str(problem))
    return time.process_time() - t0


def slopes(mirror: Path, repeat: int) -> None:
    from toolkit.loader import load_domain

    print(f"# problem reading: CPU seconds (median of {repeat}, interleaved) by objects; slope of log time in log objects; "
          f"{load_text()}")
    print(f"{'domain':<10} {'problem':<28} {'objects':>7} {'pgt s':>8} {'FD parse s':>10} {'x FD':>6}")
    with tempfile.TemporaryDirectory() as tmp:
        for name, (dom, probs) in SERIES.items():
            xs, sizes, ours, theirs = [], [], [], []
            for k, prob in enumerate(probs):
                dpath, ppath = mirror_pair(mirror, dom, prob, Path(tmp))
                domain = load_domain(dpath)
                if k == 0:  # warm-up: first-use imports and caches of both readers
                    time_pgt(domain, ppath)
                    time_fd(dpath, ppath)
                pt, ft = [], []
                for _ in range(repeat):
                    pt.append(time_pgt(domain, ppath))
                    ft.append(time_fd(dpath, ppath))
                from toolkit.loader import load_problem

                objects = len(load_problem(ppath, domain).objects)
                xs.append(objects)
                sizes.append(ppath.stat().st_size)
                ours.append(statistics.median(pt))
                theirs.append(statistics.median(ft))
                print(f"{name:<10} {Path(prob).name:<28} {objects:>7} {ours[-1]:>8.3f} {theirs[-1]:>10.3f} "
                      f"{ours[-1] / theirs[-1]:>6.2f}")
            print(f"{name:<10} slope in objects: pgt {slope(xs, ours):.2f}, FD {slope(xs, theirs):.2f}; in file size: "
                  f"pgt {slope(sizes, ours):.2f}, FD {slope(sizes, theirs):.2f}  {load_text()}")


def largest_problems(ipc: Path, only: list[str] | None) -> list[tuple[str, Path, Path, Path]]:
    """Per domain folder: (name, domain file, its largest problem by size, its smallest problem for the warm-up)."""
    out = []
    for folder in sorted(p for p in ipc.iterdir() if p.is_dir()):
        if only and folder.name not in only:
            continue
        pairs = []
        for prob in folder.glob("*.pddl"):
            if "domain" in prob.name:
                continue
            dom = next((d for d in (folder / f"{prob.stem}-domain.pddl", folder / "domain.pddl") if d.exists()), None)
            if dom is not None:
                pairs.append((prob.stat().st_size, prob.name, dom, prob))
        if pairs:
            _, _, dom, prob = max(pairs)
            _, _, small_dom, small = min(pairs)
            out.append((folder.name, dom, prob, small if small_dom == dom else prob))
    return out


def pgt_parse_ground(domain: str, problem: str) -> object:
    """pgt's side: read both files, build the model and the :class:`~toolkit.task.Task`, and ground it
    (relaxed reachability, :meth:`~toolkit.task.Task.grounding`)."""
    from toolkit.task import load_task

    task = load_task(domain, problem)
    return task, task.grounding()


def fd_parse_ground(domain: str, problem: str) -> object:
    """FD's side: the phases of its translator's ``main`` (translate/main.py, ``main``) up to grounding:
    ``pddl_parser.open``, ``normalize.normalize``, and ``instantiate.explore`` (the first step of
    ``pddl_to_sas``)."""
    from fast_downward.translate import instantiate, normalize, pddl_parser

    with contextlib.redirect_stdout(io.StringIO()):
        task = pddl_parser.open(domain_filename=domain, problem_filename=problem)
        normalize.normalize(task)
        return task, instantiate.explore(task)


def _forget_memos() -> None:
    """Clear pgt's process-wide memos that an earlier run of the same domain would fill, so no timed run
    reuses another's work (each run's own caches live on its new Task and model)."""
    from toolkit.grounding import flat_literals

    flat_literals.cache_clear()


def _timed(fn, domain: Path, problem: Path) -> tuple[float, float]:
    """CPU seconds (this process: user + system) and wall seconds of one call. Garbage of earlier calls
    is collected before, and the result is freed after the clocks stop, so neither side pays for the other."""
    gc.collect()
    c0, w0 = time.process_time(), time.perf_counter()
    result = fn(str(domain), str(problem))
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    del result
    return cpu, wall


def measure_pair(domain: Path, problem: Path, warmup: Path, min_rounds: int, max_rounds: int,
                 min_cpu: float) -> dict:
    """Both sides on one problem in this process, interleaved: one untimed warm-up run of each on
    ``warmup`` (imports, first-use setup, pgt's grammar cache: fixed costs left out on both sides alike),
    then rounds of one run of each, the order alternating per round, until each side has spent
    ``min_cpu`` CPU seconds (at least ``min_rounds``, at most ``max_rounds`` rounds). Medians."""
    from fast_downward.translate import options

    options.set_options([str(domain), str(problem)])  # FD's default translator options
    sides = {"pgt": pgt_parse_ground, "fd": fd_parse_ground}
    for name, fn in sides.items():
        _forget_memos()
        _timed(fn, domain, warmup)
    cpu: dict[str, list[float]] = {"pgt": [], "fd": []}
    wall: dict[str, list[float]] = {"pgt": [], "fd": []}
    rounds = 0
    while rounds < min_rounds or (rounds < max_rounds and min(sum(v) for v in cpu.values()) < min_cpu):
        for name in (("pgt", "fd") if rounds % 2 == 0 else ("fd", "pgt")):
            _forget_memos()
            c, w = _timed(sides[name], domain, problem)
            cpu[name].append(c)
            wall[name].append(w)
        rounds += 1
    return {"rounds": rounds, **{f"{k}_cpu": statistics.median(v) for k, v in cpu.items()},
            **{f"{k}_wall": statistics.median(v) for k, v in wall.items()}}


def _run_pair(domain: Path, problem: Path, warmup: Path, args: argparse.Namespace) -> dict:
    """:func:`measure_pair` in a fresh process (memory and module state not shared between problems)."""
    cmd = [sys.executable, "-m", "benchmarks.bench_parsing", "--pair", str(domain), str(problem), str(warmup),
           "--min-rounds", str(args.min_rounds), "--max-rounds", str(args.max_rounds), "--min-cpu", str(args.min_cpu)]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout,
                             cwd=Path(__file__).resolve().parent.parent)
    except subprocess.TimeoutExpired:
        return {"error": f"over {args.timeout:g} s"}
    last = (out.stdout.strip().splitlines() or [""])[-1]
    if out.returncode != 0 or not last.startswith("{"):
        lines = (out.stderr or out.stdout).strip().splitlines()
        return {"error": lines[-1][:150] if lines else f"exit {out.returncode}"}
    return json.loads(last)


# The cold runs: a fresh interpreter per run, the same phases as the warm ones, imports included.
COLD = {
    "pgt": "import sys\nfrom toolkit.task import load_task\nload_task(sys.argv[1], sys.argv[2]).grounding()",
    "fd": ("import contextlib, io, sys\nfrom fast_downward.translate import instantiate, normalize, options, "
           "pddl_parser\noptions.set_options(sys.argv[1:3])\nwith contextlib.redirect_stdout(io.StringIO()):\n"
           "    task = pddl_parser.open(domain_filename=sys.argv[1], problem_filename=sys.argv[2])\n"
           "    normalize.normalize(task)\n    instantiate.explore(task)"),
}


def _cold_cpu(side: str, domain: Path, problem: Path, timeout: float) -> float | None:
    """CPU seconds (user + system, from the child's own rusage) of one fresh process running ``COLD[side]``:
    interpreter start, imports and the work; None if it failed or ran out of time."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode cache on for both, as a normal install has it
    proc = subprocess.Popen([sys.executable, "-c", COLD[side], str(domain), str(problem)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return None
    return None if proc.returncode else _child_cpu()


def _child_cpu() -> float:
    """CPU seconds of the children reaped so far, minus what :func:`_child_cpu` saw last time."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = usage.ru_utime + usage.ru_stime
    seen, _CHILD_CPU[0] = _CHILD_CPU[0], total
    return total - seen


_CHILD_CPU = [0.0]


def measure_cold(domain: Path, problem: Path, args: argparse.Namespace) -> tuple[float, float] | None:
    """Median cold CPU seconds of each side, interleaved (order alternating), at least 5 runs each and until
    each side has spent ``--min-cpu`` (at most ``--cold-max`` runs)."""
    cpu: dict[str, list[float]] = {"pgt": [], "fd": []}
    _child_cpu()
    while len(cpu["fd"]) < 5 or (len(cpu["fd"]) < args.cold_max and min(map(sum, cpu.values())) < args.min_cpu):
        for side in (("pgt", "fd") if len(cpu["fd"]) % 2 == 0 else ("fd", "pgt")):
            got = _cold_cpu(side, domain, problem, args.timeout)
            if got is None:
                return None
            cpu[side].append(got)
    return statistics.median(cpu["pgt"]), statistics.median(cpu["fd"])


def parse_ground(ipc: Path, only: list[str] | None, args: argparse.Namespace) -> None:
    print(f"# parse + ground, largest problem of each IPC sample domain: pgt (load_task + Task.grounding) against "
          f"FD's translator (parse + normalize + instantiate.explore). warm: one process per problem, imports "
          f"and a warm-up run on the domain's smallest problem left out on both sides, then interleaved rounds, "
          f"median CPU seconds; cold: a fresh interpreter per run (start, imports, work), interleaved, median "
          f"CPU seconds; {load_text()}")
    print(f"{'domain':<26} {'problem':<24} {'pgt CPU s':>9} {'FD CPU s':>9} {'x FD':>6} {'rounds':>6} "
          f"{'cold pgt':>8} {'cold FD':>8} {'cold x':>6}  load")
    ratios, colds = [], []
    for name, dom, prob, warm in largest_problems(ipc, only):
        got = _run_pair(dom, prob, warm, args)
        if "error" in got:
            print(f"{name:<26} {prob.name[:24]:<24} skipped: {got['error'].replace(str(ipc) + '/', '')}", flush=True)
            continue
        ratio = got["pgt_cpu"] / got["fd_cpu"]
        ratios.append(ratio)
        cold = measure_cold(dom, prob, args) if not args.skip_cold else None
        cold_text = "" if cold is None else f"{cold[0]:>8.3f} {cold[1]:>8.3f} {cold[0] / cold[1]:>6.2f}"
        if cold is not None:
            colds.append(cold[0] / cold[1])
        print(f"{name:<26} {prob.name[:24]:<24} {got['pgt_cpu']:>9.4f} {got['fd_cpu']:>9.4f} {ratio:>6.2f} "
              f"{got['rounds']:>6} {cold_text or ' ' * 24}  {os.getloadavg()[0]:.1f}", flush=True)
    for label, rs in (("warm", ratios), ("cold", colds)):
        if rs:
            print(f"# {label}: median pgt/FD (CPU) {statistics.median(rs):.2f}, worst {max(rs):.2f}, "
                  f"{sum(r <= 1.0 for r in rs)} of {len(rs)} at most 1.0x  {load_text()}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3, help="slope table: runs per problem")
    ap.add_argument("--mirror", type=Path, default=DOWNWARD_BENCHMARKS)
    ap.add_argument("--ipc", type=Path, default=Path("/work/shared/ipc-sample"))
    ap.add_argument("--only", nargs="*", default=None, help="IPC sample domain folders for the parse + ground table")
    ap.add_argument("--timeout", type=float, default=600.0, help="parse + ground: seconds per problem, all rounds")
    ap.add_argument("--min-rounds", type=int, default=5, help="parse + ground: at least this many rounds")
    ap.add_argument("--max-rounds", type=int, default=61, help="parse + ground: at most this many rounds")
    ap.add_argument("--min-cpu", type=float, default=1.0,
                    help="parse + ground: rounds go on until each side has spent this many CPU seconds")
    ap.add_argument("--cold-max", type=int, default=15, help="parse + ground: at most this many cold runs per side")
    ap.add_argument("--skip-cold", action="store_true", help="parse + ground: no cold (fresh process) runs")
    ap.add_argument("--skip-slope", action="store_true")
    ap.add_argument("--skip-ground", action="store_true")
    ap.add_argument("--pair", nargs=3, type=Path, metavar=("DOMAIN", "PROBLEM", "WARMUP"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.pair:
        from toolkit.errors import PgtError

        try:
            print(json.dumps(measure_pair(*args.pair, args.min_rounds, args.max_rounds, args.min_cpu)))
        except PgtError as exc:  # refused (out of scope): the located reason
            print(json.dumps({"error": "pgt: " + str(exc).splitlines()[0].split("; pgt supports")[0]}))
        return 0
    if not args.skip_slope:
        slopes(args.mirror, args.repeat)
    if not args.skip_ground:
        parse_ground(args.ipc, args.only, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
