"""LoHoRavens' Planner-Actor-Reporter loop: budget, reward and success as the official evaluation sums them."""

from __future__ import annotations

import pytest

from grounders.oracle import Oracle
from scene_graphs import make_world
from scene_graphs.lohoravens import problem_text
from toolkit.agents.par import NoisyOraclePlanner, instruction, run_par
from toolkit.domains import shipped_domain
from toolkit.scoring.lohoravens import trace
from toolkit.task import load_task

FAMILY = "put-hidden-blocks-in-two-layer-towers-into-matching-bowls"


def _world(tmp_path, family=FAMILY, seed=1, **kw):
    path = tmp_path / "p.pddl"
    path.write_text(problem_text(family, seed))
    return make_world(load_task(shipped_domain("lohoravens"), path), **kw)


def test_a_perfect_planner_scores_the_oracle_trace(tmp_path):
    world = _world(tmp_path)
    ep = run_par(world, NoisyOraclePlanner(world), Oracle())
    inst = world.instance
    assert ep.success and ep.total_reward == pytest.approx(1.0) and ep.unreadable == 0
    assert list(ep.trace) == pytest.approx(trace(list(inst.steps), inst.start(), inst.oracle()))
    assert ep.instructions[0] == instruction(*inst.oracle()[0])


def test_a_noisy_planner_is_seeded_and_bounded_by_max_steps(tmp_path):
    world = _world(tmp_path)
    runs = [run_par(world, NoisyOraclePlanner(world, wrong=0.5, skip=0.2, seed=3), Oracle()).to_json()
            for _ in range(2)]
    assert runs[0] == runs[1]
    assert runs[0]["steps"] <= world.instance.max_steps == len(world.instance.blocks) + 2
    assert not runs[0]["success"] or runs[0]["total_reward"] >= 0.98


def test_unreadable_instructions_move_nothing_but_the_world_steps(tmp_path):
    class Mumbler:
        def next_step(self, goal, feedback, history):
            return "let me think about the towers"

    world = _world(tmp_path)
    ep = run_par(world, Mumbler(), Oracle())
    assert ep.steps == world.instance.max_steps and ep.unreadable == ep.steps and ep.total_reward == 0.0


def test_reporter_mistakes_cost_reward_and_the_cli_reports_loho_metrics(capsys):
    import json

    from toolkit.cli import main

    argv = ["lohoravens-par", FAMILY, "--seeds", "12", "--wrong", "0.2", "--json"]
    assert main(argv) == 0
    clean = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert main([*argv, "--accuracy", "0.85"]) == 0
    noisy = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert clean["episodes"] == noisy["episodes"] == 12
    assert noisy["mean_reward"] < clean["mean_reward"] and noisy["success"] <= clean["success"]
