"""Raw HTML inside an issue, made safe for WeChat.

Markdown lets an editor write HTML; WeChat strips scripts, ignores classes and refuses
links outside mp.weixin.qq.com. Raw HTML is first cut down to :data:`ALLOWLIST` by the
shared sanitiser (:mod:`crosspost.render.sanitize`): what WeChat shows, including
inline SVG (how formulas and diagrams reach WeChat), and nothing active. Then
:class:`~crosspost.render.wechat.tags.RawHtmlSanitiser` maps what is left onto
WeChat's habits (``<section>`` for ``<div>``, image sizes as styles, external links as
numbered references); it lives apart, with the HTML parser it needs, so that an issue
without raw HTML (and lint, which reads only the allowlist) never loads that parser.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

from crosspost.patterns import pattern
from crosspost.render.sanitize import MEDIA_LABELS, Allowlist

MP_LINK = pattern(r"^https?://mp\.weixin\.qq\.com(?:[/?#]|$)", re.IGNORECASE)

#: WeChat keeps ``<section>`` where it drops ``<div>`` and friends. A ``<details>`` is
#: shown open (WeChat has no disclosure), its ``<summary>`` a line of its own above it.
AS_SECTION = frozenset(
    {"div", "center", "article", "header", "footer", "aside", "nav", "main", "details",
     "summary"}
)  # fmt: skip

#: The drawing elements of inline SVG (no ``defs``/``use``/``foreignObject``: WeChat
#: strips ids, so nothing could refer to them, and drops HTML inside SVG).
SVG_TAGS = frozenset(
    {"svg", "g", "path", "rect", "circle", "ellipse", "line", "polyline", "polygon", "text",
     "tspan"}
)  # fmt: skip
SVG_ATTRIBUTES = frozenset(
    {"viewBox", "width", "height", "xmlns", "version", "preserveAspectRatio", "fill",
     "fill-opacity", "fill-rule", "stroke", "stroke-width", "stroke-linecap",
     "stroke-linejoin", "stroke-dasharray", "stroke-opacity", "opacity", "transform", "d",
     "x", "y", "x1", "y1", "x2", "y2", "dx", "dy", "cx", "cy", "r", "rx", "ry", "points",
     "font-size", "font-family", "font-weight", "text-anchor", "dominant-baseline", "role",
     "aria-hidden", "aria-label", "focusable"}
)  # fmt: skip

#: CSS properties WeChat renders; positioning, animation and the like are left out.
STYLES = frozenset(
    {"color", "background", "background-color", "font", "font-size", "font-weight",
     "font-style", "font-family", "text-align", "text-decoration", "text-indent",
     "line-height", "letter-spacing", "word-spacing", "word-break", "overflow-wrap",
     "white-space", "vertical-align", "display", "width", "height", "max-width",
     "min-width", "max-height", "min-height", "margin", "margin-top", "margin-right",
     "margin-bottom", "margin-left", "padding", "padding-top", "padding-right",
     "padding-bottom", "padding-left", "border", "border-top", "border-right",
     "border-bottom", "border-left", "border-color", "border-style", "border-width",
     "border-radius", "border-collapse", "box-sizing", "overflow", "overflow-x",
     "list-style", "list-style-type", "fill", "stroke", "stroke-width", "opacity"}
)  # fmt: skip

#: The HTML elements WeChat shows (``AS_SECTION`` wrappers come in to become sections;
#: ``<form>``, ``<label>``, ``<marquee>`` and other unknown elements give way to their text).
HTML_TAGS = frozenset(
    {"section", "p", "span", "strong", "b", "em", "i", "u", "s", "del", "ins", "mark",
     "small", "big", "sub", "sup", "code", "kbd", "samp", "var", "abbr", "cite", "q", "dfn",
     "time", "a", "img", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li",
     "dl", "dt", "dd", "blockquote", "pre", "figure", "figcaption", "table", "caption",
     "thead", "tbody", "tfoot", "tr", "th", "td", "colgroup", "col", "ruby", "rt", "rp"}
)  # fmt: skip
#: Removed with everything inside them: active content, media, form controls, MathML.
DROPPED = frozenset(
    {"iframe", "frame", "frameset", "object", "embed", "applet", "template", "textarea",
     "select", "button", "head", "title", "video", "audio", "canvas", "math", "noscript"}
)  # fmt: skip

#: What raw HTML may bring to WeChat.
ALLOWLIST = Allowlist(
    tags=HTML_TAGS | AS_SECTION | SVG_TAGS,
    attributes={
        "*": frozenset({"style", "title", "align", "dir"}),
        "a": frozenset({"href"}),
        "img": frozenset({"src", "alt", "width", "height"}),
        "ol": frozenset({"start", "type", "reversed"}),
        "li": frozenset({"value"}),
        "table": frozenset({"border", "cellpadding", "cellspacing", "width"}),
        "td": frozenset({"colspan", "rowspan", "valign", "width"}),
        "th": frozenset({"colspan", "rowspan", "valign", "width"}),
        "col": frozenset({"span", "width"}),
        "colgroup": frozenset({"span", "width"}),
        **{tag: SVG_ATTRIBUTES for tag in SVG_TAGS},
    },
    dropped=DROPPED,
    styles=STYLES,
    media=frozenset(MEDIA_LABELS),
)


def css_size(value: str) -> str:
    """A size as HTML or an image's Markdown writes it (``150``, ``150px``, ``40%``) as
    CSS: a bare number is pixels."""
    value = value.strip()
    return f"{value}px" if value.replace(".", "", 1).isdigit() else value


def is_mp_link(url: str) -> bool:
    """Whether ``url`` is a WeChat article link, the only kind WeChat lets readers follow."""
    return bool(MP_LINK.match(url.strip()))


def is_bare_url(text: str, href: str) -> bool:
    """Whether a link's text is just its URL (then the URL itself is the useful text)."""

    def plain(url: str) -> str:
        url = url.strip().lower().removeprefix("mailto:")
        url = re.sub(r"^https?://", "", url)
        return url.rstrip("/")

    return bool(text) and plain(text) == plain(href)


@dataclass(frozen=True)
class Reference:
    """One entry of the reference list: ``[number] text: url`` (text may be empty)."""

    number: int
    text: str
    url: str


class RawHtmlState(Protocol):
    """What the pieces of raw HTML in one render share: inline HTML comes one tag a piece,
    so a raw ``<a>`` or ``<abbr>`` opens in one piece and closes in another, and a
    reference number or an abbreviation's title is the issue's, not the piece's."""

    #: Per raw ``<a>`` still open, innermost last: its reference entry, or what its
    #: closing tag writes.
    raw_links: list[Reference | str]
    #: Per raw ``<abbr>`` still open, innermost last: its title.
    raw_abbreviations: list[str]

    def reference(self, url: str, text: str) -> Reference:
        """The numbered entry for ``url``; a URL seen before keeps its first number."""
        ...

    def first_said(self, title: str) -> bool:
        """Whether ``title`` (an abbreviation's) is said here for the first time in the
        issue, which from now on it is not; an empty title never is."""
        ...
