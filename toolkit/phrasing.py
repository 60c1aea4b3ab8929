"""Fallback English for predicates and objects that have no template.

Every domain gets questions, even one written five minutes ago: the predicate
name is split into words (``inColumn`` -> "in column", ``at-robby`` -> "at
robby"), and the domain's ``;;`` comment on the predicate, when there is one, is
turned from a statement into a yes/no question ("block b is clear" -> "Is block a
clear?"). The rules are deliberately simple and predictable; a domain that needs
better English ships a ``questions.toml`` (see :mod:`toolkit.questions`).
"""

from __future__ import annotations

import re

from toolkit.relation_words import binary_phrasing

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SUFFIX = re.compile(r"^(?P<base>[A-Za-z][A-Za-z_]*?)_(?P<num>\d+)$")
_ARTICLES = ("the ", "a ", "an ")


def split_words(name: str) -> str:
    """Split a camelCase, snake_case or kebab-case name into lower-case words.

    >>> split_words("inColumn"), split_words("at-robby"), split_words("toy_box_1")
    ('in column', 'at robby', 'toy box 1')
    """
    spaced = _CAMEL.sub(" ", name).replace("_", " ").replace("-", " ")
    return " ".join(spaced.lower().split())


def instance_base(name: str) -> str | None:
    """The base of an iGibson-style instance name (``gym_shoe_1`` -> ``gym shoe``), else None.

    >>> instance_base("gym_shoe_1"), instance_base("c1")
    ('gym shoe', None)
    """
    hit = _SUFFIX.match(name)
    return split_words(hit.group("base")) if hit else None


def is_phrase(display: str) -> bool:
    """True if a display name already reads as a noun phrase ("the red block")."""
    return display.lower().startswith(_ARTICLES)


def capitalize_first(text: str) -> str:
    """Upper-case the first character only (``str.capitalize`` would lower the rest)."""
    return text[:1].upper() + text[1:] if text else text


def as_question(text: str) -> str:
    """Ensure exactly one trailing question mark.

    >>> as_question("Is a clear."), as_question("Is a clear??")
    ('Is a clear?', 'Is a clear?')
    """
    return text.rstrip().rstrip(".?!").rstrip() + "?"


def statement_to_question(statement: str) -> str:
    """Turn "X is Y" into "Is X Y?", "X has Y" into "Does X have Y?", else "Is it true that ...?".

    Only the first "is"/"are" moves, so parenthesised remarks keep their verbs.

    >>> statement_to_question("block a is clear (i.e., nothing is on top of it)")
    'Is block a clear (i.e., nothing is on top of it)?'
    >>> statement_to_question("passenger p0 has arrived")
    'Has passenger p0 arrived?'
    >>> statement_to_question("gripper left holds nothing")
    'Is it true that gripper left holds nothing?'
    """
    text = statement.strip().rstrip(".")
    hit = re.search(r"\b(is|are)\b", text)
    if hit and hit.start() > 0 and text[: hit.start()].count("(") == 0:
        subject = text[: hit.start()].strip()
        rest = text[hit.end():].strip()
        return as_question(f"{hit.group(1).capitalize()} {subject} {rest}")
    hit = re.search(r"\b(has|have)\b", text)
    if hit and hit.start() > 0:
        subject = text[: hit.start()].strip()
        rest = text[hit.end():].strip()
        first = rest.split(" ", 1)[0]
        if first.endswith(("ed", "en")):  # present perfect: "p has arrived" -> "Has p arrived?"
            return as_question(f"{hit.group(1).capitalize()} {subject} {rest}")
        aux = "Does" if hit.group(1) == "has" else "Do"
        return as_question(f"{aux} {subject} have {rest}")
    return as_question(f"Is it true that {text}")


def fill_comment(comment: str, variables: list[str], types: list[str], phrases: list[str],
                 is_np: list[bool]) -> str | None:
    """Substitute arguments into a predicate comment; None if a variable is not mentioned.

    ``"block b1 is on block b2"`` with noun phrases ("the red block") loses the type
    word ("the red block is on ..."); with bare names it keeps it ("block a is on ...").
    """
    text = comment
    placeholders: dict[str, str] = {}
    for i, (var, type_name, phrase, np_) in enumerate(zip(variables, types, phrases, is_np)):
        type_words = re.escape(split_words(type_name)) if type_name != "object" else "object"
        pattern = re.compile(rf"\b(?:(?:{type_words}|object)\s+)*(?:object\s+)?{re.escape(var)}\b"
                             if np_ else rf"\b{re.escape(var)}\b", re.IGNORECASE if np_ else 0)
        token = f"\x00{i}\x00"
        text, count = pattern.subn(token, text)
        if count == 0:
            return None
        placeholders[token] = phrase
    for token, phrase in placeholders.items():
        text = text.replace(token, phrase)
    return text


_PREPOSITIONS = frozenset({"at", "in", "on", "near", "inside", "under", "above", "below", "beside", "by"})


def name_question(words: str, args: list[str]) -> str:
    """A question from the predicate's words alone (no comment, no template).

    >>> name_question("in column", ["block a", "column c1"])
    'Is block a in column c1?'
    >>> name_question("clear", ["block a"])
    'Is block a clear?'
    >>> name_question("robot at", ["location pantry"])  # LLM+P's (robot-at ?l)
    'Is the robot at location pantry?'
    """
    if words.startswith(("is ", "are ")):  # is_red -> "Is block a red?"
        words = words.split(" ", 1)[1]
    if not args:
        return as_question(f"Is it the case that {words}")
    head = words.split()
    if len(args) == 1 and len(head) > 1 and head[-1] in _PREPOSITIONS:
        # robot-at names its subject, and its one argument is where: not "Is pantry robot at?"
        return as_question(f"Is the {' '.join(head[:-1])} {head[-1]} {args[0]}")
    if len(args) == 1:
        return as_question(f"Is {args[0]} {words}")
    if len(args) == 2:
        head = words.split()
        if len(head) > 1 and args[1].split()[0].lower() == head[-1]:
            head = head[:-1]  # "in column" + "column c1" -> "in column c1"
        return as_question(binary_phrasing(head, args[0], args[1], args[1])[0])
    listed = ", ".join(args[:-1]) + f" and {args[-1]}"
    return as_question(f'Does "{words}" hold for {listed}')


_AN_EXCEPTIONS = ("uni", "use", "usu", "one", "once", "eu")  # vowel letters that sound like "you"/"won"
_AN_SILENT_H = ("hour", "honest", "honor", "honour", "heir")


def with_article(noun: str) -> str:
    """``noun`` after "a" or "an" by its first sound, as far as spelling tells it.

    >>> with_article("airplane"), with_article("truck"), with_article("unit"), with_article("hour glass")
    ('an airplane', 'a truck', 'a unit', 'an hour glass')
    """
    low = noun.lower()
    vowel = low[:1] in "aeiou" and not low.startswith(_AN_EXCEPTIONS)
    return f"{'an' if vowel or low.startswith(_AN_SILENT_H) else 'a'} {noun}"


def _takes_no_article(word: str) -> bool:
    """True for a kind word that reads without "a": adjectives (``locatable``, ``painted``) and plurals (``chips``)."""
    adjective = word.endswith(("able", "ible", "ed", "ing"))
    plural = word.endswith("s") and not word.endswith(("ss", "us", "is", "ys"))
    return adjective or plural


def _unary_phrasings(words: str, arg: str, bare: str, noun: bool) -> tuple[str, str] | None:
    """(question, statement) for a one-argument predicate whose words alone would not read, else None.

    A noun (a type predicate of an untyped domain, or a predicate named like a type)
    says what the object is: "Is apn1 an airplane?", with the bare name, since "the
    airplane apn1" would name the kind twice. Words that end in a preposition and
    name no subject (``(at ?x)``) cannot be turned into English without knowing who
    is at ``?x``, so they are asked neutrally and literally: 'Does "at" hold for p1?'.
    """
    head = words.split()
    if noun:
        kind = words if _takes_no_article(head[-1]) else with_article(words)
        return f"Is {bare} {kind}", f"{bare} is {kind}"
    if head and head[-1] in _PREPOSITIONS and len(head) == 1:
        return f'Does "{words}" hold for {arg}', f'"{words}" holds for {arg}'
    return None


def name_phrasings(words: str, args: list[str], kinds: list[str], bare: list[str] | None = None,
                   noun: bool = False) -> tuple[str, str, str]:
    """Three questions from the predicate's words, the objects (with their type) and their type words.

    Words that repeat an argument's type are dropped (``item-at`` of an item: "at";
    ``inColumn`` of a column: "in"), so the question names each thing once. When
    the words end in a noun rather than a preposition ("in column"), the second
    object follows by its ``bare`` name: "in column c1", not "in column the block c1".

    >>> name_phrasings("item at", ["the item box1", "the location dock"], ["item", "location"])[0]
    'Is the item box1 at the location dock?'
    >>> name_phrasings("at", ["the car c0", "the location l1"], ["car", "location"])[1]
    'Is it true that the car c0 is at the location l1?'
    >>> name_phrasings("has fuel", ["the plane p1"], ["plane"])[0]
    'Does the plane p1 have fuel?'

    ``noun`` marks a predicate that says what its one argument is (a type predicate
    of an untyped domain): it is asked with an article and the bare name.

    >>> name_phrasings("airplane", ["the airplane apn1"], ["airplane"], ["apn1"], noun=True)[0]
    'Is apn1 an airplane?'
    >>> name_phrasings("at", ["p1"], ["object"], ["p1"])[0]
    'Does "at" hold for p1?'
    """
    if words.startswith(("is ", "are ")):  # is_red -> "Is block a red?"
        words = words.split(" ", 1)[1]
    if len(args) == 1:
        unary = _unary_phrasings(words, args[0], (bare or args)[0], noun)
        if unary is not None:
            main, statement = unary
            return (as_question(main), as_question(f"Is it true that {statement}"),
                    as_question(f"Looking at the picture, would you say that {statement}"))
    head = words.split()
    if args and kinds[0] and len(head) > 1 and " ".join(head[:len(kinds[0].split())]) == kinds[0]:
        head = head[len(kinds[0].split()):]  # item-at ?i - item: "at"
    if len(args) == 2 and kinds[1] and len(head) > 1 and head[-1] == kinds[1].split()[-1]:
        head = head[:-1]  # in-column ?c - column: "in"
    if len(args) == 1 and kinds[0] and len(head) > 1 and head[-1] in kinds[0].split():
        head = head[:-1]  # available-color ?c - color: "Is the color black available?"
    words = " ".join(head)
    typed_second = args[1] if len(args) == 2 else ""
    if len(args) == 2 and bare and head and head[-1] not in _PREPOSITIONS and head[0] not in ("has", "have"):
        args = [args[0], bare[1]]
    if not args:
        main, statement = as_question(f"Is it the case that {words}"), words
    elif head and head[0] in ("has", "have") and len(args) <= 2:
        rest = " ".join([*head[1:], *args[1:]])
        main = as_question(f"Does {args[0]} have {rest}")
        statement = f"{args[0]} has {rest}"
    elif len(args) == 1 and len(head) > 1 and head[-1] in _PREPOSITIONS:
        subject = f"the {' '.join(head[:-1])}"  # robot-at ?l: the robot is at the place
        main = as_question(f"Is {subject} {head[-1]} {args[0]}")
        statement = f"{subject} is {head[-1]} {args[0]}"
    elif len(args) == 2 and head:
        question, statement = binary_phrasing(head, args[0], typed_second, args[1])
        main = as_question(question)
    elif len(args) <= 2:
        main = as_question(f"Is {' '.join([args[0], words, *args[1:]])}")
        statement = " ".join([args[0], "is", words, *args[1:]])
    else:
        listed = ", ".join(args[:-1]) + f" and {args[-1]}"
        main = as_question(f'Does "{words}" hold for {listed}')
        statement = f'"{words}" holds for {listed}'
    main = " ".join(main.split())
    return (main, as_question(f"Is it true that {statement}"),
            as_question(f"Looking at the picture, would you say that {statement}"))
