"""Studies with pictorial household images: the mode is a result field, questions name objects as they look."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

from openai_server import Reply, question_of, start_fake_openai

from benchmarks.runner import run_study
from benchmarks.study_config import RunConfig
from grounders.factory import image_question_book
from scene_graphs.registry import make_world
from toolkit.agents.viplan_goals import goal_text_viplan, goal_with_names
from toolkit.cli import main
from toolkit.domains import shipped_domain, shipped_problem
from toolkit.questions import QuestionBook
from toolkit.task import load_task

HH = Path(__file__).resolve().parents[2] / "pddl_domains" / "household" / "problems"


def test_render_mode_is_recorded_and_a_resume_in_another_mode_is_refused(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    common = ["run", "--suite", str(HH), "--domain", "household", "--grounder", "oracle", "--problems", "1",
              "--workers", "1", "--quiet", "--out", str(out)]
    assert main([*common, "--render-mode", "pictorial"]) == 0
    config = json.loads((out / "config.json").read_text())
    assert (config["render_mode"], config["labels"]) == ("pictorial", False)
    assert main(common) == 2
    assert "another configuration" in capsys.readouterr().err
    assert main([*common[:-1], str(tmp_path / "x"), "--no-labels"]) == 2
    assert "cannot drop its labels" in capsys.readouterr().err


def test_pictorial_questions_name_objects_by_colour_and_category() -> None:
    task = load_task(shipped_domain("household"), shipped_problem("household", "cleaning_out_drawers_0"))
    config = RunConfig(suite="viplan-hh", render_mode="pictorial", labels=False)
    book = image_question_book(config, task)
    for obj in task.objects:
        assert not re.search(r"_|\d", book.display_name(obj)), book.display_name(obj)
    atom = next(a for a in sorted(task.init) if a.predicate == "inside")
    assert book.atom_for_question(book.question(atom)) == atom
    assert image_question_book(RunConfig(suite="viplan-hh"), task).question(atom) == QuestionBook(task).question(atom)
    text = goal_with_names(task, book)
    assert "Objects (name used in actions" in text and all(f"- {o.lower()}: " in text for o in task.objects)
    assert "Objects" not in goal_text_viplan(task)


def test_vlm_study_sends_the_pictorial_image_and_picture_names(tmp_path: Path) -> None:
    problem = HH / "cleaning_out_drawers_0.pddl"  # --problems 1: the first in name order
    task = load_task(shipped_domain("household"), str(problem))
    first = make_world(task, render_mode="pictorial", labels=False).reset().png()
    with start_fake_openai(lambda request: Reply("No")) as server:
        config = RunConfig(suite=str(HH), domain="household", grounder="vlm", model="fake", base_url=server.base_url,
                           problems=1, max_steps=2, render_mode="pictorial", labels=False, no_cache=True,
                           max_retries=0)
        run_study(config, tmp_path / "r", workers=1, progress=False)
        assert server.requests
        questions = [question_of(r) for r in server.requests]
        image = next(part["image_url"]["url"] for part in server.requests[0]["messages"][-1]["content"]
                     if part["type"] == "image_url")
    assert base64.b64decode(image.split(",", 1)[1]) == first
    assert all(not re.search(r"_\d|\b\w+ \d\b", q) for q in questions), questions
    assert any(q.startswith("Is the ") for q in questions)
