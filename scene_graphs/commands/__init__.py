"""``pgt`` subcommands that belong to the scene-graph layer."""
