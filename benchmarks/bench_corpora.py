"""pgt on published LLM-plan corpora and embodied scene graphs, run as a user would.

Run (each corpus is a plain ``git clone`` of the public repository; any may be left out)::

    .venv/bin/python -m benchmarks.bench_corpora --llm-pddl DIR --autoplanbench DIR --virtualhome DIR

* ``--llm-pddl``: LLM+P (``Cranial-XIX/llm-pddl``). Its ``experiments/*/plans/llm_ic_pddl``
  plans carry VAL's verdict in ``validation.txt``; pgt validates each against the
  ground-truth domain and problem (``domains/``), and the script prints agreement with
  VAL. Its English replies (``experiments/*/results/*``, no verdict in the repository)
  are counted by how pgt reads them: valid, invalid, each refusal reason.
* ``--autoplanbench``: AutoPlanBench (``minecraft-saar/autoplanbench``): every gold
  plan of ``data/*/{adapted,orig}_gold_plans`` against its instance; all must be valid.
* ``--virtualhome``: a folder of VirtualHome scene graphs (``*_graph.json``, e.g.
  ``GT-RAIL/rail_tasksim``'s ``example_graphs``): ``pgt import-scene`` on each, then the
  written problem is loaded with ``pgt validate household``.

Nothing is copied into the project; the batches go to a temporary folder.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

PGT = [sys.executable, "-m", "toolkit.cli"]


def _batch(lines: list[dict], folder: Path, name: str) -> list[dict]:
    """``pgt validate-batch`` over the lines; the records in input order."""
    path = folder / f"{name}.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    out = subprocess.run([*PGT, "validate-batch", str(path), "--workers", "2"], capture_output=True, text=True)
    if out.returncode not in (0, 1):
        raise SystemExit(f"validate-batch failed on {name}: {out.stderr.strip()}")
    return [json.loads(x) for x in out.stdout.splitlines() if x.startswith("{")]


def llm_pddl(root: Path, folder: Path) -> None:
    def domain_of(name: str) -> Path:  # the repository validates tyreworld against its _validation copy
        return root / "domains" / name / ("domain_validation.pddl" if name == "tyreworld" else "domain.pddl")

    lines, truth = [], []
    for log in sorted(root.glob("experiments/*/plans/*/*/validation.txt")):
        for chunk in re.split(r"^Checking plan: ", log.read_text(errors="replace"), flags=re.M)[1:]:
            plan = root / chunk.splitlines()[0].strip()
            if not plan.exists():  # the log names plans the repository does not ship
                continue
            problem = root / "domains" / log.parent.name / (re.match(r"p\d+", plan.name).group(0) + ".pddl")
            lines.append({"id": str(plan.relative_to(root)), "domain": str(domain_of(log.parent.name)),
                          "problem": str(problem), "plan": plan.read_text(errors="replace")})
            truth.append("Plan valid" in chunk)
    records = _batch(lines, folder, "llm_pddl_plans")
    agree = sum(r["valid"] == t for r, t in zip(records, truth))
    print(f"LLM+P PDDL plans: pgt agrees with VAL on {agree} of {len(records)} "
          f"(VAL valid {sum(truth)}, pgt valid {sum(r['valid'] for r in records)})")
    for r, t in zip(records, truth):
        if r["valid"] != t:
            print(f"  differs: {r['id']}: VAL {'valid' if t else 'invalid'}, pgt {r['message']}")

    replies = [f for f in sorted(root.glob("experiments/*/results/*/*/p*.pddl"))
               if (root / "domains" / f.parent.name / f.name).exists()]
    lines = [{"id": str(f.relative_to(root)), "domain": str(domain_of(f.parent.name)),
              "problem": str(root / "domains" / f.parent.name / f.name), "plan": f.read_text(errors="replace")}
             for f in replies]
    records = _batch(lines, folder, "llm_pddl_replies")
    verdicts = Counter("valid" if r["valid"] else r["reason"] for r in records)
    print(f"LLM+P English replies: {len(records)}: " + ", ".join(f"{k} {v}" for k, v in verdicts.most_common()))


def autoplanbench(root: Path, folder: Path) -> None:
    lines = []
    for domain in sorted(p for p in (root / "data").iterdir() if (p / "domain.pddl").exists()):
        for plans, problems in (("adapted_gold_plans", "adapted_instances"), ("orig_gold_plans", "orig_problems")):
            for plan in sorted((domain / plans).glob("instance-*_gold_plan.txt")):
                problem = domain / problems / plan.name.replace("_gold_plan.txt", ".pddl")
                if problem.exists():
                    lines.append({"id": f"{domain.name}/{plans}/{plan.name}", "domain": str(domain / "domain.pddl"),
                                  "problem": str(problem), "plan": plan.read_text(errors="replace")})
    records = _batch(lines, folder, "autoplanbench")
    domains = {r["id"].split("/")[0] for r in records}
    print(f"AutoPlanBench gold plans: {sum(r['valid'] for r in records)} of {len(records)} valid "
          f"({len(domains)} domain folders)")
    for r in records:
        if not r["valid"]:
            print(f"  invalid: {r['id']}: {r['message']}")


def virtualhome(root: Path, folder: Path) -> None:
    graphs = sorted(root.glob("*_graph.json"))
    empty = folder / "empty.plan"
    empty.write_text("")
    ok = 0
    for graph in graphs:
        out = subprocess.run([*PGT, "import-scene", str(graph), "--out", str(folder / "scenes")],
                             capture_output=True, text=True)
        written = re.search(r"wrote (\S+\.pddl)", out.stdout)
        check = (subprocess.run([*PGT, "validate", "household", written.group(1), str(empty)],
                                capture_output=True, text=True) if written else None)
        if out.returncode == 0 and check is not None and check.returncode == 0:
            ok += 1
        else:
            print(f"  failed: {graph.name}: {(out.stderr or (check.stderr if check else '')).strip()}")
    print(f"VirtualHome scene graphs: {ok} of {len(graphs)} imported and loaded")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--llm-pddl", type=Path, help="a clone of Cranial-XIX/llm-pddl")
    parser.add_argument("--autoplanbench", type=Path, help="a clone of minecraft-saar/autoplanbench")
    parser.add_argument("--virtualhome", type=Path, help="a folder of VirtualHome *_graph.json scene graphs")
    args = parser.parse_args()
    if not (args.llm_pddl or args.autoplanbench or args.virtualhome):
        parser.error("name at least one corpus")
    with tempfile.TemporaryDirectory() as tmp:
        if args.llm_pddl:
            llm_pddl(args.llm_pddl, Path(tmp))
        if args.autoplanbench:
            autoplanbench(args.autoplanbench, Path(tmp))
        if args.virtualhome:
            virtualhome(args.virtualhome, Path(tmp))


if __name__ == "__main__":
    main()
