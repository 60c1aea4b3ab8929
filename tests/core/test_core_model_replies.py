"""English plans the way models write them (issue 29): restated plans, their phrasings, the prompt's names.

The replies are written for these tests in the shapes PlanBench's published replies
take (a plan and then its summary under a heading, bold step titles with notes, a
corrected plan, "put down the red block on the table", colour-only names, call
style with colours), on the four-operator Blocksworld (problem bw4-3: c is on a;
goal a on b on c). PlanBench's own setup, an untyped domain whose action templates
and object names come from the prompt, is rebuilt in ``tmp_path``.
"""

from __future__ import annotations

import json

import pytest

from core_support import shipped_task
from toolkit.cli import main
from toolkit.domains import domain_dir
from toolkit.plans import Reason, parse_plan
from toolkit.verify import check_plan

TASK = shipped_task("blocksworld-4ops", "bw4-3")
PLAN = ["(unstack c a)", "(put-down c)", "(pick-up b)", "(stack b c)", "(pick-up a)", "(stack a b)"]
PROBLEM = str(domain_dir("blocksworld-4ops") / "problems" / "bw4-3.pddl")

STEPS = ["Unstack the orange block from the red block", "Put down the orange block",
         "Pick up the blue block", "Stack the blue block on top of the orange block",
         "Pick up the red block", "Stack the red block on top of the blue block"]
SHORT = ["Unstack orange from red", "Put down orange", "Pick up blue", "Stack blue on orange", "Pick up red",
         "Stack red on blue"]


def numbered(steps: list[str], fmt: str = "{i}. {s}.") -> str:
    return "\n".join(fmt.format(i=i, s=s) for i, s in enumerate(steps, 1))


RESTATED = {
    "summary heading": "Here is how:\n\n" + numbered(STEPS) + "\n\n### Summary of the Plan:\n" + numbered(SHORT),
    "final plan, bold": "Let's go.\n" + numbered(STEPS) + "\n\n**Final Plan:**\n\n" + numbered(STEPS),
    "detailed steps with bold titles and notes": (
        "### Plan Steps:\n" + numbered(SHORT) + "\n\n### Detailed Steps:\n" + "\n".join(
            f"{i}. **{s}** – this keeps the tower safe.\n   - The hand is empty afterwards."
            for i, s in enumerate(STEPS, 1))),
    "numbered, then bullets after prose": (
        numbered(STEPS) + "\n\nThat reaches the goal. To recap:\n" + "\n".join(f"- {s}" for s in SHORT)),
    "step titles, then a plain list": (
        "\n".join(f"**Step {i}: {s}**\n- Why: it is clear." for i, s in enumerate(STEPS, 1))
        + "\n\n### Corrected Plan:\n" + numbered(STEPS)),
}


@pytest.mark.parametrize("shape", sorted(RESTATED))
def test_a_restated_plan_is_read_once_and_its_copy_is_listed(shape: str) -> None:
    parsed = parse_plan(RESTATED[shape], TASK)
    assert [str(a) for a in parsed.actions] == PLAN, [s.message for s in parsed.steps if not s.ok]
    assert parsed.verdict is None
    copies = [k for k in parsed.skipped if k.why.startswith("the same plan as at line")]
    assert len(copies) == len(PLAN)
    assert check_plan(TASK, RESTATED[shape]).valid


def test_the_first_complete_list_is_the_plan_and_the_restatement_lies_after_it() -> None:
    parsed = parse_plan(RESTATED["summary heading"], TASK)
    assert [s.line for s in parsed.steps] == list(range(3, 9))
    assert {k.line for k in parsed.skipped if k.why.startswith("the same plan")} == set(range(11, 17))


def test_two_different_lists_are_a_verdict_of_their_own_never_merged() -> None:
    other = ["Unstack the orange block from the red block", "Put down the orange block", "Pick up the red block",
             "Stack the red block on top of the blue block"]
    reply = numbered(STEPS) + "\n\n### Alternative:\n" + numbered(other)
    parsed = parse_plan(reply, TASK)
    assert parsed.verdict == Reason.TWO_PLANS.value and len(parsed.steps) == len(PLAN)
    report = check_plan(TASK, reply)
    assert not report.valid and report.reason == Reason.TWO_PLANS
    assert report.message == ("no single plan: the reply holds lines 1-6 (6 steps) and lines 9-12 (4 steps), which "
                              "differ; mark the one meant with [PLAN] ... [PLAN END]")
    assert [k.why for k in parsed.skipped if k.line >= 9] == ["a second, different plan"] * 4


def test_a_list_announced_as_a_correction_replaces_the_plan_before_it() -> None:
    wrong = ["Pick up the blue block", "Stack the blue block on top of the orange block"]
    reply = numbered(wrong) + "\n\nThat is not correct: the orange block is not clear.\n\nHere is the correct plan:\n" \
        + numbered(STEPS)
    parsed = parse_plan(reply, TASK)
    assert [str(a) for a in parsed.actions] == PLAN and parsed.verdict is None
    assert [k.why for k in parsed.skipped if k.line <= 2] == ["replaced by the corrected plan at line 7"] * 2


def test_a_plan_asked_for_twice_still_runs_twice() -> None:
    reply = "1. (pick-up b)\n2. (put-down b)\n\nDo the same again:\n1. (pick-up b)\n2. (put-down b)"
    assert len(parse_plan(reply, TASK).actions) == 4


def test_markers_keep_precedence_and_the_first_marked_block_is_the_plan() -> None:
    # The prompt ended with "[PLAN]": the reply opens inside the block, then invents a further example.
    reply = "\n".join(STEPS) + "\n[PLAN END]\n\n[STATEMENT]\nAnother puzzle.\n\n[PLAN]\npick up the red block\n" \
        "[PLAN END]"
    parsed = parse_plan(reply, TASK)
    assert [str(a) for a in parsed.actions] == PLAN
    assert any(k.why == "outside the marked plan block" for k in parsed.skipped)


def test_an_unreadable_list_after_a_complete_plan_is_a_note_not_a_second_plan() -> None:
    reply = numbered(STEPS) + "\n\n**Final stack:**\n- Red (on Blue)\n- Blue (on Orange)"
    parsed = parse_plan(reply, TASK)
    assert [str(a) for a in parsed.actions] == PLAN and parsed.verdict is None


def test_english_retold_under_a_read_step_is_a_note() -> None:
    reply = "\n".join(f"{i}. **{s}.**\n   - You can {s.lower()} now.\n   - The hand is free after it."
                      for i, s in enumerate(STEPS, 1))
    assert [str(a) for a in parse_plan(reply, TASK).actions] == PLAN


# -------------------------------------------------------------------- phrasings

PHRASINGS = {
    "put down on the table": ("Put down the orange block on the table", "(put-down c)"),
    "put down on table, colour only": ("Put down Orange on table.", "(put-down c)"),
    "put X down on the table": ("Put the orange block down on the table", None),  # "put" is stack's synonym here
    "pick up from the table": ("Pick up the blue block from the table", "(pick-up b)"),
    "stack on top of": ("Stack the blue block on top of the orange block", "(stack b c)"),
    "from on top of": ("Unstack the orange block from on top of the red block", "(unstack c a)"),
    "onto": ("Stack blue onto orange", "(stack b c)"),
    "atop": ("Stack the blue block atop the orange block", "(stack b c)"),
    "type word and name, any case": ("Unstack block C from block A", "(unstack c a)"),
    "call style with colours": ("Unstack(orange, red)", "(unstack c a)"),
    "call style, squashed name": ("PutDown(orange)", "(put-down c)"),
    "call style with a gloss": ("PickUp(Blue): pick up the blue block (it is clear)", "(pick-up b)"),
}


@pytest.mark.parametrize("key", sorted(PHRASINGS))
def test_phrasings_models_use_read_through_the_templates(key: str) -> None:
    text, want = PHRASINGS[key]
    parsed = parse_plan(text, TASK)
    assert [str(a) for a in parsed.actions] == ([want] if want else [])


@pytest.mark.parametrize("text", [
    "Put down the orange block on the table because the red block must be free first.",
    "Put down the orange block on the blue block",       # an object where the place would be
    "Pick up the blue block from the table and the orange block",
])
def test_a_closing_place_never_turns_prose_into_a_step(text: str) -> None:
    parsed = parse_plan("1. Unstack the orange block from the red block\n2. " + text, TASK)
    assert not parsed.ok and parsed.first_error().index == 2


def test_a_distinctive_part_names_an_object_only_when_it_is_unique(tmp_path) -> None:
    objects = tmp_path / "objects.toml"
    objects.write_text('a = "the red block"\nb = "the red ball"\nc = "the orange block"\n')
    from toolkit.commands.validate import english_reader

    reader = english_reader(TASK, str(objects))
    assert [str(a) for a in parse_plan("Unstack orange from the red block", TASK, reader).actions] == [PLAN[0]]
    assert parse_plan("Unstack orange from red", TASK, reader).first_error().error in (
        Reason.UNPARSEABLE_STEP, Reason.AMBIGUOUS_STEP)


def planbench_setup(tmp_path, templates: dict[str, str], domain: str, problem: str):
    """A domain file with a questions.toml of PlanBench-style templates ("{0}" slots) beside it."""
    folder = tmp_path / "dom"
    folder.mkdir()
    (folder / "domain.pddl").write_text(domain)
    (folder / "questions.toml").write_text("[actions]\n" + "".join(f'"{k}" = "{v}"\n' for k, v in templates.items()))
    (tmp_path / "p.pddl").write_text(problem)
    return folder / "domain.pddl", tmp_path / "p.pddl"


BW = (domain_dir("blocksworld-4ops") / "domain.pddl").read_text()
BW_TEMPLATES = {"pick-up": "pick up the {0}", "put-down": "put down the {0}", "stack": "stack the {0} on top of the {1}",
                "unstack": "unstack the {0} from on top of the {1}"}
CORPUS_OBJECTS = "".join(f'{k} = ["{v} block", "{v}"]\n' for k, v in zip(
    "abcdefghijkl", "red blue orange yellow white magenta black cyan green violet silver gold".split()))


def test_a_corpus_objects_file_serves_every_problem_with_one_note(tmp_path, capsys) -> None:
    domain, problem = planbench_setup(tmp_path, BW_TEMPLATES, BW, open(PROBLEM).read())
    objects = tmp_path / "colours.toml"
    objects.write_text(CORPUS_OBJECTS)
    reply = tmp_path / "reply.txt"
    reply.write_text(numbered(["Unstack orange from red", "Put down the orange block on the table",
                               "Pick up blue from the table", "Stack blue on top of orange", "Pick up red",
                               "Stack red on top of blue"]))
    assert main(["validate", str(domain), str(problem), str(reply), "--objects", str(objects), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["reading"]["notes"] == ["colours.toml names 9 objects this problem lacks (d, e, f, g, h, i, j, k, "
                                        "...): ignored"]
    assert [s["read_as"] for s in data["steps"]] == ["natural-language"] * 6


def test_validate_batch_takes_a_batch_wide_objects_file(tmp_path, capsys) -> None:
    domain, problem = planbench_setup(tmp_path, BW_TEMPLATES, BW, open(PROBLEM).read())
    objects = tmp_path / "colours.toml"
    objects.write_text(CORPUS_OBJECTS)
    lines = [{"id": "x", "domain": str(domain), "problem": str(problem), "plan": numbered(STEPS)},
             {"id": "y", "domain": str(domain), "problem": str(problem), "plan": "Put down the mauve block"}]
    batch = tmp_path / "b.jsonl"
    batch.write_text("".join(json.dumps(x) + "\n" for x in lines))
    main(["validate-batch", str(batch), "--objects", str(objects)])
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert out[0]["valid"] and out[0]["reading"]["read_as"] == "natural-language"
    assert out[1]["reason"] == "unparseable_step"


def test_an_objects_file_that_names_none_of_the_problems_objects_is_an_error(tmp_path, capsys) -> None:
    objects = tmp_path / "o.toml"
    objects.write_text('q = "the crimson cube"\n')
    plan = tmp_path / "plan.txt"
    plan.write_text("(unstack c a)\n")
    assert main(["validate", "blocksworld-4ops", PROBLEM, str(plan), "--objects", str(objects)]) == 2
    assert "unknown object 'q'" in capsys.readouterr().err


MYSTERY = """(define (domain mystery-4ops) (:requirements :strips)
  (:predicates (province ?x) (planet ?x) (harmony) (pain ?x) (craves ?x ?y))
  (:action attack :parameters (?ob) :precondition (and (province ?ob) (planet ?ob) (harmony))
    :effect (and (pain ?ob) (not (province ?ob)) (not (planet ?ob)) (not (harmony))))
  (:action succumb :parameters (?ob) :precondition (pain ?ob)
    :effect (and (province ?ob) (harmony) (planet ?ob) (not (pain ?ob))))
  (:action overcome :parameters (?ob ?underob) :precondition (and (province ?underob) (pain ?ob))
    :effect (and (harmony) (province ?ob) (craves ?ob ?underob) (not (province ?underob)) (not (pain ?ob))))
  (:action feast :parameters (?ob ?underob) :precondition (and (craves ?ob ?underob) (province ?ob) (harmony))
    :effect (and (pain ?ob) (province ?underob) (not (craves ?ob ?underob)) (not (province ?ob)) (not (harmony)))))
"""
MYSTERY_PROBLEM = """(define (problem m1) (:domain mystery-4ops) (:objects a b c)
  (:init (harmony) (craves c a) (planet a) (planet b) (province b) (province c))
  (:goal (and (craves a b) (craves b c))))
"""


def test_mystery_phrasings_read_with_the_prompts_object_names(tmp_path) -> None:
    domain, problem = planbench_setup(tmp_path, {"attack": "attack {0}", "succumb": "succumb {0}",
                                                 "overcome": "overcome {0} from {1}", "feast": "feast {0} from {1}"},
                                      MYSTERY, MYSTERY_PROBLEM)
    objects = tmp_path / "objects.toml"
    objects.write_text("".join(f'{x} = "object {x}"\n' for x in "abcdefghijkl"))
    from toolkit.commands.validate import english_reader, load

    task = load(str(domain), str(problem))
    reply = ("My plan:\n1. Feast object C from object A.\n2. Succumb object C.\n3. Attack object B.\n"
             "4. Overcome object B from object C.\n5. Attack object A.\n6. Overcome object A from object B.\n\n"
             "### Plan Summary:\n1. Feast C from A\n2. Succumb C\n3. Attack B\n4. Overcome B from C\n5. Attack A\n"
             "6. Overcome A from B")
    report = check_plan(task, reply, action_text=english_reader(task, str(objects)))
    assert report.valid, report.message
    assert report.plan_length == 6


LOGISTICS = """(define (domain logistics-strips) (:requirements :strips)
  (:predicates (OBJ ?o) (TRUCK ?t) (AIRPLANE ?a) (LOCATION ?l) (CITY ?c) (AIRPORT ?l) (at ?x ?l) (in ?o ?v)
               (in-city ?l ?c))
  (:action LOAD-TRUCK :parameters (?obj ?truck ?loc)
    :precondition (and (OBJ ?obj) (TRUCK ?truck) (LOCATION ?loc) (at ?truck ?loc) (at ?obj ?loc))
    :effect (and (not (at ?obj ?loc)) (in ?obj ?truck)))
  (:action LOAD-AIRPLANE :parameters (?obj ?airplane ?loc)
    :precondition (and (OBJ ?obj) (AIRPLANE ?airplane) (LOCATION ?loc) (at ?obj ?loc) (at ?airplane ?loc))
    :effect (and (not (at ?obj ?loc)) (in ?obj ?airplane)))
  (:action UNLOAD-TRUCK :parameters (?obj ?truck ?loc)
    :precondition (and (OBJ ?obj) (TRUCK ?truck) (LOCATION ?loc) (at ?truck ?loc) (in ?obj ?truck))
    :effect (and (not (in ?obj ?truck)) (at ?obj ?loc)))
  (:action DRIVE-TRUCK :parameters (?truck ?loc-from ?loc-to ?city)
    :precondition (and (TRUCK ?truck) (LOCATION ?loc-from) (LOCATION ?loc-to) (CITY ?city) (at ?truck ?loc-from)
                       (in-city ?loc-from ?city) (in-city ?loc-to ?city))
    :effect (and (not (at ?truck ?loc-from)) (at ?truck ?loc-to))))
"""
LOGISTICS_PROBLEM = """(define (problem l1) (:domain logistics-strips) (:objects p0 t0 a0 l0-0 l0-1 c0)
  (:init (OBJ p0) (TRUCK t0) (AIRPLANE a0) (LOCATION l0-0) (LOCATION l0-1) (CITY c0) (AIRPORT l0-0)
         (in-city l0-0 c0) (in-city l0-1 c0) (at t0 l0-0) (at a0 l0-0) (at p0 l0-0))
  (:goal (at p0 l0-1)))
"""


def test_logistics_load_reads_as_the_one_action_whose_static_facts_can_hold(tmp_path) -> None:
    domain, problem = planbench_setup(tmp_path, {"LOAD-TRUCK": "load {0} into {1} at {2}",
                                                 "LOAD-AIRPLANE": "load {0} into {1} at {2}",
                                                 "UNLOAD-TRUCK": "unload {0} from {1} at {2}",
                                                 "DRIVE-TRUCK": "drive {0} from {1} to {2} in {3}"},
                                      LOGISTICS, LOGISTICS_PROBLEM)
    objects = tmp_path / "objects.toml"
    objects.write_text('p0 = "package_0"\nt0 = "truck_0"\na0 = "airplane_0"\n"l0-0" = "location_0_0"\n'
                       '"l0-1" = "location_0_1"\nc0 = "city_0"\n')
    from toolkit.commands.validate import english_reader, load

    task = load(str(domain), str(problem))
    reply = ("load package_0 into truck_0 at location_0_0\ndrive truck_0 from location_0_0 to location_0_1 in city_0\n"
             "unload package_0 from truck_0 at location_0_1")
    report = check_plan(task, reply, action_text=english_reader(task, str(objects)))
    assert report.valid, report.message
    assert [s.action for s in report.steps][0] == "(LOAD-TRUCK p0 t0 l0-0)"


# --------------------------------------------------------------------- messages

def test_an_unread_step_names_the_closest_action_its_objects_and_the_fix() -> None:
    report = check_plan(TASK, "1. Unstack the orange block from the red block\n2. Put down the orange block gently")
    assert report.message == (
        "step 2 (line 2): cannot read 'Put down the orange block gently' as an action (closest action put-down; "
        "objects named: c; it reads \"put down the orange block\"; words it does not expect: gently); to read it, "
        "name objects as the prompt did (--objects FILE) or add this phrasing to the domain's questions.toml "
        "([actions] or [synonyms])")
    assert [s.read_as for s in report.steps] == ["natural-language", "natural-language"]


def test_json_read_as_is_true_for_an_unread_english_step(tmp_path, capsys) -> None:
    plan = tmp_path / "reply.txt"
    plan.write_text("1. Unstack the orange block from the red block\n2. Put down the mauve block\n")
    assert main(["validate", "blocksworld-4ops", PROBLEM, str(plan), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert [s["read_as"] for s in data["steps"]] == ["natural-language", "natural-language"]
    assert data["reading"]["rephrased"] == 1


def test_the_trace_page_shows_each_steps_sentence_and_the_skipped_lines(tmp_path) -> None:
    from toolkit.trace_html import trace_page

    reply = RESTATED["summary heading"]
    page = trace_page(TASK, parse_plan(reply, TASK), check_plan(TASK, reply))
    assert 'class="source">line 3: Unstack the orange block from the red block</div>' in page
    assert '<h2>Skipped lines</h2>' in page and "the same plan as at line 3: read once" in page
    assert page.count('<tr class="skipped">') == len(parse_plan(reply, TASK).skipped)


def test_state_lines_among_the_steps_are_facts_not_broken_steps() -> None:
    reply = ("1. Unstack the orange block from the red block\n   - Action: *Unstack orange from red*\n"
             "2. Put down the orange block\n- Holding nothing\n- On(orange, red) is false\n- Clear: Red ✅\n"
             "3. Pick up the blue block\n4. Stack the blue block on top of the orange block\n5. Pick up the red block\n"
             "6. Stack the red block on top of the blue block")
    parsed = parse_plan(reply, TASK)
    assert [str(a) for a in parsed.actions] == PLAN, [s.message for s in parsed.steps if not s.ok]
    assert {k.text for k in parsed.skipped} >= {"- On(orange, red) is false", "- Clear: Red ✅"}


def test_an_action_label_is_not_part_of_the_step() -> None:
    assert [str(a) for a in parse_plan("- Action: *Pick up the blue block*", TASK).actions] == ["(pick-up b)"]


def test_a_line_under_a_step_that_names_the_same_action_retells_it() -> None:
    reply = "\n".join(f"{i}. {s}:\n   - **Action**: {c}\n   - Why: it is free." for i, (s, c) in enumerate(zip(
        STEPS, ["Unstack(orange, red)", "PutDown(orange)", "PickUp(blue)", "Stack(blue, orange)", "PickUp(red)",
                "Stack(red, blue)"]), 1))
    reply += "\n\n**Plan Summary**:\n" + numbered(["Unstack(orange, red)", "PutDown(orange)", "PickUp(blue)",
                                                   "Stack(blue, orange)", "PickUp(red)", "Stack(red, blue)"], "{i}. {s}")
    parsed = parse_plan(reply, TASK)
    assert [str(a) for a in parsed.actions] == PLAN and parsed.verdict is None


def test_a_state_tracking_reply_reads_its_actions_not_its_states() -> None:
    reply = "\n\n".join(
        f"{i}. Current State: the hand is empty and block {i} waits\n   Action: {s}\n"
        f"   Reason: its preconditions hold.\n   Resulting State: the step is done" for i, s in enumerate(STEPS, 1))
    parsed = parse_plan(reply, TASK)
    assert [str(a) for a in parsed.actions] == PLAN, [s.message for s in parsed.steps if not s.ok]
