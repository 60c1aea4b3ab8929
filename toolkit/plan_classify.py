"""How one candidate line of a reply is read: a step, a broken step, a refusal or prose.

:func:`toolkit.plans.parse_plan` finds the candidate lines (:mod:`toolkit.plan_reader`) and
asks :class:`Reader` what each one is: a PDDL, call-style, bare or JSON step; an English
sentence read through the domain's action templates (:mod:`toolkit.action_language`); a line
that looks like a step but cannot be read (kept and reported, never dropped); a refusal; or
prose. The run-level rules (lists of steps, notes nested under a step) are here too.
"""

from __future__ import annotations

import difflib
import re
import weakref
from typing import TYPE_CHECKING, Callable, Sequence

from toolkit.action_language import LEAD, LINKING, TextMatch, tokens
from toolkit.errors import ArityError, TypeMismatchError, UnknownSymbolError, closest
from toolkit.plan_reader import REFUSAL, Candidate
from toolkit.plan_steps import ActionTextParser, Reason
from toolkit.task import Task

if TYPE_CHECKING:
    from toolkit.action_language import ActionLanguage

_PREFIX = re.compile(r"^\s*(?:step\s*)?\d+(?:\.\d+)?\s*[:.)]\s*(?=\S)", re.I)
_SUFFIX = re.compile(r"\[[^][]*\]\s*$")  # no nested brackets: linear on "[[[[..."
_CALL = re.compile(r"^\s*([A-Za-z0-9][\w-]*)\s*\((.*)\)\s*;?\s*$")
_PAREN = re.compile(r"^\s*\(\s*([^()\s]+)((?:\s+[^()\s]+)*)\s*\)\s*$")
_BARE = re.compile(r"^\s*([A-Za-z0-9][\w-]*)((?:\s+[A-Za-z0-9_][\w-]*)*)\s*$")
_LANGUAGES: "weakref.WeakKeyDictionary[Task, ActionLanguage]" = weakref.WeakKeyDictionary()


def _strip_comment(line: str) -> str:
    pos = line.find(";")
    return line if pos < 0 else line[:pos]


def split_step(text: str) -> tuple[str, tuple[str, ...]] | None:
    """Split one step's text into (action name, args); None if it is not a step.

    >>> split_step("1: (moveBlock r c2) [1]")
    ('moveBlock', ('r', 'c2'))
    >>> split_step("moveblock(r, c2)")
    ('moveblock', ('r', 'c2'))
    """
    hit = split_form(text)
    return None if hit is None else (hit[0], hit[1])


def split_form(text: str) -> tuple[str, tuple[str, ...], str] | None:
    """(name, args, form) with form "pddl", "call" or "bare"."""
    body = _SUFFIX.sub("", _PREFIX.sub("", _strip_comment(text).strip())).strip().rstrip(",")
    body = body.strip("`*").strip()
    for pattern, form in ((_PAREN, "pddl"), (_CALL, "call")):
        mt = pattern.match(body)
        if mt:
            raw_args = mt.group(2).replace(",", " ").split()
            return mt.group(1), tuple(a.strip("'\"") for a in raw_args), form
    mt = _BARE.match(body)
    if mt:
        return mt.group(1), tuple(mt.group(2).split()), "bare"
    return None


def json_step(item: object) -> tuple[str, tuple[str, ...] | None]:
    """(name, args or None if malformed) of one JSON plan item."""
    if isinstance(item, str):
        split = split_step(item)
        return split if split else ("", None)
    if not (isinstance(item, dict) and isinstance(item.get("action", item.get("name")), str)):
        return "", None
    name = item.get("action", item.get("name"))
    params = item.get("parameters", item.get("args", item.get("arguments", [])))
    args: tuple[str, ...] | None
    if isinstance(params, dict):
        args = tuple(str(v) for v in params.values())
    elif isinstance(params, list):
        args = tuple(str(v) for v in params)
    elif isinstance(params, str):
        args = tuple(params.replace(",", " ").split())
    else:
        args = None
    split = split_step(name) if "(" in name else None
    if split and not args:
        name, args = split
    return name, args


def language(task: Task) -> ActionLanguage:
    """The task's action sentences from its domain's templates (built once per task)."""
    hit = _LANGUAGES.get(task)
    if hit is None:
        from toolkit.questions import QuestionBook  # the book knows the object descriptions

        hit = _LANGUAGES[task] = QuestionBook(task).language
    return hit


def _as_match(hit: object) -> TextMatch | None:
    if hit is None or isinstance(hit, TextMatch):
        return hit
    name, args = hit  # type: ignore[misc]
    return TextMatch(name, tuple(args), ((name, tuple(args)),))


_GLOSS = re.compile(r"\s*:\s+|\s+[-\u2013\u2014]+\s+")  # "(a b): moves a onto b", "a b - moves a onto b"
# A labelled line that describes a state or argues for a step (state-tracking replies: "1. Current State: ...",
# "   Action: attack object a", "   Reason: ...", "   Resulting State: ...").
_COMMENTARY = re.compile(r"^\W*(?:(?:current|resulting|initial|new|final|intermediate)\s+)?(?:state|reason(?:ing)?|"
                         r"preconditions?|effects?|explanation|result|why|check|goal)\s*:", re.I)
_INLINE_ASIDE = re.compile(r"\s*\([^()]*\)")  # any parenthesised remark inside an English step
_ASIDE = re.compile(r"\s*\([^()]*\)\W*$")  # a parenthesised remark at the end of an English step
# Where an English step's own words end and the writer's account of its effect begins (LLM+P's
# replies: "unstack b1 from b3 -> arm holding b1", "Unstack b1 from b3: this leaves b3 clear").
_CONSEQUENCE = re.compile(r"\s*(?:->|=>|\u2192|:\s|\.\s|\s[-\u2013\u2014]+\s|[\u2013\u2014])")
# A list item's bold title ("2. **Put down the red block** (now the hand is empty)"): the step itself.
_TITLE = re.compile(r"^\W*?(?:(?:step\s*)?\d{1,4}\s*[.):]\s*)?(?:\*\*|__)(?P<title>[^*_]+?)(?:\*\*|__)", re.I)


# Words a statement about the plan opens with and an imperative step never does ("The goal is now
# reached", "This frees the red block", "Done"): such a list item is commentary, not a broken step.
_OPENERS = frozenset({"the", "this", "that", "these", "those", "it", "its", "there", "here", "our", "your", "my",
                      "all", "both", "at", "as", "since", "because", "note", "goal", "done", "finished", "result",
                      "which", "why", "reason", "explanation"})


_END_LINES = frozenset({("plan", "end"), ("end", "plan"), ("end", "of", "plan"), ("end",)})  # "done": an opener


# Words that are never an argument of a PDDL step unless the task names an object so: articles,
# pronouns and the prepositions a sentence puts between objects.
_ENGLISH_ARGS = LINKING | {"the", "a", "an", "your", "its", "his", "her", "their", "my", "it", "them"}


def _squash(name: str) -> str:
    """An action name without case, hyphens and underscores: "PutDown" and "put_down" are put-down."""
    return name.lower().replace("-", "").replace("_", "")


def is_statement(text: str) -> bool:
    words = tokens(text)
    return bool(words) and (words[0] in _OPENERS or tuple(words) in _END_LINES)


def _remark_in_parentheses(text: str) -> bool:
    """"(You can do this because the block is clear.)": prose a model put in parentheses, not an
    action, since action syntax has no clause punctuation and names few objects."""
    inner = text.strip().strip("*_").strip()[1:-1]
    return _sentence_like(inner) and (bool(re.search(r"[,:;.!?]", inner)) or len(inner.split()) > 6)


def _sentence_like(text: str) -> bool:
    """Prose: three or more words, mostly alphabetic."""
    words = text.split()
    return len(words) >= 3 and sum(w.strip(".,:;!?()'\"").isalpha() for w in words) >= 0.6 * len(words)


def is_remark(text: str) -> bool:
    """A line among steps that is commentary, not a broken step: prose, a heading, "Done."."""
    stripped = text.strip()
    return (_sentence_like(stripped) or stripped.endswith(":")
            or (len(stripped.split()) == 1 and stripped.rstrip(".!").isalpha()))


def _content_words(text: str) -> list[str]:
    """The words of a line after leading filler ("Then, I will ...")."""
    return LEAD.sub("", " ".join(tokens(text))).split()


def _action_like(text: str, task: Task, lang: ActionLanguage) -> bool:
    """Starts with an action's name or verb (after "then", "next", ...), or a near miss of one."""
    words = _content_words(text)
    if not words:
        return False
    first = words[0]
    known = lang.verbs | {t.lower() for t in task.domain.actions}
    return first in known or bool(difflib.get_close_matches(first, sorted(known), n=1, cutoff=0.8))


def _subject_verb(text: str, objects: set[str], lang: ActionLanguage) -> tuple[str, str, list[str]] | None:
    """(subject, verb, rest) of "Robot1 picks up ball1 ..." or "Robot 1 moves ..." (LLM+P's replies):
    a task object as the subject, then an action's verb in the third person. None for any other line."""
    words = _content_words(text)
    for size in (1, 2):  # "robot 1" names robot1; "A stack of ..." is no subject though a is a block
        if len(words) > size and "".join(words[:size]) in objects and words[0] not in _ENGLISH_ARGS:
            verb = words[size]
            for stem in (verb, verb[:-1] if verb.endswith("s") else "", verb[:-2] if verb.endswith("es") else ""):
                if stem and stem in lang.verbs:
                    return "".join(words[:size]), stem, words[size + 1:]
    return None


class Reader:
    """Classifies the candidates of one reply against a task."""

    def __init__(self, task: Task, action_text: ActionTextParser | None) -> None:
        self.task = task
        self._hook = action_text
        self.names = {a.lower() for a in task.domain.actions}
        self._objects = {o.lower() for o in task.objects}
        self._lang: ActionLanguage | None = None
        self._fluents: frozenset[str] | None = None
        self._compact = {_squash(a): a for a in task.domain.actions}
        self._predicate_words: frozenset[str] | None = None

    @property
    def lang(self) -> ActionLanguage:
        if self._lang is None:
            self._lang = language(self.task)
        return self._lang

    @property
    def words(self) -> ActionLanguage | None:
        """The action language English is read with: the hook's (``--objects``) or the domain's."""
        if self._hook is None:
            return self.lang
        owner = getattr(self._hook, "__self__", None)
        return owner if hasattr(owner, "object_named") else None

    def english(self, text: str) -> TextMatch | None:
        return _as_match(self._hook(text) if self._hook is not None else self.lang.parse(text))

    def classify(self, cand: Candidate) -> tuple[str, object]:
        """("step", (name, args, form)) | ("error", (Reason, why, name, args)) | ("refusal" | "other", None)."""
        if cand.simple is not None and cand.simple[0].lower() in self.names and self._resolves(*cand.simple):
            return "step", (cand.simple[0], cand.simple[1], "pddl")
        glossed = _GLOSS.split(cand.text, maxsplit=1)
        if len(glossed) == 2:  # "LOAD-TRUCK p0 t0 l0: load the package ...": the action, then its gloss
            head = split_form(glossed[0])
            named = self._named(head[0], head[1]) if head is not None else None
            if head is not None and named is not None:  # also "PickUp(Red): pick up the red block (now clear)"
                return "step", (*named, "pddl" if head[2] == "bare" else head[2])
        split = split_form(cand.text)
        if split is not None:
            name, args, form = split
            if form != "bare" or name.lower() in self.names:
                # "(pick-up the red block)": English in PDDL's clothes (a known action's name only:
                # "(unlock x)" names an action the domain lacks and stays an unknown_action error)
                if self._compact.get(_squash(name)) and name.lower() not in self.names and args:
                    name = self._compact[_squash(name)]  # "PutDown(red)" for put-down
                if name.lower() in self.names and not self._resolves(name, args):
                    hit = self.english(" ".join((name, *args)))
                    if hit is not None:
                        return self._english_result(hit, cand)
                    named = self._named(name, args)
                    if named is not None:  # "Unstack(orange, red)"
                        return "step", (*named, "pddl" if form == "bare" else form)
                    # "Pickup b4 from b6", "Grasp shot1 with your left hand" (LLM+P replies): English
                    # words among the arguments, so the step did not say which action it meant
                    if any(a.lower() in _ENGLISH_ARGS and a.lower() not in self._objects for a in args):
                        return "error", (Reason.UNPARSEABLE_STEP, self.cannot(cand.text), "", ())
                if form != "bare" and name.lower() not in self.names and REFUSAL.search(cand.text):
                    return "refusal", None
                if form == "pddl" and name.lower() not in self.names and _remark_in_parentheses(cand.text):
                    return "other", None
                return "step", (name, args, "pddl" if form == "bare" else form)
        title = _TITLE.match(cand.source) if "**" in cand.source or "__" in cand.source else None
        if title is not None:  # "3. **Unstack the red block from the blue block** – since ...": the title is the step
            words = title.group("title").strip().rstrip(".:")
            hit = self.english(words) if len(tokens(words)) > 1 else None
            if hit is not None:
                if tokens(cand.text)[:len(tokens(words))] != tokens(words):
                    return "other", "titled"  # a later piece of the line: commentary on the titled step
                return self._english_result(hit, cand)
        hit = self.english(cand.text)
        aside = _ASIDE.search(cand.text) if hit is None else None
        if aside is not None and aside.start() > 0:  # "unstack a from b (now holding a)": the remark is not the step
            hit = self.english(cand.text[:aside.start()])
        if hit is None and "(" in cand.text[1:]:  # "stack the yellow block (Y) on top of the blue block (B)"
            bare = _INLINE_ASIDE.sub("", cand.text)
            hit = self.english(bare) if bare.strip() and bare != cand.text else None
        said = _CONSEQUENCE.search(cand.text) if hit is None else None
        if said is not None and said.start() > 0:  # "unstack a from b -> holding a": the account is not the step
            hit = self.english(cand.text[:said.start()])
        if hit is not None:
            return self._english_result(hit, cand)
        if REFUSAL.search(cand.text):
            return "refusal", None
        code = "(" in cand.text or ")" in cand.text
        if self.fact(cand.text) or _COMMENTARY.match(cand.text):  # "Object a craves object b (true)", "Harmony ✅",
            # "Current State: harmony, ...", "Reason: ...": a state or an account of one, not a step
            return "other", "fact"
        if _action_like(cand.text, self.task, self.lang) or (code and not _sentence_like(cand.text)):
            return "error", (Reason.UNPARSEABLE_STEP, self.cannot(cand.text), "", ())
        said = _subject_verb(cand.text, self._objects, self.lang) if cand.listed else None
        if said is not None:  # a list item that says who does what: a step, even when pgt cannot read it
            subject, verb, rest = said
            hit = self.english(" ".join((verb, subject, *rest)))  # "move robot1 from room1 to room2"
            if (hit is not None and not hit.ambiguous and hit.args[:1] == (subject,)
                    and self._resolves(hit.name, hit.args)):
                return self._english_result(hit, cand)
            return "error", (Reason.UNPARSEABLE_STEP, self.cannot(cand.text, verb), "", ())
        return "other", None

    def _english_result(self, hit: TextMatch, cand: Candidate) -> tuple[str, object]:
        if hit.ambiguous:
            possible = [c for c in hit.candidates if self._possible(*c)]
            if len(possible) == 1:  # "load p0 into t0 at l0": only load-truck's (truck t0) can ever hold
                return "step", (possible[0][0], possible[0][1], "natural-language")
        if hit.ambiguous:
            return "error", (Reason.AMBIGUOUS_STEP, f"{cand.text!r} is ambiguous: it could be {hit.describe()}",
                             "", ())
        return "step", (hit.name, hit.args, "natural-language")

    def fact(self, text: str) -> bool:
        """The line states a fact of the domain, not an action: it opens with a predicate's word
        ("Harmony", "Holding red", "On(orange, red)") or with an object and then a predicate's word
        ("Object a craves object b"), and that word is no action's verb."""
        if self._predicate_words is None:
            from toolkit.phrasing import split_words

            self._predicate_words = frozenset(tokens(split_words(p))[0] for p in self.task.domain.predicates
                                              if tokens(split_words(p)))
        words = _content_words(text)
        verbs = self.lang.verbs | {tokens(a)[0] for a in self.names if tokens(a)}
        if not words or words[0] in verbs:
            return False
        skip = 0
        nouns = {"object", *(w for t in self.task.domain.types for w in tokens(t))}
        while skip < min(2, len(words) - 1) and (words[skip] in nouns or words[skip] in self._objects):
            skip += 1
        return words[skip] in self._predicate_words and words[skip] not in verbs

    def _named(self, name: str, args: tuple[str, ...]) -> tuple[str, tuple[str, ...]] | None:
        """(action, objects) of a step whose action name may be squashed ("PutDown") and whose
        arguments may be the objects' descriptions ("orange"); None unless it names one ground action."""
        name = self._compact.get(_squash(name), name)
        if name.lower() not in self.names:
            return None
        if self._resolves(name, args):
            return name, args
        words = self.words
        named = tuple(words.object_named(a) or "" for a in args) if words is not None else ()
        return (name, named) if named and all(named) and self._resolves(name, named) else None

    def key(self, data: tuple[str, tuple[str, ...], str]) -> str | None:
        """The ground action a step names, as text; None when it names none (to compare copies)."""
        try:
            return str(self.task.action(data[0], tuple(data[1])))
        except (UnknownSymbolError, ArityError, TypeMismatchError):
            return None

    def _possible(self, name: str, args: tuple[str, ...]) -> bool:
        """The action exists and no static fact of its precondition is false (the untyped way to say
        types: PlanBench's Logistics writes ``(TRUCK t0)``, so load-truck and load-airplane, which
        read alike in English, differ only there)."""
        try:
            act = self.task.action(name, args)
        except (UnknownSymbolError, ArityError, TypeMismatchError):
            return False
        if self._fluents is None:
            from toolkit.scoring.predict import fluent_predicates

            self._fluents = fluent_predicates(self.task.domain)
        return not any(u.atom is not None and u.atom.predicate not in self._fluents
                       for u in act.unmet(self.task.init))

    def _resolves(self, name: str, args: tuple[str, ...]) -> bool:
        try:
            self.task.action(name, args)
        except (UnknownSymbolError, ArityError, TypeMismatchError):
            return False
        return True

    def cannot(self, text: str, verb: str | None = None) -> str:
        words = _content_words(text)
        hint = []
        verb = verb or (words[0] if words else None)
        if verb:
            hint = list(self.lang.verb_actions.get(verb, ()))
            hint += [a for a in closest(verb, self.task.domain.actions) if a not in hint]
        tip = f"; closest known actions: {', '.join(hint)}" if hint else ""
        words = self.words
        near = words.near_miss(text) if words is not None and not ("(" in text and ")" in text) else ""
        if near:  # English: say what it came closest to and what would read it
            return (f"cannot read {text!r} as an action ({near}); to read it, name objects as the prompt did "
                    "(--objects FILE) or add this phrasing to the domain's questions.toml ([actions] or [synonyms])")
        return f"cannot read {text!r} as an action{tip}"


def listed_steps(cands: Sequence[Candidate], kinds: list[tuple[str, object]], breaks: frozenset[int]) -> set[int]:
    """Indexes of list items in a run of list items that holds a step: those are steps too.

    A heading or comment line ("### Goal:") between two items ends the run."""
    out: set[int] = set()
    run: list[int] = []
    for i in range(len(cands) + 1):
        broken = bool(run) and i < len(cands) and any(
            (cands[run[-1]].line or 0) < b < (cands[i].line or 0) for b in breaks)
        if i < len(cands) and cands[i].listed and kinds[i][0] != "refusal" and not broken:
            run.append(i)
            continue
        if broken and i < len(cands) and cands[i].listed and kinds[i][0] != "refusal":
            if any(kinds[j][0] == "step" for j in run):
                out.update(run)
            run = [i]
            continue
        if any(kinds[j][0] == "step" for j in run):
            out.update(run)
        run = []
    return out


def nested_notes(cands: Sequence[Candidate], kinds: list[tuple[str, object]], names: set[str],
                  key: Callable[[tuple[str, tuple[str, ...], str]], str | None]) -> set[int]:
    """Indexes of lines indented under a step ("   - *Province b* (given)"): notes on that step.

    Such a line that cannot be read, that reads as a call of an unknown action, or that retells in
    English, or as the same action, the step above it ("   - You can unstack the orange block from
    the blue block", "   - **Action**: Unstack(orange, blue)"), becomes
    prose (``kinds`` is updated); another PDDL action written there, ``(put-down a)``, is still a
    step or an error, and so is English under a line that is no step ("2. Then build the tower:").
    """
    out: set[int] = set()
    step_indent = -1
    parent: object = None  # the step above, when read: a line under it may retell it
    for i, cand in enumerate(cands):
        kind, data = kinds[i]
        if 0 <= step_indent < cand.indent:
            out.add(i)
            retold = kind == "step" and parent is not None and (
                data[2] == "natural-language" or key(data) == key(parent))  # type: ignore[index,arg-type]
            if retold or (not cand.text.lstrip().startswith("(") and (
                    kind == "error" or (kind == "step" and data[2] == "call" and data[0].lower() not in names))):  # type: ignore[index]
                kinds[i] = kind, data = ("other", None)
            continue
        if kind in ("step", "error"):
            step_indent, parent = cand.indent, data if kind == "step" else None  # keyed only when needed
    return out
