"""``pgt score``: the evaluation tasks of the sibling benchmarks on one core.

  pgt score predict DOMAIN PROBLEM ACTIONS PREDICTED_STATE   (LLM-BabyBench Predict)
  pgt score plan DOMAIN PROBLEM PLAN [--gold PLAN ...]       (BabyBench Plan, LoHoRavens, ActPlan-1K)
  pgt score predict-batch FILE.jsonl / plan-batch FILE.jsonl
  pgt score graph FILE.json[l]                               (LookPlanGraph / GraSIF)
  pgt score lcs MODEL_PLAN GOLD_PLAN... [--metric actplan]   (ActPlan-1K, natural-language steps)
  pgt score lcs-batch ANNOTATION_DIR [--plans MODEL ...]    (ActPlan-1K's annotation folders)
  pgt score babybench-batch FILE                             (LLM-BabyBench items on BabyAI, its evaluators' keys)

--metric picks whose definitions are used: pgt (default, pgt's own domain-general
variants), babybench (LLM-BabyBench's official evaluator), actplan (ActPlan-1K's
auto_lcs/lcs.py, exactly), semantic (pgt's cleaned-up semantic LCS). docs/scoring.md
sets them side by side.

Exit codes: 0 scored (whatever the scores), 1 a batch had lines with bad input,
2 bad input to a single command. See docs/scoring.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from toolkit.commands.validate import load, read_text
from toolkit import cli_args
from toolkit.errors import PgtError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("score", help="score model outputs: state prediction, plans, scene-graph tasks",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ss = p.add_subparsers(dest="score_kind", metavar="KIND", required=True)

    pr = ss.add_parser("predict", help="score a predicted final state against simulation")
    pr.add_argument("domain", help="domain file, folder, or shipped domain name")
    pr.add_argument("problem", type=cli_args.input_file, help="problem file")
    pr.add_argument("actions", type=cli_args.input_file, help="the action sequence (plan file, any dialect; '-' for stdin)")
    pr.add_argument("predicted", type=cli_args.input_file, help="predicted final state: PDDL atoms, on(a, b) calls, JSON, or one atom per line")
    pr.add_argument("--json", action="store_true", help="print one JSON object")
    _metric_args(pr, ("pgt", "babybench"))
    pr.set_defaults(func=run_predict)

    pl = ss.add_parser("plan", help="success, partial credit, efficiency ratio, LCS against gold plans")
    pl.add_argument("domain", help="domain file, folder, or shipped domain name")
    pl.add_argument("problem", type=cli_args.input_file, help="problem file")
    pl.add_argument("plan", type=cli_args.input_file, help="the model's plan ('-' for stdin)")
    pl.add_argument("--gold", nargs="+", default=[], type=cli_args.input_file, metavar="PLAN", help="gold plan file(s) for LCS")
    _optimal_args(pl)
    pl.add_argument("--json", action="store_true", help="print one JSON object")
    _metric_args(pl, ("pgt", "babybench", "actplan", "semantic"))
    pl.set_defaults(func=run_plan)

    lc = ss.add_parser("lcs", help="LCS of a natural-language plan against gold plans (ActPlan-1K)")
    lc.add_argument("plan", type=cli_args.input_file, help="the model's plan: one step per line (numbering ignored) or a JSON list")
    lc.add_argument("gold", nargs="+", type=cli_args.input_file, help="gold plan file(s), same forms")
    lc.add_argument("--metric", choices=LCS_METRICS, default="actplan",
                    help="actplan (default): ActPlan-1K's auto_lcs/lcs.py exactly (steps split on newlines, "
                         "all-MiniLM-L6-v2 cosine similarity >= 0.8, / max(m, n)); semantic: pgt's variant (numbering "
                         "and blank lines dropped, similarity > 0.8); exact: identical step text (case and spaces folded)")
    lc.add_argument("--model", metavar="DIR", type=cli_args.input_path, help="local all-MiniLM-L6-v2 folder (default: the packaged weights)")
    lc.add_argument("--json", action="store_true", help="print one JSON object")
    lc.set_defaults(func=run_lcs)

    lb = ss.add_parser("lcs-batch", help="ActPlan-1K's LCS over the dataset's annotation/<scene>/<activity>/<n>/ folders")
    lb.add_argument("annotation", type=cli_args.input_path, help="the dataset's annotation folder (or any folder below it)")
    lb.add_argument("--plans", nargs="+", default=list(OFFICIAL_PLANS), metavar="MODEL",
                    help="candidate plans plan_MODEL.txt (default: " + " ".join(OFFICIAL_PLANS) + ")")
    lb.add_argument("--gold-file", metavar="NAME", help="pair every candidate with this gold file instead of the "
                    "official pairing (plan_gold_1.txt for gpt-4v and claude, plan_gold_2.txt for gemini)")
    lb.add_argument("--metric", choices=LCS_METRICS, default="actplan", help="as for 'score lcs'")
    lb.add_argument("--model", metavar="DIR", type=cli_args.input_path, help="local all-MiniLM-L6-v2 folder")
    lb.add_argument("--md", type=cli_args.output_file, metavar="PATH", help="write the summary table as Markdown")
    lb.add_argument("--json", action="store_true", help="print the summary as a last JSON line")
    lb.add_argument("--quiet", action="store_true", help="no summary table on standard error")
    lb.set_defaults(func=run_lcs_batch)

    for kind, helptext in (("predict-batch", "score a JSON Lines batch of state predictions"),
                           ("plan-batch", "score a JSON Lines batch of plans"),
                           ("graph", "score scene-graph tasks (a .json task or list, or JSON Lines)")):
        b = ss.add_parser(kind, help=helptext)
        b.add_argument("input", type=cli_args.input_file, help="input file ('-' for standard input)")
        if kind == "plan-batch":
            _optimal_args(b)
            _metric_args(b, ("pgt", "babybench", "actplan", "semantic"))
        elif kind == "predict-batch":
            _metric_args(b, ("pgt", "babybench"))
        else:
            b.add_argument("--hands", type=int, default=1, metavar="N",
                           help="objects the agent can hold at once (default 1, GraSIF's one manipulator; "
                                "2 for VirtualHome's character)")
            b.add_argument("--any-room", action="store_true",
                           help="let hands-on actions reach nodes in rooms the agent has not gone to")
        b.add_argument("--md", type=cli_args.output_file, metavar="PATH", help="write the summary table as Markdown")
        b.add_argument("--csv", type=cli_args.output_file, metavar="PATH", help="write the summary table as CSV")
        b.add_argument("--json", action="store_true", help="print the summary as a last JSON line")
        b.add_argument("--quiet", action="store_true", help="no summary table on standard error")
        b.set_defaults(func=run_batch, batch_kind={"predict-batch": "predict", "plan-batch": "plan"}.get(kind, kind))


    bb = ss.add_parser("babybench-batch", help="LLM-BabyBench Predict/Plan/Decompose items on BabyAI levels, "
                       "scored as the benchmark's evaluators score them")
    bb.add_argument("input", type=cli_args.input_file, help="JSON Lines items, a .json list, or the benchmark's .csv "
                    "with an 'output' column ('-' for standard input)")
    bb.add_argument("--babybench-code", metavar="DIR", type=cli_args.input_path,
                    help="a checkout of choukrani/llm-babybench: Decompose runs its bot (default: $PGT_BABYBENCH_CODE)")
    bb.add_argument("--md", type=cli_args.output_file, metavar="PATH", help="write the summary table as Markdown")
    bb.add_argument("--csv", type=cli_args.output_file, metavar="PATH", help="write the summary table as CSV")
    bb.add_argument("--json", action="store_true", help="print the summary as a last JSON line")
    bb.add_argument("--quiet", action="store_true", help="no summary table on standard error")
    bb.set_defaults(func=run_babybench_batch)


LCS_METRICS = ("actplan", "semantic", "exact")
OFFICIAL_PLANS = ("gpt-4v", "claude_v3_haiku", "claude_v3_sonnet", "gemini")  # toolkit.scoring.actplan.OFFICIAL_GOLD


def _metric_args(p: argparse.ArgumentParser, choices: tuple[str, ...]) -> None:
    p.add_argument("--metric", choices=choices, default="pgt",
                   help="whose metric definitions: pgt (default), " + ", ".join(choices[1:]) + " (official)")
    if "babybench" in choices and p.prog.split()[-1].startswith("predict"):
        p.add_argument("--position", metavar="PRED",
                       help="with --metric babybench: the predicate placing the agent, e.g. at-agent "
                            "(its arguments' integers are the (x, y) position)")
        p.add_argument("--direction", metavar="PRED",
                       help="with --metric babybench: the predicate giving the agent's direction, e.g. facing "
                            "(east/south/west/north or 0-3: the official success compares it too)")
    if "actplan" in choices:
        p.add_argument("--model", metavar="DIR", type=cli_args.input_path,
                       help="with --metric actplan or semantic: a local all-MiniLM-L6-v2 folder")


def _optimal_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--timeout", type=cli_args.seconds, default=10.0, metavar="S",
                   help="time limit for the optimal-length search per task (default 10)")
    p.add_argument("--no-optimal", action="store_true", help="skip the optimal length (no efficiency ratio)")
    p.add_argument("--planner", default="auto", type=cli_args.planner_name,
                   help="optimal planner from the planners registry (default auto: own A*, then Fast Downward)")


def _pct(x: float | None) -> str:
    return "unknown" if x is None else f"{x:.3f}"


def run_predict(args: argparse.Namespace) -> int:
    from toolkit.scoring.predict import score_prediction

    task = load(args.domain, args.problem)
    if args.metric == "babybench":
        return _print_babybench_predict(args, task)
    score = score_prediction(task, read_text(args.actions), read_text(args.predicted))
    if args.json:
        print(json.dumps(score.to_json(), indent=2))
        return 0
    a, f = score.all_atoms, score.fluent_atoms
    print(("actions: " if score.actions_executable else "ACTIONS NOT EXECUTABLE: ") + score.actions_message)
    print(f"exact match: {'yes' if a.exact else 'no'} (fluent atoms only: {'yes' if f.exact else 'no'})")
    print(f"all atoms:    precision {a.precision:.3f}  recall {a.recall:.3f}  F1 {a.f1:.3f}  "
          f"distance {a.distance} (normalized {a.normalized_distance:.3f})")
    print(f"fluent atoms: precision {f.precision:.3f}  recall {f.recall:.3f}  F1 {f.f1:.3f}  "
          f"distance {f.distance} (normalized {f.normalized_distance:.3f})")
    for label, items in (("missing (true, not predicted)", a.missing), ("extra (predicted, not true)", a.extra),
                         ("not in the task (unknown names or arity)", score.parsed.unknown),
                         ("negative literals ignored (closed world)", score.parsed.negated),
                         ("lines with no readable atom", score.parsed.unparsed)):
        if items:
            print(f"{label}: {' '.join(items)}")
    return 0


def run_plan(args: argparse.Namespace) -> int:
    from toolkit.scoring.optimal import optimal_length
    from toolkit.scoring.plan import score_plan

    task = load(args.domain, args.problem)
    gold = [(g, read_text(g)) for g in args.gold]
    optimal = None if args.no_optimal else (lambda: optimal_length(task, args.timeout, planner=args.planner))
    if args.metric == "babybench":
        return _print_babybench_plan(args, task, optimal)
    if args.metric in ("actplan", "semantic"):
        return _print_lcs(args, read_text(args.plan, comment=None), [(g, read_text(g, comment=None)) for g in args.gold],
                          args.metric)
    score = score_plan(task, read_text(args.plan), gold, optimal)
    if args.json:
        print(json.dumps(score.to_json(), indent=2))
        return 0
    print(("SUCCESS: " if score.valid else "FAILURE: ") + score.message)
    print(f"partial credit: {score.goal_met}/{score.goal_total} goal conjuncts = {score.partial_credit:.3f}")
    if score.goal_unmet:
        from toolkit.verify import brief_formula

        print(f"  unmet: {' '.join(brief_formula(u) for u in score.goal_unmet)}")
    if score.valid and score.optimal is not None:
        o = score.optimal
        if score.plan_cost is None:
            opt = f"{o.length} ({o.planner})" if o.length is not None else f"unknown ({o.status}: {o.message})"
            print(f"efficiency: optimal {opt} / plan {score.plan_length} = {_pct(score.efficiency)}")
        else:  # under action costs the ratio compares costs
            opt = f"{o.optimal_cost} ({o.planner})" if o.length is not None else f"unknown ({o.status}: {o.message})"
            print(f"efficiency: optimal cost {opt} / plan cost {score.plan_cost} = {_pct(score.efficiency)}")
    elif score.valid:
        print("efficiency: not computed (--no-optimal)")
    else:
        print("efficiency: n/a (only for successful plans)")
    for g in score.gold:
        print(f"gold {g.label} ({g.length} steps{'' if g.valid else ', NOT VALID'}): "
              f"LCS {g.lcs}, normalized {g.normalized_lcs:.3f}")
    if len(score.gold) > 1:
        print(f"best: LCS {score.best_lcs}, normalized {score.best_normalized_lcs:.3f} ({score.best_gold})")
    return 0


def _print_babybench_predict(args: argparse.Namespace, task) -> int:
    from toolkit.errors import PgtError
    from toolkit.scoring.babybench import score_prediction_babybench

    if not args.position or not args.direction:
        raise PgtError("--metric babybench needs --position PRED and --direction PRED (the predicates that place "
                       "and turn the agent: LLM-BabyBench's success compares both)")
    score = score_prediction_babybench(task, read_text(args.actions), read_text(args.predicted), args.position,
                                       args.direction)
    if args.json:
        print(json.dumps(score.to_json(), indent=2))
        return 0
    print(f"{'SUCCESS' if score.success else 'FAILURE'}: predicted ({score.predicted_position}, "
          f"{score.predicted_direction}), true ({score.true_position}, {score.true_direction})")
    print(f"Manhattan distance: {score.manhattan}; position alone (pgt): "
          f"{'right' if score.predicted_position == score.true_position else 'wrong'}")
    return 0


def _print_babybench_plan(args: argparse.Namespace, task, optimal) -> int:
    from toolkit.scoring.babybench import score_plan_babybench

    score = score_plan_babybench(task, read_text(args.plan), optimal)
    if args.json:
        print(json.dumps(score.to_json(), indent=2))
        return 0
    print(f"{'SUCCESS' if score.success else 'FAILURE'}: goal "
          f"{'first reached after' if score.success else 'not reached in'} {score.steps_taken} step(s)")
    if score.success and score.optimal is not None:
        o = score.optimal
        opt = f"{o.length} ({o.planner})" if o.length is not None else f"unknown ({o.status}: {o.message})"
        print(f"efficiency: optimal {opt} / {score.parsed} parsed steps = {_pct(score.efficiency)} "
              f"(pgt, over the {score.steps_taken} steps to the goal: {_pct(score.pgt_efficiency)})")
    else:
        print(f"efficiency: {_pct(score.efficiency)}" + ("" if score.success else " (failed plan)"))
    if score.dropped:
        print(f"dropped (unknown) steps: {' | '.join(score.dropped)}")
    if score.ignored:
        print(f"steps that changed nothing (precondition false): {', '.join(map(str, score.ignored))}")
    return 0


def _print_lcs(args: argparse.Namespace, plan_text: str, gold: list[tuple[str, str]], metric: str) -> int:
    from toolkit.scoring.semantic import lcs_table

    rows = lcs_table(plan_text, gold, metric, getattr(args, "model", None))
    if args.json:
        print(json.dumps({"metric": metric, "gold": rows,
                          "best_lcs": max(r["lcs"] for r in rows),
                          "best_normalized_lcs": max(r["normalized_lcs"] for r in rows)}, indent=2))
        return 0
    for r in rows:
        print(f"gold {r['gold']} ({r['length']} steps): {metric} LCS {r['lcs']}, normalized {r['normalized_lcs']:.3f}")
    return 0


def run_lcs(args: argparse.Namespace) -> int:
    return _print_lcs(args, read_text(args.plan, comment=None), [(g, read_text(g, comment=None)) for g in args.gold],
                      args.metric)


def run_lcs_batch(args: argparse.Namespace) -> int:
    from toolkit.scoring.actplan import annotation_pairs, score_pairs
    from toolkit.scoring.metrics import mean_stderr
    from toolkit.scoring.semantic import lcs_table

    pairs = list(annotation_pairs(args.annotation, args.plans, args.gold_file))

    def score(candidate: str, reference: str) -> dict[str, Any]:
        row = lcs_table(candidate, [("reference", reference)], args.metric, args.model)[0]
        return {"metric": args.metric, "lcs": row["lcs"], "normalized_lcs": row["normalized_lcs"]}

    records = score_pairs(pairs, score)
    for rec in records:
        print(json.dumps(rec), flush=True)
    lines = [f"{len(records)} pair(s) under {args.annotation}, --metric {args.metric}", "",
             "| plans | gold | n | mean LCS | mean normalized LCS | ± s.e. |", "|---|---|---:|---:|---:|---:|"]
    summary = []
    for model in args.plans:
        mine = [r for r in records if r["model"] == model]
        if not mine:
            continue
        lcs_mean, _, _ = mean_stderr([r["lcs"] for r in mine])
        norm_mean, norm_se, _ = mean_stderr([r["normalized_lcs"] for r in mine])
        gold = sorted({r["reference"] for r in mine if not r["gold_missing"]})
        summary.append({"plans": model, "gold": gold, "n": len(mine), "mean_lcs": lcs_mean,
                        "mean_normalized_lcs": norm_mean, "stderr_normalized_lcs": norm_se})
        se = "–" if norm_se is None else f"{norm_se:.3f}"
        lines.append(f"| {model} | {', '.join(gold) or '(none)'} | {len(mine)} | {lcs_mean:.3f} | {norm_mean:.3f} | {se} |")
    md = "\n".join(lines) + "\n"
    if args.md:
        Path(args.md).parent.mkdir(parents=True, exist_ok=True)
        Path(args.md).write_text(md, encoding="utf-8")
    if args.json:
        print(json.dumps({"summary": True, "pairs": len(records), "by_plans": summary}))
    if not args.quiet:
        print(md, file=sys.stderr, end="")
    return 0


def run_batch(args: argparse.Namespace) -> int:
    from toolkit.scoring.batch import BatchContext, records_of, score_records, summarize, summary_csv, summary_markdown

    if args.input == "-":
        text, base = sys.stdin.read(), Path.cwd()
    else:
        text, base = read_text(args.input, comment=None), Path(args.input).resolve().parent
    kind = args.batch_kind
    ctx = BatchContext(base, getattr(args, "timeout", 10.0), not getattr(args, "no_optimal", False),
                       getattr(args, "planner", "auto"))
    metric = getattr(args, "metric", "pgt")
    ctx.position, ctx.model = getattr(args, "position", None), getattr(args, "model", None)
    ctx.direction = getattr(args, "direction", None)
    if kind == "graph":
        if args.hands < 1:
            raise PgtError("--hands must be at least 1")
        ctx.hands, ctx.rooms = args.hands, not args.any_room
    if metric != "pgt":
        kind = f"{kind}:{metric}"
    results: list[dict[str, Any]] = []
    for out in score_records(kind, records_of(text, args.input), ctx):
        results.append(out)
        print(json.dumps(out), flush=True)
    errors = sum(1 for r in results if "error" in r)
    rows = summarize(kind, results)
    md = summary_markdown(kind, rows, len(results), errors)
    for path, text in ((args.md, md), (args.csv, summary_csv(rows) if args.csv else "")):
        if path:  # cli_args.output_file checked it can be made; its folders are made now
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            Path(path).write_text(text, encoding="utf-8")
    if args.json:
        print(json.dumps({"summary": True, "records": len(results), "errors": errors, "metrics": rows}))
    if not args.quiet:
        print(md, file=sys.stderr, end="")
    return 1 if errors else 0


def run_babybench_batch(args: argparse.Namespace) -> int:
    from toolkit.scoring.babybench_batch import read_items, score_items, summarize
    from toolkit.scoring.batch import summary_csv, summary_markdown

    text = sys.stdin.read() if args.input == "-" else read_text(args.input, comment=None)
    results: list[dict[str, Any]] = []
    for out in score_items(read_items(text, args.input), args.babybench_code):
        results.append(out)
        print(json.dumps(out), flush=True)
    errors = sum(1 for r in results if "error" in r)
    rows = summarize(results)
    md = summary_markdown("babybench", rows, len(results), errors)
    for path, body in ((args.md, md), (args.csv, summary_csv(rows) if args.csv else "")):
        if path:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            Path(path).write_text(body, encoding="utf-8")
    if args.json:
        print(json.dumps({"summary": True, "records": len(results), "errors": errors, "metrics": rows}))
    if not args.quiet:
        print(md, file=sys.stderr, end="")
    return 1 if errors else 0
