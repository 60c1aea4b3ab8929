"""LoHoRavens' Planner-Actor-Reporter loop on the symbolic tabletop (``cliport/eval_llm_vlm.py``, ``main``).

The official loop: the planner (an LLM) gets the task instruction and, at the
start, the scene description; it answers one step instruction ("pick up the red
block and place it on the red bowl."); the actor (CLIPort) executes it; the
environment steps and calls ``task.reward()``; the reporter (a VLM) describes
the new observation and whether the last step succeeded, which is fed back to
the planner; this repeats until ``task.done()`` or ``task.max_steps`` actions.
Reported per episode, as the official script sums them: ``total_reward`` (the
partial reward, ``Task._rewards``) and success (``done()``).

Here the actor executes the instruction in the world (with its failure model;
an instruction it cannot read or carry out moves nothing, and the world still
steps); the reporter is any pgt :class:`~toolkit.protocols.Grounder` asked
whether each block rests on each place or block (oracle, noisy, VLM over an
image); the planner is anything with :meth:`StepPlanner.next_step`:
:class:`NoisyOraclePlanner` for offline studies (the oracle's next move that the
reporter does not report done, with a seeded chance of a wrong target or a
skipped turn), so a reporter's mistakes cost steps as a VLM's would. The world is duck-typed
(``scene_graphs/lohoravens.py`` ``LohoWorld``): ``toolkit`` imports no world.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

from toolkit.model import Atom
from toolkit.protocols import Grounder, Verdict

_STEP = re.compile(r"pick up (?:the|a|an) (?P<pick>.+?) and place it (?:on|in|into|at) (?:the |a |an )?(?P<place>.+?)"
                   r"\s*\.?\s*$", re.I)


def display(name: str) -> str:
    """How a step instruction names an object: ``big-red-block`` → 'red block', ``bowl-red`` → 'red bowl'; a
    numbered name takes an ordinal in front, since the official reply parser (``parse_gpt_output``) deletes
    every "<digits>." and so would eat a number that ends a sentence.

    >>> display("big-red-block"), display("bowl-red"), display("target-2"), display("green-block-1")
    ('red block', 'red bowl', '2nd target', '1st green block')
    >>> display("zone-green"), display("top-left-area-zone")
    ('green zone', 'top left area zone')
    """
    for kind in ("bowl", "zone"):
        if name.startswith(f"{kind}-"):
            return f"{name[len(kind) + 1:]} {kind}"
    base, _, number = name.removeprefix("big-").rpartition("-")
    if number.isdigit() and base:
        n = int(number)
        suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
        return f"{n}{suffix} {base.replace('-', ' ')}"
    return name.removeprefix("big-").replace("-", " ")


def instruction(block: str, place: str) -> str:
    """The official step instruction (``Task.oracle``: "pick up the {pick_obj} and place it on the {place_obj}.")."""
    return f"pick up the {display(block)} and place it on the {display(place)}."


class StepPlanner(Protocol):
    """Answers the next step instruction from the task, the reporter's feedback and the history."""

    def next_step(self, goal: str, feedback: dict[str, str], history: list[str]) -> str: ...


@dataclass
class NoisyOraclePlanner:
    """The oracle's next move, with a seeded chance of a wrong target (``wrong``) or an unusable reply (``skip``)."""

    world: Any
    wrong: float = 0.0
    skip: float = 0.0
    seed: int = 0
    _rng: random.Random = field(init=False)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    def next_step(self, goal: str, feedback: dict[str, str], history: list[str]) -> str:
        """The first oracle move the reporter does not report done (at the start: the true placement)."""
        inst = self.world.instance
        seen = feedback.get("observation_description")
        if seen is None:
            todo = [(b, p) for b, p in inst.oracle() if self.world.support_of(b) != p]
        else:
            reported = set(re.findall(r"the (.+?) is on the (.+?)(?:;|$)", seen))
            todo = [(b, p) for b, p in inst.oracle() if (display(b), display(p)) not in reported]
        if not todo or self._rng.random() < self.skip:
            return "done." if not todo else "I am not sure what to do next."
        block, place = todo[0]
        if self._rng.random() < self.wrong:
            place = self._rng.choice([p for p in inst.places if p != place])
        return instruction(block, place)


@dataclass
class LLMStepPlanner:
    """The official LLM planner (``cliport/llm.py``) over any chat endpoint: ``complete`` sends the messages
    and returns the reply's text (the CLI wires it to :class:`grounders.client.ChatClient`). ``feedback``:
    'official' or 'delivered' (:mod:`toolkit.agents.par_prompts`)."""

    complete: Callable[[list[dict[str, Any]]], str]
    feedback: str = "official"
    messages: list[dict[str, Any]] = field(default_factory=list)
    replies: list[str] = field(default_factory=list)

    def next_step(self, goal: str, feedback: dict[str, str], history: list[str]) -> str:
        from toolkit.agents.par_prompts import first_messages, next_message, parse_reply

        if not history:
            self.messages = first_messages(goal, feedback.get("observation_state"))
        else:
            self.messages.append(next_message(goal, feedback, self.feedback))
        reply = self.complete(list(self.messages))
        self.replies.append(reply)
        plan = parse_reply(reply)
        self.messages.append({"role": "system", "content": plan})  # update_message_history_with_next_plan
        return plan


@dataclass(frozen=True)
class ParEpisode:
    family: str
    seed: int
    success: bool  # Task.done()
    total_reward: float  # Task._rewards, the partial reward
    steps: int
    trace: tuple[float, ...]
    instructions: tuple[str, ...]
    unreadable: int  # instructions the actor could not read or carry out

    def to_json(self) -> dict[str, Any]:
        return {"family": self.family, "seed": self.seed, "success": self.success,
                "total_reward": self.total_reward, "steps": self.steps, "trace": list(self.trace),
                "instructions": list(self.instructions), "unreadable": self.unreadable}


def _act(world: Any, text: str) -> bool:
    """Carry out one step instruction in the world; False (and the world idles) when it cannot."""
    match = _STEP.search(text.strip())
    names = {display(n): n for n in (*world.instance.blocks, *world.instance.places)}
    if not match or match["pick"].lower() not in names or match["place"].lower() not in names:
        world.idle()
        return False
    block, dest = names[match["pick"].lower()], names[match["place"].lower()]
    try:
        action = world.move_action(block, dest)
    except Exception:  # a block named as a place, or the like: CLIPort would grasp at nothing
        world.idle()
        return False
    return world.execute(action).executed


def report(world: Any, reporter: Grounder, last: str) -> dict[str, str]:
    """The reporter's feedback: what it sees resting where, and whether the last step's block is where it was sent."""
    obs = world.observe()
    blocks, supports = world.instance.blocks, (*world.instance.blocks, *world.instance.places)
    atoms = [Atom("on", (b, s)) for b in blocks for s in supports if b != s]
    seen = [a for a in reporter.ask(obs, atoms) if a.verdict is Verdict.YES]
    description = "; ".join(f"the {display(a.atom.args[0])} is on the {display(a.atom.args[1])}" for a in seen)
    match = _STEP.search(last.strip())
    success = "unknown"
    if match:
        done = {(display(a.atom.args[0]), display(a.atom.args[1])) for a in seen}
        success = "yes" if (match["pick"].lower(), match["place"].lower()) in done else "no"
    return {"observation_description": description or "nothing recognised", "success_description": success}


def run_par(world: Any, planner: StepPlanner, reporter: Grounder, goal: str = "") -> ParEpisode:
    """One episode of the Planner-Actor-Reporter loop, with LoHoRavens' budget, reward and success."""
    world.reset()
    inst = world.instance
    where = "".join(f"; the {display(b)} is at x={x:.3f} m, y={y:.3f} m" for b, x, y in inst.positions)
    feedback = {"observation_state": f"blocks: {', '.join(display(b) for b in inst.blocks)}; "
                                     f"places: {', '.join(display(p) for p in inst.places)}{where}"}
    history: list[str] = []
    unreadable = 0
    while not world.done() and world.step < inst.max_steps:
        text = planner.next_step(goal or inst.instruction or inst.family, feedback, history)
        history.append(text)
        if not _act(world, text):
            unreadable += 1
        feedback = report(world, reporter, text)
    return ParEpisode(inst.family, inst.seed, world.done(), world.score(), world.step, tuple(world.trace),
                      tuple(history), unreadable)
