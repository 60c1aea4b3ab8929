"""The goal and the privileged facts in ViPlan's words, for the VLM-as-planner prompt.

- Blocksworld: ``get_goal_str`` in ``viplan/experiments/benchmark_blocksworld_vila.py``:
  one line per block in declaration order, "The red block needs to be in the column
  with label 'c1' and needs to be the topmost block in its column. ".
- Household: ``get_goal_str`` in ``benchmark_igibson_vila.py``: one line per goal
  literal from ``goal_templates`` ("the book_1 needs to be inside the shelf_1",
  "... must not be ..." when negated); ``get_priviledged_predicates_str`` writes
  the "Additional information" section: each object inside a container that is not
  reachable ("the book_1 is inside the box_1"). ViPlan iterates a Python set
  there (an order that changes per run); pgt sorts.
- Any other domain (ViPlan's code has nothing for it): one line per goal literal,
  worded by the domain's questions ("the red block is on the blue block" style is
  not derivable, so: the yes/no question and the answer the goal needs).

Names are written lower case, as unified-planning writes them in ViPlan.
"""

from __future__ import annotations

from toolkit import model as m
from toolkit.model import Atom
from toolkit.task import Task

BW_BLOCKS = {"r": "red block", "g": "green block", "b": "blue block", "y": "yellow block", "o": "orange block",
             "p": "purple block"}  # block_templates

HH_GOALS = {  # goal_templates: predicate -> (positive, negated)
    "reachable": ("the {0} needs to be reachable by the agent", "the {0} needs to be unreachable by the agent"),
    "holding": ("the agent needs to be holding the {0}", "the agent must not be holding the {0}"),
    "open": ("the {0} needs to be open", "the {0} needs to be closed"),
    "ontop": ("the {0} needs to be on top of the {1}", "the {0} must not be on top of the {1}"),
    "inside": ("the {0} needs to be inside the {1}", "the {0} must not be inside the {1}"),
    "nextto": ("the {0} needs to be next to the {1}", "the {0} must not be next to the {1}"),
}


def goal_literals(goal: m.Condition) -> list[tuple[Atom, bool]]:
    """The goal's literals in order (ViPlan's goals are conjunctions of literals)."""
    parts = goal.parts if isinstance(goal, m.And) else (goal,)
    out = []
    for part in parts:
        positive = not isinstance(part, m.Not)
        inner = part.arg if isinstance(part, m.Not) else part
        if isinstance(inner, m.Pred):
            out.append((Atom(inner.predicate, tuple(inner.terms)), positive))
    return out


def goal_text_viplan(task: Task) -> str:
    from toolkit.domains import shipped_twin

    twin = shipped_twin(task.domain)
    literals = goal_literals(task.problem.goal)
    if twin == "blocksworld":
        return _blocksworld(task, literals)
    if twin == "household":
        return "\n".join(HH_GOALS[a.predicate.lower()][0 if pos else 1].format(*(x.lower() for x in a.args))
                         for a, pos in literals if a.predicate.lower() in HH_GOALS)
    from toolkit.questions import QuestionBook

    book = QuestionBook(task)
    return "\n".join(f"{book.question(a)} {'Yes' if pos else 'No'}" for a, pos in literals) or str(task.problem.goal)


def _blocksworld(task: Task, literals: list[tuple[Atom, bool]]) -> str:
    text = ""
    blocks = [o for o, t in task.problem.objects.items() if task.domain.is_subtype(t, "block")]
    for block in blocks:
        mine = [a for a, _ in literals if a.args and a.args[0] == block]
        text += f"The {BW_BLOCKS.get(block.lower(), block.lower() + ' block')}"
        for i, atom in enumerate(mine):
            name = atom.predicate.lower()
            if name == "incolumn":
                text += f" needs to be in the column with label '{atom.args[1].lower()}'"
            elif name == "on":
                text += f" needs to be on top of the {BW_BLOCKS.get(atom.args[1].lower(), atom.args[1].lower())}"
            elif name == "clear":
                text += " needs to be the topmost block in its column"
            text += "," if i < len(mine) - 2 else " and" if i == len(mine) - 2 else ". "
        text += "\n"
    return text


def privileged_text(task: Task, truth: frozenset[Atom]) -> str:
    """ViPlan-HH's "Additional information": objects inside a container, out of reach. Empty elsewhere."""
    if "inside" not in task.domain.predicates or "reachable" not in task.domain.predicates:
        return ""
    reachable = {a.args[0] for a in truth if a.predicate == "reachable"}
    pairs = sorted(a.args for a in truth if a.predicate == "inside" and a.args[0] not in reachable)
    return "\n".join(f"the {o.lower()} is inside the {c.lower()}" for o, c in pairs)


def goal_with_names(task: Task, book) -> str:
    """ViPlan's goal plus which name each object has in actions, for images that show no names (pictorial).

    A pgt addition: ViPlan's images are photographs whose objects the model names from
    the prompt's own words; pgt's pictorial household images draw no text at all.
    """
    names = "\n".join(f"- {o.lower()}: {book.display_name(o)}" for o in sorted(task.objects))
    return goal_text_viplan(task) + "\n\nObjects (name used in actions: how it looks in the image):\n" + names
