"""Protocol comparison: ``pgt-grounder`` against ``viplan-grounder`` under the same noise.

Runs are paired by everything but the protocol (suite, noise setting, action
failures, seeds, problems); the table gives both success rates (± SEM, ViPlan
eq. 1-2), their ratio, and questions per episode with their ratio. ``pgt compare``
runs the grid; ``pgt report`` over its folders writes this table and two plots.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks import metrics

BASELINE, CHALLENGER = "viplan-grounder", "pgt-grounder"


@dataclass(frozen=True)
class Pair:
    suite: str
    setting: str  # the noise part of the label, e.g. "acc=0.97" or "cal=viplan-bw-cot-gpt-4.1"
    failure: float
    split: str
    base: dict[str, Any]
    ours: dict[str, Any]


def _setting(record: dict[str, Any]) -> tuple[str, str, float]:
    from benchmarks.study_config import RunConfig

    cfg = RunConfig.from_dict(record["config"])
    return cfg.suite_family, cfg.noise_label(), cfg.action_failure


def _key(record: dict[str, Any]) -> tuple:
    from benchmarks.study_config import RunConfig

    cfg = RunConfig.from_dict(record["config"]).result_fields()
    cfg.pop("protocol", None)
    cfg.pop("planner", None)  # each protocol's own planner (ViPlan's UP call; pgt's optimal search) is part of it
    return tuple(sorted((k, str(v)) for k, v in cfg.items()))


def pairs(runs: list) -> list[Pair]:
    """Every (run of the ViPlan protocol, run of pgt-grounder) with the same configuration, per split."""
    by_key: dict[tuple, dict[str, Any]] = {}
    for run in runs:
        first = run.records[0]
        from benchmarks.study_config import RunConfig

        # the protocol as the config reads it (a record without one ran the default, as RunConfig says)
        by_key.setdefault(_key(first), {})[RunConfig.from_dict(first["config"]).protocol] = run
    out = []
    for group in by_key.values():
        if BASELINE not in group or CHALLENGER not in group:
            continue
        base, ours = group[BASELINE], group[CHALLENGER]
        suite, setting, failure = _setting(base.records[0])
        t_base, t_ours = metrics.split_table(base.records), metrics.split_table(ours.records)
        for split in t_base:
            if split in t_ours:
                out.append(Pair(suite, setting, failure, split, t_base[split], t_ours[split]))
    return sorted(out, key=lambda p: (p.suite, p.failure, not p.setting.startswith("acc"), p.setting,
                                      metrics.split_order(p.split)))


def _ratio(a: float, b: float) -> str:
    if b == 0:
        return "inf" if a > 0 else "n/a"
    return f"{a / b:.2f}"


def markdown(pairs_: list[Pair]) -> str:
    """Two tables: one row per setting over all splits (combined), then every split."""
    if not pairs_:
        return ""
    head = ["| suite | noise | action failure | split | ViPlan success | pgt success | success ratio "
            "| ViPlan questions | pgt questions | question ratio |",
            "|---|---|---:|---|---:|---:|---:|---:|---:|---:|"]
    overall = [p for p in pairs_ if p.split == _overall(pairs_, p.suite)]
    lines = [f"## {CHALLENGER} against {BASELINE}", "",
             "Same noisy grounder, problems and seeds; success ± SEM (combined over splits by ViPlan eq. 2); "
             "questions per episode.", "", *head, *map(_row, overall)]
    if len(overall) < len(pairs_):
        lines += ["", "Per split:", "", *head, *map(_row, pairs_)]
    return "\n".join(lines) + "\n"


def _row(p: Pair) -> str:
    b, o = p.base, p.ours
    return (f"| {p.suite} | {p.setting} | {p.failure:g} | {p.split} "
            f"| {b['success']:.2f} ± {b['success_sem']:.2f} | {o['success']:.2f} ± {o['success_sem']:.2f} "
            f"| {_ratio(o['success'], b['success'])} | {b['questions']:.1f} | {o['questions']:.1f} "
            f"| {_ratio(o['questions'], b['questions'])} |")


def plots(pairs_: list[Pair], out: Path) -> list[Path]:
    """Grouped bars per suite and failure rate: success (± SEM) and questions per episode, combined splits."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = sorted({(p.suite, p.failure) for p in pairs_})
    if not panels:
        return []
    written = []
    for metric, ylabel, name in (("success", "success rate (± SEM)", "protocol_success.png"),
                                 ("questions", "questions per episode (± SEM)", "protocol_questions.png")):
        fig, axes = plt.subplots(len(panels), 1, figsize=(9, 3.2 * len(panels)), squeeze=False)
        for ax, (suite, failure) in zip(axes[:, 0], panels):
            rows = [p for p in pairs_ if (p.suite, p.failure) == (suite, failure) and p.split == _overall(pairs_, suite)]
            xs = range(len(rows))
            for offset, side, label in ((-0.2, "base", BASELINE), (0.2, "ours", CHALLENGER)):
                vals = [getattr(r, side)[metric] for r in rows]
                errs = [getattr(r, side)[f"{metric}_sem"] for r in rows]
                ax.bar([x + offset for x in xs], vals, 0.4, yerr=errs, capsize=3, label=label)
            ax.set_xticks(list(xs), [r.setting.replace("cal=", "") for r in rows], rotation=20, ha="right", fontsize=7)
            ax.set_title(f"{suite}, action failure {failure:g} ({_overall(pairs_, suite)} splits)", fontsize=9)
            ax.set_ylabel(ylabel, fontsize=8)
            if metric == "success":
                ax.set_ylim(0, 1.05)
            ax.grid(axis="y", alpha=0.3)
            ax.legend(fontsize=7)
        fig.tight_layout()
        path = out / name
        fig.savefig(path, dpi=110, metadata={"Software": None})
        plt.close(fig)
        written.append(path)
    return written


def _overall(pairs_: list[Pair], suite: str) -> str:
    splits = {p.split for p in pairs_ if p.suite == suite}
    return "combined" if "combined" in splits else sorted(splits)[0]
