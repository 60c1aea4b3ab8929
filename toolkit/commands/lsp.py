"""``pgt lsp``: run the PDDL language server on standard input and output.

Editors start it themselves (see docs/authoring.md for VS Code, Neovim and Emacs):
lint findings as diagnostics while you type, hover, go-to-definition,
find-references and completion. Needs the optional extra:
``pip install 'pddl-grounding-toolkit[lsp]'``.
"""

from __future__ import annotations

import argparse

from toolkit.errors import PgtError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("lsp", help="run the PDDL language server (stdio) for editors",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--stdio", action="store_true", help="talk over standard input/output (the default and only mode; "
                   "accepted because editors pass it)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        from toolkit.lsp.server import serve
    except ImportError as exc:
        raise PgtError(f"the language server needs the optional 'lsp' extra ({exc.name} is missing): "
                       "pip install 'pddl-grounding-toolkit[lsp]'") from None
    serve()
    return 0
