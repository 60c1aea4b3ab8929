"""Studies on domains nobody here tuned on: pgt-grounder against the oracle and the ViPlan protocol.

Run: ``python -m benchmarks.bench_own_domains [--git MIRROR] [--domains ferry,tsp,...] [--problems 3]
[--pick spread|smallest] [--pool 5] [--seeds 2] [--accuracy 0.97] [--max-steps 60] [--pgt-planner auto-sat]
[--workers 2] [--keep DIR]``

Why: the shipped ViPlan suites are where the protocols were tuned. A user's own
domain has static facts (``connected``, ``not-eq``), the type predicates of an
untyped domain and no question templates; issue 28 found `pgt-grounder` at 0 of 6
on ferry where the oracle succeeded. This script takes IPC domains from a bare git
mirror of ``AI-Planning/classical-domains`` (the ``fetch`` tool's snapshot; none of
them is used to tune anything here), copies each domain with ``--problems`` of its problems
(by default spread over its five smallest sizes: :func:`extract`) to a temporary folder (a
folder suite, as ``pgt run --suite DIR --domain FILE`` takes it), and in this one run
measures, per domain, under
``--noise deterministic`` at ``--accuracy`` (a temperature-0 VLM: the same
question about the same picture always gets the same answer):

- the oracle's success (the ViPlan grounder protocol with a perfect grounder),
- ``pgt-grounder`` (default ``--ask-static auto``: known facts read from the problem),
- the ViPlan grounder protocol (it asks every atom, static ones included, as ViPlan's code does),

and prints success, questions per episode, pgt's success as a fraction of the
oracle's, its questions as a fraction of ViPlan's, and how many of pgt's questions
were about a static predicate (the target is none). The targets of issue 28 are
printed beside: pgt >= 0.9 x oracle, pgt > ViPlan, questions <= 1/4 of ViPlan's.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.runner import run_and_collect
from benchmarks.store import collect, read_records
from benchmarks.study_config import RunConfig
from toolkit.errors import PgtError

MIRROR = Path("/work/.mirror/AI-Planning+classical-domains/repo")
# Small untyped and typed STRIPS domains with static facts, none shipped with pgt nor used to tune it
# (tyreworld: the loader refuses its undeclared constant; childsnack: the default optimal planner times out).
DEFAULT_DOMAINS = ("ferry", "tsp", "hanoi", "movie", "zenotravel", "depot", "driverlog", "gripper", "miconic",
                   "satellite", "rovers", "visitall-opt11-strips")


def _git(mirror: Path, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", str(mirror), *args], check=True, capture_output=True,
                          text=True).stdout


def extract(mirror: Path, domain: str, problems: int, into: Path, pick: str = "spread",
            pool: int = 5) -> tuple[Path, Path, list[str]]:
    """Copy ``classical/DOMAIN/domain.pddl`` and ``problems`` of its problems; (domain file, problem folder, names).

    ``pick="smallest"``: the smallest files. ``pick="spread"``: problems spread evenly over
    the domain's ``pool`` smallest sizes, size being the number of objects (the files of one
    size, miconic's ``s1-0`` to ``s1-4``, count once, by their smallest file): with 3 of 5,
    the smallest, the third and the fifth size. The smallest problems of several IPC domains
    are degenerate (tsp's one city, miconic's one passenger, hanoi's one disc), where an
    episode is one look at the start plus a question or two: not the general case.
    """
    rows = [line.split(None, 4) for line in _git(mirror, "ls-tree", "-l", f"HEAD:classical/{domain}").splitlines()]
    files = {row[4]: int(row[3]) for row in rows if row[1] == "blob" and row[4].endswith(".pddl")}
    if "domain.pddl" not in files:
        raise PgtError(f"classical/{domain} has no single domain.pddl")
    by_file = sorted((size, name) for name, size in files.items() if "domain" not in name)
    folder = into / domain / "problems"
    folder.mkdir(parents=True)
    dom = into / domain / "domain.pddl"
    dom.write_text(_git(mirror, "show", f"HEAD:classical/{domain}/domain.pddl"), encoding="utf-8")
    texts: dict[str, str] = {}

    def text(name: str) -> str:
        if name not in texts:
            texts[name] = _git(mirror, "show", f"HEAD:classical/{domain}/{name}")
        return texts[name]

    names = [name for _, name in by_file]
    chosen = names[:problems] if pick == "smallest" else _spread(dom, names, text, problems, pool)
    for name in chosen:
        (folder / name).write_text(text(name), encoding="utf-8")
    return dom, folder, chosen


def _spread(domain: Path, names: list[str], text, problems: int, pool: int) -> list[str]:
    """``problems`` of ``names`` (in file-size order) at evenly spaced ranks of the ``pool`` smallest object
    counts, the smallest file of each; files are read until ``pool`` counts are seen."""
    from toolkit.loader import parse_domain, parse_problem

    dom = parse_domain(domain.read_text(encoding="utf-8"), str(domain))
    sizes: dict[int, str] = {}
    for name in names:  # in file-size order: the first file of a count is its smallest
        sizes.setdefault(len(parse_problem(text(name), dom, name).objects), name)
        if len(sizes) >= pool:
            break
    counts = sorted(sizes)[:pool]
    if len(counts) <= problems:
        return [sizes[c] for c in counts]
    ranks = sorted({round(i * (len(counts) - 1) / (problems - 1)) for i in range(problems)}) if problems > 1 else [0]
    return [sizes[counts[r]] for r in ranks]


def static_questions(records: list[dict]) -> int:
    """Questions a run asked about a predicate its records say was given (known facts)."""
    count = 0
    for r in records:
        given = set((r.get("given") or {}).get("given", ()))
        count += sum(1 for e in r.get("events", ()) if "atom" in e and e["atom"][1:].split(" ")[0].rstrip(")") in given)
    return count


def measure(domain: Path, problems: Path, out: Path, args: argparse.Namespace) -> dict[str, dict]:
    """Run the three studies on one domain; {name: {success, questions, static, episodes}}."""
    base = dict(suite=str(problems), domain=str(domain), seeds=args.seeds, max_steps=args.max_steps)
    noisy = dict(grounder="noisy", accuracy=args.accuracy, noise="deterministic")
    studies = {"oracle": RunConfig(protocol="viplan-grounder", grounder="oracle", **base),
               "pgt": RunConfig(protocol="pgt-grounder", planner=args.pgt_planner, **noisy, **base),
               "viplan": RunConfig(protocol="viplan-grounder", **noisy, **base)}
    row = {}
    for name, config in studies.items():
        with contextlib.redirect_stdout(io.StringIO()):
            episodes, _ = run_and_collect(config, out / name, args.workers, progress=False)
        records = collect(read_records(episodes)).judged
        n = len(records)
        row[name] = {"episodes": n, "success": sum(r["success"] for r in records) / max(n, 1),
                     "questions": sum(r.get("questions", 0) for r in records) / max(n, 1),
                     "static": static_questions(records)}
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--git", type=Path, default=MIRROR, help="bare git mirror of AI-Planning/classical-domains")
    ap.add_argument("--domains", default=",".join(DEFAULT_DOMAINS))
    ap.add_argument("--problems", type=int, default=3, help="N problems of each domain")
    ap.add_argument("--pick", choices=("spread", "smallest"), default="spread",
                    help="spread: evenly over the --pool smallest sizes (object counts); smallest: the N smallest files")
    ap.add_argument("--pool", type=int, default=5, help="how many of the smallest sizes --pick spread spreads over")
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--pgt-planner", default="auto-sat",
                    help="pgt-grounder's planner (auto-sat: optimal, lama-first when the optimal search runs out of "
                         "time; the ViPlan protocol plans satisficing with UP as ViPlan's code does)")
    ap.add_argument("--accuracy", type=float, default=0.97)
    ap.add_argument("--max-steps", type=int, default=60)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--keep", type=Path, default=None,
                    help="keep the domains and their runs here (to read the episodes) instead of a temporary folder")
    args = ap.parse_args(argv)
    if not args.git.is_dir():
        print(f"bench_own_domains: no mirror at {args.git} (fetch github:AI-Planning/classical-domains)",
              file=sys.stderr)
        return 2
    if args.keep is not None and args.keep.exists() and any(args.keep.iterdir()):
        print(f"bench_own_domains: --keep {args.keep} is not empty (give a new folder)", file=sys.stderr)
        return 2
    which = (f"{args.problems} smallest problems" if args.pick == "smallest"
             else f"{args.problems} problems spread over the {args.pool} smallest sizes")
    print(f"IPC domains from {args.git}, {which} x {args.seeds} seeds, "
          f"--noise deterministic --accuracy {args.accuracy}, step cap {args.max_steps}")
    print("| domain | problems | episodes | oracle | pgt | pgt/oracle (>= 0.9) | ViPlan | pgt q | ViPlan q | "
          "q ratio (<= 0.25) | pgt static q (0) | seconds |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    met = 0
    names = [d.strip() for d in args.domains.split(",") if d.strip()]
    with contextlib.ExitStack() as stack:
        tmp = str(args.keep) if args.keep else stack.enter_context(tempfile.TemporaryDirectory(prefix="pgt-own-"))
        for name in names:
            start = time.perf_counter()
            try:
                dom, folder, chosen = extract(args.git, name, args.problems, Path(tmp), args.pick, args.pool)
                row = measure(dom, folder, Path(tmp) / name / "runs", args)
            except (PgtError, subprocess.CalledProcessError) as exc:
                print(f"| {name} | skipped: {str(exc).splitlines()[0][:100]} ||||||||||")
                continue
            o, p, v = row["oracle"], row["pgt"], row["viplan"]
            ratio = p["success"] / o["success"] if o["success"] else float("nan")
            qratio = p["questions"] / v["questions"] if v["questions"] else float("nan")
            ok = ratio >= 0.9 and p["success"] > v["success"] and qratio <= 0.25 and p["static"] == 0
            met += ok
            shown = " ".join(c.removesuffix(".pddl") for c in chosen)
            print(f"| {name} | {shown} | {p['episodes']} | {o['success']:.2f} | {p['success']:.2f} | {ratio:.2f} | "
                  f"{v['success']:.2f} | {p['questions']:.1f} | {v['questions']:.1f} | {qratio:.3f} | "
                  f"{p['static']} | {time.perf_counter() - start:.0f} |", flush=True)
    print(f"targets met on {met} of {len(names)} domains")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
