"""Reading and validating a domain's ``questions.toml``.

Question templates are data that lives beside each domain, so a typo in them must
be caught when the file is loaded, not in the middle of a paid VLM run. Every
error names the file and the TOML key (``questions.toml: [questions].on: ...``).

File format (all sections optional)::

    prompt_style = "viplan-bw"            # a prompt set known to the VLM grounder
    scene = "Blocks stacked in columns."  # scene description for generic prompts

    [display.types]                       # how objects of a type are named
    column = 'the column labeled "{name}"'   # {name} raw, {words} spaced, {base} no suffix

    [display.objects]                     # per-object names win over type names
    r = "the red block"

    [questions]                           # a yes/no question per predicate
    on = "Is {b1} on top of {b2}?"        # {b1} (variable name) or {0} (index)
    clear = ["Is {b} clear?", "Is nothing on {b}?"]   # several phrasings: the first is
                                          # the canonical one, the others are asked
                                          # when an agent wants a second opinion

    [actions]                             # natural-language action text, read back too
    moveBlock = "move {b1} to column {c1.name}"   # {x.name}: the raw object name

    [synonyms]                            # extra words plans may use (see toolkit.action_language)
    move = ["shift", "put"]               # canonical word or phrase = its alternatives

Per-problem object descriptions (``pgt validate --objects FILE``) are a separate,
smaller TOML file: ``a = "the red block"`` or ``a = ["the red block", "red"]`` (the
first description is used when writing, all are read), object names as keys.
"""

from __future__ import annotations

import string
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolkit import model as m
from toolkit.errors import PgtError, closest

TYPE_FIELDS = ("name", "words", "base")


class QuestionTemplateError(PgtError):
    """A bad ``questions.toml``: located by file and TOML key."""

    def __init__(self, path: str, key: str, detail: str) -> None:
        self.path, self.key, self.detail = path, key, detail
        super().__init__(f"{path}: {key}: {detail}")


@dataclass(frozen=True)
class Slot:
    """A placeholder in a template: which argument, and whether to print its raw name."""

    index: int
    raw: bool = False


@dataclass(frozen=True)
class Template:
    """A parsed template: literal text and slots, alternating."""

    text: str
    parts: tuple[str | Slot, ...]

    def render(self, displays: list[str], names: list[str]) -> str:
        out = []
        for part in self.parts:
            if isinstance(part, Slot):
                out.append(names[part.index] if part.raw else displays[part.index])
            else:
                out.append(part)
        return "".join(out)


@dataclass(frozen=True)
class QuestionSpec:
    """The validated contents of a ``questions.toml`` (empty for a domain without one)."""

    path: str = ""
    prompt_style: str = ""
    scene: str = ""
    type_names: dict[str, str] = field(default_factory=dict)
    object_names: dict[str, str] = field(default_factory=dict)
    questions: dict[str, Template] = field(default_factory=dict)  # canonical predicate name -> template
    actions: dict[str, Template] = field(default_factory=dict)  # canonical action name -> template
    synonyms: dict[str, tuple[str, ...]] = field(default_factory=dict)  # canonical phrase -> alternatives
    # predicate -> every phrasing, the canonical template first (a single-string entry has one)
    phrasings: dict[str, tuple[Template, ...]] = field(default_factory=dict)


def parse_template(text: str, params: tuple[m.Param, ...], path: str, key: str,
                   require_all: bool = True) -> Template:
    """Parse ``{var}``, ``{var.name}`` and ``{0}`` placeholders against a parameter list."""
    variables = [var.lstrip("?") for var, _ in params]
    lowered = {v.lower(): i for i, v in enumerate(variables)}
    parts: list[str | Slot] = []
    used: set[int] = set()
    try:
        pieces = list(string.Formatter().parse(text))
    except ValueError as exc:
        raise QuestionTemplateError(path, key, f"bad template {text!r}: {exc}") from None
    for literal, field_name, spec, conversion in pieces:
        if literal:
            parts.append(literal)
        if field_name is None:
            continue
        if spec or conversion:
            raise QuestionTemplateError(path, key, f"placeholder {{{field_name}}} may not use ':' or '!'")
        base, _, attr = field_name.partition(".")
        if attr not in ("", "name"):
            raise QuestionTemplateError(path, key, f"placeholder {{{field_name}}}: only '.name' is allowed after a variable")
        if base.isdigit():
            index = int(base)
            if index >= len(variables):
                raise QuestionTemplateError(path, key, f"placeholder {{{base}}} is out of range: "
                                            f"{key.rsplit('.', 1)[-1]} takes {len(variables)} argument(s)")
        elif base.lower().lstrip("?") in lowered:
            index = lowered[base.lower().lstrip("?")]
        else:
            hint = closest(base, variables)
            tip = f"; did you mean {{{hint[0]}}}?" if hint else ""
            known = ", ".join(f"{{{v}}}" for v in variables) or "none"
            raise QuestionTemplateError(path, key, f"unknown placeholder {{{base}}} (arguments: {known}){tip}")
        used.add(index)
        parts.append(Slot(index, raw=bool(attr)))
    missing = [f"{{{variables[i]}}}" for i in range(len(variables)) if i not in used]
    if require_all and missing:
        raise QuestionTemplateError(path, key, f"template {text!r} does not mention {', '.join(missing)}")
    return Template(text, tuple(parts))


def _table(data: dict[str, Any], key: str, path: str) -> dict[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise QuestionTemplateError(path, key, "must be a table")
    return value


def _string(value: Any, path: str, key: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise QuestionTemplateError(path, key, f"must be a non-empty string, got {value!r}")
    return value


def _phrasing_texts(value: Any, path: str, key: str) -> list[tuple[str, str]]:
    """A question entry as (TOML key, text) pairs: one string, or a non-empty list of distinct strings."""
    if not isinstance(value, list):
        return [(key, _string(value, path, key))]
    if not value:
        raise QuestionTemplateError(path, key, "an empty list of phrasings; give at least one question")
    out = [(f"{key}[{i}]", _string(v, path, f"{key}[{i}]")) for i, v in enumerate(value)]
    seen: set[str] = set()
    for k, text in out:
        if text in seen:
            raise QuestionTemplateError(path, k, f"phrasing {text!r} is listed twice")
        seen.add(text)
    return out


def _resolve(name: str, known: dict[str, Any], kind: str, path: str, key: str) -> str:
    hit = {k.lower(): k for k in known}.get(name.lower())
    if hit is None:
        hint = closest(name, known)
        tip = f"; did you mean {', '.join(hint)}?" if hint else ""
        raise QuestionTemplateError(path, key, f"unknown {kind} '{name}'{tip}")
    return hit


def load_question_spec(path: str | Path, domain: m.Domain) -> QuestionSpec:
    """Load and validate a ``questions.toml`` against a domain.

    Raises:
        QuestionTemplateError: unreadable TOML, unknown predicates, actions, types or
            placeholders, or a template that leaves an argument out.
    """
    where = str(path)
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise QuestionTemplateError(where, "<file>", f"cannot read: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise QuestionTemplateError(where, "<toml>", str(exc)) from None
    unknown = sorted(set(data) - {"prompt_style", "scene", "display", "questions", "actions", "synonyms"})
    if unknown:
        raise QuestionTemplateError(where, unknown[0], "unknown section or key (known: prompt_style, scene, "
                                    "display, questions, actions, synonyms)")
    display = _table(data, "display", where)
    type_names: dict[str, str] = {}
    known_types = {**{t: t for t in domain.types}, "object": "object"}
    for tname, text in _table(display, "types", where).items():
        key = f"[display.types].{tname}"
        canon = _resolve(tname, known_types, "type", where, key)
        for _, fname, _, _ in string.Formatter().parse(_string(text, where, key)):
            if fname is not None and fname not in TYPE_FIELDS:
                raise QuestionTemplateError(where, key, f"unknown placeholder {{{fname}}} "
                                            f"(use {', '.join('{' + f + '}' for f in TYPE_FIELDS)})")
        type_names[canon] = text
    object_names = {o: _string(t, where, f"[display.objects].{o}")
                    for o, t in _table(display, "objects", where).items()}
    phrasings: dict[str, tuple[Template, ...]] = {}
    for pname, value in _table(data, "questions", where).items():
        key = f"[questions].{pname}"
        canon = _resolve(pname, domain.predicates, "predicate", where, key)
        texts = _phrasing_texts(value, where, key)
        phrasings[canon] = tuple(parse_template(text, domain.predicates[canon].params, where, k)
                                 for k, text in texts)
    questions = {name: templates[0] for name, templates in phrasings.items()}
    actions = {}
    for aname, text in _table(data, "actions", where).items():
        key = f"[actions].{aname}"
        canon = _resolve(aname, domain.actions, "action", where, key)
        actions[canon] = parse_template(_string(text, where, key), domain.actions[canon].params, where, key)
    synonyms = {canon: _phrases(alts, where, f"[synonyms].{canon}")
                for canon, alts in _table(data, "synonyms", where).items()}
    return QuestionSpec(where, str(data.get("prompt_style", "")), str(data.get("scene", "")),
                        type_names, object_names, questions, actions, synonyms, phrasings)


_SPECS: dict[tuple[str, int, int, int], tuple[m.Domain, QuestionSpec]] = {}
_SPECS_KEPT = 32


def cached_question_spec(path: str | Path, domain: m.Domain) -> QuestionSpec:
    """:func:`load_question_spec`, parsed once per file version and domain object in this process.

    A study builds a question book per episode; parsing and validating the TOML each
    time was a tenth of an oracle episode. The file's size and mtime are part of the
    key, so an edited file is read again; the domain is kept with the entry, so its
    ``id`` cannot be reused by another domain while the entry lives.
    """
    stat = Path(path).stat()
    key = (str(path), stat.st_mtime_ns, stat.st_size, id(domain))
    hit = _SPECS.get(key)
    if hit is not None and hit[0] is domain:
        return hit[1]
    spec = load_question_spec(path, domain)
    if len(_SPECS) >= _SPECS_KEPT:
        del _SPECS[next(iter(_SPECS))]  # the oldest
    _SPECS[key] = (domain, spec)
    return spec


def _phrases(value: Any, path: str, key: str) -> tuple[str, ...]:
    """A string or a non-empty list of strings, as a tuple."""
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items:
        raise QuestionTemplateError(path, key, f"must be a string or a non-empty list of strings, got {value!r}")
    return tuple(_string(v, path, key) for v in items)


def load_object_descriptions(path: str | Path, objects: dict[str, str],
                             lacking: list[str] | None = None) -> dict[str, tuple[str, ...]]:
    """A per-problem object description file: object name -> descriptions (first = how it is written).

    One file may serve a whole corpus (PlanBench names blocks a to l; a problem has four of
    them): names the problem lacks are left out and appended to ``lacking`` (for one note).
    A file that names none of the problem's objects is for another problem, or misspelt:
    its first name is an unknown-object error with a did-you-mean.

    Raises:
        QuestionTemplateError: unreadable TOML, no known object, or a value that is not text.
    """
    where = str(path)
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError) as exc:
        raise QuestionTemplateError(where, "<file>", f"cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise QuestionTemplateError(where, "<toml>", str(exc)) from None
    known = {o.lower(): o for o in objects}
    out: dict[str, tuple[str, ...]] = {}
    unknown: list[str] = []
    for name, value in data.items():
        phrases = _phrases(value, where, name)
        obj = known.get(name.lower())
        if obj is None:
            unknown.append(name)
        else:
            out[obj] = phrases
    if unknown and not out:
        name = unknown[0]
        hint = closest(name, objects)
        tip = f"; did you mean {', '.join(hint)}?" if hint else ""
        raise QuestionTemplateError(where, name, f"unknown object '{name}'{tip} (the file names none of the "
                                    "problem's objects)")
    if lacking is not None:
        lacking.extend(unknown)
    return out


def lacking_note(path: str | Path, lacking: list[str]) -> str:
    """The one note about the objects a descriptions file names and the problem lacks ("" if none)."""
    if not lacking:
        return ""
    shown = ", ".join(lacking[:8]) + (", ..." if len(lacking) > 8 else "")
    return (f"{Path(path).name} names {len(lacking)} object{'s' if len(lacking) != 1 else ''} this problem "
            f"lacks ({shown}): ignored")


def find_question_file(domain: m.Domain) -> Path | None:
    """The ``questions.toml`` beside a domain file, if there is one."""
    if not domain.path or domain.path.startswith("<"):
        return None
    candidate = Path(domain.path).resolve().parent / "questions.toml"
    if candidate.is_file():
        return candidate
    twin = twin_file(domain, "questions.toml")
    if twin is None:
        return None
    # A twin shares predicate and action names and arities, not parameter names: IPC's logistics names its
    # load-truck parameters differently from the shipped logistics, whose file says {pkg}. A file the user
    # never wrote must not stop their study; their domain gets the fallback wording instead.
    try:
        load_question_spec(twin, domain)
    except QuestionTemplateError:
        return None
    return twin


def twin_file(domain: m.Domain, name: str) -> Path | None:
    """``name`` beside the shipped domain this file copies (ViPlan's own domain files), if any."""
    from toolkit.domains import domain_dir, shipped_twin

    twin = shipped_twin(domain)
    candidate = domain_dir(twin) / name if twin else None
    return candidate if candidate is not None and candidate.is_file() else None
