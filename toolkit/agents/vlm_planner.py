"""The ViPlan VLM-as-planner protocol, rule for rule as ViPlan's code runs it.

The reference is ``planning_loop`` in ``viplan/experiments/benchmark_blocksworld_vila.py``
(ViPlan-BW) and ``benchmark_igibson_vila.py`` (ViPlan-HH), github.com/merlerm/ViPlan.

Each step the model gets the image, the goal as sentences, the actions and the
history (a JSON list of ``{action, parameters, outcome[, info]}``), and replies with
a plan; its first action is executed. The loop runs while the goal does not hold
in the world and steps remain (the cap is 10 / 20 / 30 by split in ViPlan's
scripts). Every step that records an action costs one step:

- the reply's JSON is the text from its first ``{`` to its last ``}``; if that does
  not parse, the episode ends (``invalid_json``: "Could not parse VLM output");
- a plan with no first action ends the episode (``empty_plan``: "Something went
  wrong (e.g. plan is empty)"), after recording an ``unknown action``;
- an action name the domain does not have is recorded as ``action does not exist``;
  wrong parameters as ``parameters incorrectly specified``; else the world
  executes it and the outcome is ``success`` / ``failure`` (BW) or ``executed``
  (HH, where every refused action is labelled ``parameters incorrectly specified``,
  as ViPlan's ``wrong_parameters = not success`` does).

Names are compared as ViPlan compares them, exactly, against unified-planning's
lower-cased names. An endpoint failure ends the episode as ``endpoint_error``
(the study records an error to retry, never the model's failure).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable

from toolkit.agents.base import Clock, EpisodeResult, Ledger
from toolkit.agents.planner_prompts import build_prompt, domain_text
from toolkit.agents.viplan_goals import goal_text_viplan, privileged_text
from toolkit.errors import PgtError
from toolkit.protocols import Environment, PlanProposer
from toolkit.task import GroundAction, Task


@dataclass(frozen=True)
class ViPlanPlannerConfig:
    max_steps: int = 20
    cot: bool = False


def parse_json_output(output: str) -> Any:
    """ViPlan's ``parse_json_output``: ``json.loads`` of the text from the first ``{`` to the last ``}``."""
    return json.loads(output[output.find("{"): output.rfind("}") + 1])


class _NoGrounder:
    name = "none"

    def ask(self, observation, atoms):  # pragma: no cover - never called
        return []


def run_viplan_planner(env: Environment, proposer: PlanProposer, config: ViPlanPlannerConfig = ViPlanPlannerConfig(),
                       seed: int | None = None, goal_text: Callable[[Task], str] = goal_text_viplan) -> EpisodeResult:
    """Run one episode of the ViPlan VLM-as-planner protocol.

    ``actions`` counts the entries ViPlan's ``problem_results['actions']`` would hold (a step
    whose plan lacks a key records two there, ``None`` and ``unknown action``), so step
    counts and ViPlan's action success rate compare one to one with its logs.
    """
    clock = Clock()
    task = env.task
    ledger = Ledger(_NoGrounder())
    obs = env.reset(seed)
    step_of = _bw_step if domain_text(task).parameters == "dict" else _hh_step
    state = _Loop(task, env)
    steps_left = config.max_steps
    stop = "step_cap"
    goal = goal_text(task)
    while not task.goal_holds(env.true_state()) and steps_left > 0:
        prompt = build_prompt(task, goal, json.dumps(state.history), config.cot,
                              privileged_text(task, env.true_state()))
        reply = proposer.propose(state.obs or obs, prompt)
        ledger.prompt_tokens += reply.prompt_tokens
        ledger.completion_tokens += reply.completion_tokens
        ledger.questions += 1  # one model call per step
        if reply.status == "error":  # the endpoint failed: nothing to judge the model by, stop here
            ledger.errors += 1
            ledger.note("propose", len(state.entries), reply=reply.text[:2000], status="error")
            stop = "endpoint_error"
            break
        ledger.note("propose", len(state.entries), reply=reply.text[:20000])
        try:
            plan = parse_json_output(reply.text)
        except (json.JSONDecodeError, RecursionError):  # "Could not parse VLM output": break
            stop = "invalid_json"
            break
        if isinstance(plan, dict) and isinstance(plan.get("plan"), list):
            state.plan_lengths.append(len(plan["plan"]))
        before = len(state.entries)
        ended = step_of(state, plan)
        for entry in state.entries[before:]:
            ledger.note("act", len(state.entries), **entry)
        if ended:
            stop = ended
            break
        steps_left -= 1
    else:
        stop = "goal_reached" if task.goal_holds(env.true_state()) else "step_cap"
    success = task.goal_holds(env.true_state())
    result = EpisodeResult(success, stop, len(state.entries), 0, 0, ledger, clock.seconds(), state.plan_lengths,
                           state.failures)
    ledger.note("summary", len(state.entries), invalid_plans=state.invalid)
    return result


class _Loop:
    """What ViPlan's planning_loop carries from step to step."""

    def __init__(self, task: Task, env: Environment) -> None:
        self.task, self.env = task, env
        self.history: list[dict[str, Any]] = []  # previous_actions, as the prompt shows it
        self.entries: list[dict[str, Any]] = []  # problem_results['actions']
        self.plan_lengths: list[int] = []
        self.failures = self.invalid = 0
        self.obs = None
        self.last_first: Any = None  # the household loop's `first_action`, which outlives its step
        self.names = {n.lower(): n for n in task.domain.actions}

    def execute(self, action: GroundAction) -> Any:
        outcome = self.env.execute(action)
        self.obs = outcome.observation
        self.failures += outcome.failure is not None
        return outcome


def _bw_step(loop: _Loop, plan: Any) -> str | None:
    """One step of benchmark_blocksworld_vila.py's planning_loop; the stop reason if it breaks."""
    task = loop.task
    try:
        first = plan["plan"][0]
        action = _bw_action(task, loop.names, first["action"], first["parameters"])
    except KeyError:  # get_plan_action catches KeyError and returns None: the None is recorded, then applying it fails
        loop.entries.append({"action": "None"})
        loop.entries.append({"action": "unknown action", "success": False, "info": None})
        return _bw_failsafe(loop, plan)
    except Exception:  # noqa: BLE001 - IndexError, TypeError, an unknown name or object: ViPlan's outer except
        loop.entries.append({"action": "unknown action", "success": False, "info": None})
        return _bw_failsafe(loop, plan)
    outcome = loop.execute(action)
    info = _bw_info(action, outcome)
    loop.entries.append({"action": _up_text(action), "success": outcome.executed, "info": info})
    typed = {types[0]: arg.lower() for (_, types), arg in zip(action.schema.params, action.args)}
    loop.history.append({"action": action.name.lower(), "parameters": typed,
                         "outcome": "success" if outcome.executed else "failure", "info": info})
    return None
def _bw_action(task: Task, names: dict[str, str], name: Any, parameters: Any) -> GroundAction:
    """``env._get_specific_action(block=..., column=..., action_name=...)``: parameters keyed by type.

    A missing key is a KeyError (ViPlan: the step records ``None``); a value that is not
    one of unified-planning's lower-case object names fails its assertion, and an unknown
    action name fails ``problem.action``: both are ViPlan's outer exception.
    """
    schema = task.domain.actions[names[name]] if isinstance(name, str) and name in names else None
    values = [parameters[types[0]] for _, types in schema.params] if schema is not None else \
        [parameters["block"], parameters["column"]]  # the keys are read before the name is looked up
    if schema is None:
        raise PgtError(f"unknown action {name!r}")
    objects = {o.lower(): o for o in task.objects}
    args = []
    for value, (_, types) in zip(values, schema.params):
        obj = objects.get(value) if isinstance(value, str) and value == value.lower() else None
        if obj is None or obj not in task.objects_of(types):
            raise PgtError(f"{value!r} is not a {types[0]}")  # ViPlan: AssertionError
        args.append(obj)
    return task.action(schema.name, args)


def _bw_failsafe(loop: _Loop, plan: Any) -> str | None:
    """The loop's "Failsafe for actions that don't exist": with no action built, ``action does not exist``."""
    try:
        name = plan["plan"][0]["action"]
        hash(name)
    except Exception:  # noqa: BLE001 - "Something went wrong (e.g. plan is empty)": break
        return "empty_plan"
    loop.invalid += 1
    loop.history.append({"action": name, "outcome": "action does not exist"})
    return None


def _hh_step(loop: _Loop, plan: Any) -> str | None:
    """One step of benchmark_igibson_vila.py's planning_loop; the stop reason if it breaks."""
    task = loop.task
    try:
        first = plan["plan"][0]
        loop.last_first = first
        parameters = first["parameters"]
        name = first["action"]
        text = f"{name}({', '.join(str(p) for p in parameters)})"
    except Exception:  # noqa: BLE001 - the outer except: 'unknown action'
        loop.entries.append({"action": "unknown action", "success": False})
        return _hh_failsafe(loop)
    loop.entries.append({"action": text})
    action = _hh_action(task, loop.names, name, parameters)
    executed = False
    if action is not None:
        outcome = loop.execute(action)
        executed = outcome.executed
    loop.entries[-1].update(success=executed, info=None)  # the server's info text is iGibson's own
    if not (isinstance(name, str) and name in loop.names):
        loop.invalid += 1
        loop.history.append({"action": name, "outcome": "action does not exist"})
    elif not executed:  # ViPlan: wrong_parameters = not success
        loop.invalid += action is None
        loop.history.append({"action": name, "parameters": parameters, "outcome": "parameters incorrectly specified"})
    else:
        loop.history.append({"action": name, "parameters": parameters, "outcome": "executed"})
    return None


def _hh_failsafe(loop: _Loop) -> str | None:
    """The failsafe reads ``first_action``, which is the *previous* step's when this step's plan had none."""
    first = loop.last_first
    try:
        name = first["action"]
        hash(name)
    except Exception:  # noqa: BLE001 - unbound at the first step (or unreadable): "Something went wrong": break
        return "empty_plan"
    loop.invalid += 1
    loop.history.append({"action": name, "outcome": "action does not exist"})
    return None


def _hh_action(task: Task, names: dict[str, str], name: Any, parameters: Any) -> GroundAction | None:
    """The action sent to the household server, or None where ViPlan's server cannot read it (``success: False``).

    ViPlan's loop checks neither types nor names: it posts the name and parameters and
    the server decides (``iGibsonClient.apply_action``); iGibson ran ``grasp(window_1)``
    on a window ("executed but failed") and ``navigate-to(counter_1)`` to a scene object
    the problem file does not declare. So such an action goes to the environment too,
    which decides (pgt's own worlds refuse both).
    """
    if not isinstance(name, str) or name not in names or not isinstance(parameters, (list, tuple)):
        return None
    schema = task.domain.actions[names[name]]
    objects = {o.lower(): o for o in task.objects}
    if len(parameters) != len(schema.params) or not all(isinstance(p, str) and p.strip() for p in parameters):
        return None
    args = tuple(objects.get(p, p) for p in parameters)  # unified-planning's names are lower case, exactly
    if all(p in objects for p in parameters):
        try:
            return task.action(schema.name, args)
        except PgtError:
            pass
    return task.instantiate(schema.name, args)


def _up_text(action: GroundAction) -> str:
    """How ViPlan's logs print an action: unified-planning's ``moveblock(r, c1)``."""
    return f"{action.name.lower()}({', '.join(a.lower() for a in action.args)})"


def _bw_info(action: GroundAction, outcome: Any) -> str:
    """BlocksworldSimulator.apply_action's info: ``success``, ``not legal``, ``no-op`` or the action that really ran."""
    if not outcome.executed:
        return "not legal"
    if outcome.failure is None:
        return "success"
    if outcome.failure in ("no_effect", "nothing_happened", "grasp_failed"):
        return "no-op"
    block = action.args[0]
    column = next((a.args[1] for a in outcome.observation.truth
                   if a.predicate.lower() == "incolumn" and a.args[0] == block), action.args[1])
    return f"{action.name.lower()}({block.lower()}, {column.lower()})"
