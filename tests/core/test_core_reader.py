"""The plan reader on whole model replies: each shape pinned to the plan it must yield.

The replies are written for these tests (four-operator Blocksworld, problem bw4-3:
c is on a; goal a on b on c), one per shape a model writes, plus negative cases
where prose mentions actions but holds no step.
"""

from __future__ import annotations

import json
import random

import pytest

from core_support import random_walk, shipped_pairs, shipped_task
from toolkit.cli import main
from toolkit.domains import domain_dir
from toolkit.plans import Reason, parse_plan
from toolkit.questions import QuestionBook
from toolkit.verify import check_plan

TASK = shipped_task("blocksworld-4ops", "bw4-3")
PLAN = ["(unstack c a)", "(put-down c)", "(pick-up b)", "(stack b c)", "(pick-up a)", "(stack a b)"]
ENGLISH = ["unstack the orange block from on top of the red block", "put down the orange block",
           "pick up the blue block", "stack the blue block on top of the orange block", "pick up the red block",
           "stack the red block on top of the blue block"]

SHAPES = {
    "planbench markers with prose": (
        "Let me think. The orange block sits on the red block, so (unstack c a) comes first.\n\n"
        "[PLAN]\n" + "\n".join(PLAN) + "\n[PLAN END]\n\nThis achieves the goal."),
    "query plan marker": "[QUERY PLAN]\n" + "\n".join(PLAN) + "\n[PLAN END]",
    "two actions per line": "(unstack c a) (put-down c)\n(pick-up b) (stack b c)\n(pick-up a) (stack a b)",
    "call style, several per line": "unstack(c, a), put-down(c), pick-up(b)\nstack(b, c), pick-up(a), stack(a, b)",
    "backslash continuations": "(unstack c a) \\\n(put-down c)\n(pick-up b)\n(stack b c)\n(pick-up a)\n(stack a b)",
    "action split over lines": "(unstack c\n   a)\n(put-down\n c)\n(pick-up b)\n(stack b\n c)\n(pick-up a)\n(stack a b)",
    "numbered list then a fenced copy": (
        "Here is my plan:\n" + "".join(f"{i}. {p}\n" for i, p in enumerate(PLAN, 1))
        + "\nIn PDDL:\n```pddl\n" + "\n".join(PLAN) + "\n```\n"),
    "bullets and bold step prefixes": "".join(f"- **Step {i}:** {p}\n" for i, p in enumerate(PLAN, 1)),
    "timestamps and costs": "".join(f"{i}.000: {p} [1.000]\n" for i, p in enumerate(PLAN)) + "; cost = 6 (unit cost)",
    "step N prefixes": "".join(f"step {i}: {p}\n" for i, p in enumerate(PLAN, 1)),
    "english planbench": "[PLAN]\n" + "\n".join(ENGLISH) + "\n[PLAN END]",
    "english numbered with filler": "".join(f"{i}. {w}{p[0].upper()}{p[1:]}.\n" for i, (w, p) in enumerate(
        zip(["First, ", "Then ", "Next, ", "Now I ", "Then, ", "Finally, "], ENGLISH), 1)),
    "english synonyms": ("Remove the orange block from atop the red block.\nPut down the orange block.\n"
                         "Lift the blue block.\nPlace the blue block onto the orange block.\n"
                         "Grab the red block.\nPut the red block on the blue block."),
    "english word order": ("From on top of the red block, unstack the orange block.\nput down the orange block\n"
                           "pick up the blue block\nstack the blue block on top of the orange block\n"
                           "pick up the red block\nstack the red block on top of the blue block"),
    "english with raw names": "unstack c from a\nput down c\npick up b\nstack b on b c".replace("on b c", "on c")
                              + "\npick up a\nstack a on top of b",
    "json in prose": 'Sure.\n{"plan": ["(unstack c a)", "put-down(c)", "pick-up b", "(stack b c)", '
                     '"(pick-up a)", "(stack a b)"]}\nDone.',
    "mixed pddl and english": "\n".join([PLAN[0], ENGLISH[1], PLAN[2], ENGLISH[3], PLAN[4], ENGLISH[5]]),
    "one s-expression wrapping the plan": "The plan in PDDL:\n\n(plan\n  " + "\n  ".join(PLAN) + "\n)\n",
    "fenced s-expression wrapping the plan": "```\n(solution " + " ".join(PLAN) + ")\n```",
    "bare steps with a gloss, then the same plan again": (
        "The steps:\n" + "".join(f"{i}. {p.strip('()').upper()}: {e}.\n" for i, (p, e) in enumerate(zip(PLAN, ENGLISH), 1))
        + "\nThe PDDL plan would look like:\n\n" + "\n".join(PLAN) + "\n"),
    "markdown sections, steps with nested notes": (
        "Here is how.\n\n### Initial conditions:\n- The red block is clear.\n- The hand is empty.\n\n### Goal:\n"
        "- The red block is on the blue block.\n\n### Plan:\n\n"
        + "".join(f"{i}. **{e[0].upper()}{e[1:]}:**\n   - Why: the block is clear.\n   - Result: done, hand is busy.\n"
                  for i, e in enumerate(ENGLISH, 1))
        + "\n**Plan End**\n\nThis plan unstacks the orange block, then stacks the red block on the blue block.\n"
        + "It works by using the Unstack, Stack, and Pick actions.\n"),
    "numbered steps with notes in parentheses on their own lines": "".join(
        f"{i}. **{e[0].upper()}{e[1:]}**\n   *(You can do this because the block is clear, and the hand is free.)*\n"
        for i, e in enumerate(ENGLISH, 1)),
    "steps with nested precondition notes, then a rule and the plan explained": (
        "".join(f"{i}. **{e[0].upper()}{e[1:]}**\n   - **Preconditions:**\n     - *Clear(x)* (given)\n"
                f"     - Harmony \u2705\n" for i, e in enumerate(ENGLISH, 1))
        + "\n---\n\n**Explanation of the plan:**\n\n"
        + "".join(f"{i}. **{e}**\n   - *Hand(empty)* (after step {i})\n" for i, e in enumerate(ENGLISH, 1))),
    "english with remarks in parentheses": "".join(
        f"{i}. {p[0].upper()}{p[1:]} (now the hand is {'busy' if i % 2 else 'empty, and that is fine'}).\n"
        for i, p in enumerate(ENGLISH, 1)),
}


@pytest.mark.parametrize("text", SHAPES.values(), ids=SHAPES.keys())
def test_every_reply_shape_yields_the_plan(text: str) -> None:
    report = check_plan(TASK, text)
    assert report.valid, report.message
    assert [s.action for s in report.steps] == PLAN


def test_reading_report_names_source_lines_and_skipped_prose() -> None:
    text = SHAPES["planbench markers with prose"]
    parsed = parse_plan(text, TASK)
    assert [s.line for s in parsed.steps] == [4, 5, 6, 7, 8, 9]
    assert [(k.line, k.why) for k in parsed.skipped] == [
        (1, "outside the marked plan block"), (12, "outside the marked plan block")]
    assert parsed.read_as == "pddl" and parsed.verdict is None
    assert parse_plan(SHAPES["english planbench"], TASK).read_as == "natural-language"
    assert parse_plan(SHAPES["json in prose"], TASK).read_as == "json"
    assert parse_plan(SHAPES["mixed pddl and english"], TASK).read_as == "mixed"
    listed = parse_plan(SHAPES["numbered list then a fenced copy"], TASK)
    assert len(listed.steps) == 6 and {k.line for k in listed.skipped} == {1, 2, 3, 4, 5, 6, 7, 9}


def test_validate_json_and_human_note(tmp_path, capsys) -> None:
    reply = tmp_path / "reply.txt"
    reply.write_text(SHAPES["english planbench"].replace("[PLAN]", "Okay, here goes.\n[PLAN]"))
    problem = str(domain_dir("blocksworld-4ops") / "problems" / "bw4-3.pddl")
    assert main(["validate", "blocksworld-4ops", problem, str(reply), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["reading"]["read_as"] == "natural-language"
    assert data["reading"]["skipped"] == [{"line": 1, "text": "Okay, here goes.", "why": "outside the marked plan block"}]
    assert [s["line"] for s in data["steps"]] == [3, 4, 5, 6, 7, 8]
    assert main(["validate", "blocksworld-4ops", problem, str(reply)]) == 0
    out = capsys.readouterr().out
    assert "<- line 3: unstack the orange block from on top of the red block" in out
    assert "note: 6 steps read from English; skipped line 1 (outside the marked plan block)" in out


@pytest.mark.parametrize("text", ["(no plan possible)", "No plan exists: the goal is impossible.",
                                  "[PLAN]\nThis problem is unsolvable.\n[PLAN END]",
                                  "I'm afraid the goal cannot be achieved from this state."])
def test_refusals_get_the_claims_unsolvable_verdict(text: str) -> None:
    report = check_plan(TASK, text)
    assert (report.valid, report.reason, report.steps) == (False, Reason.CLAIMS_UNSOLVABLE, ())
    assert report.message.startswith("no plan: the reply says the task cannot be solved")
    assert "unknown action" not in report.message


@pytest.mark.parametrize("text", ["", "   \n\n", "```\n```", "I will think about it.", '{"plan": []}'])
def test_empty_replies_get_the_empty_verdict(text: str) -> None:
    report = check_plan(TASK, text)
    assert (report.valid, report.reason) == (False, Reason.EMPTY)
    assert report.to_json()["reading"]["verdict"] == "empty"


def test_an_empty_plan_for_a_reached_goal_is_valid() -> None:
    task = shipped_task("blocksworld-4ops", "bw4-3")
    done = check_plan(task, "", init=frozenset(check_plan(task, "\n".join(PLAN)).final_state))
    assert done.valid


@pytest.mark.parametrize("text", [
    "To solve this I will use unstack and stack, since pick-up only works on the table.",
    "The stack action needs a clear target block.",
    "Note: put-down is never needed here because the table is large.",
])
def test_prose_that_mentions_actions_is_not_a_step(text: str) -> None:
    parsed = parse_plan(text + "\n" + "\n".join(PLAN) + "\n" + text, TASK)
    assert [str(a) for a in parsed.actions] == PLAN and parsed.ok
    assert [k.line for k in parsed.skipped] == [1, 8]


@pytest.mark.parametrize(("text", "reason", "message"), [
    ("(unstack c a)\nunstak the orange block from the red block", Reason.UNPARSEABLE_STEP,
     "step 2 (line 2): cannot read 'unstak the orange block from the red block' as an action; "
     "closest known actions: unstack, stack"),
    ("1. (unstack c a)\n2. pick up the purple block", Reason.UNPARSEABLE_STEP,
     "step 2 (line 2): cannot read 'pick up the purple block' as an action (closest action pick-up; pick-up takes "
     "1 object, the sentence names 0; words it does not expect: purple block); to read it, name objects as the "
     "prompt did (--objects FILE) or add this phrasing to the domain's questions.toml ([actions] or [synonyms])"),
    ("(unstack c a)\n(stack c a b)", Reason.WRONG_ARITY, "step 2 (line 2): action 'stack' takes 2 argument(s), got 3"),
    ("(pick-up the mauve block)", Reason.UNPARSEABLE_STEP,
     "step 1 (line 1): cannot read '(pick-up the mauve block)' as an action; closest known actions: pick-up"),
])
def test_broken_steps_are_errors_that_name_the_step(text: str, reason: Reason, message: str) -> None:
    report = check_plan(TASK, text)
    assert (report.reason, report.message) == (reason, message)
    assert "unknown object 'the'" not in report.message


def test_an_unreadable_item_of_a_plan_list_is_an_error_not_prose() -> None:
    report = check_plan(TASK, "My plan:\n1. (unstack c a)\n2. Carefully lower the orange block to the floor.\n"
                              "3. (pick-up b)\n\nThoughts: a numbered list\n- is not always a plan")
    assert (report.failed_step, report.reason) == (2, Reason.UNPARSEABLE_STEP)
    assert report.steps[-1].text == "Carefully lower the orange block to the floor"


def test_household_english_reply_with_synonyms() -> None:
    task = shipped_task("household", "cleaning_out_drawers_0")
    reply = ("Okay! To clean out the drawers I will:\n\n1. Go to the cabinet.\n2. Open the cabinet.\n"
             "3. Grab the bowl.\n4. Navigate to the sink.\n5. Put the bowl on the sink.\n")
    report = check_plan(task, reply)
    assert report.valid, report.message
    assert [s.action for s in report.steps] == ["(navigate-to cabinet_1)", "(open-container cabinet_1)",
                                                "(grasp bowl_1)", "(navigate-to sink_1)", "(place-on bowl_1 sink_1)"]


def test_english_inside_pddl_parentheses_reads() -> None:
    assert [s.action for s in check_plan(TASK, "(unstack the orange block from the red block)").steps] == [PLAN[0]]


def test_english_lines_never_read_articles_as_objects() -> None:
    report = check_plan(TASK, "pick up the mauve block")
    assert report.reason == Reason.UNPARSEABLE_STEP and "'the'" not in report.message


def test_ambiguous_phrases_are_reported_with_candidates(tmp_path) -> None:
    objects = tmp_path / "objects.toml"
    objects.write_text('a = ["the red block", "the big block"]\nb = ["the blue block", "the big block"]\n')
    problem = str(domain_dir("blocksworld-4ops") / "problems" / "bw4-3.pddl")
    plan = tmp_path / "plan.txt"
    plan.write_text("unstack the orange block from on top of the big block\n")
    from toolkit.commands.validate import english_reader, load

    task = load("blocksworld-4ops", problem)
    report = check_plan(task, plan.read_text(), action_text=english_reader(task, str(objects)))
    assert report.reason == Reason.AMBIGUOUS_STEP
    assert report.message == ("step 1 (line 1): 'unstack the orange block from on top of the big block' is ambiguous: "
                              "it could be (unstack c a) or (unstack c b)")


def test_objects_file_describes_a_problems_objects(tmp_path, capsys) -> None:
    objects = tmp_path / "objects.toml"
    objects.write_text('# my colours\na = "the crimson cube"\nb = "the azure cube"\nc = ["the amber cube", "amber"]\n')
    plan = tmp_path / "plan.txt"
    plan.write_text("unstack amber from on top of the crimson cube\nput down the amber cube\npick up the azure cube\n"
                    "stack the azure cube on top of amber\npick up the crimson cube\n"
                    "stack the crimson cube on top of the azure cube\n")
    problem = str(domain_dir("blocksworld-4ops") / "problems" / "bw4-3.pddl")
    assert main(["validate", "blocksworld-4ops", problem, str(plan), "--objects", str(objects)]) == 0
    objects.write_text('z = "the crimson cube"\n')
    assert main(["validate", "blocksworld-4ops", problem, str(plan), "--objects", str(objects)]) == 2
    assert "unknown object 'z'" in capsys.readouterr().err


def test_validate_batch_reads_replies_and_refusals(tmp_path, capsys) -> None:
    problem = str(domain_dir("blocksworld-4ops") / "problems" / "bw4-3.pddl")
    rows = [{"id": "reply", "domain": "blocksworld-4ops", "problem": problem, "plan": SHAPES["english planbench"]},
            {"id": "refusal", "domain": "blocksworld-4ops", "problem": problem, "plan": "(no plan possible)"}]
    batch = tmp_path / "batch.jsonl"
    batch.write_text("".join(json.dumps(r) + "\n" for r in rows))
    main(["validate-batch", str(batch)])
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert (out[0]["valid"], out[0]["reading"]["read_as"]) == (True, "natural-language")
    assert (out[1]["valid"], out[1]["reason"]) == (False, "claims_unsolvable")


def test_names_that_start_with_a_digit_read() -> None:
    from toolkit.plans import split_step

    assert split_step("(stack 1a 2b)") == ("stack", ("1a", "2b"))
    assert split_step("stack(1a, 2b)") == ("stack", ("1a", "2b"))
    assert split_step("3d-move 1a") == ("3d-move", ("1a",))


@pytest.mark.parametrize("domain,problem", shipped_pairs())
def test_random_plans_round_trip_through_english(domain: str, problem: str) -> None:
    """Verbalise random walks with the domain's templates as a chatty reply; reading it back gives the walk."""
    task = shipped_task(domain, problem)
    book = QuestionBook(task)
    rng = random.Random(f"{domain}/{problem}")
    for _ in range(3):
        walk = random_walk(task, rng, 8)
        lines = [f"{i}. {book.action_text(a)[0].upper()}{book.action_text(a)[1:]}." for i, a in enumerate(walk, 1)]
        reply = "Here is my plan:\n\n" + "\n".join(lines) + "\n\nLet me know if you need more."
        parsed = parse_plan(reply, task)
        assert parsed.ok, parsed.first_error().message
        assert parsed.actions == walk


# An untemplated copy of the domain (a user's own file): English is read from the action names' words.
UNTEMPLATED_REPLY = """Here is my plan.
1. Unstack the orange block from the red block (I am holding it now).
2. Put down the orange block on the table.
3. Pick up the blue block.
4. Stack the blue block on the orange block.
5. Pick up the red block
6. Stack the red block onto the blue block
"""


def _untemplated_task(tmp_path):
    from toolkit.commands.validate import english_reader, load

    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "domain.pddl").write_text((domain_dir("blocksworld-4ops") / "domain.pddl").read_text())
    objects = tmp_path / "objects.toml"
    objects.write_text('a = "the red block"\nb = "the blue block"\nc = "the orange block"\n')
    task = load(str(folder / "domain.pddl"), str(domain_dir("blocksworld-4ops") / "problems" / "bw4-3.pddl"))
    return task, english_reader(task, str(objects))


def test_untemplated_actions_read_with_prepositions_and_a_closing_place(tmp_path) -> None:
    task, reader = _untemplated_task(tmp_path)
    parsed = parse_plan(UNTEMPLATED_REPLY, task, reader)
    assert [str(a) for a in parsed.actions] == PLAN
    assert check_plan(task, UNTEMPLATED_REPLY, action_text=reader).valid


@pytest.mark.parametrize("text", [
    "Stack the blue block because the orange block is clear.",   # no preposition after the objects
    "Pick up the blue block and the table is empty now.",
    "Put down the orange block on the table and then rest for a while.",  # too long to be a place
])
def test_untemplated_actions_never_read_prose(tmp_path, text: str) -> None:
    task, reader = _untemplated_task(tmp_path)
    parsed = parse_plan("1. Pick up the blue block\n2. " + text, task, reader)
    assert parsed.first_error() is not None and parsed.first_error().error == Reason.UNPARSEABLE_STEP


def test_a_plan_written_twice_is_read_once_and_the_copy_is_reported() -> None:
    text = "Plan:\n" + "\n".join(f"- {p}" for p in PLAN) + "\n\nThe same in PDDL:\n" + "\n".join(PLAN) + "\n"
    parsed = parse_plan(text, TASK)
    assert [str(a) for a in parsed.actions] == PLAN
    # the first complete list is the plan; the copy after "The same in PDDL:" is the restatement
    assert [k.line for k in parsed.skipped if k.why == "the same plan as at line 2: read once"] == list(range(10, 16))


def test_copies_that_differ_are_both_read() -> None:
    text = "\n".join(PLAN[:2]) + "\n\nand then:\n\n" + "\n".join(PLAN[2:]) + "\n"
    assert [str(a) for a in parse_plan(text, TASK).actions] == PLAN
    twice = "\n".join(PLAN[:2]) + "\nThen do the same again.\n" + "\n".join(PLAN[:2])
    assert len(parse_plan(twice, TASK).actions) == 4  # asked for: meant twice
    restated = "\n".join(PLAN) + "\n\nExplanation of the plan:\n" + "".join(f"- {p}: frees a block\n" for p in PLAN)
    assert [str(a) for a in parse_plan(restated, TASK).actions] == PLAN


@pytest.mark.parametrize("text", [
    "(unstack c\n" * 3000,                                  # a parenthesis that never closes
    "unstack " * 5000,                                      # one endless line
    "stack the red block on top of " * 1000 + "the blue block",
    "unstack the orange block from the red block (" + "x " * 5000 + ")",
    '{"plan": ' * 3000 + "[]" + "}" * 3000,                 # JSON nested past the recursion limit
    '{"plan": [' + "[" * 5000 + "]" * 5000 + "]}",
], ids=["unclosed", "endless-line", "endless-sentence", "endless-aside", "deep-json-object", "deep-json-list"])
def test_adversarial_replies_are_read_without_crashing(text: str) -> None:
    report = check_plan(TASK, text)
    assert not report.valid and report.reason in (Reason.UNPARSEABLE_STEP, Reason.EMPTY, Reason.INAPPLICABLE,
                                                  Reason.UNKNOWN_OBJECT, Reason.WRONG_ARITY, Reason.GOAL_UNMET)
