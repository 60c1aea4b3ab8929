"""Replay every released ViPlan run through pgt's ``viplan-*`` protocols and measure the agreement.

Run: ``python -m benchmarks.bench_viplan_replay --viplan PATH [--domain blocksworld] [--protocol viplan-grounder]
[--models gpt-4.1,InternVL3-8B] [--runs final_cot] [--list 20] [--workers 1] [--out DIR]``

``PATH`` (or the ``PGT_VIPLAN`` environment variable) is a ViPlan checkout, or the
bare snapshot the ``fetch`` tool brings (its ``data/planning`` and ``results/final``
are extracted to a temporary folder). Each released result file is imported
(``pgt import viplan-results``) and replayed with ``--grounder replay`` on ViPlan's
own problem and domain files, one study per split, exactly as the commands
``pgt import`` prints would. Per domain x protocol x CoT x model it prints: episodes,
outcome agreement, question-count agreement (grounder) or step-count agreement
(planner), replay gaps (pgt asked what the log never answered) and crashes; then
each disagreement with its first diverging event. The issue's targets: >= 99%
outcomes, >= 95% question counts, >= 99% step counts, 0 crashes.

Every replay meets ViPlan's environment as the log recorded it
(:class:`toolkit.replayed_world.ReplayedWorld`): which actions ran, iGibson's
true values, and the failures of the runs with ``fail_probability`` 0.1
(``final_fail01_no_cot``), so those runs count toward the targets like the rest.
UP's plans are kept in up-oneshot's shared answer store (``--plan-cache`` names
another file), keyed by the files' bytes, the belief and the engine versions, so a
rerun plans nothing twice. ``--up-python`` plans in another interpreter
(``PGT_UP_ONESHOT_PYTHON``); pgt pins ``up-fast-downward`` 0.5.0, the engine ViPlan's
runs were planned by, so this interpreter's plans are ViPlan's (toolkit/planners/up_oneshot_call.py).

With ``--out DIR`` the measurement accumulates: each finished group (domain x
protocol x CoT x failures x model) is kept as ``DIR/rows/NAME.json`` with the
engine versions and the digest of pgt's replay code (:data:`REPLAY_CODE`) it was
measured with, and a rerun with the same ``DIR``, engines and code reuses it;
``--budget-minutes`` stops starting new groups after that long.
So the whole release (hours on two cores) can be measured over several sessions;
the totals always cover every kept group, and say how many of the selected
groups are still unmeasured.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import shutil
import re
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.runner import run_study  # noqa: E402
from benchmarks.store import collect, read_records  # noqa: E402
from benchmarks.study_config import RunConfig  # noqa: E402
from benchmarks.viplan_episodes import UNLOGGED_ANSWER  # noqa: E402
from benchmarks import viplan_bddl  # noqa: E402
from benchmarks.viplan_fidelity import per_problem  # noqa: E402
from benchmarks.viplan_import import ImportedRun, import_results  # noqa: E402
from benchmarks.viplan_logs import find_logs, read_log  # noqa: E402

TARGETS = {"outcome": 0.99, "questions": 0.95, "steps": 0.99}
ROOT = Path(__file__).resolve().parents[1]
# the code that decides what a replay does: a kept row measured with other versions of it is measured again
REPLAY_CODE = ("benchmarks/viplan_episodes.py", "benchmarks/viplan_import.py", "benchmarks/viplan_logs.py",
               "benchmarks/viplan_problem_version.py", "benchmarks/viplan_bddl.py", "toolkit/replayed_world.py",
               "toolkit/agents/viplan.py", "toolkit/agents/viplan_atoms.py", "toolkit/agents/viplan_goals.py",
               "toolkit/agents/vlm_planner.py", "grounders/replay.py", "toolkit/planners/up_oneshot.py",
               "toolkit/planners/up_oneshot_call.py")


def replay_code_digest() -> str:
    """A digest of :data:`REPLAY_CODE`'s bytes: part of a kept row's key, beside the engine versions."""
    digest = hashlib.sha256()
    for name in REPLAY_CODE:
        path = ROOT / name
        digest.update(name.encode() + b"\0" + (path.read_bytes() if path.is_file() else b"") + b"\0")
    return digest.hexdigest()[:16]


def checkout(path: str) -> Path:
    """A folder with ViPlan's ``data/planning`` and ``results/final``: the checkout, or the bare snapshot extracted."""
    root = Path(path).resolve()  # absolute: each group's result files are linked from another folder
    if (root / "data" / "planning").is_dir():
        return root
    if (root / "HEAD").is_file() and (root / "objects").is_dir():
        target = Path(tempfile.mkdtemp(prefix="viplan-"))
        archive = subprocess.run(["git", "-C", str(root), "archive", "HEAD", "data/planning", "results/final"],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
        return target
    raise SystemExit(f"{path}: neither a ViPlan checkout (data/planning) nor a bare git snapshot")


def add_planner_options(ap: argparse.ArgumentParser) -> None:
    """The options of the ViPlan benchmarks that choose where up-oneshot plans and keeps its answers."""
    ap.add_argument("--plan-cache", help="up-oneshot's answer store file, or off (default: the shared one, "
                    "$PGT_UP_PLAN_STORE or the user cache's)")
    ap.add_argument("--up-python", help="plan in this interpreter (PGT_UP_ONESHOT_PYTHON), e.g. one with "
                    "unified-planning 1.2.0 and up-fast-downward 0.5.0 as ViPlan's runs had")


def use_planner_options(ap: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Check ``--viplan`` and hand :func:`add_planner_options`' choices to up-oneshot (it reads the environment)."""
    if not args.viplan:
        ap.error("give --viplan PATH or set PGT_VIPLAN")
    if args.plan_cache:
        os.environ["PGT_UP_PLAN_STORE"] = args.plan_cache
    if args.up_python:
        os.environ["PGT_UP_ONESHOT_PYTHON"] = args.up_python


@dataclass
class Row:
    episodes: int = 0
    outcome: int = 0
    counts: int = 0  # question counts (grounder) or step counts (planner) that agree
    gaps: int = 0
    crashes: int = 0
    seconds: float = 0.0
    disagreements: list[str] = field(default_factory=list)
    engines: str = ""  # the planner's engine versions the row was measured with
    code: str = ""  # replay_code_digest() when it was measured

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(dataclasses.asdict(self)))
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path, engines: str, code: str | None = None) -> Row | None:
        """The kept row, if there is one measured with these engines and this replay code."""
        try:
            row = cls(**json.loads(path.read_text()))
        except (OSError, ValueError, TypeError):
            return None
        return row if row.engines == engines and (code is None or row.code == code) else None


def _norm_action(text: str) -> str:
    """``moveblock(r, c3)`` and ``(moveBlock R C3)`` alike: ``moveblock r c3``."""
    text = text.strip().lower()
    hit = re.fullmatch(r"([\w-]+)\((.*)\)", text)
    if hit:
        return " ".join([hit[1], *(a.strip() for a in hit[2].split(",") if a.strip())])
    return " ".join(text.strip("()").split())


def _trace(record: dict[str, Any]) -> list[str]:
    """The events two runs of one episode must share: questions asked (with answers) and actions tried."""
    out = []
    for e in record.get("events", ()):
        phase = e.get("phase")
        if "atom" in e:
            out.append(f"{phase} {e['atom']} -> {e.get('answer')}")
        elif phase == "act":
            ran = e.get("executed", e.get("success"))  # pgt's key, or ViPlan's (the viplan-planner protocol)
            out.append(f"act {_norm_action(str(e.get('action', '')))} ran={bool(ran)}")
        elif phase == "propose":
            out.append(f"propose #{e.get('step')}")
    return out


def first_divergence(logged: dict[str, Any], replayed: dict[str, Any]) -> str:
    a, b = _trace(logged), _trace(replayed)
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"event {i}: ViPlan {x!r}, pgt {y!r}"
    if len(a) != len(b):
        longer, who = (a, "ViPlan") if len(a) > len(b) else (b, "pgt")
        return f"event {min(len(a), len(b))}: only {who} goes on, with {longer[min(len(a), len(b))]!r}"
    return "same events; " + f"stop ViPlan {logged.get('stop_reason')}, pgt {replayed.get('stop_reason')}"


def replay(run: ImportedRun, index: int, out: Path, workers: int, planner: str) -> list[dict[str, Any]]:
    """Replay split ``index`` of an imported run, as ``pgt run --grounder replay`` on ViPlan's files does."""
    first, log = run.logs[0], run.logs[index]
    scenes: dict[str, int] = defaultdict(int)
    for ep in log.episodes:
        scenes[ep.problem] += 1
    replay_from = str(run.folder / "answers.jsonl") if first.protocol == "viplan-grounder" else str(run.folder)
    config = RunConfig(suite=run.suites[index], domain=run.domain_file, protocol=first.protocol, grounder="replay",
                       replay=replay_from, max_steps=log.max_steps, seeds=max(scenes.values()),
                       action_failure=first.fail_probability, planner=planner)
    # only the logged episodes: a household problem is played 2-7 times (viplan_fidelity.per_problem)
    counts = {Path(problem).stem: n for problem, n in scenes.items()}
    episodes = run_study(per_problem(config, counts), out, workers=workers, progress=False)
    return collect(read_records(episodes)).all


def compare(run: ImportedRun, split: str, replayed: list[dict[str, Any]], row: Row) -> None:
    logged = {r["id"]: r for r in collect(read_records(run.folder / "episodes.jsonl")).judged if r["split"] == split}
    by_id = {r["id"]: r for r in replayed}
    grounder = run.logs[0].protocol == "viplan-grounder"
    for eid, want in logged.items():
        got = by_id.get(eid)
        row.episodes += 1
        if got is None or got.get("outcome") == "error":
            kind = (got or {}).get("error_kind", "missing")
            row.gaps += kind == "replay"
            row.crashes += kind not in ("replay",)
            row.disagreements.append(f"{eid}: {kind} error: {(got or {}).get('error', 'not replayed')[:300]}")
            continue
        same_outcome = got["outcome"] == want["outcome"]
        key = "questions" if grounder else "actions"
        same_count = _count(got, key) == want.get(key)
        row.outcome += same_outcome
        row.counts += same_count
        if not (same_outcome and same_count):
            row.disagreements.append(
                f"{eid}: ViPlan {want['outcome']} ({want['stop_reason']}, {want.get(key)} {key}), pgt "
                f"{got['outcome']} ({got.get('stop_reason')}, {got.get(key)} {key}); "
                f"first divergence {first_divergence(want, got)}")


def _count(record: dict[str, Any], key: str) -> int | None:
    """``questions`` as ViPlan's log could hold them: less those a wildcard answered (ViPlan never logged them)."""
    if key != "questions" or record.get(key) is None:
        return record.get(key)
    return record[key] - sum(1 for e in record.get("events", ())
                             if str(e.get("raw", "")).startswith(UNLOGGED_ANSWER))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--viplan", default=os.environ.get("PGT_VIPLAN"), help="ViPlan checkout or bare snapshot")
    ap.add_argument("--domain", choices=("blocksworld", "igibson"))
    ap.add_argument("--protocol", choices=("viplan-grounder", "viplan-planner"))
    ap.add_argument("--runs", help="comma-separated ViPlan run folders (final_cot, final_no_cot, final_fail01_no_cot)")
    ap.add_argument("--models", help="comma-separated model names (default: all)")
    ap.add_argument("--planner", default="up-oneshot", help="the replay's planner (pgt run --planner; default: "
                    "up-oneshot, as ViPlan)")
    add_planner_options(ap)
    ap.add_argument("--bddl", default=os.environ.get(viplan_bddl.ENV), help="StanfordVL/bddl checkout or bare "
                    "snapshot: the household problems' hidden initial state, the BEHAVIOR activity's :init "
                    f"(default: ${viplan_bddl.ENV})")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--budget-minutes", type=float, help="start no new group after this many minutes")
    ap.add_argument("--list", type=int, default=20, help="disagreements listed per row (0: none, -1: all)")
    ap.add_argument("--out", help="keep the runs and each finished group's row here, and reuse them on a rerun "
                    "(default: a temporary folder)")
    args = ap.parse_args(argv)
    use_planner_options(ap, args)
    if args.bddl:
        if not Path(args.bddl).is_dir():
            ap.error(f"--bddl {args.bddl}: no such folder (a StanfordVL/bddl checkout or bare snapshot)")
        os.environ[viplan_bddl.ENV] = args.bddl  # read where the household episodes are imported
    engines, code = _engines(args.planner), replay_code_digest() + ("+bddl" if args.bddl else "")
    root = checkout(args.viplan)
    if args.domain != "blocksworld":
        unread = viplan_bddl.unread_problems(root / "data" / "planning" / "igibson", args.bddl)
        if unread:
            print(f"hidden initial state not read (no --bddl snapshot holds its activity) for {len(unread)} "
                  f"household problems: {', '.join(unread)}", flush=True)
    work = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="viplan-replay-"))
    files = [f for f in find_logs(root / "results" / "final") if _wanted(f, args)]
    groups: dict[tuple, list[Path]] = defaultdict(list)
    for f in files:
        groups[read_log(f).group].append(f)
    rows: dict[tuple, Row] = {}
    began, skipped = time.perf_counter(), 0
    print(f"planner {args.planner}: {engines}; replay code {code}", flush=True)
    for group, members in sorted(groups.items(), key=lambda kv: tuple(map(str, kv[0]))):
        name = _name(group)
        kept = Row.load(work / "rows" / f"{name}.json", engines, code)
        if kept is not None:
            rows[group] = kept
            print(_line(group, kept) + "  [kept]", flush=True)
            continue
        if args.budget_minutes is not None and time.perf_counter() - began > 60 * args.budget_minutes:
            skipped += 1
            continue
        rows[group] = measure(group, members, root, work, args)
        rows[group].engines, rows[group].code = engines, code
        rows[group].save(work / "rows" / f"{name}.json")
        print(_line(group, rows[group]), flush=True)
    _summary(rows, args.list, groups)
    if skipped:
        print(f"\n{skipped} of {len(groups)} selected groups not measured yet (--budget-minutes); rerun with "
              f"--out {work} to go on")
    print(f"\n(runs kept in {work})" if args.out else "")
    return 0


def _name(group: tuple) -> str:
    domain, protocol, cot, fail, model = group
    return f"{domain}-{protocol}-{'cot' if cot else 'nocot'}{'-fail' if fail else ''}-{model}"


def _engines(planner: str) -> str:
    """What the replay plans with: the planner's name, and for up-oneshot its engine versions."""
    if planner != "up-oneshot":
        return planner
    from toolkit.planners.up_oneshot import UpOneshotPlanner

    return f"{planner} {UpOneshotPlanner(store=None).engines}"


def measure(group: tuple, members: list[Path], root: Path, work: Path, args: argparse.Namespace) -> Row:
    """Import one group's released files and replay every split (afresh: a half-done group is redone)."""
    name, row, start = _name(group), Row(), time.perf_counter()
    staging = work / "logs" / name
    for folder in (staging, work / "imported" / name, work / "replayed" / name):
        shutil.rmtree(folder, ignore_errors=True)
    staging.mkdir(parents=True)
    for f in members:
        (staging / f"results_{f.parent.parent.name}_{f.name.removeprefix('results_')}").symlink_to(f)
    [run] = import_results(staging, work / "imported" / name, viplan=str(root))
    for index, log in enumerate(run.logs):
        replayed = replay(run, index, work / "replayed" / name / log.split, args.workers, args.planner)
        compare(run, log.split, replayed, row)
    row.seconds = time.perf_counter() - start
    return row


def _wanted(path: Path, args: argparse.Namespace) -> bool:
    parts = path.parts
    if args.domain and args.domain not in parts:
        return False
    if args.protocol and ("predicates" if args.protocol == "viplan-grounder" else "vila") not in parts:
        return False
    if args.runs and not set(args.runs.split(",")) & set(parts):
        return False
    return not args.models or path.parent.name in args.models.split(",")


def _pct(n: int, d: int) -> str:
    return f"{100 * n / d:5.1f}%" if d else "  n/a "


def _line(group: tuple, row: Row) -> str:
    domain, protocol, cot, fail, model = group
    kind = "questions" if protocol == "viplan-grounder" else "steps"
    return (f"{domain:11} {protocol:15} {'cot' if cot else 'nocot':5} {'fail' if fail else '':4} {model:36} "
            f"{row.episodes:5} outcome {_pct(row.outcome, row.episodes)} {kind} {_pct(row.counts, row.episodes)} "
            f"gaps {row.gaps:4} crashes {row.crashes:3} ({row.seconds:.0f} s) {'met' if _met(protocol, row) else 'NOT met'}")


def _met(protocol: str, row: Row) -> bool:
    """The issue's targets on a row: outcomes >= 99%, counts >= 95% (grounder) / 99% (planner), no crash."""
    target = TARGETS["questions" if protocol == "viplan-grounder" else "steps"]
    n = row.episodes
    return bool(n) and row.outcome / n >= TARGETS["outcome"] and row.counts / n >= target and row.crashes == 0


def _summary(rows: dict[tuple, Row], listed: int, selected: dict[tuple, Any] | None = None) -> None:
    """Per protocol x domain and in total: groups measured, episodes, outcomes, counts, gaps, crashes, targets."""
    selected = selected if selected is not None else rows
    print("\nTotals (targets: outcome >= 99%, question counts >= 95% (grounder), step counts >= 99% (planner), "
          "0 crashes):")
    print(f"  {'protocol':15} {'domain':11} {'groups':>7} {'episodes':>8} {'outcomes':>8} {'questions':>9} "
          f"{'steps':>7} {'gaps':>5} {'crashes':>7}  targets")
    for protocol, kind in (("viplan-grounder", "questions"), ("viplan-planner", "steps")):
        for domain in ("blocksworld", "igibson", None):
            sel = [r for g, r in rows.items() if g[1] == protocol and domain in (None, g[0])]
            chosen = sum(1 for g in selected if g[1] == protocol and domain in (None, g[0]))
            n = sum(r.episodes for r in sel)
            if not n:
                continue
            out, cnt = sum(r.outcome for r in sel), sum(r.counts for r in sel)
            gaps, crashes = sum(r.gaps for r in sel), sum(r.crashes for r in sel)
            met = _met(protocol, Row(n, out, cnt, gaps, crashes))
            questions, steps = (_pct(cnt, n), "") if kind == "questions" else ("", _pct(cnt, n))
            print(f"  {protocol:15} {domain or 'all':11} {f'{len(sel)}/{chosen}':>7} {n:8} {_pct(out, n):>8} "
                  f"{questions:>9} {steps:>7} {gaps:5} {crashes:7}  {'met' if met else 'NOT met'}")
    n = sum(r.episodes for r in rows.values())
    if n:
        out, crashes = sum(r.outcome for r in rows.values()), sum(r.crashes for r in rows.values())
        gaps = sum(r.gaps for r in rows.values())
        print(f"  {'every protocol':15} {'all':11} {f'{len(rows)}/{len(selected)}':>7} {n:8} {_pct(out, n):>8} "
              f"{'':>9} {'':>7} {gaps:5} {crashes:7}  groups meeting their targets "
              f"{sum(_met(g[1], r) for g, r in rows.items())} of {len(rows)}")
    if listed:
        print("\nDisagreements (first diverging event):")
        for group, row in rows.items():
            shown = row.disagreements if listed < 0 else row.disagreements[:listed]
            for text in shown:
                print(f"  {group[0]} {group[1]} {'cot' if group[2] else 'nocot'} {group[4]}: {text}")
            if len(row.disagreements) > len(shown):
                print(f"  ... and {len(row.disagreements) - len(shown)} more in this row")


if __name__ == "__main__":
    sys.exit(main())
