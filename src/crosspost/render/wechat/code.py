"""Code blocks for WeChat: coloured by Pygments with inline styles, whitespace spelled out.

WeChat collapses runs of spaces and ignores ``white-space: pre``, so every space becomes
``&nbsp;`` and every line break ``<br>``; tabs become four spaces. The colours come from
the theme's Pygments style as ``style=""`` on each span (no classes, no stylesheet).

A block whose lines a site marked (:mod:`crosspost.issue.code_annotations`) is drawn a
line at a time: an added or removed line on a tint of the style's own diff colour (the
one a ```` ```diff ```` block's lines take), its sign (``+``, ``-``) in that colour at its
start; a highlighted line on a faint grey, which reads on a light and a dark block alike.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from crosspost.issue.code_annotations import DIFF_SIGNS, LineMark
from crosspost.patterns import pattern

if TYPE_CHECKING:  # Pygments' lexers and formatter load at the first code block
    from pygments.formatters import HtmlFormatter
    from pygments.lexer import Lexer

_TAG_OR_TEXT = pattern(r"(<[^>]*>)")
_STYLE_ATTRIBUTE = pattern(r'style="([^"]*)"')
#: Pygments writes "color: #008000; font-weight: bold"; the spaces only cost characters.
_STYLE_GAP = pattern(r"\s*([:;])\s*")
#: A highlighted line's background: grey, faint, darker on a light block, lighter on a
#: dark one.
_MARKED_BACKGROUND = "rgba(128,128,128,.13)"
#: How strongly a diff's colour tints its line: enough to see, not enough to dim the code.
_DIFF_TINT = ".15"
_HEX_COLOUR = pattern(r"[0-9A-Fa-f]{6}")


@functools.lru_cache(maxsize=64)
def _lexer(language: str) -> Lexer:
    from pygments.lexers import TextLexer, get_lexer_by_name
    from pygments.util import ClassNotFound

    if language:
        try:
            lexer: Lexer = get_lexer_by_name(language, stripnl=False)
            return lexer
        except ClassNotFound:
            pass
    plain: Lexer = TextLexer(stripnl=False)
    return plain


@functools.lru_cache(maxsize=16)
def _formatter(style: str) -> HtmlFormatter[str]:
    from pygments.formatters import HtmlFormatter

    return HtmlFormatter(style=style, noclasses=True, nowrap=True)


def _compact_style(match: re.Match[str]) -> str:
    return 'style="' + _STYLE_GAP.sub(r"\1", match.group(1)) + '"'


def _keep_whitespace(text: str) -> str:
    # WeChat collapses spaces and ignores white-space:pre, so every space is written out.
    return text.replace(" ", "&nbsp;").replace("\n", "<br>")


def _for_wechat(coloured: str) -> str:
    """Pygments' HTML with its styles compacted and its whitespace spelled out."""
    return "".join(
        _STYLE_ATTRIBUTE.sub(_compact_style, part)
        if part.startswith("<")
        else _keep_whitespace(part)
        for part in _TAG_OR_TEXT.split(coloured)
    )


@functools.lru_cache(maxsize=16)
def _diff_colours(style: str) -> dict[LineMark, str]:
    """The colours of an added and a removed line in the Pygments style ``style``, as
    ``rrggbb``: its ``Generic.Inserted`` and ``Generic.Deleted``, else GitHub's (a style
    may colour no diff, or name a terminal's colour, ``ansigreen``)."""
    from pygments.styles import get_style_by_name
    from pygments.token import Generic

    found = get_style_by_name(style)
    inserted = found.style_for_token(Generic.Inserted)["color"] or ""
    deleted = found.style_for_token(Generic.Deleted)["color"] or ""
    return {
        "added": inserted if _HEX_COLOUR.fullmatch(inserted) else "22863a",
        "removed": deleted if _HEX_COLOUR.fullmatch(deleted) else "b31d28",
    }


def _line_html(line: str, mark: LineMark, signed: bool, style: str) -> str:
    """One line of a marked block: a block of its own on its mark's background, with a
    diff's sign (or room for one) before it when the block has a diff in it."""
    sign = DIFF_SIGNS.get(mark, "")
    if sign:
        colour = _diff_colours(style)[mark]
        tint = f"rgba({int(colour[:2], 16)},{int(colour[2:4], 16)},{int(colour[4:], 16)},"
        background = f";background:{tint}{_DIFF_TINT})"
        line = f'<span style="color:#{colour}">{sign}</span>&nbsp;{line}'
    else:
        background = f";background:{_MARKED_BACKGROUND}" if mark else ""
        line = f"&nbsp;&nbsp;{line}" if signed and line else line
    # An empty block has no height: a <br> gives an empty line its own.
    return f'<span style="display:block{background}">{line or "<br>"}</span>'


def highlight_code(code: str, language: str, style: str, marks: Sequence[LineMark] = ()) -> str:
    """Code coloured by Pygments with inline styles only, every space and line kept;
    its lines drawn as ``marks`` (one per line) say."""
    from pygments import highlight

    code = code.replace("\t", "    ").rstrip("\n")
    coloured = highlight(code, _lexer(language.lower()), _formatter(style))
    coloured = coloured.rstrip("\n")
    # Pygments closes its spans at each line's end, so the lines part cleanly.
    lines = coloured.split("\n")
    if not any(marks) or len(lines) != code.count("\n") + 1:
        return f'<span style="display:block">{_for_wechat(coloured)}</span>'
    signed = any(mark in DIFF_SIGNS for mark in marks)
    drawn = "".join(
        _line_html(_for_wechat(line), marks[n] if n < len(marks) else "", signed, style)
        for n, line in enumerate(lines)
    )
    # At least as wide as the block, so a line's background reaches its right edge.
    return f'<span style="display:block;min-width:100%">{drawn}</span>'
