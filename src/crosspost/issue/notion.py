"""What a Notion export writes that is no part of the article.

Notion exports a page as its title, then its properties one per line (``Created:
January 5, 2024 3:04 PM``, ``Tags: a, b``, ``Status: Published``), then the page; a
callout as ``<aside>`` with the callout's icon as an ``<img>`` of Notion's own icon set;
and a link to another page with no words (``[](https://www.notion.so/…)``). Read as
Markdown the properties were the article's first paragraph (and WeChat's digest), the
icon a picture check could not fetch, the callout's Markdown raw HTML, and the link a
bare reference number on WeChat.
"""

from __future__ import annotations

import re

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from crosspost.issue.blocks import NOTES, outside_fences
from crosspost.patterns import pattern

#: An ``<img>`` of Notion's icon set (``https://www.notion.so/icons/star_yellow.svg``, or
#: ``/icons/…`` as later exports write it), and the blanks after it.
_ICON = pattern(
    r"<img\b[^<>]*?\ssrc\s*=\s*[\"'](?:https?://(?:www\.)?notion\.so)?/icons/[^\"'<>\s]+\.svg"
    r"[^\"'<>\s]*[\"'][^<>]*>[ \t]*",
    re.IGNORECASE,
)
#: A page property's line: a name of up to four words (no sentence's punctuation in it),
#: a colon and a value.
_PROPERTY = pattern(r"^[^\W\d_][\w-]*(?: [\w-]+){0,3}:[ \t]+\S.*")
#: How many property lines make a block of them (one ``Note: …`` line is prose).
_FEWEST_PROPERTIES = 2
#: The properties only Notion gives a page (English and Chinese workspaces): a block of
#: ``Key: value`` lines is a page's properties when one of them is among these. A
#: credits block (``主编: 张三``), an event's notice (``时间: 2024年3月1日`` / ``地点: 北京``)
#: or a release's (``Status: shipped`` / ``Type: maintenance``) stays the writer's.
_NOTION_OWN = frozenset(
    {"created", "created time", "created by", "last edited time", "last edited by",
     "创建时间", "创建者", "最后编辑时间", "最后编辑者"}
)  # fmt: skip


def notion_icons(state: StateCore) -> None:
    """Leave out a Notion callout's icon (a decoration, often an SVG no channel takes);
    a line that held it alone becomes blank, so the ``<aside>`` above it is a line of
    HTML of its own and the callout's ``**title**`` and words below are read as
    Markdown."""
    if "/icons/" in state.src:
        state.src = outside_fences(_ICON, state.src, lambda found: "")


def notion_properties(state: StateCore) -> None:
    """Leave out the block of ``Key: value`` lines at the top of the body (after a
    ``# `` title, if the body has it), when it has two lines or more: a Notion page's
    properties. Check names the lines."""
    tokens = state.tokens
    first = 3 if tokens and tokens[0].type == "heading_open" and tokens[0].tag == "h1" else 0
    if len(tokens) < first + 3 or tokens[first].type != "paragraph_open" or tokens[first].level:
        return
    lines = tokens[first + 1].content.split("\n")
    if len(lines) < _FEWEST_PROPERTIES or not all(_PROPERTY.fullmatch(line) for line in lines):
        return
    if not any(line.split(":", 1)[0].strip().lower() in _NOTION_OWN for line in lines):
        return
    where = tokens[first].map
    line = where[0] if where else 0
    del tokens[first : first + 3]
    names = ", ".join(text.split(":", 1)[0] for text in lines[:5])
    message = (
        f"these {len(lines)} lines look like a Notion page's properties ({names}), so they "
        "are left out of every channel (they would be the article's first words and its "
        "digest); write them as a sentence if readers should see them"
    )
    state.env.setdefault(NOTES, []).append((line, "page-properties", message))


def wordless_links(state: StateCore) -> None:
    """A link with no words (``[](https://…)``, as Notion writes a link to a page) shows
    its address: with nothing to click, Zhihu showed nothing and WeChat a bare ``[3]``."""
    for token in state.tokens:
        children = token.children
        if token.type != "inline" or not children:
            continue
        for index in range(len(children) - 1, 0, -1):
            opening = children[index - 1]
            if opening.type == "link_open" and children[index].type == "link_close":
                address = str(opening.attrGet("href") or "")
                if "://" in address:  # not an anchor's ``[](#id)``
                    words = Token("text", "", 0, content=address, level=opening.level + 1)
                    children.insert(index, words)
