"""Actions in English both ways, from one template per action.

The domain's ``questions.toml`` ``[actions]`` template ("unstack {x} from on top of
{y}") renders an action with each object's description ("the red block"), and the
very same template reads sentences back. Reading is tolerant where English varies
and strict where a misread would be possible:

* object phrases come from the object descriptions (the domain file's
  ``[display.objects]``, a per-problem ``--objects`` file, type display rules), raw
  names and typed names ("block a"); a phrase that fits several objects is reported
  with its candidates, never guessed;
* literal words are compared after synonyms are folded to one canonical spelling
  on both sides ("onto" = "on top of" = "on"; a domain adds its own in
  ``[synonyms]``), with articles, type words and leading filler ("Then, I will")
  ignored;
* word order may differ: each object is matched to the template slot whose
  leading words it follows ("from the blue block, unstack the red block").

A sentence must use exactly the template's words (up to synonyms): extra or missing
words mean no match, so prose is never read as an action by accident. The one
exception is a short closing place that names no object, after the last object of
a template that ends with it: "put down the red block on the table", "pick up
the red block from the table" (a preposition and at most two words). An action
without a template is read from its name's words followed by its objects, where
prepositions between the objects, and a short phrase after the last one that starts
with a preposition, are allowed ("unstack the red block from the blue block", "put
down the red block on the table"), because the name alone cannot say which words
English adds.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from toolkit import phrasing as ph
from toolkit.question_file import Slot, Template, parse_template
from toolkit.task import Task

ARTICLES = frozenset({"the", "a", "an"})
# Domain-independent synonyms, canonical spelling first; a domain's [synonyms] table wins.
BUILTIN_SYNONYMS: dict[str, tuple[str, ...]] = {
    "on": ("onto", "on top of", "atop", "upon", "on to"),
    "from": ("from on top of", "from the top of", "from atop", "off of", "off"),
    "in": ("into", "inside", "inside of", "within"),
    "next to": ("beside", "alongside"),
    "pick up": ("pickup", "pick", "lift", "grab"),
    "put down": ("set down", "place down", "lay down", "putdown"),
    "move": ("go", "travel", "drive", "walk"),
}
LEAD = re.compile(r"^(?:(?:then|next|now|first(?:ly)?|second(?:ly)?|finally|lastly|after\s+that|afterwards|and|so|"
                   r"i|we|you|will|ll|should|can|must|need\s+to|have\s+to|let\s*s|let\s+us|let\s+me|please|step)\b[\s,]*)+")
# No action sentence is longer (a template's words plus its object phrases); longer text is prose,
# and the word-by-word segmentation below recurses once per word.
MAX_WORDS = 80
# Canonical prepositions a sentence may add between the objects of an action that has no template.
LINKING = frozenset({"on", "from", "in", "to", "at", "with", "of", "by", "onto", "into", "off", "via", "using",
                     "next"})
# Prepositions that may open a closing place ("on the table") after a templated action's last object.
PLACES = frozenset({"on", "from", "in", "to", "at"})
MAX_PLACE = 3  # the preposition and at most two words ("on table", "from the table": articles are dropped)
_TOKEN = re.compile(r"[a-z0-9]+")
_QUOTES = re.compile(r"[\"'`“”‘’]")


def tokens(text: str) -> list[str]:
    """Lower-case word tokens; ``-`` and ``_`` split words, quotes vanish ("let's" -> "lets")."""
    return _TOKEN.findall(_QUOTES.sub("", text.lower()))


@dataclass(frozen=True)
class TextMatch:
    """What a sentence reads as: one action, or several candidates when it is ambiguous."""

    name: str = ""
    args: tuple[str, ...] = ()
    candidates: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def ambiguous(self) -> bool:
        return len(self.candidates) > 1

    def describe(self) -> str:
        return " or ".join(f"({n} {' '.join(a)})" for n, a in self.candidates)


@dataclass(frozen=True)
class _Compiled:
    name: str
    arity: int
    bag: Counter[str]  # canonical literal words
    lenient: bool  # no template: words of LINKING may be added before the second and later objects
    markers: tuple[tuple[str, ...], ...]  # canonical words right before each slot, by slot order
    slot_index: tuple[int, ...]  # parameter index of each slot, in template order
    types: tuple[tuple[str, ...], ...]  # parameter types
    ends_with_slot: bool = False  # no words after the last object: a closing place may follow


class ActionLanguage:
    """Render ground actions as English and read English back, for one task.

    Args:
        task: the task whose actions and objects are phrased.
        templates: action name -> template (missing actions get "split name + objects").
        display: object -> description used when rendering.
        phrases: object -> every phrase that may name it (descriptions included).
        synonyms: canonical phrase -> alternatives, on top of :data:`BUILTIN_SYNONYMS`.
    """

    def __init__(self, task: Task, templates: Mapping[str, Template], display: Mapping[str, str],
                 phrases: Mapping[str, Iterable[str]], synonyms: Mapping[str, Sequence[str]] = {}) -> None:
        self.task = task
        self.display = dict(display)
        self.templates: dict[str, Template] = {}
        self._untemplated: set[str] = set()
        for name, schema in task.domain.actions.items():
            tpl = templates.get(name)
            if tpl is None:
                self._untemplated.add(name)
                spec = " ".join([ph.split_words(name), *(f"{{{i}}}" for i in range(schema.arity))])
                tpl = parse_template(spec, schema.params, "<fallback>", name)
            self.templates[name] = tpl
        self._type_words = {w for t in task.domain.types for w in tokens(ph.split_words(t))} | {"object"}
        self._synonyms = self._synonym_table(synonyms)
        self._max_syn = max((len(k) for k in self._synonyms), default=1)
        self._aliases: dict[tuple[str, ...], set[str]] = {}
        for obj, names in phrases.items():
            for phrase in names:
                toks = tuple(tokens(phrase))
                while toks and toks[0] in ARTICLES and len(toks) > 1:
                    toks = toks[1:]
                if toks:
                    self._aliases.setdefault(toks, set()).add(obj)
        self._max_alias = max((len(k) for k in self._aliases), default=1)
        self._compiled = [self._compile(n, t) for n, t in self.templates.items()]
        # The first word of each action's sentence and name: how a line that means an action starts.
        self.verb_actions: dict[str, list[str]] = {}
        for comp in self._compiled:
            lead = comp.markers[0][:1] if comp.markers else ()
            for verb in {*lead, *tokens(comp.name)[:1]}:
                self.verb_actions.setdefault(verb, []).append(comp.name)
        self.verbs = frozenset(self.verb_actions)

    # ------------------------------------------------------------ rendering

    def render(self, name: str, args: Sequence[str]) -> str:
        """An action in words, e.g. "unstack the red block from on top of the blue block"."""
        return self.templates[name].render([self.display.get(a, a) for a in args], list(args))

    # ------------------------------------------------------------- reading

    def _synonym_table(self, extra: Mapping[str, Sequence[str]]) -> dict[tuple[str, ...], tuple[str, ...]]:
        table: dict[tuple[str, ...], tuple[str, ...]] = {}
        for source in (BUILTIN_SYNONYMS, extra):  # the domain's table overrides the built-in one
            for canon, alts in source.items():
                for alt in (canon, *alts):
                    table[tuple(tokens(alt))] = tuple(tokens(canon))
        return table

    def _canonical(self, words: Sequence[str]) -> tuple[str, ...]:
        out: list[str] = []
        i = 0
        while i < len(words):
            for n in range(min(self._max_syn, len(words) - i), 0, -1):
                hit = self._synonyms.get(tuple(words[i:i + n]))
                if hit is not None:
                    out.extend(hit)
                    i += n
                    break
            else:
                out.append(words[i])
                i += 1
        return tuple(w for w in out if w not in ARTICLES and w not in self._type_words)

    def _compile(self, name: str, tpl: Template) -> _Compiled:
        words: list[str] = []
        markers: list[tuple[str, ...]] = []
        slots: list[int] = []
        pending: list[str] = []
        for part in tpl.parts:
            if isinstance(part, Slot):
                markers.append(self._canonical(pending))
                words.extend(markers[-1])
                slots.append(part.index)
                pending = []
            else:
                pending.extend(tokens(part))
        closing = self._canonical(pending)
        words.extend(closing)
        schema = self.task.domain.actions[name]
        return _Compiled(name, schema.arity, Counter(words), name in self._untemplated, tuple(markers),
                         tuple(slots), tuple(t for _, t in schema.params), bool(slots) and not closing)

    def _segmentations(self, words: list[str]) -> list[tuple[list[tuple[str, ...]], list[frozenset[str]], tuple[str, ...]]]:
        """Ways to split words into (segments before each mention, mentions, trailing words).

        A token that is both an article and an object name ("a") is tried both ways.
        """
        results = []

        def walk(i: int, segs: list[tuple[str, ...]], cur: list[str], mentions: list[frozenset[str]]) -> None:
            if len(results) > 16:
                return
            if i == len(words):
                results.append((segs, mentions, self._canonical(cur)))
                return
            options = []
            for n in range(min(self._max_alias, len(words) - i), 0, -1):
                hit = self._aliases.get(tuple(words[i:i + n]))
                if hit:
                    options.append((n, frozenset(hit)))
                    break
            for n, objs in options:
                walk(i + n, [*segs, self._canonical(cur)], [], [*mentions, objs])
            if not options or words[i] in ARTICLES:
                walk(i + 1, segs, [*cur, words[i]], mentions)

        walk(0, [], [], [])
        return results

    def parse(self, text: str) -> TextMatch | None:
        """Read a sentence as an action; None if it fits no template (ambiguity is a match with candidates)."""
        body = LEAD.sub("", " ".join(tokens(text)))
        words = body.split()
        if not words or len(words) > MAX_WORDS:
            return None
        found: dict[tuple[str, tuple[str, ...]], int] = {}
        for segs, mentions, tail in self._segmentations(words):
            bag = Counter(w for s in segs for w in s) + Counter(tail)
            linked = _linked_bag(segs, tail)
            placed = self._without_place(segs, tail) if mentions else None
            for comp in self._compiled:
                if comp.arity != len(mentions):
                    continue
                if comp.bag != (linked if comp.lenient and segs else bag) and (
                        comp.lenient or placed is None or comp.bag != placed or not comp.ends_with_slot):
                    continue
                for result, score in self._assign(comp, segs, mentions):
                    found[result] = max(score, found.get(result, -1))
        if not found:
            return None
        best = max(found.values())
        top = sorted(r for r, s in found.items() if s == best)
        if len(top) == 1:
            return TextMatch(top[0][0], top[0][1], tuple(top))
        return TextMatch(candidates=tuple(top))

    def object_named(self, phrase: str) -> str | None:
        """The one object a phrase names ("orange", "the red block", "block c"), else None."""
        words = tuple(w for w in tokens(phrase) if w not in ARTICLES)
        hit = self._aliases.get(words)
        return next(iter(hit)) if hit is not None and len(hit) == 1 else None

    def near_miss(self, text: str) -> str:
        """What an unread sentence comes closest to, for the error message: the action its verb
        names, the objects it names, the sentence the template would read and the words that
        differ ("" when it names no known verb)."""
        body = LEAD.sub("", " ".join(tokens(text)))
        words = body.split()
        if not words or len(words) > MAX_WORDS:
            return ""
        names = self.verb_actions.get(words[0], [])
        if not names:
            return ""
        segs, mentions, tail = self._segmentations(words)[0]
        objects = [sorted(m)[0] if len(m) == 1 else "/".join(sorted(m)) for m in mentions]
        said = Counter(w for seg in segs for w in seg) + Counter(tail)
        best = None
        for comp in self._compiled:
            if comp.name not in names:
                continue
            left = said - comp.bag
            extra = []
            for w in [w for seg in segs for w in seg] + list(tail):  # in the sentence's order
                if left[w] > 0:
                    extra.append(w)
                    left[w] -= 1
            missing = sorted((comp.bag - said).elements())
            rank = (comp.arity != len(mentions), len(extra) + len(missing))
            if best is None or rank < best[0]:
                best = (rank, comp, extra, missing)
        assert best is not None
        _, comp, extra, missing = best
        parts = [f"closest action {comp.name}"]
        if objects:
            parts.append(f"objects named: {', '.join(objects)}")
        if comp.arity != len(mentions):
            parts.append(f"{comp.name} takes {comp.arity} object{'s' if comp.arity != 1 else ''}, "
                         f"the sentence names {len(mentions)}")
        elif not any("/" in o for o in objects):
            parts.append(f"it reads \"{self.render(comp.name, objects)}\"")
        if extra:
            parts.append(f"words it does not expect: {' '.join(extra)}")
        if missing:
            parts.append(f"words it lacks: {' '.join(missing)}")
        return "; ".join(parts)

    def _without_place(self, segs: Sequence[tuple[str, ...]], tail: tuple[str, ...]) -> Counter[str] | None:
        """The sentence's words without a closing place after its last object ("... on the table"),
        or None when it has none: a place preposition, then one or two words that are neither
        another preposition nor an action's verb."""
        for j in range(max(0, len(tail) - MAX_PLACE), len(tail) - 1):
            rest = tail[j + 1:]
            if tail[j] in PLACES and not any(w in LINKING or w in self.verbs for w in rest):
                return Counter(w for s in segs for w in s) + Counter(tail[:j])
        return None

    def _assign(self, comp: _Compiled, segs: list[tuple[str, ...]],
                mentions: list[frozenset[str]]) -> Iterable[tuple[tuple[str, tuple[str, ...]], int]]:
        """Each way to give the mentions to the template's slots, scored by markers that agree."""
        n = len(mentions)
        orders = itertools.permutations(range(n)) if n <= 5 else [tuple(range(n))]
        for order in orders:  # order[k]: the slot that mention k fills
            # Agreeing markers decide; among equals, template order wins (slots without markers).
            score = 100 * sum(segs[k] == comp.markers[order[k]] for k in range(n)) + sum(
                order[k] == k for k in range(n))
            choices = []
            for k in range(n):
                param = comp.slot_index[order[k]]
                fits = [o for o in sorted(mentions[k]) if self._fits(o, comp.types[param])]
                if not fits:
                    break
                choices.append((param, fits))
            else:
                for combo in itertools.product(*(fits for _, fits in choices)):
                    args = [""] * comp.arity
                    for (param, _), obj in zip(choices, combo):
                        args[param] = obj
                    yield (comp.name, tuple(args)), score

    def _fits(self, obj: str, types: tuple[str, ...]) -> bool:
        return any(self.task.domain.is_subtype(self.task.objects[obj], t) for t in types)


def _linked_bag(segs: Sequence[tuple[str, ...]], tail: tuple[str, ...]) -> Counter[str]:
    """The words an action without a template must match: the words before its first object, the
    non-linking words between objects, and the words after the last one unless they are a short
    phrase that starts with a preposition ("put down the red block on the table")."""
    words = Counter(segs[0]) if segs else Counter()
    for seg in segs[1:]:
        words.update(w for w in seg if w not in LINKING)
    if not (tail and tail[0] in LINKING and len(tail) <= 5):
        words.update(tail)
    return words
