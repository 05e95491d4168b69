"""Plain-text tables for the terminal, aligned by display width.

``str.ljust`` counts characters, but a terminal gives a CJK character (an issue title,
a Zhihu error message) two columns, so ljust-padded rows drift apart. Every command that
prints a table uses :func:`print_table`.
"""

from __future__ import annotations

import os
import sys
import unicodedata
from collections.abc import Sequence
from typing import TextIO


def display_width(text: str) -> int:
    """Columns ``text`` takes in a terminal: wide and full-width characters take two,
    combining marks none."""
    width = 0
    for char in text:
        if unicodedata.combining(char):
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


def pad(text: str, width: int) -> str:
    """``text`` followed by spaces up to ``width`` columns."""
    return text + " " * max(0, width - display_width(text))


def format_table(header: Sequence[str], rows: Sequence[Sequence[str]], gap: int = 2) -> list[str]:
    """The lines of a table: each column as wide as its widest cell, no trailing spaces."""
    return format_rows((header, *rows), gap)


def format_rows(rows: Sequence[Sequence[str]], gap: int = 2) -> list[str]:
    """Rows as aligned lines, each column as wide as its widest cell, no trailing spaces.

    Rows may differ in length (run-due's line about a file has no account column): a
    row's last cell, free text such as a message, is not padded and sets no width, so
    one long message does not push the columns of the other rows apart.
    """
    widths: list[int] = []
    for row in rows:
        for index, cell in enumerate(row[:-1]):
            if index == len(widths):
                widths.append(0)
            widths[index] = max(widths[index], display_width(cell))
    separator = " " * gap
    return [
        separator.join(
            [*(pad(c, w) for c, w in zip(row[:-1], widths, strict=False)), *row[-1:]]
        ).rstrip()
        for row in rows
    ]


def print_table(
    header: Sequence[str], rows: Sequence[Sequence[str]], file: TextIO | None = None
) -> None:
    """Print a table (header first) aligned for a terminal, CJK included."""
    for line in format_table(header, rows):
        print(line, file=file or sys.stdout)


def print_progress(line: str) -> None:
    """A progress line on stderr, printed while a run works.

    The reader may go away mid-run (``crosspost publish … 2>&1 | head -3``): the work must
    go on and reach the ledger, so a closed pipe only silences the progress. The final
    report, printed after the work, meets the closed pipe in the CLI's funnel instead.
    """
    try:
        print(line, file=sys.stderr, flush=True)
    except BrokenPipeError:
        silence(sys.stderr)


def silence(stream: TextIO) -> None:
    """Point ``stream``'s descriptor at /dev/null after its reader went away.

    The Python documentation's way for a closed pipe (see "Note on SIGPIPE" in the
    :mod:`signal` module): what is still buffered, and whatever is printed later, goes
    nowhere instead of raising again, and the interpreter's own flush at exit succeeds
    (it would otherwise end the process with status 120). SIGPIPE keeps Python's default
    (ignored): a run's HTTP sockets must raise, not kill the process.
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, stream.fileno())
    except (OSError, ValueError):  # a stream without a descriptor (captured in tests)
        pass
    finally:
        os.close(devnull)
