"""What Zhihu's editor keeps of an article's HTML, and what a test should hear about.

Zhihu's editor is Draft.js based: it rebuilds whatever HTML it receives into its own block
model and silently drops what it does not know (spec §7, §12 "content sanitiser"). The
emulator does the same at publish time, so the article a test reads back (E14) is what a
reader would see, and it notes each loss or risk as a *flag* in the snapshot: a renderer
bug shows up as a flag instead of passing unnoticed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:  # bs4 costs a tenth of a second; `crosspost sandbox` starts without it
    from bs4.element import Tag

#: Elements the editor keeps (§12). Headings: h2/h3 are Zhihu's two levels, h4 stays bold.
KEPT = frozenset(
    {"p", "br", "h2", "h3", "h4", "b", "strong", "i", "em", "u", "code", "pre", "blockquote",
     "hr", "ul", "ol", "li", "a", "sup", "img", "figure", "figcaption", "table", "tbody",
     "tr", "th", "td"}
)  # fmt: skip
#: Removed with everything inside (active content; table parts Zhihu cannot show).
REMOVED = frozenset(
    {"script", "style", "iframe", "svg", "object", "embed", "thead", "colgroup", "head"}
)
#: Attributes kept per element; ``data-*`` is kept where the element is listed in DATA.
ATTRIBUTES = {
    "a": {"href", "data-hash"},
    "pre": {"lang"},
    "img": {"src", "alt", "eeimg"},
}
DATA = frozenset({"a", "img", "sup", "table"})
_BLOCK_END = re.compile(r"</(p|pre|h2|h3|h4|blockquote|ul|ol|li|table|figure|hr)>\s*\n")
_STRIKE = frozenset({"del", "s", "strike"})


@dataclass(frozen=True)
class Cleaned:
    """The HTML as the editor would store it, what was lost or looks wrong, and the
    characters a reader sees (what Zhihu's length limits count), taken from the same parse."""

    html: str
    flags: tuple[str, ...]
    text: str


def clean(html: str) -> Cleaned:
    """Reduce ``html`` to Zhihu's element set; flags name every change worth a look."""
    from bs4 import BeautifulSoup
    from bs4.element import Comment, Tag

    flags: list[str] = []

    def flag(text: str) -> None:
        if text not in flags:
            flags.append(text)

    if _BLOCK_END.search(html):
        flag("a newline between block elements renders as an extra blank line")
    soup = BeautifulSoup(html, "html.parser")
    # What was decomposed, tracked here: bs4's ``Tag.decomposed`` looks for a child tag
    # called ``_decomposed`` on every tag never decomposed (a search of its subtree each),
    # a fifth of the time a long article took to clean, on its publish's last round trip.
    gone: set[int] = set()

    def decompose(tag: Tag) -> None:
        gone.update(id(element) for element in tag.descendants)
        gone.add(id(tag))
        tag.decompose()

    for comment in soup.find_all(string=lambda s: isinstance(s, Comment)):
        comment.extract()
    for table in soup.find_all("table"):
        if table.find("colgroup") is not None:
            flag("a table with <colgroup> was dropped (Zhihu drops such tables)")
            decompose(table)
        elif table.get("data-draft-type") != "table":
            flag('a table without data-draft-type="table" was dropped')
            decompose(table)
    for tag in soup.find_all(True):
        if not isinstance(tag, Tag) or id(tag) in gone:
            continue
        name = tag.name
        if name in REMOVED:
            flag(f"<{name}> was removed with its content")
            decompose(tag)
        elif name in _STRIKE:
            flag("strikethrough is not supported; the text stays, unstruck")
            tag.unwrap()
        elif name not in KEPT:
            flag(f"<{name}> is not in Zhihu's element set; its text stays")
            tag.unwrap()
        else:
            _keep_attributes(tag, flag)
    for cell in soup.find_all(["td", "th"]):
        for link in cell.find_all("a"):  # a cell holds plain text (§7.1): the words stay
            flag("a link in a table cell keeps only its words (Zhihu's cells hold plain text)")
            link.unwrap()
        for image in cell.find_all("img"):
            flag("an image in a table cell is dropped (Zhihu's cells hold plain text)")
            decompose(image)
    for img in soup.find_all("img"):
        src = str(img.get("src", ""))
        host = urlsplit(src if "//" in src else "//" + src).hostname or ""
        if not img.get("eeimg") and not host.endswith("zhimg.com"):
            flag(f"image not on zhimg.com (upload it first): {src[:80]}")
    # The paragraphs holding a link card, found from the cards up (one search, instead
    # of one per paragraph).
    holding_cards = {
        id(parent)
        for card in soup.find_all("a", attrs={"data-draft-type": "link-card"})
        for parent in card.parents
        if parent.name == "p"
    }
    for paragraph in soup.find_all("p"):
        if not paragraph.contents:
            flag("an empty <p></p>; Zhihu's blank paragraph is <p><br></p>")
        if id(paragraph) in holding_cards:
            flag("a link card inside <p>; link cards are blocks of their own")
    return Cleaned(str(soup), tuple(flags), soup.get_text().strip())


def _keep_attributes(tag: Tag, flag: Callable[[str], None]) -> None:
    """Strip ``style``, ``class``, ``id``, ``on*`` and every attribute Zhihu ignores."""
    allowed = ATTRIBUTES.get(tag.name, set())
    for attribute in list(tag.attrs):
        keep = attribute in allowed or (tag.name in DATA and attribute.startswith("data-"))
        if tag.name == "a" and attribute == "class" and tag.get("class") == ["member_mention"]:
            keep = True
        if not keep:
            if attribute in ("style", "class") or attribute.startswith("on"):
                flag(f"{attribute}= attributes are stripped")
            elif tag.name == "ol" and attribute == "start":
                # No source has Zhihu keep it (§7, §12): the list is numbered from 1.
                flag("<ol start> is stripped: Zhihu numbers every list from 1")
            del tag.attrs[attribute]
