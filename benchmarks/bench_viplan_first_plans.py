"""ViPlan's first plans against up-oneshot's, problem by problem: does pgt plan with ViPlan's planner?

Run: ``python -m benchmarks.bench_viplan_first_plans --viplan PATH [--domain blocksworld|igibson]
[--all-episodes] [--up-python PY] [--plan-cache FILE]``

ViPlan's VLM-as-grounder loop (``viplan/experiments/benchmark_{blocksworld,igibson}_plan.py``,
``main`` then ``check_plan``) plans once from its initial belief and executes that
plan's actions until one fails; only then does it replan. So the attempts up to and
including the first one that was not ``action_correct`` (all of them, and the
``remaining_actions``, where none failed) are a prefix of its first plan, and the
first attempt is that plan's first action. The first plan itself is not logged.

For every released grounder episode this plans again, with ``up-oneshot`` (what
the ``viplan-*`` protocols use), from the belief ViPlan planned from: the initial
enumeration's "yes" atoms on Blocksworld; the problem's initial state on the
household domain, whose runs start from the true state
(``enumerate_initial_state: False``). It prints, per domain:

- *problems*: for each problem file, the episodes whose belief was the truth
  (Blocksworld: an enumeration with every answer right; household: every
  episode), whether the replanned first action and logged prefix agree in all of
  them. This is the figure that says whose engine planned ViPlan's runs.
- with ``--all-episodes``, also every episode, wrong beliefs included (each
  distinct belief is planned once; thousands of calls on a cold store).

then each disagreement. Exit status 1 if any problem disagrees. The engine
versions printed first are those up-oneshot plans with (``--up-python``: another
interpreter's, ``PGT_UP_ONESHOT_PYTHON``). Answers go to up-oneshot's shared store
unless ``--plan-cache`` names another file (or ``off``).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.bench_viplan_replay import add_planner_options, checkout, use_planner_options  # noqa: E402
from benchmarks.viplan_logs import ViPlanEpisode, ViPlanLog, find_logs, parse_action, parse_key, read_log  # noqa: E402
from toolkit.errors import PgtError  # noqa: E402
from toolkit.model import Atom  # noqa: E402
from toolkit.task import Task  # noqa: E402


def _norm(text: str) -> str:
    parsed = parse_action(text)
    return text.strip().lower() if parsed is None else f"{parsed[0].lower()}({', '.join(parsed[1]).lower()})"


def logged_plan(data: dict[str, Any], cap: int) -> tuple[list[str | None], bool]:
    """The logged actions that came from the first plan, and whether they are the whole plan.

    ``check_plan`` pops the plan's actions in order, logs each attempt, and replans after
    the first one that fails (``action_correct`` false), which is then the last action of
    the first plan that was logged. Where none failed, ``remaining_actions`` holds the
    queue the loop left: after the step cap, the plan's unexecuted rest; after an
    exception in ``check_action`` (which breaks before logging), the rest after the
    popped, unlogged action (``None`` here: any action matches it).
    """
    attempts = list(data.get("action_results") or [])
    failed = next((i for i, a in enumerate(attempts) if not a.get("action_correct")), None)
    actions: list[str | None] = [_norm(str(a.get("action", "")))
                                 for a in attempts[: None if failed is None else failed + 1]]
    if failed is not None:
        return actions, False
    remaining = [_norm(str(a)) for a in data.get("remaining_actions") or []]
    if remaining and len(attempts) < cap:
        actions.append(None)
    return actions + remaining, True


def _agrees(plan: list[str] | None, logged: list[str | None], whole: bool) -> bool:
    if plan is None or len(plan) < len(logged) or (whole and len(plan) != len(logged)):
        return False
    return all(want is None or want == got for want, got in zip(logged, plan))


def _belief(task: Task, log: ViPlanLog, data: dict[str, Any]) -> tuple[frozenset[Atom], bool]:
    """What ViPlan planned from, and whether it was the truth (every enumerated answer right)."""
    enum = data.get("initial_state_enum")
    if not (isinstance(enum, dict) and isinstance(enum.get("results"), dict)):
        return task.init, log.domain == "igibson"  # household: update_problem with the true state
    atoms, right = set(), True
    for key, pair in enum["results"].items():
        answer, truth = (list(pair) + [None, None])[:2] if isinstance(pair, list) else (pair, None)
        name, args = parse_key(key)
        predicate = next((p for p in task.domain.predicates if p.lower() == name.lower()), name)
        if answer == "yes":
            atoms.add(Atom(predicate, tuple(task.resolve_object(a) for a in args)))
        right &= answer in ("yes", "no") and truth == answer
    return frozenset(atoms), right


@dataclass
class Tally:
    episodes: int = 0
    agree: int = 0
    problems: dict[str, list[bool]] = field(default_factory=lambda: defaultdict(list))
    disagreements: list[str] = field(default_factory=list)


def compare(root: Path, logs: list[ViPlanLog], every: bool, planner: Any) -> dict[str, Tally]:
    """Per domain: the episodes checked and agreeing, and per problem file the truthful episodes' verdicts."""
    from benchmarks.episode import episode_task

    tallies: dict[str, Tally] = defaultdict(Tally)
    planned: dict[tuple[str, frozenset[Atom]], list[str] | None] = {}
    for log in logs:
        domain_file = root / "data" / "planning" / log.domain / "domain.pddl"
        for ep in log.episodes:
            data = ep.data or {}
            prefix, whole = logged_plan(data, log.max_steps)
            if not [a for a in prefix if a is not None]:
                continue  # ViPlan had no first plan (it could not load or plan the problem)
            task = episode_task(str(domain_file), str(root / ep.problem))
            belief, truthful = _belief(task, log, data)
            if not (truthful or every):
                continue
            key = (ep.problem, belief)
            if key not in planned:
                result = planner.solve(task, init=belief)
                planned[key] = [_norm(f"{a.name}({', '.join(a.args)})") for a in result.plan] \
                    if result.solved else None
            plan = planned[key]
            same = _agrees(plan, prefix, whole)
            tally = tallies[log.domain]
            tally.episodes += 1
            tally.agree += same
            if truthful:
                tally.problems[ep.problem].append(same)
            if not same:
                tally.disagreements.append(_disagreement(log, ep, prefix, plan, truthful))
    return tallies


def _disagreement(log: ViPlanLog, ep: ViPlanEpisode, prefix: list[str | None], plan: list[str] | None,
                  truthful: bool) -> str:
    got = "no plan" if plan is None else " ".join(plan)
    belief = "true state" if truthful else "wrong belief"
    return f"{ep.key} [{log.model}, {'cot' if log.cot else 'no cot'}, {belief}]: logged {' '.join(a or '(unlogged)' for a in prefix)}; " \
           f"up-oneshot {got}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--viplan", default=os.environ.get("PGT_VIPLAN"), help="ViPlan checkout or bare snapshot")
    ap.add_argument("--domain", choices=("blocksworld", "igibson"))
    ap.add_argument("--all-episodes", action="store_true", help="also every episode planned from a wrong belief")
    add_planner_options(ap)
    ap.add_argument("--list", type=int, default=20, help="disagreements listed per domain (-1: all)")
    args = ap.parse_args(argv)
    use_planner_options(ap, args)
    from toolkit.planners.up_oneshot import UpOneshotPlanner

    try:
        planner = UpOneshotPlanner()
        root = checkout(args.viplan)
        logs = [log for log in map(read_log, find_logs(root / "results" / "final"))
                if log.protocol == "viplan-grounder" and (args.domain is None or log.domain == args.domain)]
    except PgtError as exc:
        raise SystemExit(f"error: {exc}") from None
    print(f"up-oneshot engines: {planner.engines}; {len(logs)} released grounder runs", flush=True)
    t0 = time.perf_counter()
    tallies = compare(root, logs, args.all_episodes, planner)
    failed = False
    for domain, tally in sorted(tallies.items()):
        good = sum(all(v) for v in tally.problems.values())
        truthful = sum(len(v) for v in tally.problems.values())
        failed |= good < len(tally.problems)
        print(f"{domain}: first plans agree on {good}/{len(tally.problems)} problems "
              f"({truthful} episodes planned from the true state); "
              f"{tally.agree}/{tally.episodes} episodes checked agree")
        shown = tally.disagreements if args.list < 0 else tally.disagreements[: args.list]
        for line in shown:
            print(f"  {line}")
        if len(shown) < len(tally.disagreements):
            print(f"  ... {len(tally.disagreements) - len(shown)} more (--list -1)")
    print(f"({time.perf_counter() - t0:.0f} s; answers planned {planner.answered.get('planned', 0)}, "
          f"from the store {planner.answered.get('store', 0)})")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
