"""Zhihu column (知乎专栏): every number crosspost keeps to, declared once.

Source: ``specs/zhihu-api.md`` §6. Zhihu publishes none of these; the title and body
lengths come from its editor's own rules and a refusal seen past them (errors), the
image sizes from nowhere (unconfirmed). All are defaults the config may override.
"""

from __future__ import annotations

from crosspost.platforms.base import MB, Evidence, Limits, Option, Platform

_IMAGES = frozenset({"image/jpeg", "image/png", "image/gif"})  # SVG, WebP, BMP are converted

_EDITOR_RULES = Evidence(
    "Zhihu's editor rules, as a third-party write-up (知乎内容转换规则) gives them"
)
_NO_SOURCE = Evidence(
    "no source gives Zhihu's size limit; this one is crosspost's own guess", False
)

ZHIHU = Platform(
    name="zhihu",
    display_name="Zhihu column (知乎专栏)",
    limits=Limits(
        # Required, one line; a longer one got a 400.
        title_chars=100,
        # Counted as plain text without tags (text_count below).
        text_min_chars=9,
        text_max_chars=100_000,
        caption_chars=140,
        image_formats=_IMAGES,
        image_bytes=10 * MB,
        cover_formats=_IMAGES,
        cover_bytes=10 * MB,
        # The web editor uploads over HTTP/2 with no bound seen; 429 slows the wave.
        upload_concurrency=64,
        # Shown to editors, who have no copy of the specs; for developers, every one of
        # these is in specs/zhihu-api.md §6 (U-SPEC is the third-party write-up).
        evidence={
            "title_chars": Evidence(
                "a 400 on record for a longer title (GitHub: niudai/VSCode-Zhihu issue 50)"
            ),
            "text_min_chars": _EDITOR_RULES,
            "text_max_chars": _EDITOR_RULES,
            "caption_chars": _EDITOR_RULES,
            "image_bytes": _NO_SOURCE,
            "cover_bytes": _NO_SOURCE,
        },
    ),
    options=(
        Option("mode", "choice", choices=("draft", "publish", "broadcast"), in_config=True),
        # Zhihu usually refuses an article without a topic, and real clients do not try.
        Option(
            "topics",
            "names",
            default=(),
            needed_to_publish=True,
            example="[人工智能]",
            in_config=True,
        ),
        Option("column", "text", in_config=True),
    ),
    renderer="crosspost.render.zhihu.document:render",
    adapter="crosspost.channels.zhihu.adapter:ZhihuAdapter",
    text_count="crosspost.render.zhihu.document:body_chars",
    image_hosts=("zhimg.com",),
    image_label="Zhihu image",
    cover_label="Zhihu image",
)
