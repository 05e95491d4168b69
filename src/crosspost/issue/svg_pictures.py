"""Pictures whose SVG is written into their address (``data:image/svg+xml,…``).

A WeChat article loads each picture as the reader scrolls, and until then shows a
placeholder: a 1×1 SVG written into the ``<img>`` itself. Saved as Markdown (html2text,
markdownify) it is ``![](data:image/svg+xml,%3C%3Fxml version='1.0' …width='1px'
height='1px'…%3C/svg%3E)``, its blanks unencoded and, from html2text, its lines wrapped.
markdown-it made no picture of it (a blank in an address, or an SVG's ``data:`` address,
which it distrusts), so both channels printed the SVG's source as text, whole.

Here each such picture is read before the block parse, its SVG decoded (percent-encoded
or base64):

* a placeholder (a size of at most one pixel each way, or an SVG that draws nothing) is
  left out of every channel, its lines kept as blank lines, and noted for check, as a
  tracking pixel is (:mod:`crosspost.issue.tracking_pixels`);
* any other is a picture like the rest: its address is written so that Markdown reads it
  (blanks and brackets percent-encoded, on one line; the lines it took follow it, blank,
  so the body keeps its line numbers), and check says of it what it says of every SVG.

:func:`accept_svg_addresses` lets the parse take an SVG's ``data:`` address for a picture.
Code (fences, spans) is never touched.
"""

from __future__ import annotations

import base64
import binascii
import re
from urllib.parse import unquote

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore

from crosspost.issue.blocks import NOTES, in_code_span, line_at, outside_fences, shortened
from crosspost.patterns import pattern

#: An SVG's ``data:`` address, as markdown-it checks it (trimmed, in lower case).
SVG_ADDRESS = pattern(r"^\s*data:image/svg\+xml[;,]", re.IGNORECASE)
#: A picture whose address is an SVG's: its alt words, the address's header (``;base64``,
#: ``;charset=utf-8``) and what follows the comma, to the ``)`` that closes the picture.
#: The SVG may hold brackets of its own (``translate(-249, -126)``, one level deep) and
#: blanks; the picture never runs over a blank line.
_PICTURE = pattern(
    r"!\[([^\[\]\n]{0,300})\]\(\s*data:image/svg\+xml([^,()\s]{0,60}),"
    r"((?:[^()\n]|\n(?![ \t]*\n)|\([^()\n]*\)){0,200000})\)",
    re.IGNORECASE,
)
#: A title after the address, as turndown writes one (``"…"``), after the SVG's end.
_TITLE = pattern(r"(?<=\S)[ \t\n]+(\"[^\"\n]*\"|'[^'\n]*')[ \t\n]*$")
#: The SVG's opening tag, and a size given on it.
_SVG_TAG = pattern(r"<svg\b[^>]*>", re.IGNORECASE)
_SIZE = pattern(
    r"""(?<![-\w])(width|height)\s*=\s*["']?\s*(\d+(?:\.\d+)?)\s*(?:px)?\s*["']?""",
    re.IGNORECASE,
)
_VIEW_BOX = pattern(r"""viewBox\s*=\s*["']\s*[-\d.]+[\s,]+[-\d.]+[\s,]+([\d.]+)[\s,]+([\d.]+)""")
#: What an SVG holds that shows nothing: its declaration, comments, title and the like.
_UNSEEN = pattern(
    r"<\?.*?\?>|<!--.*?-->|<(title|desc|metadata|defs|style)\b[^>]*>.*?</\1\s*>",
    re.IGNORECASE | re.DOTALL,
)
#: An element that draws.
_DRAWING = pattern(
    r"<(?:path|rect|circle|ellipse|line|polyline|polygon|text|image|use|foreignObject)\b",
    re.IGNORECASE,
)
#: What an address may not hold for Markdown to read it.
_UNREADABLE = pattern(r"[\s()<>]")
#: The code check files the notes under (a warning).
CODE = "placeholder-picture"


def accept_svg_addresses(md: MarkdownIt) -> None:
    """Let ``md`` take an SVG's ``data:`` address for a link's or a picture's, which
    markdown-it refuses: :func:`svg_pictures` has read the placeholders out, and the
    channels treat what is left as they treat any picture's address."""
    validate = md.validateLink

    def validate_link(url: str) -> bool:
        if SVG_ADDRESS.match(url):
            return not _active(url)  # an SVG that runs anything stays words
        return validate(url)

    md.validateLink = validate_link  # type: ignore[method-assign]


#: What makes an SVG run something when opened: a script, an event handler, a script's
#: address, or HTML inside it.
_ACTIVE = pattern(r"<script|<foreignobject|\son[a-z]+\s*=|javascript:", re.IGNORECASE)


def _active(url: str) -> bool:
    """Whether the SVG a ``data:`` address holds could run something (or cannot be read,
    so could)."""
    header, _, payload = url.strip()[len("data:image/svg+xml") :].partition(",")
    svg = _decoded(header, payload)
    return svg is None or bool(_ACTIVE.search(svg))


def svg_pictures(state: StateCore) -> None:
    """Core rule, before the block parse: SVG pictures read (see the module)."""
    if "data:image/svg" not in state.src.lower():
        return
    notes = state.env.setdefault(NOTES, [])

    def read(found: re.Match[str]) -> str:
        text, at = found.string, found.start()
        written = found.group(0)
        if in_code_span(text, at):
            return written
        alt, header, payload = found.groups()
        title = _TITLE.search(payload)
        if title:
            payload = payload[: title.start()]
        svg = _decoded(header, payload)
        if svg is None:
            return written
        breaks = "\n" * written.count("\n")
        active = bool(_ACTIVE.search(svg))
        if active or _is_placeholder(svg):
            shown = " ".join(f"data:image/svg+xml{header},{payload}".split())
            shown = shortened(shown, 50)
            notes.append((line_at(text, at), CODE, _message(shown, active=active)))
            return breaks
        if not _UNREADABLE.search(payload):
            return written
        address = f"data:image/svg+xml{header}," + _UNREADABLE.sub(_encoded, payload.strip())
        after = f" {title.group(1)}" if title else ""
        return f"![{alt}]({address}{after}){breaks}"

    state.src = outside_fences(_PICTURE, state.src, read)


def _decoded(header: str, payload: str) -> str | None:
    """The SVG an address's ``payload`` holds (None: it holds no SVG to read)."""
    if header.lower().endswith(";base64"):
        try:
            data = base64.b64decode("".join(payload.split()), validate=True)
        except (binascii.Error, ValueError):
            return None
        svg = data.decode("utf-8", "replace")
    else:
        svg = unquote(" ".join(payload.split("\n")))
    return svg if "<svg" in svg.lower() else None


def _is_placeholder(svg: str) -> bool:
    """Whether ``svg`` shows nothing a reader would miss: at most a pixel each way (by
    its size, else its view box), or no element that draws."""
    opening = _SVG_TAG.search(svg)
    if opening is None:
        return False
    sizes = {name.lower(): float(value) for name, value in _SIZE.findall(opening.group(0))}
    if not sizes:
        box = _VIEW_BOX.search(opening.group(0))
        if box:
            sizes = {"width": float(box.group(1)), "height": float(box.group(2))}
    if len(sizes) == 2 and all(size <= 1 for size in sizes.values()):
        return True
    return not _DRAWING.search(_UNSEEN.sub("", svg[opening.end() :]))


def _encoded(found: re.Match[str]) -> str:
    """A character an address may not hold, percent-encoded (a line break was a blank
    before a converter wrapped the line)."""
    char = found.group(0)
    return "%20" if char == "\n" else f"%{ord(char):02X}"


def _message(shown: str, *, active: bool = False) -> str:
    if active:
        return (
            f"the picture '{shown}' is an SVG that runs something (a script, an event "
            "handler or HTML inside it), so it is left out of every channel; export the "
            "drawing as PNG and link that instead"
        )
    return (
        f"the picture '{shown}' is a placeholder (an SVG of one pixel, or one that draws "
        "nothing: a WeChat article shows it until the real picture loads), so it is left "
        "out of every channel; delete it from the issue to silence this"
    )
