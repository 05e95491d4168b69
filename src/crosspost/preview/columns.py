"""One channel's article as the preview columns show it, for the static page and the desk.

Both pages draw the same columns (``templates/preview/columns.html.j2``) from the same
fields; only where images and the cover are served from differs, so the caller passes
the links and this module builds the rest.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from markupsafe import Markup

from crosspost.issue.model import Issue
from crosspost.render.rendered import Rendered

#: The heading above each column, as the editor knows the channel.
LABELS = {"wechat": "微信公众号", "zhihu": "知乎专栏"}


def article(
    issue: Issue, channel: str, output: Rendered, links: Mapping[str, str], cover: str | None
) -> dict[str, Any]:
    """The fields a column shows: the title, byline and chat card from the issue's channel
    settings, the body with its image sources pointed at ``links`` (source → URL)."""
    settings = issue.settings(channel)
    return {
        "channel": channel,
        "label": LABELS.get(channel, channel),
        "title": settings.title,
        "author": settings.author,
        "digest": settings.digest,
        "cover": cover,
        "body": Markup(output.with_image_urls(links).body),
    }
