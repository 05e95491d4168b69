"""AsciiDoc pasted into Markdown: admonition and source blocks, pictures, links.

A passage copied from an AsciiDoc (Asciidoctor, Antora) page keeps its syntax. An
admonition block, ``[WARNING]`` over ``====`` … ``====``, read as Markdown was two
headings (``====`` underlines the line above it): its kind and its first line shown as
titles. A source block, ``[source,python]`` over ``----`` … ``----``, was a paragraph
between two rules, the code's lines run together. ``image::a.png[说明]`` was shown as
written and never uploaded, and ``link:https://x.org[words]`` or
``https://x.org[words]`` linked an address ending ``[words`` with ``]`` after it.

Here an admonition block (``====`` or an open block's ``--``; or the one paragraph under
``[NOTE]``) is a callout of its kind, titled by a ``.Title`` line over it; a source or
listing block is a code block of its language; ``image::`` alone on a line, and
``image:`` within one, the picture, its text in brackets its alt text; and a link its
words, linked. An admonition written as a paragraph, ``NOTE: …``, reads well as it is
and stays.

A block whose closing delimiter never comes (``[NOTE]`` over ``====`` and no second
``====``) was two headings again. Asciidoctor reads such a block to the end of the
document, with a warning; so does crosspost (to the end of the list item or quote it
stands in), and check says where to close it: every line is shown, none as a heading.
"""

from __future__ import annotations

import re

from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore

from crosspost.issue.blocks import (
    NOTES,
    escaped,
    inner,
    line_match,
    line_text,
    outside_code,
    paragraph,
)
from crosspost.issue.callouts import callout_kind
from crosspost.patterns import pattern

#: The code check files its warning under: a block never closed, read to the end.
UNCLOSED = "asciidoc-unclosed"
#: A block's attribute line: ``[NOTE]``, ``[source,python]``, ``[,js]``, ``[listing]``.
_ATTRIBUTES = pattern(
    r"\[(?:(NOTE|TIP|IMPORTANT|WARNING|CAUTION)|(source|listing)?(?:,\s*([\w+#.-]*))?[^\]\n]*)\]"
    r"[ \t]*"
)
#: A block's title line: ``.Title`` (not ``..``, not ``. `` a sentence's end).
_TITLE = pattern(r"\.([^\s.][^\n]*)")
#: A block picture: ``image::path[alt, width, height]``.
_PICTURE = pattern(r"image::([^\s\[\]]+)\[([^\]\n]*)\][ \t]*")
#: Links and pictures within a line: ``link:url[words]``, ``https://url[words]``,
#: ``image:path[alt]`` (group 1 says which). A bare address followed by a number in
#: brackets, ``https://x.org[1]``, is a citation's mark after a link, not its words.
_INLINE = pattern(
    r"(?<![\w!\]/(<])(?:(link:|image:)(?!:)|(?=(?:https?|ftp|mailto):))"
    r"([^\s\[\]<>]*[^\s\[\]<>)])\[(?!\^)([^\]\n]*)\]"
)


def asciidoc_block(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """Block rule: an admonition or a source block (its attribute line over its
    delimiters, maybe a title line over that), or a block picture."""
    if state.sCount[start] - state.blkIndent >= 4:
        return False
    picture = line_match(state, start, "image::", _PICTURE)
    if picture is not None:
        if not silent:
            alt = picture.group(2).split(",")[0].strip().strip('"')
            paragraph(state, f"![{escaped(alt)}](<{picture.group(1)}>)", start)
            state.line = start + 1
        return True
    title = ""
    at = start
    titled = line_match(state, start, ".", _TITLE)
    if titled is not None and start + 1 < end:
        title, at = titled.group(1).strip(), start + 1
    found = line_match(state, at, "[", _ATTRIBUTES)
    if found is None or at + 1 >= end:
        return False
    kind, listing, language = found.group(1), found.group(2), found.group(3)
    if not kind and not listing and language is None:
        return False  # [.role] or [[anchor]]: not a block this module reads
    delimiter = _line(state, at + 1)
    fenced = re.fullmatch(r"={4,}|-{4,}|--|\.{4,}", delimiter) is not None
    if not fenced and not kind:
        return False
    close = (
        _closing(state, at + 1, end, delimiter) if fenced else _paragraph_end(state, at + 1, end)
    )
    if close is None and not fenced:
        return False
    if silent:
        return True
    if close is None:  # as Asciidoctor reads it: the block runs to the end
        close = after = _container_end(state, at + 1, end)
        _note_unclosed(state, at, found.group(0).strip(), delimiter)
    else:
        after = close + 1 if fenced else close
    if kind:
        token = state.push("container_callout_open", "div", 1)
        token.info = f"{callout_kind(kind)} {title}".strip()
        token.markup, token.map = ":::", [start, after]
        inner(state, at + 1 if fenced else at, close)
        state.push("container_callout_close", "div", -1).markup = ":::"
        state.line = after
        return True
    if title:
        paragraph(state, f"**{escaped(title)}**", start)
    token = state.push("fence", "code", 0)
    token.info = language or ""
    token.content = state.getLines(at + 2, close, state.sCount[start], True)
    token.markup, token.map = delimiter, [start, after]
    state.line = after
    return True


def _line(state: StateBlock, line: int) -> str:
    return line_text(state, line).rstrip()


def _closing(state: StateBlock, opened: int, end: int, delimiter: str) -> int | None:
    """The line of the delimiter that closes the block whose delimiter is on ``opened``."""
    return next((n for n in range(opened + 1, end) if _line(state, n) == delimiter), None)


def _container_end(state: StateBlock, opened: int, end: int) -> int:
    """The line after the last of the list item (or the issue) the block opened on
    ``opened`` stands in: the first line less indented than the item's, or ``end``."""
    return next(
        (
            n
            for n in range(opened + 1, end)
            if not state.isEmpty(n) and state.sCount[n] < state.blkIndent
        ),
        end,
    )


def _note_unclosed(state: StateBlock, line: int, attributes: str, delimiter: str) -> None:
    """A note for check: the block under ``attributes`` opened by ``delimiter`` on the
    next line is never closed, so it took every line after it."""
    where = "the issue" if state.level == 0 else "the list item or quote it is in"
    state.env.setdefault(NOTES, []).append(
        (
            line,
            UNCLOSED,
            f"the AsciiDoc block '{attributes}' opened by '{delimiter}' on the next line is "
            f"never closed, so it runs to the end of {where}, as Asciidoctor reads it: every "
            f"line after it is inside it; put '{delimiter}' on a line of its own where the "
            "block ends",
        )
    )


def _paragraph_end(state: StateBlock, first: int, end: int) -> int | None:
    """The blank line (or the end) after the paragraph that starts on ``first``."""
    if state.isEmpty(first):
        return None
    return next((n for n in range(first, end) if state.isEmpty(n)), end)


def asciidoc_links(state: StateCore) -> None:
    """Core rule, before inline parsing: AsciiDoc's links and pictures within a line as
    Markdown's (see the module)."""
    if "[" not in state.src or ("link:" not in state.src and "image:" not in state.src
                                and "://" not in state.src):  # fmt: skip
        return
    for token in state.tokens:
        if token.type == "inline" and "[" in token.content and ":" in token.content:
            token.content = outside_code(token.content, _read)


def _read(text: str) -> str:
    return _INLINE.sub(_markdown_of, text)


def _markdown_of(found: re.Match[str]) -> str:
    kind, address, words = found.group(1), found.group(2), found.group(3)
    if kind == "image:":
        alt = words.split(",")[0].strip().strip('"')
        return f"![{escaped(alt)}](<{address}>)"
    if found.end() < len(found.string) and found.string[found.end()] == "(":
        return found.group(0)  # [words](…) after an address: Markdown's own link
    if kind is None and words.strip().isdigit():
        return found.group(0)  # https://x.org[1]: a citation's mark, not the link's words
    shown = words.split(",")[0].strip().strip('"') or address
    return f"[{escaped(shown)}](<{address}>)"
