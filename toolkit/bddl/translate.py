"""BEHAVIOR's BDDL domains and problems as PDDL text that pgt's loader reads.

ActPlan-1K (HKUST-KnowComp/ActPlan-1K, ``bddl/activity_definitions``) and BEHAVIOR-100
(StanfordVL/bddl v1.0.1) write their tasks in BDDL, a PDDL dialect. What differs, and
what is done about it:

* **Names** are WordNet synsets with dots (``cookie.n.01_1``, ``?basket.n.01``). PDDL
  names cannot hold a dot, so every ``.`` becomes ``-`` (``cookie-n-01_1``); two BDDL
  names that would meet under one spelling are refused.
* **Objects by category** (``a b - basket.n.01``) are BDDL's object map, used by the
  quantifiers; the PDDL problem lists the objects untyped, so it loads with the
  untyped ``igibson`` domain or with any PDDL domain that declares the predicates.
* **Quantifiers** are expanded over the objects as BEHAVIOR evaluates them
  (:mod:`toolkit.bddl.goal`), so ``forn``, ``forpairs`` and ``fornpairs`` keep their
  exact counting meaning in a ground PDDL goal.
* **The igibson domain** (``domain_igibson.bddl``) declares 17 predicates but its
  tasks also use ``onfloor`` and ``touching``, which iGibson's BDDL backend supplies,
  and ``inroom``, which the sampler reads and ``bddl/activity.py``
  (``get_initial_conditions``) leaves out of the compiled initial state; they are
  added to a domain named ``igibson`` that lacks them. The rooms that ``inroom`` names
  (``living_room``) become objects of the problem.
* **Initial negative literals** (``(not (open fridge.n.01_1))``) only tell BEHAVIOR's
  sampler what to make false; under PDDL's closed world they are left out.

The PDDL text keeps every construct on the line it had in the BDDL file, so the
loader's own errors (an unknown predicate, a wrong arity) point at the BDDL line.
What has no PDDL reading is refused where it is (:class:`~toolkit.bddl.goal.BddlError`).
"""

from __future__ import annotations

from toolkit.bddl.goal import BddlError, GoalTranslator, text
from toolkit.bddl.sexpr import Node, read_sexpr
from toolkit.errors import closest

# Predicates iGibson's BDDL backend gives the igibson domain beyond its file (see the module docstring).
IGIBSON_EXTRA = {"onfloor": "?obj1 ?obj2", "touching": "?obj1 ?obj2", "inroom": "?obj1 ?room"}


def pddl_name(name: str) -> str:
    """A BDDL name in PDDL spelling.

    >>> pddl_name("?basket.n.01")
    '?basket-n-01'
    """
    return name.replace(".", "-")


class _Out:
    """PDDL text written token by token at the BDDL line (and, where room allows, column) of each token."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.line, self.col = 1, 1

    def put(self, chunk: str, line: int | None = None, col: int | None = None) -> None:
        if line is not None and line > self.line:
            self.parts.append("\n" * (line - self.line))
            self.line, self.col = line, 1
        if line is not None and col is not None and line == self.line and col > self.col:
            self.parts.append(" " * (col - self.col))
            self.col = col
        elif self.parts and not self.parts[-1].endswith(("(", " ", "\n")) and chunk != ")":
            self.parts.append(" ")
            self.col += 1
        self.parts.append(chunk)
        self.col += len(chunk)

    def node(self, n: Node) -> None:
        """A BDDL node copied with its names in PDDL spelling."""
        if not n.is_list:
            self.put(pddl_name(n.text), n.line, n.col)
            return
        self.put("(", n.line, n.col)
        for item in n.items:
            self.node(item)
        self.put(")")

    def text(self) -> str:
        return "".join(self.parts) + "\n"


class _Names:
    """Every BDDL name of a file in its PDDL spelling, refusing two that would meet."""

    def __init__(self, path: str) -> None:
        self.path, self.seen = path, {}

    def check(self, node: Node) -> None:
        if node.is_list:
            for item in node.items:
                self.check(item)
            return
        spelled = pddl_name(node.text)
        other = self.seen.setdefault(spelled, node.text)
        if other != node.text:
            raise BddlError(self.path, node, f"{node.text!r} and {other!r} are both spelled {spelled!r} in PDDL "
                            "(dots become '-')")


def _section(define: Node, path: str, kind: str) -> list[Node]:
    if define.head() != "define" or len(define.items) < 2 or define.items[1].head() != kind:
        raise BddlError(path, define, f"expected (define ({kind} NAME) ...)")
    return define.items[1:]


def domain_to_pddl(source: str, path: str) -> str:
    """A BDDL domain file as PDDL text (see the module docstring)."""
    define = read_sexpr(source, path)
    sections = _section(define, path, "domain")
    _Names(path).check(define)
    name = sections[0].items[1].text if len(sections[0].items) > 1 else None
    out = _Out()
    out.put("(", define.line, define.col)
    out.put("define")
    for sec in sections:
        head = sec.head()
        if head not in ("domain", ":requirements", ":types", ":constants", ":predicates", ":action"):
            raise BddlError(path, sec, f"unknown domain section {sec.show()[:40]!r}")
        if head != ":predicates" or name != "igibson":
            out.node(sec)
            continue
        declared = {p.head() for p in sec.items[1:]}
        out.put("(", sec.line, sec.col)
        for item in sec.items:
            out.node(item)
        for pred, params in IGIBSON_EXTRA.items():
            if pred not in declared:
                out.put(f"({pred} {params})")
        out.put(")")
    out.put(")")
    return out.text()


def _objects(sec: Node, path: str) -> dict[str, list[str]]:
    """The category -> objects map of ``:objects``, as ``parse_problem`` builds it (untyped ones under ``object``)."""
    categories: dict[str, list[str]] = {}
    pending: list[Node] = []
    items = sec.items[1:]
    i = 0
    while i < len(items):
        tok = items[i]
        if tok.is_list:
            raise BddlError(path, tok, f"unexpected {tok.show()} in :objects")
        if tok.text == "-":
            if i + 1 >= len(items) or items[i + 1].is_list or not pending:
                raise BddlError(path, tok, "'-' in :objects must stand between objects and their category")
            cat = items[i + 1]
            if cat.text in categories:  # parse_problem would replace the first list by the second one
                raise BddlError(path, cat, f"category {cat.text!r} is listed twice in :objects "
                                "(BEHAVIOR's parser keeps only the second list)")
            categories[cat.text] = [p.text for p in pending]
            pending, i = [], i + 2
            continue
        pending.append(tok)
        i += 1
    if pending:
        categories.setdefault("object", []).extend(p.text for p in pending)
    return categories


def problem_to_pddl(source: str, path: str) -> str:
    """A BDDL problem file as PDDL text (see the module docstring)."""
    define = read_sexpr(source, path)
    sections = _section(define, path, "problem")
    _Names(path).check(define)
    by_head = {s.head(): s for s in sections}
    for sec in sections:
        if sec.head() not in ("problem", ":domain", ":requirements", ":objects", ":init", ":goal"):
            raise BddlError(path, sec, f"unknown problem section {sec.show()[:40]!r}")
    if ":objects" not in by_head or ":goal" not in by_head:
        raise BddlError(path, define, "a BDDL problem needs :objects and :goal")
    categories = _objects(by_head[":objects"], path)
    objects = {o for objs in categories.values() for o in objs}
    rooms = _rooms(by_head.get(":init"), objects, path)
    out = _Out()
    out.put("(", define.line, define.col)
    out.put("define")
    for sec in sections:
        head = sec.head()
        if head == ":objects":
            out.put("(", sec.line, sec.col)
            out.put(":objects")
            items = sec.items[1:]
            for i, item in enumerate(items):
                if item.text != "-" and (i == 0 or items[i - 1].text != "-"):
                    out.node(item)
            out.put(" ".join(pddl_name(r) for r in rooms) + ")" if rooms else ")")
        elif head == ":init":
            _init(sec, objects, path, out)
        elif head == ":goal":
            _goal(sec, categories, path, out)
        else:
            out.node(sec)
    out.put(")")
    return out.text()


def _rooms(init: Node | None, objects: set[str], path: str) -> list[str]:
    rooms: list[str] = []
    for atom in init.items[1:] if init is not None else []:
        if atom.head() == "inroom" and len(atom.items) == 3 and not atom.items[2].is_list:
            room = atom.items[2].text
            if room not in objects and room not in rooms:
                rooms.append(room)
    return rooms


def _init(sec: Node, objects: set[str], path: str, out: _Out) -> None:
    out.put("(", sec.line, sec.col)
    out.put(":init")
    for atom in sec.items[1:]:
        head = atom.head()
        if head == "not":  # the sampler's "make this false": closed world already says so
            if len(atom.items) != 2 or atom.items[1].head() is None:
                raise BddlError(path, atom, f"(not ...) in :init takes one atom, got {atom.show()}")
            continue
        if head is None or any(a.is_list for a in atom.items[1:]):
            raise BddlError(path, atom, f"BDDL's :init holds ground literals only, got {atom.show()[:60]}")
        for arg in atom.items[1:]:
            if arg.text not in objects and not (head == "inroom" and arg is atom.items[2]):
                hint = closest(arg.text, objects)
                raise BddlError(path, arg, f"unknown object {arg.text!r} in {atom.show()}"
                                + (f"; did you mean {', '.join(hint)}?" if hint else ""))
        out.node(atom)
    out.put(")")


def _goal(sec: Node, categories: dict[str, list[str]], path: str, out: _Out) -> None:
    if len(sec.items) < 2:
        raise BddlError(path, sec, ":goal is empty")
    if len(sec.items) > 2:  # parse_problem reads group[1] only and drops the rest without a word
        extra = sec.items[2]
        raise BddlError(path, extra, f"{extra.show()[:60]} follows the goal formula inside :goal; "
                        "BEHAVIOR's parser reads only the first formula and would ignore it")
    goals = GoalTranslator(path, categories, pddl_name)
    body = sec.items[1]
    out.put("(", sec.line, sec.col)
    out.put(":goal")
    parts = body.items[1:] if body.head() == "and" else [body]
    if body.head() == "and":
        out.put("(", body.line, body.col)
        out.put("and")
    for part in parts:
        f = goals.formula(part, {})
        if f is False:
            raise BddlError(path, part, f"this goal condition can never hold over the problem's objects: {part.show()[:60]}")
        out.put(text(f), part.line, part.col)
    if body.head() == "and":
        out.put(")")
    out.put(")")


def to_pddl(source: str, path: str) -> str:
    """A BDDL file (domain or problem, told apart by its ``(define (domain|problem ...))``) as PDDL text."""
    define = read_sexpr(source, path)
    kind = define.items[1].head() if len(define.items) > 1 else None
    if kind == "domain":
        return domain_to_pddl(source, path)
    if kind == "problem":
        return problem_to_pddl(source, path)
    raise BddlError(path, define, "expected (define (domain NAME) ...) or (define (problem NAME) ...)")
