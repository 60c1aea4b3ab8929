"""``pgt run``, ``pgt report`` and ``pgt demo``: studies from the command line."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from scene_graphs.commands.render import add_render_arguments
from toolkit import cli_args
from toolkit.errors import PgtError

if TYPE_CHECKING:
    from benchmarks.store import Episodes


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="run a study: suite x protocol x grounder x seeds (resumable)",
                       formatter_class=DefaultsShown, description="Run a grounding study. Each finished episode is appended to OUT/episodes.jsonl; "
                                   "re-running the same command resumes where it stopped.")
    p.add_argument("--suite", required=True, type=cli_args.non_empty, help="viplan-bw[/SPLIT[,SPLIT]], viplan-hh[/...], or a folder of problems")
    p.add_argument("--domain", help="domain for a folder suite (file, folder or shipped name)")
    p.add_argument("--protocol", default="viplan-grounder", choices=["viplan-grounder", "viplan-planner", "pgt-grounder"],
                   help="the agent loop (docs/studies.md)")
    p.add_argument("--grounder", default="noisy", choices=["oracle", "noisy", "vlm", "replay"],
                   help="who answers the questions (or proposes the plans, with viplan-planner)")
    p.add_argument("--accuracy", type=cli_args.probability, help="noisy grounder: uniform accuracy (e.g. 0.97)")
    p.add_argument("--calibration", type=cli_args.non_empty, help="noisy grounder: calibration file or shipped name (see docs/grounders.md)")
    p.add_argument("--fp", type=cli_args.probability, help="noisy grounder: false-positive rate")
    p.add_argument("--fn", type=cli_args.probability, help="noisy grounder: false-negative rate")
    p.add_argument("--persistence", type=cli_args.probability, default=0.0, help="noisy grounder: repeat a wrong answer with this probability")
    p.add_argument("--noise", type=noise_model, metavar="KIND[:NAME=VALUE,...]", help=NOISE_HELP)
    p.add_argument("--action-failure", type=cli_args.probability, default=0.0, help="probability that an action fails in the world")
    p.add_argument("--seeds", type=cli_args.seeds, default=1, help="seeds per problem")
    p.add_argument("--problems", type=cli_args.count, help="use only the first N problems of each split")
    p.add_argument("--max-steps", type=cli_args.count, help="override the suite's step cap")
    p.add_argument("--planner", default="default", type=cli_args.planner_name,
                   help="planner name (see pgt plan --help); default: up-oneshot (ViPlan's own planner call) for the "
                        "ViPlan protocols, auto (optimal) for pgt-grounder")
    p.add_argument("--model", type=cli_args.non_empty, help="VLM model name (grounder vlm)")
    p.add_argument("--base-url", type=cli_args.url, help="OpenAI-compatible endpoint (grounder vlm); default OPENAI_BASE_URL")
    p.add_argument("--cot", action="store_true", help="chain-of-thought prompts (grounder vlm / viplan-planner)")
    p.add_argument("--timeout", type=cli_args.seconds, default=60.0, help="grounder vlm: seconds for a whole endpoint "
                   "request, the reply's body included (default 60)")
    p.add_argument("--max-reply-bytes", type=cli_args.count, metavar="N", help="grounder vlm: largest reply body read; "
                   "a longer one is dropped while it streams in and recorded as an error answer (default 4194304)")
    p.add_argument("--max-retries", type=cli_args.non_negative, default=4,
                   help="grounder vlm: retries of a failed request (429, 5xx, timeout), honouring Retry-After (default 4)")
    p.add_argument("--cache", metavar="PATH", type=cli_args.output_file, help="grounder vlm: reply cache file "
                                                   "(default PGT_VLM_CACHE or .pgt-cache/vlm-replies.sqlite)")
    p.add_argument("--no-cache", action="store_true", help="grounder vlm: neither read nor write the reply cache")
    _add_endpoint_limits(p)
    p.add_argument("--replay", type=cli_args.input_path, help="replay grounder: an answer log (a vlm run's OUT/answers.jsonl); with "
                                    "--protocol viplan-planner: a viplan-planner run folder")
    p.add_argument("--plan-wrong", type=cli_args.probability, help="viplan-planner with --grounder noisy: P(a plan action is "
                                                   "replaced by a random one)")
    p.add_argument("--plan-missing", type=cli_args.probability, help="... P(a plan action is left out)")
    p.add_argument("--plan-extra", type=cli_args.probability, help="... P(a random action is inserted before a plan action)")
    _add_ask_static(p)
    p.add_argument("--world", metavar="MODULE:CLASS", type=cli_args.non_empty,
                   help="your own world (truth, executor, renderer) for the domain, e.g. mypkg.world:WarehouseWorld "
                        "(default: a pgt.worlds entry point named after the domain, a shipped world, else the "
                        "generic renderer's; docs/your-domain.md)")
    add_render_arguments(p)
    p.add_argument("--workers", type=cli_args.count, default=min(2, os.cpu_count() or 1), help="worker processes")
    _add_executor(p)
    p.add_argument("--out", required=True, type=cli_args.output_dir, help="run folder (created; reused to resume)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_dry_run(p)
    p.set_defaults(func=run_cmd)

    r = sub.add_parser("report", help="tables (Markdown, CSV) and PNG plots over one or more runs",
                       formatter_class=DefaultsShown,
                       description="Write report.md and report.csv (success ± SEM per split, accuracy per predicate, "
                                   "questions, replans, actions and tokens per episode) and PNG plots (success "
                                   "against accuracy and against predictions needed, the accuracy/success gap, "
                                   "questions per episode, and the two grounder protocols side by side where the "
                                   "runs pair them) over one or more run folders of pgt run, compare or demo. "
                                   "Episodes that errored are left out and counted.")
    r.add_argument("runs", nargs="+", type=cli_args.input_path, help="run folders (or episodes.jsonl files)")
    r.add_argument("--out", type=cli_args.output_dir, help="report folder (default: the first run's folder/report)")
    r.set_defaults(func=report_cmd)

    d = sub.add_parser("demo", help="offline demo: ViPlan protocol vs pgt-grounder, noisy-oracle sweep on viplan-bw "
                                    "(no key, no GPU)", formatter_class=DefaultsShown,
                       description="Run the ViPlan grounder protocol and pgt-grounder on viplan-bw (simple, medium, "
                                   "hard) under a noisy oracle at each accuracy, then print and write one report "
                                   "(pgt report). Needs no API key and no GPU; resumable like pgt compare.")
    d.add_argument("--out", default="runs/demo", type=cli_args.output_dir, help="folder for the runs and the report")
    d.add_argument("--workers", type=cli_args.count, default=min(2, os.cpu_count() or 1), help="worker processes")
    d.add_argument("--accuracies", default="0.9,0.95,0.97,0.99,1.0", type=cli_args.probabilities,
                   help="noisy oracle accuracies (comma-separated)")
    d.add_argument("--problems", type=cli_args.count, default=10, help="problems per split (25 = the full suite)")
    d.add_argument("--quiet", action="store_true", help="no progress bar")
    d.set_defaults(func=demo_cmd)

    c = sub.add_parser("compare", help="pgt-grounder against the ViPlan grounder protocol over a noise grid (offline)",
                       formatter_class=DefaultsShown, description="Run viplan-grounder and pgt-grounder under the same noisy oracle for every suite, "
                                   "noise setting and action-failure rate, then write one report (table and plots). "
                                   "Resumable: re-run the same command to finish an interrupted grid.")
    c.add_argument("--suites", default="viplan-bw,viplan-hh", type=cli_args.names, help="comma-separated suites")
    c.add_argument("--accuracies", default="0.9,0.95,0.97,0.99", type=cli_args.probabilities, help="uniform accuracies (comma-separated)")
    c.add_argument("--calibrations", default="shipped", type=cli_args.names,
                   help="calibration names or files (comma-separated); 'shipped': every shipped one for the suite; "
                        "'none': skip")
    c.add_argument("--action-failures", default="0,0.1", type=cli_args.probabilities, help="action failure probabilities (comma-separated)")
    c.add_argument("--persistence", type=cli_args.probability, default=0.0, help="noisy grounder: repeat a wrong answer with this probability")
    c.add_argument("--noise", type=noise_model, metavar="KIND[:NAME=VALUE,...]", help=NOISE_HELP)
    c.add_argument("--seeds", type=cli_args.seeds, default=1, help="seeds per problem")
    c.add_argument("--problems", type=cli_args.count, help="first N problems of each split (default: all)")
    _add_ask_static(c)
    add_render_arguments(c)
    c.add_argument("--workers", type=cli_args.count, default=min(2, os.cpu_count() or 1), help="worker processes")
    _add_executor(c)
    c.add_argument("--out", default="runs/compare", type=cli_args.output_dir, help="folder for the runs and the report")
    c.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_dry_run(c)
    c.set_defaults(func=compare_cmd)


class DefaultsShown(argparse.HelpFormatter):
    """Help that states every option's default (``(default: noisy)``) unless its text already does.

    Flags without a value (``--quiet``) and options whose absence means "not set"
    (default None) have nothing to state.
    """

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if (action.option_strings and not any(action.default is v for v in (None, False, argparse.SUPPRESS))
                and "default" not in text.lower() and not isinstance(action, argparse._HelpAction)):
            text += " (default: %(default)s)"
        return text


def check_contradictions(args: argparse.Namespace) -> None:
    """Refuse flags that contradict each other or the chosen grounder, with one line naming both.

    Silently ignoring one (``--accuracy`` beside ``--calibration``, where the
    calibration won; ``--model`` with the noisy grounder) ran a study other than
    the one asked for.
    """
    def given(name: str) -> bool:
        value = getattr(args, name, None)
        return value is not None and value is not False and not (name == "persistence" and value == 0.0)

    def flag(name: str) -> str:
        return "--" + name.replace("_", "-")

    rates = [n for n in ("accuracy", "calibration", "fp") if given(n)]
    if "fp" not in rates and given("fn"):
        rates.append("fn")
    if len(rates) > 1:
        raise PgtError(f"{flag(rates[0])} and {flag(rates[1])} contradict each other: pass one error rate "
                       "(--fp/--fn together are one)")
    noisy_grounder = args.grounder == "noisy" and args.protocol != "viplan-planner"
    for name in ("accuracy", "calibration", "fp", "fn", "persistence", "noise"):
        if given(name) and not noisy_grounder:
            what = (f"--grounder {args.grounder}" if args.grounder != "noisy"
                    else "--protocol viplan-planner (its noisy planner takes --plan-wrong/--plan-missing/--plan-extra)")
            raise PgtError(f"{flag(name)} and {what} contradict each other: {flag(name)} is only for --grounder "
                           "noisy (the noisy grounder's errors)")
    for name in ("model", "base_url"):
        if given(name) and args.grounder != "vlm":
            raise PgtError(f"{flag(name)} and --grounder {args.grounder} contradict each other: {flag(name)} is "
                           "for --grounder vlm")
    if given("replay") and args.grounder != "replay":
        raise PgtError(f"--replay and --grounder {args.grounder} contradict each other: --replay is for "
                       "--grounder replay")
    if getattr(args, "ask_static", "auto") != "auto" and args.protocol == "viplan-planner":
        raise PgtError("--ask-static and --protocol viplan-planner contradict each other: the planner protocol "
                       "asks no questions")


NOISE_HELP = ("noisy grounder: how errors are drawn: independent[:persistence=Q], deterministic (the same question "
              "about the same state gets the same answer; default with --calibration), scene[:hard=H,factor=F]; any "
              "kind takes overconfidence=O, clean=C (a share C of episodes without errors), sticky=K (a share K "
              "of each rate kept per atom across states) and focus=F (a share F of each episode's errors on one "
              "object) (docs/grounders.md)")


def noise_model(text: str) -> str:
    """The ``--noise`` flag's type: a noise model's canonical text (grounders/noise)."""
    from grounders.noise import NoiseModel

    try:
        return NoiseModel.parse(text).text
    except PgtError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _add_ask_static(p: argparse.ArgumentParser) -> None:
    """``--ask-static``: whether known facts (predicates no action changes) are asked or read from the problem."""
    p.add_argument("--ask-static", choices=["auto", "yes", "no"], default="auto",
                   help="ask the grounder about predicates no action changes and the type predicates of an untyped "
                        "domain (yes), or read them from the problem (no); auto: pgt-grounder reads them, the ViPlan "
                        "grounder protocol asks them on ViPlan's own domains (as its code does) and reads them "
                        "elsewhere (docs/your-domain.md)")


def _add_executor(p: argparse.ArgumentParser) -> None:
    """``--executor``/``--address``: where episodes run (benchmarks/executors.py); a resume may change them."""
    p.add_argument("--executor", choices=["local", "ray"], default="local",
                   help="local: --workers processes on this machine; ray: Ray tasks on a cluster (pip install -e "
                        "\".[ray]\"); episodes are still written by this process")
    p.add_argument("--address", type=cli_args.non_empty, help="executor ray: the cluster's address, e.g. HOST:6379 "
                                                             "(default RAY_ADDRESS, else a local cluster of --workers CPUs)")


def _executor_fields(args: argparse.Namespace) -> dict[str, object]:
    """The execution fields of ``--executor``/``--address`` (absent from the Python API's namespaces)."""
    return {"executor": getattr(args, "executor", "local"), "address": getattr(args, "address", None)}


def _config(args: argparse.Namespace):
    from benchmarks.study_config import RunConfig

    check_contradictions(args)
    if args.grounder == "noisy" and args.protocol != "viplan-planner" and args.accuracy is None and args.calibration is None and args.fp is None and args.fn is None:
        raise PgtError("--grounder noisy needs --accuracy, --calibration or --fp/--fn")
    _check_vlm_flags(args)  # flag ranges are checked by their argparse types (toolkit/cli_args.py)
    plan_flags = [f"--{n.replace('_', '-')}" for n in ("plan_wrong", "plan_missing", "plan_extra")
                  if getattr(args, n) is not None]
    if plan_flags and (args.protocol, args.grounder) != ("viplan-planner", "noisy"):
        raise PgtError(f"{', '.join(plan_flags)}: only for --protocol viplan-planner --grounder noisy")
    return RunConfig(suite=args.suite, protocol=args.protocol, grounder=args.grounder, accuracy=args.accuracy,
                     calibration=args.calibration, fp=args.fp, fn=args.fn, persistence=args.persistence,
                     noise=args.noise, action_failure=args.action_failure, seeds=args.seeds, domain=args.domain,
                     max_steps=args.max_steps, planner=args.planner, model=args.model, base_url=args.base_url,
                     cot=args.cot, replay=args.replay, problems=args.problems, plan_wrong=args.plan_wrong,
                     plan_missing=args.plan_missing, plan_extra=args.plan_extra,
                     ask_static=getattr(args, "ask_static", "auto"), world=getattr(args, "world", None),
                     **_render_fields(args), **_executor_fields(args),
                     **{k: getattr(args, k) for k in EXECUTION_FLAGS if getattr(args, k, None) is not None})


def _render_fields(args: argparse.Namespace) -> dict:
    """RunConfig's render_mode/labels from the flags (checked: schematic cannot drop its labels)."""
    from scene_graphs.commands.render import render_options

    mode, labels = render_options(args)
    return {"render_mode": mode, "labels": labels}


def _check_vlm_flags(args: argparse.Namespace) -> None:
    """The VLM client's flags, checked before any work (a missing model would fail every episode)."""
    from grounders.client import check_base_url, check_max_retries, check_timeout

    check_timeout(args.timeout)
    check_max_retries(args.max_retries)
    if getattr(args, "max_reply_bytes", None) is not None:
        from grounders.client import check_max_reply_bytes

        check_max_reply_bytes(args.max_reply_bytes)
    if args.cache and args.no_cache:
        raise PgtError("--cache and --no-cache contradict each other; pass one")
    limits = [f"--{n.replace('_', '-')}" for n in LIMIT_FLAGS if getattr(args, n, None) is not None]
    if limits and args.grounder != "vlm":
        raise PgtError(f"{', '.join(limits)}: only for --grounder vlm (the limits of a model endpoint)")
    if args.base_url is not None:
        check_base_url(args.base_url)
    if args.grounder == "vlm":
        from grounders.vlm import env_model  # only here: a study of another grounder never loads the VLM client

        if not (args.model or env_model()):
            raise PgtError(f"--grounder vlm needs --model (or PGT_VLM_MODEL) for protocol {args.protocol}")


def _accuracy_text(s: dict[str, float]) -> str:
    """Accuracy over the yes/no answers, saying how many answers were errors or unreadable (never a bare 1.000)."""
    answered, errors, unreadable = int(s.get("answered", 0)), int(s.get("answer_errors", 0)), int(s.get("unparseable", 0))
    text = f"accuracy {s['accuracy']:.3f}" if answered else "accuracy n/a (no yes/no answers)"
    if errors or unreadable:
        text += f" over {answered} of {answered + errors + unreadable} answers ({errors} errors, {unreadable} unreadable)"
    return text


# execution options another module's flags may set (see RunConfig.EXECUTION_FIELDS); absent flags keep defaults
EXECUTION_FLAGS = ("timeout", "max_retries", "max_reply_bytes", "cache", "no_cache", "max_inflight", "rpm", "tpm")
LIMIT_FLAGS = ("max_inflight", "rpm", "tpm")  # study-wide endpoint limits (grounders/limits.py)


def _add_dry_run(p: argparse.ArgumentParser) -> None:
    """``--dry-run`` with its prices: the grid and its estimated cost, before anything is spent."""
    p.add_argument("--dry-run", action="store_true", help="print the grid (episodes done and to run, expected "
                   "questions, for a VLM tokens and cost) and stop: nothing is run, written or sent")
    p.add_argument("--price-in", type=cli_args.price, metavar="USD", help="--dry-run: USD per 1M prompt tokens "
                   "(default: list price of a known model, see docs/studies.md)")
    p.add_argument("--price-out", type=cli_args.price, metavar="USD", help="--dry-run: USD per 1M completion tokens")


def _dry_run(runs: list[tuple[object, Path]], args: argparse.Namespace) -> int:
    """Print the estimate of every (config, folder) of a study or grid; nothing is written."""
    from benchmarks.dryrun import estimate, render

    print(render([estimate(cfg, out) for cfg, out in runs], args.price_in, args.price_out))
    return 0


def _add_endpoint_limits(p: argparse.ArgumentParser) -> None:
    """``--max-inflight``, ``--rpm``, ``--tpm``: one study-wide limit on what is sent to the endpoint."""
    p.add_argument("--max-inflight", type=cli_args.count, help="grounder vlm: most endpoint requests open at once, "
                   "over all episodes (episodes run concurrently as threads; default 8)")
    p.add_argument("--rpm", type=cli_args.per_minute, help="grounder vlm: endpoint requests per minute, study-wide "
                   "(paced evenly; a 429 slows the study further)")
    p.add_argument("--tpm", type=cli_args.per_minute, help="grounder vlm: prompt + completion tokens per minute, "
                   "study-wide (estimated before a request, settled from the reply's usage)")


def run_cmd(args: argparse.Namespace) -> int:
    from benchmarks.runner import StudyStopped, run_and_collect

    config = _config(args)
    out = Path(args.out)
    if args.dry_run:
        return _dry_run([(config, out)], args)
    try:
        episodes, have = run_and_collect(config, out, max(1, args.workers), progress=not args.quiet)
    except StudyStopped as exc:
        print(f"pgt run: error: {exc}", file=sys.stderr)
        return 1
    return _summarize(episodes, have)


def _summarize(episodes: Path, have: Episodes | None = None) -> int:
    """Print a study's table and outcome counts; 1 when no episode could be judged, else 0.

    ``have``: the study's episodes as the run collected them (else read from ``episodes``).
    """
    from benchmarks.metrics import split_table
    from benchmarks.store import collect, read_records

    if have is None:
        have = collect(read_records(episodes))
    table = split_table(have.judged)
    for split, s in table.items():
        print(f"{split:>9}: success {s['success']:.2f} (SEM {s['success_sem']:.2f}) over {s['episodes']} episodes, "
              f"{_accuracy_text(s)}, {s['questions']:.1f} questions/episode")
    counts = have.counts()
    print(f"episodes: {counts['success']} success, {counts['failure']} failure, {counts['error']} error "
          f"({episodes})")
    if counts["error"]:
        kinds = sorted({str(r.get("error_kind")) for r in have.errors})
        print(f"pgt run: {counts['error']} episode(s) could not be judged ({', '.join(kinds)}), e.g. "
              f"{have.errors[0]['id']}: {have.errors[0].get('error')}; they are left out of the table and run again "
              "when the same command is re-run", file=sys.stderr)
    if counts["error"] and not have.judged:
        print("pgt run: error: every episode errored; nothing was measured", file=sys.stderr)
        return 1
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
    from benchmarks.study_config import RunConfig, calibration_name
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
                                    ask_static=getattr(args, "ask_static", "auto"),
                                    persistence=args.persistence, noise=getattr(args, "noise", None), seeds=args.seeds,
                                    problems=args.problems, **_render_fields(args), **_executor_fields(args), **noise)
                    grid.append((f"{suite.replace('/', '-')}-{noise_name}-fail{fail:g}-{protocol}", cfg))
    return grid


def compare_cmd(args: argparse.Namespace) -> int:
    grid = compare_grid(args)
    if args.dry_run:
        return _dry_run([(cfg, Path(args.out) / name) for name, cfg in grid], args)
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
    from benchmarks.runner import StudyStopped, preflight, run_study

    for _, cfg in grid:  # every setting of the grid is checked before the first episode runs
        preflight(cfg)
    start = time.perf_counter()
    folders = []
    for name, cfg in grid:
        folder = out / name
        try:
            run_study(cfg, folder, max(1, args.workers), progress=not args.quiet)
        except StudyStopped as exc:
            print(f"pgt {getattr(args, 'command', 'compare')}: error: {exc}", file=sys.stderr)
            return 1
        folders.append(str(folder))
    _print_report(write_report(folders, out / "report"), f"finished in {time.perf_counter() - start:.0f} s")
    return 0
