"""``pgt run``, ``pgt report`` and ``pgt demo``: studies from the command line."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from toolkit.errors import PgtError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="run a study: suite x protocol x grounder x seeds (resumable)",
                       description="Run a grounding study. Each finished episode is appended to OUT/episodes.jsonl; "
                                   "re-running the same command resumes where it stopped.")
    p.add_argument("--suite", required=True, help="viplan-bw[/SPLIT[,SPLIT]], viplan-hh[/...], or a folder of problems")
    p.add_argument("--domain", help="domain for a folder suite (file, folder or shipped name)")
    p.add_argument("--protocol", default="viplan-grounder", choices=["viplan-grounder", "viplan-planner", "pgt-grounder"])
    p.add_argument("--grounder", default="noisy", choices=["oracle", "noisy", "vlm", "replay"])
    p.add_argument("--accuracy", type=float, help="noisy grounder: uniform accuracy (e.g. 0.97)")
    p.add_argument("--calibration", help="noisy grounder: calibration file or shipped name (see docs/grounders.md)")
    p.add_argument("--fp", type=float, help="noisy grounder: false-positive rate")
    p.add_argument("--fn", type=float, help="noisy grounder: false-negative rate")
    p.add_argument("--persistence", type=float, default=0.0, help="noisy grounder: repeat a wrong answer with this probability")
    p.add_argument("--action-failure", type=float, default=0.0, help="probability that an action fails in the world")
    p.add_argument("--seeds", type=int, default=1, help="seeds per problem")
    p.add_argument("--problems", type=int, help="use only the first N problems of each split")
    p.add_argument("--max-steps", type=int, help="override the suite's step cap")
    p.add_argument("--planner", default="default", help="planner name (see pgt plan --help)")
    p.add_argument("--model", help="VLM model name (grounder vlm)")
    p.add_argument("--base-url", help="OpenAI-compatible endpoint (grounder vlm); default OPENAI_BASE_URL")
    p.add_argument("--cot", action="store_true", help="chain-of-thought prompts (grounder vlm / viplan-planner)")
    p.add_argument("--replay", help="answer log for the replay grounder")
    p.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1), help="worker processes")
    p.add_argument("--out", required=True, help="run folder (created; reused to resume)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run_cmd)

    r = sub.add_parser("report", help="tables (Markdown, CSV) and PNG plots over one or more runs")
    r.add_argument("runs", nargs="+", help="run folders (or episodes.jsonl files)")
    r.add_argument("--out", help="report folder (default: the first run's folder/report)")
    r.set_defaults(func=report_cmd)

    d = sub.add_parser("demo", help="offline demo: a noisy-oracle accuracy sweep on viplan-bw (no key, no GPU)")
    d.add_argument("--out", default="runs/demo", help="folder for the runs and the report")
    d.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    d.add_argument("--accuracies", default="0.9,0.95,0.97,0.99,1.0")
    d.add_argument("--problems", type=int, default=10, help="problems per split (25 = the full suite)")
    d.add_argument("--quiet", action="store_true")
    d.set_defaults(func=demo_cmd)


def _config(args: argparse.Namespace):
    from benchmarks.runner import RunConfig

    if args.grounder == "noisy" and args.accuracy is None and args.calibration is None and args.fp is None and args.fn is None:
        raise PgtError("--grounder noisy needs --accuracy, --calibration or --fp/--fn")
    for name in ("accuracy", "fp", "fn", "persistence", "action_failure"):
        v = getattr(args, name)
        if v is not None and not 0.0 <= v <= 1.0:
            raise PgtError(f"--{name.replace('_', '-')} must be in [0, 1], got {v}")
    if args.seeds < 1:
        raise PgtError("--seeds must be at least 1")
    return RunConfig(suite=args.suite, protocol=args.protocol, grounder=args.grounder, accuracy=args.accuracy,
                     calibration=args.calibration, fp=args.fp, fn=args.fn, persistence=args.persistence,
                     action_failure=args.action_failure, seeds=args.seeds, domain=args.domain,
                     max_steps=args.max_steps, planner=args.planner, model=args.model, base_url=args.base_url,
                     cot=args.cot, replay=args.replay, problems=args.problems)


def run_cmd(args: argparse.Namespace) -> int:
    from benchmarks.metrics import split_table
    from benchmarks.runner import read_records, run_study

    config = _config(args)
    out = Path(args.out)
    episodes = run_study(config, out, max(1, args.workers), progress=not args.quiet)
    table = split_table(read_records(episodes))
    for split, s in table.items():
        print(f"{split:>9}: success {s['success']:.2f} (SEM {s['success_sem']:.2f}) over {s['episodes']} episodes, "
              f"accuracy {s['accuracy']:.3f}, {s['questions']:.1f} questions/episode")
    print(f"episodes: {episodes}")
    return 0


def report_cmd(args: argparse.Namespace) -> int:
    from benchmarks.report import write_report

    out = Path(args.out) if args.out else Path(args.runs[0]) / "report"
    files = write_report(args.runs, out)
    print(files["markdown"].read_text(encoding="utf-8"))
    for kind, path in files.items():
        print(f"{kind}: {path}")
    return 0


def demo_cmd(args: argparse.Namespace) -> int:
    from benchmarks.report import write_report
    from benchmarks.runner import RunConfig, run_study

    start = time.perf_counter()
    try:
        accs = [float(a) for a in args.accuracies.split(",")]
    except ValueError:
        raise PgtError(f"--accuracies takes numbers separated by commas, got {args.accuracies!r}") from None
    if not all(0.0 <= a <= 1.0 for a in accs):
        raise PgtError(f"--accuracies must be in [0, 1], got {args.accuracies!r}")
    out = Path(args.out)
    folders = []
    print(f"pgt demo: ViPlan grounder protocol on viplan-bw (simple, medium, hard; {args.problems} problems each), "
          f"noisy oracle at accuracy {', '.join(map(str, accs))}", file=sys.stderr)
    for acc in accs:
        cfg = RunConfig(suite="viplan-bw", protocol="viplan-grounder", grounder="noisy", accuracy=acc,
                        problems=args.problems)
        folder = out / f"viplan-grounder-acc{acc}"
        run_study(cfg, folder, max(1, args.workers), progress=not args.quiet)
        folders.append(str(folder))
    files = write_report(folders, out / "report")
    print(files["markdown"].read_text(encoding="utf-8"))
    print(f"finished in {time.perf_counter() - start:.0f} s")
    for kind, path in files.items():
        print(f"{kind}: {path}")
    return 0
