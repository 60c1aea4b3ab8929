"""Yes/no questions for ground atoms, and natural-language text for ground actions.

A :class:`QuestionBook` is built once per task. It turns ``(holding bowl_1)`` into
"Is the agent holding the bowl?" using the domain's ``questions.toml`` when it has
one (see :mod:`toolkit.question_file`), and a fallback written from the predicate's
name, argument types and ``;;`` comment otherwise, so every predicate of every
domain can be asked about. The same book renders actions as text ("move the red
block to column c2") and parses such text back, for plans written in English.

>>> from toolkit.domains import shipped_domain, shipped_problem
>>> from toolkit.task import load_task
>>> book = QuestionBook(load_task(shipped_domain("blocksworld"), shipped_problem("blocksworld", "simple_problem_0")))
>>> book.question(Atom("on", ("r", "y")))
'Is the red block on top of the yellow block?'
>>> book.parse_action_text("Move the red block to column c2.")
('moveBlock', ('r', 'c2'))
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Mapping, Sequence

from toolkit import phrasing as ph
from toolkit.action_language import ActionLanguage
from toolkit.errors import UnknownSymbolError
from toolkit.model import Atom
from toolkit.question_file import QuestionSpec, cached_question_spec, find_question_file
from toolkit.task import GroundAction, Task

_NORMALIZE = re.compile(r"[\"'`“”‘’]")


def _normalize(text: str) -> str:
    """Lower case, no quotes, single spaces, no trailing full stop."""
    return " ".join(_NORMALIZE.sub("", text).lower().split()).rstrip(".!").strip()


class QuestionBook:
    """Questions and action texts for one task.

    Args:
        task: the task whose objects and predicates are phrased.
        spec: templates to use; by default the domain's ``questions.toml`` (if any).
        objects: per-problem object descriptions (object -> phrases, the first one is shown).
    """

    def __init__(self, task: Task, spec: QuestionSpec | None = None,
                 objects: Mapping[str, Sequence[str]] | None = None) -> None:
        self.task = task
        self._extra = {o: tuple(d) for o, d in (objects or {}).items()}  # per-problem descriptions (--objects)
        if spec is None:
            found = find_question_file(task.domain)
            spec = cached_question_spec(found, task.domain) if found else QuestionSpec()
        self.spec = spec
        self._kind = _object_kinds(task)
        bases = Counter(ph.instance_base(o) for o in task.objects)
        self._unique_base = {b for b, n in bases.items() if b and n == 1}
        self._display: dict[str, str] = {o: self._make_display(o) for o in task.objects}
        self._questions: dict[Atom, str] = {}
        self._phrasings: dict[Atom, tuple[str, ...]] = {}
        self._by_question: dict[str, Atom] | None = None
        self._all_asked = False
        self._language: ActionLanguage | None = None
        self._kind_predicates: frozenset[str] | None = None

    # ------------------------------------------------------------ objects

    @property
    def prompt_style(self) -> str:
        return self.spec.prompt_style

    @property
    def scene(self) -> str:
        return self.spec.scene

    def _make_display(self, obj: str) -> str:
        if obj in self._extra:
            return self._extra[obj][0]
        named = self.spec.object_names.get(obj)
        if named is None:  # ViPlan's problem files write the blocks R, G, Y; display names are keyed r, g, y
            named = next((v for k, v in self.spec.object_names.items() if k.lower() == obj.lower()), None)
        if named is not None:
            return named
        type_name = self.task.objects[obj]
        base = ph.instance_base(obj)
        for t in self.task.domain.ancestors(type_name):
            if t in self.spec.type_names:
                return self.spec.type_names[t].format(name=obj, words=ph.split_words(obj), base=base or obj)
        if base:  # iGibson-style instance names: hardback_1 -> "the hardback"
            return f"the {base}" if base in self._unique_base else ph.split_words(obj)  # "toy 2"
        return obj

    def display_name(self, obj: str) -> str:
        """How an object is named in questions ("the red block", "the hardback", "toy 2", "c1")."""
        try:
            return self._display[obj]
        except KeyError:
            raise UnknownSymbolError("object", obj, self.task.objects) from None

    def kind(self, obj: str) -> str:
        """The words for what ``obj`` is: its type, or in an untyped domain its type predicate ("car")."""
        return ph.split_words(self._kind.get(obj) or self.task.objects[obj])

    def _typed(self, obj: str, article: str = "") -> str:
        """The display name, prefixed with its type word when it is a bare name ("block a", "the car c0")."""
        shown = self.display_name(obj)
        if ph.is_phrase(shown):
            return shown
        type_words = self.kind(obj)
        if type_words == "object" or type_words in ph.split_words(obj) or ph.instance_base(obj):
            return shown
        return f"{article}{type_words} {shown}"

    # ---------------------------------------------------------- questions

    def has_template(self, predicate: str) -> bool:
        return predicate in self.spec.questions

    def question(self, atom: Atom) -> str:
        """The yes/no question for a ground atom, ending in exactly one question mark."""
        hit = self._questions.get(atom)
        if hit is None:
            hit = self._questions[atom] = self._make_question(atom)
        return hit

    def _make_question(self, atom: Atom) -> str:
        pred = self.task.domain.predicates.get(atom.predicate)
        if pred is None:
            raise UnknownSymbolError("predicate", atom.predicate, self.task.domain.predicates)
        args = list(atom.args)
        template = self.spec.questions.get(pred.name)
        if template is not None:
            text = template.render([self.display_name(a) for a in args], args)
            return ph.as_question(ph.capitalize_first(text))
        return self.fallback_question(atom)

    def phrasings(self, atom: Atom) -> tuple[str, ...]:
        """Every distinct way to ask about ``atom``: :meth:`question` first, then the file's
        other phrasings, then the fallback written from the predicate's comment or name.

        Agents that want a second opinion from a deterministic (temperature-0) grounder
        ask a different wording: the same wording about the same image gets the same answer.

        >>> from toolkit.domains import shipped_domain, shipped_problem
        >>> from toolkit.task import load_task
        >>> book = QuestionBook(load_task(shipped_domain("blocksworld"), shipped_problem("blocksworld", "simple_problem_0")))
        >>> book.phrasings(Atom("clear", ("r",)))[:2]
        ('Is the red block the topmost of its column?', 'Is there no block on top of the red block?')
        """
        hit = self._phrasings.get(atom)
        if hit is None and not self.has_template(atom.predicate) and atom.predicate in self.task.domain.predicates:
            hit = self._phrasings[atom] = self.fallback_phrasings(atom)
        if hit is None:
            texts = [self.question(atom)]
            templates = self.spec.phrasings.get(atom.predicate, ())
            if templates:
                shown = [self.display_name(a) for a in atom.args]
                texts += [ph.as_question(ph.capitalize_first(t.render(shown, list(atom.args)))) for t in templates[1:]]
            if atom.predicate in self.task.domain.predicates:
                texts.append(self.fallback_question(atom))
            hit = self._phrasings[atom] = tuple(dict.fromkeys(texts))
        return hit

    def fallback_question(self, atom: Atom) -> str:
        """The question written without a template: from the ``;;`` comment, else from the name."""
        return self.fallback_phrasings(atom)[0]

    def fallback_phrasings(self, atom: Atom) -> tuple[str, ...]:
        """Three wordings of ``atom`` without a template, the first being :meth:`fallback_question`'s.

        From the predicate's ``;;`` comment when it names every argument, else from
        its name split into words, the objects named with their type ("Is the car c0
        at the location l1?"; in an untyped domain the type is the object's type
        predicate). Three, because a temperature-0 grounder answers one wording the
        same way every time: an agent that wants a second opinion needs another one.
        """
        pred = self.task.domain.predicates[atom.predicate]
        shown = [self.display_name(a) for a in atom.args]
        if pred.comment:
            filled = ph.fill_comment(
                pred.comment, [v.lstrip("?") for v, _ in pred.params], [t[0] for _, t in pred.params],
                shown, [ph.is_phrase(s) for s in shown])
            if filled is not None:
                return (ph.capitalize_first(ph.statement_to_question(filled)),
                        ph.as_question(f"Is it true that {filled}"),
                        ph.as_question(f"Looking at the picture, would you say that {filled}"))
        words = ph.split_words(pred.name)
        args = [self._typed(a, "the ") for a in atom.args]
        kinds = [self.kind(a) for a in atom.args]
        return ph.name_phrasings(words, args, kinds, shown, noun=self._is_kind_predicate(pred.name))

    def _is_kind_predicate(self, predicate: str) -> bool:
        """True for a one-argument predicate that names a kind of thing: an untyped domain's type
        predicate (``airplane``), or a predicate named like one of the domain's types."""
        if self._kind_predicates is None:
            from toolkit.known_facts import type_predicates

            domain = self.task.domain
            type_words = {ph.split_words(t) for t in domain.types} - {"object"}
            self._kind_predicates = frozenset(
                p.name for p in domain.predicates.values()
                if len(p.params) == 1 and (p.name in type_predicates(domain) or ph.split_words(p.name) in type_words))
        return predicate in self._kind_predicates

    def atom_for_question(self, text: str) -> Atom | None:
        """The atom whose question is ``text`` (quotes, case and spacing ignored), if any."""
        if self._by_question is None:
            self._by_question = {_normalize(self.question(a)).rstrip("?"): a for a in self.task.reachable_atoms()}
        key = _normalize(text).rstrip("?").strip()
        hit = self._by_question.get(key)
        if hit is None and not self._all_asked:
            # the ViPlan protocol asks every type-correct atom, (on r r) included: read those on the first miss
            self._all_asked = True
            for atom in self.task.all_atoms():
                self._by_question.setdefault(_normalize(self.question(atom)).rstrip("?"), atom)
            hit = self._by_question.get(key)
        return hit

    # ------------------------------------------------------------ actions

    def action_text(self, action: GroundAction) -> str:
        """An action in words, e.g. "move the red block to column c2"."""
        return self.language.render(action.name, action.args)

    @property
    def language(self) -> ActionLanguage:
        """The reader and writer of action sentences (built on first use)."""
        if self._language is None:
            phrases: dict[str, list[str]] = {}
            bases: dict[str, list[str]] = {}
            for obj, type_name in self.task.objects.items():
                phrases[obj] = [*self._extra.get(obj, ()), obj, self.display_name(obj), self._typed(obj),
                                f"{ph.split_words(type_name)} {obj}", ph.split_words(obj)]
                base = ph.instance_base(obj)
                if base:  # "the bowl" names every bowl_N: ambiguous when there are several
                    bases.setdefault(base, []).append(obj)
            for base, objs in bases.items():
                for obj in objs:
                    phrases[obj].append(base)
            for obj, extra in _description_parts(phrases, {o: (*self._extra.get(o, ()), self.display_name(o))
                                                           for o in self.task.objects}).items():
                phrases[obj].extend(extra)
            self._language = ActionLanguage(self.task, self.spec.actions, self._display, phrases, self.spec.synonyms)
        return self._language

    def parse_action_text(self, text: str) -> tuple[str, tuple[str, ...]] | None:
        """Parse action text back to ``(action name, object names)``; None if it fits no template or is ambiguous."""
        hit = self.language.parse(text)
        return (hit.name, hit.args) if hit is not None and not hit.ambiguous else None


def _object_kinds(task: Task) -> dict[str, str]:
    """In an untyped domain, each object's type predicate true in the problem (``c0`` -> ``car``)."""
    from toolkit.known_facts import type_predicates

    kinds = type_predicates(task.domain)
    out: dict[str, str] = {}
    for atom in sorted(task.init):
        if atom.predicate in kinds and atom.args and atom.args[0] not in out:
            out[atom.args[0]] = atom.predicate
    return out


def _description_parts(phrases: Mapping[str, Sequence[str]],
                       descriptions: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """More names for objects described in words ("the red block"), the way models shorten them.

    * the description's head noun and the object's name: "block c" (PlanBench's untyped
      Blocksworld has no type word to say it with);
    * the distinctive rest of the description, when no other object has it: "red" for
      "the red block" (a red block and a red ball: neither).

    Only descriptions of two or more words, all alphabetic, count ("object a" names the
    object itself and "package_0" is a name, not a description); a part that already
    names another object is left out, so no name becomes ambiguous.
    """
    from toolkit.action_language import ARTICLES, tokens

    taken: dict[str, set[str]] = {}
    for obj, names in phrases.items():
        for phrase in names:
            taken.setdefault(" ".join(w for w in tokens(phrase) if w not in ARTICLES), set()).add(obj)
    heads: dict[str, set[str]] = {}
    rests: dict[str, set[str]] = {}
    for obj, texts in descriptions.items():
        for text in texts:
            words = [w for w in tokens(text) if w not in ARTICLES]
            if len(words) < 2 or not all(w.isalpha() for w in words) or obj.lower() in words:
                continue
            heads.setdefault(f"{words[-1]} {obj.lower()}", set()).add(obj)
            rests.setdefault(" ".join(words[:-1]), set()).add(obj)
    out: dict[str, list[str]] = {}
    for table in (heads, rests):
        for phrase, objs in table.items():
            if len(objs) == 1 and taken.get(phrase, objs) == objs:
                out.setdefault(next(iter(objs)), []).append(phrase)
    return out

