"""Grounding loops on a domain with derived predicates: derived atoms are never asked, they follow.

A grounder perceives basic atoms; the domain's ``:derived`` rules give the rest. Both
protocols close what they believe under the rules (``Task.derive``) and plan through
Fast Downward (pgt's own search has no axioms), on the relay domain of
``tests/core/data/derived``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.episode import make_planner
from grounders.oracle import Oracle
from toolkit.agents.belief_agent import BeliefAgentConfig, run_belief_agent
from toolkit.agents.belief_scope import relevant_atoms
from toolkit.agents.viplan import ViPlanGrounderConfig, run_viplan_grounder
from toolkit.simulator import SymbolicEnvironment
from toolkit.task import load_task

DATA = Path(__file__).resolve().parents[1] / "core" / "data" / "derived"


def _task():
    return load_task(DATA / "domain.pddl", DATA / "problem.pddl")


def test_derived_atoms_are_not_among_the_atoms_a_belief_agent_asks_about():
    task = _task()
    assert {a.predicate for a in relevant_atoms(task)} == {"link", "powered"}


def test_both_protocols_reach_the_goal_asking_only_basic_atoms():
    from toolkit.planners.fd import fd_driver

    try:
        fd_driver()
    except Exception:  # noqa: BLE001 - FD is the planners extra
        pytest.skip("Fast Downward is missing (the planners extra)")
    planner = make_planner("auto")
    ours = run_belief_agent(SymbolicEnvironment(_task()), Oracle(), planner, BeliefAgentConfig(max_steps=20))
    theirs = run_viplan_grounder(SymbolicEnvironment(_task()), Oracle(), planner, ViPlanGrounderConfig(max_steps=20))
    assert ours.success and theirs.success
    for result in (ours, theirs):
        assert not set(result.ledger.per_predicate) & {"reach", "cut-off"}, result.ledger.per_predicate
