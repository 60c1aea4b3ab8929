"""``pgt fidelity --released RUN ...``: the simulation against ViPlan's released runs, on ViPlan's own problems.

For each imported ViPlan grounder run (``pgt import viplan-results``), the
calibration fitted from its answers (:mod:`benchmarks.viplan_calibrate`) drives
the ``viplan-grounder`` protocol with the noisy grounder on the same problem
files, the same step cap and action-failure setting; the simulated success per
split is then judged against the released run's success per split, as
``pgt fidelity`` judges it against the paper (:func:`benchmarks.fidelity.judge`:
within 2 SEM of the difference, each split's SEM floored at one success in n).

The command accumulates: each run's simulation lives in ``OUT/RUN/SPLIT`` (a
study that resumes), and once every split of a run is simulated ``OUT/RUN/released.json``
names the released run it is judged against; the table in
``OUT/fidelity-released.md`` covers every run so recorded in ``OUT``, so the 79
released runs can be measured a few at a time into one table.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from benchmarks.fidelity import K_SEM, Estimate, Verdict, combine, judge
from benchmarks.store import collect, read_records
from toolkit.errors import PgtError

SPLITS = ("simple", "medium", "hard")
# ViPlan's household runs met iGibson, not the household domain's effects: simulate them in the world that follows
# iGibson's logged truth (reach by proximity, the atoms iGibson reports), scene_graphs/igibson.py
IGIBSON_WORLD = "scene_graphs.igibson:IGibsonHouseholdWorld"


@dataclass(frozen=True)
class ReleasedResult:
    run: str
    calibration: Path
    noise: str
    splits: dict[str, Verdict]
    combined: Verdict


def _success(records: Sequence[dict[str, Any]]) -> Estimate:
    from benchmarks.metrics import success

    p, sem, n = success(records)
    return Estimate.of_split(p, sem, n)


def studies(run: Path, calibration: Path, seeds: int) -> list[tuple[str, Any]]:
    """One simulated study per split of an imported run: ViPlan's problem folder, cap, failures, and
    ``seeds`` simulated episodes per released episode of each problem (:func:`per_problem`)."""
    from benchmarks.study_config import RunConfig

    records = collect(read_records(run / "episodes.jsonl")).judged
    if not records or not isinstance(records[0].get("imported"), dict):
        raise PgtError(f"{run}: not an imported ViPlan run (pgt import viplan-results writes those)")
    if records[0]["config"]["protocol"] != "viplan-grounder":
        raise PgtError(f"{run}: a grounder run is needed (calibrations describe grounders)")
    out = []
    for split in SPLITS:
        mine = [r for r in records if r["split"] == split]
        if not mine:
            continue
        first = mine[0]
        suite = Path(first["config"]["suite"])
        folder = suite if suite.name == split else suite / split
        counts = {problem: n * seeds for problem, n in Counter(r["problem"] for r in mine).items()}
        config = RunConfig(suite=str(folder), domain=first["config"]["domain"], protocol="viplan-grounder",
                           grounder="noisy", calibration=str(calibration), seeds=max(counts.values()),
                           max_steps=int(first["imported"]["max_steps"]),
                           action_failure=float(first["imported"].get("fail_probability") or 0.0),
                           world=IGIBSON_WORLD if "/igibson/" in first["imported"]["file"] else None)
        out.append((split, per_problem(config, counts)))
    return out


def per_problem(config: Any, counts: dict[str, int]) -> Any:
    """``config`` running ``counts[stem]`` seeds of each problem and no other problem.

    ViPlan's household runs play a problem once per scene instance its split's
    ``metadata.json`` lists (``scene_instance_pairs``: 2 to 7 per problem;
    viplan/experiments/benchmark_igibson_vila.py and benchmark_igibson_plan.py, ``main``:
    ``for scene_id, instance_id in scene_instance_pairs``), which the importer records as
    seeds 0, 1, ... of the problem; a released run cut short has fewer. Simulating every
    problem with the largest count would weigh problems otherwise than the released split.
    Where the counts are the same for every problem of the folder (every Blocksworld run, one
    episode per problem; the household simple split) the config stays the plain
    ``seeds = n`` one, so studies measured before per-problem seeds resume unchanged.
    """
    from benchmarks.study_config import episode_specs

    everything = {Path(spec.problem).stem for spec in episode_specs(config)}
    if set(counts) == everything and len(set(counts.values())) == 1:
        return config
    return dataclasses.replace(config, seeds_per_problem=tuple(sorted(counts.items())))


def wanted_ids(run: Path, calibration: Path, seeds: int) -> dict[str, set[str]]:
    """Per split, the ids of the simulated episodes that stand for ``run``'s (a study folder may hold more:
    one simulated before per-problem seeds ran the largest count for every problem)."""
    from benchmarks.study_config import episode_specs

    return {split: {spec.id for spec in episode_specs(config)} for split, config in studies(run, calibration, seeds)}


def evaluate_run(run: Path, calibration: Path, simulated: dict[str, list[dict[str, Any]]]) -> ReleasedResult:
    """Verdicts per split (and combined) of the simulated success against the released run's."""
    released = collect(read_records(run / "episodes.jsonl")).judged
    verdicts = {}
    for split, recs in simulated.items():
        verdicts[split] = judge(_success(recs), _success([r for r in released if r["split"] == split]))
    combined = judge(combine([v.simulated for v in verdicts.values()]),
                     combine([v.paper for v in verdicts.values()]))
    noise = next(iter(simulated.values()))[0]["config"].get("noise", "") if simulated else ""
    return ReleasedResult(run.name, calibration, str(noise), verdicts, combined)


def finished(study: Path, wanted: set[str] | None = None) -> list[dict[str, Any]]:
    """The judged episodes of one simulated split (those whose id is in ``wanted``, when given);
    an error naming the study when none finished."""
    episodes = collect(read_records(study / "episodes.jsonl"))
    judged = [r for r in episodes.judged if wanted is None or r["id"] in wanted]
    if not judged:
        errors = [r for r in episodes.errors if wanted is None or r.get("id") in wanted]
        first = errors[0].get("error", "") if errors else "no episode recorded"
        raise PgtError(f"{study}: no simulated episode finished ({len(errors)} errors, the first: "
                       f"{first}); run the same command again to retry them")
    return judged


def recorded(out: Path) -> list[ReleasedResult]:
    """Every run simulated to the end in ``out`` (this invocation's and earlier ones'), judged, by name."""
    results = []
    for marker in sorted(out.glob("*/released.json")):
        source = json.loads(marker.read_text(encoding="utf-8"))
        released = Path(source["released"])
        if not (released / "episodes.jsonl").is_file():
            raise PgtError(f"{marker}: the released run {released} is gone; import it again "
                           "(pgt import viplan-results) or remove the folder")
        calibration = Path(source["calibration"])
        wanted = wanted_ids(released, calibration, int(source.get("seeds", 1)))
        simulated = {split: finished(marker.parent / split, wanted.get(split, set())) for split in source["splits"]}
        results.append(evaluate_run(released, calibration, simulated))
    return results


def tally(results: Sequence[ReleasedResult]) -> str:
    """One line: how many runs and splits were measured, how many splits are within the verdict's width."""
    splits = [v for r in results for v in r.splits.values()]
    return (f"{len(results)} released runs measured: {sum(v.within for v in splits)} of {len(splits)} splits "
            f"within {K_SEM:g} SEM ({sum(r.combined.within for r in results)} of {len(results)} runs combined).")


def markdown(results: Sequence[ReleasedResult]) -> str:
    lines = [f"| released run | split | episodes sim / released | simulated (SEM) | released (SEM) | z | "
             f"within {K_SEM:g} SEM |", "|---|---|---:|---:|---:|---:|:---:|"]
    for r in results:
        for split, v in [*r.splits.items(), ("combined", r.combined)]:
            lines.append(f"| {r.run} | {split} | {v.simulated.n} / {v.paper.n} | {v.simulated.mean:.2f} "
                         f"({v.simulated.sem:.2f}) | {v.paper.mean:.2f} ({v.paper.sem:.2f}) | {v.z:+.1f} | "
                         f"{'yes' if v.within else '**no**'} |")
    return "\n".join(lines) + "\n"


def released_cmd(args: Any) -> int:
    """``pgt fidelity --released RUN ...``: fit, simulate on ViPlan's problems, judge per split."""
    from benchmarks.runner import run_study
    from benchmarks.study_config import episode_specs
    from benchmarks.viplan_calibrate import fit_run

    out = Path(args.out)
    for run in map(Path, args.released):
        calibration = fit_run(run, out / "calibrations")
        splits = []
        for split, config in studies(run, calibration, args.seeds):
            if args.noise:
                config = dataclasses.replace(config, noise=args.noise)
            run_study(config, out / run.name / split, max(1, args.workers), progress=not args.quiet)
            # a split whose episodes all failed is not recorded as measured
            finished(out / run.name / split, {spec.id for spec in episode_specs(config)})
            splits.append(split)
        (out / run.name).mkdir(parents=True, exist_ok=True)
        source = {"released": str(run.resolve()), "calibration": str(calibration.resolve()), "splits": splits,
                  "seeds": args.seeds}
        (out / run.name / "released.json").write_text(json.dumps(source, indent=1) + "\n", encoding="utf-8")
    results = recorded(out)
    text = markdown(results) + "\n" + tally(results) + "\n"
    note = (f"Simulated success (viplan-grounder, noisy grounder under the calibration fitted from each run's answers, "
            f"on ViPlan's own problem files) against the released run's. Within {K_SEM:g} SEM: |sim - released| <= "
            f"{K_SEM:g} sqrt(SEM_sim^2 + SEM_released^2); a split's SEM is floored at one success in n.")
    (out / "fidelity-released.md").write_text(f"{note}\n\n{text}", encoding="utf-8")
    print(text + "\n" + note + f"\nfidelity: {out / 'fidelity-released.md'}")
    outside = [r.run for r in results if not r.combined.within]
    return 1 if args.check and outside else 0
