"""Code blocks for WeChat: coloured by Pygments with inline styles, whitespace spelled out.

WeChat collapses runs of spaces and ignores ``white-space: pre``, so every space becomes
``&nbsp;`` and every line break ``<br>``; tabs become four spaces. The colours come from
the theme's Pygments style as ``style=""`` on each span (no classes, no stylesheet).
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

from crosspost.patterns import pattern

if TYPE_CHECKING:  # Pygments' lexers and formatter load at the first code block
    from pygments.formatters import HtmlFormatter
    from pygments.lexer import Lexer

_TAG_OR_TEXT = pattern(r"(<[^>]*>)")
_STYLE_ATTRIBUTE = pattern(r'style="([^"]*)"')
#: Pygments writes "color: #008000; font-weight: bold"; the spaces only cost characters.
_STYLE_GAP = pattern(r"\s*([:;])\s*")


@functools.lru_cache(maxsize=64)
def _lexer(language: str) -> Lexer:
    from pygments.lexers import TextLexer, get_lexer_by_name
    from pygments.util import ClassNotFound

    if language:
        try:
            lexer: Lexer = get_lexer_by_name(language, stripnl=False, ensurenl=False)
            return lexer
        except ClassNotFound:
            pass
    plain: Lexer = TextLexer(stripnl=False, ensurenl=False)
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


def highlight_code(code: str, language: str, style: str) -> str:
    """Code coloured by Pygments with inline styles only, every space and line kept."""
    from pygments import highlight

    code = code.replace("\t", "    ").rstrip("\n")
    coloured = highlight(code, _lexer(language.lower()), _formatter(style))
    coloured = coloured.rstrip("\n")
    parts = _TAG_OR_TEXT.split(coloured)
    html_text = "".join(
        _STYLE_ATTRIBUTE.sub(_compact_style, part)
        if part.startswith("<")
        else _keep_whitespace(part)
        for part in parts
    )
    return f'<span style="display:block">{html_text}</span>'
