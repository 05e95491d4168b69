"""WeChat Official Account (微信公众号): every number crosspost keeps to, declared once.

Sources: ``specs/wechat-api.md`` §3/§4 (images), §5 (cover crops), §7 (the publish-status
poll quota) and §9 (text limits). Each limit carries its evidence: where only field
reports or one community answer support a figure (the title's bytes, the author's 8
characters, the whole-HTML character count) it is unconfirmed, and lint warns instead of
refusing; the config can set any of them (``[channels.wechat.limits]``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from crosspost.platforms.base import (
    MB,
    Evidence,
    ImagePolicy,
    Limits,
    Option,
    Platform,
    megabytes,
)

_JPEG, _PNG, _GIF = "image/jpeg", "image/png", "image/gif"

#: Why an author of 8 characters or 16 bytes is risky (specs/wechat-api.md §9, §14.1).
_AUTHOR_45110 = Evidence(
    "field reports of error 45110 on authors shorter than draft/add's documentation allows",
    False,
)

#: The types ``media/uploadimg`` takes; every other inline image is permanent material.
UPLOADIMG_TYPES = frozenset({_JPEG, _PNG})
#: The largest file ``media/uploadimg`` takes (its "1MB以下": strictly under 1 MB),
#: whatever the config says about ``image_bytes``: a bigger inline image (one the config
#: lets through) goes to ``add_material`` as permanent material, as a GIF does.
UPLOADIMG_MAX_BYTES = MB - 1

WECHAT = Platform(
    name="wechat",
    display_name="WeChat Official Account",
    limits=Limits(
        # The web editor takes 64 characters, and WeChat staff say the API matches the
        # web backend. The 64-byte reading of 45003 rests on field reports only.
        title_chars=64,
        title_bytes=64,
        # Documented 16 characters; 45110 is reported from ~8 characters / 16 bytes on.
        author_chars=16,
        author_warn_chars=8,
        author_warn_bytes=16,
        # Documented 128; the web editor stops at 120.
        digest_chars=120,
        digest_shown_chars=54,
        source_url_bytes=1024,
        # "必须少于2万字符，小于1M"; that the whole HTML string (tags included) is what
        # counts toward the characters is one community answer.
        content_chars=20_000,
        content_bytes=MB,
        # media/uploadimg takes JPG/PNG strictly under 1 MB; a GIF goes to add_material,
        # and the image pipeline keeps every inline image under the smaller limit.
        image_formats=frozenset({_JPEG, _PNG, _GIF}),
        image_bytes=UPLOADIMG_MAX_BYTES,
        # Covers are permanent material: strictly under 10 MB.
        cover_required=True,
        cover_formats=frozenset({_JPEG, _PNG}),
        cover_bytes=10 * MB - 1,
        cover_ratio=2.35,
        # http://mmbiz.qpic.cn/mmbiz_png/<64 characters>/0?wx_fmt=png
        image_url_chars=110,
        # No documented bound on parallel uploads; 45011/429 answers slow the wave.
        upload_concurrency=64,
        # freepublish/get: 100 calls a day.
        poll_budget_per_day=100,
        # The texts are shown to editors, who have no copy of the specs: each says what
        # the evidence is. For developers: specs/wechat-api.md §5.1 (draft/add's fields),
        # §9 (the limits table), §14.1-14.3 (the disputed numbers).
        evidence={
            "title_chars": Evidence("the web editor's limit; WeChat staff say the API keeps it"),
            "title_bytes": Evidence(
                "field reports of error 45003 on titles long in UTF-8 bytes, which WeChat's "
                "documentation (it counts characters) does not confirm",
                False,
            ),
            "author_chars": Evidence("draft/add's documentation ('总长度不超过16个字')"),
            "author_warn_chars": _AUTHOR_45110,
            "author_warn_bytes": _AUTHOR_45110,
            "digest_chars": Evidence("the web editor's limit (draft/add's documentation: 128)"),
            "digest_shown_chars": Evidence("draft/add's documentation"),
            "source_url_bytes": Evidence("draft/add's documentation ('大小不可超过1kb')"),
            "cover_required": Evidence("draft/add's documentation (a news article needs one)"),
            "content_chars": Evidence(
                "one community answer on WeChat's developer forum that the whole HTML, "
                "tags included, counts toward draft/add's character limit",
                False,
            ),
            "content_bytes": Evidence("draft/add's documentation ('小于1M')"),
            "image_bytes": Evidence("media/uploadimg's documentation ('1MB以下')"),
            "cover_bytes": Evidence("add_material's documentation (10 MB)"),
            "cover_ratio": Evidence("draft/add's 2.35:1 cover crop (pic_crop_235_1)"),
            "poll_budget_per_day": Evidence("freepublish/get's documented daily quota"),
        },
    ),
    options=(
        Option("mode", "choice", choices=("draft", "publish", "broadcast"), in_config=True),
        # Whom a mass send (群发) reaches: every follower, or one tag's
        # ({tag_id: 2, send_ignore_reprint: true}); read by mode broadcast.
        Option("broadcast", "target", example="{tag_id: 2}"),
        # 多图文: up to seven other issues of the folder, by id, in the same draft and send.
        Option("with", "names", example="[ai-48-short, ai-48-notes]"),
        Option("need_open_comment", "flag", default=False, in_config=True),
        Option("only_fans_can_comment", "flag", default=False, in_config=True),
    ),
    renderer="crosspost.render.wechat.document:render",
    adapter="crosspost.channels.wechat.adapter:WeChatAdapter",
    image_hosts=("mmbiz.qpic.cn",),
    image_label="WeChat in-article image",
    cover_label="WeChat cover",
    # freepublish/batchget and draft/get hand out "…&tempkey=…" links that expire
    # (wechat-api.md §6.4); only freepublish/get's article_url is the article's address.
    temporary_url_params=("tempkey",),
    # A draft/add answered after the client's timeout has been seen to appear in 草稿箱
    # well after the call; two minutes covers WeChat's own gateway timeout with room.
    settle_seconds=120.0,
)

#: A mass send repeated with the same clientmsgid within a minute is answered 45066, not
#: deduplicated (wechat-broadcast-and-accounts.md §2): a repeat waits this long first.
MASS_REPEAT_PAUSE = 61.0

#: Extensions WeChat recognises for each type (it refuses names without one).
EXTENSIONS: dict[str, tuple[str, ...]] = {
    _JPEG: (".jpg", ".jpeg"),
    _PNG: (".png",),
    _GIF: (".gif",),
}


def under(policy: ImagePolicy) -> str:
    """``"< 1 MB"``: an upload limit as WeChat words it (its limits are exclusive)."""
    if policy.max_bytes is None:
        return "of any size"
    return f"< {megabytes(policy.max_bytes + 1)}"


@dataclass(frozen=True)
class AccountKind:
    """What one kind of Official Account may call (specs/wechat-broadcast-and-accounts.md §2–3).

    WeChat answers 48001 ("api unauthorized") to a call the account's kind may not make;
    this table lets a run decide before sending anything, instead of learning it from a
    refusal half-way through. The mass-send quota is declared here as numbers, once.
    """

    name: str
    #: ``draft/*``: make and edit drafts in 草稿箱.
    may_draft: bool
    #: ``freepublish/*``: 发表, which gives a link and pushes nothing.
    may_publish: bool
    #: ``message/mass/sendall``: 群发, which reaches followers.
    may_broadcast: bool
    #: ``message/mass/preview``: a preview to one WeChat user.
    may_preview: bool
    #: Successful mass sends a Beijing day allows (a subscription account's rule).
    sends_per_day: int | None = None
    #: Mass sends each follower receives in a calendar month (a service account's rule;
    #: WeChat skips followers past it rather than refusing the send).
    sends_per_follower_month: int | None = None

    @property
    def mass_quota(self) -> str:
        """The mass-send quota in words, for messages and ``crosspost doctor``."""
        if self.sends_per_day is not None:
            return f"{self.sends_per_day} successful send per Beijing day"
        if self.sends_per_follower_month is not None:
            return f"each follower ≤ {self.sends_per_follower_month} per calendar month"
        return ""

    def may(self, mode: str) -> bool:
        """Whether this kind of account can carry out ``mode`` (draft/publish/broadcast)."""
        return {"draft": self.may_draft, "publish": self.may_publish}.get(mode, self.may_broadcast)


#: Kind → what it may call, declared once; ``kind = "…"`` on a WeChat account names one.
ACCOUNT_KINDS: Mapping[str, AccountKind] = MappingProxyType(
    {
        kind.name: kind
        for kind in (
            AccountKind("verified_subscription", True, True, True, True, sends_per_day=1),
            AccountKind("verified_service", True, True, True, True, sends_per_follower_month=4),
            AccountKind("unverified", True, False, False, False),
            AccountKind("personal", True, False, False, False),
            # A lapsed verification is refused everything, draft/add included.
            AccountKind("lapsed", False, False, False, False),
        )
    }
)
