"""PlanBench's published replies read by pgt: how many replies PlanBench grades correct pgt reads as valid.

Why: PlanBench (``karthikv792/LLMs-Planning``) publishes, for each dataset and model,
every reply of its plan-generation task with the plan its extractor read from it
(``extracted_llm_plan``) and VAL's verdict on that plan (``llm_correct``). pgt reads
the raw reply instead, the way a user hands it over: through the domain's action
templates (PlanBench's own, from the dataset's config ``actions``), with the object
names the prompt used as ``--objects`` (the config's ``encoded_objects``: "red block"
and "red" for Blocksworld, "object a" for Mystery Blocksworld, ``package_{}``-style
patterns for Logistics, one file per problem there). One run prints, per dataset,
model and prompt kind (English or PDDL prompt):

* the share of PlanBench-correct replies pgt reads as valid (the target is >= 98%
  on English replies, >= 99% on PDDL-prompt replies);
* the agreement of the two verdicts over every reply that has one;
* every disagreement class: a correct reply pgt finds invalid, by pgt's reason; an
  incorrect reply pgt finds valid, by how PlanBench's extracted plan differs from
  the plan pgt read (the same plan would be a validator disagreement: target 0).

``--show N`` prints N sample replies of each class (their ids and pgt's message).

Run (the snapshot is a clone of the repository, or a bare mirror read with git; it
is read, never copied into the project)::

    python -m benchmarks.bench_planbench --planbench /work/.mirror/karthikv792+LLMs-Planning/repo --jobs 2

or set ``PGT_PLANBENCH`` instead of ``--planbench``. Without either the script says
what it needs and exits 2; nothing here imports the snapshot.
"""

from __future__ import annotations

import argparse
import collections
import json
import multiprocessing
import os
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolkit.commands.validate_batch import TaskCache, english_reader
from toolkit.errors import PgtError
from toolkit.verify import check_plan

BASES = ("llm_planning_analysis", "plan-bench")  # the repository's two copies of the harness, each with results/
_RESULT = re.compile(r"^task_1_plan_generation(?P<rest>\w*)\.json$")
_LETTERS = re.compile(r"[^\d]+")


@dataclass(frozen=True)
class Dataset:
    """One PlanBench dataset: its domain, instances and the prompt's names for actions and objects."""

    name: str
    base: Path  # llm_planning_analysis/ or plan-bench/ in the snapshot
    domain: Path  # a copy in the work folder, with questions.toml (the config's action templates) beside it
    instances: Path
    template: str  # instance-{}.pddl
    objects: dict[str, tuple[str, ...]]  # object name (or name prefix, for patterns) -> the prompt's names
    pattern: bool  # Logistics-style "package_{}": a name is its prefix letter and its digits


@dataclass
class Tally:
    replies: int = 0
    correct: int = 0
    correct_valid: int = 0
    agree: int = 0
    classes: collections.Counter = field(default_factory=collections.Counter)
    shapes: collections.Counter = field(default_factory=collections.Counter)  # restated / corrected / two plans
    samples: dict[str, list[str]] = field(default_factory=dict)


def _template(text: str) -> str:
    """PlanBench's ``"unstack the {} from on top of the {}"`` with numbered slots, as pgt's templates take them."""
    count = iter(range(100))
    return re.sub(r"\{\}", lambda _: "{%d}" % next(count), text)


def load_dataset(root: Path, base: str, name: str, work: Path) -> Dataset | str:
    """The dataset's setup from its config, or why it cannot be run."""
    import yaml  # PyYAML: PlanBench's configs are YAML

    config = root / base / "configs" / f"{name}.yaml"
    if not config.is_file():
        return f"no config {config.relative_to(root)}"
    data = yaml.safe_load(config.read_text())
    domain_src = root / base / "instances" / data["domain_file"]
    if not domain_src.is_file():
        return f"no domain file {domain_src.relative_to(root)}"
    folder = work / base / name
    folder.mkdir(parents=True, exist_ok=True)
    domain = folder / "domain.pddl"
    domain.write_text(domain_src.read_text())
    actions = {k: _template(v) for k, v in (data.get("actions") or {}).items() if isinstance(v, str)}
    if actions:
        (folder / "questions.toml").write_text("[actions]\n" + "".join(
            f"{json.dumps(k)} = {json.dumps(v)}\n" for k, v in actions.items()))
    names = data.get("encoded_objects") or {}
    compact = data.get("encoded_objects_compact") or {}
    pattern = any("{}" in str(v) for v in names.values())
    objects = {k: tuple(dict.fromkeys(str(x) for x in (v, compact.get(k)) if x)) for k, v in names.items()}
    return Dataset(name, root / base, domain, root / base / "instances" / data["instance_dir"],
                   data.get("instances_template", "instance-{}.pddl"), objects, pattern)


def objects_file(ds: Dataset, work: Path, task_objects: list[str]) -> Path | None:
    """The ``--objects`` file: one for the whole dataset (names a problem lacks are ignored), or, for
    patterns, one per problem: ``l1-0`` is ``location_1_0`` as PlanBench's ``get_action_text`` writes it
    (``llm_planning_analysis/utils/task_utils.py``: the prefix letter's pattern filled with the digits)."""
    if not ds.objects:
        return None
    if not ds.pattern:
        path = work / "objects" / f"{ds.name}.toml"
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(f"{json.dumps(k)} = {json.dumps(list(v))}\n" for k, v in ds.objects.items()))
        return path
    lines = []
    for obj in task_objects:
        names = ds.objects.get(obj[:1])
        if names:
            digits = [c for c in obj if c.isdigit()]
            try:
                lines.append(f"{json.dumps(obj)} = {json.dumps([n.format(*digits) for n in names])}\n")
            except IndexError:  # the pattern wants more digits than the name has
                continue
    path = work / "objects" / ds.name / (str(abs(hash(tuple(task_objects)))) + ".toml")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(lines))
    return path


def result_files(root: Path) -> list[tuple[str, str, str, Path]]:
    """(base, dataset, model, file) of every plan-generation result file with replies."""
    out = []
    for base in BASES:
        for path in sorted((root / base / "results").glob("*/*/task_1_plan_generation*.json")):
            if _RESULT.match(path.name):
                out.append((base, path.parent.parent.name, path.parent.name, path))
    return out


def _plan_lines(text: Any) -> list[str]:
    return [" ".join(line.strip().strip("()").lower().split()) for line in str(text or "").splitlines()
            if line.strip().startswith("(")]


def _shape(report: dict[str, Any] | None) -> str:
    """How the reply holds its plan: "restated" (read once), "corrected", "two plans" or ""."""
    if report is None:
        return ""
    if report["reason"] == "two_different_plans":
        return "two plans"
    whys = [k["why"] for k in report["reading"]["skipped"]]
    if any(w.startswith("replaced by the corrected plan") for w in whys):
        return "corrected"
    return "restated" if any(w.startswith("the same plan as at line") for w in whys) else ""


def judge(record: dict[str, Any], report: dict[str, Any] | None, error: str) -> tuple[str, str]:
    """(class, detail) of one reply: agreement, or how pgt and PlanBench differ."""
    correct = bool(record.get("llm_correct"))
    if report is None:
        return ("correct, pgt: bad input" if correct else "incorrect, pgt: bad input"), error
    valid = report["valid"]
    if valid == correct:
        return ("agree: valid" if valid else "agree: invalid"), ""
    if correct:
        return f"correct, pgt: {report['reason']}", report["message"]
    ours = [" ".join(s["action"].strip("()").lower().split()) for s in report["steps"] if s.get("action")]
    theirs = _plan_lines(record.get("extracted_llm_plan"))
    if theirs == ours:
        extra = [line.strip() for line in str(record.get("extracted_llm_plan") or "").splitlines()
                 if line.strip() and not line.strip().startswith("(")]
        if extra:  # e.g. a "[PDDL PLAN]" header VAL cannot read as a plan
            return "incorrect, pgt valid: the same plan in a plan file with other text", extra[0][:60]
        return "incorrect, pgt valid: the same plan (PlanBench's recorded verdict differs)", ""
    if not theirs:
        return "incorrect, pgt valid: PlanBench extracted no plan", ""
    if ours and len(theirs) % len(ours) == 0 and theirs == ours * (len(theirs) // len(ours)):
        return "incorrect, pgt valid: PlanBench read the plan and its restatement as one", ""
    if ours and theirs[:len(ours)] == ours:
        return "incorrect, pgt valid: PlanBench read steps after the plan", f"{len(theirs)} vs {len(ours)} steps"
    return "incorrect, pgt valid: PlanBench extracted another plan", f"{len(theirs)} vs {len(ours)} steps"


_STATE: dict[str, Any] = {}
_SECTION = re.compile(r"^\[(DOMAIN|QUERY PROBLEM|PLAN)\]\s*$", re.M)


def _prompt_task(cache: TaskCache, work: Path, query: str) -> Any:
    """The task a PDDL prompt showed the model (its ``[DOMAIN]`` and ``[QUERY PROBLEM]`` sections), or
    None: the snapshot's instance files of some datasets were generated again after the replies (the
    obfuscated Logistics prompts name other symbols), and a prompt whose PDDL pgt cannot read falls
    back to them."""
    parts: dict[str, str] = {}
    marks = list(_SECTION.finditer(query))
    for here, nxt in zip(marks, [*marks[1:], None]):
        parts[here.group(1)] = query[here.end():nxt.start() if nxt else len(query)]
    if "DOMAIN" not in parts or "QUERY PROBLEM" not in parts:
        return None
    folder = work / "prompts"
    folder.mkdir(parents=True, exist_ok=True)
    key = str(abs(hash(parts["DOMAIN"] + parts["QUERY PROBLEM"])))
    domain, problem = folder / f"{key}-domain.pddl", folder / f"{key}-problem.pddl"
    if not domain.exists():
        domain.write_text(parts["DOMAIN"])
        problem.write_text(parts["QUERY PROBLEM"])
    try:
        return cache.get(str(domain), str(problem))
    except PgtError:
        return None


def _run_file(job: tuple[Dataset, str, str, Path, Path]) -> tuple[str, str, str, list[tuple[str, str, str, bool, bool]]]:
    """Every reply of one result file: (id, class, detail, correct, valid) each."""
    ds, model, kind, path, work = job
    cache: TaskCache = _STATE.setdefault("cache", TaskCache(work))
    readers: dict[tuple[int, str], Any] = _STATE.setdefault("readers", {})
    out = []
    for record in json.loads(path.read_text()).get("instances", []):
        if "llm_correct" not in record:
            continue
        ident = f"{path.parent.name}/{path.name}#{record.get('instance_id')}"
        problem = ds.instances / ds.template.format(record.get("instance_id"))
        report, error = None, ""
        try:
            task = _prompt_task(cache, work, str(record.get("query") or "")) or cache.get(str(ds.domain), str(problem))
            objects = objects_file(ds, work, sorted(task.objects))
            key = (id(task), str(objects))
            if key not in readers:
                readers[key] = english_reader(task, str(objects)) if objects else None
            report = check_plan(task, str(record.get("llm_raw_response") or ""), action_text=readers[key]).to_json()
        except PgtError as exc:
            error = str(exc)
        cls, detail = judge(record, report, error)
        out.append((ident, cls, detail, bool(record.get("llm_correct")), bool(report and report["valid"]),
                    _shape(report)))
    return ds.name, model, kind, out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--planbench", type=Path, default=os.environ.get("PGT_PLANBENCH"),
                    help="a clone or bare mirror of karthikv792/LLMs-Planning (or set PGT_PLANBENCH)")
    ap.add_argument("--dataset", action="append", default=[], help="only these datasets (repeatable)")
    ap.add_argument("--kind", choices=("english", "pddl", "all"), default="all", help="prompt kind (default all)")
    ap.add_argument("--jobs", type=int, default=1, help="processes at once (default 1)")
    ap.add_argument("--show", type=int, default=3, help="sample replies printed per disagreement class (default 3)")
    ap.add_argument("--out", type=Path, help="also write one JSON line per reply (dataset, model, id, class, detail)")
    args = ap.parse_args(argv)
    if args.planbench is None:
        print("bench_planbench: give --planbench DIR (a clone or bare mirror of karthikv792/LLMs-Planning) "
              "or set PGT_PLANBENCH", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="bench-planbench-") as tmp:
        work = Path(tmp)
        root = args.planbench
        if (root / "HEAD").is_file() and (root / "objects").is_dir():  # a bare mirror: read its tree
            from benchmarks.sweep_ipc import extract

            root = extract(root, "HEAD", work / "snapshot", suffixes=(".json", ".pddl", ".yaml"))[0]
        datasets: dict[tuple[str, str], Dataset | str] = {}
        jobs = []
        for base, name, model, path in result_files(root):
            if args.dataset and name not in args.dataset:
                continue
            kind = "pddl" if "_pddl" in path.name else "english"
            if args.kind not in ("all", kind):
                continue
            if (base, name) not in datasets:
                datasets[base, name] = load_dataset(root, base, name, work / "setup")
            ds = datasets[base, name]
            if isinstance(ds, str):
                continue
            jobs.append((ds, f"{model}{'' if base == BASES[0] else ' (' + base + ')'}", kind, path, work))
        for (base, name), why in sorted(datasets.items()):
            if isinstance(why, str):
                print(f"# skipped {base}/{name}: {why}")
        t0 = time.perf_counter()
        tallies: dict[tuple[str, str, str], Tally] = collections.defaultdict(Tally)
        ctx = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
        with ctx.Pool(max(1, args.jobs)) as pool:
            for name, model, kind, rows in pool.imap(_run_file, jobs):
                if args.out:
                    with open(args.out, "a") as out:
                        out.writelines(json.dumps({"dataset": name, "model": model, "prompt": kind, "id": r[0],
                                                   "class": r[1], "detail": r[2], "shape": r[5]}) + "\n"
                                      for r in rows)
                for key in ((name, model, kind), ("ALL", "", kind)):
                    t = tallies[key]
                    for ident, cls, detail, correct, valid, shape in rows:
                        t.shapes[shape] += 1
                        t.replies += 1
                        t.correct += correct
                        t.correct_valid += correct and valid
                        t.agree += correct == valid
                        t.classes[cls] += 1
                        if not cls.startswith("agree") and key[0] == "ALL":
                            shown = t.samples.setdefault(cls, [])
                            if len(shown) < args.show:
                                shown.append(f"{name} {ident}: {detail[:160]}")
    print(f"# {sum(t.replies for k, t in tallies.items() if k[0] == 'ALL')} replies with a PlanBench verdict, "
          f"read in {time.perf_counter() - t0:.0f} s")
    print(f"{'dataset':<46}{'model':<34}{'prompt':<8}{'replies':>8}{'correct':>8}{'read valid':>11}{'share':>8}"
          f"{'agree':>8}")
    for (name, model, kind), t in sorted(tallies.items(), key=lambda kv: (kv[0][0] == "ALL", kv[0])):
        if not t.replies:
            continue
        share = f"{t.correct_valid / t.correct:.1%}" if t.correct else "-"
        print(f"{name:<46}{model:<34}{kind:<8}{t.replies:>8}{t.correct:>8}{t.correct_valid:>11}{share:>8}"
              f"{t.agree / t.replies:>8.1%}")
        for cls, n in sorted(t.classes.items()):
            if not cls.startswith("agree"):
                print(f"{'':<46}  {n:>6}  {cls}")
    for (name, _, kind), t in sorted(tallies.items()):
        if name == "ALL":
            print(f"# {kind} replies: {t.shapes['restated']} restate their plan (read once), {t.shapes['corrected']} "
                  f"correct it (the correction read), {t.shapes['two plans']} hold two different plans")
    for (name, _, kind), t in sorted(tallies.items()):
        if name != "ALL":
            continue
        print(f"\n## samples ({kind} prompts)")
        for cls, shown in sorted(t.samples.items()):
            print(f"- {cls}")
            for line in shown:
                print(f"    {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
