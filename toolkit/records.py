"""Frozen value classes (``@record``) that cost what a plain class costs at import, and work as dataclasses.

Why not :func:`dataclasses.dataclass`: ``pgt validate`` runs once per plan in scripts, and
the ~45 frozen dataclasses on its import path cost more than half of pgt's own import time
(issue 33): importing :mod:`dataclasses` pulls in :mod:`inspect` (and with it ``ast``,
``dis``, ``tokenize``), and each class is built from six separately compiled functions.
``@record`` writes the same methods as ``@dataclass(frozen=True, ...)`` (``__init__`` with
``__post_init__``, ``__repr__``, ``__eq__``, ``__hash__``, frozen ``__setattr__`` and
``__delattr__``, ``__match_args__``, ``__slots__`` with pickling) from one source text and
one ``exec``, and imports nothing.

The :mod:`dataclasses` functions keep working on records (``replace``, ``fields``,
``asdict``, ``is_dataclass``): a record's ``__dataclass_fields__`` is computed on first
use by building the same class with :func:`dataclasses.dataclass` (the module is imported
then, by the caller that asked for it) and taking its fields.

>>> @record(slots=True)
... class Point:
...     x: int
...     y: int = 0
>>> Point(1) == Point(1, 0), Point(1, 2)
(True, Point(x=1, y=2))
>>> import dataclasses
>>> dataclasses.replace(Point(1, 2), y=5)
Point(x=1, y=5)
"""

from __future__ import annotations

from operator import attrgetter

_MISSING = object()


class FrozenRecordError(AttributeError):
    """Assigning to a field of a record (the counterpart of :class:`dataclasses.FrozenInstanceError`)."""


class _Field:
    """One field's options, as :func:`dataclasses.field` takes them."""

    __slots__ = ("default", "default_factory", "init", "repr", "compare", "name")

    def __init__(self, default=_MISSING, default_factory=_MISSING, init=True, repr=True, compare=True) -> None:
        self.default, self.default_factory = default, default_factory
        self.init, self.repr, self.compare = init, repr, compare
        self.name = ""


def field(*, default=_MISSING, default_factory=_MISSING, init: bool = True, repr: bool = True,
          compare: bool = True):
    """A field's default and options, like :func:`dataclasses.field` (the options records use)."""
    return _Field(default, default_factory, init, repr, compare)


class _LazyDataclassFields:
    """``__dataclass_fields__`` of a record, built on first access from an equivalent dataclass."""

    def __get__(self, obj, owner):
        import dataclasses

        shadow_fields = []
        for f in owner.__record_fields__:
            options = {"init": f.init, "repr": f.repr, "compare": f.compare}
            if f.default is not _MISSING:
                options["default"] = f.default
            if f.default_factory is not _MISSING:
                options["default_factory"] = f.default_factory
            shadow_fields.append((f.name, owner.__annotations__.get(f.name, "object"), dataclasses.field(**options)))
        shadow = dataclasses.make_dataclass(owner.__name__, shadow_fields, frozen=True,
                                            eq="__eq__" in owner.__dict__)
        fields = shadow.__dataclass_fields__
        type.__setattr__(owner, "__dataclass_fields__", fields)
        return fields


def _frozen_setattr(self, name, value):
    raise FrozenRecordError(f"cannot assign to field {name!r}")


def _frozen_delattr(self, name):
    raise FrozenRecordError(f"cannot delete field {name!r}")


def _getstate(self):
    return [getattr(self, name) for name in self.__slots__]


def _setstate(self, state):
    for name, value in zip(self.__slots__, state):
        object.__setattr__(self, name, value)


def record(cls=None, /, *, slots: bool = False, eq: bool = True):
    """Make ``cls`` a frozen value class, as ``@dataclass(frozen=True, slots=slots, eq=eq)`` would.

    Fields are the class's annotated names in order; a class attribute is the default
    (or a :func:`field` with options). Methods the class defines itself are kept.
    """
    def wrap(cls):
        return _build(cls, slots, eq)

    return wrap if cls is None else wrap(cls)


def _build(cls, slots: bool, eq: bool):
    body = cls.__dict__
    by_name: dict[str, _Field] = {}  # a base record's fields first, as a dataclass subclass has them
    for base in reversed(cls.__mro__[1:]):
        for f in base.__dict__.get("__record_fields__", ()):
            by_name[f.name] = f
    own: list[str] = []
    for name in body.get("__annotations__", {}):
        value = body.get(name, _MISSING)
        f = value if isinstance(value, _Field) else _Field(default=value)
        f.name = name
        by_name[name] = f
        own.append(name)
    fields = list(by_name.values())
    names = tuple(own)  # the slots this class adds
    shown = tuple(f.name for f in fields if f.repr)
    compared = tuple(f.name for f in fields if f.compare)
    key = _key(compared)
    holder: list[type] = []

    def __init__(self, *args, **kwargs):  # the first instance compiles the class's own __init__
        made = holder[0]
        if made.__init__ is __init__:
            made.__init__ = _init_function(made, fields, "__post_init__" in body)
        made.__init__(self, *args, **kwargs)

    def __repr__(self):
        return f"{self.__class__.__qualname__}({', '.join(f'{n}={getattr(self, n)!r}' for n in shown)})"

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return key(self) == key(other)
        return NotImplemented

    def __hash__(self):
        return hash(key(self))

    methods = {"__init__": __init__, "__repr__": __repr__,
               "__setattr__": _frozen_setattr, "__delattr__": _frozen_delattr}
    if eq:
        methods["__eq__"] = __eq__
        if body.get("__hash__") is None:  # not written (None: Python's mark for "__eq__ without __hash__")
            methods["__hash__"] = __hash__
    namespace = dict(body)
    namespace["__qualname__"] = cls.__qualname__
    namespace.pop("__dict__", None)  # the old class's own descriptors: the new class makes its own
    namespace.pop("__weakref__", None)
    for name, fn in methods.items():
        if name not in body or (name == "__hash__" and body[name] is None):
            namespace[name] = fn
    namespace["__match_args__"] = tuple(f.name for f in fields if f.init)
    namespace["__record_fields__"] = tuple(fields)
    namespace["__dataclass_fields__"] = _LazyDataclassFields()
    if slots:
        for name in names:
            namespace.pop(name, None)
        namespace["__slots__"] = names
        namespace.setdefault("__getstate__", _getstate)
        namespace.setdefault("__setstate__", _setstate)
    else:
        for f in fields:  # plain defaults stay class attributes (as in a dataclass); options objects go
            if f.name in own and isinstance(body.get(f.name), _Field):
                if f.default is _MISSING:
                    namespace.pop(f.name)
                else:
                    namespace[f.name] = f.default
    made = type(cls)(cls.__name__, cls.__bases__, namespace)
    holder.append(made)
    return made


def _key(names: tuple[str, ...]):
    """The tuple of the fields ``names`` of a record (what ``__eq__`` and ``__hash__`` compare)."""
    if len(names) >= 2:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


_SLOT = type(type("_Probe", (), {"__slots__": ("x",)}).x)  # types.MemberDescriptorType, without importing types


def _init_function(cls, fields: list[_Field], post_init: bool):
    """``cls``'s ``__init__``, compiled from its fields as ``dataclasses`` writes it (a frozen one).

    Where instances have a ``__dict__`` (no ``__slots__``), the fields are stored in it directly:
    the same effect as ``object.__setattr__``, at a fraction of the cost per field (a plan's step
    reports are built by the thousand in a batch).
    """
    env: dict[str, object] = {"_setattr": object.__setattr__, "_MISSING": _MISSING}
    params, lines, seen_default = [], [], False
    in_dict = "__slots__" not in cls.__dict__

    def store(name: str, value: str) -> str:
        if in_dict:
            return f"_d[{name!r}] = {value}"
        slot = getattr(cls, name, None)
        if type(slot) is _SLOT:  # the slot's own setter: what object.__setattr__ ends in, without its lookup
            env[f"_s_{name}"] = slot.__set__
            return f"_s_{name}(self, {value})"
        return f"_setattr(self, {name!r}, {value})"

    for f in fields:
        if not f.init:
            if f.default is not _MISSING:
                env[f"_d_{f.name}"] = f.default
                lines.append(store(f.name, f"_d_{f.name}"))
            continue
        if f.default_factory is not _MISSING:
            env[f"_f_{f.name}"] = f.default_factory
            params.append(f"{f.name}=_MISSING")
            lines.append(store(f.name, f"_f_{f.name}() if {f.name} is _MISSING else {f.name}"))
            seen_default = True
            continue
        if f.default is not _MISSING:
            env[f"_d_{f.name}"] = f.default
            params.append(f"{f.name}=_d_{f.name}")
            seen_default = True
        elif seen_default:
            raise TypeError(f"{cls.__name__}: non-default argument {f.name!r} follows default argument")
        else:
            params.append(f.name)
        lines.append(store(f.name, f.name))
    if in_dict and lines:
        lines.insert(0, "_d = self.__dict__")
    if post_init:
        lines.append("self.__post_init__()")
    src = "\n".join([f"def __init__(self, {', '.join(params)}):", *(f"    {line}" for line in lines or ["pass"])])
    exec(src, env)  # noqa: S102 - our own text, made of the class's field names
    init = env["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


def replace(obj, /, **changes):
    """A copy of record ``obj`` with ``changes``, as :func:`dataclasses.replace` makes it (without importing it)."""
    for f in obj.__record_fields__:
        if not f.init:
            if f.name in changes:
                raise ValueError(f"field {f.name} is declared with init=False, it cannot be specified with replace()")
        elif f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    return obj.__class__(**changes)


class lazy:
    """:func:`functools.cached_property` without its lock: the value computed on first access and kept in the
    instance's ``__dict__`` (where later reads find it without calling here).

    Why: Python 3.11's ``cached_property`` takes an ``RLock`` on every first access (dropped in 3.12); a numeric
    ground action's compiled test and step are two first accesses per distinct action a plan names.
    """

    def __init__(self, fn) -> None:
        self.fn = fn
        self.name = fn.__name__
        self.__doc__ = fn.__doc__

    def __set_name__(self, owner, name: str) -> None:
        self.name = name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.fn(obj)
        return value
