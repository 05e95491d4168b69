"""The Zhihu renderer: an issue as Zhihu's HTML dialect (API) and Zhihu Markdown (import).

``render`` is pure: no network, no disk, no clock. The body keeps every image source
as the issue wrote it; the publisher swaps in uploaded zhimg URLs with
``Rendered.with_image_urls``. The platform's limits live here as constants so the
linter checks the same numbers the renderer was written against (``specs/zhihu-api.md``
§6; most are single-source and unconfirmed by Zhihu).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from crosspost.render import RenderContext, Rendered
from crosspost.render.zhihu_common import CAPTION_MAX_CHARS, zhihu_tokens
from crosspost.render.zhihu_html import render_html
from crosspost.render.zhihu_markdown import render_markdown

if TYPE_CHECKING:
    from crosspost.issue import Issue

__all__ = [
    "BODY_MAX_CHARS",
    "BODY_MIN_CHARS",
    "CAPTION_MAX_CHARS",
    "HEADING_LEVELS",
    "IMAGE_EXTENSIONS",
    "NORMAL_IMAGE_MIN_WIDTH",
    "TITLE_MAX_CHARS",
    "body_chars",
    "plain_text",
    "render",
]

CHANNEL = "zhihu"
#: Article title: required, one line, at most this many characters (a longer one got a 400).
TITLE_MAX_CHARS = 100
#: Article body, counted as plain text without tags.
BODY_MIN_CHARS = 9
BODY_MAX_CHARS = 100_000
#: Image types Zhihu takes (SVG is not one of them).
IMAGE_EXTENSIONS = frozenset({".jpg", ".jpeg", ".png", ".gif"})
#: Narrower images are shown ``data-size="small"``.
NORMAL_IMAGE_MIN_WIDTH = 343
#: Only ``<h2>`` and ``<h3>`` are headings in Zhihu's editor.
HEADING_LEVELS = 2


def render(issue: Issue, context: RenderContext) -> Rendered:
    """Render ``issue`` for Zhihu: ``body`` is the API HTML; files hold both outputs.

    Each output parses the body itself, since rendering may change tokens.
    """
    settings = issue.settings(CHANNEL)
    titles = (settings.title, issue.title)
    body, images = render_html(zhihu_tokens(issue.body, titles))
    markdown = render_markdown(zhihu_tokens(issue.body, titles))
    return Rendered(
        channel=CHANNEL,
        title=settings.title,
        body=body,
        files={"zhihu.html": body, "zhihu.md": markdown},
        images=images,
    )


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
