"""``pgt run``, ``pgt report`` and ``pgt demo``: studies from the command line."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from toolkit import cli_args
from toolkit.errors import PgtError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="run a study: suite x protocol x grounder x seeds (resumable)",
                       description="Run a grounding study. Each finished episode is appended to OUT/episodes.jsonl; "
                                   "re-running the same command resumes where it stopped.")
    p.add_argument("--suite", required=True, type=cli_args.non_empty, help="viplan-bw[/SPLIT[,SPLIT]], viplan-hh[/...], or a folder of problems")
    p.add_argument("--domain", help="domain for a folder suite (file, folder or shipped name)")
    p.add_argument("--protocol", default="viplan-grounder", choices=["viplan-grounder", "viplan-planner", "pgt-grounder"])
    p.add_argument("--grounder", default="noisy", choices=["oracle", "noisy", "vlm", "replay"])
    p.add_argument("--accuracy", type=cli_args.probability, help="noisy grounder: uniform accuracy (e.g. 0.97)")
    p.add_argument("--calibration", type=cli_args.non_empty, help="noisy grounder: calibration file or shipped name (see docs/grounders.md)")
    p.add_argument("--fp", type=cli_args.probability, help="noisy grounder: false-positive rate")
    p.add_argument("--fn", type=cli_args.probability, help="noisy grounder: false-negative rate")
    p.add_argument("--persistence", type=cli_args.probability, default=0.0, help="noisy grounder: repeat a wrong answer with this probability")
    p.add_argument("--action-failure", type=cli_args.probability, default=0.0, help="probability that an action fails in the world")
    p.add_argument("--seeds", type=cli_args.count, default=1, help="seeds per problem")
    p.add_argument("--problems", type=cli_args.count, help="use only the first N problems of each split")
    p.add_argument("--max-steps", type=cli_args.count, help="override the suite's step cap")
    p.add_argument("--planner", default="default", type=cli_args.planner_name, help="planner name (see pgt plan --help)")
    p.add_argument("--model", type=cli_args.non_empty, help="VLM model name (grounder vlm)")
    p.add_argument("--base-url", type=cli_args.url, help="OpenAI-compatible endpoint (grounder vlm); default OPENAI_BASE_URL")
    p.add_argument("--cot", action="store_true", help="chain-of-thought prompts (grounder vlm / viplan-planner)")
    p.add_argument("--replay", type=cli_args.input_file, help="answer log for the replay grounder")
    p.add_argument("--workers", type=cli_args.count, default=min(2, os.cpu_count() or 1), help="worker processes")
    p.add_argument("--out", required=True, type=cli_args.output_dir, help="run folder (created; reused to resume)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run_cmd)

    r = sub.add_parser("report", help="tables (Markdown, CSV) and PNG plots over one or more runs")
    r.add_argument("runs", nargs="+", type=cli_args.input_path, help="run folders (or episodes.jsonl files)")
    r.add_argument("--out", type=cli_args.output_dir, help="report folder (default: the first run's folder/report)")
    r.set_defaults(func=report_cmd)

    d = sub.add_parser("demo", help="offline demo: ViPlan protocol vs pgt-grounder, noisy-oracle sweep on viplan-bw "
                                    "(no key, no GPU)")
    d.add_argument("--out", default="runs/demo", type=cli_args.output_dir, help="folder for the runs and the report")
    d.add_argument("--workers", type=cli_args.count, default=min(2, os.cpu_count() or 1))
    d.add_argument("--accuracies", default="0.9,0.95,0.97,0.99,1.0", type=cli_args.probabilities)
    d.add_argument("--problems", type=cli_args.count, default=10, help="problems per split (25 = the full suite)")
    d.add_argument("--quiet", action="store_true")
    d.set_defaults(func=demo_cmd)

    c = sub.add_parser("compare", help="pgt-grounder against the ViPlan grounder protocol over a noise grid (offline)",
                       description="Run viplan-grounder and pgt-grounder under the same noisy oracle for every suite, "
                                   "noise setting and action-failure rate, then write one report (table and plots). "
                                   "Resumable: re-run the same command to finish an interrupted grid.")
    c.add_argument("--suites", default="viplan-bw,viplan-hh", type=cli_args.names, help="comma-separated suites")
    c.add_argument("--accuracies", default="0.9,0.95,0.97,0.99", type=cli_args.probabilities, help="uniform accuracies (comma-separated)")
    c.add_argument("--calibrations", default="shipped", type=cli_args.names,
                   help="calibration names or files (comma-separated); 'shipped': every shipped one for the suite; "
                        "'none': skip")
    c.add_argument("--action-failures", default="0,0.1", type=cli_args.probabilities, help="action failure probabilities (comma-separated)")
    c.add_argument("--persistence", type=cli_args.probability, default=0.0, help="noisy grounder: repeat a wrong answer with this probability")
    c.add_argument("--seeds", type=cli_args.count, default=1)
    c.add_argument("--problems", type=cli_args.count, help="first N problems of each split (default: all)")
    c.add_argument("--workers", type=cli_args.count, default=min(2, os.cpu_count() or 1))
    c.add_argument("--out", default="runs/compare", type=cli_args.output_dir, help="folder for the runs and the report")
    c.add_argument("--quiet", action="store_true")
    c.set_defaults(func=compare_cmd)


def _config(args: argparse.Namespace):
    from benchmarks.runner import RunConfig

    if args.grounder == "noisy" and args.accuracy is None and args.calibration is None and args.fp is None and args.fn is None:
        raise PgtError("--grounder noisy needs --accuracy, --calibration or --fp/--fn")
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
    _print_report(write_report(args.runs, out))
    return 0


def _print_report(files: dict[str, Path], footer: str = "") -> None:
    """The report's Markdown, an optional footer line, then the path of every file written."""
    print(files["markdown"].read_text(encoding="utf-8"))
    if footer:
        print(footer)
    for kind, path in files.items():
        print(f"{kind}: {path}")


def _numbers(value: str | list[float], option: str) -> list[float]:
    """Probabilities from a parsed flag (already a list) or from text (the Python API)."""
    if isinstance(value, list):
        return value
    try:
        return cli_args.probabilities(value)
    except argparse.ArgumentTypeError as exc:
        raise PgtError(f"{option} {exc}") from None


def compare_grid(args: argparse.Namespace) -> list[tuple[str, object]]:
    """(folder name, RunConfig) for every run of a ``pgt compare`` grid, both protocols."""
    from benchmarks.runner import RunConfig, calibration_name
    from benchmarks.suites import resolve_suite
    from grounders.calibration import list_calibrations, resolve_calibration

    accuracies = _numbers(args.accuracies, "--accuracies")
    failures = _numbers(args.action_failures, "--action-failures")
    if args.seeds < 1:
        raise PgtError("--seeds must be at least 1")
    if not 0.0 <= args.persistence <= 1.0:
        raise PgtError(f"--persistence must be in [0, 1], got {args.persistence}")
    grid = []
    for suite in [s.strip() for s in args.suites.split(",") if s.strip()]:
        resolve_suite(suite)  # a clear error for an unknown suite, before anything runs
        base = suite.split("/")[0]
        if args.calibrations == "shipped":
            cals = [c for c in list_calibrations() if c.startswith(base + "-")]
        elif args.calibrations == "none":
            cals = []
        else:
            cals = [c.strip() for c in args.calibrations.split(",") if c.strip()]
            for c in cals:
                resolve_calibration(c)  # did-you-mean for a misspelt name
        noises = [("acc" + str(a), {"accuracy": a}) for a in accuracies] + \
                 [("cal-" + calibration_name(c), {"calibration": c}) for c in cals]
        for fail in failures:
            for noise_name, noise in noises:
                for protocol in ("viplan-grounder", "pgt-grounder"):
                    cfg = RunConfig(suite=suite, protocol=protocol, grounder="noisy", action_failure=fail,
                                    persistence=args.persistence, seeds=args.seeds, problems=args.problems, **noise)
                    grid.append((f"{suite.replace('/', '-')}-{noise_name}-fail{fail:g}-{protocol}", cfg))
    return grid


def compare_cmd(args: argparse.Namespace) -> int:
    grid = compare_grid(args)
    print(f"pgt compare: {len(grid)} runs (viplan-grounder and pgt-grounder) into {args.out}", file=sys.stderr)
    return _run_grid(grid, Path(args.out), args)


def demo_cmd(args: argparse.Namespace) -> int:
    accs = _numbers(args.accuracies, "--accuracies")
    print(f"pgt demo: the ViPlan grounder protocol and pgt-grounder on viplan-bw (simple, medium, hard; "
          f"{args.problems} problems each), noisy oracle at accuracy {', '.join(map(str, accs))}", file=sys.stderr)
    grid = compare_grid(argparse.Namespace(suites="viplan-bw", accuracies=args.accuracies, calibrations="none",
                                           action_failures="0", persistence=0.0, seeds=1, problems=args.problems))
    return _run_grid(grid, Path(args.out), args)


def _run_grid(grid: list, out: Path, args: argparse.Namespace) -> int:
    """Run (or resume) every study of a grid, then print and write one report over all of them."""
    from benchmarks.report import write_report
    from benchmarks.runner import preflight, run_study

    for _, cfg in grid:  # every setting of the grid is checked before the first episode runs
        preflight(cfg)
    start = time.perf_counter()
    folders = []
    for name, cfg in grid:
        folder = out / name
        run_study(cfg, folder, max(1, args.workers), progress=not args.quiet)
        folders.append(str(folder))
    _print_report(write_report(folders, out / "report"), f"finished in {time.perf_counter() - start:.0f} s")
    return 0
