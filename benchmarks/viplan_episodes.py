"""One ViPlan episode as a pgt episode record, plus its answers for ``--grounder replay``.

ViPlan's logs hold every question (as a predicate key such as ``"on r,g"``), the
parsed answer and the true value, per action attempt and per enumeration. pgt's
record wants the same as events in order, with pgt's atoms (``(on R G)``, names as
the problem file writes them) and, for the answer log, the state key pgt's world
gives that moment. So the episode is walked through pgt's own world for the same
problem file: ViPlan's legal actions are executed there, and every answer gets the
state key and step of the observation it was given in.

The stop reason is derived from the log as ViPlan's ``check_plan`` (grounder) or
``planning_loop`` (planner) would have stopped; the rules and their places are
in :func:`grounder_stop` and :func:`planner_stop`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from benchmarks.viplan_logs import ViPlanEpisode, ViPlanLog, parse_action, parse_key
from grounders.records import AnswerRecord, state_key_text
from grounders.replay import ANY_ATOM
from toolkit.agents.viplan_atoms import precondition_expectations, precondition_literals
from toolkit.errors import PgtError
from toolkit.model import Atom
from toolkit.replayed_world import WorldScript, action_text
from toolkit.task import GroundAction, Task

_NOT_ANSWERS = ("all_correct", "all_state_correct", "updated_non_visible_preds")
UNLOGGED_REPLY = "(reply not logged by ViPlan: it held no JSON that parses)"
UNLOGGED_ANSWER = "(reply not logged by ViPlan"  # the raw text of a wildcard answer (Walk.unlogged_replies)


@dataclass
class Walk:
    """An episode being rebuilt: events, answers, counts, and the environment it met (a world script).

    ``partial``: the run's world shows part of the state (ViPlan's household); the
    atoms asked at a position are then what its view showed there.
    """

    task: Task
    episode_id: str
    model: str
    partial: bool = False
    events: list[dict[str, Any]] = field(default_factory=list)
    answers: list[AnswerRecord] = field(default_factory=list)
    script: WorldScript = field(default_factory=WorldScript)
    truth_mismatches: int = 0  # logged truths that differ from PDDL's prediction (the world script corrects them)
    refused: int = 0  # actions ViPlan's simulator ran that PDDL's model would refuse
    foreign: int = 0  # answers about atoms the problem file does not declare (household scene objects)
    # (position, atom text) whose truth iGibson's rules give, not the log (_hidden_unreachable)
    assumed: set[tuple[int, str]] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.script.partial = self.partial
        self.state: frozenset[Atom] = self.task.init  # the world script's truth so far
        # ViPlan's key -> (pgt's atom, foreign?): an episode names the same atoms hundreds of times, and an
        # undeclared name costs a did-you-mean search each time it is resolved
        self._atoms: dict[str, tuple[Atom, bool]] = {}

    @property
    def executed(self) -> int:
        return self.script.position

    @property
    def state_key(self) -> str:
        return state_key_text(("replayed", self.executed))  # ReplayedWorld.observe's key

    def can_see(self, atom: Atom) -> bool:
        return not self.partial or str(atom) in self.script.visible[-1]

    def atom(self, key: str) -> Atom:
        """pgt's atom for ViPlan's key; names the problem file lacks are kept as ViPlan wrote them.

        The household runs ask about every object of the iGibson scene instance, some of
        which the problem file does not declare (``hardback_2``): ViPlan asks about them
        in its enumerations (they are in ``env.visible_predicates``), so the world script
        shows them and a replay asks them too.
        """
        known = self._atoms.get(key)
        if known is None:
            name, args = parse_key(key)
            try:
                resolved = tuple(self.task.resolve_object(a) for a in args)
                known = Atom(_resolve_predicate(self.task, name), resolved), False
            except PgtError:
                known = Atom(name, args), True
            self._atoms[key] = known
        self.foreign += known[1]
        return known[0]

    def action(self, text: str) -> GroundAction | None:
        parsed = parse_action(text)
        if parsed is None:
            return None
        try:
            return self.task.action(*parsed)
        except PgtError:
            return None

    def hidden_init(self, atoms: frozenset[Atom] | None) -> None:
        """The environment's initial truths the problem file lacks (:func:`benchmarks.viplan_bddl.hidden_init`).

        Called before the log is walked, so any value the log gives at the start overrides them;
        they are the world script's truth at position 0 (never a view: the runs did not see them).
        """
        for atom in sorted(atoms or (), key=str):
            if atom not in self.state:
                self.script.observe(atom, True, False)
                self.state = self.state | {atom}

    def _know(self, atom: Atom, value: bool | None, visible: bool) -> None:
        self.script.observe(atom, value, visible)
        if value is not None and (atom in self.state) != value:
            self.truth_mismatches += 1
            self.state = self.state | {atom} if value else self.state - {atom}

    def ask(self, phase: str, key: str, answer: Any, truth: bool | None, expected: bool | None = None,
            raw: str = "", confidence: float = 1.0) -> None:
        """Record one logged answer as a pgt event and an answer record at the current position."""
        atom = self.atom(key)
        text = answer if isinstance(answer, str) else "" if answer is None else str(answer)
        verdict = text if text in ("yes", "no") else "unknown"
        status = "ok" if verdict != "unknown" else "unparseable"
        event: dict[str, Any] = {"phase": phase, "step": self.executed, "atom": str(atom), "answer": verdict,
                                 "truth": truth, "confidence": round(confidence, 4)}
        if expected is not None:
            event["expected"] = expected
        if status != "ok":
            event["status"] = status
            event["raw"] = text[:500]
        self.events.append(event)
        self._know(atom, truth, True)
        self.answers.append(AnswerRecord(str(atom), "", verdict, confidence, (raw or text)[:2000], self.state_key,
                                         status, self.executed, "viplan-log", self.model, episode=self.episode_id))

    def unlogged_replies(self, why: str) -> None:
        """ViPlan asked questions here and a reply was neither yes nor no (or the check raised), unlogged.

        The answer log gets a wildcard (:data:`grounders.replay.ANY_ATOM`): a replay that asks
        anything more here gets a reply that is not yes/no and stops as ViPlan's code did.
        Its raw text starts with :data:`UNLOGGED_ANSWER`; a count compared with ViPlan's
        (which holds only what it logged) leaves such answers out.
        """
        self.script.carry_view()  # what the view showed here went unlogged with the questions
        self.answers.append(AnswerRecord(ANY_ATOM, "", "unknown", 1.0, f"{UNLOGGED_ANSWER}: {why})",
                                         self.state_key, "unparseable", self.executed, "viplan-log", self.model,
                                         episode=self.episode_id))

    def hidden(self, results: dict[str, Any] | None) -> None:
        """Preconditions ViPlan read from its true state: ``{key: [matches, value, expected]}``."""
        for key, value in (results or {}).items():
            if key != "all_correct" and isinstance(value, list) and len(value) >= 2:
                self._know(self.atom(key), bool(value[1]), False)

    def enumerate(self, results: dict[str, Any]) -> bool:
        """An enumeration's answers (``{key: [answer, truth]}``); False if one is neither yes nor no."""
        clean = True
        for key, pair in results.items():
            answer, truth = (pair + [None, None])[:2] if isinstance(pair, list) else (pair, None)
            self.ask("enumerate", key, answer, None if truth is None else truth == "yes")
            clean &= answer in ("yes", "no")
        return clean

    def checks(self, phase: str, results: dict[str, Any] | None) -> None:
        """Precondition or effect answers: ``{key: [answer, p_yes, p_no, why, answer_match, output, state_match]}``."""
        for key, value in (results or {}).items():
            if key in _NOT_ANSWERS or not isinstance(value, list) or len(value) < 7:
                continue
            answer, p_yes, p_no, _, answer_match, output, state_match = value[:7]
            said_yes = answer == "yes"
            truth = said_yes == bool(state_match)
            expected = said_yes == bool(answer_match)
            probability = p_yes if said_yes else p_no
            confidence = float(probability) if isinstance(probability, (int, float)) and probability > 0 else 1.0
            self.ask(phase, key, answer, truth, expected, output if isinstance(output, str) else "", confidence)

    def execute(self, text: str, executed: bool, info: Any = None) -> None:
        """ViPlan's simulator was asked to run ``text``: record its answer in the world script.

        ``info`` is the simulator's own word (``BlocksworldSimulator.apply_action``): ``no-op``
        (a failure that changed nothing), the action that really ran (a failure that moved the
        block elsewhere), or, from iGibson, ``executed but failed`` (taken as no change: what the
        server did instead is only known through the true values logged after it).
        """
        action = self.action(text)
        ran: str | None = ""
        if executed:
            if info in ("no-op", "executed but failed"):
                ran = None
            elif isinstance(info, str) and parse_action(info) is not None and \
                    action_text(*parse_action(info)) != action_text(*(parse_action(text) or (text, ()))):
                ran = info
        self.script.move(text, executed, ran)
        if not executed:
            return
        done = self.action(ran) if ran else action if ran == "" else None
        if ran is not None and done is None:
            self.refused += 1
            return
        if done is not None:
            self.refused += not done.is_applicable(self.state)
            self.state = done.apply(self.state)


def _resolve_predicate(task: Task, name: str) -> str:
    for predicate in task.domain.predicates:
        if predicate.lower() == name.lower():
            return predicate
    raise PgtError(f"predicate {name!r} is not in domain {task.domain.name}")


# ------------------------------------------------------------------ grounder


def grounder_episode(log: ViPlanLog, ep: ViPlanEpisode, walk: Walk) -> dict[str, Any]:
    """The record fields of one VLM-as-grounder episode (events, counts, stop reason)."""
    data = ep.data or {}
    enum = data.get("initial_state_enum")
    init_clean = walk.enumerate(enum.get("results", {})) if isinstance(enum, dict) else True
    attempts = data.get("action_results")
    replans = list(data.get("replans") or [])
    remaining = list(data.get("remaining_actions") or [])
    if attempts is None:  # ViPlan never had a first plan (compute_metrics: "failed")
        # No enumeration logged in a run that enumerates: main's try around load_problem or around the
        # enumeration raised before storing anything (43 released Blocksworld episodes): a model or
        # endpoint error, or a problem that did not load. ViPlan counts the episode as failed.
        enumerates = log.metadata.get("enumerate_initial_state", log.domain == "blocksworld")
        stop = ("enumeration_error" if enum is None and enumerates else
                "bad_answer" if not init_clean else "no_plan")
        if stop == "enumeration_error":  # a replay's enumeration stops here too, on a reply that is no answer
            walk.unlogged_replies("its initial enumeration raised before it was logged")
        return _grounder_fields(walk, data, stop, 0, 0, [], True, enum is not None)
    first_failure = next((i for i, a in enumerate(attempts) if not a.get("action_correct")), None)
    initial = [a.get("action", "") for a in attempts[: (first_failure + 1 if first_failure is not None else None)]]
    if first_failure is None:
        initial += remaining
    walk.events.append({"phase": "plan", "step": 0, "plan": initial, "complete": first_failure is None})
    stop, replan_index = "", 0
    latest: list[str] | None = None  # the plan the queue holds (None: the first plan, which ViPlan never logged)
    consumed = 0  # attempts taken from it
    for number, attempt in enumerate(attempts, 1):
        text = str(attempt.get("action", ""))
        consumed += 1
        walk.events.append({"phase": "attempt", "step": walk.executed, "attempt": number, "action": text})
        walk.checks("precondition", attempt.get("preconditions_results"))
        walk.hidden(attempt.get("non_visible_precond_results"))
        effects = attempt.get("effects_results")
        if effects is not None:
            if walk.partial:
                _hidden_truth_from_effects(walk, text, effects)
            walk.execute(text, True, attempt.get("action_info"))
            walk.events.append({"phase": "act", "step": walk.executed, "action": text, "executed": True})
            walk.checks("effect", effects)
        elif _preconditions_agreed(attempt):  # check_action: "Action was not legal"
            walk.execute(text, False)
            walk.events.append({"phase": "act", "step": walk.executed, "action": text, "executed": False})
        if attempt.get("action_correct"):
            continue
        # benchmark_*_plan.py, check_plan: an illegal action equal to the most recent one ends the episode
        if effects is None and _preconditions_agreed(attempt) and number > 1 and \
                str(attempts[number - 2].get("action")) == text:
            stop = "loop"
            break
        if replan_index >= len(replans):
            if number != len(attempts):
                raise PgtError(f"attempt {number} failed, later attempts follow, and the log has no replan for it")
            # The released Blocksworld runs without action failures (final_cot, final_no_cot) end 435
            # episodes here: a failed last attempt and no replan logged. None of their replan
            # enumerations holds a reply that is not yes/no, while their initial ones do (6%): the
            # code that wrote them logged a replan only after its enumeration passed update_vlm_state,
            # so these are bad answers whose enumeration went unlogged (a wildcard answer replays them).
            walk.events.append({"phase": "replan", "step": walk.executed, "reason": "mismatch", "logged": False})
            walk.unlogged_replies("its replan enumeration went unlogged")
            stop = "bad_answer"
            break
        replan = replans[replan_index]
        replan_index += 1
        walk.events.append({"phase": "replan", "step": walk.executed, "reason": "mismatch"})
        if not replan:  # replans.append({}) ran, then the enumeration raised (34 household episodes)
            walk.unlogged_replies("its replan enumeration raised before it was logged")
            stop = "enumeration_error"
            break
        if "enum_results" in replan and not walk.enumerate(replan["enum_results"]):
            stop = "bad_answer"  # update_vlm_state asserts on the answer; check_plan's except ends the episode
            break
        if "actions" not in replan:
            stop = "no_plan"  # get_plan returned None or an unsolved status: check_plan breaks
            break
        walk.events.append({"phase": "plan", "step": walk.executed, "plan": list(replan["actions"]), "complete": True})
        latest, consumed = [str(a) for a in replan["actions"]], 0
        if walk.partial:
            if "enum_results" in replan:
                _hidden_unreachable(walk, replan["enum_results"])
            _hidden_truth_from_plan(walk, latest, replan.get("enum_results") or {})
    if not stop:
        stop = _queue_stop(log, walk, attempts, remaining, latest, consumed, enum)
    plan_lengths = [len(e["plan"]) for e in walk.events if e["phase"] == "plan" and e.get("complete")]
    return _grounder_fields(walk, data, stop, len(attempts), replan_index, plan_lengths, False, enum is not None,
                            remaining)


def _hidden_unreachable(walk: Walk, enumerated: dict[str, Any]) -> None:
    """iGibson's ``reachable`` is false for every object its view does not show, at a replan's enumeration.

    iGibson's symbolic state computes ``reachable(x)`` as ``_is_near(x) and _is_visible(x)``
    (nicoladainese96/iGibson, ``igibson/action_primitives/igibson_semantic_actions_env.py``,
    ``_is_reachable``), for every task object. ViPlan's replan enumerates
    ``env.visible_predicates`` (``viplan/planning/igibson_client_env.py``: the state's atoms whose
    arguments are all visible objects; ``reachable`` is in the state for every task object) and
    plans from ``update_vlm_state(copy.deepcopy(env.state), enum_results)``
    (``benchmark_igibson_plan.py``, ``check_plan``), so an object whose ``reachable`` the
    enumeration did not ask is not visible and is unreachable in the state the replan starts
    from. An object iGibson does not report keeps the problem file's value (``update_problem``'s
    "Quickfix / failsafe"), and no household problem file makes an object reachable, so that
    value is false too. PDDL's prediction can say otherwise (``open-container`` makes the
    contents reachable; a later ``grasp`` hides them from the view), and the replan's plan
    depends on it (InternVL3-8B, cleaning_out_drawers hard: ViPlan closes and reopens the
    cabinet to reach the cloth). The value holds at this moment (``WorldScript.moment``): a truth
    the log gives at a later moment of the same position, after a refused action, is iGibson's
    state then (Phi-4 no CoT, packing_food_for_work medium). A truth it gave earlier at this
    position wins: iGibson computes ``reachable`` in the state an action returns and the view in
    a separate ``get_visible_objects`` request, and the two can disagree (Phi-4 no CoT,
    putting_away_toys medium: the held plaything_2, reported reachable, was not in the view
    after a refused place, and ViPlan's replan placed it next to itself).
    """
    try:
        reachable = _resolve_predicate(walk.task, "reachable")
    except PgtError:
        return  # not ViPlan's household domain
    asked = {str(walk.atom(key)) for key in enumerated}
    logged = walk.script.truth[-1]  # so far: what the log gave at this position before this moment
    for name in walk.task.objects:
        atom = Atom(reachable, (name,))
        if str(atom) not in asked and str(atom) not in logged:
            # at this moment only: a refused action can change iGibson's view, and with it reachable
            walk.script.observe_moment(atom, False)
            walk.state = walk.state - {atom}
            walk.assumed.add((walk.script.position, str(atom)))


def _hidden_truth_from_plan(walk: Walk, plan: list[str], enumerated: dict[str, Any]) -> None:
    """What ViPlan's hidden true state must have held for its logged replan to be a plan.

    ViPlan replans from ``env.state`` with the enumerated answers written over it
    (``update_vlm_state(copy.deepcopy(env.state), enum_results)``), so every atom the
    plan needs (a precondition, or a goal literal it leaves alone) that the view did not
    show held in iGibson's state as the plan needs it. The household problem files
    leave much of the state to the scene (``sorting_groceries``'s ``:init`` is empty),
    which only iGibson knew; the plan tells it. Such atoms go into the world script,
    so the replay plans from the state ViPlan planned from.
    """
    from toolkit.replayed_world import goal_literals

    belief = set(walk.state)
    for key, pair in enumerated.items():  # the answers, as update_vlm_state writes them
        answer = pair[0] if isinstance(pair, list) and pair else pair
        atom = walk.atom(key)
        if answer == "yes":
            belief.add(atom)
        elif answer == "no":
            belief.discard(atom)
    state, touched = frozenset(belief), set()
    logged = walk.script.truth[-1]

    def settle(literals) -> bool:
        nonlocal state
        for atom, want in literals:
            if (atom in state) == want:
                continue
            if atom in touched or walk.can_see(atom) or str(atom) in logged:
                return False  # not a hidden fact the plan relies on: leave the script as the log has it
            walk._know(atom, want, False)
            state = state | {atom} if want else state - {atom}
        return True

    for text in plan:
        action = walk.action(text)
        # the planner's plan meets the whole precondition, not only what ViPlan asks of it
        if action is None or not settle(precondition_literals(walk.task, action)):
            return
        after = action.apply(state)
        touched |= after ^ state
        state = after
    settle(goal_literals(walk.task.problem.goal))


def _hidden_truth_from_effects(walk: Walk, text: str, effects: dict[str, Any]) -> None:
    """The hidden conditions of conditional effects ViPlan asked about, true in its state before the action.

    ViPlan's effect questions are the effects that fire with their conditions read in
    ``copy.deepcopy(env.state)`` (``get_effect_predicates``): an effect it asked about
    (or set, where hidden: ``updated_non_visible_preds``) that PDDL's model of the state
    does not fire had its ``when`` condition true in iGibson (``open-container``: the
    objects inside are reachable), so the condition's hidden atoms go into the script.
    """
    from toolkit import model as m
    from toolkit.agents.viplan_atoms import effect_expectations

    action = walk.action(text)
    if action is None:
        return
    logged = {walk.atom(k) for k, v in effects.items() if k not in _NOT_ANSWERS and isinstance(v, list)}
    logged |= {walk.atom(k) for k in (effects.get("updated_non_visible_preds") or {})}
    missing = logged - {atom for atom, _ in effect_expectations(action, walk.state)}
    if not missing:
        return
    binding = {var: arg for (var, _), arg in zip(action.schema.params, action.args)}

    def visit(node: Any, bound: dict[str, str]) -> None:
        if isinstance(node, m.AndEffect):
            for part in node.parts:
                visit(part, bound)
        elif isinstance(node, m.ForallEffect):
            (var, types), rest = node.params[0], node.params[1:]
            for obj in walk.task.objects_of(types):
                visit(m.ForallEffect(rest, node.body) if rest else node.body, {**bound, var: obj})
        elif isinstance(node, m.WhenEffect) and isinstance(node.body, (m.AddEffect, m.DelEffect)):
            pred = node.body.atom
            if Atom(pred.predicate, tuple(bound.get(t, t) for t in pred.terms)) not in missing:
                return
            for part in (node.condition.parts if isinstance(node.condition, m.And) else (node.condition,)):
                if isinstance(part, m.Pred):
                    atom = Atom(part.predicate, tuple(bound.get(t, t) for t in part.terms))
                    if not walk.can_see(atom) and str(atom) not in walk.script.truth[-1]:
                        walk._know(atom, True, False)

    visit(action.schema.effect, binding)


def _preconditions_agreed(attempt: dict[str, Any]) -> bool:
    """check_action's precondition verdict: ``all_correct``, true when no question was asked (household)."""
    results = attempt.get("preconditions_results") or {}
    return bool(results.get("all_correct", True))


def _queue_stop(log: ViPlanLog, walk: Walk, attempts: list, remaining: list[str], latest: list[str] | None,
                consumed: int, enum: Any) -> str:
    """Why check_plan's loop ended with no break of its own: the queue ran out, the cap, or a crash.

    ``while action_queue and len(results) < max_actions``, then ``if len(action_queue) == 0: break``
    before ``if len(results) >= max_actions: break`` (benchmark_*_plan.py, check_plan). Else the
    loop popped the next action and its ``check_action`` raised before anything was logged
    (``remaining_actions`` is the queue after that pop): a reply that is neither yes nor no
    (``update_vlm_state``'s assert), or, in the household code, a hidden precondition that is
    false (``check_action`` returns five values where ``check_plan`` unpacks six). That action
    is the plan's next one; the first plan is not logged, so it is planned again as ViPlan's
    ``main`` planned it.
    """
    # a logged replan says whether the queue ran out: the check of its last action may have raised
    if (consumed >= len(latest)) if latest is not None else not remaining:
        return "plan_exhausted"
    if len(attempts) >= log.max_steps:
        return "step_cap"
    plan = latest if latest is not None else _first_plan(walk, enum)
    text = plan[consumed] if plan is not None and consumed < len(plan) else None
    action = walk.action(text) if text else None
    if action is None:
        walk.unlogged_replies("a check raised before it was logged")
        return "bad_answer"
    expected = precondition_expectations(walk.task, action)
    hidden = [(atom, value) for atom, value in expected if not walk.can_see(atom)]
    # ViPlan asked the visible preconditions (check_preconditions asks before it reads the hidden ones)
    # and then raised: their replies went unlogged, and the wildcard answers them
    walk.unlogged_replies(f"the check of {text} raised before it was logged")
    if any((atom in walk.state) != value for atom, value in hidden):
        return "hidden_precondition"
    unlogged = [(atom, value) for atom, value in hidden if str(atom) not in walk.script.truth[-1]
                or (walk.script.position, str(atom)) in walk.assumed]
    if unlogged and not any(walk.can_see(atom) for atom, _ in expected):
        # nothing was asked, so nothing could be a bad reply: a hidden precondition was false in
        # ViPlan's world where PDDL's effects predict it true; the world script records it so
        atom, value = unlogged[0]
        walk.script.observe(atom, not value, False)
        # ViPlan's planner did not see that value (a replan here would not have planned this action):
        # iGibson's state held no key for the atom, so update_problem kept the file's value, and reading
        # it raised a KeyError in check_preconditions, which ended the episode (check_plan's except: break)
        walk.script.unreport(atom)
        walk.script.moment[-1].pop(str(atom), None)  # no value at all: not _hidden_unreachable's false
        walk.state = walk.state - {atom} if value else walk.state | {atom}
        return "hidden_precondition"
    return "bad_answer"


def _first_plan(walk: Walk, enum: Any) -> list[str] | None:
    """ViPlan's first plan, planned again: ``get_plan(problem)``, the problem updated with the enumeration if any."""
    from benchmarks.episode import make_planner

    belief = walk.task.init
    if isinstance(enum, dict) and isinstance(enum.get("results"), dict):
        belief = frozenset(walk.atom(k) for k, pair in enum["results"].items()
                           if (pair[0] if isinstance(pair, list) and pair else pair) == "yes")
    result = make_planner("up-oneshot").solve(walk.task, init=belief)
    return [f"{a.name}({', '.join(a.args)})" for a in result.plan] if result.solved else None


def _grounder_fields(walk: Walk, data: dict[str, Any], stop: str, attempts: int, replans: int,
                     plan_lengths: list[int], failed: bool, enumerated: bool,
                     remaining: list[str] | None = None) -> dict[str, Any]:
    enumerations = int(enumerated) + sum(1 for e in walk.events if e["phase"] == "replan")
    walk.script.goal_reached = bool(data.get("goal_reached", False))
    return {**_answer_counts(walk), "success": bool(data.get("goal_reached", False)), "stop_reason": stop,
            "actions": attempts, "executed_actions": walk.executed, "replans": replans,
            "enumerations": enumerations, "plan_lengths": plan_lengths, "remaining_actions": remaining or [],
            "viplan_failed": failed}


def _answer_counts(walk: Walk) -> dict[str, Any]:
    asked = [e for e in walk.events if "atom" in e]
    per: dict[str, dict[str, int]] = {}
    answered = correct = 0
    for e in asked:
        if e["answer"] in ("yes", "no"):
            ok = (e["answer"] == "yes") == e["truth"]
            answered += 1
            correct += ok
            tally = per.setdefault(e["atom"][1:].split(" ", 1)[0].rstrip(")"), {"answered": 0, "correct": 0})
            tally["answered"] += 1
            tally["correct"] += ok
    return {"questions": len(asked), "answered": answered, "correct": correct,
            "unparseable": len(asked) - answered, "grounder_errors": 0,
            "per_predicate": dict(sorted(per.items())), "events": walk.events,
            "truth_mismatches": walk.truth_mismatches, "refused_actions": walk.refused,
            "foreign_atoms": walk.foreign, "world": walk.script.to_json()}


# ------------------------------------------------------------------- planner


def planner_episode(log: ViPlanLog, ep: ViPlanEpisode, walk: Walk) -> dict[str, Any]:
    """The record fields of one VLM-as-planner episode (benchmark_*_vila.py, planning_loop)."""
    data = ep.data or {}
    plans = list(data.get("plans") or [])
    actions = [a if isinstance(a, dict) else {} for a in data.get("actions") or []]
    per_step = _actions_per_step(actions)
    for index, plan in enumerate(plans):
        steps = plan.get("plan") if isinstance(plan, dict) else None
        walk.events.append({"phase": "propose", "step": index, "reply": json.dumps(plan),
                            "plan": [_step_text(s) for s in steps] if isinstance(steps, list) else None})
        for act in per_step[index] if index < len(per_step) else []:
            text, ok = str(act.get("action", "")), bool(act.get("success"))
            if "success" in act and parse_action(text) is not None:
                walk.execute(text, ok, act.get("info"))
            walk.events.append({"phase": "act", "step": index + 1, "action": text, "executed": ok})
    walk.script.goal_reached = bool(data.get("completed"))
    walk.script.goal_checked = True  # planning_loop: while not env.goal_reached
    stop = planner_stop(log, data, plans, per_step)
    if stop == "invalid_json":
        walk.events.append({"phase": "propose", "step": len(plans), "reply": UNLOGGED_REPLY, "plan": None})
    calls = len(plans) + (stop == "invalid_json")
    # Steps as ViPlan's ``actions`` list holds them, and the viplan-planner protocol counts them: one
    # per reply that parsed (the one that breaks in the failsafe included), two where reading the
    # plan's action raised KeyError (``{'action': 'None'}``, then ``unknown action``)
    steps = len(actions)
    return {**_answer_counts(walk), "questions": calls, "success": bool(data.get("completed")), "stop_reason": stop,
            "actions": steps, "executed_actions": walk.executed, "replans": 0, "enumerations": 0,
            "plan_lengths": [len(p["plan"]) for p in plans if isinstance(p, dict) and isinstance(p.get("plan"), list)],
            "action_failures": 0, "viplan_failed": ep.data is None}


def planner_stop(log: ViPlanLog, data: dict[str, Any], plans: list, actions: list) -> str:
    """Why planning_loop ended (benchmark_blocksworld_vila.py / benchmark_igibson_vila.py, planning_loop).

    ``while not env.goal_reached and max_steps > 0``: a reply that ``parse_json_output``
    cannot read breaks before anything is appended (``invalid_json``); a plan whose
    first step cannot be read breaks in the "failsafe" block after its action was
    appended (``empty_plan``); a full iteration costs one of ``max_steps``.
    """
    if data.get("completed"):
        return "goal_reached"
    if plans and len(plans) == len(actions) and not _first_step_readable(plans[-1]):
        # The household loop reads ``first_action['action']`` in its failsafe, and ``first_action`` keeps
        # the last readable step of an earlier reply: only an unreadable *first* reply breaks there.
        if log.domain != "igibson" or not any(_first_step_readable(p) for p in plans[:-1]):
            return "empty_plan"
    if len(actions) >= log.max_steps:
        return "step_cap"
    return "invalid_json"


def _actions_per_step(actions: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """planning_loop's ``actions`` grouped by step: a step logs one entry, or two when reading its action failed.

    The Blocksworld loop appends ``{'action': str(action)}`` before running it and, when
    ``get_plan_action`` gave None (a plan without ``plan``/``parameters`` keys), its except
    appends ``{'action': 'unknown action', 'success': False}`` too: the first entry then has
    no ``success`` (benchmark_blocksworld_vila.py, planning_loop).
    """
    steps: list[list[dict[str, Any]]] = []
    pending: list[dict[str, Any]] = []
    for act in actions:
        pending.append(act)
        if "success" in act:
            steps.append(pending)
            pending = []
    if pending:
        steps.append(pending)
    return steps


def _first_step_readable(plan: Any) -> bool:
    try:
        plan["plan"][0]["action"]
    except Exception:  # noqa: BLE001 - planning_loop's failsafe catches every exception the same way
        return False
    return True


def _step_text(step: Any) -> str:
    if not isinstance(step, dict):
        return str(step)
    params = step.get("parameters")
    args = params.values() if isinstance(params, dict) else params if isinstance(params, list) else []
    return f"{step.get('action')}({', '.join(str(a) for a in args)})"
