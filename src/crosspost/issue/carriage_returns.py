"""A terminal's carriage return in a program's output: the line as it last stood.

A progress bar (tqdm's, pip's, a training loop's ``Epoch 3/10 ... loss``) redraws its
line by going back to its start with a bare carriage return and writing it again.
Jupyter keeps every state in a cell's output, and a notebook converted to Markdown, or
output pasted from a terminal log, holds them all on one line: ``  0%|…\r 50%|…\r100%|…``.
Every carriage return was read as a line break, as an old Mac's file has them: a code
block showed each state of the bar on a line of its own, a hundred lines for one, and
an indented output block ended at the first state not indented like the rest, which
went on as a paragraph of text.

Here, in a code block (fenced, or indented after a blank line), wherever it stands (at
the top, in a list item, in a quote, in a footnote), of a file whose lines end in line
feeds, a line with carriage returns in it is what the terminal showed last: after the
marks that put the line in its list or quote and the block's indent, each part written
over the one before from the line's start (``abc\\rX`` is ``Xbc``). Anywhere else, and
in a file whose lines end in carriage returns alone, a carriage return ends a line, as
before. Which lines are code is Markdown's to say (CommonMark's block structure, which
the dialect's containers do not change for a fence), so it is asked, not guessed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from markdown_it import MarkdownIt

#: Characters standing for a carriage return while Markdown reads the blocks (it reads
#: one as a line's end): the first the text does not hold.
_STAND_INS = "\ue000\ue001\ue002\ue003"


def with_terminal_lines(text: str) -> str:
    """``text`` with its line endings line feeds, and each line of a code block that a
    program redrew with carriage returns as it last stood (see the module)."""
    text = re.sub(r"\r*\n", "\n", text)  # CRLF, and a CR a program wrote before one
    if "\r" not in text:
        return text
    if "\n" not in text.rstrip("\r"):  # an old Mac's file: a CR ends each line
        return text.replace("\r", "\n")
    lines = text.split("\n")
    for number, code in _redrawn_code(text):
        line = lines[number]
        # Markdown's view of the line is lost where a tab in the indent became spaces:
        # the code then starts after the quote marks and the indent.
        kept = code if line.endswith(code) else line.lstrip(" \t>")
        before = len(line) - len(kept)
        lines[number] = _last_state(line, before)
    return "\n".join(line.replace("\r", "\n") for line in lines)


def _redrawn_code(text: str) -> Iterator[tuple[int, str]]:
    """Each line (its index) of a code block of ``text`` that holds a carriage return,
    with the code's part of it: the line without the marks of the list or quote it is in
    and the block's indent, as Markdown reads it."""
    stand_in = next((c for c in _STAND_INS if c not in text), None)
    if stand_in is None:  # a file of private-use characters: read as before, code or not
        return
    tokens = MarkdownIt("commonmark").parse(text.replace("\r", stand_in))
    for token in tokens:
        if token.type not in ("fence", "code_block") or token.map is None:
            continue
        first = token.map[0] + (1 if token.type == "fence" else 0)
        for offset, code in enumerate(token.content.split("\n")[:-1]):
            if stand_in in code:
                yield first + offset, code.replace(stand_in, "\r")


def _last_state(line: str, indent: int) -> str:
    """``line`` as a terminal leaves it: after what puts it in its block (``indent``
    characters, kept), each part after a carriage return written over the line from its
    start."""
    shown: list[str] = []
    for part in line[indent:].split("\r"):
        shown[: len(part)] = part
    return line[:indent] + "".join(shown)
