"""Feishu's (Lark's) document blocks, as its export to Markdown leaves them in HTML.

Feishu writes the blocks Markdown has no form for as elements of its own around their
Markdown: a callout (``<callout emoji="💡">``, a box with an emoji), a quote of several
paragraphs (``<quote-container>``) and columns side by side (``<grid cols="2">``, a
``<column>`` each), often with no blank line inside, or the whole callout on one line.
Read as HTML, a callout and a quote were plain paragraphs (a quote read as the author's
words), the Markdown of a column came out as written (``**本周** - 新增用户``), and
check advised escaping the brackets, which would have shown the tags to readers.

Here each is read as the Markdown construct it draws: a callout (its emoji its title, as
Feishu shows it), a quote, and each column's content in turn, one after another as a
phone shows columns. The Markdown inside is read whether or not blank lines set it off.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from markdown_it.rules_block import StateBlock

from crosspost.issue.blocks import FENCE_LINE, NOTES, html_attributes, quoted
from crosspost.issue.callouts import CALLOUT_LABELS, PLAIN_CALLOUT, callout_kind
from crosspost.patterns import pattern

#: Feishu's blocks read here, by the element that opens them (in lower case, as Feishu
#: writes them: ``<Callout>`` is an MDX component).
BLOCKS = frozenset({"callout", "quote-container", "grid", "column"})
#: Feishu's inline elements, which its export also leaves as HTML: coloured text
#: (``<text color="red">``) and mentions of a person or a document. Every channel keeps
#: their words; check says what goes (:mod:`crosspost.check.source`).
INLINE = frozenset({"text", "mention-user", "mention-doc"})

_ATTRIBUTES = r"""(?:\s+[^\s"'<>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'<>=`]+))?)*"""
#: A block's opening tag: its name, its attributes.
_OPENING = pattern(rf"<(callout|quote-container|grid|column)({_ATTRIBUTES})\s*>")
#: Each block's tags, opening and closing (``/`` in group 1).
_TAGS = {name: pattern(rf"<(/?){name}(?=[\s>/])[^<>]*>") for name in BLOCKS}

#: The kind of callout an emoji stands for (Feishu names no kind: its callout is an emoji
#: and a colour); an emoji not here is a plain note.
_EMOJI_KINDS = {
    "💡": "tip", "✨": "tip", "👍": "tip", "✅": "tip", "🎉": "tip",
    "⚠": "warning", "🚧": "warning", "⏰": "warning", "🔔": "warning",
    "❗": "caution", "‼": "caution", "🚨": "caution", "🔥": "caution",
    "❌": "danger", "⛔": "danger", "🚫": "danger",
    "ℹ": "info", "📢": "info", "📣": "info",
    "📌": "important", "⭐": "important", "🌟": "important",
}  # fmt: skip
#: Feishu's callout colours (``background-color="light-red"``), for a callout whose emoji
#: says no kind.
_COLOUR_KINDS = {"red": "caution", "orange": "warning", "yellow": "warning",
                 "green": "tip", "blue": "info", "purple": "important"}  # fmt: skip

#: Check's code for the note on columns shown one after another.
FEISHU_COLUMNS = "feishu-columns"


class _Span(NamedTuple):
    """Where a block's closing tag is: its line, and where the tag begins and ends."""

    line: int
    start: int
    end: int


def feishu_block(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """A block rule: Feishu's ``<callout>``, ``<quote-container>``, ``<grid>`` or
    ``<column>`` opening the line, to the tag that closes it (on that line or a later
    one), as a callout, a quote, or its content alone; the Markdown inside, between the
    tags, is read as Markdown. An element never closed is left to the HTML rules."""
    if state.sCount[start] - state.blkIndent >= 4:
        return False
    begin = state.bMarks[start] + state.tShift[start]
    if not state.src.startswith("<", begin):
        return False
    found = _OPENING.match(state.src, begin, state.eMarks[start])
    if found is None:
        return False
    name = found.group(1)
    closing = _closing(state, name, start, found.end(), end)
    if closing is None:
        return False
    if silent:
        return True
    _read_block(state, name, found, start, closing)
    rest = state.src[closing.end : state.eMarks[closing.line]]
    if not rest.strip():
        state.line = closing.line + 1
        return True
    # More on the closing tag's line (``</column><column width="50">``): the line goes on
    # from there, read as the start of a line.
    _begin_line_at(state, closing.line, closing.end)
    if closing.line > start:
        state.line = closing.line
        return True
    # The whole element was on its line: what follows it there is read here (another
    # element, or a line of Markdown), the line alone.
    if not feishu_block(state, start, end, False):
        old_max = state.lineMax
        state.lineMax = start + 1
        state.md.block.tokenize(state, start, start + 1)
        state.lineMax = old_max
        state.line = start + 1
    return True


def _closing(state: StateBlock, name: str, line: int, after: int, end: int) -> _Span | None:
    """Where the tag that closes ``name`` opened on ``line`` (its tag ending at
    ``after``) is, elements of that name inside it counted; lines of fenced code are
    passed over. None: it never closes before ``end``."""
    tags = _TAGS[name]
    depth = 1
    fence = ""
    for index in range(line, end):
        position = after
        if index > line:  # a later line: it may open or close a fence
            code = FENCE_LINE.match(state.src, state.bMarks[index], state.eMarks[index])
            if fence or code:
                if not fence and code:
                    fence = code.group(1)
                elif code and code.group(1)[0] == fence[0] and len(code.group(1)) >= len(fence):
                    fence = ""
                continue
            position = state.bMarks[index] + state.tShift[index]
        for tag in tags.finditer(state.src, position, state.eMarks[index]):
            if tag.group(1):
                depth -= 1
                if not depth:
                    return _Span(index, tag.start(), tag.end())
            elif not tag.group(0).endswith("/>"):
                depth += 1
    return None


def _read_block(
    state: StateBlock, name: str, opening: re.Match[str], start: int, closing: _Span
) -> None:
    """The tokens of one block: its own (a callout's, a quote's; a grid and its columns
    have none), and those of the Markdown between its tags."""
    last = closing.line
    if name == "callout":
        kind, title = _callout(_attributes(opening.group(2)))
        token = state.push("callout_open", "section", 1)
        token.meta = {"kind": kind, "name": kind, "title": title}
        token.markup, token.map = opening.group(0), [start, last + 1]
        _read_inside(state, opening, start, closing)
        state.push("callout_close", "section", -1).markup = "</callout>"
    elif name == "quote-container":
        with quoted(state, start, last):
            _read_inside(state, opening, start, closing)
    else:
        if name == "grid":
            message = (
                "Feishu's columns (<grid>) are shown one after another on every channel, "
                "as a phone shows them: each column's content in turn"
            )
            state.env.setdefault(NOTES, []).append((start, FEISHU_COLUMNS, message))
        _read_inside(state, opening, start, closing)


def _read_inside(state: StateBlock, opening: re.Match[str], start: int, closing: _Span) -> None:
    """The Markdown between a block's tags (``opening`` on line ``start``, ``closing``),
    read as the lines of a container: the tags' own text left out."""
    last = closing.line
    saved = (state.bMarks[start], state.tShift[start], state.eMarks[last])
    old_parent, old_max = state.parentType, state.lineMax
    _begin_line_at(state, start, opening.end())
    state.eMarks[last] = closing.start
    state.parentType = "container"
    state.lineMax = last + 1
    state.md.block.tokenize(state, start, last + 1)
    state.parentType, state.lineMax = old_parent, old_max
    state.bMarks[start], state.tShift[start], state.eMarks[last] = saved


def _begin_line_at(state: StateBlock, line: int, at: int) -> None:
    """Read ``line`` as if it began at offset ``at`` (after a tag on it), indented as the
    line is: what follows the tag stays in the list item or quote the line is in."""
    blank = at
    while blank < state.eMarks[line] and state.src[blank] in " \t":
        blank += 1
    state.bMarks[line] = at
    state.tShift[line] = blank - at


def _attributes(written: str) -> dict[str, str]:
    return dict(html_attributes(written))


def _callout(attributes: dict[str, str]) -> tuple[str, str]:
    """A Feishu callout's kind and title: its emoji is its title (Feishu shows nothing
    else above its words), and says its kind where it is a known one, else its colour
    does. An emoji written as a name (``emoji="warning"``) is a kind's name."""
    emoji = attributes.get("emoji", "").strip()
    if emoji and emoji.replace("_", "").isascii():
        kind = callout_kind(emoji)
        return kind, CALLOUT_LABELS[kind]
    kind = _EMOJI_KINDS.get(emoji.replace("\ufe0f", ""), "")
    if not kind:
        colour = attributes.get("background-color", "") or attributes.get("border-color", "")
        kind = next(
            (named for word, named in _COLOUR_KINDS.items() if word in colour.lower()),
            PLAIN_CALLOUT,
        )
    return kind, emoji or CALLOUT_LABELS[kind]
