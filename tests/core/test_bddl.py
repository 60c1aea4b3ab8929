"""BEHAVIOR's BDDL read as PDDL: names, quantifiers with BEHAVIOR's counting meaning, located refusals.

Data: ``tests/core/data/bddl/`` (a cut-down ``domain_igibson.bddl``, a problem with
``forn``, ``forpairs``, ``exists``, ``forall``, dotted synset names, ``inroom`` rooms
and a negative initial literal, and a small PDDL action domain over the same
predicates). The sweep over ActPlan-1K's 169 problems is opt-in
(``PGT_ACTPLAN_BDDL=<bddl/activity_definitions>``; benchmarks/bench_actplan_bddl.py).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from toolkit.bddl import BddlError, problem_to_pddl, to_pddl
from toolkit.cli import main
from toolkit.errors import PgtError
from toolkit.model import Atom
from toolkit.task import load_task

DATA = Path(__file__).parent / "data" / "bddl"
DOMAIN, PROBLEM = DATA / "domain_igibson.bddl", DATA / "problem0.bddl"

A1, A2, A3 = "apple-n-01_1", "apple-n-01_2", "apple-n-01_3"
B1, B2 = "basket-n-01_1", "basket-n-01_2"


def _state(*texts: str) -> frozenset[Atom]:
    return frozenset(Atom.parse(t) for t in texts)


BASE = ("(ontop basket-n-01_1 table-n-02_1)",)


def test_a_bddl_task_loads_with_its_names_rooms_and_closed_world_init():
    task = load_task(DOMAIN, PROBLEM)
    assert {A1, B2, "table-n-02_1", "kitchen"} <= set(task.objects)
    init = {str(a) for a in task.init}
    assert "(inroom table-n-02_1 kitchen)" in init and "(onfloor basket-n-01_1 floor-n-01_1)" in init
    assert not any("open" in a for a in init)  # (not (open ...)) only tells the sampler what to make false


@pytest.mark.parametrize("sliced, holds", [
    ((A1, A2), True),
    ((A1,), False),
    ((A1, A2, A3), False),  # forn is "exactly N" (NQuantifier.evaluate: sum == N), not "at least"
])
def test_forn_means_exactly_n(sliced, holds):
    task = load_task(DOMAIN, PROBLEM)
    packed = (f"(inside {A1} {B1})", f"(inside {A2} {B2})")
    assert task.goal_holds(_state(*BASE, *packed, *(f"(sliced {a})" for a in sliced))) is holds


@pytest.mark.parametrize("inside, holds", [
    ([(A1, B1), (A2, B2)], True),   # 2 rows (apples) and 2 columns (baskets) covered: L = min(3, 2) = 2
    ([(A1, B1), (A3, B1)], False),  # two apples placed, but basket 2 is empty: a column short
    ([(A1, B1), (A1, B2)], False),  # both baskets used, by one apple: a row short
])
def test_forpairs_counts_rows_and_columns_as_behaviour_does(inside, holds):
    task = load_task(DOMAIN, PROBLEM)
    sliced = (f"(sliced {A1})", f"(sliced {A2})")
    assert task.goal_holds(_state(*BASE, *sliced, *(f"(inside {a} {b})" for a, b in inside))) is holds


def test_exists_and_forall_expand_over_the_category():
    task = load_task(DOMAIN, PROBLEM)
    good = (f"(sliced {A1})", f"(sliced {A2})", f"(inside {A1} {B1})", f"(inside {A2} {B2})")
    assert task.goal_holds(_state(*BASE, *good))
    assert not task.goal_holds(_state(*good))  # no basket on the table
    assert not task.goal_holds(_state(*BASE, *good, f"(stained {B2})"))


def test_constructs_stay_on_their_bddl_lines():
    text = PROBLEM.read_text()
    pddl = problem_to_pddl(text, str(PROBLEM)).splitlines()
    line = next(i for i, l in enumerate(text.splitlines()) if "(forn (2)" in l)
    assert pddl[line].lstrip().startswith("(or (and (sliced apple-n-01_1) (sliced apple-n-01_2) (not (sliced")


def test_cli_lint_questions_and_plan_take_bddl(capsys):
    assert main(["questions", str(DOMAIN), str(PROBLEM)]) == 0
    assert "(inroom table-n-02_1 kitchen)" in capsys.readouterr().out
    assert main(["plan", str(DATA / "actions.pddl"), str(PROBLEM)]) == 0
    out = capsys.readouterr().out
    assert out.count("(slice apple-n-01_") == 2 and "5 steps" in out  # exactly two apples sliced: forn (2)
    assert main(["lint", str(DOMAIN), str(PROBLEM)]) == 1  # warnings only: read through the same translation
    assert "0 error(s)" in capsys.readouterr().out


@pytest.mark.parametrize("edit, where, message", [
    (("(inside ?apple.n.01 ?basket.n.01)", "(inside ?apple.n.01 ?bowl.n.01)"), ":26:", "'?bowl.n.01' is neither a quantified"),
    (("(forall (?basket.n.01 - basket.n.01)", "(forall (?basket.n.01 - bowl.n.01)"), ":28:", "unknown category 'bowl.n.01'"),
    (("        )\n    )\n)", "        )\n        (sliced apple.n.01_1)\n    )\n)"), ":30:", "reads only the first formula"),
    (("(ontop apple.n.01_1 table.n.02_1)", "(ontop apple.n.01_9 table.n.02_1)"), ":13:", "unknown object 'apple.n.01_9'"),
    (("(forn (2)", "(forn (x)"), ":25:", "forn needs a count"),
    (("(exists (?basket.n.01", "(existz (?basket.n.01"), ":27:", "unknown connective or quantifier 'existz'"),
])
def test_what_has_no_pddl_reading_is_refused_where_it_is(tmp_path, edit, where, message):
    bad = tmp_path / "problem0.bddl"
    bad.write_text(PROBLEM.read_text().replace(*edit))
    with pytest.raises(BddlError) as err:
        to_pddl(bad.read_text(), str(bad))
    assert where in str(err.value) and message in str(err.value)


def test_names_that_meet_in_pddl_and_unclosed_forms_are_refused(tmp_path):
    with pytest.raises(PgtError, match=r"p.bddl:8:13: 'a-b' and 'a.b' are both spelled"):
        to_pddl(PROBLEM.read_text().replace("table.n.02_1 - table.n.02", "a.b a-b - table.n.02"), "p.bddl")
    with pytest.raises(PgtError, match=r"p.bddl:1:1: '\(' is never closed"):
        to_pddl("(define\n    (problem p)", "p.bddl")
    assert main(["lint", str(DOMAIN), str(tmp_path / "missing.bddl")]) == 2


@pytest.mark.skipif(not os.environ.get("PGT_ACTPLAN_BDDL"), reason="set PGT_ACTPLAN_BDDL to ActPlan-1K's "
                    "bddl/activity_definitions (benchmarks/bench_actplan_bddl.py says how)")
def test_actplan_1k_problems_load_or_are_refused_at_a_place():
    from benchmarks.bench_actplan_bddl import sweep

    loaded, refused = sweep(Path(os.environ["PGT_ACTPLAN_BDDL"]))
    assert loaded / (loaded + len(refused)) >= 0.95
    assert all(":" in msg.split(".bddl", 1)[1][:4] for msg in refused)  # file:line:col
