"""The ``pgt`` command line: one subcommand per capability.

Subcommands live in the layer they belong to and are listed here as plain strings
(module path), imported when the parser is built; ``toolkit`` itself never imports
``grounders`` or ``scene_graphs`` at module level. Each module defines
``register(subparsers)``, which adds its parser and sets ``func`` to a function
``(args) -> exit code``.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from toolkit.errors import PgtError

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
    "run": "benchmarks.commands",
    "report": "benchmarks.commands",
    "demo": "benchmarks.commands",
    "compare": "benchmarks.commands",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pgt",
        description="PDDL grounding toolkit: verify plans, author domains, run grounding studies.",
    )
    parser.add_argument("--version", action="version", version="pgt 0.1.0")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in dict.fromkeys(COMMANDS.values()):
        importlib.import_module(module).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except PgtError as exc:
        print(f"pgt {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"pgt {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
