"""English for a two-argument predicate from the words of its name.

``(contains shaker1 cocktail2)`` is not "Is shaker1 contains cocktail2?" and
``(destin p0 f0)`` is not "Is the passenger p0 destin f0?". Which sentence a
relation needs depends on the word class of its name's words, so each name is
read as one of:

- a verb ("contains", "carry", "dispenses"): "Does X contain Y?";
- a modal with a verb ("can-hold"): "Can X hold Y?";
- a preposition phrase ("at", "in-city", "on"): "Is X at Y?";
- a progressive ("holding", "driving"): "Is X holding Y?";
- a relational adjective or direction with its preposition ("connected", "next",
  "compatible", "closer", "left"): "Is X connected to Y?";
- a link noun ("road", "path", "link"): "Is there a road from X to Y?";
- an attribute noun ("destination", "shape", "capacity", "fuel level"): "Is the
  destination of X Y?";
- anything else (a participle whose preposition the name does not say, an
  abbreviation nobody can read): asked literally, 'Does "used" hold for X and Y?',
  which is grammatical whatever the word means.

The word lists are English (common relation verbs, the prepositions of relational
adjectives, noun endings), not a table of domains; a domain that needs other words
writes a ``questions.toml`` (see :mod:`toolkit.questions`).
"""

from __future__ import annotations

PREPOSITIONS = frozenset({"at", "in", "on", "near", "inside", "under", "above", "below", "beside", "by", "into",
                          "onto", "over", "behind", "within", "of", "to", "from", "with", "for", "after", "before"})

# Abbreviations PDDL authors use for relation words; expanded before the word class is read.
ABBREVIATIONS = {"destin": "destination", "dest": "destination", "conn": "connected", "loc": "location",
                 "pos": "position", "dir": "direction", "num": "number", "succ": "successor", "pred": "predecessor",
                 "adj": "adjacent", "orig": "origin", "cap": "capacity", "lvl": "level"}

# Base forms of verbs that relate two things ("X contains Y"); a name word is a verb if it is one of
# these or its third-person form.
VERBS = frozenset({"accept", "allow", "carry", "contain", "cover", "dispense", "enter", "face", "feed", "fill", "fit",
                   "follow", "have", "hold", "include", "know", "lead", "match", "need", "occupy", "own", "precede",
                   "produce", "reach", "require", "see", "sell", "serve", "store", "succeed", "supply", "support",
                   "touch", "use", "visit", "want", "wear"})

MODALS = frozenset({"can", "may", "must", "could", "should", "will"})

# Relational adjectives and directions with the preposition that joins them to their object.
RELATION_PREPOSITION = {
    "connected": "to", "adjacent": "to", "next": "to", "linked": "to", "attached": "to", "close": "to",
    "equal": "to", "similar": "to", "related": "to", "opposite": "to", "parallel": "to",
    "compatible": "with", "visible": "from", "reachable": "from", "accessible": "from", "free": "for", "ready": "for", "suitable": "for", "available": "for",
    "left": "of", "right": "of", "north": "of", "south": "of", "east": "of", "west": "of", "up": "from",
    "down": "from", "closer": "than", "larger": "than", "smaller": "than", "bigger": "than", "higher": "than",
    "lower": "than", "greater": "than", "less": "than", "more": "than", "heavier": "than", "lighter": "than",
    "older": "than", "younger": "than", "longer": "than", "shorter": "than", "further": "than",
    "farther": "than", "part": "of", "member": "of", "instance": "of",
}

LINK_NOUNS = frozenset({"road", "link", "path", "route", "edge", "connection", "way", "corridor", "bridge", "track",
                        "street", "rail", "arc", "lane", "passage", "door", "flight"})

# Nouns that name an attribute of the first argument, the second being its value ("the shape of X is Y").
ATTRIBUTE_NOUNS = frozenset({"size", "level", "colour", "color", "shape", "type", "value", "suit", "origin", "wood",
                             "weight", "height", "width", "length", "speed", "fuel", "state", "status", "mode", "name",
                             "kind", "owner", "parent", "child", "neighbour", "neighbor", "home", "target", "goal",
                             "start", "end", "source", "price", "cost", "number", "count", "content", "surface",
                             "material", "temperature", "capacity", "destination", "position", "location",
                             "direction", "treatment", "condition", "successor", "predecessor", "label",
                             "rank", "stage", "step", "phase", "place", "slot", "amount", "quantity"})
_NOUN_ENDINGS = ("tion", "sion", "ment", "ness", "ity", "ance", "ence", "ure", "age", "ship", "hood", "size",
                 "level", "or")


def expand(head: list[str]) -> list[str]:
    """The name's words with common abbreviations written out (``destin`` -> ``destination``)."""
    return [ABBREVIATIONS.get(w, w) for w in head]


def verb_base(word: str) -> str | None:
    """The base form of ``word`` when it is a relation verb (``contains`` -> ``contain``), else None.

    >>> verb_base("contains"), verb_base("carries"), verb_base("dispenses"), verb_base("has"), verb_base("shape")
    ('contain', 'carry', 'dispense', 'have', None)
    """
    if word == "has":
        return "have"
    candidates = [word]
    if word.endswith("ies"):
        candidates.append(word[:-3] + "y")
    if word.endswith(("sses", "xes", "zes", "ches", "shes")):
        candidates.append(word[:-2])
    if word.endswith("s") and not word.endswith("ss"):
        candidates.append(word[:-1])
    return next((c for c in candidates if c in VERBS), None)


def third_person(base: str) -> str:
    """``contain`` -> ``contains``, ``carry`` -> ``carries``, ``have`` -> ``has``."""
    if base == "have":
        return "has"
    if base.endswith("y") and base[-2:-1] not in ("a", "e", "o", "u"):
        return base[:-1] + "ies"
    if base.endswith(("s", "x", "z", "ch", "sh")):
        return base + "es"
    return base + "s"


def is_noun(word: str) -> bool:
    """True for a word that reads as an attribute noun: a known one, or one with a noun ending."""
    return word in ATTRIBUTE_NOUNS or (len(word) > 4 and word.endswith(_NOUN_ENDINGS))


def binary_phrasing(head: list[str], first: str, second: str, second_bare: str) -> tuple[str, str]:
    """(question without its mark, statement) for a two-argument predicate named by ``head``.

    ``first`` and ``second`` name the arguments with their type ("the passenger p0");
    ``second_bare`` names the second by itself ("f0"), for the forms where the words
    already say what it is ("the destination of the passenger p0 f0").

    >>> binary_phrasing(["contains"], "shaker1", "cocktail2", "cocktail2")[0]
    'Does shaker1 contain cocktail2'
    >>> binary_phrasing(["destin"], "the passenger p0", "the floor f0", "f0")[0]
    'Is the destination of the passenger p0 f0'
    >>> binary_phrasing(["connected"], "the location l1", "the location l2", "l2")[0]
    'Is the location l1 connected to the location l2'
    >>> binary_phrasing(["can", "hold"], "fast0", "n1", "n1")[0]
    'Can fast0 hold n1'
    >>> binary_phrasing(["used"], "shaker1", "cocktail2", "cocktail2")[0]
    'Does "used" hold for shaker1 and cocktail2'
    """
    head = expand(head)
    words = " ".join(head)
    lead, last = head[0], head[-1]
    rest = " ".join(head[1:])
    if lead in MODALS and len(head) > 1:
        return f"{lead.capitalize()} {first} {rest} {second_bare}", f"{first} {lead} {rest} {second_bare}"
    base = verb_base(lead)
    if base is not None:
        tail = " ".join(w for w in (rest, second_bare) if w)
        return f"Does {first} {base} {tail}", f"{first} {third_person(base)} {tail}"
    if lead in PREPOSITIONS or last in PREPOSITIONS:
        obj = second if last in PREPOSITIONS else second_bare
        return f"Is {first} {words} {obj}", f"{first} is {words} {obj}"
    if lead.endswith("ing") and len(lead) > 4:
        return f"Is {first} {words} {second_bare}", f"{first} is {words} {second_bare}"
    if len(head) == 1 and lead in RELATION_PREPOSITION:
        prep = RELATION_PREPOSITION[lead]
        return f"Is {first} {lead} {prep} {second}", f"{first} is {lead} {prep} {second}"
    if len(head) == 1 and lead in LINK_NOUNS:
        return (f"Is there a {lead} from {first} to {second}",
                f"there is a {lead} from {first} to {second}")
    if is_noun(last) and len(lead) > 2:
        return f"Is the {words} of {first} {second_bare}", f"the {words} of {first} is {second_bare}"
    return f'Does "{words}" hold for {first} and {second}', f'"{words}" holds for {first} and {second}'
