"""The command line: parse arguments, hand over to one command, turn errors into exit codes.

Each command lives in ``crosspost.commands.<name>`` and provides two functions:
``configure(parser)`` adds its arguments, ``run(args) -> int`` calls the library and
prints the result. Command modules import their heavy dependencies inside ``run`` so
that ``crosspost --help`` and ``--version`` start instantly (cron pays for every start).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from types import ModuleType

from crosspost import __version__
from crosspost.errors import EXIT_BAD_INPUT, CrosspostError

# (command name, module under crosspost.commands, one-line help). The order is the
# order `crosspost --help` lists them in: the editor's day, from writing to cron.
COMMANDS: tuple[tuple[str, str, str], ...] = (
    ("check", "check", "lint issue files against every channel's limits"),
    ("render", "render", "write each channel's output files for an issue"),
    ("preview", "preview", "write one HTML page showing the issue as each channel will"),
    ("serve", "serve", "a live preview and the week's schedule in the browser, for editors"),
    ("publish", "publish", "publish issues to every channel, exactly once"),
    ("status", "status", "show every post the ledger knows: state, URL, when"),
    ("urls", "urls", "print an issue's published URLs, one per line"),
    ("reconcile", "reconcile", "ask the platforms what happened to unconfirmed posts"),
    ("import", "import_", "turn a plain-text digest or a saved article page into an issue"),
    ("sandbox", "sandbox", "run local WeChat and Zhihu emulators for tests and rehearsals"),
    ("run-due", "run_due", "publish every issue whose publish_at has come (for cron)"),
)


def _command_module(module: str) -> ModuleType:
    return importlib.import_module(f"crosspost.commands.{module}")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="crosspost",
        description="Publish one newsletter issue to WeChat and Zhihu, exactly once.",
    )
    parser.add_argument("--version", action="version", version=f"crosspost {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module, summary in COMMANDS:
        sub = commands.add_parser(name, help=summary, description=summary)
        _command_module(module).configure(sub)
        sub.set_defaults(_module=module)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command and return its exit code (see DESIGN.md: 0, 1, 2, 3 or 75)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_module", None):
        parser.print_help(sys.stderr)
        return EXIT_BAD_INPUT
    try:
        return int(_command_module(args._module).run(args))
    except CrosspostError as error:
        print(f"crosspost: error: {error}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        print("crosspost: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
