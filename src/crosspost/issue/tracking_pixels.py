"""Tracking pixels: the invisible pictures an email carries to learn who opened it.

An email service puts a 1×1 picture in every newsletter it sends (Mailchimp's
``…/track/open.php?u=…``, SendGrid's ``…/wf/open?upn=…``, a ``pixel.gif`` sized
``width="1" height="1"``); a newsletter converted to Markdown keeps it as an image.
Published, it was uploaded to WeChat as a picture of its own (an empty box in the
article, or a download that failed check), and it told the service nothing.

Only clear signs count, so that no picture of the article is lost: a size of at most
one pixel each way written on the image itself (``{width="1" height="1"}``,
``![](a.gif =1x1)``, a raw ``<img width="1" height="1">``), or a web address whose file
is named for open tracking (``open``, ``o``, ``pixel``, ``beacon``) and either sits in a
tracking folder (``/track/open``, ``/wf/open``) or is a GIF or a script asked with a
query (``/o.gif?u=1``, ``/open.php?id=2``, ``/open?token=…``). ``images/open.png`` or a
photo at ``…/pixel.jpg?w=800`` is a picture and stays.

The pixel is left out of every channel (so nothing reads, downloads or uploads it) and
noted in the parse's ``env`` for check to name.
"""

from __future__ import annotations

import html
import re
from urllib.parse import urlsplit

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from crosspost.issue.blocks import IMG_SOURCE, IMG_TAG, LAZY_SOURCE_NAMES, source_of
from crosspost.patterns import pattern

#: Where :func:`tracking_pixels` notes what it left out, in the parse's ``env``: (0-based
#: body line, the picture's address, why it is a pixel).
PIXELS = "crosspost_tracking_pixels"
#: What a pixel's file is named, before its extension.
_PIXEL_NAMES = frozenset({"open", "o", "pixel", "beacon"})
#: Folders a service keeps its pixels in: Mailchimp's ``/track/open.php``, SendGrid's
#: ``/wf/open``.
_TRACKING_FOLDERS = frozenset({"track", "tracking", "trk", "wf"})
#: What a pixel named so is, asked with a query: a GIF, a script's page, no extension.
_PIXEL_EXTENSIONS = frozenset({"", "gif", "php", "asp", "aspx", "cgi", "jsp"})
#: A size of at most one pixel: ``1``, ``0``, ``1px``.
_TINY = pattern(r"[01](?:\.0+)?(?:px)?")
#: A raw tag's width or height, as an attribute or in its style.
_RAW_SIZE = pattern(
    r"""(?<![-\w])(width|height)\s*(?:=\s*["']?|:\s*)(\d+(?:\.\d+)?(?:px)?)""", re.IGNORECASE
)
#: A picture a script loads as the reader scrolls: its size is the placeholder's.
_LAZY = pattern(rf"\s{LAZY_SOURCE_NAMES}\s*=", re.IGNORECASE)

SIZED = "a 1×1 picture"
NAMED = "its address is an email service's open-tracking pixel"


def tracking_pixel(source: str, width: str | None, height: str | None) -> str | None:
    """Why the picture at ``source`` of that size is a tracking pixel (None: it is not)."""
    sizes = (width, height)
    if all(size is not None and _TINY.fullmatch(size.strip()) for size in sizes):
        return SIZED
    address = urlsplit(source.strip())
    if address.scheme.lower() not in ("http", "https") and not source.startswith("//"):
        return None
    folders = [part.lower() for part in address.path.split("/") if part]
    if not folders:
        return None
    name, _, extension = folders.pop().partition(".")
    if name not in _PIXEL_NAMES:
        return None
    if _TRACKING_FOLDERS.intersection(folders):
        return NAMED
    return NAMED if address.query and extension in _PIXEL_EXTENSIONS else None


def tracking_pixels(state: StateCore) -> None:
    """Core rule, after the images' sizes are read: tracking pixels left out, Markdown's
    and raw ``<img>`` ones, and noted in ``env[PIXELS]`` (see the module's docstring).
    A paragraph or raw block that held nothing else goes with its pixel."""
    if "![" not in state.src and "<img" not in state.src.lower():
        return
    lines: list[str] = []  # the source's, split once a pixel is found
    kept: list[Token] = []
    index = 0
    tokens = state.tokens
    while index < len(tokens):
        token = tokens[index]
        found: list[tuple[str, str]] = []
        pictured = "![" in token.content or "<" in token.content  # else no image in it
        if token.type == "inline" and token.children and pictured:
            token.children = _without_pixels(token.children, found)
        elif token.type == "html_block" and "<img" in token.content.lower():
            token.content = _without_raw_pixels(token.content, found)
        if found and token.map:
            lines = lines or state.src.split("\n")
            _note(state, lines, token.map, found)
        if found and token.type == "html_block" and not token.content.strip():
            index += 1
            continue
        emptied = bool(found) and token.type == "inline" and _empty(token.children or [])
        if emptied and kept and kept[-1].type == "paragraph_open":
            kept.pop()
            index += 2  # the inline and the paragraph's close
            continue
        kept.append(token)
        index += 1
    state.tokens = kept


def _without_pixels(children: list[Token], found: list[tuple[str, str]]) -> list[Token]:
    """``children`` without their tracking pixels (and a link that held only a pixel),
    each pixel's address and why added to ``found``."""
    kept: list[Token] = []
    dropped_at = -1  # how many children were kept when the last pixel was left out
    for child in children:
        if child.type == "image":
            source = str(child.attrGet("src") or "")
            why = tracking_pixel(source, _size(child, "width"), _size(child, "height"))
            if why is not None:
                found.append((source, why))
                dropped_at = len(kept)
                continue
        elif child.type == "html_inline" and child.content.lower().startswith("<img"):
            child.content = _without_raw_pixels(child.content, found)
            if not child.content:
                dropped_at = len(kept)
                continue
        linked = kept and kept[-1].type == "link_open" and dropped_at == len(kept)
        if child.type == "link_close" and linked:
            kept.pop()  # the pixel was the link's only content
            continue
        kept.append(child)
    return kept


def _size(image: Token, name: str) -> str | None:
    value = image.attrGet(name)
    return None if value is None else str(value)


def _without_raw_pixels(fragment: str, found: list[tuple[str, str]]) -> str:
    """``fragment`` of raw HTML without its ``<img>`` tags that are tracking pixels."""
    return IMG_TAG.sub(lambda tag: _raw_pixel(tag, found), fragment)


def _raw_pixel(tag: re.Match[str], found: list[tuple[str, str]]) -> str:
    """A raw ``<img>`` tag, or nothing when it is a tracking pixel."""
    written = tag.group()
    if _LAZY.search(written):
        return written
    source = IMG_SOURCE.search(written)
    address = html.unescape(source_of(source)) if source else ""
    sizes = {name.lower(): value for name, value in _RAW_SIZE.findall(written)}
    why = tracking_pixel(address, sizes.get("width"), sizes.get("height"))
    if why is None:
        return written
    found.append((address, why))
    return ""


def _empty(children: list[Token]) -> bool:
    """Whether ``children`` show nothing: blanks and line breaks at most."""
    blank = ("softbreak", "hardbreak", "text")
    return all(child.type in blank and not child.content.strip() for child in children)


def _note(
    state: StateCore, lines: list[str], where: list[int], found: list[tuple[str, str]]
) -> None:
    """Each pixel of ``found`` in ``env[PIXELS]``, on the line of the block that names it."""
    start, end = where
    for source, why in found:
        line = next((n for n in range(start, min(end, len(lines))) if source in lines[n]), start)
        state.env.setdefault(PIXELS, []).append((line, source, why))
