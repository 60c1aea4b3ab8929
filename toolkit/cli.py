"""The ``pgt`` command line: one subcommand per capability.

Subcommands live in the layer they belong to and are listed here as plain strings
(module path); ``toolkit`` itself never imports ``grounders`` or ``scene_graphs``
at module level. Each module defines ``register(subparsers)``, which adds its
parser and sets ``func`` to a function ``(args) -> exit code``.

Start-up time matters (``pgt validate`` runs once per plan in scripts), so only
the module of the subcommand being run is imported; ``pgt``, ``pgt --help`` and
an unknown command import them all, to list every command.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import NoReturn

from toolkit.entry import answer_sigint
from toolkit.errors import PgtError, TypeMismatchError

# CLI name -> module that registers it. Keys are the subcommands, in help order.
COMMANDS: dict[str, str] = {
    "validate": "toolkit.commands.validate",
    "validate-batch": "toolkit.commands.validate_batch",
    "plan": "toolkit.commands.plan",
    "solve-all": "toolkit.commands.solve_all",
    "lint": "toolkit.commands.lint",
    "lsp": "toolkit.commands.lsp",
    "generate": "toolkit.commands.generate",
    "questions": "toolkit.commands.questions",
    "invariants": "toolkit.commands.invariants",
    "score": "toolkit.commands.score",
    "render": "scene_graphs.commands.render",
    "import-scene": "scene_graphs.commands.import_scene",
    "babyai-problem": "scene_graphs.commands.babyai_problem",
    "lohoravens-problem": "scene_graphs.commands.lohoravens_problem",
    "lohoravens-par": "scene_graphs.commands.lohoravens_par",
    "run": "benchmarks.commands",
    "report": "benchmarks.commands",
    "demo": "benchmarks.commands",
    "compare": "benchmarks.commands",
    "fidelity": "benchmarks.fidelity",
    "import": "benchmarks.viplan_import",
}

# Pieces of the outer layers that toolkit commands use, by module path as above (imported only when used):
# the state pictures of ``pgt validate --html`` (``state_images(task, parsed, report)``).
STATE_PICTURES = "scene_graphs.trace_images"


class _Parser(argparse.ArgumentParser):
    """Usage errors as one line, ``pgt CMD: error: ...`` (``--help`` shows the usage), exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")

    def _get_formatter(self) -> argparse.HelpFormatter:
        # argparse's formatter imports shutil (and zlib, bz2, lzma with it) for the terminal width, and
        # every add_argument makes one: the same width without that import (issue 33, start-up).
        if isinstance(self.formatter_class, type) and issubclass(self.formatter_class, argparse.HelpFormatter):
            return self.formatter_class(prog=self.prog, width=terminal_columns() - 2)
        return super()._get_formatter()


def terminal_columns() -> int:
    """The terminal's width as :func:`shutil.get_terminal_size` gives it (``COLUMNS``, else stdout's, else 80)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 80
    return columns or 80


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser with every subcommand, or with ``command``'s only (and none for ``--version``)."""
    parser = _Parser(
        prog="pgt",
        description="PDDL grounding toolkit: verify plans, author domains, run grounding studies.",
    )
    parser.add_argument("--version", action="version", version="pgt 0.1.0")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    if command in COMMANDS:
        modules = [COMMANDS[command]]
    elif command == "--version":
        modules = []
    else:
        modules = list(dict.fromkeys(COMMANDS.values()))
    for module in modules:
        importlib.import_module(module).register(sub)
    _name_parsers(parser)
    return parser


def _name_parsers(parser: argparse.ArgumentParser) -> None:
    """Record in each (nested) subcommand's defaults its own parser, so that stray arguments are
    reported by ``pgt CMD KIND``, not by ``pgt`` (argparse reports them at the top level)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub_parser in action.choices.values():
                sub_parser.set_defaults(_parser=sub_parser)
                _name_parsers(sub_parser)


def main(argv: list[str] | None = None) -> int:
    """Run one command and return its exit code: 0 done, 1 a negative result (invalid
    plan, no plan, findings, bad batch lines), 2 bad input or usage, 130 interrupted."""
    argv = sys.argv[1:] if argv is None else argv
    name, args = "pgt", None
    answer_sigint()
    try:
        parser = build_parser(argv[0] if argv else None)
        try:
            args, extra = parser.parse_known_args(argv)
            if extra:
                getattr(args, "_parser", parser).error(f"unrecognized arguments: {' '.join(extra)}")
        except SystemExit as exc:  # argparse already printed its one-line usage error (or the help)
            return exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 2
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        name = f"pgt {args.command}"
        return int(args.func(args) or 0)
    except PgtError as exc:
        print(f"{name}: error: {exc}{_lenient_note(exc, args)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{name}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except OSError as exc:  # the file system refused a read or write the checks could not foresee (disk full...)
        target = f" {exc.filename}" if exc.filename else ""
        print(f"{name}: error: cannot access{target}: {exc.strerror or exc}", file=sys.stderr)
        return 2


def _lenient_note(exc: PgtError, args: argparse.Namespace | None) -> str:
    """For a wrongly typed atom in a problem's :init or :goal, the option that keeps it.

    Benchmark problems written for Fast Downward (the Embodied Agent Interface's
    VirtualHome problems) put objects where a predicate wants another type; FD keeps
    such atoms, and so does ``--typing lenient``.
    """
    if (isinstance(exc, TypeMismatchError) and getattr(args, "typing", None) == "strict"
            and str(exc).startswith(f"{getattr(args, 'problem', None)}:")):
        return "; --typing lenient keeps such atoms with a warning, as Fast Downward does"
    return ""


def _silence_stdout() -> None:
    """After a closed pipe (``pgt ... | head``), keep Python from complaining while it flushes at exit."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


if __name__ == "__main__":
    sys.exit(main())
