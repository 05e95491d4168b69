"""The Zhihu renderer: an issue as Zhihu's HTML dialect (API) and Zhihu Markdown (import).

``render`` touches no network, no ledger and no clock, and reads no file of its own
(Zhihu has no theme; the issue arrives loaded). The body keeps every image source
as the issue wrote it; the publisher swaps in uploaded zhimg URLs with
``Rendered.with_image_urls``. The platform's limits are its declaration's
(:mod:`crosspost.platforms.zhihu`) with the config's laid over it
(``RenderContext.limits``), the same ones lint checks.
"""

from __future__ import annotations

import lxml.html

from crosspost.issue.dialect import Document, parse_document
from crosspost.issue.model import Issue
from crosspost.render.rendered import PreviousIssue, RenderContext, Rendered
from crosspost.render.zhihu.common import (
    CHANNEL,
    STROKE,
    body_tokens,
    heading_levels,
    zhihu_tokens,
)
from crosspost.render.zhihu.html import render_html
from crosspost.render.zhihu.markdown import escape_text, render_markdown
from crosspost.render.zhihu.sanitize import with_inline_lists

__all__ = [
    "HEADING_LEVELS",
    "NORMAL_IMAGE_MIN_WIDTH",
    "PREVIOUS_HEADING",
    "body_chars",
    "plain_text",
    "render",
]

#: Narrower images are shown ``data-size="small"``.
NORMAL_IMAGE_MIN_WIDTH = 343
#: Only ``<h2>`` and ``<h3>`` are headings in Zhihu's editor.
HEADING_LEVELS = 2
#: Heading of the list of earlier issues (``RenderContext.previous``).
PREVIOUS_HEADING = "往期回顾"


def render(issue: Issue, context: RenderContext) -> Rendered:
    """Render ``issue`` for Zhihu: ``body`` is the API HTML; files hold both outputs.

    Each output works on its own copy of the issue's tokens, since rendering may change them.
    """
    settings = issue.settings(CHANNEL)
    titles = (settings.title, issue.title)
    # Heading levels follow the issue's own body; 往期回顾 is fitted in at the level of
    # its top sections (Zhihu's <h2>), not counted.
    levels = heading_levels(body_tokens(issue.document, titles))
    tail = previous_section(context.previous, levels[0])
    # The caption limit is the config's when it sets one (the channel's or the account's).
    captions = context.limits(CHANNEL).caption_chars
    body, images = render_html(
        with_inline_lists(zhihu_tokens(issue.document, titles, tail)),
        levels,
        caption_chars=captions,
    )
    markdown = render_markdown(
        with_inline_lists(zhihu_tokens(issue.document, titles, tail)),
        levels,
        caption_chars=captions,
    )
    return Rendered(
        channel=CHANNEL,
        title=settings.title,
        body=body,
        files={"zhihu.html": body, "zhihu.md": markdown},
        images=images,
    )


def previous_section(previous: tuple[PreviousIssue, ...], level: int = 1) -> Document | None:
    """The 往期回顾 list of earlier issues on Zhihu, to follow the issue's text, its
    heading at ``level`` (the body's top sections', so Zhihu shows it as it shows them).

    Written as Markdown, so both outputs follow the same rules as the rest of the body;
    an issue not (yet) on Zhihu is listed without a link. It is a document of its own,
    not appended to the body's text: the body keeps its one parse, and a code block the
    body leaves open cannot swallow the list.
    """
    if not previous:
        return None
    items = [
        f"- [{escape_text(item.title)}](<{item.url}>)"
        if item.url
        else f"- {escape_text(item.title)}"
        for item in previous
    ]
    heading = "#" * level
    return parse_document(f"{heading} {PREVIOUS_HEADING}\n\n" + "\n".join(items) + "\n")


def plain_text(body: str) -> str:
    """The words of a Zhihu HTML body, as a reader sees them (formulas by their TeX).

    Read with lxml: BeautifulSoup's ``html.parser`` builder keeps every image it has
    closed in a list that it searches at each end tag, so a body of many images took
    time in the square of its length (lint counts every Zhihu body).
    """
    if not body.strip():
        return ""
    root = lxml.html.fragment_fromstring(body, create_parent="div")
    for formula in [img for img in root.iter("img") if img.get("eeimg") is not None]:
        formula.tail = str(formula.get("alt") or "") + (formula.tail or "")
        formula.drop_tree()  # keeps its tail: the formula's TeX, then what followed it
    return str(root.text_content())


def body_chars(body: str) -> int:
    """The length Zhihu's limits count: plain text, tags excluded, whitespace ignored
    (and the strokes that draw struck text: they are part of the letter they cross)."""
    return sum(1 for char in plain_text(body) if not char.isspace() and char != STROKE)
