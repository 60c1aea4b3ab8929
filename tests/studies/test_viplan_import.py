"""``pgt import viplan-results``: ViPlan's result JSONs as pgt runs, ViPlan's metrics, replay gaps.

The fixture (tests/studies/data/viplan_clone) is a hand-written ViPlan checkout in
miniature: pgt's own Blocksworld domain, three two-block problems written with
ViPlan's upper-case names, and one result file per protocol in ViPlan's layout
and JSON shape. Its top-level metrics were worked out by hand from ViPlan's
compute_metrics (see the numbers in :func:`test_grounder_metrics_as_viplan_computes_them`).

With ``PGT_VIPLAN`` pointing at a ViPlan checkout (or the fetched bare snapshot's
extracted tree), :func:`test_released_metrics_recomputed` checks every released
result file: the metrics recomputed from the imported records equal the file's own.
"""

from __future__ import annotations

import json
import math
import os
import shutil
from pathlib import Path

import pytest

from benchmarks.viplan_import import import_results
from benchmarks.viplan_logs import read_log
from benchmarks.viplan_metrics import grounder_metrics, planner_metrics
from toolkit.cli import main
from toolkit.errors import PgtError

CLONE = Path(__file__).resolve().parent / "data" / "viplan_clone"
RESULTS = CLONE / "results" / "final" / "blocksworld" / "final_cot"
GROUNDER = RESULTS / "predicates" / "simple" / "TestVLM" / "results_1.json"
PLANNER = RESULTS / "vila" / "simple" / "TestVLM" / "results_2.json"


def _records(folder: Path) -> dict[str, dict]:
    lines = (folder / "episodes.jsonl").read_text(encoding="utf-8").splitlines()
    return {r["problem"]: r for r in map(json.loads, lines)}


def test_grounder_run_imported(tmp_path):
    [run] = import_results(GROUNDER, tmp_path / "run")
    records = _records(run.folder)
    assert {p: (r["outcome"], r["stop_reason"]) for p, r in records.items()} == {
        "simple_problem_0": ("success", "plan_exhausted"),
        "simple_problem_1": ("failure", "loop"),  # illegal, and the same action as the one before
        "simple_problem_2": ("failure", "bad_answer"),  # "maybe" in the initial enumeration
    }
    first = records["simple_problem_0"]
    assert first["id"] == "simple/simple_problem_0/seed0"
    assert first["imported"]["from"] == "viplan" and first["imported"]["cot"] is True
    assert first["config"]["protocol"] == "viplan-grounder" and first["config"]["model"] == "TestVLM"
    assert first["questions"] == 8 and first["actions"] == 1 and first["replans"] == 0
    assert records["simple_problem_1"]["replans"] == 1 and records["simple_problem_1"]["actions"] == 2
    atoms = [e["atom"] for e in first["events"] if "atom" in e]
    assert atoms[:2] == ["(on R G)", "(clear R)"]  # ViPlan's "on r,g" as the problem file names things
    answers = [json.loads(line) for line in (run.folder / "answers.jsonl").read_text().splitlines()]
    assert len(answers) == sum(r["questions"] for r in records.values())
    assert {a["episode"] for a in answers} == set(r["id"] for r in records.values())
    assert answers[0]["state_key"] == "replayed|0"  # the position in the recorded world (ReplayedWorld's key)
    effect = [a for a in answers if a["episode"].startswith("simple/simple_problem_0") and a["step"] == 1]
    assert effect and effect[0]["state_key"] == "replayed|1"  # effects are answered in the state after the action


def test_grounder_metrics_as_viplan_computes_them(tmp_path):
    [run] = import_results(GROUNDER, tmp_path / "run")
    got = grounder_metrics(list(_records(run.folder).values()))
    # enumeration answers only (compute_metrics never calls update_predicate_stats):
    # on 1/1, clear 2/4 ("maybe" counts as wrong), incolumn 1/2 -> micro 4/7, macro (1 + .5 + .5) / 3
    assert got["predicate_accuracy"] == pytest.approx(4 / 7)
    assert got["macro_predicate_accuracy"] == pytest.approx(2 / 3)
    # attempts 1 right of 1 + 2, plus 1 for the episode that never planned ("failed")
    assert got["action_accuracy"] == pytest.approx(1 / 4)
    assert got["task_accuracy"] == pytest.approx(1 / 3) and got["fail_ratio"] == pytest.approx(1 / 3)
    assert got["enumeration_accuracy"] == pytest.approx((3 / 4 + 1 + 0) / 3)
    top = read_log(GROUNDER).top
    assert all(got[k] == pytest.approx(top[k]) for k in got)


def test_planner_run_imported_from_layout_without_metadata(tmp_path):
    [run] = import_results(PLANNER, tmp_path / "run")
    records = _records(run.folder)
    assert {p: r["stop_reason"] for p, r in records.items()} == {
        "simple_problem_0": "goal_reached", "simple_problem_1": "invalid_json", "simple_problem_2": "empty_plan"}
    assert records["simple_problem_0"]["config"]["cot"] is True  # from the folder: final_cot
    replies = [e["reply"] for e in records["simple_problem_1"]["events"] if e["phase"] == "propose"]
    assert len(replies) == 2 and "{" not in replies[-1]  # the unlogged reply replays as one that holds no JSON
    got = planner_metrics(list(records.values()))
    stats = read_log(PLANNER).top["statistics"]
    assert all(got[k] == pytest.approx(stats[k]) for k in got)
    assert not (run.folder / "answers.jsonl").exists()


def test_folder_import_groups_runs_and_report_reads_them(tmp_path, capsys):
    assert main(["import", "viplan-results", str(CLONE / "results"), "--out", str(tmp_path / "runs")]) == 0
    out = capsys.readouterr().out
    folders = sorted(p.name for p in (tmp_path / "runs").iterdir())
    assert folders == ["blocksworld-grounder-cot-TestVLM", "blocksworld-planner-cot-TestVLM"]
    assert "3 episodes of TestVLM" in out
    assert main(["report", str(tmp_path / "runs" / folders[0]), "--out", str(tmp_path / "report")]) == 0
    text = (tmp_path / "report" / "report.md").read_text()
    assert "ViPlan's metrics" in text and "0.571" in text  # predicate_accuracy, under ViPlan's name


@pytest.mark.parametrize("content, message", [
    ("not json at all", "not JSON"),
    ('{"data/planning/blocksworld/problems/simple/simple_problem_0.pddl": {"plans": [', "truncated JSON"),
    ('{"hello": 1}', "not a ViPlan result file"),
    ("[1, 2]", "not a ViPlan result file"),
])
def test_garbage_gets_one_line(tmp_path, capsys, content, message):
    bad = tmp_path / "results_9.json"
    bad.write_text(content)
    assert main(["import", "viplan-results", str(bad), "--out", str(tmp_path / "run"), "--viplan", str(CLONE)]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err and "Traceback" not in err


def test_wrong_folder_and_missing_checkout(tmp_path, capsys):
    with pytest.raises(PgtError, match="no ViPlan result files"):
        import_results(tmp_path, tmp_path / "run")
    copy = tmp_path / "results_1.json"
    shutil.copy(GROUNDER, copy)
    with pytest.raises(PgtError, match="--viplan DIR"):
        import_results(copy, tmp_path / "run")
    with pytest.raises(PgtError, match="not a ViPlan checkout"):
        import_results(copy, tmp_path / "run", viplan=str(tmp_path))


def test_replay_gaps_are_errors_naming_the_atom_and_never_stop_the_study(tmp_path):
    """Every episode asks what the log never answered: each is a ``replay`` error; the study runs to the end."""
    from benchmarks.runner import run_study
    from benchmarks.store import read_records
    from benchmarks.study_config import RunConfig

    log = tmp_path / "answers.jsonl"
    log.write_text(json.dumps({"atom": "(clear R)", "question": "", "verdict": "yes", "confidence": 1.0, "raw": "yes",
                               "state_key": "nowhere", "episode": "simple/other/seed0"}) + "\n")
    config = RunConfig(suite=str(CLONE / "data/planning/blocksworld/problems/simple"),
                       domain=str(CLONE / "data/planning/blocksworld/domain.pddl"),
                       protocol="viplan-grounder", grounder="replay", replay=str(log))
    run_study(config, tmp_path / "out", workers=1, progress=False)  # the old rule stopped after 3 such errors
    records = read_records(tmp_path / "out" / "episodes.jsonl")
    assert len(records) == 3
    assert all(r["outcome"] == "error" and r["error_kind"] == "replay" for r in records)
    assert all("never answered (" in r["error"] for r in records)


def test_replay_answers_each_episode_from_its_own_records():
    from grounders.records import AnswerRecord
    from grounders.replay import ReplayGrounder
    from toolkit.model import Atom
    from toolkit.protocols import Observation

    records = [AnswerRecord("(clear R)", "", verdict, 1.0, verdict, "s", episode=ep)
               for verdict, ep in (("yes", "a"), ("no", "b"))]
    obs = Observation(step=0, truth=frozenset(), state_key="s")
    assert ReplayGrounder(records, episode="b").ask(obs, [Atom("clear", ("R",))])[0].verdict.value == "no"
    gap = ReplayGrounder(records, episode="c").ask(obs, [Atom("clear", ("R",))])[0]
    assert gap.status == "error" and "episode c" in gap.raw


def _released() -> list[Path]:
    root = os.environ.get("PGT_VIPLAN")
    if not root:
        return []
    return sorted((Path(root) / "results" / "final").glob("*/*/*/*/*/results_*.json"))


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("PGT_VIPLAN"), reason="set PGT_VIPLAN to a ViPlan checkout to run")
@pytest.mark.parametrize("path", _released(), ids=lambda p: "/".join(p.parts[-6:-1]))
def test_released_metrics_recomputed(path, tmp_path):
    """ViPlan's own numbers, recomputed from the imported records of each released file."""
    [run] = import_results(path, tmp_path / "run", viplan=os.environ["PGT_VIPLAN"])
    records = list(_records_list(run.folder))
    log = read_log(path)
    if log.protocol == "viplan-grounder":
        got, want = grounder_metrics(records), {k: log.top.get(k) for k in grounder_metrics(records)}
    else:
        got, want = planner_metrics(records), {k: log.top["statistics"][k] for k in planner_metrics(records)}
    for key, value in want.items():
        assert (value is None and got[key] is None) or math.isclose(got[key], value, abs_tol=1e-12), key


def _records_list(folder: Path):
    for line in (folder / "episodes.jsonl").read_text(encoding="utf-8").splitlines():
        yield json.loads(line)


def test_calibration_fitted_from_the_logged_answers(tmp_path):
    """fp and fn per split and predicate against the logged truth; repeats decide the noise model."""
    import tomllib

    from grounders.calibration import load_calibration, load_noise

    [run] = import_results(GROUNDER, tmp_path / "run")
    assert main(["import", "viplan-calibration", str(run.folder), "--out", str(tmp_path / "cal")]) == 0
    path = tmp_path / "cal" / "viplan-logs-bw-cot-TestVLM.toml"
    data = tomllib.loads(path.read_text())
    assert data["model"] == "TestVLM" and data["chain_of_thought"] is True
    assert "results/final/blocksworld/final_cot/predicates/simple/TestVLM/results_1.json" in data["source"]
    # clear: asked 6 times with a yes/no reply; the truth was no once (problem 1's replan, answered yes) and
    # twice more in problem 1's attempts (both yes): fp = 3/3; the three true ones were all answered yes
    assert data["rates"]["simple"]["clear"] == {"fp": 1.0, "fn": 0.0}
    assert data["rates"]["simple"]["incolumn"]["fn"] == pytest.approx(1 / 3, abs=1e-4)  # r in c1 answered no
    model = load_calibration(path, "simple")
    assert model.rates("clear").fp == 1.0 and model.rates("incolumn").fn == pytest.approx(0.3333, abs=1e-4)
    # "clear g" asked again in the same state after a wrong yes, wrong again every time: deterministic
    assert data["repeat_wrong"] == 1.0 and load_noise(path).kind == "deterministic"


def test_fidelity_against_the_released_run(tmp_path, capsys):
    clone = tmp_path / "clone"
    shutil.copytree(CLONE, clone)
    [run] = import_results(clone / GROUNDER.relative_to(CLONE), tmp_path / "run")
    assert main(["fidelity", "--released", str(run.folder), "--out", str(tmp_path / "fid"), "--quiet"]) == 0
    text = (tmp_path / "fid" / "fidelity-released.md").read_text()
    assert "| run | simple | 3 / 3 |" in text and "0.33 (" in text  # the released run: 1 success of 3
    # accumulating: a later invocation with another run keeps the runs measured before in the table
    [again] = import_results(clone / GROUNDER.relative_to(CLONE), tmp_path / "again")
    assert main(["fidelity", "--released", str(again.folder), "--out", str(tmp_path / "fid"), "--quiet"]) == 0
    text = (tmp_path / "fid" / "fidelity-released.md").read_text()
    assert "| run | simple | 3 / 3 |" in text and "| again | simple | 3 / 3 |" in text
    assert "2 released runs measured: " in text


def test_a_split_released_twice_keeps_the_later_job(tmp_path):
    clone = tmp_path / "clone"
    shutil.copytree(CLONE / "data", clone / "data")
    folder = clone / "results" / "final" / "blocksworld" / "final_cot" / "predicates" / "simple" / "TestVLM"
    folder.mkdir(parents=True)
    data = json.loads(GROUNDER.read_text())
    for job, success in (("700_1", False), ("900_2", True)):
        data["metadata"]["job_id"] = job
        data["data/planning/blocksworld/problems/simple/simple_problem_0.pddl"]["goal_reached"] = success
        (folder / f"results_{job}.json").write_text(json.dumps(data))
    [run] = import_results(folder, tmp_path / "run")
    assert [p.name for p in run.skipped] == ["results_700_1.json"]
    assert _records(run.folder)["simple_problem_0"]["success"] is True


def test_an_episode_with_nothing_logged_ended_on_an_enumeration_error(tmp_path):
    clone = tmp_path / "clone"
    shutil.copytree(CLONE / "data", clone / "data")
    folder = clone / GROUNDER.parent.relative_to(CLONE)
    folder.mkdir(parents=True)
    data = json.loads(GROUNDER.read_text())
    del data["data/planning/blocksworld/problems/simple/simple_problem_2.pddl"]["initial_state_enum"]
    (folder / GROUNDER.name).write_text(json.dumps(data))
    [run] = import_results(folder, tmp_path / "run")
    record = _records(run.folder)["simple_problem_2"]
    assert record["stop_reason"] == "enumeration_error" and record["questions"] == 0
    # the replay's enumeration meets what ViPlan's did: a reply that is no answer (a wildcard), not a gap
    from grounders.replay import ReplayGrounder
    from toolkit.model import Atom
    from toolkit.protocols import Observation

    replay = ReplayGrounder(run.folder / "answers.jsonl", episode=record["id"])
    [answer] = replay.ask(Observation(0, frozenset(), state_key=("replayed", 0)), [Atom("clear", ("G",))])
    assert answer.status == "unparseable" and "not logged by ViPlan" in answer.raw
