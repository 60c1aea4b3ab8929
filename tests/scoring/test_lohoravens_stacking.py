"""LoHoRavens' stacking families and the hidden pyramid, checked by hand against the official resets.

Heights and tolerances are the official ones (``cliport/tasks/stack_blocks.py``,
``size_reasoning_tasks.py``, ``Task.is_match`` with ``consider_z_in_match`` and
``height_eps`` 1.5 cm); a block's height is what it rests on plus half its own.
"""

from __future__ import annotations

import pytest

from scene_graphs import make_world
from scene_graphs.lohoravens import problem_text
from toolkit.domains import shipped_domain
from toolkit.scoring.lohoravens_families import make_instance
from toolkit.scoring.lohoravens_stacks import Level, placement, stack_heights
from toolkit.task import load_task


def _world(family: str, seed: int, tmp_path):
    path = tmp_path / f"{family}.pddl"
    path.write_text(problem_text(family, seed))
    task = load_task(shipped_domain("lohoravens"), path)
    return task, make_world(task)


def test_a_block_matches_a_level_by_its_resting_height_and_one_tower_per_base():
    targets = (Level("z/level-1", "z", 0.02), Level("z/level-2", "z", 0.06), Level("z/level-3", "z", 0.10))
    blocks = ("a", "b", "big-c")
    on = {"a": "z", "b": "a", "big-c": "table"}
    state = placement(on, blocks, targets)
    assert state.matched == {"a": frozenset({"z/level-1"}), "b": frozenset({"z/level-2"})}
    # a 6 cm block under a 4 cm one lifts it to 8 cm: 2 cm from both 6 and 10 cm, no match
    state = placement({"a": "big-c", "b": "table", "big-c": "z"}, blocks, targets)
    assert "a" not in state.matched
    # two towers on one zone: neither stands at its centre (the 1 cm tolerance in the plane)
    assert placement({"a": "z", "b": "z", "big-c": "table"}, blocks, targets).matched == {}


def test_smaller_over_bigger_aims_at_six_centimetres_and_never_scores(tmp_path):
    inst = make_instance("stack-smaller-over-bigger-with-same-color", 3)
    step = inst.steps[0]
    assert all(t.z == 0.06 for t in inst.levels)  # 0.06 + 0.04 // 2: the floor division is 0
    assert all(not o.startswith("big-") for o in step.objects) and step.max_reward == 1.0
    n = len(step.objects)
    assert inst.max_steps == n + 2 and all(step.matches[i][j] == (i == j) for i in range(n) for j in range(n))
    # every small block on its big block (where the instruction wants it): 8 cm against a 6 cm target
    moves = [(s, f"big-{s}") for s in step.objects]
    assert inst.trace(moves) == [0.0] * n
    task, world = _world(inst.family, 3, tmp_path)
    state = task.init
    for block, dest in moves:
        action = world.move_action(block, dest)
        assert world.execute(action).executed
        state = action.apply(state)
    assert task.goal_holds(state) and world.score() == 0.0 and not world.done()


def test_smaller_over_bigger_in_a_zone_puts_the_big_targets_at_six_centimetres():
    inst = make_instance("stack-smaller-over-bigger-with-same-color-in-same-color-zone", 0)
    assert [s.max_reward for s in inst.steps] == [0.5, 0.5]
    big_t = {t.name: t.z for t in inst.levels}
    assert {round(z, 3) for z in big_t.values()} == {0.06, 0.1}
    n = len(inst.steps[0].objects)
    assert inst.max_steps == 2 * n + 3
    bigs = [(b, f"zone-{b.removeprefix('big-').removesuffix('-block')}") for b in inst.steps[0].objects]
    assert inst.trace(bigs)[-1] == 0.0  # a big block on its zone rests at 3 cm


def test_size_order_is_done_after_its_first_step_and_a_run_keeps_that_reward(tmp_path):
    inst = make_instance("stack-blocks-by-color-in-size-order", 2)
    bigs, smalls = inst.steps
    assert [s.max_reward for s in inst.steps] == [1.0, 1.0]
    heights = sorted(t.z for t in inst.levels)
    assert heights == pytest.approx(stack_heights(len(bigs.objects), 0.06)
                                    + stack_heights(len(smalls.objects), 0.04, 0.06 * len(bigs.objects)))
    task, world = _world(inst.family, 2, tmp_path)
    dest = inst.levels[0].base
    for block in (*bigs.objects, *smalls.objects):  # the instruction's tower, bigs under smalls
        world.execute(world.move_action(block, dest))
        dest = block
    assert world.done() and world.score() == pytest.approx(1.0)  # done at 1 after the big blocks: 0.98
    # the official loop ends the episode at done(): the reward stays where done() found it (not 2.0)
    assert world.trace[len(bigs.objects):] == [pytest.approx(1.0)] * len(smalls.objects)


def test_same_size_scores_every_block_then_the_big_ones_again():
    inst = make_instance("stack-blocks-of-same-size", 1)  # 1 big, 4 small
    first, second = inst.steps
    assert (first.max_reward, second.max_reward) == (1.0, 1.0)
    assert second.objects == tuple(o for o in first.objects if o.startswith("big-"))
    n_big = len(second.objects)
    assert all(first.matches[i][j] == ((i < n_big) == (j < n_big)) for i in range(len(first.objects))
               for j in range(len(first.objects)))
    assert inst.trace(inst.oracle()) == pytest.approx([0.2, 0.4, 0.6, 0.8, 1.0])


def test_absolute_position_in_size_order_counts_both_sizes_from_the_zone():
    for seed in range(60):
        inst = make_instance("stack-blocks-by-absolute-position-and-color-in-size-order", seed)
        (step,) = inst.steps
        bigs = [o for o in step.objects if o.startswith("big-")]
        if bigs and len(bigs) < len(step.objects):
            break
    small_z = sorted(t.z for t in inst.levels if t.name in step.targets[len(bigs):])
    assert small_z[0] == pytest.approx(0.02)  # not above the big blocks: the reset starts both from the zone
    assert inst.trace(inst.oracle())[-1] < 0.98  # the small blocks land on the big stack, off their heights


def test_positions_select_the_blocks_as_the_resets_read_them():
    for seed in range(20):
        inst = make_instance("stack-blocks-by-relative-position-and-color", seed)
        xy = {b: (x, y) for b, x, y in inst.positions}
        x0, y0 = xy[inst.blocks[0]]
        side = inst.instruction.split(" of the ")[0].rsplit(" ", 1)[1]
        test = {"left": lambda x, y: y + 0.05 < y0, "right": lambda x, y: y - 0.05 > y0,
                "top": lambda x, y: x + 0.05 < x0, "bottom": lambda x, y: x - 0.05 > x0}[side]
        assert set(inst.steps[0].objects) == {b for b, (x, y) in xy.items() if test(x, y)}


def test_alternate_colours_take_the_levels_of_their_parity():
    inst = make_instance("stack-blocks-with-alternate-color", 0)
    (step,) = inst.steps
    assert len(step.objects) == 5 and inst.max_steps == 7
    assert all(step.matches[i][j] == (i % 2 == j % 2) for i in range(5) for j in range(5))
    a0, b0, a1, b1, a2 = step.objects
    zone = inst.levels[0].base
    swapped = [(a1, zone), (b1, a1), (a0, b1), (b0, a0), (a2, b0)]  # same colours, other blocks: still full
    assert inst.trace(swapped)[-1] == pytest.approx(1.0)
    wrong = [(a0, zone), (a1, a0)]  # two of the first colour in a row: the second is off its parity
    assert inst.trace(wrong) == pytest.approx([0.2, 0.2])


def test_hidden_pyramid_blocks_lean_and_come_off_top_down(tmp_path):
    inst = make_instance("put-hidden-blocks-in-pyramid-into-matching-bowls", 4)
    top_step, bottom_step = inst.steps
    b = inst.blocks
    assert top_step.objects == (b[5], b[4], b[3]) and top_step.max_reward == 0.02  # blocks[3:6][::-1]
    assert bottom_step.objects == b[:3] and bottom_step.max_reward == 0.98 and inst.max_steps == 8
    task, world = _world(inst.family, 4, tmp_path)
    assert not world.can_execute(task.action("put-on-place", [b[1], "table", "bowl-" + b[1].split("-")[-2]]))
    assert not world.can_execute(task.action("unstack-to-place", [b[4], b[1], "table"]))  # it leans on b[2]
    state = task.init
    for block, dest in inst.oracle():
        action = world.move_action(block, dest)
        assert world.execute(action).executed
        state = action.apply(state)
        assert world.true_state() == state
    assert world.trace == pytest.approx([0.02 / 3, 0.04 / 3, 0.02, 0.02 + 0.98 / 3, 0.02 + 1.96 / 3, 1.0])



def test_same_colour_instances_have_the_distractor_zone_the_reset_needs():
    # StackBlockOfSameColor.reset raises when it draws no distractor zone (it tests `c not in None`)
    for seed in range(30):
        inst = make_instance("stack-blocks-of-same-color", seed)
        colours = {b.split("-")[0] for b in inst.blocks}
        zones = [p for p in inst.places if p.startswith("zone-")]
        assert len(zones) == len(colours) + 1 and len({z.removeprefix("zone-") for z in zones} - colours) == 1
