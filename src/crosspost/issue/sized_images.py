"""Images with more than an address in their brackets: a size, ``![logo](logo.png
=150x150)`` (``=40%x``), or attributes, ``![](a.png align="center")``.

mdnice and editors built on markdown-it-imsize write an image's size the first way;
Hashnode writes every image of a post the second way. To CommonMark neither is an image:
both channels showed the whole line as written and the picture was neither uploaded nor
shown. Read here as the image it is, a size kept as ``width``/``height`` attributes
(WeChat sizes the picture by them; Zhihu sizes every picture itself); an ``align`` is
left out, as a picture alone on its line is centred anyway.
"""

from __future__ import annotations

import re

from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

from crosspost.patterns import pattern

#: A size: a number, in pixels (no unit, or ``px``) or a percentage.
_SIZE = r"\d+(?:\.\d+)?(?:px|%)?"
_SIZED_IMAGE = pattern(
    rf"!\[([^\]\n]*)\]\(\s*<?([^\s<>()]+)>?\s+"
    rf"(?:=({_SIZE})?x({_SIZE})?|(?:[a-z-]+=\"[^\"\n]*\"\s*)+)\s*\)",
    re.IGNORECASE,
)


def sized_image(state: StateInline, silent: bool) -> bool:
    """Inline rule, before markdown-it's ``image``: ``![alt](src =WxH)`` (either size may
    be left out) as an ``image`` token."""
    start = state.pos
    if not state.src.startswith("![", start):
        return False
    found = _SIZED_IMAGE.match(state.src, start, state.posMax)
    if found is None:
        return False
    if not silent:
        alt, source, width, height = found.groups()
        token = state.push("image", "img", 0)
        token.attrs = {"src": state.md.normalizeLink(source), "alt": ""}
        children: list[Token] = []
        state.md.inline.parse(alt, state.md, state.env, children)
        token.children = children
        token.content = alt
        for name, value in (("width", width), ("height", height)):
            if value:
                token.attrs[name] = value
    state.pos = found.end()
    return True
