"""The parser of crosspost's command line: argparse's, with usage errors in one line.

argparse answers a wrong option or a missing argument with the command's whole usage
block above its error line, and exits on its own. A cron mail at 3 a.m. needs the one
line that says what was wrong and what to run, as every other bad input gets: here a
usage error is a :class:`~crosspost.errors.UsageError` (exit 2), which the command line
reports like any other. ``--help`` is untouched.

Every parser of the command line is this class: the top level's, and argparse makes the
commands' (and ``ledger``'s actions) of the class of the parser that holds them.
"""

from __future__ import annotations

import argparse
from typing import NoReturn

from crosspost.errors import UsageError

#: What argparse says of a required argument left out (its words since Python 3.3).
_REQUIRED = "the following arguments are required: "


class CommandParser(argparse.ArgumentParser):
    """An :class:`argparse.ArgumentParser` whose usage errors (an unknown choice, a value
    left out, a required argument missing) raise a :class:`~crosspost.errors.UsageError`:
    one line naming the command, what was wrong and where its options are listed."""

    def error(self, message: str) -> NoReturn:
        """Raise the one line for argparse's ``message`` instead of printing the usage
        block and exiting."""
        raise UsageError(usage_line(self.prog, message))


def usage_line(prog: str, problem: str) -> str:
    """``crosspost publish needs FILE; nothing was run ('crosspost publish --help' lists
    what it takes)``: the line for a command line ``prog`` (``crosspost``, ``crosspost
    ledger migrate``) refused for ``problem``, in argparse's words."""
    if problem.startswith(_REQUIRED):
        said = f"{prog} needs {problem.removeprefix(_REQUIRED)}"
    else:
        said = f"{prog}: {problem}"
    return refused(prog, said)


def refused(prog: str, said: str) -> str:
    """``said`` (what is wrong with a command line of ``prog``), then that nothing was run
    and where the command's options are listed."""
    return f"{said}; nothing was run ('{prog} --help' lists what it takes)"
