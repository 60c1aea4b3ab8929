"""The ViPlan VLM-as-planner prompts (appendix I), filled per task.

System prompts are the paper's, with and without chain of thought. The
environment description and action list come from ``planner.toml`` beside the
domain when it exists, and are otherwise written from the domain itself.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from toolkit.errors import PgtError
from toolkit.protocols import PlannerPrompt
from toolkit.task import Task

JSON_FORMAT = """```json
{
    "plan": [
    {
        "action": action_name,
        "parameters": {
            parameter_name: parameter_value
        }
    },
    ... other actions ...
    ]
}
```"""

SYSTEM = (
    "You are an expert planning assistant. You will be given an image which represents the current state of the "
    "environment you are in, a natural language description of the goal that needs to be achieved and a set of "
    "actions that can be performed in the environment.\n\nYour task is to generate a plan that achieves the goal, "
    "in the form of a sequence of actions that need to be executed to reach the goal.\n\n{cot}"
    "The format of your output should be a JSON object with the following structure{cot_json}:\n" + JSON_FORMAT + "\n\n"
    "You will also receive feedback of the previously taken actions, with a note showing if they failed or not. "
    "If an action failed, think about why that could be and then output a new plan accordingly."
)
COT = ("Before answering with the plan, think carefully step by step about the actions you need to take and what "
       "the expected outcome of each action is. Write the reasoning behind the plan and justify each action you are "
       "going to take. Make sure that each action is possible, and if previous actions failed, reason about why this "
       "could be the case.\n\n")
USER = """## Description of the environment
{description}

## Available actions
{actions}

## Goal
{goal}

## Previously taken actions
{history}

## Current environment state
(see the image)"""


def _domain_text(task: Task) -> tuple[str, str]:
    path = Path(task.domain.path).with_name("planner.toml")
    if path.is_file():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
            return str(data["description"]).strip(), str(data["actions"]).strip()
        except (tomllib.TOMLDecodeError, KeyError) as exc:
            raise PgtError(f"{path}: needs 'description' and 'actions' strings ({exc})") from None
    lines = []
    for a in task.domain.actions.values():
        params = ", ".join(v.lstrip("?") for v, _ in a.params)
        lines.append(f"- {a.name}({params}): precondition {a.precondition}; effect {a.effect}")
    objects = ", ".join(f"{o} ({t})" for o, t in sorted(task.objects.items()))
    return (f"A planning domain called '{task.domain.name}'. Objects: {objects}.",
            "You can use these actions (PDDL semantics):\n" + "\n".join(lines))


def build_prompt(task: Task, goal_text: str, history: list[str], cot: bool = False) -> PlannerPrompt:
    description, actions = _domain_text(task)
    # str.replace, not str.format: the JSON example's braces are text
    system = SYSTEM.replace("{cot}", COT if cot else "").replace(
        "{cot_json}", ". Make sure that the explanation is also written inside the json" if cot else "")
    user = USER
    for name, value in (("{description}", description), ("{actions}", actions), ("{goal}", goal_text),
                        ("{history}", "\n".join(history) if history else "None")):
        user = user.replace(name, value)
    return PlannerPrompt(system, user)
