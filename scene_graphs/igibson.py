"""The household world as ViPlan's iGibson simulator has it: geometric reach, only the atoms iGibson reports.

:class:`scene_graphs.household.HouseholdWorld` executes the household domain's PDDL
effects exactly (its consistency test holds it to them). ViPlan's household runs
meet iGibson instead (ViPlan's fork: nicoladainese96/iGibson, branch
``release_viplan``, ``igibson/action_primitives/igibson_semantic_actions_env.py``),
whose truth differs from the domain's in ways ViPlan's released logs show on every
run; :class:`IGibsonHouseholdWorld` follows the logs, item by item:

- *Which atoms exist.* ``_get_symbolic_state`` skips a relation of an object with
  itself and stores no value for ``ontop``/``inside``/``nextto`` whose first object
  is not movable (``_is_ontop``/``_is_inside``/``_is_nextto`` return ``None``);
  ViPlan asks only about the state's keys (ViPlan
  ``viplan/planning/igibson_client_env.py``, ``iGibsonClient.visible_predicates``).
  The domain's types alone allow "is the door inside the door?", which the
  simulation would otherwise ask (16 of the 16 atoms of a two-door scene's view
  held 12 such questions) and answer wrong at the fitted rates.
- *What navigate-to reaches.* ``_is_reachable`` is ``_is_near`` (the closest face
  of the bounding box within ``ROBOT_DISTANCE_THRESHOLD``) and ``_is_visible``;
  ``go_to`` puts the robot 0.4-1.3 m from the target (``_sample_pose_near_object``).
  So more than the target is reachable afterwards (:func:`vicinity`), and a held
  object stays reachable: it moves with the robot.
- *When navigate-to is legal.* ``go_to`` checks only that the object exists
  ("don't navigate to things hidden in a closed container. Skip, the action is
  going to fail gracefully"): it runs when the target is reachable already, and
  towards a target inside a closed container it ends beside the container with
  the target still unreachable (its "last sanity check": ``executed but failed``).

So this world deliberately does not agree with the domain's PDDL atom for atom
(the world contract, tests/worlds/test_world_contract.py, holds the registered
worlds to that); it is not registered for the domain, ``pgt fidelity --released``
names it (``--world scene_graphs.igibson:IGibsonHouseholdWorld`` for any study).
"""

from __future__ import annotations

import networkx as nx

from scene_graphs.household import AGENT, RELATIONS, HouseholdWorld, agent_room, room_of
from scene_graphs.schema import add_rel, remove_rel, sources, targets
from toolkit.model import Atom
from toolkit.task import GroundAction


def simulator_reports(atom: Atom, movables: frozenset[str] | set[str]) -> bool:
    """Whether iGibson's symbolic state holds a value for ``atom`` (so ViPlan can ask about it); see the module."""
    if atom.predicate in RELATIONS:
        return atom.args[0] in movables and atom.args[0] != atom.args[1]
    return True


def hidden(g: nx.MultiDiGraph, x: str) -> bool:
    """Whether ``x`` is inside a closed container (out of sight, so out of reach: ``_is_visible``)."""
    return any(not g.nodes[c].get("open", False) for c in targets(g, x, "inside"))


def vicinity(g: nx.MultiDiGraph, o: str) -> set[str]:
    """What else the robot reaches standing at ``o``: what touches ``o``, what ``o`` touches, what shares its support.

    Read off ViPlan's 32 released household grounder runs, every logged truth of
    ``(reachable x)`` after ``navigate-to(t)``, by x's relation to t in the state
    the actions so far make from the problem: x on, inside or next to t reachable in
    2,469 of 2,471; t on, inside or next to x in 1,936 of 2,015; x sharing t's
    support in 360 of 360; x with no relation to t in 55% (where the scene put
    them, which the problem does not say: left unreachable, as the domain has it).
    Contents of a closed container are out of sight, so out of reach.
    """
    out: set[str] = set()
    for rel in RELATIONS:
        out.update(x for x in sources(g, o, rel) if not hidden(g, x))
        supports = targets(g, o, rel)
        out.update(supports)
        for support in supports:
            out.update(x for x in sources(g, support, rel) if not hidden(g, x))
    out.discard(o)
    return out


def in_sight(g: nx.MultiDiGraph) -> set[str]:
    """What the robot's camera shows: where it stands and that place's vicinity, and what it holds.

    iGibson renders what the camera looking ahead of the robot sees
    (``_finish_action``: ``render_utils.set_camera_look_ahead``), and ViPlan asks
    only about atoms among those objects (``iGibsonClient.visible_predicates``,
    ``get_visible_objects``: ``IsVisible``), so what the robot sees after
    ``navigate-to(t)`` is what it stands next to. The released logs agree: after
    the first action, the target of a later ``navigate-to`` was visible (its
    ``(reachable t)`` precondition asked) in 4,727 of 7,542 attempts, and reachable
    already in 4,257 of those 4,727. Before any action the robot stands where the
    scene put it, which the problem does not say; it sees what the problem makes
    reachable and that vicinity (ViPlan's problems: nothing; a released ``navigate-to``
    target was out of sight in 1,685 of the 3,018 attempts before any action).
    """
    held = set(targets(g, AGENT, "holds"))
    stand = g.nodes[AGENT]["at"]
    here = {stand} if stand is not None else set(targets(g, AGENT, "reaches")) - held
    sight = set(here) | held
    for x in here:
        sight |= vicinity(g, x)
    return {x for x in sight if not hidden(g, x)}


class IGibsonHouseholdWorld(HouseholdWorld):
    """The household world with iGibson's reach, legality and reported atoms (module docstring)."""

    def preconditions_hold(self, g: nx.MultiDiGraph, action: GroundAction) -> bool:
        if action.name == "navigate-to":  # go_to: legal whenever the object exists (typed arguments, checked before)
            return True
        return super().preconditions_hold(g, action)

    def apply(self, g: nx.MultiDiGraph, action: GroundAction) -> None:
        if action.name != "navigate-to":
            super().apply(g, action)
            return
        target = action.args[0]
        # towards a hidden object go_to samples a pose near it, i.e. beside its closed container
        stand = next((c for c in targets(g, target, "inside") if not g.nodes[c].get("open", False)), target)
        held = set(targets(g, AGENT, "holds"))
        for x in targets(g, AGENT, "reaches"):
            if x not in held:
                remove_rel(g, AGENT, x, "reaches")
        for x in sorted({stand} | vicinity(g, stand)):
            if x != target or not hidden(g, target):
                add_rel(g, AGENT, x, "reaches")
        room = room_of(g, stand)
        if room is not None and room != agent_room(g):
            remove_rel(g, AGENT, agent_room(g), "in_room")
            add_rel(g, AGENT, room, "in_room")
        g.nodes[AGENT]["at"] = stand

    def visible_atoms(self, g: nx.MultiDiGraph) -> frozenset[Atom] | None:
        sight = in_sight(g)
        movables = set(self.task.objects_of(("movable",)))
        return frozenset(a for a in self.task.all_atoms() if simulator_reports(a, movables)
                         and (a.predicate == "holding" or all(x in sight for x in a.args)))
