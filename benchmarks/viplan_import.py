"""``pgt import viplan-results PATH --out RUN``: ViPlan's released runs as pgt run folders.

Each ViPlan result JSON (one model x CoT x split x protocol) becomes episodes of a
pgt run folder that ``pgt report`` reads: one episode per ViPlan episode, with its
outcome, stop reason, questions, answers and true values, actions and replans,
marked ``imported`` (ViPlan's model, CoT, split, failure probability, protocol and
file). Grounder runs also get ``answers.jsonl`` (:class:`grounders.records.AnswerRecord`
lines), so ``pgt run --grounder replay --replay RUN/answers.jsonl`` on ViPlan's own
problem files replays the run; planner runs replay from the folder itself.

A folder of results is searched recursively; the files of one domain x protocol x
CoT x failure probability x model (its splits) make one run folder. When PATH holds
more than one such run, each gets its own folder under RUN.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.store import SCHEMA, Appender, StudyLock, write_config
from benchmarks.viplan_episodes import Walk, grounder_episode, planner_episode
from benchmarks.viplan_logs import ViPlanLog, find_logs, read_log
from toolkit.errors import PgtError


@dataclass(frozen=True)
class ImportedRun:
    folder: Path
    logs: tuple[ViPlanLog, ...]
    episodes: int
    answers: int
    truth_mismatches: int
    suites: tuple[str, ...]  # the problem folders a replay runs, one per split
    domain_file: str
    skipped: tuple[Path, ...] = ()  # earlier releases of a split that a later job replaced


def find_viplan_root(path: Path, given: str | None) -> Path:
    """ViPlan's checkout (the folder holding ``data/planning``): ``--viplan``, else an ancestor of PATH."""
    if given:
        root = Path(given)
        if not (root / "data" / "planning").is_dir():
            raise PgtError(f"--viplan {given}: not a ViPlan checkout (no data/planning folder in it)")
        return root
    for folder in [path.resolve(), *path.resolve().parents]:
        if (folder / "data" / "planning").is_dir():
            return folder
    raise PgtError(f"{path}: cannot find ViPlan's problem files (data/planning) above it; "
                   "give the ViPlan checkout with --viplan DIR")


def import_results(path: str | Path, out: str | Path, viplan: str | None = None) -> list[ImportedRun]:
    """Convert every ViPlan result file at ``path``; returns the run folders written."""
    files = find_logs(path)
    logs = [read_log(f) for f in files]
    root = find_viplan_root(Path(path), viplan)
    groups: dict[tuple, list[ViPlanLog]] = {}
    for log in logs:
        groups.setdefault(log.group, []).append(log)
    out = Path(out)
    runs = []
    for members in groups.values():
        folder = out if len(groups) == 1 else out / members[0].group_name()
        kept, skipped = latest_per_split(members)
        runs.append(dataclasses.replace(_write_run(folder, kept, root), skipped=tuple(skipped)))
    return runs


def latest_per_split(logs: list[ViPlanLog]) -> tuple[list[ViPlanLog], list[Path]]:
    """One file per split: the latest job where a run was released twice (the later one is the rerun).

    ViPlan released two complete Molmo-7B CoT Blocksworld simple runs (jobs 7068688 and
    7092963, "added missing molmo run"); its tables (results/tables/blocksworld_pred_full.csv,
    accuracy 0.77) are those of the later job.
    """
    best: dict[str, ViPlanLog] = {}
    skipped = []
    for log in sorted(logs, key=_job):
        if log.split in best:
            skipped.append(best[log.split].path)
        best[log.split] = log
    return list(best.values()), skipped


def _job(log: ViPlanLog) -> tuple[int, ...]:
    text = str(log.metadata.get("job_id") or log.path.stem.removeprefix("results_"))
    return tuple(int(n) for n in re.findall(r"\d+", text)) or (0,)


def _write_run(folder: Path, logs: list[ViPlanLog], root: Path) -> ImportedRun:
    from benchmarks.study_config import RunConfig
    from grounders.records import RecordWriter

    logs = sorted(logs, key=lambda x: ("simple", "medium", "hard").index(x.split))
    first = logs[0]
    splits = [log.split for log in logs]
    if len(set(splits)) != len(logs):
        raise PgtError(f"{first.path.parent}: two result files of the same split for {first.group_name()}: "
                       + ", ".join(str(log.path) for log in logs))
    domain_file = root / "data" / "planning" / first.domain / "domain.pddl"
    problems = _problems_run(logs, root, domain_file, folder)
    suites = tuple(str(problems[log.episodes[0].problem].parent) for log in logs)
    suite = suites[0] if len(suites) == 1 else str(Path(suites[0]).parent)
    config = RunConfig(suite=suite, protocol=first.protocol, grounder="vlm", model=first.model, cot=first.cot,
                       action_failure=first.fail_probability, domain=str(domain_file),
                       max_steps=first.max_steps if len(logs) == 1 else None)
    folder.mkdir(parents=True, exist_ok=True)
    episodes_file = folder / "episodes.jsonl"
    if episodes_file.exists() and episodes_file.stat().st_size:
        raise PgtError(f"{folder} already holds episodes; import into another --out")
    answers_file = folder / "answers.jsonl"
    if answers_file.exists():
        answers_file.unlink()  # an earlier import stopped before writing episodes: start afresh
    writer = RecordWriter(answers_file) if first.protocol == "viplan-grounder" else None
    count = answers = mismatches = 0
    with StudyLock(folder):
        write_config(folder / "config.json", {**config.to_dict(), "imported_from": "viplan"})
        with Appender(episodes_file) as sink:
            for log in logs:
                for record, records in _records(log, root, problems, config, domain_file):
                    sink.write(record)
                    if records:
                        writer.write_all(records)  # type: ignore[union-attr]
                    count += 1
                    answers += len(records)
                    mismatches += record.get("truth_mismatches", 0)
    return ImportedRun(folder, tuple(logs), count, answers, mismatches, suites, str(domain_file))


def _shown(path: Path, root: Path) -> str:
    """A result file as ViPlan's checkout names it (``results/final/...``) when it lies inside the checkout."""
    real = path.resolve()
    try:
        return real.relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(real)


def _problems_run(logs: list[ViPlanLog], root: Path, domain_file: Path, folder: Path) -> dict[str, Path]:
    """The problem file each episode's problem (as ViPlan names it) ran: the snapshot's, or where a
    household grounder run's action checks name objects the snapshot's file lacks, the file with them
    declared (:mod:`benchmarks.viplan_problem_version`), written with its split's other files and
    ``metadata.json`` to ``folder/problems/SPLIT`` so the replay runs that folder."""
    from benchmarks.viplan_problem_version import missing_objects, run_objects, with_objects
    from toolkit.loader import load_domain, load_problem

    files = {ep.problem: root / ep.problem for log in logs for ep in log.episodes}
    for log in logs:
        for ep in log.episodes:
            if not files[ep.problem].is_file():
                raise PgtError(f"{log.path}: episode {ep.key!r}: no problem file {files[ep.problem]}")
    if logs[0].domain != "igibson" or logs[0].protocol != "viplan-grounder":
        return files  # Blocksworld's simulator and the planner protocol name no objects of their own
    domain = load_domain(domain_file)
    rewritten: dict[str, str] = {}
    for name, path in files.items():
        uses = run_objects(ep.data for log in logs for ep in log.episodes if ep.problem == name)
        extra = missing_objects(domain, load_problem(path, domain).objects, uses)
        if extra:
            rewritten[name] = with_objects(path.read_text(), extra, str(path))
    if not rewritten:
        return files
    for name in files:  # every split's folder, so the run's suite is one folder of splits
        source = files[name]
        target = folder / "problems" / source.parent.name / source.name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(rewritten.get(name) or source.read_text())
        if (source.parent / "metadata.json").is_file():
            (target.parent / "metadata.json").write_text((source.parent / "metadata.json").read_text())
        files[name] = target
    return files


def _records(log: ViPlanLog, root: Path, problems: dict[str, Path], config: Any, domain_file: Path):
    """(record, answer records) per episode of ``log``; household scene instances are seeds 0, 1, ..."""
    from benchmarks.episode import episode_task
    from benchmarks.viplan_bddl import hidden_init

    seeds: dict[str, int] = {}
    label = f"{config.label()} (ViPlan log)"
    for ep in log.episodes:
        problem_file = problems[ep.problem]
        seed = seeds[ep.problem] = seeds.get(ep.problem, -1) + 1
        stem = Path(ep.problem).stem
        episode_id = f"{log.split}/{stem}/seed{seed}"
        task = episode_task(str(domain_file), str(problem_file))
        # ViPlan's household world (iGibson) shows part of the state; its Blocksworld simulator all of it
        walk = Walk(task, episode_id, log.model, partial=log.domain == "igibson")
        if log.domain == "igibson":
            walk.hidden_init(hidden_init(task, problem_file))
        try:
            fields = (grounder_episode if log.protocol == "viplan-grounder" else planner_episode)(log, ep, walk)
        except PgtError as exc:
            raise PgtError(f"{log.path}: episode {ep.key!r}: {exc}") from None
        record = {"schema": SCHEMA, "id": episode_id, "suite": config.suite, "split": log.split, "problem": stem,
                  "seed": seed, "label": label, "config": config.to_dict(), **fields,
                  "prompt_tokens": 0, "completion_tokens": 0, "seconds": 0.0,
                  "imported": {"from": "viplan", "file": _shown(log.path, root), "key": ep.key, "scene": ep.scene,
                               "model": log.metadata.get("model_name") or log.metadata.get("model"),
                               "cot": log.cot, "split": log.split, "fail_probability": log.fail_probability,
                               "protocol": log.viplan_protocol, "job_id": log.metadata.get("job_id"),
                               "max_steps": log.max_steps, "prompt_path": log.metadata.get("prompt_path")}}
        record.setdefault("action_failures", 0)
        record["outcome"] = "success" if record["success"] else "failure"
        if not record["success"]:
            record["cause"] = record["stop_reason"]
        yield record, walk.answers


# ------------------------------------------------------------------ command


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("import", help="turn another system's released runs into pgt run folders")
    kinds = p.add_subparsers(dest="kind", metavar="KIND", required=True)
    v = kinds.add_parser("viplan-results", help="ViPlan's result JSONs (results/final/...) as pgt run folders")
    v.add_argument("path", help="one results_*.json, or a folder searched recursively")
    v.add_argument("--out", required=True, help="the run folder (a folder of run folders for several runs)")
    v.add_argument("--viplan", help="ViPlan's checkout, for its problem files (default: found above PATH)")
    v.set_defaults(func=import_cmd)
    from benchmarks.viplan_calibrate import register_kind

    register_kind(kinds)


def import_cmd(args: argparse.Namespace) -> int:
    for run in import_results(args.path, args.out, args.viplan):
        first = run.logs[0]
        splits = ",".join(log.split for log in run.logs)
        extra = f", {run.truth_mismatches} logged truths differ from pgt's world" if run.truth_mismatches else ""
        print(f"{run.folder}: {run.episodes} episodes of {first.model} ({first.protocol}, "
              f"{'cot' if first.cot else 'no cot'}, {splits})"
              + (f", {run.answers} answers" if first.protocol == "viplan-grounder" else "") + extra)
        for log in run.logs:
            for note in log.notes:
                print(f"  {log.path}: {note}", file=sys.stderr)
        for path in run.skipped:
            print(f"  {path}: left out, a later job of the same split is imported", file=sys.stderr)
        for index, log in enumerate(run.logs):
            out = run.folder / "replay" / log.split
            print(f"  replay {log.split}: pgt {' '.join(shlex.quote(a) for a in replay_command(run, index, str(out)))}")
    return 0


def replay_command(run: ImportedRun, index: int, out: str) -> list[str]:
    """The ``pgt run`` arguments that replay split ``index`` of ``run`` on ViPlan's problem folder."""
    first, log, suite = run.logs[0], run.logs[index], run.suites[index]
    seeds = max(_scene_counts(log).values())
    replay = str(run.folder / "answers.jsonl") if first.protocol == "viplan-grounder" else str(run.folder)
    args = ["run", "--suite", suite, "--domain", run.domain_file, "--protocol", first.protocol,
            "--grounder", "replay", "--replay", replay, "--max-steps", str(log.max_steps), "--out", out]
    if seeds > 1:
        args += ["--seeds", str(seeds)]
    if first.fail_probability:
        args += ["--action-failure", str(first.fail_probability)]
    return args


def _scene_counts(log: ViPlanLog) -> dict[str, int]:
    counts: dict[str, int] = {}
    for ep in log.episodes:
        counts[ep.problem] = counts.get(ep.problem, 0) + 1
    return counts
