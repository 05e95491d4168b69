"""Raw HTML inside an issue, made safe for WeChat.

Markdown lets an editor write HTML; WeChat strips scripts, ignores classes and refuses
links outside mp.weixin.qq.com. Raw HTML is first cut down to :data:`ALLOWLIST` by the
shared sanitiser (:mod:`crosspost.render.sanitize`): what WeChat shows, including
inline SVG (how formulas and diagrams reach WeChat), and nothing active. Then
:class:`RawHtmlSanitiser` maps what is left onto WeChat's habits (``<section>`` for
``<div>``, image sizes as styles, external links as numbered references). Raw HTML
arrives from markdown-it in pieces (an inline ``<span>`` and its ``</span>`` are
separate tokens), so that mapping works tag by tag on a stream rather than on a tree.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass
from html.parser import HTMLParser

from crosspost.render.sanitize import MEDIA_LABELS, VOID, Allowlist

MP_LINK = re.compile(r"^https?://mp\.weixin\.qq\.com(?:[/?#]|$)", re.IGNORECASE)

#: WeChat keeps ``<section>`` where it drops ``<div>`` and friends.
AS_SECTION = frozenset({"div", "center", "article", "header", "footer", "aside", "nav", "main"})

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


def is_mp_link(url: str) -> bool:
    """Whether ``url`` is a WeChat article link, the only kind WeChat lets readers follow."""
    return bool(MP_LINK.match(url.strip()))


@dataclass(frozen=True)
class Reference:
    """One entry of the reference list: ``[number] text: url`` (text may be empty)."""

    number: int
    text: str
    url: str


def _style_size(value: str) -> str:
    value = value.strip()
    return f"{value}px" if value.isdigit() else value


class RawHtmlSanitiser(HTMLParser):
    """Maps one piece of already cleaned raw HTML onto WeChat's habits.

    State that spans pieces lives in what is passed in: ``links`` is the stack of raw
    ``<a>`` tags still open (their reference entry, or the closing tag to write), and
    ``reference(url, text)`` numbers an external link like a Markdown one.
    ``link_text`` names a raw ``<a>`` whose text lies outside this piece (inline HTML).
    """

    def __init__(
        self,
        links: list[Reference | str],
        reference: Callable[[str, str], Reference],
        *,
        link_text: str = "",
    ) -> None:
        super().__init__(convert_charrefs=True)
        self._links = links
        self._reference = reference
        self._out: list[str] = []
        self._pre = 0
        self._tables = 0
        self._link_text = link_text
        #: Links opened in this piece, innermost last: (href, title, text so far), or
        #: None for a link that is not numbered.
        self._open: list[tuple[str, str, list[str]] | None] = []

    def clean(self, cleaned: str) -> str:
        """WeChat's HTML for ``cleaned``, the output of the shared sanitiser."""
        self.feed(cleaned)
        self.close()
        for link in self._open:  # closed in a later piece: named by the text given
            if link is not None:
                href, title, _ = link
                self._reference(href, self._link_text or title)
        return "".join(self._out)

    # --- tags ---------------------------------------------------------------------
    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        kept = {name: value or "" for name, value in attrs if name != "style" or value}
        if tag == "a":
            self._open_link(kept)
            return
        if tag == "center":
            kept["style"] = "text-align:center;" + kept.get("style", "")
        if tag in AS_SECTION:
            tag = "section"
        if tag == "img":
            if not kept.get("src"):
                return  # its source was not a URL WeChat may load (javascript:, …)
            sizes = [
                f"{key}:{_style_size(kept.pop(key))}" for key in ("width", "height") if key in kept
            ]
            if sizes:
                kept["style"] = ";".join([*sizes, kept.get("style", "")]).rstrip(";")
            kept["class"] = "image"
        if tag == "pre":
            self._pre += 1
        if tag == "table":  # like a Markdown table: scrolls sideways, splits no word
            kept["class"] = "table"
            self._tables += 1
            if self._tables == 1:  # a table nested in a cell scrolls with its parent
                self._out.append('<section class="table-scroll">')
        self._out.append(f"<{tag}{_attributes(kept)}>")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if tag == "a":
            self._close_link()
            return
        if tag == "pre":
            self._pre = max(0, self._pre - 1)
        self._out.append(f"</{'section' if tag in AS_SECTION else tag}>")
        if tag == "table" and self._tables:
            self._tables -= 1
            if not self._tables:
                self._out.append("</section>")

    def _open_link(self, attrs: dict[str, str]) -> None:
        href = attrs.get("href", "").strip()
        if is_mp_link(href):
            self._links.append("</a>")
            self._out.append(f'<a href="{html.escape(href)}">')
            self._open.append(None)
        elif not href or href.startswith("#"):  # javascript: hrefs are gone already
            self._links.append("")
            self._open.append(None)
        else:
            # Numbered now (references keep document order), named once its text is known.
            self._links.append(self._reference(href, ""))
            self._open.append((href, attrs.get("title", "").strip(), []))

    def _close_link(self) -> None:
        link = self._open.pop() if self._open else None
        if link is not None:  # opened in this piece: its text is what it enclosed
            href, title, parts = link
            self._reference(href, " ".join("".join(parts).split()) or title)
        entry = self._links.pop() if self._links else ""
        if isinstance(entry, str):
            self._out.append(entry)
        else:
            self._out.append(f'<sup class="footnote-ref">[{entry.number}]</sup>')

    # --- text -----------------------------------------------------------------------
    def handle_data(self, data: str) -> None:
        # No newline to drop after <pre>: the sanitiser's parser has dropped it already.
        for link in self._open:
            if link is not None:
                link[2].append(data)
        text = html.escape(data, quote=False)
        if self._pre:  # WeChat ignores white-space:pre; spell out spaces and lines
            text = text.replace("\t", "    ").replace(" ", "&nbsp;").replace("\n", "<br>")
        self._out.append(text)


def _attributes(attrs: dict[str, str]) -> str:
    return "".join(f' {name}="{html.escape(value)}"' for name, value in attrs.items())
