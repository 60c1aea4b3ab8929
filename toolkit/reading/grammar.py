"""The ``pddl`` package's Lark grammar, built once per process and cached on disk between processes.

Building the LALR parser costs about 100 ms; loading Lark's cache a few ms.
Lark and the package's transformers are imported only here and only when a
file needs the full parser (plain files never do).
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
from typing import TYPE_CHECKING

from pddl.parser import GRAMMAR_FILE, PARSERS_DIRECTORY

from toolkit.cache_dir import user_cache_dir
from toolkit.reading.names import widen_package_names, widened_grammar

if TYPE_CHECKING:
    from lark import Lark

widen_package_names()  # before the package's transformers build any name


@functools.lru_cache(maxsize=None)
def grammar(start: str) -> Lark:
    from lark import Lark

    return Lark(_grammar_text(), parser="lalr", import_paths=[PARSERS_DIRECTORY],
                start=start, propagate_positions=True, cache=_lark_cache_file(start))


def _grammar_text() -> str:
    """The package's grammar with names widened to VAL's and Fast Downward's (:mod:`toolkit.reading.names`)."""
    return widened_grammar(GRAMMAR_FILE.read_text())


def _lark_cache_file(start: str) -> str | bool:
    """Where Lark keeps the built parser between processes, or False (no cache).

    The per-user folder (:func:`toolkit.cache_dir.user_cache_dir`). Lark checks the
    grammar's and imported files' hashes before using the file and rebuilds (silently) when it is stale, corrupt or
    unwritable; the name carries Lark's and Python's versions, as its pickles do.
    """
    root = user_cache_dir()
    try:
        os.makedirs(root, exist_ok=True)
    except OSError:
        return False
    # Lark keys its check on the options, which hold this install's grammar folder: without
    # that folder in the name, two installs (virtual environments) would rebuild each other's file.
    import lark

    tag = hashlib.sha256(f"{PARSERS_DIRECTORY}\0{_grammar_text()!r}".encode()).hexdigest()[:12]
    return os.path.join(root, f"lark-pddl-{start}-{tag}-{lark.__version__}-py{sys.version_info[0]}.{sys.version_info[1]}.cache")


@functools.lru_cache(maxsize=None)
def empty_action_body() -> list:
    tree = grammar("domain").parse("(define (domain t) (:action a :parameters () :precondition (and) :effect (and)))")
    return next(tree.find_data("action_body_def")).children


@functools.lru_cache(maxsize=None)
def problem_transformer_class() -> type:
    """The pddl package's problem transformer, with the rules for typed quantifier variables it lacks."""
    from pddl.parser.problem import ProblemTransformer

    class _ProblemTransformer(ProblemTransformer):
        def typed_list_variable(self, args):
            return self._domain_transformer.typed_list_variable(args)

        def type_def(self, args):
            return self._domain_transformer.type_def(args)

    return _ProblemTransformer
