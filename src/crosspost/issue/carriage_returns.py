"""A terminal's carriage return in a program's output: the line as it last stood.

A progress bar (tqdm's, pip's, a training loop's ``Epoch 3/10 ... loss``) redraws its
line by going back to its start with a bare carriage return and writing it again.
Jupyter keeps every state in a cell's output, and a notebook converted to Markdown, or
output pasted from a terminal log, holds them all on one line: ``  0%|…\r 50%|…\r100%|…``.
Every carriage return was read as a line break, as an old Mac's file has them: a code
block showed each state of the bar on a line of its own, a hundred lines for one, and
an indented output block ended at the first state not indented like the rest, which
went on as a paragraph of text.

Here, in a code block (fenced, or indented after a blank line) of a file whose lines
end in line feeds, a line with carriage returns in it is what the terminal showed last:
each part written over the one before from the line's start (``abc\\rX`` is ``Xbc``).
Anywhere else, and in a file whose lines end in carriage returns alone, a carriage
return ends a line, as before.
"""

from __future__ import annotations

import re

from crosspost.patterns import pattern

#: A fence's line, its indent (group 1) and its marks (group 2).
_FENCE = pattern(r"( {0,3})(`{3,}|~{3,})")
#: An indented code block's line: four spaces or a tab before anything.
_INDENTED = pattern(r"(?: {4}| {0,3}\t)(?=\S)")


def with_terminal_lines(text: str) -> str:
    """``text`` with its line endings line feeds, and each line of a code block that a
    program redrew with carriage returns as it last stood (see the module)."""
    text = re.sub(r"\r*\n", "\n", text)  # CRLF, and a CR a program wrote before one
    if "\r" not in text:
        return text
    if "\n" not in text.rstrip("\r"):  # an old Mac's file: a CR ends each line
        return text.replace("\r", "\n")
    lines = text.split("\n")
    fence: re.Match[str] | None = None
    indented = False  # in an indented code block: indented lines after a blank one
    blank = True  # the line before was blank (or there was none)
    for number, line in enumerate(lines):
        marks = _FENCE.match(line)
        if fence is not None:
            if _closes(fence, marks, line):
                fence = None
            elif "\r" in line:
                lines[number] = _last_state(line, len(fence.group(1)))
            continue
        indent = _INDENTED.match(line)
        indented = indent is not None and (indented or blank)
        if marks is not None and not indented:
            fence = marks
        elif "\r" in line:
            lines[number] = (
                _last_state(line, indent.end()) if indented and indent else line.replace("\r", "\n")
            )
        blank = not line.strip()
    return "\n".join(lines)


def _closes(fence: re.Match[str], marks: re.Match[str] | None, line: str) -> bool:
    """Whether ``line`` (its fence marks ``marks``) closes the block ``fence`` opened:
    the same mark, as many or more, nothing after them."""
    return (
        marks is not None
        and marks.group(2)[0] == fence.group(2)[0]
        and len(marks.group(2)) >= len(fence.group(2))
        and not line[marks.end() :].strip()
    )


def _last_state(line: str, indent: int) -> str:
    """``line`` as a terminal leaves it: after its Markdown indent (``indent``
    characters, kept), each part after a carriage return written over the line from its
    start."""
    shown: list[str] = []
    for part in line[indent:].split("\r"):
        shown[: len(part)] = part
    return line[:indent] + "".join(shown)
