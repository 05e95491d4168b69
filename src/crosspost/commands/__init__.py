"""Command modules behind the CLI, one per command."""
