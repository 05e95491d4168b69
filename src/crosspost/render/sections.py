"""The levels of a body's own headings, and the level of a section crosspost adds to it.

"往期回顾" (earlier issues of the series) follows the issue's text on every channel. It
is a section of the article like the body's own, so it takes the level of the body's top
sections: an issue written with ``##`` sections gets a ``##`` 往期回顾, one written with
``#`` sections a ``#``. Each channel then shows that level as it shows the body's (Zhihu
maps the highest level used to its ``<h2>``), and the appended section never stands a
level above or below the sections it follows.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from markdown_it.token import Token

from crosspost.patterns import pattern

#: A heading's opening tag in raw HTML: ``<h2 id="x">``.
_RAW_HEADING = pattern(r"<h([1-6])\b", re.IGNORECASE)
#: The level of an added section in a body with no heading of its own: the level an
#: issue's sections are written at under its title (``## 1. …``).
SECTION_LEVEL = 2


def heading_levels(tokens: Sequence[Token]) -> tuple[int, ...]:
    """The levels of the body's own headings, highest first (1 for ``#``; those in quotes
    and lists do not count; raw HTML's ``<h2>`` counts as ``##``); ``()`` when it has none."""
    levels = {
        int(t.tag[1])
        for t in tokens
        if t.type == "heading_open" and t.level == 0 and t.tag[1:].isdigit()
    }
    for token in tokens:
        if token.type == "html_block" and token.level == 0:
            levels.update(int(level) for level in _RAW_HEADING.findall(token.content))
    return tuple(sorted(levels))


def section_level(levels: Sequence[int]) -> int:
    """The heading level of a section added after the body (往期回顾): its top sections'
    level, or :data:`SECTION_LEVEL` when the body has no heading."""
    return levels[0] if levels else SECTION_LEVEL
