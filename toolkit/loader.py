"""The one module that talks to the ``pddl`` parser.

It turns PDDL text into the toolkit's model (:mod:`toolkit.model`) and turns every
parser complaint into a located :class:`~toolkit.errors.PgtError`. The ``pddl``
package is strict where common practice is not (keyword case, undeclared
requirements); we normalise those, keep a warning, and parse.

The Lark grammar is built once per process (about 100 ms); each call uses a fresh
transformer because ``pddl``'s transformers keep state that an error leaves dirty.
"""

from __future__ import annotations

import copy
import functools
import re
from pathlib import Path

from lark import Lark, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError
from pddl.action import Action as _PAction
from pddl.exceptions import PDDLError
from pddl.logic import base as pb
from pddl.logic import effects as pe
from pddl.logic.predicates import EqualTo as _PEqualTo
from pddl.logic.predicates import Predicate as _PPredicate
from pddl.parser import GRAMMAR_FILE, PARSERS_DIRECTORY
from pddl.parser.domain import DomainTransformer
from pddl.parser.problem import ProblemTransformer

from toolkit import model as m
from toolkit.errors import (
    ArityError,
    PddlSyntaxError,
    PgtError,
    TypeMismatchError,
    UnknownSymbolError,
    UnsupportedFeatureError,
)

SUPPORTED_REQUIREMENTS = (
    ":strips", ":typing", ":negative-preconditions", ":disjunctive-preconditions",
    ":equality", ":existential-preconditions", ":universal-preconditions",
    ":quantified-preconditions", ":conditional-effects", ":adl",
)
UNSUPPORTED_KEYWORDS = {
    ":durative-action": "durative actions (:durative-action)",
    ":derived": "derived predicates (:derived)",
    ":functions": "numeric fluents (:functions)",
    ":numeric-fluents": "numeric fluents (:numeric-fluents)",
    ":fluents": "numeric fluents (:fluents)",
    ":object-fluents": "object fluents (:object-fluents)",
    ":action-costs": "action costs (:action-costs)",
    ":durative-actions": "durative actions (:durative-actions)",
    ":derived-predicates": "derived predicates (:derived-predicates)",
    ":non-deterministic": "non-deterministic effects (:non-deterministic)",
    ":timed-initial-literals": "timed initial literals",
    ":preferences": "preferences",
    ":constraints": "trajectory constraints",
    ":metric": "plan metrics (:metric)",
    "oneof": "non-deterministic effects (oneof)",
    "increase": "numeric effects (increase)",
    "decrease": "numeric effects (decrease)",
}
TYPING_MODES = ("strict", "lenient")
_CONNECTIVES = ("define", "domain", "problem", "and", "or", "not", "imply", "forall",
                "exists", "when", "either")
_KEYWORD_RE = re.compile(r"(?<=\()\s*(" + "|".join(_CONNECTIVES) + r")\b|:[A-Za-z][\w-]*", re.I)
_COMMENT_RE = re.compile(r";[^\n]*")
# The pddl package rejects "- object" in typed lists (it drops "object" from its
# known types); we rename it to this placeholder while parsing and map it back.
_ROOT = "pgtrootobject"


@functools.lru_cache(maxsize=None)
def _lark(start: str) -> Lark:
    return Lark(GRAMMAR_FILE.read_text(), parser="lalr", import_paths=[PARSERS_DIRECTORY],
                start=start, propagate_positions=True)


@functools.lru_cache(maxsize=None)
def _empty_action_body() -> list:
    tree = _lark("domain").parse("(define (domain t) (:action a :parameters () :precondition (and) :effect (and)))")
    return next(tree.find_data("action_body_def")).children


class _ProblemTransformer(ProblemTransformer):
    """The pddl package's problem transformer lacks the rules for typed quantifier variables."""

    def typed_list_variable(self, args):
        return self._domain_transformer.typed_list_variable(args)

    def type_def(self, args):
        return self._domain_transformer.type_def(args)


# ------------------------------------------------------------ text helpers


def _blank_comments(text: str) -> str:
    """Comments replaced by spaces, so offsets stay valid for searching."""
    return _COMMENT_RE.sub(lambda mt: " " * len(mt.group()), text)


def line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def locate(text: str, pattern: str, start: int = 0) -> tuple[int | None, int | None]:
    """Line and column of the first match of a regex in the code (not comments)."""
    mt = re.compile(pattern, re.I).search(_blank_comments(text), start)
    return line_col(text, mt.start()) if mt else (None, None)


def name_pattern(name: str) -> str:
    """A regex for ``name`` as a whole PDDL name: not part of a longer name, not a ``?variable``."""
    return r"(?<![\w?-])" + re.escape(name) + r"(?![\w-])"


def _where(path: str, text: str, pattern: str) -> str:
    line, col = locate(text, pattern)
    return path if line is None else f"{path}:{line}:{col}"


def _drop_listed_object(text: str, code: str, path: str, warnings: list[str]) -> tuple[str, str]:
    """Blank ``object`` listed as a type of its own in ``:types`` (FD and UP accept it; it is the root anyway).

    Only a bare ``object`` (not ``object - parent``) is dropped; it is replaced by
    spaces so every offset, hence every error position, stays the same.
    """
    block = re.search(r"\(\s*:types\b([^)]*)", code)
    if not block:
        return text, code
    hits = [mt for mt in re.finditer(r"(?<![\w?-])object(?![\w-])(?!\s*-)", code[block.start(1):block.end(1)], re.I)
            if not re.search(r"-\s*$", code[block.start(1):block.start(1) + mt.start()])]
    if not hits:
        return text, code
    line, col = line_col(text, block.start(1) + hits[0].start())
    warnings.append(f"{path}:{line}:{col}: 'object' listed in :types ignored (it is the root type)")
    for mt in reversed(hits):
        at = block.start(1) + mt.start()
        text = text[:at] + " " * len(mt.group()) + text[at + len(mt.group()):]
    return text, _blank_comments(text)


def _normalise(text: str, path: str) -> tuple[str, list[str], set[str]]:
    """Lower-case keywords, refuse unsupported features, add missing requirements.

    Returns the text to parse, warnings, and the requirements declared in the file.
    Line numbers are preserved: nothing adds or removes a newline.
    """
    warnings: list[str] = []
    code = _blank_comments(text)
    for kw, feature in UNSUPPORTED_KEYWORDS.items():
        pat = re.escape(kw) + r"(?![\w-])" if kw.startswith(":") else r"\(\s*" + kw + r"\b"
        mt = re.search(pat, code, re.I)
        if mt:
            raise UnsupportedFeatureError(path, feature, *line_col(text, mt.start()))

    changed: list[str] = []

    def lower(mt: re.Match[str]) -> str:
        word = mt.group(0)
        if word != word.lower():
            changed.append(word.strip())
        return word.lower()

    out = []
    pos = 0
    for cm in _COMMENT_RE.finditer(text):  # normalise code only, never comments
        out.append(_KEYWORD_RE.sub(lower, text[pos:cm.start()]))
        out.append(cm.group())
        pos = cm.end()
    out.append(_KEYWORD_RE.sub(lower, text[pos:]))
    text = "".join(out)
    if changed:
        warnings.append(f"{path}: keywords in upper case normalised ({', '.join(sorted(set(changed)))})")

    code = _blank_comments(text)
    is_domain = re.search(r"\(\s*define\s*\(\s*domain\b", code) is not None
    text, code = _drop_listed_object(text, code, path, warnings)
    if re.search(r"-\s+object\b", code):
        text = "".join(re.sub(r"(-\s+)object\b", r"\g<1>" + _ROOT, chunk) if i % 2 == 0 else chunk
                       for i, chunk in enumerate(re.split(r"(;[^\n]*)", text)))
        if is_domain:
            types = re.search(r"\(\s*:types\b[^)]*", text)
            if types:  # untyped names at the end of the list are subtypes of object
                text = text[: types.end()] + " " + _ROOT + text[types.end():]
            else:
                preds = re.search(r"\(\s*:(predicates|constants)\b", text)
                if preds:
                    text = text[: preds.start()] + f"(:types {_ROOT}) " + text[preds.start():]
        code = _blank_comments(text)
    req = re.search(r"\(\s*:requirements\b([^)]*)\)", code)
    declared = set(req.group(1).split()) if req else set()
    unknown = declared - set(SUPPORTED_REQUIREMENTS)
    if unknown:
        line, col = line_col(text, req.start())
        raise UnsupportedFeatureError(path, f"requirement {' '.join(sorted(unknown))}", line, col)
    missing = [r for r in SUPPORTED_REQUIREMENTS if r not in declared]
    if missing:
        # The pddl parser refuses features whose requirement is undeclared; we accept
        # them (lint reports requirements used but not declared).
        extra = " " + " ".join(missing)
        if req:
            text = text[: req.end() - 1] + extra + text[req.end() - 1:]
        else:
            head = re.search(r"\(\s*(domain|problem)\s+[^\s()]+\s*\)", code)
            if head and head.group(1) == "domain":
                text = text[: head.end()] + f" (:requirements{extra})" + text[head.end():]
    return text, warnings, declared


def _syntax_error(path: str, text: str, exc: UnexpectedInput) -> PddlSyntaxError:
    line, col = getattr(exc, "line", None), getattr(exc, "column", None)
    if isinstance(exc, UnexpectedEOF) or (isinstance(exc, UnexpectedToken) and exc.token.type == "$END"):
        opened = text.count("(") - text.count(")")
        detail = f"unexpected end of file ({opened} unclosed parenthesis)" if opened > 0 else "unexpected end of file"
        return PddlSyntaxError(path, line_col(text, len(text))[0], 1, detail)
    if isinstance(exc, UnexpectedToken):
        expected = sorted(exc.accepts or exc.expected)[:6]
        detail = f"unexpected {str(exc.token.value).replace(_ROOT, 'object')!r}" + (f"; expected one of {', '.join(expected)}" if expected else "")
    elif isinstance(exc, UnexpectedCharacters):
        detail = f"unexpected character {text[exc.pos_in_stream]!r}" if exc.pos_in_stream < len(text) else "unexpected character"
    else:
        detail = str(exc).splitlines()[0]
    return PddlSyntaxError(path, line, col, detail)


def _first_unknown_type(text: str, known: set[str]) -> str | None:
    """The first ``- type`` (or ``(either ...)`` member) in the file that is not declared."""
    code = _blank_comments(text)
    for mt in re.finditer(r"-\s+(?:\(\s*either\s+([^)]*)\)|([^\s()]+))", code, re.I):
        for name in (mt.group(1) or mt.group(2)).split():
            if name.lower() not in known:
                return name
    return None


def _in_file_order(literals, text: str) -> list:
    """Initial literals in the order the file states them (the pddl package returns a set).

    Errors are found in a fixed order, so the first one reported is the first in the file.
    """
    code = _blank_comments(text)
    block = re.search(r"\(\s*:init\b", code, re.I)
    first: dict[str, int] = {}
    for mt in re.finditer(r"\(\s*([^\s()]+)((?:\s+[^\s()]+)*)\s*\)", code[block.end():] if block else ""):
        first.setdefault(" ".join([mt.group(1), *mt.group(2).split()]).lower(), mt.start())

    def key(lit) -> tuple[int, str]:
        inner = lit.argument if isinstance(lit, pb.Not) else lit
        words = [str(getattr(inner, "name", inner)), *(str(t.name) for t in getattr(inner, "terms", ()))]
        return first.get(" ".join(words).lower(), len(code)), str(lit)

    return sorted(literals, key=key)


def _parse(text: str, path: str, start: str):
    lark_tree: Tree
    try:
        lark_tree = _lark(start).parse(text)
    except UnexpectedInput as exc:
        raise _syntax_error(path, text, exc) from None
    for body in lark_tree.find_data("action_body_def"):
        # PDDL allows omitting :precondition and :effect; the pddl package then
        # crashes on the None placeholders, so we fill in an empty (and).
        if len(body.children) == 4:
            template = _empty_action_body()
            for i in (0, 2):
                if body.children[i] is None:
                    body.children[i:i + 2] = copy.deepcopy(template[i:i + 2])
    if start == "domain":
        transformer = DomainTransformer()
    else:
        transformer = _ProblemTransformer()
        # Its inner domain transformer checks goal formulas against requirements it
        # never learns (a problem's goal may use = or forall); grant them all.
        transformer._domain_transformer.requirements(["(", ":requirements", *SUPPORTED_REQUIREMENTS, ")"])
    try:
        return transformer.transform(lark_tree)
    except VisitError as exc:
        meta = getattr(exc.obj, "meta", None)
        line = getattr(meta, "line", None) if meta is not None and not meta.empty else None
        col = getattr(meta, "column", None) if line is not None else None
        detail = (str(exc.orig_exc).strip() or type(exc.orig_exc).__name__).replace(_ROOT, "object")
        bad_type = re.search(r"types \['([^']+)'\] of term .* not in available types \{([^}]*)\}", detail)
        if bad_type:  # the pddl package's message has no position; find one
            known = re.findall(r"'([^']+)'", bad_type.group(2))
            # It names whichever bad type its set iteration met first; report the first in the file.
            first = _first_unknown_type(text, {k.lower() for k in (*known, "object", _ROOT)}) or bad_type.group(1)
            raise UnknownSymbolError("type", first, known,
                                     _where(path, text, r"-\s*" + re.escape(first) + r"(?![\w-])")) from None
        raise PddlSyntaxError(path, line, col, detail) from None
    except (PDDLError, ValueError, AssertionError) as exc:
        raise PddlSyntaxError(path, None, None, str(exc) or type(exc).__name__) from None


# ----------------------------------------------------------- conversion


class _Scope:
    """Case-insensitive name resolution against what a file declared."""

    def __init__(self, path: str, text: str, kind: str, names) -> None:
        self.path, self.text, self.kind = path, text, kind
        self.by_lower = {n.lower(): n for n in names}

    def resolve(self, name: str, pattern: str | None = None) -> str:
        hit = self.by_lower.get(name.lower())
        if hit is None:
            where = _where(self.path, self.text, pattern or name_pattern(name))
            raise UnknownSymbolError(self.kind, name, self.by_lower.values(), where)
        return hit


def _type_tuple(tags, types: _Scope) -> tuple[str, ...]:
    if not tags:
        return ("object",)
    return tuple(sorted("object" if str(t).lower() in ("object", _ROOT) else types.resolve(str(t)) for t in tags))


class _Converter:
    """Converts pddl-package formulas to toolkit formulas, checking every name."""

    def __init__(self, path: str, text: str, predicates: dict[str, m.PredicateDef],
                 objects: _Scope, types: _Scope) -> None:
        self.path, self.text = path, text
        self.predicates = predicates
        self.pred_scope = _Scope(path, text, "predicate", predicates)
        self.objects, self.types = objects, types
        self.used_requirements: set[str] = set()

    def params(self, variables) -> tuple[m.Param, ...]:
        return tuple(("?" + str(v.name), _type_tuple(v.type_tags, self.types)) for v in variables)

    def term(self, t, scope: dict[str, str]) -> str:
        name = str(t.name)
        if type(t).__name__ == "Variable":
            key = "?" + name.lower()
            if key not in scope:
                where = _where(self.path, self.text, r"\?" + re.escape(name) + r"(?![\w-])")
                raise UnknownSymbolError("variable", "?" + name, scope.values(), where)
            return scope[key]
        return self.objects.resolve(name)

    def atom(self, p: _PPredicate, scope: dict[str, str]) -> m.Pred:
        pred = self.pred_scope.resolve(str(p.name), r"\(\s*" + re.escape(str(p.name)) + r"(?![\w-])")
        terms = tuple(self.term(t, scope) for t in p.terms)
        decl = self.predicates[pred]
        if len(terms) != decl.arity:
            # Point at the use with the wrong count (not the declaration), if we can find it.
            name = re.escape(str(p.name))
            where = _where(self.path, self.text, r"\(\s*" + name + r"(?:\s+[^\s()]+){%d}\s*\)" % len(terms))
            if where == self.path:
                where = _where(self.path, self.text, r"\(\s*" + name + r"(?![\w-])")
            raise ArityError("predicate", pred, decl.arity, len(terms), where)
        return m.Pred(pred, terms)

    def _scoped(self, variables, scope):
        params = self.params(sorted(variables, key=lambda v: str(v.name)))
        inner = dict(scope)
        inner.update({v.lower(): v for v, _ in params})
        return params, inner

    def condition(self, f, scope: dict[str, str]) -> m.Condition:
        if f is None:
            return m.TRUE
        if isinstance(f, _PPredicate):
            return self.atom(f, scope)
        if isinstance(f, _PEqualTo):
            self.used_requirements.add(":equality")
            return m.Equals(self.term(f.left, scope), self.term(f.right, scope))
        if isinstance(f, pb.Not):
            self.used_requirements.add(":negative-preconditions")
            return m.Not(self.condition(f.argument, scope))
        if isinstance(f, pb.And):
            return m.And(tuple(self.condition(x, scope) for x in f.operands))
        if isinstance(f, pb.Or):
            self.used_requirements.add(":disjunctive-preconditions")
            return m.Or(tuple(self.condition(x, scope) for x in f.operands))
        if isinstance(f, pb.Imply):
            self.used_requirements.add(":disjunctive-preconditions")
            a, b = f.operands
            return m.Imply(self.condition(a, scope), self.condition(b, scope))
        if isinstance(f, (pb.ForallCondition, pb.ExistsCondition)):
            params, inner = self._scoped(f.variables, scope)
            body = self.condition(f.condition, inner)
            if isinstance(f, pb.ForallCondition):
                self.used_requirements.add(":universal-preconditions")
                return m.Forall(params, body)
            self.used_requirements.add(":existential-preconditions")
            return m.Exists(params, body)
        if isinstance(f, pb.OneOf):
            raise UnsupportedFeatureError(self.path, "non-deterministic effects (oneof)")
        raise UnsupportedFeatureError(self.path, f"formula {type(f).__name__} ({f})")

    def effect(self, f, scope: dict[str, str]) -> m.Effect:
        if f is None:
            return m.AndEffect(())
        if isinstance(f, _PPredicate):
            return m.AddEffect(self.atom(f, scope))
        if isinstance(f, pb.Not) and isinstance(f.argument, _PPredicate):
            return m.DelEffect(self.atom(f.argument, scope))
        if isinstance(f, pb.And):
            return m.AndEffect(tuple(self.effect(x, scope) for x in f.operands))
        if isinstance(f, pe.When):
            self.used_requirements.add(":conditional-effects")
            return m.WhenEffect(self.condition(f.condition, scope), self.effect(f.effect, scope))
        if isinstance(f, pe.Forall):
            self.used_requirements.add(":conditional-effects")
            params, inner = self._scoped(f.variables, scope)
            return m.ForallEffect(params, self.effect(f.effect, inner))
        raise UnsupportedFeatureError(self.path, f"effect {type(f).__name__} ({f})")


def _predicate_comments(text: str) -> dict[str, str]:
    """Trailing ``;;`` comments on predicate declarations, by lower-case name."""
    comments: dict[str, str] = {}
    sec = re.search(r"\(\s*:predicates\b", text, re.I)
    if not sec:
        return comments
    for line in text[sec.end():].splitlines():
        if re.search(r"\(\s*:(action|functions|derived|constraints)\b", line, re.I):
            break
        mt = re.match(r"\s*\(\s*([A-Za-z][\w-]*)[^;]*\)\s*;+\s*(.+?)\s*$", line)
        if mt:
            comments[mt.group(1).lower()] = mt.group(2)
    return comments


def _types_of(pdom) -> dict[str, str]:
    types = {}
    for child, parent in sorted(dict(pdom.types).items(), key=lambda kv: str(kv[0])):
        if str(child).lower() not in ("object", _ROOT):
            types[str(child)] = str(parent) if parent and str(parent) != _ROOT else "object"
    return types


def _none_if_empty(f):
    """The pddl package reads an empty ``:precondition ()``/``:effect ()`` as ``(or)``; PDDL means none."""
    return None if isinstance(f, pb.Or) and not f.operands else f


def _nesting_guard(parse):
    """Turn a RecursionError (formulas nested thousands deep) into a located PgtError."""

    @functools.wraps(parse)
    def guarded(text: str, *args, **kwargs):
        try:
            return parse(text, *args, **kwargs)
        except RecursionError:
            path = kwargs.get("path", args[-1] if args and isinstance(args[-1], str) else "<string>")
            depth = max(_depths(text), default=0)
            raise PddlSyntaxError(path, None, None, f"formulas nested too deeply ({depth} levels of parentheses)") from None

    return guarded


def _depths(text: str):
    depth = 0
    for ch in _blank_comments(text):
        depth += (ch == "(") - (ch == ")")
        yield depth


@_nesting_guard
def parse_domain(text: str, path: str = "<string>") -> m.Domain:
    """Parse domain text into a validated :class:`~toolkit.model.Domain`."""
    norm, warnings, declared = _normalise(text, path)
    pdom = _parse(norm, path, "domain")
    types = _types_of(pdom)
    type_scope = _Scope(path, text, "type", [*types, "object"])
    for child, parent in types.items():
        if parent != "object":
            types[child] = type_scope.resolve(parent)
    constants = {str(c.name): _type_tuple(c.type_tags, type_scope)[0]
                 for c in sorted(pdom.constants, key=lambda c: str(c.name))}
    comments = _predicate_comments(text)
    predicates: dict[str, m.PredicateDef] = {}
    for p in sorted(pdom.predicates, key=lambda p: str(p.name)):
        params = tuple(("?" + str(v.name), _type_tuple(v.type_tags, type_scope)) for v in p.terms)
        predicates[str(p.name)] = m.PredicateDef(str(p.name), params, comments.get(str(p.name).lower(), ""))
    conv = _Converter(path, text, predicates, _Scope(path, text, "constant", constants), type_scope)
    actions: dict[str, m.ActionSchema] = {}
    # Keep the file's order of actions (the pddl package returns a set).
    order = {n.lower(): i for i, n in enumerate(re.findall(r"\(\s*:action\s+([^\s()]+)", _blank_comments(text), re.I))}
    pactions: list[_PAction] = sorted(pdom.actions, key=lambda a: order.get(str(a.name).lower(), 1 << 30))
    for a in pactions:
        params = conv.params(a.parameters)
        scope = {v.lower(): v for v, _ in params}
        pre = conv.condition(_none_if_empty(a.precondition), scope)
        eff = conv.effect(_none_if_empty(a.effect), scope)
        actions[str(a.name)] = m.ActionSchema(str(a.name), params, pre, eff)
    for r in sorted(conv.used_requirements):
        implied = {":adl", ":quantified-preconditions"} if "preconditions" in r and ("universal" in r or "existential" in r) else {":adl"}
        if r not in declared and not (declared & implied):
            warnings.append(f"{path}: uses {r} without declaring it in :requirements")
    if (types or any(t != ("object",) for p in predicates.values() for _, t in p.params)) and ":typing" not in declared and ":adl" not in declared:
        warnings.append(f"{path}: uses types without declaring :typing in :requirements")
    return m.Domain(str(pdom.name), frozenset(declared), types, constants, predicates, actions,
                    path, text, tuple(warnings))


@_nesting_guard
def parse_problem(text: str, domain: m.Domain, path: str = "<string>", typing: str = "strict") -> m.Problem:
    """Parse problem text against ``domain`` into a validated :class:`~toolkit.model.Problem`.

    ``typing="lenient"`` treats objects of the wrong type in initial and goal atoms
    as Fast Downward does: the atoms are kept (an action whose parameter types do
    not fit can never use them) and each mismatch becomes a warning, not an error.
    """
    if typing not in TYPING_MODES:
        raise PgtError(f"unknown typing mode '{typing}' (choose from {', '.join(TYPING_MODES)})")
    lenient: list[str] | None = [] if typing == "lenient" else None
    norm, warnings, _ = _normalise(text, path)
    pprob = _parse(norm, path, "problem")
    if str(pprob.domain_name).lower() != domain.name.lower():
        warnings.append(f"{path}: problem is for domain '{pprob.domain_name}', checked against '{domain.name}'")
    type_scope = _Scope(path, text, "type", [*domain.types, "object"])
    objects: dict[str, str] = {}
    for o in sorted(pprob.objects, key=lambda o: str(o.name)):
        name = str(o.name)
        if name.lower() in {c.lower() for c in domain.constants}:
            warnings.append(f"{path}: object '{name}' repeats a domain constant")
            continue
        objects[name] = _type_tuple(o.type_tags, type_scope)[0]
    every = {**domain.constants, **objects}
    conv = _Converter(path, text, dict(domain.predicates), _Scope(path, text, "object", every), type_scope)
    init: set[m.Atom] = set()
    for lit in _in_file_order(pprob.init, norm):
        if isinstance(lit, pb.Not):
            continue  # closed world: negative initial literals are redundant
        if not isinstance(lit, _PPredicate):
            raise UnsupportedFeatureError(path, f"initial element {lit}")
        pred = conv.atom(lit, {})
        _check_types(domain, every, pred, path, text, lenient)
        init.add(m.Atom(pred.predicate, pred.terms))
    goal = conv.condition(pprob.goal, {})
    goal_at = re.search(r"\(\s*:goal\b", _blank_comments(text), re.I)
    for pred in _ground_preds(goal):
        _check_types(domain, every, pred, path, text, lenient, goal_at.start() if goal_at else 0)
    return m.Problem(str(pprob.name), str(pprob.domain_name), objects, frozenset(init), goal,
                     path, text, (*warnings, *(lenient or ())))


def _ground_preds(c: m.Condition):
    """The atoms of a condition whose arguments are all objects (quantified ones are typed by their variable)."""
    if isinstance(c, m.Pred):
        if not any(m.is_var(t) for t in c.terms):
            yield c
    elif isinstance(c, m.Not):
        yield from _ground_preds(c.arg)
    elif isinstance(c, (m.And, m.Or)):
        for part in c.parts:
            yield from _ground_preds(part)
    elif isinstance(c, m.Imply):
        yield from _ground_preds(c.premise)
        yield from _ground_preds(c.conclusion)


def _check_types(domain: m.Domain, objects, pred: m.Pred, path: str, text: str, lenient: list[str] | None,
                 start: int = 0) -> None:
    """Raise on an argument of the wrong type, or (``lenient`` collecting warnings) note it and go on.

    The position is that of the first use at or after ``start`` (the goal's atoms are sought in the goal).
    """
    decl = domain.predicates[pred.predicate]
    for obj, (_, types) in zip(pred.terms, decl.params):
        if not any(domain.is_subtype(objects[obj], t) for t in types):
            line, col = locate(text, r"\(\s*" + re.escape(pred.predicate) + r"\s[^)]*\b" + re.escape(obj), start)
            err = TypeMismatchError(obj, objects[obj], " or ".join(types), path if line is None else f"{path}:{line}:{col}")
            if lenient is None:
                raise err
            lenient.append(f"{err} in {pred} (kept: --typing lenient)")


def _read(path: str | Path) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PgtError(f"cannot read {path}: {exc.strerror if isinstance(exc, OSError) else exc}") from None


def load_domain(path: str | Path) -> m.Domain:
    """Load and validate a domain file."""
    return parse_domain(_read(path), str(path))


def load_problem(path: str | Path, domain: m.Domain, typing: str = "strict") -> m.Problem:
    """Load and validate a problem file against a domain (``typing``: see :func:`parse_problem`)."""
    return parse_problem(_read(path), domain, str(path), typing)
