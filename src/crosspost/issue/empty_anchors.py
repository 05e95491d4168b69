"""Empty anchors: the places converters mark for links into a page, which show nothing.

Pandoc writes a Word bookmark as ``<span id="_Toc123" class="anchor"></span>``, on a line
of its own above a heading or before a paragraph's words; other converters write
``<a id="…"></a>`` or ``<a name="…"></a>``. They hold no words, and a WeChat article or
a Zhihu post keeps no links into itself, so they are left out. Kept, the one above the
title was the body's first paragraph: the ``# `` heading under it no longer opened the
body, and the issue was named after its file. One inside the heading went into the
title as its tags.

They are taken out of each line of Markdown before its inline parse, so what is left (a
heading's words, a paragraph) is read as if they had never been written; a paragraph of
nothing else goes with them. Code spans keep theirs: there the tag is an example.
"""

from __future__ import annotations

import re

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from crosspost.issue.blocks import outside_code
from crosspost.patterns import pattern

#: An ``<a>`` or ``<span>`` closed right after it opens (blanks between at most). Which
#: of them is an anchor is :func:`_anchor`'s question: the attributes are read there.
_EMPTY_ELEMENT = pattern(r"<(a|span)\b([^<>]*)>[ \t]*</\1[ \t]*>", re.IGNORECASE)
#: An attribute that names a place: ``id="…"`` or ``name="…"``.
_PLACE = pattern(r"(?:^|\s)(?:id|name)\s*=", re.IGNORECASE)
#: A link's address: an ``<a href>`` with no words is an empty link, not an anchor.
_ADDRESS = pattern(r"(?:^|\s)href\s*=", re.IGNORECASE)
#: The line an anchor stood alone on, now blank: one line break stays.
_EMPTIED_LINES = pattern(r"\n(?:[ \t]*\n)+")


def _anchor(found: re.Match[str]) -> str:
    """Nothing for an empty element that names a place and links nowhere; else as written."""
    attributes = found.group(2)
    if _PLACE.search(attributes) and not _ADDRESS.search(attributes):
        return ""
    return found.group(0)


def without_anchors(markdown: str) -> str:
    """A line of Markdown (an inline's) without its empty anchors, its code spans as written."""
    if "</" not in markdown:
        return markdown
    return outside_code(markdown, lambda text: _EMPTY_ELEMENT.sub(_anchor, text))


def empty_anchors(state: StateCore) -> None:
    """Core rule, before the inline parse: each heading's, paragraph's and table cell's
    Markdown without its empty anchors (see the module); a paragraph that held nothing
    else is left out."""
    if "</" not in state.src:
        return
    tokens = state.tokens
    emptied: set[int] = set()
    for index, token in enumerate(tokens):
        if token.type != "inline" or "</" not in token.content:
            continue
        written = without_anchors(token.content)
        if written == token.content:
            continue
        # An anchor alone on a line of a paragraph leaves a blank line: the paragraph's
        # lines join over it as they would have without it.
        token.content = _EMPTIED_LINES.sub("\n", written).strip()
        if not token.content and index and tokens[index - 1].type == "paragraph_open":
            emptied.add(index)
    if emptied:  # each with its paragraph's opening and closing
        state.tokens = _without(tokens, emptied)


def _without(tokens: list[Token], emptied: set[int]) -> list[Token]:
    """``tokens`` without the inline tokens at ``emptied`` and their paragraph's tags."""
    return [t for at, t in enumerate(tokens) if not {at - 1, at, at + 1} & emptied]
