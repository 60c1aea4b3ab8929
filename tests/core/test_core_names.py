"""Names as VAL and Fast Downward read them: digit-first and underscore-first, on both readers.

PlanBench's obfuscated Logistics problems are named like ``(problem 9ucq73grxzg6x4q)``;
domains and plans may name objects ``7a``. Numbers stay numbers: digits alone are
not a name. ``PLANBENCH`` (a snapshot of karthikv792/LLMs-Planning) is opt-in.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from toolkit import loader
from toolkit.errors import PgtError
from toolkit.reading.names import is_name
from toolkit.task import Task
from toolkit.verify import check_plan

DOMAIN = """(define (domain 4op-blocks)
 (:requirements :strips :typing)
 (:types 2block _slot)
 (:constants 0table - _slot)
 (:predicates (1on ?x - 2block ?y - 2block) (_clear ?x - 2block) (3free ?s - _slot))
 (:action 1pick :parameters (?1x - 2block ?y - 2block)
  :precondition (and (1on ?1x ?y) (_clear ?1x) (3free 0table))
  :effect (and (not (1on ?1x ?y)) (_clear ?y))))"""
PROBLEM = """(define (problem 9ucq73grxzg6x4q) (:domain 4op-blocks)
 (:objects 7a b 3-c - 2block)
 (:init (1on 7a b) (_clear 7a) (3free 0table) (1on 3-c 7a))
 (:goal (and (_clear b))))"""


def _read(monkeypatch, full: bool):
    with monkeypatch.context() as mp:
        if full:
            mp.setattr(loader, "read_plain_domain", lambda *_, **__: None)
            mp.setattr(loader, "read_plain_problem", lambda *_: None)
        domain = loader.parse_domain(DOMAIN, "d.pddl")
        return domain, loader.parse_problem(PROBLEM, domain, "p.pddl")


@pytest.mark.parametrize("full", [False, True], ids=["plain-reader", "full-parser"])
def test_digit_and_underscore_first_names_load_and_validate(monkeypatch, full: bool):
    domain, problem = _read(monkeypatch, full)
    assert (domain.name, problem.name) == ("4op-blocks", "9ucq73grxzg6x4q")
    assert set(problem.objects) == {"7a", "b", "3-c"} and "0table" in domain.constants
    assert list(domain.actions) == ["1pick"] and "1on" in domain.predicates
    task = Task(domain, problem)
    assert check_plan(task, "(1pick 7a b)").valid
    bad = check_plan(task, "(1pick 3-c 7a)\n(1pick 7a b)")
    assert not bad.valid and "(_clear 3-c) is false" in bad.message


def test_both_readers_build_the_same_model(monkeypatch):
    assert _read(monkeypatch, False) == _read(monkeypatch, True)


@pytest.mark.parametrize("full", [False, True], ids=["plain-reader", "full-parser"])
def test_numbers_are_not_names(monkeypatch, full: bool):
    with monkeypatch.context() as mp:
        if full:
            mp.setattr(loader, "read_plain_problem", lambda *_: None)
        domain = loader.parse_domain(DOMAIN, "d.pddl")
        with pytest.raises(PgtError, match=r"p\.pddl:1:18: unexpected '12'; expected a name"):
            loader.parse_problem(PROBLEM.replace("9ucq73grxzg6x4q", "12"), domain, "p.pddl")
        with pytest.raises(PgtError, match=r"'1\.5'"):
            loader.parse_problem(PROBLEM.replace("7a b 3-c", "7a b 1.5 3-c"), domain, "p.pddl")


def test_is_name_follows_val_and_fast_downward():
    assert all(map(is_name, ["truck1", "9ucq73grxzg6x4q", "7a", "_x", "3-c", "a_b-c"]))
    assert not any(map(is_name, ["12", "1.5", "1e3", "1e-3", "-a", "a.b", "?x", ""]))


PLANBENCH = Path(os.environ.get("PLANBENCH", "/work/.mirror/karthikv792+LLMs-Planning/repo"))
RESULTS = "llm_planning_analysis/results/obfuscated_randomized_logistics/o1-preview_chat/task_1_plan_generation_zero_shot_pddl.json"


@pytest.mark.skipif(not PLANBENCH.exists(), reason="no PlanBench snapshot (set PLANBENCH)")
def test_planbench_obfuscated_logistics_loads():
    """Every problem of the o1-preview obfuscated-Logistics run loads, and its ground-truth plan is valid.

    PlanBench's own labels say False for every problem whose name starts with a digit
    (its VAL could not read them); on the others pgt agrees with every label.
    """
    if (PLANBENCH / ".git").exists() or PLANBENCH.name == "repo":
        raw = subprocess.run(["git", "-C", str(PLANBENCH), "show", f"HEAD:{RESULTS}"], capture_output=True, check=True).stdout
    else:
        raw = (PLANBENCH / RESULTS).read_bytes()
    digit_first = 0
    for inst in json.loads(raw)["instances"]:
        q = inst["query"]
        dom = q[q.index("[DOMAIN]\n") + 9:q.index("[QUERY PROBLEM]\n")]
        rest = q[q.index("[QUERY PROBLEM]\n") + 16:]
        prob = rest[:m.start()] if (m := re.search(r"\n\[[A-Z ]+\]", rest)) else rest
        domain = loader.parse_domain(dom)
        task = Task(domain, loader.parse_problem(prob, domain))
        assert check_plan(task, inst["ground_truth_plan"]).valid
        if task.problem.name[0].isdigit():
            digit_first += 1
        else:
            assert check_plan(task, inst["extracted_llm_plan"]).valid == inst["llm_correct"]
    assert digit_first == 63
