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

from toolkit import phrasing as ph
from toolkit.errors import UnknownSymbolError
from toolkit.model import Atom
from toolkit.question_file import QuestionSpec, find_question_file, load_question_spec, parse_template
from toolkit.task import GroundAction, Task

_NORMALIZE = re.compile(r"[\"'`“”‘’]")
_LEADING_ARTICLE = re.compile(r"^(?:the|a|an)\s+")


def _normalize(text: str) -> str:
    """Lower case, no quotes, single spaces, no trailing full stop."""
    return " ".join(_NORMALIZE.sub("", text).lower().split()).rstrip(".!").strip()


class QuestionBook:
    """Questions and action texts for one task.

    Args:
        task: the task whose objects and predicates are phrased.
        spec: templates to use; by default the domain's ``questions.toml`` (if any).
    """

    def __init__(self, task: Task, spec: QuestionSpec | None = None) -> None:
        self.task = task
        if spec is None:
            found = find_question_file(task.domain)
            spec = load_question_spec(found, task.domain) if found else QuestionSpec()
        self.spec = spec
        bases = Counter(ph.instance_base(o) for o in task.objects)
        self._unique_base = {b for b, n in bases.items() if b and n == 1}
        self._display: dict[str, str] = {o: self._make_display(o) for o in task.objects}
        self._questions: dict[Atom, str] = {}
        self._by_question: dict[str, Atom] | None = None
        self._action_patterns: list[tuple[str, re.Pattern[str], list[dict[str, str]]]] | None = None

    # ------------------------------------------------------------ objects

    @property
    def prompt_style(self) -> str:
        return self.spec.prompt_style

    @property
    def scene(self) -> str:
        return self.spec.scene

    def _make_display(self, obj: str) -> str:
        if obj in self.spec.object_names:
            return self.spec.object_names[obj]
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

    def _typed(self, obj: str) -> str:
        """The display name, prefixed with its type word when it is a bare name ("block a")."""
        shown = self.display_name(obj)
        if ph.is_phrase(shown):
            return shown
        type_words = ph.split_words(self.task.objects[obj])
        if type_words == "object" or type_words in ph.split_words(obj) or ph.instance_base(obj):
            return shown
        return f"{type_words} {shown}"

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

    def fallback_question(self, atom: Atom) -> str:
        """The question written without a template: from the ``;;`` comment, else from the name."""
        pred = self.task.domain.predicates[atom.predicate]
        shown = [self.display_name(a) for a in atom.args]
        if pred.comment:
            filled = ph.fill_comment(
                pred.comment, [v.lstrip("?") for v, _ in pred.params], [t[0] for _, t in pred.params],
                shown, [ph.is_phrase(s) for s in shown])
            if filled is not None:
                return ph.capitalize_first(ph.statement_to_question(filled))
        return ph.name_question(ph.split_words(pred.name), [self._typed(a) for a in atom.args])

    def atom_for_question(self, text: str) -> Atom | None:
        """The atom whose question is ``text`` (quotes, case and spacing ignored), if any."""
        if self._by_question is None:
            self._by_question = {_normalize(self.question(a)).rstrip("?"): a for a in self.task.reachable_atoms()}
        return self._by_question.get(_normalize(text).rstrip("?").strip())

    # ------------------------------------------------------------ actions

    def action_text(self, action: GroundAction) -> str:
        """An action in words, e.g. "move the red block to column c2"."""
        template = self.spec.actions.get(action.name)
        args = list(action.args)
        if template is not None:
            return template.render([self.display_name(a) for a in args], args)
        words = ph.split_words(action.name)
        return " ".join([words, *(self._typed(a) for a in args)])

    def _patterns(self) -> list[tuple[str, re.Pattern[str], list[dict[str, str]]]]:
        if self._action_patterns is not None:
            return self._action_patterns
        out = []
        for name, schema in self.task.domain.actions.items():
            template = self.spec.actions.get(name)
            if template is None:  # the fallback text, as a template
                spec = " ".join([ph.split_words(name), *(f"{{{i}}}" for i in range(schema.arity))])
                template = parse_template(spec, schema.params, "<fallback>", name)
            regex, aliases = [], []
            for part in template.parts:
                if isinstance(part, str):
                    words = _normalize(part).split()
                    regex.append(r"\s*" + r"\s+".join(map(re.escape, words)) + r"\s*" if words else r"\s*")
                    continue
                table = self._aliases(schema.params[part.index][1], part.raw)
                group = f"s{len(aliases)}"
                choices = "|".join(re.escape(a) for a in sorted(table, key=len, reverse=True))
                regex.append(f"(?:(?:the|a|an)\\s+)?(?P<{group}>{choices})")
                aliases.append(table)
            out.append((name, re.compile(r"\s*" + "".join(regex) + r"\s*$"), aliases))
        self._action_patterns = out
        return out

    def _aliases(self, types: tuple[str, ...], raw: bool) -> dict[str, str]:
        table: dict[str, str] = {}
        for obj in self.task.objects_of(types):
            names = [obj] if raw else [obj, self.display_name(obj), self._typed(obj),
                                      f"{ph.split_words(self.task.objects[obj])} {obj}", ph.split_words(obj)]
            for n in names:
                table.setdefault(_LEADING_ARTICLE.sub("", _normalize(n)), obj)
        return table

    def parse_action_text(self, text: str) -> tuple[str, tuple[str, ...]] | None:
        """Parse action text back to ``(action name, object names)``; None if it fits no template."""
        norm = _normalize(text)
        for name, pattern, aliases in self._patterns():
            hit = pattern.match(norm)
            if hit:
                return name, tuple(aliases[i][hit.group(f"s{i}")] for i in range(len(aliases)))
        return None
