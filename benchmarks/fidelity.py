"""``pgt fidelity``: does the simulated ViPlan protocol reproduce the paper's success?

A calibrated noisy oracle is only worth trusting for a new study if the ViPlan
protocol, run under it, lands where the real model landed. This module runs the
``viplan-grounder`` protocol under each shipped calibration on its suite (every
split), and compares the simulated success per split, and combined over splits,
with the paper's (ViPlan Tables 7 and 9, transcribed in
``benchmarks/data/viplan_grounder_success.toml``, never in code).

The verdict, per split and per model (combined over splits):
``|simulated - paper| <= 2 * sqrt(SEM_sim^2 + SEM_paper^2)``: the two estimates are
independent, so the standard error of their difference is the root of the sum of
their squared SEMs. Each split's SEM is the Bernoulli SEM of ViPlan appendix E,
floored at the SEM of one success in n episodes (0.039 for the paper's n = 25):
a split at 0/n or n/n has a Bernoulli SEM of 0, which would call any difference
significant although the experiment cannot resolve less than one episode.
Combined figures average the splits and propagate their SEMs (appendix E, eq. 2).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from toolkit import cli_args
from toolkit.errors import PgtError

PAPER_FILE = Path(__file__).resolve().parent / "data" / "viplan_grounder_success.toml"
SPLITS = ("simple", "medium", "hard")
SUITE_OF = {"blocksworld": "viplan-bw", "household": "viplan-hh"}
K_SEM = 2.0  # the verdict's width: within K_SEM standard errors of the difference


def resolution_sem(n: int) -> float:
    """SEM of one success in n trials, the smallest a split can resolve (sqrt(0.04*0.96/25) for n = 25)."""
    return math.sqrt((1.0 / n) * (1.0 - 1.0 / n) / n) if n > 1 else 0.5


@dataclass(frozen=True)
class Estimate:
    """A success rate with its standard error and the number of episodes behind it."""

    mean: float
    sem: float
    n: int

    @classmethod
    def of_split(cls, mean: float, sem: float, n: int) -> Estimate:
        """One split's figure, its SEM floored at :func:`resolution_sem` (see the module docstring)."""
        return cls(mean, max(sem, resolution_sem(n)), n)


def combine(estimates: Sequence[Estimate]) -> Estimate:
    """The mean over splits with the SEM of an average of independent estimates (ViPlan eq. 2)."""
    from benchmarks.metrics import combined_sem

    m = len(estimates)
    return Estimate(sum(e.mean for e in estimates) / m, combined_sem([e.sem for e in estimates]),
                    sum(e.n for e in estimates))


@dataclass(frozen=True)
class Verdict:
    """Simulated against published: the difference, its standard error, and whether it is within K_SEM."""

    simulated: Estimate
    paper: Estimate
    diff: float
    se: float
    within: bool

    @property
    def z(self) -> float:
        return self.diff / self.se if self.se else math.inf


def judge(simulated: Estimate, paper: Estimate, k: float = K_SEM) -> Verdict:
    """Compare two independent estimates: se = sqrt(sem_sim^2 + sem_paper^2), within when |diff| <= k se."""
    se = math.hypot(simulated.sem, paper.sem)
    diff = simulated.mean - paper.mean
    return Verdict(simulated, paper, diff, se, abs(diff) <= k * se + 1e-12)


@dataclass(frozen=True)
class PaperRow:
    """One row of ViPlan Table 7 or 9: a model's success (and accuracy) per split."""

    table: int
    domain: str
    model: str
    chain_of_thought: bool
    success: dict[str, Estimate]
    accuracy: dict[str, float]

    @property
    def citation(self) -> str:
        return f"Table {self.table}, {self.model}{' CoT' if self.chain_of_thought else ''}"


def load_paper(path: Path | None = None) -> list[PaperRow]:
    """The transcribed rows (default :data:`PAPER_FILE`); a malformed file names the row and key at fault."""
    path = path or PAPER_FILE
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise PgtError(f"{path}: {exc}") from None
    n = int(data.get("episodes", 25))
    rows = []
    for i, row in enumerate(data.get("row", []), 1):
        where = f"{path}: row {i}"
        try:
            success = {s: Estimate.of_split(float(row["success"][s][0]), float(row["success"][s][1]), n)
                       for s in SPLITS}
            accuracy = {s: float(row["accuracy"][s][0]) for s in SPLITS}
            rows.append(PaperRow(int(row["table"]), str(row["domain"]), str(row["model"]),
                                 bool(row["chain_of_thought"]), success, accuracy))
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise PgtError(f"{where}: needs table, domain, model, chain_of_thought and [mean, sem] per split "
                           f"for success and accuracy ({type(exc).__name__}: {exc})") from None
    return rows


def paper_row(calibration: str, rows: Sequence[PaperRow] | None = None) -> PaperRow:
    """The paper row a calibration file was transcribed from (same model, domain and chain of thought)."""
    from grounders.calibration import _read, resolve_calibration

    path = resolve_calibration(calibration)
    meta = _read(path)
    key = (meta.get("domain"), meta.get("model"), bool(meta.get("chain_of_thought", False)))
    for row in rows if rows is not None else load_paper():
        if (row.domain, row.model, row.chain_of_thought) == key:
            return row
    raise PgtError(f"{path}: no row of ViPlan's success tables for model {key[1]!r}, domain {key[0]!r}, "
                   f"chain_of_thought = {str(key[2]).lower()} in {PAPER_FILE.name}")


def study_config(calibration: str, problems: int | None, seeds: int, noise: str | None = None):
    """The ViPlan-protocol study a calibration is checked with (its suite, every split)."""
    from benchmarks.study_config import RunConfig

    row = paper_row(calibration)
    return RunConfig(suite=SUITE_OF[row.domain], protocol="viplan-grounder", grounder="noisy",
                     calibration=calibration, noise=noise, seeds=seeds, problems=problems)


@dataclass(frozen=True)
class ModelResult:
    """One calibration's fidelity: per split and combined verdicts, with measured accuracy."""

    calibration: str
    row: PaperRow
    noise: str
    splits: dict[str, Verdict]
    accuracy: dict[str, float]
    combined: Verdict


def evaluate(calibration: str, records: Sequence[dict[str, Any]], noise: str = "") -> ModelResult:
    """Verdicts for one calibration from its study's judged episode records."""
    from benchmarks.metrics import by_split, summary

    row = paper_row(calibration)
    groups = by_split(records)
    missing = [s for s in SPLITS if s not in groups]
    if missing:
        raise PgtError(f"{calibration}: no judged episodes on split(s) {', '.join(missing)}")
    verdicts, accuracy = {}, {}
    for split in SPLITS:
        s = summary(groups[split])
        verdicts[split] = judge(Estimate.of_split(s["success"], s["success_sem"], int(s["episodes"])),
                                row.success[split])
        accuracy[split] = s["accuracy"]
    combined = judge(combine([v.simulated for v in verdicts.values()]),
                     combine([row.success[s] for s in SPLITS]))
    return ModelResult(calibration, row, noise, verdicts, accuracy, combined)


def _yes(v: Verdict) -> str:
    return "yes" if v.within else "**no**"


def markdown(results: Sequence[ModelResult]) -> str:
    """The summary table (one line per calibration) and the per-split table."""
    lines = [f"| calibration | paper row | noise | simulated (SEM) | paper (SEM) | z | within {K_SEM:g} SEM | "
             "splits within |", "|---|---|---|---:|---:|---:|:---:|---:|"]
    for r in results:
        c = r.combined
        inside = sum(v.within for v in r.splits.values())
        lines.append(f"| {r.calibration} | {r.row.citation} | {r.noise} | {c.simulated.mean:.2f} ({c.simulated.sem:.2f}) "
                     f"| {c.paper.mean:.2f} ({c.paper.sem:.2f}) | {c.z:+.1f} | {_yes(c)} | {inside}/{len(SPLITS)} |")
    lines += ["", "| calibration | split | episodes | simulated (SEM) | paper (SEM) | z | within "
              f"{K_SEM:g} SEM | accuracy sim / paper |", "|---|---|---:|---:|---:|---:|:---:|---:|"]
    for r in results:
        for split, v in r.splits.items():
            lines.append(f"| {r.calibration} | {split} | {v.simulated.n} | {v.simulated.mean:.2f} "
                         f"({v.simulated.sem:.2f}) | {v.paper.mean:.2f} ({v.paper.sem:.2f}) | {v.z:+.1f} | {_yes(v)} "
                         f"| {r.accuracy[split]:.2f} / {r.row.accuracy[split]:.2f} |")
    return "\n".join(lines) + "\n"


NOTE = (f"Success of the ViPlan grounder protocol under each calibration against ViPlan Tables 7 (BW) and 9 (HH). "
        f"Within {K_SEM:g} SEM: |simulated - paper| <= {K_SEM:g} sqrt(SEM_sim^2 + SEM_paper^2); a split's SEM is "
        "floored at one success in n (0.04 at n = 25); combined = mean of the splits, SEM by ViPlan eq. 2.")


def register(sub: argparse._SubParsersAction) -> None:
    from benchmarks.commands import NOISE_HELP, noise_model

    p = sub.add_parser("fidelity", help="simulated ViPlan protocol under each calibration vs the paper's success",
                       description="Run the ViPlan grounder protocol under each calibration on its suite and "
                                   "compare success per split with ViPlan Tables 7 and 9 (within 2 SEM or not). "
                                   "Resumable: re-run the same command to finish or extend (--problems, --seeds).")
    p.add_argument("--calibrations", default="shipped", type=cli_args.names,
                   help="calibration names or files (comma-separated); 'shipped': every shipped one")
    p.add_argument("--problems", type=cli_args.count, default=5, help="first N problems of each split (25 = all; default 5)")
    p.add_argument("--seeds", type=cli_args.count, default=1, help="seeds per problem")
    p.add_argument("--noise", type=noise_model, metavar="KIND[:NAME=VALUE,...]", help=NOISE_HELP)
    p.add_argument("--workers", type=cli_args.count, default=min(2, os.cpu_count() or 1))
    p.add_argument("--out", default="runs/fidelity", type=cli_args.output_dir, help="folder for the runs and fidelity.md")
    p.add_argument("--check", action="store_true", help="exit 1 when a model's combined success is outside 2 SEM")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.add_argument("--released", nargs="+", metavar="RUN",
                   help="imported ViPlan grounder runs (pgt import viplan-results): fit a calibration from each "
                        "run's answers and compare with the released success on ViPlan's own problems instead; "
                        "the table keeps every run measured into the same --out before")
    p.set_defaults(func=fidelity_cmd)


def _paper_calibrations(names: Sequence[str]) -> list[str]:
    """The shipped calibrations transcribed from a paper row; those fitted from released runs
    (``viplan-logs-*``, checked with ``--released``) have none."""
    rows = load_paper()
    out = []
    for name in names:
        try:
            paper_row(name, rows)
        except PgtError:
            continue
        out.append(name)
    return out


def fidelity_cmd(args: argparse.Namespace) -> int:
    from benchmarks.runner import StudyStopped, preflight, run_study
    from benchmarks.store import collect, read_records
    from benchmarks.study_config import episode_specs
    from grounders.calibration import list_calibrations

    if args.released:
        from benchmarks.viplan_fidelity import released_cmd

        return released_cmd(args)
    names = (_paper_calibrations(list_calibrations()) if args.calibrations == "shipped"
             else [c.strip() for c in args.calibrations.split(",") if c.strip()])
    configs = [(name, study_config(name, args.problems, args.seeds, args.noise)) for name in names]
    for _, cfg in configs:  # every setting is checked before the first episode runs
        preflight(cfg)
    out = Path(args.out)
    results = []
    for name, cfg in configs:
        folder = out / (Path(name).stem if name.endswith((".toml", ".json")) else name)
        if cfg.noise not in (None, "deterministic"):
            folder = folder.with_name(f"{folder.name}-{cfg.noise.replace(':', '-').replace(',', '-')}")
        try:
            episodes = run_study(cfg, folder, max(1, args.workers), progress=not args.quiet)
        except StudyStopped as exc:
            print(f"pgt fidelity: error: {exc}", file=sys.stderr)
            return 1
        wanted = {spec.id for spec in episode_specs(cfg)}  # a folder grown by a larger run: this scope only
        mine = [r for r in collect(read_records(episodes)).judged if r["id"] in wanted]
        results.append(evaluate(name, mine, cfg.noise or ""))
    text = markdown(results)
    out.mkdir(parents=True, exist_ok=True)
    (out / "fidelity.md").write_text(f"{NOTE}\n\n{text}", encoding="utf-8")
    print(text + "\n" + NOTE + f"\nfidelity: {out / 'fidelity.md'}")
    outside = [r.calibration for r in results if not r.combined.within]
    return 1 if args.check and outside else 0
