"""Editor support: a PDDL language server (``pgt lsp``, needs the ``lsp`` extra) and its symbol index."""
