"""Text the ``pddl`` package will parse, from text as people write it.

The package is strict where common practice is not (keyword case, undeclared
requirements, ``object`` listed as a type, a variable spelled like a keyword); we
normalise those, keep a warning, and parse. Unsupported features are refused
here, located, before any parser runs. Nothing adds or removes a newline, so
every line number the parsers report is the file's.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from toolkit.errors import UnsupportedFeatureError
from toolkit.plain_problem import KEYWORDS
from toolkit.reading.text import _COMMENT_SPLIT_RE, ROOT, VAR_PREFIX, blank_comments, line_col, open_before, section

if TYPE_CHECKING:
    from toolkit.reading.collect import Errors


SUPPORTED_REQUIREMENTS = (
    ":strips", ":typing", ":negative-preconditions", ":disjunctive-preconditions",
    ":equality", ":existential-preconditions", ":universal-preconditions",
    ":quantified-preconditions", ":conditional-effects", ":adl", ":action-costs", ":numeric-fluents",
    ":derived-predicates",
)
# Accepted where declared, never added: PDDL 3.1's :fluents is numeric and object fluents (object
# fluents are refused where used, by their keyword below).
DECLARABLE_REQUIREMENTS = (":fluents",)


# PDDL 1.2's, ignored where declared, as VAL ignores them (IPC 1998's logistics ADL declares :domain-axioms and
# defines none); an axiom itself, (:axiom ...), is refused where it is written (UNSUPPORTED_KEYWORDS).
IGNORED_REQUIREMENTS = (":domain-axioms",)


# Granted to the pddl parser where not declared (none now: :numeric-fluents is supported).
PARSER_ONLY_REQUIREMENTS: tuple[str, ...] = ()


UNSUPPORTED_KEYWORDS = {
    ":durative-action": "durative actions (:durative-action)",
    ":object-fluents": "object fluents (:object-fluents)",
    ":durative-actions": "durative actions (:durative-actions)",
    ":non-deterministic": "non-deterministic effects (:non-deterministic)",
    ":timed-initial-literals": "timed initial literals",
    ":preferences": "preferences",
    ":constraints": "trajectory constraints",
    "oneof": "non-deterministic effects (oneof)",
    ":vars": "action variables (:vars, PDDL 1.2: list them in :parameters)",
    ":axiom": "axioms (:axiom, PDDL 1.2: write them as :derived predicates)",
    r"probabilistic(?=\s+[0-9.])": "probabilistic effects (PPDDL's probabilistic)",  # not a predicate so named
    r"preference(?=\s+[^\s()]+\s*\()": "preferences (preference)",  # IPC 2008 net-benefit goals
}


_EMPTY_FUNCTIONS_RE = re.compile(r"\(\s*:functions\s*\)", re.I)
_TYPES_RE = re.compile(r":types\b([^)]*)")
_FUNCTIONS_CLOSED_RE = re.compile(r":functions\s*\)", re.I)  # its tail, sought from each ":"
_LITERALS = {kw: kw.split("(?", 1)[0].lower() for kw in UNSUPPORTED_KEYWORDS}
_UNCOLONED = [(kw, feature) for kw, feature in UNSUPPORTED_KEYWORDS.items() if _LITERALS[kw][0] != ":"]


_CONNECTIVES = ("define", "domain", "problem", "and", "or", "not", "imply", "forall",
                "exists", "when", "either")


# Keywords in any case: connectives after "(" (not a name such as AND-gate), ":sections", "- number", and a
# metric's direction (IPC's ged writes "(:METRIC MINIMIZE (TOTAL-COST))"); and comments, matched first so that
# they are kept as written. Every alternative starts with a literal character ("(", ":", "-", ";"), so the
# scan jumps between those (a lookbehind in front would try every position of the file: 10x slower).
_KEYWORD_RE = re.compile(r";[^\n]*|\(\s*(?:" + "|".join(_CONNECTIVES) + r")(?![\w-])"
                         r"|:metric\s+(?:minimize|maximize)(?![\w-])|:[A-Za-z][\w-]*"
                         r"|-(?<![\w?-].)\s+number(?![\w-])", re.I)  # a function's value type, "- Number"


_KEYWORD_VARIABLE_RE = re.compile(r"\?(" + "|".join(sorted(KEYWORDS, key=len, reverse=True)) + r")(?![\w-])", re.I)


def _by_first_letter(words) -> str:
    """An alternation of ``words`` grouped by their first letter (``a(?:nd|ssign)|d(?:ecrease|...)``): the
    scanner tries one branch per letter, not every word, at each place."""
    groups: dict[str, list[str]] = {}
    for w in sorted(words, key=len, reverse=True):
        groups.setdefault(w[0], []).append(re.escape(w[1:]))
    return "|".join(f"{re.escape(c)}(?:{'|'.join(rest)})" for c, rest in sorted(groups.items()))


# _KEYWORD_VARIABLE_RE on lower-case ASCII text, case-sensitive (a case-insensitive alternation of 22 words tried
# at every "?" was a third of normalising a domain): its substitution runs only where this finds one (other
# text takes the substitution, whose case folding decides).
_UNSUPPORTED_COLON_RE = re.compile(
    ":(?:" + _by_first_letter([lit[1:] for lit in _LITERALS.values() if lit[0] == ":"]) + r")(?![\w-])")
_LOWER_KEYWORD_VARIABLE_RE = re.compile(r"\?(?:" + _by_first_letter(KEYWORDS) + r")(?![\w-])")


# ``object`` used as a type (any case: PDDL names ignore it): after ``-``, or in an ``(either ...)`` after ``-``.
_OBJECT_WORD_RE = re.compile(r"(?<![\w?-])object(?![\w-])", re.I)


# The pddl package rejects "- object" in typed lists (it drops "object" from its
# known types); we rename it to the placeholder ROOT while parsing and map it back.
# The dash is matched outside the alternation, so the scan jumps from dash to dash.
_OBJECT_TYPE_RE = re.compile(r"-(?:(\s+)object(?![\w-])|(\s*\(\s*either\b[^()]*?(?<![\w?-])object(?![\w-])[^()]*\)))",
                             re.I)


# "(define (domain": found from its words (a scan that starts at each "(" of a problem file is 10x slower),
# then the "(" before them, white space between.
_DEFINE_DOMAIN_RE = re.compile(r"define\s*\(\s*domain\b")


def _is_domain(code: str) -> bool:
    """Whether comment-blanked ``code`` has ``(define (domain`` (``\\(\\s*define\\s*\\(\\s*domain\\b``)."""
    return any(code[:mt.start()].rstrip()[-1:] == "(" for mt in _DEFINE_DOMAIN_RE.finditer(code))


def _drop_listed_object(text: str, code: str, path: str, warnings: list[str]) -> tuple[str, str]:
    """Blank ``object`` listed as a type of its own in ``:types`` (FD and UP accept it; it is the root anyway).

    Only a bare ``object`` (not ``object - parent``) is dropped; it is replaced by
    spaces so every offset, hence every error position, stays the same.
    """
    # the first "(:types" (from its ":": a scan from every "(" was slower), its list up to the first ")"
    block = next((mt for mt in _TYPES_RE.finditer(code) if open_before(code, mt.start()) is not None), None)
    if not block:
        return text, code
    listed = block.group(1)
    if listed.isascii():  # ASCII: no other case folding
        low = listed.lower()
        if low.count("object") == len(_DASH_OBJECT_RE.findall(low)):
            return text, code  # no "object", or each after its dash (the root as a parent): the scan below finds none
    hits = [mt for mt in _LISTED_OBJECT_RE.finditer(code[block.start(1):block.end(1)])
            if not _DASH_AT_END_RE.search(code[block.start(1):block.start(1) + mt.start()])]
    if not hits:
        return text, code
    line, col = line_col(text, block.start(1) + hits[0].start())
    warnings.append(f"{path}:{line}:{col}: 'object' listed in :types ignored (it is the root type)")
    for mt in reversed(hits):
        at = block.start(1) + mt.start()
        text = text[:at] + " " * len(mt.group()) + text[at + len(mt.group()):]
    return text, blank_comments(text)


def _drop_empty_typed_group(text: str, code: str, path: str, warnings: list[str]) -> tuple[str, str]:
    """Blank a ``- type`` that follows no name in ``:objects``/``:constants`` (it declares nothing).

    IPC's woodworking p11 lists ``- board`` with no boards; FD and VAL accept it and
    the pddl package refuses it. Blanked with spaces, so every offset stays the same. (:func:`normalised`
    calls it only where the code's lower case shows such a list, or is not ASCII.)
    """
    blanked = False
    for block in _TYPED_GROUP_RE.finditer(code):
        if not (_FIRST_DASH_RE.match(block.group(1)) or _DASH_AFTER_ONE_RE.search(block.group(1))):
            continue  # no "-" first nor two "-" one word apart: no group without names (the loop below is exact)
        names = 0
        tokens = list(re.finditer(r"\S+", block.group(1)))
        for i, token in enumerate(tokens):
            if token.group() != "-":
                names += 1
                continue
            if names == 0 and i + 1 < len(tokens):
                at, end = block.start(1) + token.start(), block.start(1) + tokens[i + 1].end()
                line, col = line_col(text, at)
                warnings.append(f"{path}:{line}:{col}: '- {tokens[i + 1].group()}' follows no object name; ignored")
                text = text[:at] + " " * (end - at) + text[end:]
                blanked = True
            names = -1  # the type name that follows is not an object
    return (text, blank_comments(text)) if blanked else (text, code)


_DASH_OBJECT_RE = re.compile(r"-\s*object")
_LISTED_OBJECT_RE = re.compile(r"object(?<![\w?-]object)(?![\w-])(?!\s*-)", re.I)
_DASH_AT_END_RE = re.compile(r"-\s*$")
_TYPED_GROUP_RE = re.compile(r"\(\s*:(?:objects|constants)\b([^()]*)\)", re.I)
# A "-" first, or two "-" one word apart (each from its "-": the scan jumps to them).
_FIRST_DASH_RE = re.compile(r"\s*-(?!\S)")
_DASH_AFTER_ONE_RE = re.compile(r"-(?<!\S-)\s+\S+\s+-(?!\S)")


def _rename_root(mt: re.Match[str]) -> str:
    """A ``- object`` or ``- (either ... object ...)`` with the root (in any case) spelled as the placeholder."""
    if mt.group(2) is None:
        return "-" + mt.group(1) + ROOT
    return "-" + _OBJECT_WORD_RE.sub(ROOT, mt.group(2))


def _renamed_root(text: str, code: str, hits: list[re.Match[str]]) -> tuple[str, str]:
    """``text`` and its comment-blanked ``code`` with the root renamed outside the comments (``hits``: the matches
    of :data:`_OBJECT_TYPE_RE` in the code); the code stays the blanked text (a renaming adds no ";").

    Why from the code's matches: a scan of the text's pieces between comments, one substitution each, was a
    fifth of normalising a commented domain. A match with no comment inside (the text reads the same over it)
    is one in the pieces; one across a comment is not, and the pieces are scanned then."""
    if all(text.startswith(mt.group(), mt.start()) for mt in hits):
        texts, codes, at = [], [], 0
        for mt in hits:
            renamed = _rename_root(mt)
            texts += (text[at:mt.start()], renamed)
            codes += (code[at:mt.start()], renamed)
            at = mt.end()
        return "".join(texts) + text[at:], "".join(codes) + code[at:]
    chunks = _COMMENT_SPLIT_RE.split(text)  # the comments are every odd chunk
    chunks[0::2] = [_OBJECT_TYPE_RE.sub(_rename_root, chunk) for chunk in chunks[0::2]]
    text = "".join(chunks)
    chunks[1::2] = map(" ".__mul__, map(len, chunks[1::2]))
    return text, "".join(chunks)


def normalise(text: str, path: str, errors: Errors | None = None,
               notes: list[str] | None = None) -> tuple[str, list[str], set[str]]:
    """Lower-case keywords, refuse unsupported features, add missing requirements.

    Returns the text to parse, warnings, and the requirements declared in the file.
    Keywords written in upper case are read silently (PDDL is case-insensitive); that
    is noted in ``notes`` when given, for lint. Line numbers are preserved: nothing
    adds or removes a newline.
    """
    text, _, warnings, declared = normalised(text, path, errors, notes)
    return granted(text), warnings, declared


def normalised(text: str, path: str, errors: Errors | None = None,
               notes: list[str] | None = None) -> tuple[str, str, list[str], set[str]]:
    """:func:`normalise`'s text before its requirements are granted (:func:`granted`: the full parser's
    alone), that text's comment-blanked code (``blank_comments`` of it), warnings and declared requirements.
    Why the code: the plain readers read it, and blanking the text again (each file is blanked once as it
    is) was a tenth of reading a small domain."""
    warnings: list[str] = []
    code = blank_comments(text)
    # Each regular expression below scans the whole file; a large problem (500 kB) is scanned only by
    # those whose keyword occurs in it at all (a substring test in C), so reading stays linear and fast.
    lowered = code.lower()
    # The unsupported ":keywords" sought together, from each ":" (ASCII text: a superset of what the
    # expressions below find; other text looks for each), the others each by its literal part.
    colon_hit = not lowered.isascii() or _UNSUPPORTED_COLON_RE.search(lowered) is not None
    for kw, feature in UNSUPPORTED_KEYWORDS.items() if colon_hit else _UNCOLONED:
        if _LITERALS[kw] not in lowered:  # the keyword's literal part
            continue
        pat = (re.escape(kw) if kw.startswith(":") else r"\(\s*" + kw) + r"(?![\w-])"  # not (assign-task ?x)
        mt = re.search(pat, code, re.I)
        if mt:
            raise UnsupportedFeatureError(path, feature, *line_col(text, mt.start()))

    # Generators write an empty "(:functions )", which the pddl grammar refuses; it
    # declares nothing, so blank it (same length: offsets and lines stay valid).
    if any(open_before(text, mt.start()) is not None for mt in _FUNCTIONS_CLOSED_RE.finditer(text)):
        text = _EMPTY_FUNCTIONS_RE.sub(lambda mt: " " * len(mt.group()), text)  # found from ":": the scan where it is

    changed: list[str] = []

    def lower(mt: re.Match[str]) -> str:
        word = mt.group(0)
        if word[0] == ";":
            return word  # a comment, as written
        low = word.lower()
        if word != low:  # noted as the words were matched before: "AND", ":ACTION", "- NUMBER", "MINIMIZE"
            parts = ([word[1:]] if word[0] == "(" else [word[:7], word[7:]] if low.startswith(":metric")
                     and word[7:8].isspace() else [word])
            changed.extend(w.strip() for w in parts if w != w.lower())
        return low

    if code != lowered:  # upper case outside comments (most files have it only in comments): else no change
        # ... and in a keyword (most have it only in names): the keywords of the comment-free code (a superset
        # of those the substitution changes in the text), told in C first
        keywords = "".join(_KEYWORD_RE.findall(code))
        if keywords != keywords.lower():
            text = _KEYWORD_RE.sub(lower, text)
    # Sought in the code: one in a comment alone changes nothing a reader reads (nor a position: a comment ends its
    # line), and the text of a file with an accent in a comment only (IPC's "Thiébaux") is not ASCII.
    if "?" in lowered and (not lowered.isascii() or _LOWER_KEYWORD_VARIABLE_RE.search(lowered)):
        text = _KEYWORD_VARIABLE_RE.sub(lambda mt: "?" + VAR_PREFIX + mt.group(1), text)
    if changed and notes is not None:
        notes.append(f"{path}: keywords in upper case normalised ({', '.join(sorted(set(changed)))})")

    code = blank_comments(text)
    object_type = lowered.count("object") > lowered.count(":object")  # "object" other than in :objects
    is_domain = _is_domain(code) if object_type else False  # only asked then
    if ":types" in code:  # (the literal its scan starts from: no problem has it)
        text, code = _drop_listed_object(text, code, path, warnings)
    # the pass's own test, without lowering the code again
    if not lowered.isascii() or ":objects" in lowered or ":constants" in lowered:
        text, code = _drop_empty_typed_group(text, code, path, warnings)
    hits = list(_OBJECT_TYPE_RE.finditer(code)) if object_type else None  # not a type of its own named object-kind
    if hits:
        text, code = _renamed_root(text, code, hits)
        if is_domain:
            at, added = None, ""
            types = _TYPES_LIST_RE.search(text)
            if types:  # untyped names at the end of the list are subtypes of object
                at, added = types.end(), " " + ROOT
            else:
                preds = _PREDICATES_OR_CONSTANTS_RE.search(text)
                if preds:
                    at, added = preds.start(), f"(:types {ROOT}) "
            if at is not None:
                text = text[:at] + added + text[at:]
                # the code takes the same words where they are code: not after a ";" on their line
                code = (code[:at] + added + code[at:] if ";" not in text[text.rfind("\n", 0, at) + 1:at]
                        else blank_comments(text))
    req = _REQUIREMENTS_RE.search(code) if ":requirements" in code else None
    declared = set(req.group(1).split()) if req else set()
    unknown = declared - set(SUPPORTED_REQUIREMENTS) - set(DECLARABLE_REQUIREMENTS)
    if unknown:
        for word in sorted(unknown, key=lambda w: req.group(1).index(w)):
            at = req.start(1) + re.search(r"(?<!\S)" + re.escape(word) + r"(?!\S)", req.group(1)).start()
            if word in IGNORED_REQUIREMENTS:
                line, col = line_col(text, at)
                warnings.append(f"{path}:{line}:{col}: requirement {word} ignored, as VAL ignores it")
            else:
                exc = UnsupportedFeatureError(path, f"requirement {word}", *line_col(text, at))
                if errors is None:
                    raise exc
                errors.add(exc)
            text = text[:at] + " " * len(word) + text[at + len(word):]  # parse on without it
        declared -= unknown
        code = blank_comments(text)
    return text, code, warnings, declared


def granted(text: str) -> str:
    """:func:`normalised`'s ``text`` as the pddl grammar parses it: its requirements granted.

    The pddl parser refuses features whose requirement is undeclared; we accept them (lint reports
    requirements used but not declared), so each supported one missing from ``:requirements`` is added
    (a domain without the section gets them all; a problem without it none). Only the full parser needs
    this: the plain readers read the requirements as declared (:func:`normalised`'s ``declared``), and
    the words added were a tenth of the words of a small domain they split. Each insertion is at a place
    outside comments, of words without ";", on the line it joins: no line number changes.
    """
    code = blank_comments(text)
    req = _REQUIREMENTS_RE.search(code) if ":requirements" in code else None
    if req:
        # the words left after normalised blanked the unknown ones: the declared requirements (and, for a
        # word listed twice, its second listing, which is no supported one: it changes nothing missing)
        declared = set(req.group(1).split())
        missing = [r for r in _ALL_REQUIREMENTS if r not in declared]
        if missing:
            at = req.end() - 1
            return text[:at] + " " + " ".join(missing) + text[at:]
        return text
    head = _HEAD_RE.search(code)
    if head and head.group(1) == "domain":
        return text[:head.end()] + _ALL_ADDED + text[head.end():]
    return text


def unclashed(text: str) -> str:
    """:func:`granted`'s ``text`` with each variable that shares its name with a declared constant or object
    (``?x`` and ``x``) parsed under :data:`VAR_PREFIX`, as one spelled like a keyword is.

    PDDL sets the two apart by the ``?``, as VAL and Fast Downward do; the pddl package takes them for one term
    and refuses an atom that holds both ("Term x has inconsistent type tags"). The converter names such a
    variable back (:func:`~toolkit.reading.text.written_var`). Only the full parser needs this: the plain
    readers read ``?x`` as a variable and ``x`` as a name.
    """
    code = blank_comments(text).lower()
    if "?" not in code:
        return text
    names: set[str] = set()
    for keyword in (":constants", ":objects"):
        where = section(code, keyword)
        if where is not None:  # the words listed there (a type name too: renaming its namesake changes nothing)
            names.update(_WORD_RE.findall(code, *where))
    clash = [n for n in names if "?" + n in code]
    if not clash:
        return text
    pattern = re.compile(r"\?(" + "|".join(map(re.escape, sorted(clash, key=len, reverse=True))) + r")(?![\w-])", re.I)
    return pattern.sub(lambda mt: "?" + VAR_PREFIX + mt.group(1), text)


_WORD_RE = re.compile(r"[^\s():-][^\s()]*")  # a listed name: not "-", a type's dash, nor the keyword
_TYPES_LIST_RE = re.compile(r"\(\s*:types\b[^)]*")
_PREDICATES_OR_CONSTANTS_RE = re.compile(r"\(\s*:(predicates|constants)\b")
_REQUIREMENTS_RE = re.compile(r"\(\s*:requirements\b([^)]*)\)")
_HEAD_RE = re.compile(r"\(\s*(domain|problem)\s+[^\s()]+\s*\)")
_ALL_REQUIREMENTS = (*SUPPORTED_REQUIREMENTS, *PARSER_ONLY_REQUIREMENTS)
_ALL_ADDED = f" (:requirements {' '.join(_ALL_REQUIREMENTS)})"
