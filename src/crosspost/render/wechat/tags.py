"""A piece of raw HTML, already cleaned, written the way WeChat keeps it.

Raw HTML arrives from markdown-it in pieces (an inline ``<span>`` and its ``</span>``
are separate tokens), so the mapping works tag by tag on a stream rather than on a tree.
What WeChat allows is :mod:`crosspost.render.wechat.raw`'s; this module is imported at
the first piece of raw HTML, as most issues have none and ``html.parser`` costs each
``check`` ~2 ms to load.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from html.parser import HTMLParser

from crosspost.issue.dialect import VOID
from crosspost.issue.mail_links import after_words
from crosspost.render.captions import links_to_its_picture
from crosspost.render.wechat.lists import (
    BULLETS,
    TASK_MARKERS,
    bullet,
    list_class,
    marker_class,
    marker_html,
    marker_width,
)
from crosspost.render.wechat.raw import (
    AS_SECTION,
    RawHtmlState,
    css_size,
    is_bare_url,
    is_mp_link,
)


@dataclass
class _RawList:
    """A raw ``<ul>``/``<ol>`` open in this piece, drawn as a list of sections."""

    ordered: bool
    next_number: int
    #: Where its opening section, and each of its markers, are in the output: an ordered
    #: list's width is known at its close (its last number), and set there.
    opened: int
    markers: list[int] = field(default_factory=list)


class RawHtmlSanitiser(HTMLParser):
    """Maps one piece of already cleaned raw HTML onto WeChat's habits.

    State that spans pieces lives in ``shared`` (see :class:`.raw.RawHtmlState`): the
    raw ``<a>`` and ``<abbr>`` tags still open, the reference numbers, the titles said.
    ``words`` are the words of the raw element this piece opens or closes when they lie
    outside it (inline HTML): a raw ``<a>``'s at its opening, an ``<abbr>``'s at its close.
    """

    def __init__(self, shared: RawHtmlState, *, words: str = "") -> None:
        super().__init__(convert_charrefs=True)
        self._shared = shared
        self._links = shared.raw_links  # the stack of raw <a> tags still open
        self._out: list[str] = []
        self._pre = 0
        self._tables = 0
        self._words = words
        #: Per raw ``<abbr>`` opened in this piece, innermost last: its words so far.
        self._abbreviations: list[list[str]] = []
        #: Links opened in this piece, innermost last: (href, title, text so far, the
        #: pictures in it), or None for a link that is not numbered.
        self._open: list[tuple[str, str, list[str], list[str]] | None] = []
        #: Per block element open in this piece (the piece itself first): where its
        #: pictures are in the output, and whether words stand beside them.
        self._lines: list[tuple[list[int], list[bool]]] = [([], [False])]
        #: Raw lists open in this piece, innermost last, and the marker an item's first
        #: paragraph opens with (written before anything else the item holds).
        self._lists: list[_RawList] = []
        self._pending_marker = ""

    def clean(self, cleaned: str) -> str:
        """WeChat's HTML for ``cleaned``, the output of the shared sanitiser."""
        self.feed(cleaned)
        self.close()
        while self._lines:
            self._inline_pictures(self._lines.pop())
        for link in self._open:  # closed in a later piece: named by the text given
            if link is not None:
                href, title, _, _ = link
                entry = self._shared.reference(href, self._words or title)
                if _DEFERRED in self._links:  # numbered now: its close writes the number
                    self._links[self._links.index(_DEFERRED)] = entry
        return "".join(self._out)

    # --- tags ---------------------------------------------------------------------
    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        kept = {name: value or "" for name, value in attrs if name != "style" or value}
        _alignment_as_style(tag, kept)
        if tag == "p" and self._pending_marker:
            self._out.append(f"<p{_attributes(kept)}>")
            self._flush_marker()
            self._lines.append(([], [False]))
            return
        self._flush_marker()
        if tag in ("ul", "ol") or (tag == "li" and self._lists):
            self._open_list_part(tag, kept)
            return
        if tag == "a":
            self._open_link(kept)
            return
        if tag in _LINES or tag == "br":
            self._apart()
        if tag in _THEMED_AS:
            kept["class"] = _THEMED_AS[tag]
        if tag == "abbr":  # its title is said in words at its close
            self._shared.raw_abbreviations.append(" ".join(kept.pop("title", "").split()))
            self._abbreviations.append([])
        if tag in AS_SECTION:
            tag = "section"
        if tag == "img":
            if not kept.get("src"):
                return  # its source was not a URL WeChat may load (javascript:, …)
            for link in self._open:
                if link is not None:
                    link[3].append(kept["src"])
            sizes = [
                f"{key}:{css_size(kept.pop(key))}" for key in ("width", "height") if key in kept
            ]
            if sizes:
                kept["style"] = ";".join([*sizes, kept.get("style", "")]).rstrip(";")
            kept["class"] = "image"
            self._lines[-1][0].append(len(self._out))
        if tag in _LINES:
            self._lines.append(([], [False]))
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
        self._flush_marker()
        if (tag in ("ul", "ol") or tag == "li") and self._lists:
            self._close_list_part(tag)
            return
        if tag == "a":
            self._close_link()
            return
        if tag == "abbr":
            self._close_abbreviation()
            return
        if tag == "pre":
            self._pre = max(0, self._pre - 1)
        if tag in _LINES:
            self._apart()
        if tag in _LINES and len(self._lines) > 1:
            self._inline_pictures(self._lines.pop())
        self._out.append(f"</{'section' if tag in AS_SECTION else tag}>")
        if tag == "table" and self._tables:
            self._tables -= 1
            if not self._tables:
                self._out.append("</section>")

    # --- lists: sections with the marker in the text, as Markdown's lists ------------
    def _open_list_part(self, tag: str, attrs: dict[str, str]) -> None:
        """A raw list drawn as Markdown's lists are (WeChat's editor resets ``ul`` and
        ``ol``: their bullets and numbers were gone); its item's marker waits for the
        item's first paragraph, if it opens with one."""
        style = f' style="{html.escape(attrs["style"])}"' if attrs.get("style") else ""
        if tag == "li":
            frame = self._lists[-1]
            number = _number(attrs.get("value"))
            if frame.ordered:
                frame.next_number = number if number is not None else frame.next_number
                text = f"{frame.next_number}."
                frame.next_number += 1
            else:
                text = bullet(len(self._lists))
            self._apart()
            self._out.append(f'<section class="list-item"{style}>')
            self._lines.append(([], [False]))
            self._pending_marker = text
            return
        start = _number(attrs.get("start")) if tag == "ol" else None
        self._lists.append(_RawList(tag == "ol", 1 if start is None else start, len(self._out)))
        self._out.append(f'<section class="list"{style}>')

    def _flush_marker(self) -> None:
        if self._pending_marker and self._lists:
            self._lists[-1].markers.append(len(self._out))
            self._out.append(marker_html(self._pending_marker))
        self._pending_marker = ""

    def _close_list_part(self, tag: str) -> None:
        if tag == "li":
            self._apart()
            if len(self._lines) > 1:
                self._inline_pictures(self._lines.pop())
            self._out.append("</section>")
            return
        frame = self._lists.pop()
        size = marker_width(frame.next_number - 1) if frame.ordered else ""
        if size:  # known at the close: its last number
            wider = f'class="{list_class(size)}"'
            self._out[frame.opened] = self._out[frame.opened].replace('class="list"', wider)
            for at in frame.markers:
                self._out[at] = self._out[at].replace(
                    'class="list-marker"', f'class="{marker_class(size)}"'
                )
        self._out.append("</section>")

    def _open_link(self, attrs: dict[str, str]) -> None:
        href = attrs.get("href", "").strip()
        if self._pre:  # a name in code linked to its docs (pkgdown, knitr): code stays code
            self._links.append("")
            self._open.append(None)
        elif is_mp_link(href):
            self._links.append("</a>")
            self._out.append(f'<a href="{html.escape(href)}">')
            self._open.append(None)
        elif not href or href.startswith("#"):  # javascript: hrefs are gone already
            self._links.append("")
            self._open.append(None)
        elif self._words:  # an inline <a>: its text, known, is its address?
            if is_bare_url(self._words, href):
                self._links.append("")
                self._open.append(None)
            else:  # numbered now: references keep document order
                self._links.append(self._shared.reference(href, ""))
                self._open.append((href, attrs.get("title", "").strip(), [], []))
        else:
            # Numbered at its close, once its text is known (no other link can come
            # between): a link whose text is its address needs no number.
            self._links.append(_DEFERRED)
            self._open.append((href, attrs.get("title", "").strip(), [], []))

    def _close_link(self) -> None:
        link = self._open.pop() if self._open else None
        entry = self._links.pop() if self._links else ""
        if link is not None:  # opened in this piece: its text is what it enclosed
            href, title, parts, pictures = link
            text = " ".join("".join(parts).split())
            if entry is _DEFERRED:
                unnumbered = is_bare_url(text, href) or (
                    not text and links_to_its_picture(href, pictures)
                )
                entry = "" if unnumbered else self._shared.reference(href, text or title)
            else:
                self._shared.reference(href, text or title)
        if isinstance(entry, str):
            self._out.append(entry)
        else:
            self._out.append(f'<sup class="footnote-ref">[{entry.number}]</sup>')

    def _close_abbreviation(self) -> None:
        """An abbreviation's title, which WeChat shows nowhere (it has no tooltip), written
        after its words the first time the issue uses it, as a mail link's address is:
        ``W3C（World Wide Web Consortium）``, ``the W3C (World Wide Web Consortium)``."""
        titles = self._shared.raw_abbreviations
        title = titles.pop() if titles else ""
        words = "".join(self._abbreviations.pop()) if self._abbreviations else self._words
        shown = after_words(words, title) if self._shared.first_said(title) else ""
        self._out.append("</abbr>" + html.escape(shown, quote=False))

    def _inline_pictures(self, line: tuple[list[int], list[bool]]) -> None:
        """The pictures of a block that has words or other pictures beside them (a row of
        badges in a centred paragraph) stay in the line, as a browser shows them."""
        pictures, worded = line
        if len(pictures) > 1 or (pictures and worded[0]):
            for at in pictures:
                self._out[at] = self._out[at].replace('class="image"', 'class="image image-inline"')

    # --- text -----------------------------------------------------------------------
    def _apart(self) -> None:
        """A block's edge inside an open link (a Ghost bookmark card's title, then its
        description): the link's words, in its reference, keep a space there."""
        for link in self._open:
            if link is not None:
                link[2].append(" ")

    def handle_data(self, data: str) -> None:
        if data.strip():
            if self._pending_marker in BULLETS and data.lstrip()[:1] in _BOXES:
                # A task's box (a raw checkbox, as ☑) in place of its bullet, as a task
                # item's in Markdown: "☑ 已完成", not "• ☑ 已完成".
                data = data.lstrip()
                self._pending_marker, data = data[0], data[1:].lstrip()
            self._flush_marker()
            self._lines[-1][1][0] = True
        # No newline to drop after <pre>: the sanitiser's parser has dropped it already.
        for link in self._open:
            if link is not None:
                link[2].append(data)
        for words in self._abbreviations:
            words.append(data)
        text = html.escape(data, quote=False)
        if self._pre:  # WeChat ignores white-space:pre; spell out spaces and lines
            text = text.replace("\t", "    ").replace(" ", "&nbsp;").replace("\n", "<br>")
        self._out.append(text)


_ALIGNMENTS = frozenset({"center", "left", "right", "justify"})
#: Where ``align`` places the element itself (a floated picture, a centred table), not
#: its text.
_ALIGNED_BOXES = frozenset({"img", "table", "iframe", "video", "hr", "caption"})


def _alignment_as_style(tag: str, attrs: dict[str, str]) -> None:
    """HTML 4's alignment in ``attrs`` (``<center>``, HelloGitHub's ``<p align="center">``)
    said the way every page of WeChat's keeps it: as the style it means. Done before a
    tag is written anywhere, so that no way out writes it as it came (a raw list item's
    first paragraph, written with the item's marker, kept its ``align``: uncentred)."""
    if tag == "center":
        attrs["style"] = "text-align:center;" + attrs.get("style", "")
    elif attrs.get("align", "").lower() in _ALIGNMENTS and tag not in _ALIGNED_BOXES:
        attrs["style"] = f"text-align:{attrs.pop('align').lower()};" + attrs.get("style", "")


#: Raw tags drawn with a class of the theme: a Markdown construct's, as the raw tag stands
#: for it (a page's own figure: unstyled, a browser indents a figure 40 px each side; a
#: key, which WeChat's editor resets: MkDocs's keys ``++ctrl+c++`` are code), or the
#: theme's own (a ``<summary>``, the title of what WeChat shows open: a bold line).
_THEMED_AS = {
    "figure": "figure",
    "figcaption": "figcaption",
    "kbd": "code-inline",
    "summary": "summary",
}

#: Blocks whose content is lines of text, where a picture among words stays in the line.
_LINES = frozenset(
    {"p", "div", "center", "section", "td", "th", "li", "h1", "h2", "h3", "h4", "h5", "h6",
     "blockquote", "figure", "figcaption", "dd", "dt", "summary", "header", "footer"}
)  # fmt: skip

#: A task's boxes, as the raw HTML of a checkbox reads (see ``modern_tags``).
_BOXES = frozenset(TASK_MARKERS.values())

#: In ``links``: a raw ``<a>`` of this piece whose number waits for its text.
_DEFERRED = "\x00deferred"


def _number(value: str | None) -> int | None:
    """A list's ``start`` or an item's ``value``, when it is a number."""
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _attributes(attrs: dict[str, str]) -> str:
    return "".join(f' {name}="{html.escape(value)}"' for name, value in attrs.items())
