"""MkDocs snippets: ``--8<-- "file.md"`` puts a file's text in place of the line.

PyMdown's Snippets extension, which MkDocs Material's documentation uses for shared
abbreviations, warnings and code samples, reads a line ``--8<-- "includes/note.md"``
(any number of dashes on either side of ``8<``; a file name may end in ``:3:10``, its
lines 3 to 10, or in ``:name``, the part between ``--8<-- [start:name]`` and
``--8<-- [end:name]``), and a block of file names between two ``--8<--`` lines, before
Markdown reads the page: the text goes in as if written there, into a code fence too. A
line that opens with ``;`` is the syntax shown as it is. Markdown read the lines as
words: both channels showed ``--8<-- "includes/note.md"``, the file's text went nowhere,
and check said nothing.

As for iA Writer's content blocks (:mod:`crosspost.issue.attachments`), the loader
reads the files, inside the issue's folder only, once (:func:`snippet_files`), with the
reader a content block's file is read by (UTF-8, or UTF-16 with its mark, as the issue
itself), and the parse shows them (:func:`snippet_block` for Markdown,
:func:`snippet_fences` for code). A file not found there, or that cannot be read (not
UTF-8: saved as GBK), is left out, and check says which and what to do; in a code block
the line is shown as written (a code sample of the syntax, most likely), with a note.
Two ``--8<--`` lines with words between them that are no file names (a "cut here" mark
around a passage) are no block: they stay as written.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path

from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore

from crosspost.issue.attachments import (
    ATTACHED,
    MAX_INCLUDED_CHARS,
    UNREADABLE_FILE,
    Attached,
    Attachment,
    block_path,
    included_text,
    note,
    parsed_here,
)
from crosspost.issue.blocks import line_text, paragraph
from crosspost.patterns import pattern

#: A snippet line: ``--8<-- "file.md"`` (``;`` before it: shown as written).
SNIPPET = pattern(r"^[ \t]{0,3}(;?)-+8<-+[ \t]+([\"'])([^\"'\n]+)\2[ \t]*$", re.MULTILINE)
#: The line that opens and closes a block of file names.
_BLOCK_MARK = pattern(r"^[ \t]{0,3}-+8<-+[ \t]*$")
#: A line of such a block: a file's name (maybe its lines or section), one word. Between
#: two ``--8<--`` lines of anything else (a "cut here" mark around a passage) is no block.
_NAME_LINE = pattern(r"[ \t]*(?:;.*|[^\s\"']+\.[A-Za-z0-9]{1,10}(?::\d*(?::\d*)?|:[\w-]+)?)?[ \t]*")
#: A file's section marks, left out of what it includes: ``--8<-- [start:name]``.
_SECTION_MARK = pattern(r"^.*-+8<-+[ \t]+\[(start|end):([\w-]+)\].*\n?", re.MULTILINE)
#: A file name's line range, ``file.md:3:10`` (either end may be left out), or section.
_RANGE = pattern(r"^(.*?\.[A-Za-z0-9]{1,10})(?::(\d*)(?::(\d*))?|:([\w-]+))?$")
#: What check calls the note about a snippet whose file is not found.
MISSING_SNIPPET = "missing-snippet"
#: ... and about one in a code block, shown as written (a code sample of the syntax?).
SHOWN_SNIPPET = "snippet-shown"
#: The snippets being included, innermost last (one that includes itself stops there).
_INCLUDING = "crosspost_snippets_including"


def _named(written: str) -> tuple[str, tuple[str | None, str | None, str | None]]:
    """The file a snippet names and its lines or section: ``a.md:3:10`` → (``a.md``,
    (``3``, ``10``, None)); ``a.md:intro`` → (``a.md``, (None, None, ``intro``))."""
    found = _RANGE.match(written.strip())
    if found is None:
        return written.strip(), (None, None, None)
    return found.group(1), (found.group(2), found.group(3), found.group(4))


def _part(text: str, written: str) -> str:
    """What of ``text`` (the file's) the snippet ``written`` asks for, marks left out."""
    _, (first, last, section) = _named(written)
    if section is not None:
        inside = re.search(
            rf"^[^\n]*-+8<-+[ \t]+\[start:{re.escape(section)}\][^\n]*\n(.*?)^[^\n]*-+8<-+"
            rf"[ \t]+\[end:{re.escape(section)}\]",
            text,
            re.MULTILINE | re.DOTALL,
        )
        text = inside.group(1) if inside else ""
    elif first or last:
        lines = text.splitlines(keepends=True)
        text = "".join(lines[int(first or 1) - 1 : int(last) if last else None])
    return _SECTION_MARK.sub("", text)


def _names_in(text: str) -> Iterator[str]:
    """The file names ``text``'s snippets write (escaped ones not), in fences too."""
    if "8<" not in text:
        return
    for found in SNIPPET.finditer(text):
        if not found.group(1):
            yield found.group(3)
    lines = text.split("\n")
    number = 0
    while number < len(lines):
        close = _block_close(lines, number) if _BLOCK_MARK.match(lines[number]) else None
        if close is None:
            number += 1
            continue
        yield from _block_names(lines[number + 1 : close])
        number = close + 1


def _block_close(lines: Sequence[str], start: int) -> int | None:
    """The line that closes the block of file names ``lines[start]`` opens, None when no
    ``--8<--`` line comes after it with only file names (:data:`_NAME_LINE`) between."""
    for number in range(start + 1, len(lines)):
        if _BLOCK_MARK.match(lines[number]):
            return number
        if not _NAME_LINE.fullmatch(lines[number]):
            return None
    return None


def _block_names(lines: Sequence[str]) -> Iterator[str]:
    """The file names a block's ``lines`` write (blank lines and ``;`` ones aside)."""
    for line in lines:
        if line.strip() and not line.lstrip().startswith(";"):
            yield line.strip()


def snippet_files(issue_path: Path, body: str) -> tuple[Attachment, ...]:
    """The files the snippets of ``body`` (and of the files they include) name that lie
    in the issue's folder, with their text. Reads the disk: the loader's, once per issue."""
    folder = issue_path.parent
    found: dict[str, Attachment] = {}
    pending = [body]
    while pending:
        for written in _names_in(pending.pop()):
            name, _ = _named(written)
            relative = block_path("", name)
            if relative is None or written in found:
                continue
            file = folder / relative
            if not file.is_file() or not file.resolve().is_relative_to(folder.resolve()):
                continue
            kind, text = included_text(file)
            found[written] = Attachment("snippet", written, relative, kind, text)
            if kind == "text":
                pending.append(text)
    return tuple(found.values())


def _known(state: StateBlock | StateCore) -> dict[str, Attachment]:
    attached: Attached | None = state.env.get(ATTACHED)
    return attached.snippets if attached is not None else {}


def snippet_block(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """Block rule: a snippet line, or a block of file names between ``--8<--`` lines,
    read as the Markdown of the files it names (see the module)."""
    if state.sCount[start] - state.blkIndent >= 4:
        return False
    line = line_text(state, start)
    if "8<" not in line:
        return False
    single = SNIPPET.fullmatch(line)
    if single is not None:
        if silent:
            return True
        state.line = start + 1
        if single.group(1):  # escaped: the syntax itself, shown
            paragraph(state, line.strip()[1:].replace("\\", "\\\\"), start)
        else:
            _include(state, single.group(3), start)
        return True
    if not _BLOCK_MARK.fullmatch(line):
        return False
    lines = [line_text(state, n) for n in range(start, end)]
    close = _block_close(lines, 0)
    if close is None:
        return False
    if silent:
        return True
    state.line = start + close + 1
    for number in range(start + 1, start + close):
        written = line_text(state, number).strip()
        if written and not written.startswith(";"):
            _include(state, written, number)
    return True


def _include(state: StateBlock, written: str, line: int) -> None:
    """The Markdown of the file the snippet ``written`` names, parsed in its place; if
    it is not in the issue's folder (or includes itself), nothing, and a note for check."""
    including: list[str] = state.env.setdefault(_INCLUDING, [])
    snippet = _known(state).get(written)
    if snippet is None:
        _missing(state, written, line)
        return
    if written in including:
        message = f"'--8<-- \"{written}\"' includes itself, so it is left out there"
        note(state, line, message, MISSING_SNIPPET)
        return
    if snippet.kind != "text":
        note(state, line, _unread(snippet), UNREADABLE_FILE)
        return
    including.append(written)
    parsed_here(state, _part(snippet.text, written), line)
    including.pop()


def _unread(snippet: Attachment) -> str:
    """What check says of a snippet whose file is there but is not included."""
    why = (
        f"is larger than {MAX_INCLUDED_CHARS:,} characters (a log or a data file named by mistake?)"
        if snippet.kind == "too-large"
        else snippet.text
    )
    return (
        f"'--8<-- \"{snippet.written}\"' is a MkDocs snippet, but {snippet.path} {why}; "
        "nothing is included there until then"
    )


def _missing(state: StateBlock, written: str, line: int) -> None:
    name, _ = _named(written)
    note(
        state,
        line,
        f"'--8<-- \"{written}\"' is a MkDocs snippet, but {name} is not in the issue's "
        "folder, so nothing is included there; put the file beside the issue, or paste its "
        "text in place of the line",
        MISSING_SNIPPET,
    )


def snippet_fences(state: StateCore) -> None:
    """Core rule, after the block parse: snippet lines inside a code fence replaced by
    the text of the files they name, as Snippets does before Markdown reads the fence."""
    if "8<" not in state.src:
        return
    known = _known(state)
    for token in state.tokens:
        if token.type != "fence" or "8<" not in token.content:
            continue
        opening = token.map[0] if token.map else 0
        pieces: list[str] = []
        for number, text in enumerate(token.content.splitlines(keepends=True)):
            line = opening + 1 + number  # the code's lines start under the fence's
            found = SNIPPET.fullmatch(text.rstrip("\n"))
            if found is None:
                pieces.append(text)
            elif found.group(1):
                pieces.append(text.replace(";", "", 1))
            elif found.group(3) in known and known[found.group(3)].kind != "text":
                pieces.append(text)  # shown as written, and check says why
                note(state, line, _unread(known[found.group(3)]), UNREADABLE_FILE)
            elif found.group(3) in known:
                part = _part(known[found.group(3)].text, found.group(3))
                pieces.append(part if part.endswith("\n") or not part else part + "\n")
            else:  # most likely a code sample of the syntax: shown, as before Snippets
                pieces.append(text)
                note(
                    state,
                    line,
                    f"'--8<-- \"{found.group(3)}\"' in a code block names no file in the "
                    "issue's folder, so it is shown as written (a code sample of MkDocs's "
                    "snippets?); put the file beside the issue if it was meant to include it",
                    SHOWN_SNIPPET,
                )
        token.content = "".join(pieces)
