"""Task.action's common path (names spelt as the task spells them, types the domain's memo found to fit) gives what
its full path gives, action or error, for every schema and tuple of names, and leaves to it what it cannot tell."""

from __future__ import annotations

import itertools

import pytest

from toolkit.errors import PgtError, TypeMismatchError
from toolkit.loader import parse_domain, parse_problem
from toolkit.records import replace
from toolkit.task import _NO_PLAIN, Task

DOMAIN = """(define (domain depots) (:requirements :typing)
  (:types truck car - vehicle vehicle place - object)
  (:constants Depot - place)
  (:predicates (at ?v - vehicle ?p - place) (parked ?c - car))
  (:action drive :parameters (?v - vehicle ?from ?to - place)
    :precondition (at ?v ?from) :effect (and (not (at ?v ?from)) (at ?v ?to)))
  (:action park :parameters (?c - car) :precondition (at ?c Depot) :effect (parked ?c))
  (:action load :parameters (?t - truck ?x - (either car place)) :precondition (at ?t Depot) :effect (parked ?x))
  (:action wait :parameters () :precondition (at T1 Depot) :effect (and))
  (:action touch :parameters (?o) :precondition (and) :effect (and)))"""
PROBLEM = """(define (problem p) (:domain depots) (:objects T1 - truck c1 c2 - car home - place v - vehicle)
  (:init (at T1 Depot) (at c1 home)) (:goal (parked c1)))"""


def _outcome(task: Task, name: str, args: tuple[str, ...]) -> tuple:
    try:
        act = task.action(name, args)
    except PgtError as error:
        return type(error), str(error), getattr(error, "suggestions", None)
    return act.name, act.args, act.cost


def _full(task: Task) -> Task:
    """A fresh task of the same problem that takes only the full path."""
    fresh = Task(task.domain, task.problem)
    fresh._plain = _NO_PLAIN  # (as a task whose names differ only in case: it neither takes nor fills the common path)
    return fresh


@pytest.fixture(scope="module")
def task() -> Task:
    domain = parse_domain(DOMAIN)
    return Task(domain, parse_problem(PROBLEM, domain))


def test_every_schema_and_tuple_of_names_answers_as_on_the_full_path(task) -> None:
    names = [*task.objects, "t1", "C1", "nowhere"]
    full = _full(task)
    asked = 0
    for schema in ["drive", "park", "load", "wait", "touch", "Drive", "fly"]:
        for arity in range(4):
            for args in itertools.product(names, repeat=arity):
                fresh = Task(task.domain, task.problem)
                assert _outcome(fresh, schema, args) == _outcome(full, schema, args) == _outcome(fresh, schema, args)
                asked += 1
    assert asked > 1000 and task._plain  # the common path was there to take


def test_the_common_path_is_taken_exactly_for_names_spelt_as_the_task_spells_them_of_types_that_fitted_before(
        monkeypatch) -> None:
    domain = parse_domain(DOMAIN)
    problem = parse_problem(PROBLEM, domain)
    full_path = []
    resolve = Task._resolve_argument
    monkeypatch.setattr(Task, "_resolve_argument", lambda *a: full_path.append(a) or resolve(*a))

    def spied() -> Task:
        task = Task(domain, problem)
        names = task._action_names
        task._action_names = type("Spy", (dict,), {"get": lambda self, k, d=None: full_path.append(k) or names.get(k, d)})()
        return task

    first = spied()
    assert {name: kinds for name, (_, kinds) in first._plain.items()} == {
        "drive": (set(), set(), set()), "park": (set(),), "load": (set(), set()), "wait": (), "touch": (set(),)}
    first.action("wait", ())  # nothing to test: the common path
    first.action("drive", ("T1", "Depot", "home"))  # nothing met yet: the full path decides, and keeps the types
    first.action("load", ("T1", "c2"))  # ?t (a truck) shares no set with drive's ?v (a vehicle): the full path
    assert len(full_path) == 2
    assert first._plain["drive"][1] == ({"truck"}, {"place"}, {"place"}) and first._plain["load"][1] == ({"truck"}, {"car"})
    assert first._plain["drive"][1][1] is first._plain["drive"][1][2]  # one set for parameters of the same types
    full_path.clear()
    fresh = spied()  # another task of the domain: the common path, for the types met
    fresh.action("drive", ("T1", "home", "Depot"))
    fresh.action("load", ("T1", "c1"))
    assert full_path == []
    fresh.action("drive", ("v", "Depot", "home"))  # a type not met yet for ?v
    fresh.action("load", ("T1", "home"))  # nor for ?x
    fresh.action("drive", ("t1", "Depot", "home"))  # another spelling
    with pytest.raises(TypeMismatchError):
        fresh.action("park", ("T1",))  # a wrong type: the full path raises, and keeps nothing
    assert len(full_path) == 4
    assert fresh._plain["drive"][1][0] == {"truck", "vehicle"} and fresh._plain["load"][1][1] == {"car", "place"}
    assert fresh._plain["park"][1] == (set(),)
    full_path.clear()
    spied().action("drive", ("v", "home", "home"))
    assert full_path == []


def test_an_object_of_a_type_the_domain_never_declares_takes_the_full_path(task) -> None:
    problem = replace(task.problem, objects={**task.problem.objects, "odd": "gadget"})
    fresh, full = Task(task.domain, problem), _full(Task(task.domain, problem))
    for args in [("odd",), ("T1", "odd")]:
        assert _outcome(fresh, "touch", args[-1:]) == _outcome(full, "touch", args[-1:]) == ("touch", ("odd",), 1)
        assert _outcome(fresh, "load", args) == _outcome(full, "load", args)


def test_no_common_path_where_two_object_or_action_names_differ_only_in_case(task) -> None:
    problem = replace(task.problem, objects={**task.problem.objects, "t1": "truck"})
    fresh = Task(task.domain, problem)
    assert fresh._plain == {} and fresh._plain is not Task(task.domain, task.problem)._plain
    assert fresh.action("drive", ("T1", "Depot", "home")).args == ("t1", "Depot", "home")
    assert fresh._plain == {}  # and the full path kept nothing in it
    twin = replace(task.domain.actions["park"], name="PARK")
    domain = replace(task.domain, actions={**task.domain.actions, "PARK": twin})
    both = Task(domain, task.problem)
    assert both.action("park", ("c1",)).name == "PARK" and both._plain == {}


def test_a_task_whose_names_are_their_own_lower_case_takes_the_common_path_without_its_name_tables(task) -> None:
    domain = parse_domain(DOMAIN.replace("T1", "t1").replace("Depot", "depot"))
    problem = parse_problem(PROBLEM.replace("T1", "t1").replace("Depot", "depot"), domain)
    Task(domain, problem).action("drive", ("t1", "depot", "home"))  # (the types that fit it met)
    fresh = Task(domain, problem)
    assert fresh._plain and fresh.action("drive", ("t1", "depot", "home")).args == ("t1", "depot", "home")
    assert "_object_names" not in vars(fresh) and "_action_names" not in vars(fresh)  # made only where read:
    assert fresh.action("Drive", ("T1", "depot", "home")) is fresh.action("drive", ("t1", "depot", "home"))
    assert fresh._object_names["t1"] == "t1" and fresh._action_names["drive"] == "drive"
    assert fresh.resolve_object("HOME") == "home" and fresh.resolve_action("PARK") == "park"
    # the task's objects are the domain's constants, then the problem's, in that order
    assert list(fresh.objects) == ["depot", "t1", "c1", "c2", "home", "v"] and fresh.objects["depot"] == "place"


def test_a_fluent_state_owns_a_copy_of_the_values_it_is_given_as_a_dict() -> None:
    from collections import OrderedDict
    from types import MappingProxyType

    from toolkit.fluents import FluentState
    from toolkit.model import Atom

    fuel, at = Atom("fuel", ("t",)), Atom("at", ("t",))
    proxies = (MappingProxyType({fuel: 3}), MappingProxyType(OrderedDict({fuel: 3})))
    for given in ({fuel: 3}, *proxies, OrderedDict({fuel: 3})):
        state = FluentState({at}, given)
        assert type(state.values) is MappingProxyType and type(state.values.copy()) is dict
        assert state.values == {fuel: 3} and state == FluentState({at}, {fuel: 3}) and at in state
        if type(given) is not MappingProxyType:
            given[fuel] = 4  # the caller's mapping changed: the state's values did not
        assert state.values[fuel] == 3
    assert FluentState({at}).values == {} == FluentState({at}, None).values


def test_the_atom_table_interns_one_atom_per_ground_atom_and_keeps_the_first(task) -> None:
    from toolkit.model import Atom
    from toolkit.templates import AtomTable

    first, twin = Atom("at", ("a", "b")), Atom("at", ("a", "b"))
    table = AtomTable([first, twin, Atom("clear", ("a",))])
    table.add_all([Atom("at", ("a", "b")), Atom("fuel", ("t",))])
    assert table.atom("at", ("a", "b")) is first and table.table("at") == {("a", "b"): first}
    assert table.atom("clear", ("a",)) is table.table("clear")[("a",)]
    made = table.atom("on", ("x", "y"))
    assert made == Atom("on", ("x", "y")) and table.atom("on", ("x", "y")) is made and table.table("none") == {}
    fresh = Task(task.domain, task.problem)
    assert all(fresh.atom_table.atom(a.predicate, a.args) is a for a in task.problem.init)
