"""One contract for every world: the shipped ones, the generic one, and a user's own plug-in.

Whatever holds the truth (a networkx graph, the PDDL core), a world must agree with
the PDDL semantics atom for atom, refuse inapplicable actions without changing
anything, be deterministic under a seed, and draw every state (same state, same
bytes). The user's world is docs/examples/warehouse_world.py, loaded the way
``pgt run --world warehouse_world:WarehouseWorld`` loads it.
"""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path

import pytest

from scene_graphs.registry import WORLDS, WorldPluginError, make_world
from toolkit.domains import shipped_domain
from toolkit.task import load_task

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "examples"
WAREHOUSE = EXAMPLES / "warehouse"
PNG = b"\x89PNG\r\n\x1a\n"

# (id, domain file, problem file, --world spec or None)
CASES = [
    ("blocksworld", shipped_domain("blocksworld"), ROOT / "pddl_domains/blocksworld/problems/simple_problem_0.pddl", None),
    ("household", shipped_domain("household"), ROOT / "pddl_domains/household/problems/sorting_books_0.pddl", None),
    ("generic-gripper", shipped_domain("gripper"),
     sorted((ROOT / "pddl_domains/gripper/problems").glob("*.pddl"))[0], None),
    ("generic-warehouse", WAREHOUSE / "domain.pddl", WAREHOUSE / "problems/swap.pddl", None),
    ("plugin-warehouse", WAREHOUSE / "domain.pddl", WAREHOUSE / "problems/swap.pddl",
     "warehouse_world:WarehouseWorld"),
    ("plugin-file-warehouse", WAREHOUSE / "domain.pddl", WAREHOUSE / "problems/two-boxes.pddl",
     f"{EXAMPLES / 'warehouse_world.py'}:WarehouseWorld"),
    ("lohoravens", shipped_domain("lohoravens"),
     ROOT / "pddl_domains/lohoravens/problems/put-hidden-blocks-in-two-layer-towers-into-matching-bowls_1.pddl", None),
    pytest.param("babyai", shipped_domain("babyai"), ROOT / "pddl_domains/babyai/problems/gotoobj_1.pddl", None,
                 marks=pytest.mark.skipif(importlib.util.find_spec("minigrid") is None,
                                          reason="needs minigrid (extra babyai)")),
]


@pytest.fixture(autouse=True)
def _examples_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLES))  # as a user's PYTHONPATH holds their project


def test_every_shipped_world_is_covered() -> None:
    covered = {(c.values if hasattr(c, "values") else c)[0] for c in CASES}
    assert set(WORLDS) - {"igibson"} <= covered, "add the new world to CASES"  # igibson: the household world


@pytest.mark.parametrize("name,domain,problem,world", CASES,
                         ids=[(c.values if hasattr(c, "values") else c)[0] for c in CASES])
def test_world_contract(name: str, domain: Path, problem: Path, world: str | None) -> None:
    task = load_task(domain, problem)
    env = make_world(task, seed=0, world=world)
    if world:
        assert type(env).__name__ == world.rsplit(":", 1)[1]
    elif task.domain.name.lower() not in WORLDS:
        assert type(env).__name__ == "GenericWorld"
    obs = env.reset(seed=3)
    assert env.true_state() == task.init and obs.truth == task.init
    first = obs.png()
    assert first.startswith(PNG) and env.reset(seed=3).png() == first  # deterministic picture
    actions = list(task.reachable_actions())
    rng = random.Random(name)
    state = task.init
    for _ in range(15):
        blocked = [a for a in actions if not a.is_applicable(state)]
        if blocked:  # refused, nothing changes
            out = env.execute(rng.choice(blocked))
            assert not out.executed and env.true_state() == state
        ready = [a for a in actions if a.is_applicable(state)]
        if not ready:
            break
        action = rng.choice(ready)
        out = env.execute(action)
        state = action.apply(state)
        assert out.executed and out.failure is None
        assert env.true_state() == state == out.observation.truth, str(action)
        assert out.observation.png().startswith(PNG)


@pytest.mark.parametrize("name,domain,problem,world", CASES,
                         ids=[(c.values if hasattr(c, "values") else c)[0] for c in CASES])
def test_a_problem_written_in_upper_case_is_the_same_world(name: str, domain: Path, problem: Path, world: str | None,
                                                           tmp_path: Path) -> None:
    # PDDL names are case-insensitive: a world keeps the problem's spelling in its atoms and takes actions in any case
    shouted = tmp_path / problem.name
    shouted.write_text(problem.read_text(encoding="utf-8").upper(), encoding="utf-8")
    task = load_task(domain, shouted)
    env = make_world(task, seed=0, world=world)
    assert env.reset(seed=3).truth == task.init and env.true_state() == task.init
    rng, state = random.Random(name), task.init
    for _ in range(5):
        ready = [a for a in task.reachable_actions() if a.is_applicable(state)]
        if not ready:
            break
        action = rng.choice(ready)
        assert env.execute(action).executed, str(action)
        state = action.apply(state)
        assert env.true_state() == state, str(action)


def test_a_bad_world_spec_is_one_line() -> None:
    task = load_task(WAREHOUSE / "domain.pddl", WAREHOUSE / "problems/swap.pddl")
    for spec, words in (("warehouse_world", "expected MODULE:CLASS"), ("no_such_module:W", "cannot import"),
                        ("warehouse_world:Nope", "has no Nope"), ("missing.py:W", "no file missing.py")):
        with pytest.raises(WorldPluginError, match=words):
            make_world(task, world=spec)
    sys.modules.pop("no_such_module", None)


def test_an_entry_point_registers_a_world_for_its_domain(monkeypatch: pytest.MonkeyPatch) -> None:
    """``[project.entry-points."pgt.worlds"] warehouse = "warehouse_world:WarehouseWorld"`` in a user's package."""
    from importlib import metadata

    import scene_graphs.registry as registry

    point = metadata.EntryPoint(name="warehouse", value="warehouse_world:WarehouseWorld", group="pgt.worlds")
    monkeypatch.setattr(registry.metadata, "entry_points",
                        lambda group: [point] if group == registry.ENTRY_POINT_GROUP else [])
    registry.plugin_worlds.cache_clear()
    try:
        task = load_task(WAREHOUSE / "domain.pddl", WAREHOUSE / "problems/swap.pddl")
        assert registry.world_source(task) == "entry point warehouse"
        assert type(make_world(task)).__name__ == "WarehouseWorld"
        broken = metadata.EntryPoint(name="warehouse", value="warehouse_world:Missing", group="pgt.worlds")
        monkeypatch.setattr(registry.metadata, "entry_points", lambda group: [broken])
        registry.plugin_worlds.cache_clear()
        with pytest.raises(WorldPluginError, match="cannot be loaded"):
            make_world(task)
    finally:
        registry.plugin_worlds.cache_clear()
