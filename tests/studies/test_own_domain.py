"""Studies on a domain nobody here tuned on: known facts stay known, flags that contradict are refused,
a VLM study runs on the generic renderer, a resumed run says so (issue 28).

The domain is the guide's warehouse (docs/examples/warehouse): typed, with a static
``connected`` relation and no question templates, and no world of its own.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from openai_server import start_fake_openai, truth_responder

from benchmarks.commands import DefaultsShown
from benchmarks.runner import Progress, run_study
from benchmarks.store import collect, read_records
from benchmarks.study_config import RunConfig
from toolkit.cli import build_parser, main
from toolkit.domains import shipped_domain, shipped_problem
from toolkit.known_facts import known_facts
from toolkit.task import load_task

ROOT = Path(__file__).resolve().parents[2]
WAREHOUSE = ROOT / "docs" / "examples" / "warehouse"
SUITE = dict(suite=str(WAREHOUSE / "problems"), domain=str(WAREHOUSE / "domain.pddl"))
FERRY = ("(define (domain ferry) (:predicates (not-eq ?x ?y) (car ?c) (location ?l) (at-ferry ?l) (at ?c ?l)"
         " (empty-ferry) (on ?c))"
         " (:action sail :parameters (?from ?to) :precondition (and (not-eq ?from ?to) (location ?from)"
         " (location ?to) (at-ferry ?from)) :effect (and (at-ferry ?to) (not (at-ferry ?from))))"
         " (:action board :parameters (?car ?loc) :precondition (and (car ?car) (location ?loc) (at ?car ?loc)"
         " (at-ferry ?loc) (empty-ferry)) :effect (and (on ?car) (not (at ?car ?loc)) (not (empty-ferry))))"
         " (:action debark :parameters (?car ?loc) :precondition (and (car ?car) (location ?loc) (on ?car)"
         " (at-ferry ?loc)) :effect (and (at ?car ?loc) (empty-ferry) (not (on ?car)))))")


def _records(folder: Path) -> list[dict]:
    return collect(read_records(folder / "episodes.jsonl")).judged


def _asked(records: list[dict]) -> set[str]:
    return {e["atom"][1:].split()[0].rstrip(")") for r in records for e in r["events"] if "atom" in e}


def test_known_facts_are_the_static_and_type_predicates(tmp_path: Path) -> None:
    (tmp_path / "d.pddl").write_text(FERRY)
    (tmp_path / "p.pddl").write_text("(define (problem p) (:domain ferry) (:objects c0 l0 l1)"
                                     " (:init (car c0) (location l0) (location l1) (not-eq l0 l1) (not-eq l1 l0)"
                                     " (at c0 l0) (at-ferry l0) (empty-ferry)) (:goal (at c0 l1)))")
    facts = known_facts(load_task(tmp_path / "d.pddl", tmp_path / "p.pddl"))
    assert facts.predicates == ("car", "location", "not-eq") and facts.types == ("car", "location")
    assert len(facts.atoms) == 5
    bw = known_facts(load_task(shipped_domain("blocksworld"), shipped_problem("blocksworld", "simple_problem_0")))
    assert bw.predicates == ("leftOf", "rightOf") and bw.types == ()


@pytest.mark.parametrize("protocol", ["pgt-grounder"])
def test_a_study_on_an_own_domain_never_asks_a_known_fact(tmp_path: Path, protocol: str) -> None:
    config = RunConfig(protocol=protocol, grounder="noisy", accuracy=0.97, noise="deterministic", seeds=2, **SUITE)
    records = _records(run_study(config, tmp_path / "run", progress=False).parent)
    assert len(records) == 4 and "connected" not in _asked(records)
    assert all(r["given"] == {"given": ["connected"], "types": []} for r in records)  # the records say so
    from benchmarks.report import write_report

    report = write_report([str(tmp_path / "run")], tmp_path / "report")["markdown"].read_text()
    assert re.search(r"Given, not asked .*\n\n- .*: connected\n", report), report  # and the report
    asking = RunConfig(protocol=protocol, grounder="noisy", accuracy=0.97, noise="deterministic", seeds=1,
                       ask_static="yes", **SUITE)
    asked = _records(run_study(asking, tmp_path / "ask", progress=False).parent)
    assert "connected" in _asked(asked) and "given" not in asked[0]


def test_the_viplan_suites_keep_viplans_rule(tmp_path: Path) -> None:
    """auto: the ViPlan protocol asks leftOf/rightOf on ViPlan-BW, as ViPlan's enumeration does."""
    config = RunConfig(suite="viplan-bw/simple", problems=1, protocol="viplan-grounder", grounder="oracle")
    records = _records(run_study(config, tmp_path / "bw", progress=False).parent)
    assert {"leftOf", "rightOf"} <= _asked(records) and "given" not in records[0]


CONTRADICTIONS = [
    (["--accuracy", "0.9", "--calibration", "viplan-bw-cot-gpt-4.1"], ("--accuracy", "--calibration")),
    (["--grounder", "oracle", "--accuracy", "0.9"], ("--accuracy", "--grounder oracle")),
    (["--accuracy", "0.9", "--model", "gpt-4.1"], ("--model", "--grounder noisy")),
    (["--accuracy", "0.9", "--fp", "0.1"], ("--accuracy", "--fp")),
    (["--grounder", "oracle", "--replay", "x.jsonl"], ("--replay", "--grounder oracle")),
    (["--protocol", "viplan-planner", "--ask-static", "no"], ("--ask-static", "--protocol viplan-planner")),
]


@pytest.mark.parametrize("flags,named", CONTRADICTIONS)
def test_contradictory_flags_are_refused_naming_both(tmp_path: Path, capsys, flags, named) -> None:
    if "--replay" in flags:
        (tmp_path / "x.jsonl").write_text("")
        flags = [str(tmp_path / f) if f == "x.jsonl" else f for f in flags]
    out = tmp_path / "run"
    assert main(["run", "--suite", "viplan-bw/simple", "--out", str(out), *flags]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and all(n in err for n in named), err
    assert not out.exists()


@pytest.mark.parametrize("command", ["run", "compare"])
def test_help_shows_every_default(command: str) -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction").choices[command]
    assert sub.formatter_class is DefaultsShown
    text = sub.format_help()
    for action in sub._actions:
        if action.option_strings and action.default not in (None, False) and action.default is not None \
                and action.help != "==SUPPRESS==" and action.dest != "help":
            helps = DefaultsShown("pgt")._get_help_string(action)
            assert "default" in helps.lower(), action.dest
    assert "(default: noisy)" in text if command == "run" else "(default: viplan-bw,viplan-hh)" in text


def test_a_resumed_run_says_so_and_counts_the_whole_study(tmp_path: Path, capsys) -> None:
    args = ["run", "--suite", SUITE["suite"], "--domain", SUITE["domain"], "--grounder", "oracle",
            "--out", str(tmp_path / "r"), "--workers", "1"]
    assert main([*args, "--problems", "1"]) == 0
    capsys.readouterr()
    assert main(args) == 0
    assert "resuming: 1 of 2 episodes done" in capsys.readouterr().err
    bar = Progress(total=4, done=2, label="s", bar=False, judged=2, successes=2)
    bar.update({"id": "x", "outcome": "failure", "questions": 1})
    assert " 3/4 success 0.67 " in bar.line()  # not 0.00: the two before count


def test_a_vlm_study_runs_on_a_domain_without_a_world(tmp_path: Path, monkeypatch, capsys) -> None:
    """The generic renderer draws the pictures; --dry-run estimates; nothing ends in a traceback."""
    task = load_task(WAREHOUSE / "domain.pddl", WAREHOUSE / "problems/two-boxes.pddl")
    from toolkit.questions import QuestionBook

    book = QuestionBook(task)
    truth = {book.question(a).lower(): a in task.init for a in task.reachable_atoms()}
    with start_fake_openai(truth_responder(lambda q: truth.get(q.lower()))) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        args = ["run", "--suite", SUITE["suite"], "--domain", SUITE["domain"], "--protocol", "pgt-grounder",
                "--grounder", "vlm", "--model", "fake", "--base-url", server.base_url, "--problems", "1",
                "--no-cache", "--out", str(tmp_path / "vlm"), "--quiet"]
        assert main([*args, "--dry-run"]) == 0
        assert "about" in capsys.readouterr().out and not (tmp_path / "vlm").exists()
        assert main(args) == 0
        assert server.requests, "the endpoint was asked"
        image = server.requests[0]["messages"][-1]["content"]
    assert any(part.get("type") == "image_url" for part in image)
    records = _records(tmp_path / "vlm")
    assert len(records) == 1 and records[0]["outcome"] in ("success", "failure")


def test_a_study_whose_world_draws_nothing_is_refused_before_it_starts(tmp_path: Path, monkeypatch, capsys) -> None:
    module = tmp_path / "blind_world.py"
    module.write_text("from toolkit.simulator import SymbolicEnvironment\n"
                      "class Blind(SymbolicEnvironment):\n"
                      "    def __init__(self, task, failure_prob=0.0, seed=None):\n"
                      "        super().__init__(task, failure_prob, seed)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    for extra in ([], ["--dry-run"]):
        out = tmp_path / "blind"
        assert main(["run", "--suite", SUITE["suite"], "--domain", SUITE["domain"], "--grounder", "vlm",
                     "--model", "fake", "--base-url", "http://127.0.0.1:9/v1", "--world", "blind_world:Blind",
                     "--out", str(out), *extra]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "draws none" in err and "blind_world:Blind" in err, err
        assert not out.exists()
    # without a VLM nothing needs a picture: the same world runs an oracle study
    assert main(["run", "--suite", SUITE["suite"], "--domain", SUITE["domain"], "--grounder", "oracle",
                 "--world", "blind_world:Blind", "--problems", "1", "--out", str(tmp_path / "ok"), "--quiet"]) == 0
