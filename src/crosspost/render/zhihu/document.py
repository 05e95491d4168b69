"""The Zhihu renderer: an issue as Zhihu's HTML dialect (API) and Zhihu Markdown (import).

``render`` touches no network, no ledger and no clock, and reads no file of its own
(Zhihu has no theme; the issue arrives loaded). The body keeps every image source
as the issue wrote it; the publisher swaps in uploaded zhimg URLs with
``Rendered.with_image_urls``. The platform's limits are its declaration's
(:mod:`crosspost.platforms.zhihu`), which lint checks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from crosspost.platforms.zhihu import ZHIHU
from crosspost.render.rendered import PreviousIssue, RenderContext, Rendered
from crosspost.render.zhihu.common import zhihu_tokens
from crosspost.render.zhihu.html import render_html
from crosspost.render.zhihu.markdown import escape_text, render_markdown

if TYPE_CHECKING:
    from crosspost.issue.model import Issue

__all__ = [
    "HEADING_LEVELS",
    "NORMAL_IMAGE_MIN_WIDTH",
    "PREVIOUS_HEADING",
    "body_chars",
    "plain_text",
    "render",
]

CHANNEL = ZHIHU.name
#: Narrower images are shown ``data-size="small"``.
NORMAL_IMAGE_MIN_WIDTH = 343
#: Only ``<h2>`` and ``<h3>`` are headings in Zhihu's editor.
HEADING_LEVELS = 2
#: Heading of the list of earlier issues (``RenderContext.previous``).
PREVIOUS_HEADING = "往期回顾"


def render(issue: Issue, context: RenderContext) -> Rendered:
    """Render ``issue`` for Zhihu: ``body`` is the API HTML; files hold both outputs.

    Each output parses the body itself, since rendering may change tokens.
    """
    settings = issue.settings(CHANNEL)
    titles = (settings.title, issue.title)
    source = with_previous(issue.body, context.previous)
    body, images = render_html(zhihu_tokens(source, titles))
    markdown = render_markdown(zhihu_tokens(source, titles))
    return Rendered(
        channel=CHANNEL,
        title=settings.title,
        body=body,
        files={"zhihu.html": body, "zhihu.md": markdown},
        images=images,
    )


def with_previous(body: str, previous: tuple[PreviousIssue, ...]) -> str:
    """The issue body followed by a 往期回顾 list of earlier issues on Zhihu.

    Written as Markdown, so both outputs follow the same rules as the rest of the body;
    an issue not (yet) on Zhihu is listed without a link.
    """
    if not previous:
        return body
    items = [
        f"- [{escape_text(item.title)}](<{item.url}>)"
        if item.url
        else f"- {escape_text(item.title)}"
        for item in previous
    ]
    return f"{body.rstrip()}\n\n## {PREVIOUS_HEADING}\n\n" + "\n".join(items) + "\n"


def plain_text(body: str) -> str:
    """The words of a Zhihu HTML body, as a reader sees them (formulas by their TeX)."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(body, "html.parser")
    for formula in soup.find_all("img", attrs={"eeimg": True}):
        formula.replace_with(str(formula.get("alt") or ""))
    return soup.get_text()


def body_chars(body: str) -> int:
    """The length Zhihu's limits count: plain text, tags excluded, whitespace ignored."""
    return sum(1 for char in plain_text(body) if not char.isspace())
