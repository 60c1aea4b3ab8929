"""Questions are asked only about atoms that can ever hold, over every shipped problem.

The reference is computed here independently of :mod:`toolkit.reach`: a naive
delete-relaxation fixpoint over *every* type-correct ground action (upper bound:
no question outside it), and the exact set of atoms true in some state reachable
by breadth-first search (lower bound: no atom that can hold is ever left out).
"""

from __future__ import annotations

import json
from collections import deque

import pytest

from toolkit.cli import main
from toolkit.domains import domain_dir, list_domains, shipped_domain
from toolkit.lint.reachability import relaxed_holds
from toolkit.model import Atom
from toolkit.task import Task, load_task

PROBLEMS = [(d, p) for d in list_domains() for p in sorted((domain_dir(d) / "problems").glob("*.pddl"))]


def _naive_relaxed(task: Task) -> set[Atom]:
    reached = set(task.init)
    pending = list(task.all_actions())
    changed = True
    while changed:
        changed = False
        for act in pending:
            if relaxed_holds(act.precondition, reached):
                new = set(act.effect.adds)
                for ce in act.effect.conditional:
                    if relaxed_holds(ce.condition, reached):
                        new |= ce.adds
                if not new <= reached:
                    reached |= new
                    changed = True
    return reached


def _by_changing_atom(actions: list) -> tuple[list, dict[Atom, list]]:
    """The actions filed under one positive precondition atom that some action changes (a state without it
    cannot apply them: a compiled precondition needs ``pos <= state``), the rest to try in every state.

    Only which actions are tried changes, not which apply (``is_applicable`` still decides), nor the states
    reached: BFS over sokoban-3's 14,400 actions took 9 s trying each in every state, 1 s so."""
    changing: set[Atom] = set()
    for act in actions:
        changing |= act.effect.adds | act.effect.dels
        for ce in act.effect.conditional:
            changing |= ce.adds | ce.dels
    uses: dict[Atom, int] = {}
    for act in actions:
        for atom in act.precondition.pos & changing:
            uses[atom] = uses.get(atom, 0) + 1
    always: list = []
    filed: dict[Atom, list] = {}
    for act in actions:
        keys = act.precondition.pos & changing
        if keys:
            filed.setdefault(min(keys, key=lambda a: (uses[a], str(a))), []).append(act)
        else:
            always.append(act)
    return always, filed


def _exact(task: Task, limit: int = 3000) -> set[Atom] | None:
    seen = {task.init}
    queue = deque([task.init])
    always, filed = _by_changing_atom(list(task.all_actions()))
    while queue:
        state = queue.popleft()
        for act in always + [a for atom in state if atom in filed for a in filed[atom]]:
            if act.is_applicable(state):
                nxt = act.apply(state)
                if nxt not in seen:
                    if len(seen) >= limit:
                        return None  # too many states to enumerate here: only the upper bound is checked
                    seen.add(nxt)
                    queue.append(nxt)
    return set().union(*seen)


# The large BabyAI grids take 40-90 s each here: opt-in with --runslow (the small ones run by default).
HEAVY = {("babyai", "unlockpickup_1"), ("babyai", "gotoobj_1")}


@pytest.mark.parametrize(("domain", "problem"), [
    pytest.param(d, p, marks=pytest.mark.slow) if (d, p.stem) in HEAVY else (d, p) for d, p in PROBLEMS],
    ids=[f"{d}-{p.stem}" for d, p in PROBLEMS])
def test_questions_only_about_atoms_that_can_hold(domain: str, problem, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["questions", domain, str(problem), "--json"]) == 0
    asked = {Atom.parse(json.loads(line)["atom"]) for line in capsys.readouterr().out.splitlines()}
    task = load_task(shipped_domain(domain), problem)
    upper = _naive_relaxed(task)
    assert asked <= upper, sorted(map(str, asked - upper))[:5]
    exact = _exact(task)
    if exact is not None:
        assert exact <= asked, sorted(map(str, exact - asked))[:5]


def test_gripper_never_asks_reflexive_atoms(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["questions", "gripper", "gripper-4balls", "--json"]) == 0
    asked = [json.loads(line)["atom"] for line in capsys.readouterr().out.splitlines()]
    assert asked and "(at ball1 ball1)" not in asked
    assert all(len(set(Atom.parse(a).args)) == len(Atom.parse(a).args) for a in asked)
