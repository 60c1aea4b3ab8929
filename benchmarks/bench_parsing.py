"""Parsing large problem files: pgt's growth in the number of objects, and parse + ground against
Fast Downward's translator, from one run (a script, not a test).

Why: a problem file of thousands of objects (visitall's grids, nomystery's fuel levels) must be
read in time linear in its size, as FD's translator reads it; a quadratic step (a name looked up
in a list per object) turns a 2,500-object file into seconds.

1. **Slope.** For visitall (sat11), nomystery (opt11) and logistics (logistics00) problems of a
   git mirror of aibasel/downward-benchmarks (:mod:`benchmarks.heldout`), pgt's problem loading
   (``toolkit.loader.load_problem``, domain loaded before) and FD's parser
   (``fast_downward.translate.pddl_parser.open``) are timed in this process, interleaved, median of
   ``--repeat``; the slope of log(seconds) against log(objects), and against log(file size), is
   fitted by least squares. Linear reading has slope near 1.0 in the file's size; in objects where
   the file grows linearly in them (visitall, logistics; nomystery's fuel facts grow faster, and
   FD's slope shows it).
2. **Parse + ground.** For the largest problem (by file size) of each domain folder of the IPC
   sample (``--ipc``), pgt's load + relaxed grounding against FD's parse + normalize + relaxed
   exploration, each in a fresh process (:func:`benchmarks.bench_grounding.run_one`), with the
   ratio. ``--only`` picks domain folders.

The machine load is printed with each table. Run: ``python -m benchmarks.bench_parsing``
(``--repeat N``, ``--skip-slope``, ``--skip-ground``, ``--only DOMAIN...``).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import math
import statistics
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

    t0 = time.perf_counter()
    load_problem(problem, domain)
    return time.perf_counter() - t0


def time_fd(domain: Path, problem: Path) -> float:
    from fast_downward.translate import options, pddl_parser

    options.set_options([str(domain), str(problem)])
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        pddl_parser.open(domain_filename=str(domain), problem_filename=str(problem))
    return time.perf_counter() - t0


def slopes(mirror: Path, repeat: int) -> None:
    from toolkit.loader import load_domain

    print(f"# problem reading: seconds (median of {repeat}, interleaved) by objects; slope of log time in log objects; "
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


def largest_problems(ipc: Path, only: list[str] | None) -> list[tuple[str, Path, Path]]:
    out = []
    for folder in sorted(p for p in ipc.iterdir() if p.is_dir()):
        if only and folder.name not in only:
            continue
        problems = [p for p in folder.glob("*.pddl") if "domain" not in p.name]
        if not problems:
            continue
        prob = max(problems, key=lambda p: (p.stat().st_size, p.name))
        for dom in (folder / f"{prob.stem}-domain.pddl", folder / "domain.pddl"):
            if dom.exists():
                out.append((folder.name, dom, prob))
                break
    return out


def parse_ground(ipc: Path, only: list[str] | None, timeout: float) -> None:
    from benchmarks.bench_grounding import run_one

    print(f"# parse + ground, largest problem of each IPC sample domain, fresh process each: pgt (load_task + "
          f"Task.grounding) against FD (parse + normalize + instantiate.explore); {load_text()}")
    print(f"{'domain':<28} {'problem':<22} {'pgt s':>7} {'FD s':>7} {'x FD':>6}")
    ratios = []
    for name, dom, prob in largest_problems(ipc, only):
        ours = run_one("pgt", dom, prob, timeout)
        theirs = run_one("fd", dom, prob, timeout)
        if "error" in ours or "error" in theirs:
            print(f"{name:<28} {prob.name:<22} skipped: {ours.get('error') or theirs.get('error')}")
            continue
        ratio = ours["seconds"] / theirs["seconds"]
        ratios.append(ratio)
        print(f"{name:<28} {prob.name:<22} {ours['seconds']:>7.3f} {theirs['seconds']:>7.3f} {ratio:>6.2f}")
    if ratios:
        print(f"# median pgt/FD {statistics.median(ratios):.2f}, worst {max(ratios):.2f}, "
              f"{sum(r <= 1.0 for r in ratios)} of {len(ratios)} at most 1.0x  {load_text()}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--mirror", type=Path, default=DOWNWARD_BENCHMARKS)
    ap.add_argument("--ipc", type=Path, default=Path("/work/shared/ipc-sample"))
    ap.add_argument("--only", nargs="*", default=None, help="IPC sample domain folders for the parse + ground table")
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--skip-slope", action="store_true")
    ap.add_argument("--skip-ground", action="store_true")
    args = ap.parse_args(argv)
    if not args.skip_slope:
        slopes(args.mirror, args.repeat)
    if not args.skip_ground:
        parse_ground(args.ipc, args.only, args.timeout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
