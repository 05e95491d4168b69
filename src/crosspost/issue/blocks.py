"""Helpers for block rules that stand for other tools' syntax with Markdown's own tokens.

A tag, a tab or a directive read by the dialect (``template_tags``, ``tabs``) comes out
as the tokens its Markdown form would make, so every renderer shows it with the rules it
already has; these are the few steps all of them take.
"""

from __future__ import annotations

import re

from markdown_it.rules_block import StateBlock

_SPECIAL = re.compile(r"([\\`*_\[\]<>!|~=$])")


def line_match(
    state: StateBlock, line: int, opening: str, whole: re.Pattern[str]
) -> re.Match[str] | None:
    """``whole`` matched against all of ``line`` (its indent left out), when the line
    starts with ``opening`` and is not indented into code; else None."""
    if state.sCount[line] - state.blkIndent >= 4:
        return None
    begin = state.bMarks[line] + state.tShift[line]
    if not state.src.startswith(opening, begin):
        return None
    return whole.fullmatch(state.src, begin, state.eMarks[line])


def escaped(text: str) -> str:
    """``text`` as Markdown that shows it as written."""
    return _SPECIAL.sub(r"\\\1", text)


def paragraph(state: StateBlock, markdown: str, line: int) -> None:
    """A paragraph of ``markdown`` (its inline is parsed with the rest), for ``line``."""
    state.push("paragraph_open", "p", 1).map = [line, line + 1]
    inline = state.push("inline", "", 0)
    inline.content, inline.map, inline.children = markdown, [line, line + 1], []
    state.push("paragraph_close", "p", -1)


def inner(state: StateBlock, start: int, close: int, parent: str = "container") -> None:
    """The lines after ``start`` up to ``close`` read as Markdown, nothing past ``close``
    (no lazy line runs on); ``parent`` is what rules see as the block they are in."""
    was, line_max = state.parentType, state.lineMax
    state.parentType, state.lineMax = parent, close
    state.md.block.tokenize(state, start + 1, close)
    state.parentType, state.lineMax = was, line_max
