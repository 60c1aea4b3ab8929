"""Reports over one or more runs: Markdown and CSV tables, PNG plots.

Plots use matplotlib (a well-kept library that beats hand-drawing axes with
pillow), with the non-interactive Agg backend so nothing needs a display.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks import compare, metrics
from benchmarks.store import collect, read_records
from toolkit.errors import PgtError


MAX_BARS = 16  # runs beyond which per-run bar charts are left out


@dataclass(frozen=True)
class Run:
    """A run's judged episodes (one record per id); what was left out is counted, never silently."""

    name: str
    label: str
    records: list[dict[str, Any]]
    duplicates: int = 0  # extra records of an already judged episode, ignored
    errors: int = 0  # episodes that could not be judged (left out of every number)

    def notes(self) -> list[str]:
        out = []
        if self.duplicates:
            out.append(f"{self.name}: {self.duplicates} duplicate episode record(s) ignored (the first of each counts)")
        if self.errors:
            out.append(f"{self.name}: {self.errors} episode(s) errored and are left out; re-run the study to retry them")
        return out


# Fields the tables and plots read, with the types they need (records may carry more).
_NUMBERS = ("questions", "replans", "actions", "prompt_tokens", "completion_tokens", "answered", "correct",
            "predictions_needed")


def check_record(rec: dict[str, Any], where: str) -> None:
    """Refuse an episode record the report cannot read (hand-edited, or from another tool)."""
    from benchmarks.study_config import RunConfig

    def bad(field: str, want: str) -> PgtError:
        return PgtError(f"{where}: episode {rec.get('id', '?')!s:.60}: field '{field}' must be {want}")

    if not isinstance(rec.get("split"), str):
        raise bad("split", "text")
    if not isinstance(rec.get("label", ""), str):
        raise bad("label", "text")
    if not isinstance(rec.get("success", False), bool):
        raise bad("success", "true or false")
    for key in _NUMBERS:
        value = rec.get(key, 0)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise bad(key, "a number")
    per = rec.get("per_predicate", {})
    if not isinstance(per, dict) or not all(
            isinstance(t, dict) and all(isinstance(t.get(k), int) for k in ("answered", "correct"))
            for t in per.values()):
        raise bad("per_predicate", "an object of {answered, correct} counts")
    try:
        RunConfig.from_dict(rec["config"])
    except (KeyError, TypeError, AttributeError) as exc:
        raise bad("config", f"a run configuration ({exc})") from None


def load_runs(paths: list[str]) -> list[Run]:
    runs = []
    for p in paths:
        folder = Path(p)
        file = folder / "episodes.jsonl" if folder.is_dir() else folder
        try:
            have = collect(read_records(file))
        except (OSError, UnicodeDecodeError) as exc:
            raise PgtError(f"cannot read {file}: {getattr(exc, 'strerror', None) or exc}") from None
        if not have.judged:
            detail = f"all {len(have.errors)} episodes errored" if have.errors else f"expected {file}"
            raise PgtError(f"{p}: no judged episodes found ({detail})")
        for rec in have.judged:
            check_record(rec, str(file))
        name = folder.name if folder.is_dir() else folder.stem
        runs.append(Run(name, have.judged[0].get("label", name), have.judged, have.duplicates, len(have.errors)))
    return runs


def _fmt(x: float, digits: int = 2) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def rows(runs: list[Run]) -> list[dict[str, Any]]:
    out = []
    for run in runs:
        for split, s in metrics.split_table(run.records).items():
            out.append({"run": run.name, "suite": _suite(run), "label": run.label, "split": split, **s})
    return out


def write_csv(runs: list[Run], path: Path) -> None:
    data = rows(runs)
    keys = list(data[0]) if data else []
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=keys)
        w.writeheader()
        for r in data:
            w.writerow({k: (round(v, 6) if isinstance(v, float) else v) for k, v in r.items()})


def markdown(runs: list[Run]) -> str:
    lines = ["| run | split | episodes | success (SEM) | accuracy | questions/ep | replans/ep | actions/ep |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows(runs):
        lines.append(f"| {r['suite']} {r['label']} | {r['split']} | {r['episodes']} | {_fmt(r['success'])} ({_fmt(r['success_sem'])}) "
                     f"| {_fmt(r['accuracy'], 3)} | {_fmt(r['questions'], 1)} | {_fmt(r['replans'], 2)} | {_fmt(r['actions'], 1)} |")
    preds = {f"{_suite(run)} {run.label}": metrics.predicate_accuracy(run.records) for run in runs}
    names = sorted({p for v in preds.values() for p in v})
    if names:
        lines += ["", "Predicate accuracy (answers with a yes/no verdict):", "",
                  "| run | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
        for label, table in preds.items():
            cells = [_fmt(table[p][0], 3) if p in table else "" for p in names]
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
    given = {f"{_suite(run)} {run.label}": sorted({p for r in run.records for p in (r.get("given") or {}).get("given", ())})
             for run in runs}
    if any(given.values()):  # known facts (toolkit/known_facts.py): read from the problem, so not in the table above
        lines += ["", "Given, not asked (predicates no action changes, and an untyped domain's type predicates; "
                  "`--ask-static`):", ""]
        lines += [f"- {label}: {', '.join(names) if names else 'none (asked)'}" for label, names in given.items()]
    from benchmarks import viplan_metrics

    return "\n".join(lines) + "\n" + viplan_metrics.markdown(runs)


def plots(runs: list[Run], out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    table = rows(runs)
    splits = [s for s in dict.fromkeys(r["split"] for r in table)]

    # 1. success against measured accuracy: per split for one study line, else one combined line per study
    lines = list(dict.fromkeys(_line_key(run) for run in runs))
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for line in lines:
        for split in splits if len(lines) == 1 else ["combined" if "combined" in splits else splits[0]]:
            pts = sorted((r["accuracy"], r["success"], r["success_sem"]) for run in runs if _line_key(run) == line
                         for r in table if r["run"] == run.name and r["split"] == split and not math.isnan(r["accuracy"]))
            if pts:
                xs, ys, es = zip(*pts)
                ax.errorbar(xs, ys, yerr=es, marker="o", capsize=3, label=f"{' '.join(line)} / {split}")
    _success_axes(fig, ax, "measured predicate accuracy", "Success against grounding accuracy")
    written.append(_save(fig, out / "success_vs_accuracy.png", plt))

    if len(runs) > MAX_BARS:  # one bar per run stops being readable; the comparison plots cover many runs
        return written + _predictions_plot(runs, out, plt)

    # 2. the accuracy/success gap per run (combined over splits)
    combined = [r for r in table if r["split"] == ("combined" if "combined" in splits else splits[0])]
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(combined)), 4.5))
    xs = range(len(combined))
    ax.bar([x - 0.2 for x in xs], [r["accuracy"] for r in combined], 0.4, label="predicate accuracy")
    ax.bar([x + 0.2 for x in xs], [r["success"] for r in combined], 0.4, yerr=[r["success_sem"] for r in combined],
           capsize=3, label="task success")
    ax.set_xticks(list(xs), [r["label"] for r in combined], rotation=30, ha="right", fontsize=7)
    ax.set_ylim(0, 1.05)
    ax.set_title("The accuracy/success gap")
    ax.legend(fontsize=8)
    fig.tight_layout()
    written.append(_save(fig, out / "accuracy_success_gap.png", plt))

    # 3. questions per episode
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(combined)), 4.5))
    ax.bar(list(xs), [r["questions"] for r in combined], yerr=[r["questions_sem"] for r in combined], capsize=3)
    ax.set_xticks(list(xs), [r["label"] for r in combined], rotation=30, ha="right", fontsize=7)
    ax.set_ylabel("questions per episode (± SEM)")
    ax.set_title("Grounding cost")
    fig.tight_layout()
    written.append(_save(fig, out / "questions_per_episode.png", plt))

    return written + _predictions_plot(runs, out, plt)


MAX_LINES = 4  # series one axis holds readably; more get one small panel each (shared axes)


def _predictions_plot(runs: list[Run], out: Path, plt) -> list[Path]:
    """Success against predictions needed (ViPlan Figure 2): one line per run, or one panel per run past
    :data:`MAX_LINES` (ten overlapping lines with error bars could not be told apart)."""
    series = []
    kept = [run for run in runs[:MAX_BARS] if metrics.success_by_predictions(run.records)]
    for run, name in zip(kept, _distinct_names(kept)):
        series.append((name, metrics.success_by_predictions(run.records)))
    xlabel, title = "predictions a perfect grounder needs for the task", "Compounding errors (cf. ViPlan Figure 2)"
    if len(series) <= MAX_LINES:
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for label, pts in series:
            xs2, ys, es, _ = zip(*pts)
            ax.errorbar(xs2, ys, yerr=es, marker="o", capsize=3, label=label)
        _success_axes(fig, ax, xlabel, title)
        return [_save(fig, out / "success_vs_predictions.png", plt)]
    cols = min(4, len(series))
    rows = -(-len(series) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.6 * rows + 0.6), sharex=True, sharey=True,
                             squeeze=False)
    for ax, (label, pts) in zip(axes.flat, series):
        xs2, ys, es, _ = zip(*pts)
        ax.errorbar(xs2, ys, yerr=es, marker="o", capsize=2, markersize=3)
        ax.set_title(label, fontsize=7)
        ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
    for i, ax in enumerate(axes.flat):
        if i >= len(series):
            ax.set_visible(False)
        elif i + cols >= len(series):  # nothing drawn below it: its own x labels
            ax.xaxis.set_tick_params(labelbottom=True)
    fig.supxlabel(xlabel, fontsize=9)
    fig.supylabel("success rate (± SEM)", fontsize=9)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return [_save(fig, out / "success_vs_predictions.png", plt)]


def _distinct_names(runs: list[Run]) -> list[str]:
    """Each run's label, with what it ran on in front where labels repeat (one protocol on several domains:
    ten panels all titled ``pgt-grounder[acc=0.97]`` could not be told apart)."""
    labels = [run.label for run in runs]
    if len(set(labels)) == len(labels):
        return labels
    named = [f"{_ran_on(run)}: {run.label}" for run in runs]
    return named if len(set(named)) == len(named) else [f"{n} ({run.name})" for n, run in zip(named, runs)]


def _ran_on(run: Run) -> str:
    """The suite, or for a folder of problems with ``--domain FILE`` the domain's folder (ferry/domain.pddl: ferry)."""
    cfg = _config(run)
    if cfg.domain:
        dom = Path(cfg.domain)
        return dom.parent.name if dom.stem == "domain" else dom.stem
    return cfg.suite


def _config(run: Run):
    from benchmarks.study_config import RunConfig

    return RunConfig.from_dict(run.records[0]["config"])


def _suite(run: Run) -> str:
    return _config(run).suite_family


def _line_key(run: Run) -> tuple[str, ...]:
    """What one line of the accuracy plot holds fixed: suite, protocol, action failures."""
    cfg = _config(run)
    fail = (f"fail={cfg.action_failure:g}",) if cfg.action_failure else ()
    return (cfg.suite_family, cfg.protocol) + fail


def _success_axes(fig, ax, xlabel: str, title: str) -> None:
    """Shared finish of the plots whose y axis is a success rate with error bars."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel("success rate (± SEM)")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()


def _save(fig, path: Path, plt) -> Path:
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)
    return path


def write_report(run_paths: list[str], out: Path) -> dict[str, Path]:
    runs = load_runs(run_paths)
    out.mkdir(parents=True, exist_ok=True)
    md = out / "report.md"
    paired = compare.pairs(runs)
    notes = [n for run in runs for n in run.notes()]
    md.write_text("# pgt study report\n\n" + "".join(f"Note: {n}.\n\n" for n in notes) + compare.markdown(paired)
                  + ("\n" if paired else "") + markdown(runs), encoding="utf-8")
    csv_path = out / "report.csv"
    write_csv(runs, csv_path)
    files = {"markdown": md, "csv": csv_path}
    for p in plots(runs, out) + compare.plots(paired, out):
        files[p.stem] = p
    return files
