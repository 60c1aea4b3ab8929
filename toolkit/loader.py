"""Loading PDDL domains and problems into the toolkit's model (:mod:`toolkit.model`).

The public entry points of reading PDDL; the work is done in :mod:`toolkit.reading`:

- :mod:`~toolkit.reading.normalise` turns text as people write it into text the
  ``pddl`` package parses (keyword case, requirements, ``object`` as a type) and
  refuses unsupported features, located;
- the two readers: :mod:`toolkit.plain_domain` and :mod:`toolkit.plain_problem` read
  plain files (nearly all published ones) into forms shaped like the ``pddl`` package's objects
  (:mod:`~toolkit.reading.forms`, without importing the package)
  without Lark; everything else, malformed input included, goes to
  :mod:`~toolkit.reading.full_parser`, which owns the syntax error messages
  (:mod:`~toolkit.reading.syntax_errors`) and parses past what it can repair
  (:mod:`~toolkit.reading.repairs`);
- :mod:`~toolkit.reading.convert` and :mod:`~toolkit.reading.build` turn those
  objects into the model, checking every name, arity and type;
- :mod:`~toolkit.reading.collect` gathers every independent error of a file.

Errors are collected, not raised one by one (:func:`read_domain`, :func:`read_problem`):
an undeclared name, a wrong arity, a type error, a bad requirement or a duplicate
declaration is recorded with its file:line:column and the load goes on without the
offending piece, so an author sees every independent fault in one run. A syntax
error still stops the load (nothing after it can be trusted). :func:`parse_domain`
and :func:`parse_problem` raise the first error in file order, noting how many more.
"""

from __future__ import annotations

from operator import itemgetter
from pathlib import Path

from toolkit import model as m
from toolkit.errors import DuplicateNameError, PddlSyntaxError, PgtError, UnknownSymbolError, UnsupportedFeatureError
from toolkit.gc_pause import paused_gc
from toolkit.plain_domain import read_plain_domain, redeclared_warnings, with_action_forms
from toolkit.plain_problem import _NotPlain, read_plain_problem
from toolkit.reading.build import check_types, ground_preds, in_file_order, read_metric
from toolkit.reading.collect import Errors, Loaded, collect, nesting_guard
from toolkit.reading.convert import Converter, Scope, to_number, type_tuple
from toolkit.reading.domain_model import assemble, direct_domain
from toolkit.reading.forms import kind
from toolkit.reading.normalise import (SUPPORTED_REQUIREMENTS, UNSUPPORTED_KEYWORDS, granted, normalise, normalised,
                                       unclashed)
from toolkit.reading.plain_goal import PlainGoal
from toolkit.reading.text import (ROOT, blank_comments, line_col, listed_at, locate, located, name_pattern,
                                  offset_of, section)
from toolkit.textfile import read_text  # one reader for every command's files (BOM, UTF-16, Latin-1 comments)

__all__ = ["Loaded", "SUPPORTED_REQUIREMENTS", "TYPING_MODES", "UNSUPPORTED_KEYWORDS", "line_col", "load_domain",
           "load_problem", "locate", "name_pattern", "parse_domain", "parse_problem", "read_domain", "read_problem"]

TYPING_MODES = ("strict", "lenient")
# The names these helpers had when they lived here, for the editor server, lint and the reader tests.
_blank_comments, _section, _normalise, _ROOT = blank_comments, section, normalise, ROOT


def _parse_full(norm: str, path: str, start: str, errors: Errors, text: str):
    """The full parser (Lark, its grammar and its error messages), imported only for files the plain readers
    decline: `pgt validate` of plain files starts without it. ``norm``: :func:`normalised`'s text, its
    requirements granted and its variables named apart from its constants here (the grammar's alone)."""
    from toolkit.reading.full_parser import parse_full

    return parse_full(unclashed(granted(norm)), path, start, errors, text)


@collect
@nesting_guard
def read_domain(text: str, path: str = "<string>", *, errors: Errors) -> Loaded[m.Domain]:
    """Load domain text, collecting every independent error; the model leaves out the faulty pieces.

    >>> loaded = read_domain("(define (domain t) (:predicates (p)) (:action a :parameters () "
    ...                      ":precondition (q) :effect (p ?x)))")
    >>> [str(e) for e in loaded.errors]
    ["<string>:1:78: unknown predicate 'q'", "<string>:1:93: unknown variable '?x'"]
    >>> sorted(loaded.model.actions)
    ['a']
    """
    notes: list[str] = []
    norm, norm_code, warnings, declared = normalised(text, path, errors, notes)
    # Most domains are plain: read them without Lark and the pddl package's validation (a fixed ~0.1 s),
    # their actions straight into the model where nothing in them is unusual or faulty.
    pdom = read_plain_domain(norm_code, lazy=True)
    if pdom is not None:
        done = direct_domain(text, path, pdom, declared, warnings, notes, errors)
        if done is not None:
            return done
        pdom = with_action_forms(pdom)
    if pdom is None:
        pdom = _parse_full(norm, path, "domain", errors, text)
    elif pdom.redeclared:
        errors.warnings += redeclared_warnings(path, text, pdom.redeclared)
    return assemble(text, path, pdom, declared, warnings, notes, errors)


def parse_domain(text: str, path: str = "<string>") -> m.Domain:
    """Parse domain text into a validated :class:`~toolkit.model.Domain`; raises the first error (file order)."""
    return read_domain(text, path).result()


@collect
@nesting_guard
def read_problem(text: str, domain: m.Domain, path: str = "<string>", typing: str = "strict", *,
                 errors: Errors) -> Loaded[m.Problem]:
    """Load problem text against ``domain``, collecting every independent error (see :func:`read_domain`).

    ``typing="lenient"`` treats objects of the wrong type in initial and goal atoms
    as Fast Downward does: the atoms are kept (an action whose parameter types do
    not fit can never use them) and each mismatch becomes a warning, not an error.
    """
    if typing not in TYPING_MODES:
        raise PgtError(f"unknown typing mode '{typing}' (choose from {', '.join(TYPING_MODES)})")
    notes: list[str] = []
    norm, norm_code, warnings, _ = normalised(text, path, errors, notes)
    # Most problems are plain (ground atoms, simple goal): read them without Lark, which is slow per token. The
    # goal's shape is checked as it is read into the model (plain_goal), first after the objects: where it is
    # not plain after all, the full parser reads the file, and the errors the attempt recorded are dropped.
    pprob = read_plain_problem(norm_code, ROOT, False)  # (the goal unchecked: see above)
    if pprob is not None:
        mark = len(errors.items)
        try:
            return _problem(text, norm, domain, path, typing, pprob, [*warnings], notes, errors)
        except _NotPlain:
            del errors.items[mark:]
    pprob = _parse_full(norm, path, "problem", errors, text)
    return _problem(text, norm, domain, path, typing, pprob, warnings, notes, errors)


def _problem(text: str, norm: str, domain: m.Domain, path: str, typing: str, pprob, warnings: list[str],
             notes: list[str], errors: Errors) -> m.Problem:
    """:func:`read_problem`'s model of ``pprob`` (the plain reader's problem or the full parser's forms);
    raises :class:`~toolkit.plain_problem._NotPlain` where a plain problem's goal is not plain, before
    anything but its objects is recorded."""
    lenient: list[str] | None = [] if typing == "lenient" else None
    if str(pprob.domain_name).lower() != domain.name.lower():
        warnings.append(f"{path}: problem is for domain '{pprob.domain_name}', checked against '{domain.name}'")
    code = blank_comments(text)
    type_scope = Scope(path, text, "type", [*domain.types, "object"], errors)
    objects, untyped = _objects(pprob, domain, type_scope, code, text, path, warnings, errors)
    every = {**domain.constants, **objects}
    made: list[Converter] = []

    def conv_at(section_re: str) -> Converter:
        """The checked path's converter (made on first use: a plain problem without a fault needs none),
        its errors located from ``section_re`` on."""
        if not made:
            made.append(Converter(path, text, dict(domain.predicates), Scope(path, text, "object", every, errors),
                                  type_scope, dict(domain.functions), errors))
        made[0].at(offset_of(code, section_re))
        return made[0]

    values: dict[m.Atom, m.Number] = {}
    atoms = getattr(pprob, "atoms", None)
    # A plain problem's words straight into the model where every name checks out (the checked path else).
    plain = PlainGoal(domain, every, untyped, pprob.listed, pprob.names) if atoms is not None else None
    goal = None
    if plain is not None:  # the goal first: its shape may find the file not plain (read_problem then starts over)
        try:
            goal = plain.goal(pprob.raw_goal)
        except RecursionError:  # too deep to read directly: the reader's check decides, then the checked path
            pass
        if goal is None:
            try:
                pprob.check_goal()  # (as deep in the stack as the reader's own check was: the same verdict)
            except RecursionError:
                raise _NotPlain from None
    init = _checked_atoms(atoms, plain) if plain is not None else None
    if init is None:  # the full parser's objects, or a fault to report where it is: every element, in file order
        init, elements = set(), in_file_order(pprob.init, norm)
    else:  # the atoms are in; the values and negated atoms (closed world: nothing to add) remain
        checked = _checked_values(pprob, plain)
        if checked is None:  # a fault (or a (total-cost) other than 0): every value on the checked path below
            elements = [lit for lit in pprob.besides_atoms() if kind(lit) == "FunctionEqualTo"]
        else:
            values, elements = checked, []
    if elements:
        conv = conv_at(r"\(\s*:init\b")
    for lit in elements:
        shape = kind(lit)
        if shape == "Not":
            continue  # closed world: negative initial literals are redundant
        if shape == "FunctionEqualTo" and kind(lit.operands[0]) == "NumericFunction":
            def checked_term(lit=lit) -> m.FTerm:
                ft = conv.fterm(lit.operands[0], {}, r"\(\s*=\s*")
                check_types(domain, every, m.Pred(ft.function, ft.terms), path, text, lenient, conv.start, untyped,
                             domain.functions[ft.function].params)
                return ft

            ft = conv._recover(checked_term, None)
            if ft is None:
                continue
            value = to_number(lit.operands[1].value)
            if ft.function == m.TOTAL_COST and value != 0:
                raise PddlSyntaxError(path, *locate(text, r"\(\s*=\s*\(\s*total-cost\b"),
                                      f"the initial (total-cost) must be 0, not {m.format_number(value)}")
            values[m.Atom(ft.function, ft.terms)] = value
            continue
        if shape != "Predicate":
            raise UnsupportedFeatureError(path, f"initial element {lit}")

        def checked(lit=lit) -> m.Atom:
            pred = conv.atom(lit, {})
            check_types(domain, every, pred, path, text, lenient, conv.start, untyped)
            return m.Atom(pred.predicate, pred.terms)

        atom = conv._recover(checked, None)
        if atom is not None:
            init.add(atom)
    derived_preds = domain.derived_predicates if domain.derived else ()  # a property that builds a set: once
    derived = {a for a in init if a.predicate in derived_preds} if derived_preds else set()
    if derived:  # PDDL 2.2 leaves them out of :init; VAL ignores them (its rules decide), and so do we
        init -= derived
        warnings.append(f"{path}: {len(derived)} atom(s) of derived predicates in :init ignored "
                        f"(e.g. {min(derived)}): their rules decide them")
    raw_metric = getattr(pprob, "raw_metric", None)
    numeric = plain is not None and plain.uses_numbers
    if goal is None:  # the full parser's forms, or a fault to report where it is
        conv = conv_at(r"\(\s*:goal\b")
        goal = conv.condition(pprob.goal, {})
        for pred in ground_preds(goal):
            conv._recover(lambda pred=pred: check_types(domain, every, pred, path, text, lenient, conv.start,
                                                        untyped), None)
        numeric = conv.uses_numbers  # a comparison read, faulty or not (the metric's terms do not count)
    metric = read_metric(pprob.metric, path, text, numeric=domain.numeric)
    metric_expr, minimize = None, True
    if metric is None:  # a metric over fluents: PDDL 2.1
        metric_expr = plain.metric(raw_metric) if plain is not None and raw_metric is not None else None
        if metric_expr is None:
            conv = conv_at(r"\(\s*:metric\b")
            if m.TOTAL_TIME not in domain.functions:  # (total-time): the metric's built-in term (model.TOTAL_TIME)
                conv = Converter(path, text, conv.predicates, conv.objects, type_scope,
                                 {**domain.functions, m.TOTAL_TIME: m.FunctionDef(m.TOTAL_TIME, ())}, errors)
                conv.at(offset_of(code, r"\(\s*:metric\b"))
            metric_expr = conv.num_expr(pprob.metric.expression, {})
        minimize = str(pprob.metric.optimization).lower() == "minimize"
        metric = False
    if metric and m.TOTAL_COST not in domain.functions:
        raise UnknownSymbolError("function", m.TOTAL_COST, domain.functions, located(path, text, r"\(\s*:metric\b"))
    if not metric and metric_expr is None and domain.has_costs:  # (a property that walks the actions: last)
        warnings.append(f"{path}: the domain has action costs but the problem no (:metric minimize (total-cost)); "
                        "plans are measured by their length, as Fast Downward and VAL do")
    return m.Problem(str(pprob.name), str(pprob.domain_name), objects, frozenset(init), goal,
                     path, text, (*warnings, *(lenient or ())), values, metric, tuple(notes), metric_expr, minimize,
                     numeric)


def _objects(pprob, domain: m.Domain, type_scope: Scope, code: str, text: str, path: str, warnings: list[str],
             errors: Errors) -> tuple[dict[str, str], set[str]]:
    """The problem's objects (name -> type, sorted by name) and those of an unknown type (reported once, not
    again at every use), each fault recorded where it is."""
    objects: dict[str, str] = {}
    untyped: set[str] = set()
    borrowed = {b.lower(): b for b in domain.borrowed}
    constants_lower = {c.lower() for c in domain.constants if c.lower() not in borrowed}
    known_types = {*type_scope.by_lower, ROOT}
    by_tags: dict = {}  # an object's type tags -> (its type, whether one of them is undeclared)

    def typed(tags) -> tuple[str, bool]:  # once per distinct type list (an unknown type's error is the same at each)
        unknown = any(str(t).lower() not in known_types for t in tags)
        if unknown:  # its error points into :objects (the scan only for a file with one)
            type_scope.start = offset_of(code, r"\(\s*:objects\b")
        by_tags[tags] = hit = (type_tuple(tags, type_scope)[0], unknown)
        return hit

    listed = getattr(pprob, "object_pairs", None)  # the plain reader's (name, type tags): no forms made
    if listed is not None and not borrowed and (
            not constants_lower or constants_lower.isdisjoint([n.lower() for n, _ in listed])):
        # The plain reader's names are distinct in any case: with none a constant's, nothing to report per name.
        listed = sorted(listed, key=_first)
        for tags in dict.fromkeys([tags for _, tags in listed]):  # each type list once, in the names' order
            typed(tags)
        objects = {name: by_tags[tags][0] for name, tags in listed}
        if any(unknown for _, unknown in by_tags.values()):
            untyped = {name for name, tags in listed if by_tags[tags][1]}
        return objects, untyped
    if listed is None:
        listed = [(str(o.name), o.type_tags) for o in pprob.objects]
    objects_lower: set[str] = set()  # names are case-insensitive: y and Y are one object
    for written, tags in sorted(listed, key=_first):
        name = borrowed.get(written.lower(), written) if borrowed else written  # a borrowed constant: the domain's spelling
        low = name.lower()
        if low in constants_lower:
            sec = section(code, ":objects") or (0, len(code))
            at = next((h for h in listed_at(name, code, sec[0]) if h < sec[1]), None)
            where = path if at is None else "{}:{}:{}".format(path, *line_col(text, at))
            warnings.append(f"{where}: object '{name}' repeats a domain constant")
            continue
        if low in objects_lower:
            sec = section(code, ":objects") or (0, len(code))
            hits = [h for h in listed_at(name, code, sec[0]) if h < sec[1]]
            errors.add(DuplicateNameError("name", text[hits[-1]:hits[-1] + len(name)],
                                          "{}:{}:{}".format(path, *line_col(text, hits[-1]))))
            continue
        kind, unknown = by_tags.get(tags) or typed(tags)
        objects[name] = kind
        objects_lower.add(low)
        if unknown:
            untyped.add(name)
    for name in sorted(set(borrowed) - objects_lower):
        warnings.append(f"{path}: the domain's actions use '{borrowed[name]}', which neither the domain's "
                        ":constants nor this problem's :objects declare")
    return objects, untyped


def _checked_atoms(atoms: dict[str, list[tuple[str, ...]]], names: PlainGoal) -> set[m.Atom] | None:
    """The initial atoms of a plain problem (the reader's words: each predicate word's argument tuples) as the
    model's atoms, when every one names a declared predicate with its arity and declared objects of fitting
    types (a problem that loads at all); None at the first fault, so that the caller's checked path reports
    every fault where it is. ``names``: the problem's name lookups (its objects and the domain's constants)."""
    return names.grouped(atoms)


def _checked_values(pprob, names: PlainGoal) -> dict[m.Atom, m.Number] | None:
    """The numeric :init values of a plain problem (the plain reader's words of each head and its number,
    checked for shape) as the model's values, when every one names a declared function with its arity and
    declared objects of fitting types, and no (total-cost) starts other than at 0; None at the first fault,
    so that the caller's checked path (the parsed forms, element by element) reports every fault where it
    is. Why: building a parsed form per value, then converting and type-checking it, cost as much as
    reading all of a numeric problem's atoms (hydropower: 30 values).
    """
    if pprob.cost_not_zero:
        return None  # an initial (total-cost) other than 0: the checked path refuses it, located
    numbers = pprob.value_numbers
    # to_number, as the checked path reads each (an integer within float's range is its own value: told in C, or
    # by the reader from the words)
    if not pprob.small_ints and (float in set(map(type, numbers)) or not -_HUGE < min(numbers) <= max(numbers) < _HUGE):
        numbers = list(map(to_number, numbers))
    fluents = names.resolved(pprob.value_heads, functions=True)
    return None if fluents is None else dict(zip(fluents, numbers))


_HUGE = 10 ** 300


_first = itemgetter(0)


def parse_problem(text: str, domain: m.Domain, path: str = "<string>", typing: str = "strict") -> m.Problem:
    """Parse problem text against ``domain`` into a validated :class:`~toolkit.model.Problem`; raises the first error.

    ``typing``: see :func:`read_problem`.
    """
    with paused_gc():  # a large :init is thousands of atoms that all survive (toolkit.gc_pause)
        return read_problem(text, domain, path, typing).result()


def _read(path: str | Path) -> str:
    if str(path).lower().endswith(".bddl"):  # BEHAVIOR's BDDL (toolkit.bddl.is_bddl): translated to PDDL on its lines
        from toolkit.bddl import read_as_pddl

        return read_as_pddl(path)
    return read_text(path)


def load_domain(path: str | Path) -> m.Domain:
    """Load and validate a domain file."""
    return parse_domain(_read(path), str(path))


def load_problem(path: str | Path, domain: m.Domain, typing: str = "strict") -> m.Problem:
    """Load and validate a problem file against a domain (``typing``: see :func:`parse_problem`)."""
    return parse_problem(_read(path), domain, str(path), typing)
