"""The ViPlan VLM-as-planner prompt, as ViPlan's code assembles and sends it.

ViPlan keeps one prompt file per domain and setting
(``data/prompts/planning/vila_{blocksworld,igibson}_json[_cot].md`` in
github.com/merlerm/ViPlan): a ``<system>`` part and a ``<user>`` part whose
placeholders ``{goal_string}``, ``{previous_actions}`` and, for the household,
``{priviledged_info}`` are filled with ``str.replace`` (``planning_loop`` in
``viplan/experiments/benchmark_*_vila.py``); ``get_messages`` in
``viplan/code_helpers.py`` then strips each part and puts the image where
``{image}`` stands, at the end of the user message. This module rebuilds those
texts: the skeleton here, the environment description and action list from
``planner.toml`` beside the domain (or beside the shipped domain a file copies,
such as ViPlan's own ``domain.pddl``); a domain without one gets a description
and action list written from its PDDL.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from toolkit.errors import PgtError
from toolkit.protocols import PlannerPrompt
from toolkit.task import Task

SYSTEM_HEAD = (
    "You are an expert planning assistant. You will be given an image which represents the current state of the "
    "environment you are in, a natural language description of the goal that needs to be achieved and a set of "
    "actions that can be performed in the environment. \nYour task is to generate a plan that achieves the goal, "
    "in the form of a sequence of actions that need to be executed to reach the goal.\n"
)
COT = (
    "Before answering with the plan, think carefully step by step about the actions you need to take and what the "
    "expected outcome of each action is. Write the reasoning behind the plan and justify each action you are going "
    "to take. Make sure that each action is possible, and if previous actions failed, reason about why this could "
    "be the case.\n\nThe format of your output should be a JSON object with the following structure. Make sure that "
    "the explanation is also written inside the json.\n"
)
NO_COT = "The format of your output should be a JSON object with the following structure:\n"
PARAMETERS = {
    "dict": "{\n            parameter_name: parameter_value\n        }",  # Blocksworld: by parameter type
    "list": "['parameter1', 'parameter2', ...]",  # household: positional
}
SYSTEM_TAIL = (
    "\n\nYou will also receive feedback of the previously taken actions, with a note showing if they failed or not. "
    "If an action failed, think about why that could be and then output a new plan accordingly."
)


@dataclass(frozen=True)
class DomainText:
    """What ``planner.toml`` holds: the environment's description, its actions, how parameters are written."""

    description: str
    actions: str
    parameters: str = "list"  # "dict" (keyed by parameter type, ViPlan-BW) or "list" (ViPlan-HH)
    privileged_info: bool = False  # the household prompt's "Additional information" section


def system_text(cot: bool, parameters: str) -> str:
    explanation = '  "explanation": <a detailed explanation of the plan>,\n' if cot else ""
    fmt = ('```json\n{\n' + explanation + '  "plan": [\n    {\n        "action": action_name,\n'
           '        "parameters": ' + PARAMETERS[parameters] + '\n    },\n    ... other actions ...\n    ]\n}\n```')
    return (SYSTEM_HEAD + (COT if cot else NO_COT) + fmt + SYSTEM_TAIL).strip()


def user_text(text: DomainText, goal: str, previous_actions: str, privileged: str) -> str:
    """The user message's text (the image follows it), with ViPlan's replacements in ViPlan's order."""
    info = "## Additional information\n{priviledged_info}\n\n" if text.privileged_info else ""
    prompt = (f"## Description of the environment\n{text.description}\n\n{info}## Available actions\n{text.actions}"
              "\n\n## Goal\n{goal_string}\n\n## Previously taken actions\n{previous_actions}\n\n"
              "## Current environment state\n")
    prompt = prompt.replace("{goal_string}", goal).replace("{previous_actions}", previous_actions)
    if privileged:
        prompt = prompt.replace("{priviledged_info}", privileged)
    else:  # ViPlan drops the heading and the placeholder, leaving their blank lines
        prompt = prompt.replace("## Additional information", "").replace("{priviledged_info}", "")
    return prompt.strip()


def domain_text(task: Task) -> DomainText:
    from toolkit.question_file import twin_file

    path = Path(task.domain.path).with_name("planner.toml")
    path = path if path.is_file() else twin_file(task.domain, "planner.toml")
    if path is not None:
        return _read_planner_toml(str(path))
    lines = []
    for a in task.domain.actions.values():
        params = ", ".join(v.lstrip("?") for v, _ in a.params)
        lines.append(f"- {a.name}({params}): precondition {a.precondition}; effect {a.effect}")
    objects = ", ".join(f"{o} ({t})" for o, t in sorted(task.objects.items()))
    return DomainText(f"A planning domain called '{task.domain.name}'. Objects: {objects}.",
                      "You can use these actions (PDDL semantics):\n" + "\n".join(lines))


@lru_cache(maxsize=16)
def _read_planner_toml(path: str) -> DomainText:
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        parameters = str(data.get("parameters", "list"))
        if parameters not in PARAMETERS:
            raise KeyError(f"parameters must be one of {', '.join(PARAMETERS)}, not {parameters!r}")
        return DomainText(str(data["description"]), str(data["actions"]), parameters,
                          bool(data.get("privileged_info", False)))
    except (OSError, tomllib.TOMLDecodeError, KeyError) as exc:
        raise PgtError(f"{path}: needs 'description' and 'actions' strings ({exc})") from None


def build_prompt(task: Task, goal_text: str, previous_actions: str, cot: bool = False,
                 privileged: str = "") -> PlannerPrompt:
    """The system and user texts of one planning step (``previous_actions``: ViPlan's JSON list)."""
    text = domain_text(task)
    return PlannerPrompt(system_text(cot, text.parameters), user_text(text, goal_text, previous_actions, privileged))
