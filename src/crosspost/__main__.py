"""Allow ``python -m crosspost``."""

from crosspost.cli import run

run()
