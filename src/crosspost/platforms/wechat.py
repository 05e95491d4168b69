"""WeChat Official Account (微信公众号): every number crosspost keeps to, declared once.

Sources: ``specs/wechat-api.md`` §3/§4 (images), §5 (cover crops), §7 (the publish-status
poll quota) and §9 (text limits). Where field reports are stricter than the documentation
the documented figure is the error and the reported one a warning (the author).
"""

from __future__ import annotations

from crosspost.platforms.base import MB, ImagePolicy, Limits, Option, Platform, megabytes

_JPEG, _PNG, _GIF = "image/jpeg", "image/png", "image/gif"

WECHAT = Platform(
    name="wechat",
    display_name="WeChat Official Account",
    limits=Limits(
        # "≤32个字"; field reports also hit a byte limit, so both are checked.
        title_chars=32,
        title_bytes=64,
        # Documented 16 characters; 45110 is reported from ~8 characters / 16 bytes on.
        author_chars=16,
        author_warn_chars=8,
        author_warn_bytes=16,
        # Documented 128; the web editor stops at 120.
        digest_chars=120,
        digest_shown_chars=54,
        source_url_bytes=1024,
        # "必须少于2万字符，小于1M", over the whole HTML string, tags included.
        content_chars=20_000,
        content_bytes=MB,
        # media/uploadimg takes JPG/PNG strictly under 1 MB; a GIF goes to add_material,
        # and the image pipeline keeps every inline image under the smaller limit.
        image_formats=frozenset({_JPEG, _PNG, _GIF}),
        image_bytes=MB - 1,
        # Covers are permanent material: strictly under 10 MB.
        cover_required=True,
        cover_formats=frozenset({_JPEG, _PNG}),
        cover_bytes=10 * MB - 1,
        cover_ratio=2.35,
        # http://mmbiz.qpic.cn/mmbiz_png/<64 characters>/0?wx_fmt=png
        image_url_chars=110,
        # freepublish/get: 100 calls a day.
        poll_budget_per_day=100,
    ),
    options=(
        Option("mode", "choice", choices=("draft", "publish")),
        Option("need_open_comment", "flag", default=False),
        Option("only_fans_can_comment", "flag", default=False),
    ),
    renderer="crosspost.render.wechat.document:render",
    adapter="crosspost.channels.wechat.adapter:WeChatAdapter",
    image_hosts=("mmbiz.qpic.cn",),
    image_label="WeChat in-article image",
    cover_label="WeChat cover",
    # freepublish/batchget and draft/get hand out "…&tempkey=…" links that expire
    # (wechat-api.md §6.4); only freepublish/get's article_url is the article's address.
    temporary_url_params=("tempkey",),
)

#: The types ``media/uploadimg`` takes; every other inline image is permanent material.
UPLOADIMG_TYPES = frozenset({_JPEG, _PNG})
#: Extensions WeChat recognises for each type (it refuses names without one).
EXTENSIONS: dict[str, tuple[str, ...]] = {
    _JPEG: (".jpg", ".jpeg"),
    _PNG: (".png",),
    _GIF: (".gif",),
}


def under(policy: ImagePolicy) -> str:
    """``"< 1 MB"``: an upload limit as WeChat words it (its limits are exclusive)."""
    return f"< {megabytes(policy.max_bytes + 1)}"
