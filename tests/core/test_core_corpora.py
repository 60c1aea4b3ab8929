"""Reply shapes from LLM-plan corpora other than PlanBench, pinned on hand-written inputs.

LLM+P (``Cranial-XIX/llm-pddl``) asks a model for a plan in English for domains
without sentence templates; its replies name the acting robot first ("Robot1 moves
from room1 to room2.") and mix a known action's name with English ("Pickup b4 from
b6."). pgt once skipped the first shape as prose (a reply of such steps for a goal
that already held was judged a *valid* empty plan) and refused the second as
"unknown object 'from'". The domain and replies here are written for these tests,
shaped like the corpus's; docs/core.md has the figures over the corpus itself.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core_support import shipped_task
from toolkit.cli import main
from toolkit.commands.validate import load
from toolkit.plans import Reason, parse_plan
from toolkit.verify import check_plan

DATA = Path(__file__).parent / "data" / "corpora"
DOMAIN = DATA / "grippers_domain.pddl"


def _task(problem: str):
    return load(str(DOMAIN), str(DATA / problem))


def test_subject_first_steps_read_when_the_subject_is_the_first_argument() -> None:
    reply = ("Sure, here is an optimal plan to solve the problem:\n\n1. Robot1 moves from hall to kitchen.\n"
             "2. Robot 1 moves from kitchen to hall.\n\nThis plan returns the robot to where it started.")
    parsed = parse_plan(reply, _task("grippers_p1.pddl"))
    assert [str(a) for a in parsed.actions] == ["(move robot1 hall kitchen)", "(move robot1 kitchen hall)"]
    assert [s.read_as for s in parsed.steps] == ["natural-language"] * 2
    assert [k.line for k in parsed.skipped] == [1, 6]


def test_an_unreadable_subject_first_item_is_a_step_error_not_prose() -> None:
    reply = ("Sure, here is an optimal plan:\n\n1. Robot1 picks up ball1 with its left gripper in hall.\n"
             "2. Robot1 moves from hall to kitchen.\n3. Robot1 drops ball1 in kitchen.\n")
    report = check_plan(_task("grippers_p1.pddl"), reply)
    assert (report.valid, report.failed_step, report.reason) == (False, 1, Reason.UNPARSEABLE_STEP)
    assert report.message == ("step 1 (line 3): cannot read 'Robot1 picks up ball1 with its left gripper in hall' "
                              "as an action; closest known actions: pick")


def test_steps_pgt_cannot_read_never_make_an_empty_valid_plan() -> None:
    # The goal holds at the start; the reply's steps (which move the robot away) must not vanish as prose.
    reply = "1. Robot1 goes over to the kitchen.\n2. Robot1 picks up ball1 in the kitchen.\n"
    report = check_plan(_task("grippers_p2.pddl"), reply)
    assert not report.valid and report.reason == Reason.UNPARSEABLE_STEP
    assert report.steps[0].text == "Robot1 picks up ball1 in the kitchen"


@pytest.mark.parametrize("reply", [
    "1. (move robot1 hall kitchen)\n\nThis robot1 moves fast, so the plan is short.",  # subject is not an object
    "Robot1 moves from hall to kitchen, which is what the plan does.",  # not a list item: prose stays prose
])
def test_subject_first_prose_is_not_a_step(reply: str) -> None:
    parsed = parse_plan(reply, _task("grippers_p1.pddl"))
    assert parsed.first_error() is None
    assert len(parsed.steps) == (1 if reply.startswith("1.") else 0)


def test_an_article_that_names_an_object_is_no_subject() -> None:
    # Blocksworld names a block "a": "A stack of ..." in a list is still prose.
    parsed = parse_plan("Notes:\n- A stack of three blocks is the goal.\n", shipped_task("blocksworld-4ops", "bw4-3"))
    assert (parsed.steps, parsed.verdict) == ((), Reason.EMPTY.value)


def test_a_subject_first_step_with_objects_of_the_wrong_type_is_refused() -> None:
    report = check_plan(_task("grippers_p1.pddl"), "1. Robot1 moves ball1 to kitchen.\n")
    assert report.reason == Reason.UNPARSEABLE_STEP and "closest known actions: move" in report.message


@pytest.mark.parametrize(("line", "word"), [("Pick-up c from a.", "from"), ("Stack b with your arm on c.", "with")])
def test_english_words_among_a_known_actions_args_are_not_objects(line: str, word: str) -> None:
    report = check_plan(shipped_task("blocksworld-4ops", "bw4-3"), "1. (unstack c a)\n2. " + line + "\n")
    assert (report.failed_step, report.reason) == (2, Reason.UNPARSEABLE_STEP)
    assert f"unknown object '{word}'" not in report.message
    assert report.message.startswith(f"step 2 (line 2): cannot read {line.rstrip('.')!r} as an action")


def test_validate_batch_on_corpus_shaped_lines(tmp_path, capsys) -> None:
    lines = [{"id": "run0/llm/p1", "domain": str(DOMAIN), "problem": str(DATA / "grippers_p1.pddl"),
              "plan": "1. Robot1 moves from hall to kitchen.\n2. Robot1 moves from kitchen to hall.\n"},
             {"id": "run0/llm_ic_pddl/p1", "domain": str(DOMAIN), "problem": str(DATA / "grippers_p1.pddl"),
              "plan": "(pick robot1 ball1 hall lgrip)\n(move robot1 hall kitchen)\n(drop robot1 ball1 kitchen lgrip)\n"
                      "; cost = 3 (unit cost)\n"}]
    batch = tmp_path / "batch.jsonl"
    batch.write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert main(["validate-batch", str(batch)]) == 1
    records = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.startswith("{")]
    assert [(r["id"], r["valid"], r["reason"]) for r in records] == [
        ("run0/llm/p1", False, "goal_unmet"), ("run0/llm_ic_pddl/p1", True, None)]
    assert records[0]["reading"]["read_as"] == "natural-language"
