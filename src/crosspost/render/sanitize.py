"""Raw HTML in an issue, cut down to one channel's allowlist.

Each channel declares what it keeps (an :class:`Allowlist` next to its renderer); this
module applies it, the same way for every channel. The work is done by nh3, the Python
binding of Ammonia: it parses with html5ever, a complete HTML5 tree builder, so void
elements (``<source>``, ``<input>``, ``<br>``) never swallow what follows, unclosed
``<p>`` and nested tables end where a browser would end them, and the output is balanced
HTML that the channel's own code can then map onto its dialect. Being an allowlist,
anything a channel did not name (``<marquee>``, ``<canvas>``, an ``onclick``) is gone,
and its text stays unless the channel asked for the element to go with its content.
nh3 rather than bs4 with html5lib: sanitising is its whole job (URL schemes, CSS
properties, foreign SVG content included), so none of that is ours to get right, and
it is fast enough to run once per inline tag.

markdown-it hands inline HTML over one tag at a time (``<span>``, then Markdown text,
then ``</span>``), which no parser can balance on its own; :class:`TagStream` keeps the
little state that needs (which elements are open, how deep inside a dropped one the
text is) and lets nh3 clean each tag.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

import nh3

#: Elements that never have content or a closing tag (HTML Living Standard, §13.1.2).
VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
     "track", "wbr"}
)  # fmt: skip

#: Attributes that hold a URL, whose scheme is checked.
URL_ATTRIBUTES = frozenset({"href", "src", "cite", "action", "poster", "background"})

#: Removed with everything inside them on every channel: their content is code, not text.
ALWAYS_DROPPED = frozenset({"script", "style"})

_TAG = re.compile(r"^<(/?)([A-Za-z][A-Za-z0-9-]*)\b.*?(/?)>$", re.DOTALL)
_DATA_IMAGE = re.compile(r"^\s*data:image/", re.IGNORECASE)
_DATA = re.compile(r"^\s*data:", re.IGNORECASE)


@dataclass(frozen=True)
class Allowlist:
    """What one channel lets through of raw HTML.

    ``attributes`` maps a tag to the attributes it may keep (``"*"``: every tag);
    ``url_schemes`` are the schemes a URL attribute may use (relative URLs always pass,
    and ``data:`` only as an image source); ``dropped`` elements go with their content;
    ``styles`` are the CSS properties a ``style`` attribute keeps.
    """

    tags: frozenset[str]
    attributes: Mapping[str, frozenset[str]]
    url_schemes: frozenset[str] = frozenset({"http", "https", "mailto"})
    dropped: frozenset[str] = frozenset()
    styles: frozenset[str] = frozenset()

    def allows(self, tag: str) -> bool:
        """Whether ``tag`` is kept (its attributes still filtered)."""
        return tag in self.tags

    def drops(self, tag: str) -> bool:
        """Whether ``tag`` is removed together with its content."""
        return tag in ALWAYS_DROPPED or (tag in self.dropped and tag not in self.tags)


def _data_images_only(tag: str, attribute: str, value: str) -> str | None:
    """nh3's attribute filter: ``data:`` URLs survive only as an image's source."""
    if attribute in URL_ATTRIBUTES and _DATA.match(value):
        return value if tag == "img" and attribute == "src" and _DATA_IMAGE.match(value) else None
    return value


def clean(fragment: str, allowlist: Allowlist) -> str:
    """``fragment`` as balanced HTML holding only what ``allowlist`` names."""
    return nh3.clean(
        fragment,
        tags=set(allowlist.tags),
        clean_content_tags={
            tag for tag in ALWAYS_DROPPED | allowlist.dropped if tag not in allowlist.tags
        },
        attributes={tag: set(names) for tag, names in allowlist.attributes.items()},
        attribute_filter=_data_images_only,
        strip_comments=True,
        link_rel=None,
        url_schemes={*allowlist.url_schemes, "data"},  # data: narrowed by the filter
        filter_style_properties=set(allowlist.styles) if allowlist.styles else None,
    )


@dataclass
class TagStream:
    """Cleans raw inline HTML one tag at a time, as markdown-it delivers it.

    A closing tag comes out only if its opening did, so nothing closes an element the
    channel never opened. :attr:`dropping` says how deep inside a dropped element
    (``<script>``, ``<video>``…) the stream is: the Markdown text between such an
    opening and its closing is part of it and must go too. Void elements never open
    anything, so a ``<source>`` or an ``<input>`` cannot hide the rest of a document.
    """

    allowlist: Allowlist
    dropping: int = 0
    _open: list[str] = field(default_factory=list)

    def tag(self, raw: str) -> str:
        """The cleaned form of one raw tag: the tag itself, its closing, or ``""``."""
        match = _TAG.match(raw.strip())
        if not match:
            return ""  # comments, declarations, processing instructions
        closing, name, self_closed = bool(match.group(1)), match.group(2).lower(), match.group(3)
        if self.allowlist.drops(name):
            if closing:
                self.dropping = max(0, self.dropping - 1)
            elif name not in VOID and not self_closed:
                self.dropping += 1
            return ""
        if self.dropping or not self.allowlist.allows(name):
            return ""
        if closing:
            if name not in self._open:
                return ""
            del self._open[len(self._open) - 1 - self._open[::-1].index(name)]
            return f"</{name}>"
        return self._opening(raw.strip(), name, bool(self_closed))

    def _opening(self, raw: str, name: str, self_closed: bool) -> str:
        # Inside an open <svg> a tag such as <path> is SVG, not an unknown HTML element:
        # nh3 has to see it in that context to keep it.
        inside_svg = "svg" in self._open and name != "svg"
        cleaned = clean(f"<svg>{raw}</svg>" if inside_svg else raw, self.allowlist)
        if inside_svg:
            cleaned = cleaned.removeprefix("<svg>").removesuffix("</svg>")
        if not cleaned.startswith(f"<{name}"):
            return ""  # not kept where it stands
        if name in VOID or self_closed:
            return cleaned  # nothing left open: a void element, or one written <x/>
        self._open.append(name)
        return cleaned.removesuffix(f"</{name}>")
