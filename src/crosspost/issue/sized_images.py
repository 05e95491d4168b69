"""Images with more than an address in their brackets: a size, ``![logo](logo.png
=150x150)`` (``=40%x``), or attributes, ``![](a.png align="center")``; and Obsidian's size
after the alt text, ``![截图|300](a.png)`` (``|300x200``).

mdnice and editors built on markdown-it-imsize write an image's size the first way;
Hashnode writes every image of a post the second way. To CommonMark neither is an image:
both channels showed the whole line as written and the picture was neither uploaded nor
shown. Read here as the image it is, a size kept as ``width``/``height`` attributes
(WeChat sizes the picture by them; Zhihu sizes every picture itself); an ``align`` is
left out, as a picture alone on its line is centred anyway. Obsidian's size was read as
words: "截图|300" under the picture.
"""

from __future__ import annotations

import re

from markdown_it.rules_core import StateCore
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


#: Obsidian's size at the end of an image's alt text: ``|300`` or ``|300x200`` pixels.
_ALT_SIZE = pattern(r"^(.*?)\s*\|\s*(\d+)(?:\s*x\s*(\d+))?\s*$", re.DOTALL)


def sizes_in_alt(state: StateCore) -> None:
    """Core rule, after inline parsing: an image whose alt text ends in Obsidian's size
    (``![截图|300](a.png)``) has that size as ``width``/``height`` and the words before it
    as its alt text."""
    if "|" not in state.src:
        return
    for block in state.tokens:
        for token in block.children or ():
            found = _ALT_SIZE.match(token.content) if token.type == "image" else None
            if found is None:
                continue
            alt, width, height = found.groups()
            token.content, token.children = alt, []
            state.md.inline.parse(alt, state.md, state.env, token.children)
            token.attrs["width"] = width
            if height:
                token.attrs["height"] = height
