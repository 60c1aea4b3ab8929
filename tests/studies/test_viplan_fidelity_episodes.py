"""``pgt fidelity --released`` simulates exactly the released run's episodes: the same problems, as many each.

ViPlan's household runs play a problem once per scene instance (2 to 7 per problem), so
simulating every problem with the largest count weighed the problems of a split otherwise
than the released run did (36 simulated episodes against 25 on the medium split).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.study_config import RunConfig, episode_specs
from benchmarks.viplan_fidelity import recorded, studies
from toolkit.errors import PgtError

ROOT = Path(__file__).resolve().parents[2]
PROBLEMS = ROOT / "tests/studies/data/viplan_clone/data/planning/blocksworld/problems/simple"
DOMAIN = ROOT / "tests/studies/data/viplan_clone/data/planning/blocksworld/domain.pddl"
CALIBRATION = ROOT / "grounders/calibrations/viplan-logs-bw-cot-gpt-4.1.toml"


def _released(folder: Path, counts: dict[str, int], successes: int = 0) -> Path:
    """An imported run of the simple split with ``counts[problem]`` episodes per problem (seeds 0, 1, ...)."""
    folder.mkdir(parents=True)
    lines = []
    for problem, n in counts.items():
        for seed in range(n):
            won = len(lines) < successes
            lines.append({"schema": 1, "id": f"simple/{problem}/seed{seed}", "split": "simple", "problem": problem,
                          "seed": seed, "success": won, "outcome": "success" if won else "failure",
                          "config": {"protocol": "viplan-grounder", "suite": str(PROBLEMS), "domain": str(DOMAIN)},
                          "imported": {"from": "viplan", "file": "results/final/blocksworld/x.json",
                                       "max_steps": 20, "fail_probability": 0.0}})
    (folder / "episodes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    return folder


def _ids(config: RunConfig) -> list[str]:
    return sorted(spec.id for spec in episode_specs(config))


def test_each_problem_runs_as_many_episodes_as_the_released_run_had(tmp_path: Path) -> None:
    run = _released(tmp_path / "run", {"simple_problem_0": 1, "simple_problem_1": 3})  # simple_problem_2: none
    (split, config), = studies(run, CALIBRATION, 1)
    assert split == "simple"
    assert _ids(config) == ["simple/simple_problem_0/seed0", "simple/simple_problem_1/seed0",
                            "simple/simple_problem_1/seed1", "simple/simple_problem_1/seed2"]
    (_, twice), = studies(run, CALIBRATION, 2)  # --seeds 2: two simulated episodes per released one
    assert len(_ids(twice)) == 8 and "simple/simple_problem_0/seed1" in _ids(twice)
    assert RunConfig.from_dict(json.loads(json.dumps(config.to_dict()))) == config  # config.json round trip


def test_a_run_with_one_count_for_every_problem_keeps_the_plain_config(tmp_path: Path) -> None:
    """Every Blocksworld run: one episode per problem; studies measured before resume unchanged."""
    run = _released(tmp_path / "run", {f"simple_problem_{i}": 1 for i in range(3)})
    (_, config), = studies(run, CALIBRATION, 1)
    assert config.seeds == 1 and config.seeds_per_problem is None
    assert len(_ids(config)) == 3


def test_the_table_counts_only_the_released_runs_episodes(tmp_path: Path) -> None:
    """A study folder simulated with the largest count for every problem is judged on the exact episodes."""
    run = _released(tmp_path / "run", {"simple_problem_0": 1, "simple_problem_1": 3}, successes=1)
    out = tmp_path / "out"
    study = out / "run" / "simple"
    study.mkdir(parents=True)
    records = [{"schema": 1, "id": f"simple/{p}/seed{s}", "split": "simple", "problem": p, "seed": s,
                "success": p == "simple_problem_0" and s > 0, "outcome": "failure",
                "config": {"noise": "independent"}}
               for p in ("simple_problem_0", "simple_problem_1", "simple_problem_2") for s in range(3)]
    for r in records:
        r["outcome"] = "success" if r["success"] else "failure"
    (study / "episodes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    (out / "run" / "released.json").write_text(json.dumps({"released": str(run), "calibration": str(CALIBRATION),
                                                           "splits": ["simple"]}), encoding="utf-8")
    result, = recorded(out)
    verdict = result.splits["simple"]
    assert (verdict.simulated.n, verdict.paper.n) == (4, 4)
    assert verdict.simulated.mean == 0.0  # the successes were all on seeds the released run does not have


def test_seeds_per_problem_naming_no_problem_of_the_suite_is_one_line() -> None:
    config = RunConfig(suite=str(PROBLEMS), domain=str(DOMAIN), grounder="oracle",
                       seeds_per_problem=(("simple_problem_9", 2),))
    with pytest.raises(PgtError, match=r"seeds per problem: no problem simple_problem_9 in suite .*simple_problem_0"):
        episode_specs(config)
