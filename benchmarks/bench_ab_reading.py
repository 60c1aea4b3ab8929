"""Domain and problem loading and the text passes both share, for two source trees, alternating, in one run (a script).

Why: issue 31's numeric validation target needs pgt's load several times faster, and on a machine
shared with other jobs only runs interleaved in time compare. Each round runs one child process per
tree (``PYTHONPATH`` the tree), before then after; each child times, in CPU microseconds (best of
several batches), every stage on every problem it is given, each call on a text it has not seen
before (a unique trailing comment, as ``benchmarks/bench_numeric.py``'s fresh copies): so a memo keyed
by a file's text never answers.

Stages: ``read_text`` (the domain and problem files), ``normalise`` (domain, problem),
``blank_comments`` (domain), ``record_duplicates`` (domain), ``sexpr`` (the plain readers' word lists
of the domain and problem), ``domain`` (:func:`toolkit.loader.parse_domain`), ``problem``
(:func:`toolkit.loader.parse_problem` against a domain read once).

Run: ``python -m benchmarks.bench_ab_reading --before DIR --after DIR --ipc /tmp/h31/ipc`` (``--rounds N``;
``--pair DOMAIN,PROBLEM`` repeated; with ``--ipc`` the first problem of every domain folder whose files
both trees read); DIR a checkout or ``git archive`` of a commit.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

STAGES = ("read_text", "normalise", "blank_comments", "record_duplicates", "sexpr", "domain", "problem")


def _best(fn, texts: list[str], batches: int = 5) -> float:
    """Fewest CPU microseconds per call of ``fn`` over batches of distinct texts."""
    per = max(1, len(texts) // batches)
    best = float("inf")
    for b in range(batches):
        chunk = texts[b * per:(b + 1) * per]
        start = time.process_time()
        for t in chunk:
            fn(t)
        best = min(best, (time.process_time() - start) / len(chunk))
    return best * 1e6


def child(pairs: list[str], copies: int) -> dict:
    """This tree's figures: {label: {stage: us}}; a pair this tree cannot load is left out."""
    from toolkit import loader
    from toolkit.plain_problem import _sexpr
    from toolkit.reading.collect import Errors, record_duplicates
    from toolkit.reading.normalise import normalise
    from toolkit.reading.text import blank_comments
    from toolkit.textfile import read_text

    out: dict[str, dict[str, float]] = {}
    for pair in pairs:
        dom_path, prob_path = pair.split(",")
        try:
            dt, pt = read_text(dom_path), read_text(prob_path)
            domain = loader.parse_domain(dt, dom_path)
            loader.parse_problem(pt, domain, prob_path)
        except Exception:  # noqa: BLE001 - a pair one tree refuses is not compared
            continue
        fresh = lambda t: [f"{t}\n; copy {k}\n" for k in range(copies)]  # noqa: E731
        dts, pts = fresh(dt), fresh(pt)
        row = {
            "read_text": _best(lambda _: (read_text(dom_path), read_text(prob_path)), dts),
            "normalise": _best(lambda k: (normalise(dts[k], "d", Errors("d"), []), normalise(pts[k], "p", Errors("p"), [])),
                               list(range(copies))),
            "blank_comments": _best(blank_comments, [t + ";\n" for t in dts]),
            "record_duplicates": _best(lambda t: record_duplicates(t, "d", Errors("d")), [t + ";\n" for t in dts]),
            "sexpr": _best(lambda k: (_sexpr(blank_comments(dts[k])), _sexpr(blank_comments(pts[k]))),
                           list(range(copies))),
            "domain": _best(lambda t: loader.parse_domain(t, dom_path), dts),
            "problem": _best(lambda t: loader.parse_problem(t, domain, prob_path), pts),
        }
        out[Path(prob_path).parent.parent.name if Path(prob_path).parent.name == "instances" else prob_path] = row
    return out


def _pairs_of(ipc: Path) -> list[str]:
    return [f"{d / 'domain.pddl'},{d / 'instances' / 'pfile1.pddl'}" for d in sorted(ipc.iterdir())
            if (d / "domain.pddl").is_file() and (d / "instances" / "pfile1.pddl").is_file()]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", help="the tree to compare against (a checkout or git archive)")
    ap.add_argument("--after", default=".", help="the tree measured (default: this one)")
    ap.add_argument("--ipc", type=Path, help="a folder of domain folders (domain.pddl, instances/pfile1.pddl)")
    ap.add_argument("--pair", action="append", default=[], help="DOMAIN,PROBLEM (repeatable)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--copies", type=int, default=200, help="distinct texts per stage (split into 5 batches)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    pairs = [*args.pair, *(_pairs_of(args.ipc) if args.ipc else [])]
    if args.child:
        print(json.dumps(child(pairs, args.copies)))
        return 0
    if not pairs:
        ap.error("give --ipc DIR or --pair DOMAIN,PROBLEM")
    if args.before is None:
        ap.error("--before DIR is required")
    from benchmarks.ab_trees import alternate, checked_trees  # the parent's only: the child runs in any tree

    checked_trees("bench_ab_reading", Path(args.before), Path(args.after))
    best: dict[str, dict] = {"before": {}, "after": {}}
    # this file, run against each tree's toolkit (an older tree lacks this script)
    for _, side, run in alternate(__file__, Path(args.before), Path(args.after), args.rounds,
                                  ["--copies", str(args.copies), *[a for p in pairs for a in ("--pair", p)]]):
        if run.returncode != 0:
            raise SystemExit(f"bench_ab_reading: the {side} tree failed: {run.stderr.strip()[-300:]}")
        for label, row in json.loads(run.stdout).items():
            mine = best[side].setdefault(label, {})
            for stage, us in row.items():
                mine[stage] = min(mine.get(stage, float("inf")), us)
    labels = [k for k in best["before"] if k in best["after"]]
    print(f"# CPU us per call, best of {args.rounds} rounds x 5 batches; before/after = speed-up")
    print(f"{'problem':<20}" + "".join(f"{s:>26}" for s in STAGES))
    for label in labels:
        b, a = best["before"][label], best["after"][label]
        print(f"{label:<20}" + "".join(f"{b[s]:>9.0f} {a[s]:>7.0f} {b[s] / a[s]:>5.1f}x  " for s in STAGES))
    for s in STAGES:
        ratios = sorted(best["before"][k][s] / best["after"][k][s] for k in labels)
        if ratios:
            print(f"# {s}: median {ratios[len(ratios) // 2]:.2f}x, worst {ratios[0]:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
