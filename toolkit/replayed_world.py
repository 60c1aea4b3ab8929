"""A world that replays a recorded run's environment: what the recorded simulator answered, not pgt's.

A replay of a released run (``pgt run --grounder replay`` on a run ``pgt import``
made) must meet the environment the run met. pgt's own worlds are models of
ViPlan's: its household world is not iGibson (a ``navigate-to`` that iGibson
refused runs in pgt's world; iGibson's ``navigate-to`` leaves other objects
reachable), and its action failures are drawn from pgt's seed, not ViPlan's. So a
replay takes the environment's side from the log, in this one place:

- **which actions ran**: every ``execute`` is looked up in the script by position
  (the number of actions that ran so far) and action; the recorded outcome is the
  answer (refused, ran, ran as another action, or ran without effect: ViPlan's
  ``BlocksworldSimulator.apply_action`` info ``no-op`` / the action that really ran
  under ``fail_probability``). An action the log never tried there is a
  :class:`ReplayDiverged` error naming it (the replay cannot go on);
- **the true state**: PDDL's effects of what ran, corrected at each position by
  every true value the log recorded there (the truth beside each answer, the
  hidden preconditions' values, the enumerations' truth), and by the recorded goal
  outcome (ViPlan's ``env.goal_reached``: at the end, and, where the run checked it
  after every action, before the end too);
- **what the view shows**: on a partially observable run, the atoms the log asked
  about since the last move, refused moves included (ViPlan asks exactly
  ``env.visible_predicates``, and iGibson's view can change on a refused action),
  including atoms over scene objects the problem file does not declare; on a fully
  observable one, everything.
- **what the environment did not report**: atoms iGibson's state held no key for at
  a position, so that ViPlan's ``update_problem`` kept the problem file's value for
  them when it replanned there (``benchmark_igibson_plan.py``, update_problem's
  "Quickfix / failsafe": ``if args_str not in state[name]: continue``), and reading
  them as a hidden precondition raised (check_preconditions' ``env.state[predicate][args]``),
  which ended the episode. :meth:`ReplayedWorld.unreported` gives them to the
  protocol, which plans with the file's value for them.

The script is plain JSON (:meth:`WorldScript.to_json`), stored in each imported
episode record under ``world``; :func:`benchmarks.episode.make_environment` uses it
whenever a replayed record carries one.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Iterator

from toolkit import model as m
from toolkit.errors import PgtError
from toolkit.model import Atom
from toolkit.protocols import Observation, StepOutcome
from toolkit.task import GroundAction, Task


class ReplayDiverged(PgtError):
    """The replay did what the recorded run never did: there is no recorded outcome to give."""

    error_kind = "replay"  # the runner's kind for "the log cannot answer this" (never a crash)


@dataclass
class Move:
    """One recorded ``execute``: at ``position``, ``action`` was tried; ``executed``; ``ran`` what really ran."""

    position: int
    action: str
    executed: bool
    ran: str | None = ""  # "": the action itself; None: nothing (a no-op failure); else the action that ran

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"at": self.position, "action": self.action, "executed": self.executed}
        if self.ran != "":
            out["ran"] = self.ran
        return out


@dataclass
class WorldScript:
    """A recorded environment: per position, the true values and the view; the moves; the goal outcome."""

    partial: bool = False
    truth: list[dict[str, bool]] = field(default_factory=lambda: [{}])  # per position: atom text -> value
    # the view (partial runs): per move made so far, refused moves included (view_per_move), else per position
    visible: list[list[str]] = field(default_factory=lambda: [[]])
    moves: list[Move] = field(default_factory=list)
    goal_reached: bool | None = None
    # the run asked its environment whether the goal held after every action and went on while it did not
    # (ViPlan's planning_loop: ``while not env.goal_reached``), so it did not hold before the last position
    goal_checked: bool = False
    unreported: list[tuple[int, str]] = field(default_factory=list)  # (position, atom text) the state lacked
    # iGibson's view can change on a refused action (its server steps and renders the scene after every
    # request; the released runs' enumerations right after one show other objects than before it, e.g.
    # Phi-4 no CoT, putting_away_toys medium), so a view frame starts at every move; scripts written
    # before this was known hold one frame per position
    view_per_move: bool = True
    # per view frame: true values that held at that moment only (iGibson's reachable is near and visible,
    # so it can change with the view on a refused action); read over the position's values
    moment: list[dict[str, bool]] = field(default_factory=lambda: [{}])

    @property
    def position(self) -> int:
        return len(self.truth) - 1

    def observe(self, atom: Atom, value: bool | None, visible: bool) -> None:
        """Record a value (None: unknown) the log gives for ``atom`` at the current position."""
        if value is not None:
            self.truth[-1][str(atom)] = value
        if visible and self.partial and str(atom) not in self.visible[-1]:
            self.visible[-1].append(str(atom))

    def unreport(self, atom: Atom) -> None:
        """The environment's state held no value for ``atom`` at the current position."""
        if (self.position, str(atom)) not in self.unreported:
            self.unreported.append((self.position, str(atom)))

    def carry_view(self) -> None:
        """An empty view frame after refused moves takes the last view recorded at this position.

        For a moment whose questions went unlogged (an enumeration that raised, a reply that
        was neither yes nor no) the log does not say what the view showed; the last view it
        recorded since the last executed move is what the replay asks about there.
        """
        if not (self.partial and self.view_per_move) or self.visible[-1]:
            return
        at = len(self.visible) - 1
        while at > 0 and not self.moves[at - 1].executed:
            at -= 1
            if self.visible[at]:
                self.visible[-1].extend(self.visible[at])
                return

    def move(self, action: str, executed: bool, ran: str | None = "") -> None:
        self.moves.append(Move(self.position, action, executed, ran))
        if executed:
            self.truth.append({})
        if executed or self.view_per_move:
            self.visible.append([])
        if self.view_per_move:
            self.moment.append({})

    def observe_moment(self, atom: Atom, value: bool) -> None:
        """A true value that held since the last move (see ``moment``)."""
        self.moment[-1][str(atom)] = value

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"partial": self.partial, "truth": self.truth, "moves": [mv.to_json() for mv in self.moves],
                               "goal_reached": self.goal_reached}
        if self.goal_checked:
            out["goal_checked"] = True
        if self.unreported:
            out["unreported"] = [[at, text] for at, text in self.unreported]
        if self.partial:
            out["visible"] = self.visible
            out["view_per_move"] = self.view_per_move
            if any(self.moment):
                out["moment"] = self.moment
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> WorldScript:
        try:
            truth = [{str(k): bool(v) for k, v in frame.items()} for frame in data["truth"]]
            moves = [Move(int(mv["at"]), str(mv["action"]), bool(mv["executed"]), mv.get("ran", ""))
                     for mv in data["moves"]]
            partial = bool(data.get("partial"))
            visible = [list(map(str, v)) for v in data["visible"]] if partial else [[] for _ in truth]
            unreported = [(int(at), str(text)) for at, text in data.get("unreported", ())]
            moment = [{str(k): bool(v) for k, v in frame.items()} for frame in data.get("moment", ())]
            moment += [{} for _ in range(len(visible) - len(moment))]
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise PgtError(f"a recorded world script that does not read: {type(exc).__name__}: {exc}") from None
        return cls(partial, truth, visible, moves, data.get("goal_reached"), bool(data.get("goal_checked")),
                   unreported, bool(data.get("view_per_move", False)), moment)


def action_text(name: str, args: tuple[str, ...] | list[str]) -> str:
    """One spelling for an action however it was written: ``moveblock r c3`` for ``moveBlock(R, c3)``."""
    return " ".join(x.lower() for x in (name, *args))


def _parse_action(text: str) -> tuple[str, tuple[str, ...]]:
    name, _, rest = text.strip().partition("(")
    args = tuple(a.strip() for a in rest.rstrip(") ").split(",") if a.strip()) if rest else tuple(name.split()[1:])
    return (name.split()[0] if not rest else name.strip()), args


class ReplayedWorld:
    """The :class:`toolkit.protocols.Environment` of a recorded run (see the module docstring)."""

    def __init__(self, task: Task, script: WorldScript, source: str = "the recorded run") -> None:
        self.task, self.script, self.source = task, script, source
        self._moves: dict[tuple[int, str], list[Move]] = defaultdict(list)
        for mv in script.moves:
            self._moves[(mv.position, action_text(*_parse_action(mv.action)))].append(mv)
        self.reset()

    def reset(self, seed: int | None = None) -> Observation:
        self.position = 0
        self.moves_made = 0  # the view frame after them (WorldScript.view_per_move)
        self._tried: dict[tuple[int, str], int] = defaultdict(int)
        self._state = self._corrected(self.task.init, 0, final=not self.script.moves)
        return self.observe()

    def observe(self) -> Observation:
        visible = None
        if self.script.partial:
            at = self.moves_made if self.script.view_per_move else self.position
            frame = self.script.visible[at] if at < len(self.script.visible) else []
            visible = frozenset(Atom.parse(a) for a in frame)
        return Observation(self.position, self.true_state(), visible, None, ("replayed", self.position))

    def true_state(self) -> frozenset[Atom]:
        """The position's state with the values that held at this moment only (``WorldScript.moment``)."""
        frame = self.script.moment[self.moves_made] if self.script.view_per_move and \
            self.moves_made < len(self.script.moment) else None
        if not frame:
            return self._state
        return frozenset(a for a in self._state if frame.get(str(a), True)) | \
            frozenset(Atom.parse(text) for text, value in frame.items() if value)

    def unreported(self) -> frozenset[Atom]:
        """Atoms the recorded environment's state held no value for here (see the module docstring)."""
        return frozenset(Atom.parse(text) for at, text in self.script.unreported if at == self.position)

    def execute(self, action: GroundAction) -> StepOutcome:
        key = (self.position, action_text(action.name, action.args))
        recorded = self._moves.get(key)
        if not recorded:
            tried = sorted({mv.action for mv in self.script.moves if mv.position == self.position})
            raise ReplayDiverged(f"the replay executed {action} after {self.position} actions ran, and "
                                 f"{self.source} never tried it there (it tried: {', '.join(tried) or 'nothing'})")
        index = min(self._tried[key], len(recorded) - 1)
        self._tried[key] += 1
        mv = recorded[index]
        final = mv is self.script.moves[-1]
        met = self.true_state()  # the action meets what held at its moment (as the importer's walk does)
        self.moves_made += 1
        if not mv.executed:
            if final and self.script.goal_checked:  # the refused last move is when the goal came to hold
                self._state = self._corrected(self._state, self.position, final=True)
            return StepOutcome(str(action), False, None, self.observe())
        failure = None
        state = met
        if mv.ran is None:
            failure = "no_effect"
        else:
            ran = action
            if mv.ran and action_text(*_parse_action(mv.ran)) != key[1]:
                name, args = _parse_action(mv.ran)
                ran = self.task.action(name, args)
                failure = f"ran {ran}"
            state = ran.apply(state)
        self.position += 1
        self._state = self._corrected(state, self.position, final=final)
        return StepOutcome(str(action), True, failure, self.observe())

    def _corrected(self, state: frozenset[Atom], position: int, final: bool = False) -> frozenset[Atom]:
        """``state`` with the values the log recorded at ``position`` (and the goal outcome at the end).

        The end is the last position; where the run checked the goal before every action
        (``goal_checked``), it is the last move itself: ViPlan's household planning_loop
        (``benchmark_igibson_vila.py``: ``while not env.goal_reached``) reads ``env.state``, which
        ``apply_action`` replaces after every action, refused ones included
        (``igibson_client_env.py``), so the goal did not hold after any move before the last one,
        refused or not, even at the last position (gpt-4.1 no CoT, sorting_groceries medium: the
        goal held only after three refused actions at the last position).
        """
        frame = self.script.truth[position] if position < len(self.script.truth) else {}
        out = set(state)
        for text, value in frame.items():
            atom = Atom.parse(text)
            if value:
                out.add(atom)
            else:
                out.discard(atom)
        last = final if self.script.goal_checked else position == self.script.position
        if last and self.script.goal_reached and not self.task.goal_holds(frozenset(out)):
            for atom, value in goal_literals(self.task.problem.goal):  # the environment said the goal holds
                if value:
                    out.add(atom)
                else:
                    out.discard(atom)
        elif (self.script.goal_checked and not last or last and self.script.goal_reached is False) and \
                self.task.goal_holds(frozenset(out)):
            # the environment said the goal did not hold (which of its atoms failed it did not say): the
            # first goal literal the log does not pin here is taken as the one that failed
            for atom, value in goal_literals(self.task.problem.goal):
                if str(atom) not in frame:
                    if value:
                        out.discard(atom)
                    else:
                        out.add(atom)
                    break
        return frozenset(out)


def goal_literals(goal: m.Condition) -> Iterator[tuple[Atom, bool]]:
    """The literals of a conjunctive goal (what ``goal_reached`` asserts; other connectives say nothing)."""
    if isinstance(goal, m.Pred):
        yield Atom(goal.predicate, tuple(goal.terms)), True
    elif isinstance(goal, m.Not) and isinstance(goal.arg, m.Pred):
        yield Atom(goal.arg.predicate, tuple(goal.arg.terms)), False
    elif isinstance(goal, m.And):
        for part in goal.parts:
            yield from goal_literals(part)
