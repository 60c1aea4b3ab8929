"""``toolkit.records.record``: the same value class as ``dataclasses.dataclass(frozen=True, ...)``, field for field.

Each case declares one class twice, once with ``@record`` and once with ``@dataclass``, and
checks that instances compare, hash, print, refuse assignment, pickle, copy and go through
the ``dataclasses`` functions alike.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from toolkit import records
from toolkit.records import field, record


@record(slots=True)
class RecSlots:
    name: str
    args: tuple[str, ...] = ()
    note: str = field(default="", compare=False, repr=False)
    extra: list = field(default_factory=list, compare=False)


@record
class RecPlain:
    name: str
    args: tuple[str, ...] = ()
    note: str = field(default="", compare=False, repr=False)
    extra: list = field(default_factory=list, compare=False)


@dataclasses.dataclass(frozen=True, slots=True)
class DcSlots:
    name: str
    args: tuple[str, ...] = ()
    note: str = dataclasses.field(default="", compare=False, repr=False)
    extra: list = dataclasses.field(default_factory=list, compare=False)


@dataclasses.dataclass(frozen=True)
class DcPlain:
    name: str
    args: tuple[str, ...] = ()
    note: str = dataclasses.field(default="", compare=False, repr=False)
    extra: list = dataclasses.field(default_factory=list, compare=False)


def _pair(slots: bool):
    return (RecSlots, DcSlots) if slots else (RecPlain, DcPlain)


@pytest.mark.parametrize("slots", [True, False])
def test_a_record_behaves_as_the_frozen_dataclass(slots: bool) -> None:
    Rec, Dc = _pair(slots)
    r, d = Rec("on", ("a", "b"), "n"), Dc("on", ("a", "b"), "n")
    assert repr(r)[3:] == repr(d)[2:]
    assert r == Rec("on", ("a", "b"), "other note") and r != Rec("on", ("a",))
    assert hash(r) == hash(Rec("on", ("a", "b")))
    assert (r == d) is False
    assert r.extra == [] and r.extra is not Rec("x").extra  # a fresh default per instance
    assert Rec.__match_args__ == Dc.__match_args__
    assert hasattr(r, "__dict__") is hasattr(d, "__dict__")
    with pytest.raises(AttributeError):
        r.name = "x"
    with pytest.raises(AttributeError):
        del r.name
    with pytest.raises(TypeError):
        Rec()
    for again in (pickle.loads(pickle.dumps(r)), copy.copy(r), copy.deepcopy(r)):
        assert again == r and again.note == "n"


def test_the_dataclasses_functions_work_on_records() -> None:
    Rec, Dc = _pair(True)
    r = Rec("on", ("a",), "n")
    assert dataclasses.is_dataclass(r) and dataclasses.is_dataclass(Rec)
    assert [f.name for f in dataclasses.fields(r)] == [f.name for f in dataclasses.fields(Dc)]
    assert dataclasses.replace(r, name="off") == Rec("off", ("a",))
    assert dataclasses.replace(r, name="off").note == "n"
    assert dataclasses.asdict(r) == {"name": "on", "args": ("a",), "note": "n", "extra": []}
    assert records.replace(r, args=()) == Rec("on")


def test_post_init_and_written_methods_are_kept() -> None:
    @record(slots=True)
    class Cached:
        value: int
        double: int = field(init=False, repr=False, compare=False)

        def __post_init__(self) -> None:
            object.__setattr__(self, "double", 2 * self.value)

        def __str__(self) -> str:
            return f"<{self.value}>"

    c = Cached(4)
    assert (c.double, str(c), repr(c)) == (8, "<4>", "test_post_init_and_written_methods_are_kept.<locals>.Cached(value=4)")
    with pytest.raises(ValueError):
        records.replace(c, double=1)


def test_eq_false_keeps_identity() -> None:
    @record(eq=False)
    class Ident:
        x: int

    a, b = Ident(1), Ident(1)
    assert a != b and a == a and hash(a) == object.__hash__(a)


def test_a_record_subclass_has_its_bases_fields_first() -> None:
    @record(eq=False)
    class Base:
        a: int
        b: int = 2

    @record(eq=False)
    class Child(Base):
        c: list = field(default_factory=list)

    @dataclasses.dataclass(frozen=True, eq=False)
    class DcBase:
        a: int
        b: int = 2

    @dataclasses.dataclass(frozen=True, eq=False)
    class DcChild(DcBase):
        c: list = dataclasses.field(default_factory=list)

    child = Child(1, 3, [4])
    assert (child.a, child.b, child.c) == (1, 3, [4]) and Child(1).c == []
    assert repr(child).split("Child", 1)[1] == repr(DcChild(1, 3, [4])).split("DcChild", 1)[1]
    assert [f.name for f in dataclasses.fields(child)] == [f.name for f in dataclasses.fields(DcChild)]
    assert Base(1).b == 2 and isinstance(child, Base)
