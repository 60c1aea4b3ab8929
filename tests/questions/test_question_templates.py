"""Question templates: coverage over every shipped domain, fallback, validation errors, action text."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from toolkit.cli import main
from toolkit.domains import domain_dir, list_domains, shipped_domain, shipped_problem
from toolkit.model import Atom
from toolkit.question_file import QuestionSpec, QuestionTemplateError, load_question_spec
from toolkit.questions import QuestionBook
from toolkit.task import load_task

PROBLEMS = [(d, p.stem) for d in list_domains() for p in sorted((domain_dir(d) / "problems").glob("*.pddl"))]


def _task(domain: str, problem: str):
    return load_task(shipped_domain(domain), shipped_problem(domain, problem))


@pytest.mark.parametrize("domain,problem", PROBLEMS)
def test_every_atom_of_every_shipped_problem_has_one_distinct_question(domain: str, problem: str) -> None:
    task = _task(domain, problem)
    book = QuestionBook(task)
    atoms = task.reachable_atoms()  # the atoms questions are asked about
    questions = [book.question(a) for a in atoms]
    for atom, q in zip(atoms, questions):
        assert q.endswith("?") and not q.endswith("??"), (atom, q)
        assert q[0].isupper() and "{" not in q and "?" not in q[:-1], (atom, q)
        assert book.atom_for_question(q) == atom
    assert len(set(questions)) == len(questions), "two atoms share a question"


# The large BabyAI grids take 15-45 s each here: opt-in with --runslow.
HEAVY = {("babyai", "unlockpickup_1"), ("babyai", "gotoobj_1")}


@pytest.mark.parametrize("domain,problem", [pytest.param(*p, marks=pytest.mark.slow) if p in HEAVY else p
                                            for p in PROBLEMS if p[1] != "sokoban-3"])
def test_action_text_parses_back_to_the_same_action(domain: str, problem: str) -> None:
    task = _task(domain, problem)
    book = QuestionBook(task)
    for action in task.all_actions():
        assert book.parse_action_text(book.action_text(action)) == (action.name, action.args)


def test_viplan_style_questions_and_display_names() -> None:
    bw = QuestionBook(_task("blocksworld", "simple_problem_0"))
    assert bw.question(Atom("inColumn", ("r", "c1"))) == 'Is the red block in the column labeled "c1"?'
    assert bw.question(Atom("clear", ("y",))) == "Is the yellow block the topmost of its column?"  # ViPlan's code
    assert bw.display_name("c1") == 'the column labeled "c1"'
    hh = QuestionBook(_task("household", "cleaning_out_drawers_0"))
    assert hh.question(Atom("holding", ("bowl_1",))) == "Is the agent holding the bowl?"
    toys = QuestionBook(_task("household", "putting_away_toys_0"))
    assert toys.display_name("toy_2") == "toy 2" and toys.display_name("toy_box_1") == "the toy box"


def test_natural_language_action_variants_parse() -> None:
    bw = QuestionBook(_task("blocksworld", "simple_problem_0"))
    move = bw.task.action("moveBlock", ("r", "c2"))
    assert bw.action_text(move) == "move the red block to column c2"
    for text in ("Move the red block to column C2.", "move  red block to column c2", "move r to column c2"):
        assert bw.parse_action_text(text) == ("moveBlock", ("r", "c2")), text
    assert bw.parse_action_text("fly the red block to the moon") is None
    hh = QuestionBook(_task("household", "cleaning_out_drawers_0"))
    assert hh.parse_action_text("place the bowl on the sink") == ("place-on", ("bowl_1", "sink_1"))


def test_fallback_without_template_file_uses_the_predicate_comment() -> None:
    task = _task("household", "cleaning_out_drawers_0")
    book = QuestionBook(task, QuestionSpec())  # as if there were no questions.toml
    assert book.question(Atom("holding", ("bowl_1",))) == "Is the agent holding the bowl?"
    assert book.question(Atom("inside", ("bowl_1", "cabinet_1"))) == "Is the bowl inside the cabinet?"
    bw = QuestionBook(_task("blocksworld", "simple_problem_0"), QuestionSpec())
    assert bw.question(Atom("clear", ("r",))) == "Is block r clear (i.e., nothing is on top of it)?"
    assert bw.question(Atom("on", ("r", "y"))) == "Is block r on block y?"


def test_fallback_from_the_name_when_there_is_no_comment(tmp_path: Path) -> None:
    (tmp_path / "domain.pddl").write_text(
        "(define (domain d) (:requirements :typing) (:types block)"
        " (:predicates (inColumn ?b - block ?c - block) (handEmpty) (is_red ?b - block))"
        " (:action noop :parameters (?b - block) :precondition (is_red ?b) :effect (handEmpty)))")
    (tmp_path / "p.pddl").write_text("(define (problem p) (:domain d) (:objects a c1 - block) (:init) (:goal (handEmpty)))")
    book = QuestionBook(load_task(tmp_path / "domain.pddl", tmp_path / "p.pddl"))
    assert book.question(Atom("inColumn", ("a", "c1"))) == "Is the block a in column c1?"
    assert book.question(Atom("is_red", ("a",))) == "Is the block a red?"
    assert book.question(Atom("handEmpty")) == "Is it the case that hand empty?"


def test_fallback_questions_read_well_on_any_domain(tmp_path: Path) -> None:
    """Typed objects with an article, words that repeat a type dropped, an untyped domain's type predicates
    as types, and three distinct wordings (a temperature-0 grounder needs another wording for a second opinion)."""
    (tmp_path / "domain.pddl").write_text(
        "(define (domain wh) (:requirements :typing) (:types item location)"
        " (:predicates (item-at ?i - item ?l - location) (has-label ?i - item))"
        " (:action a :parameters (?i - item ?l - location) :precondition (has-label ?i) :effect (item-at ?i ?l)))")
    (tmp_path / "p.pddl").write_text("(define (problem p) (:domain wh) (:objects box1 - item dock - location)"
                                     " (:init) (:goal (item-at box1 dock)))")
    book = QuestionBook(load_task(tmp_path / "domain.pddl", tmp_path / "p.pddl"))
    assert book.question(Atom("item-at", ("box1", "dock"))) == "Is the item box1 at the location dock?"
    assert book.question(Atom("has-label", ("box1",))) == "Does the item box1 have label?"
    words = book.phrasings(Atom("item-at", ("box1", "dock")))
    assert len(set(words)) == 3 and words[1] == "Is it true that the item box1 is at the location dock?"
    ferry = tmp_path / "ferry"
    ferry.mkdir()
    (ferry / "domain.pddl").write_text(
        "(define (domain ferry) (:predicates (car ?c) (location ?l) (at ?c ?l) (at-ferry ?l))"
        " (:action sail :parameters (?f ?t) :precondition (and (location ?f) (location ?t) (at-ferry ?f))"
        " :effect (and (at-ferry ?t) (not (at-ferry ?f)))))")
    (ferry / "p.pddl").write_text("(define (problem p) (:domain ferry) (:objects c0 l1 l2)"
                                  " (:init (car c0) (location l1) (location l2) (at c0 l1) (at-ferry l1))"
                                  " (:goal (at-ferry l2)))")
    book = QuestionBook(load_task(ferry / "domain.pddl", ferry / "p.pddl"))
    assert book.question(Atom("at", ("c0", "l1"))) == "Is the car c0 at the location l1?"


BAD_FILES = [
    ("[questions]\non = 'Is {b1} on {b22}?'\n", "[questions].on: unknown placeholder {b22} (arguments: {b1}, {b2}); did you mean {b2}?"),
    ("[questions]\non = 'Is {b1} stacked?'\n", "[questions].on: template 'Is {b1} stacked?' does not mention {b2}"),
    ("[questions]\nonn = 'Is {0} on {1}?'\n", "[questions].onn: unknown predicate 'onn'; did you mean on?"),
    ("[questions]\nclear = 'Is {1} clear?'\n", "[questions].clear: placeholder {1} is out of range: clear takes 1 argument(s)"),
    ("[display.types]\nblok = 'the {name}'\n", "[display.types].blok: unknown type 'blok'; did you mean block?"),
    ("[display.types]\nblock = 'the {colour}'\n", "[display.types].block: unknown placeholder {colour} (use {name}, {words}, {base})"),
    ("[actions]\nmoveBlock = 'move {b1}'\n", "[actions].moveBlock: template 'move {b1}' does not mention {c1}"),
    ("[questoins]\n", "questoins: unknown section or key"),
    ("questions = [", "<toml>: "),
]


@pytest.mark.parametrize("text,message", BAD_FILES)
def test_template_errors_name_the_file_and_key(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "questions.toml"
    path.write_text(text)
    domain = load_task(shipped_domain("blocksworld"), shipped_problem("blocksworld", "simple_problem_0")).domain
    with pytest.raises(QuestionTemplateError) as info:
        load_question_spec(path, domain)
    assert str(info.value).startswith(f"{path}: ")
    assert message in str(info.value)


def test_cli_lists_questions_with_truth(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["questions", "blocksworld", "simple_problem_0", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(rows) == 27  # atoms that can ever hold (of 56 type-correct ones)
    row = next(r for r in rows if r["atom"] == "(inColumn y c2)")
    assert row == {"atom": "(inColumn y c2)", "question": 'Is the yellow block in the column labeled "c2"?',
                   "truth": True, "source": "template"}
    assert main(["questions", "gripper", str(shipped_problem("gripper", "gripper-2balls"))]) == 0
    assert "Is the robot in room rooma?" in capsys.readouterr().out
    assert main(["questions", "blocksworld", "no_such_problem"]) == 2


def _bw_file(tmp_path: Path, questions: str) -> Path:
    (tmp_path / "questions.toml").write_text(f"[questions]\n{questions}\n")
    return tmp_path / "questions.toml"


def test_several_phrasings_per_predicate_the_first_is_the_question(tmp_path: Path) -> None:
    task = _task("blocksworld", "simple_problem_0")
    spec = load_question_spec(_bw_file(tmp_path, 'clear = ["Is {b} clear?", "Is nothing on {b}?"]'), task.domain)
    book = QuestionBook(task, spec)
    atom = Atom("clear", ("r",))
    assert book.question(atom) == "Is r clear?"
    assert book.phrasings(atom)[:2] == ("Is r clear?", "Is nothing on r?")
    assert len(set(book.phrasings(atom))) == len(book.phrasings(atom))


@pytest.mark.parametrize("entry,message", [
    ("clear = []", "empty list of phrasings"),
    ('clear = ["Is {b} clear?", "Is {b} clear?"]', "[questions].clear[1]: phrasing 'Is {b} clear?' is listed twice"),
    ('clear = ["Is {b} clear?", "Is {x} clear?"]', "[questions].clear[1]: unknown placeholder {x}"),
])
def test_bad_phrasing_lists_name_the_entry(tmp_path: Path, entry: str, message: str) -> None:
    with pytest.raises(QuestionTemplateError, match=re.escape(message)):
        load_question_spec(_bw_file(tmp_path, entry), _task("blocksworld", "simple_problem_0").domain)


@pytest.mark.parametrize("domain", ["blocksworld", "household"])
def test_the_viplan_domains_ship_at_least_three_phrasings_per_decision_predicate(domain: str) -> None:
    task = _task(domain, sorted(p.stem for p in (domain_dir(domain) / "problems").glob("*.pddl"))[0])
    book = QuestionBook(task)
    for atom in task.reachable_atoms():
        if atom.predicate in ("on", "inColumn", "clear", "holding", "open", "ontop", "inside", "nextto"):
            assert len(book.phrasings(atom)) >= 3, atom


def test_a_question_file_is_parsed_once_per_version_and_domain(tmp_path: Path) -> None:
    import os

    from toolkit.question_file import cached_question_spec

    domain = _task("blocksworld", "simple_problem_0").domain
    path = _bw_file(tmp_path, 'clear = "Is {b} clear?"')
    first = cached_question_spec(path, domain)
    assert cached_question_spec(path, domain) is first  # a study builds a book per episode: parsed once
    path.write_text('[questions]\nclear = "Is nothing on {b}?"\n')
    later = path.stat().st_mtime_ns + 10**9
    os.utime(path, ns=(later, later))  # an edit with a new mtime
    edited = cached_question_spec(path, domain)
    assert edited is not first and edited.questions["clear"] != first.questions["clear"]


IPC = Path("/work/shared/ipc-sample")
_PREPOSITIONS = {"at", "in", "on", "near", "inside", "under", "above", "below", "beside", "by", "of", "to", "for", "from", "with"}
_FUNCTION_WORDS = {"is", "it", "true", "that", "the", "a", "an", "looking", "at", "picture", "would", "you", "say", "does", "hold", "for"}


def _domains_to_phrase() -> list[tuple[str, Path, Path]]:
    """Every shipped domain and every IPC domain of the local sample, each with its first problem."""
    out = [(d, shipped_domain(d), sorted((domain_dir(d) / "problems").glob("*.pddl"))[0]) for d in list_domains()]
    for folder in sorted(IPC.iterdir()) if IPC.is_dir() else []:
        domains = sorted(folder.glob("*domain*.pddl"))
        problems = sorted(p for p in folder.glob("*.pddl") if "domain" not in p.name)
        if domains and problems:
            out.append((folder.name, domains[0], problems[0]))
    return out


def _one_atom_per_predicate(task) -> list[Atom]:
    """An atom of each predicate over objects of the right types (arguments varied where it can)."""
    atoms = []
    for pred in task.domain.predicates.values():
        args = []
        for _, types in pred.params:
            objs = sorted(o for o, t in task.objects.items() if set(types) & set(task.domain.ancestors(t)))
            if not objs:
                break
            args.append(objs[len(args) % len(objs)])
        if len(args) == len(pred.params):
            atoms.append(Atom(pred.name, tuple(args)))
    return atoms


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


@pytest.mark.parametrize("name,domain,problem", _domains_to_phrase(), ids=lambda v: v if isinstance(v, str) else "")
def test_fallback_questions_name_no_kind_twice_and_end_in_no_bare_preposition(name: str, domain: Path, problem: Path) -> None:
    """Every predicate's fallback wordings, shipped and IPC: a one-argument question never repeats a
    word ("Is the airplane apn1 airplane?") and no question ends in a preposition ("Is p1 at?")."""
    task = load_task(domain, problem)
    book = QuestionBook(task)
    for atom in _one_atom_per_predicate(task):
        for text in book.fallback_phrasings(atom):
            assert _words(text)[-1] not in _PREPOSITIONS, (name, atom, text)
            if len(atom.args) == 1:
                names = set(_words(atom.args[0])) | set(_words(book.display_name(atom.args[0])))
                content = [w for w in _words(text) if w not in _FUNCTION_WORDS and w not in names]
                assert len(content) == len(set(content)), (name, atom, text)


def test_one_argument_fallbacks_read_as_english(tmp_path: Path) -> None:
    """Type predicates say what the object is, with a/an; a lone preposition is asked literally;
    adjectives and plurals take no article."""
    (tmp_path / "tsp.pddl").write_text(
        "(define (domain tsp) (:predicates (at ?x) (visited ?x) (connected ?x ?y))"
        " (:action move :parameters (?x ?y) :precondition (and (at ?x) (connected ?x ?y))"
        " :effect (and (at ?y) (visited ?y) (not (at ?x)))))")
    (tmp_path / "tsp-p.pddl").write_text("(define (problem p) (:domain tsp) (:objects p1 p2)"
                                         " (:init (at p1) (connected p1 p2)) (:goal (visited p2)))")
    tsp = QuestionBook(load_task(tmp_path / "tsp.pddl", tmp_path / "tsp-p.pddl"))
    assert tsp.phrasings(Atom("at", ("p1",))) == (
        'Does "at" hold for p1?', 'Is it true that "at" holds for p1?',
        'Looking at the picture, would you say that "at" holds for p1?')
    assert tsp.question(Atom("visited", ("p2",))) == "Is p2 visited?"
    (tmp_path / "lg.pddl").write_text(
        "(define (domain lg) (:predicates (airplane ?x) (truck ?x) (chips ?x) (locatable ?x) (at ?x ?y))"
        " (:action fly :parameters (?a ?x ?y) :precondition (and (airplane ?a) (at ?a ?x))"
        " :effect (and (at ?a ?y) (not (at ?a ?x)))))")
    (tmp_path / "lg-p.pddl").write_text("(define (problem p) (:domain lg) (:objects apn1 t1 c1 x1 l1)"
                                        " (:init (airplane apn1) (truck t1) (chips c1) (locatable x1) (at apn1 l1))"
                                        " (:goal (at apn1 l1)))")
    lg = QuestionBook(load_task(tmp_path / "lg.pddl", tmp_path / "lg-p.pddl"))
    assert lg.phrasings(Atom("airplane", ("apn1",))) == (
        "Is apn1 an airplane?", "Is it true that apn1 is an airplane?",
        "Looking at the picture, would you say that apn1 is an airplane?")
    assert lg.question(Atom("truck", ("apn1",))) == "Is apn1 a truck?"
    assert lg.question(Atom("chips", ("c1",))) == "Is c1 chips?"
    assert lg.question(Atom("locatable", ("x1",))) == "Is x1 locatable?"
    assert lg.question(Atom("at", ("apn1", "l1"))) == "Is the airplane apn1 at l1?"


def _relation_slips(text: str, atom: Atom) -> list[str]:
    """Words of a bad two-argument pattern in an "Is ..." question or "... is ..." statement:
    a verb after "is" ("Is shaker1 contains cocktail2?") or an abbreviation ("Is p0 destin f1?")."""
    from toolkit.relation_words import ABBREVIATIONS, VERBS, third_person

    verbs = VERBS | {third_person(v) for v in VERBS}
    plain = re.sub(r'"[^"]*"', " ", text)  # a literally asked name ('Does "used" hold ...') is quoted
    clause = plain.split(" that ", 1)[-1]
    words = _words(clause)
    if "is" not in words:
        return []
    names = {w for a in atom.args for w in _words(a)}
    after = [w for w in words[words.index("is") + 1:] if w not in names]
    return [w for w in after if w in verbs or w in ABBREVIATIONS]


@pytest.mark.parametrize("name,domain,problem", _domains_to_phrase(), ids=lambda v: v if isinstance(v, str) else "")
def test_two_argument_fallbacks_put_no_verb_or_abbreviation_after_is(name: str, domain: Path, problem: Path) -> None:
    """Every two-argument predicate's fallback wordings, shipped and IPC: "Does shaker1 contain
    cocktail2?", never "Is shaker1 contains cocktail2?"; "the destination of", never "destin"."""
    task = load_task(domain, problem)
    book = QuestionBook(task)
    for atom in _one_atom_per_predicate(task):
        if len(atom.args) == 2:
            for text in book.fallback_phrasings(atom):
                assert not _relation_slips(text, atom), (name, atom, text)


def test_two_argument_fallbacks_follow_the_word_class_of_the_name(tmp_path: Path) -> None:
    """Verbs take "does", attribute nouns "the ... of", relational adjectives their preposition, link
    nouns "is there", and a word nobody can read is asked literally, in all three wordings."""
    (tmp_path / "d.pddl").write_text(
        "(define (domain bar) (:types shaker cocktail passenger floor place)"
        " (:predicates (contains ?s - shaker ?c - cocktail) (destin ?p - passenger ?f - floor)"
        " (connected ?a ?b - place) (road ?a ?b - place) (used ?s - shaker ?c - cocktail)"
        " (can-hold ?s - shaker ?c - cocktail)))")
    (tmp_path / "p.pddl").write_text(
        "(define (problem p) (:domain bar) (:objects s1 - shaker c2 - cocktail p0 - passenger f0 - floor"
        " l1 l2 - place) (:init) (:goal (contains s1 c2)))")
    book = QuestionBook(load_task(tmp_path / "d.pddl", tmp_path / "p.pddl"))
    assert book.phrasings(Atom("contains", ("s1", "c2"))) == (
        "Does the shaker s1 contain c2?", "Is it true that the shaker s1 contains c2?",
        "Looking at the picture, would you say that the shaker s1 contains c2?")
    assert book.phrasings(Atom("destin", ("p0", "f0")))[:2] == (
        "Is the destination of the passenger p0 f0?", "Is it true that the destination of the passenger p0 is f0?")
    assert book.question(Atom("connected", ("l1", "l2"))) == "Is the place l1 connected to the place l2?"
    assert book.question(Atom("road", ("l1", "l2"))) == "Is there a road from the place l1 to the place l2?"
    assert book.question(Atom("used", ("s1", "c2"))) == 'Does "used" hold for the shaker s1 and the cocktail c2?'
    assert book.question(Atom("can-hold", ("s1", "c2"))) == "Can the shaker s1 hold c2?"
