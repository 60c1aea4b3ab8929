"""Time limits and what a user is told: the clock of our A*, Fast Downward's limit, the satisficing fallback.

Also that ``Task.applicable_actions`` through the successor generator gives
exactly what a scan of every ground action gives.
"""

from __future__ import annotations

import random
import time

import pytest

from toolkit.cli import main
from toolkit.domains import domain_dir, shipped_domain, shipped_problem
from toolkit.model import Atom
from toolkit.planners import PLANNERS, PlanStatus
from toolkit.planners.base import PlanResult
from toolkit.planners.fallback import FallbackPlanner
from toolkit.planners.fd import HMAX, LMCUT, FastDownwardPlanner, optimal_search
from toolkit.planners.search import AStarPlanner
from toolkit.successors import SuccessorGenerator
from toolkit.task import load_task


def bw(name: str):
    return load_task(shipped_domain("blocksworld"), shipped_problem("blocksworld", name))


def test_astar_stops_on_time_even_when_expansions_are_slow(monkeypatch):
    slow = SuccessorGenerator.applicable

    def applicable(self, state):
        time.sleep(0.01)  # a large task's expansion; 256 of them overran the limit by 2.5 s before
        return slow(self, state)

    monkeypatch.setattr(SuccessorGenerator, "applicable", applicable)
    task = bw("hard_problem_0")
    task.grounding()  # grounded beforehand: only the search runs against the clock
    result = AStarPlanner(heuristic="blind").solve(task, timeout=0.2)
    assert result.status is PlanStatus.TIMEOUT and "no plan within 0.2s" in result.message
    assert result.time < 1.5


def test_a_cpu_time_limit_is_not_spent_by_waiting_for_a_busy_machine(monkeypatch):
    # a loaded machine, played by expansions that wait (sleep) rather than compute: by the wall clock the
    # limit runs out; counted in CPU seconds (what studies use) the same search ends as it would on a quiet one
    slow = SuccessorGenerator.applicable

    def applicable(self, state):
        time.sleep(0.05)
        return slow(self, state)

    monkeypatch.setattr(SuccessorGenerator, "applicable", applicable)
    task = bw("simple_problem_1")
    quiet = AStarPlanner().solve(task)
    assert quiet.status is PlanStatus.SOLVED and quiet.expanded * 0.05 > 0.1  # waiting alone outlasts the limit
    assert AStarPlanner().solve(task, timeout=0.1).status is PlanStatus.TIMEOUT
    busy = AStarPlanner(cpu_time=True).solve(task, timeout=0.1)
    assert busy.status is PlanStatus.SOLVED and busy.plan == quiet.plan
    auto = PLANNERS["auto"]()
    auto.own.cpu_time = True
    assert auto.solve(task, timeout=0.1).plan == quiet.plan


def test_a_cpu_time_limit_still_stops_a_search_that_computes():
    result = AStarPlanner(heuristic="blind", cpu_time=True).solve(bw("hard_problem_0"), timeout=0.2)
    assert result.status is PlanStatus.TIMEOUT and "no plan within 0.2s" in result.message


def test_fast_downward_honours_its_limit_and_reports_a_timeout():
    t0 = time.perf_counter()
    result = FastDownwardPlanner("fd-blind", "astar(blind())", optimal=True).solve(bw("hard_problem_0"), timeout=0.05)
    assert result.status is PlanStatus.TIMEOUT and "no plan within" in result.message
    assert time.perf_counter() - t0 < 2


def test_optimal_configuration_is_lmcut_unless_conditional_effects():
    gripper = load_task(shipped_domain("gripper"), shipped_problem("gripper", "gripper-4balls"))
    assert optimal_search(gripper, gripper.init) == LMCUT
    blocks = bw("simple_problem_1")  # ViPlan's Blocksworld moves with conditional effects
    assert optimal_search(blocks, blocks.init) == HMAX


class _TimesOut:
    name, optimal, unknown_as = "slow-opt", True, False

    def solve(self, task, *, init=None, goal=None, timeout=60.0):
        return PlanResult(PlanStatus.TIMEOUT, (), timeout, self.name, f"no plan within {timeout:g}s")


class _Unsolvable(_TimesOut):
    def solve(self, task, *, init=None, goal=None, timeout=60.0):
        return PlanResult(PlanStatus.UNSOLVABLE, (), 0.0, self.name, "no plan exists")


def test_fallback_plan_is_never_called_optimal():
    result = FallbackPlanner(_TimesOut(), AStarPlanner()).solve(bw("simple_problem_1"), timeout=8)
    assert result.solved and not result.optimal and len(result.plan) == 3
    assert result.planner == "slow-opt, fallback astar" and "not proven optimal" in result.message
    assert "6s" in result.message  # the optimal search had 3/4 of the limit


def test_fallback_keeps_an_unsolvable_verdict():
    result = FallbackPlanner(_Unsolvable(), AStarPlanner()).solve(bw("simple_problem_1"), timeout=8)
    assert result.status is PlanStatus.UNSOLVABLE


def test_cli_timeout_says_how_to_get_a_plan_and_fallback_marks_it(monkeypatch, capsys):
    monkeypatch.setitem(PLANNERS, "slow-opt", lambda **kw: _TimesOut())
    monkeypatch.setitem(PLANNERS, "fd-lama", lambda **kw: AStarPlanner(**kw))
    problem = str(shipped_problem("blocksworld", "simple_problem_1"))
    assert main(["plan", "blocksworld", problem, "--planner", "slow-opt", "--timeout", "4"]) == 1
    out = capsys.readouterr().out
    assert "timeout" in out and "--planner fd-lama or --fallback satisficing" in out and "(optimal)" not in out
    assert main(["plan", "blocksworld", problem, "--planner", "slow-opt", "--timeout", "4",
                 "--fallback", "satisficing"]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert "fallback" in last and last.endswith("(not proven optimal)")


def _first_problem(domain: str):
    return min((domain_dir(domain) / "problems").glob("*.pddl"))


@pytest.mark.parametrize("domain", ["blocksworld", "household", "gripper", "miconic-adl", "logistics", "sokoban"])
def test_applicable_actions_equal_a_scan_of_every_action(domain):
    task = load_task(shipped_domain(domain), _first_problem(domain))
    every = list(task.all_actions())
    rng = random.Random(0)
    state = task.init
    for _ in range(25):  # a random walk: states reachable from the initial state
        fast = task.applicable_actions(state)
        assert fast == [a for a in every if a.is_applicable(state)]
        if not fast:
            break
        state = rng.choice(fast).apply(state)
    # A state no walk reaches (it holds unreachable atoms) is still answered exactly.
    odd = state | {Atom(p.name, tuple(task.objects_of(t)[0] for _, t in p.params))
                   for p in task.domain.predicates.values() if all(task.objects_of(t) for _, t in p.params)}
    assert task.applicable_actions(odd) == [a for a in every if a.is_applicable(odd)]
