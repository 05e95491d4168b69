"""What WeChat's ``errcode`` values mean, and what the editor should do about each.

WeChat answers HTTP 200 with ``{"errcode": N, "errmsg": "…"}`` for its own errors (spec
§0, §10). :func:`check_reply` turns one reply into its JSON payload or a typed error from
:mod:`crosspost.errors`; :mod:`crosspost.channels.http.policy` then retries what is transient
(idempotent calls only) and refreshes the token once on :class:`CredentialRejected`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from crosspost.channels.http.policy import CredentialRejected, Reply
from crosspost.channels.http.wire import IN_THE_WAY
from crosspost.errors import (
    AuthError,
    ChannelError,
    PermanentError,
    RateLimitedError,
    TransientError,
    UnconfirmedError,
)
from crosspost.patterns import pattern
from crosspost.platforms.base import megabytes
from crosspost.platforms.wechat import WECHAT, under

CHANNEL = WECHAT.name

#: The access token was refused: refresh it once and re-send once (spec §2.3).
TOKEN_CODES = frozenset({40001, 40014, 42001})
#: Refused credentials at the token endpoint itself: fix the configuration.
_AUTH_CODES = frozenset({40001, 40002, 40013, 40125, 40243, 41002, 41004})
#: Which credential a token call's refusal of these codes is about (the message names
#: the variable it is read from): each of them is among :data:`_AUTH_CODES`.
REFUSED_CREDENTIAL = {40001: "app_secret", 40125: "app_secret", 40243: "app_secret"}
#: Beijing midnight, when daily quotas reset, is 16:00 UTC.
_QUOTA_RESET_UTC_SECONDS = 16 * 3600
_WHITELIST_HELP = "公众号后台 → 设置与开发 → 基本配置 → IP白名单"
#: Where an account's verification (认证) is renewed (said by errors and by doctor).
VERIFY_HELP = "公众号后台 → 设置与开发 → 微信认证"
#: errcode of a call this account may not make (unverified, or a verification lapsed).
UNAUTHORISED_CODE = 48001
#: errcodes seen on calls crosspost makes whose meaning the spec does not give: WeChat's
#: own words stand, with a neutral line instead of a guess at what to do.
UNEXPLAINED = frozenset({45047})
_UNEXPLAINED_TODO = (
    "the spec crosspost follows does not say what this code means: look it up in "
    "WeChat's 全局返回码 list before running again"
)
#: A refusal of a fresh access token (spec §2.1: several fetchers of one AppID void each
#: other's tokens): passing trouble, tried again by the next run.
_TOKEN_FIGHT = (
    "another program may be fetching access tokens for this AppID, each new one voiding "
    "the last: let one program hold the token, or have every program use stable_token "
    "(without force_refresh); nothing was done, and the next run tries again"
)
_IP = pattern(r"invalid ip ([0-9A-Fa-f.:]+)")
#: errcode of a media_id WeChat does not know (a draft or material that left the account).
DRAFT_GONE_CODE = 40007
#: What an editor does when a draft crosspost recorded is gone from 草稿箱 (40007).
DRAFT_GONE = (
    "the draft was published or sent by hand, or deleted; check 发表记录 and 群发记录 first, "
    "then run with --new-draft (it finds and records an article published by hand, but "
    "cannot see a 群发, and makes a new draft otherwise)"
)

_LIMITS = WECHAT.limits
_INLINE, _COVER = WECHAT.image_policy("inline"), WECHAT.image_policy("cover")

#: errcode → (what it means, what to do).
MEANINGS: dict[int, tuple[str, str]] = {
    -1: ("WeChat system busy", "run again in a few minutes"),
    40001: ("AppSecret refused or access token not valid", "check the account's app_secret"),
    40002: ("invalid grant_type", "report this as a crosspost bug"),
    40004: ("invalid media type", "report this as a crosspost bug"),
    40005: ("invalid file type", "use a JPG or PNG image"),
    40006: ("invalid file size", "use a smaller image"),
    40007: ("invalid media_id", "the draft or cover no longer exists on WeChat; run again"),
    40009: (
        "image too large",
        f"use a smaller image (uploadimg {under(_INLINE)}, material {under(_COVER)})",
    ),
    40012: ("thumbnail too large", "use a smaller cover"),
    40013: ("invalid AppID", "check the account's app_id"),
    40033: ("\\uXXXX escapes in the request", "report this as a crosspost bug"),
    40125: ("invalid AppSecret", "check the account's app_secret (公众号后台 → 基本配置)"),
    40137: ("unsupported image format", "re-save the image as JPG or PNG"),
    40243: ("AppSecret frozen", "unfreeze or reset the AppSecret in 公众号后台 → 基本配置"),
    41005: ("image data missing", "report this as a crosspost bug"),
    44003: ("empty article", "give the issue a title and a body"),
    45002: (
        "content too long",
        f"shorten the issue: under {_LIMITS.content_chars:,} characters and "
        f"{megabytes(_LIMITS.content_bytes or 0)} of HTML",
    ),
    45003: (
        "title too long",
        f"shorten the title (≤ {_LIMITS.title_chars} characters, "
        f"≤ {_LIMITS.title_bytes} UTF-8 bytes)",
    ),
    45004: ("digest too long", f"shorten the digest (≤ {_LIMITS.digest_chars} characters)"),
    45005: ("link too long", f"shorten source_url (≤ {_LIMITS.source_url_bytes} bytes)"),
    45008: ("too many articles in the draft", "report this as a crosspost bug"),
    45009: ("daily API quota used up", "run again tomorrow (quotas reset at 00:00 Beijing time)"),
    45011: ("per-minute API quota reached", "run again in a minute"),
    45110: ("author too long", f"shorten the author (≤ {_LIMITS.author_warn_chars} characters)"),
    45166: ("content rejected as invalid", "remove unusual links or markup and run again"),
    47001: ("malformed request body", "report this as a crosspost bug"),
    45067: (
        "clientmsgid longer than 64 bytes",
        "nothing was sent; report this as a crosspost bug (its send ids are 50 bytes)",
    ),
    48001: (
        "API not authorised for this account",
        f"verify (认证) the account, or renew a lapsed verification in {VERIFY_HELP}",
    ),
    48004: ("API banned for irregularities", "see the notice in 公众号后台"),
    50002: ("account restricted", "see the notice in 公众号后台"),
    53500: ("publishing banned for this account", "see the notice in 公众号后台"),
    53501: ("publishing too often", "run again later"),
    53502: ("unknown publish_id", "run again; crosspost will reconcile"),
    53503: ("draft failed WeChat's pre-publish check", "open the draft in 草稿箱 and fix it"),
    53504: ("draft must be used in the web console", "publish it from 草稿箱"),
    53505: ("draft must be saved by hand first", "open it in 草稿箱, save it, then publish"),
    53600: ("unknown article_id", "run again; crosspost will reconcile"),
    89501: ("IP awaiting the administrator's confirmation", "confirm it in the WeChat app"),
    89503: ("this call needs the administrator's confirmation", "confirm it in the WeChat app"),
    89506: ("IP rejected twice by the administrator", "wait 24 hours, then run again"),
    89507: ("IP rejected by the administrator", "wait one hour, then run again"),
}


#: errcodes WeChat answers when one field of an article is too long, and that field.
SIZE_CODES: dict[int, str] = {45002: "content", 45003: "title", 45004: "digest", 45110: "author"}


def oversized(error: PermanentError, article: Mapping[str, Any]) -> PermanentError:
    """``error`` with what was measured in the refused ``article`` and the fix, when it is
    a too-long error (45002, 45003, 45004, 45110); else ``error`` as it is.

    The platform's count is the one that matters: when it refuses what lint let through,
    the editor needs the size that was sent, and the way out.
    """
    field = SIZE_CODES.get(error.code) if isinstance(error.code, int) else None
    if field is None:
        return error
    value = str(article.get(field) or "")
    chars, size = len(value), len(value.encode())
    if field == "content":
        measured = (
            f"the article sent was {chars:,} characters ({megabytes(size)}) of HTML; "
            "shorten the issue or split it into two issues"
        )
    else:
        measured = (
            f"the {field} sent was {chars} characters ({size} UTF-8 bytes); shorten it, "
            f"or give WeChat its own with '{CHANNEL}: {{{field}: …}}' in the issue"
        )
    return PermanentError(f"{error}; {measured}", channel=CHANNEL, code=error.code)


def describe(code: int, errmsg: str, where: str) -> str:
    """One line naming the code, what it means and what to do."""
    said = errmsg.split(" rid:")[0].split(" hint:")[0].strip()
    todo = _UNEXPLAINED_TODO if code in UNEXPLAINED else ""
    meaning, todo = MEANINGS.get(code, (said or "error", todo))
    line = f"WeChat errcode {code} ({meaning}) on {where}"
    if code == UNAUTHORISED_CODE and "/cgi-bin/draft/" in where:
        # draft/* serves unverified and personal accounts too (spec wechat-broadcast-and-
        # accounts.md §3): refused even drafts, the account's verification has lapsed.
        return (
            f"{line}: WeChat refuses even drafts, which unverified accounts may make, so "
            f"the account's verification (认证) may have lapsed; renew it in {VERIFY_HELP}, "
            "then run with --retry-failed"
        )
    if code == 40164:
        match = _IP.search(errmsg)
        ip = match.group(1) if match else "this machine's address"
        return (
            f"WeChat errcode 40164 (caller IP not whitelisted) on {where}: WeChat saw the call "
            f"from {ip}; add {ip} in {_WHITELIST_HELP}, then run again"
        )
    return f"{line}; {todo}" if todo else line


def draft_gone(media_id: str) -> PermanentError:
    """The one error for a draft crosspost made that is no longer in 草稿箱."""
    return PermanentError(
        f"WeChat draft {media_id} is no longer in 草稿箱 ({DRAFT_GONE_CODE}): {DRAFT_GONE}",
        channel=CHANNEL,
        code=DRAFT_GONE_CODE,
    )


def seconds_to_next_minute(now: float) -> float:
    """45011 asks to 'retry next minute': wait until just after the minute turns."""
    return 60.0 - (now % 60.0) + 1.0


def seconds_to_quota_reset(now: float) -> float:
    """Daily quotas reset at Beijing midnight (the spec's best guess)."""
    left = (_QUOTA_RESET_UTC_SECONDS - now % 86400.0) % 86400.0
    return left or 86400.0


def check_reply(
    reply: Reply,
    *,
    clock: Callable[[], float],
    irreversible: bool = False,
    token_call: bool = False,
) -> dict[str, Any]:
    """The JSON payload of a successful reply, or the typed error it stands for.

    ``irreversible``: the call creates or publishes something; a reply that does not say
    clearly whether it happened becomes :class:`UnconfirmedError`. ``token_call``: the
    reply comes from the token endpoint, where 40001 means a wrong AppSecret.
    """
    try:
        data = reply.json()
    except ValueError:
        data = None
    if not isinstance(data, dict):
        problem = f"WeChat {reply.where}: " + (
            reply.instead_of_json("WeChat")
            if data is None
            else f"an answer WeChat does not give came back (HTTP {reply.status})"
        )
        if irreversible:
            raise UnconfirmedError(
                f"{problem}; it may or may not have happened", channel=CHANNEL, problem=problem
            )
        # A page where WeChat's JSON belongs is someone else's: a proxy, a firewall. So
        # is a redirect: WeChat's API answers every call itself, never elsewhere.
        elsewhere = reply.is_html or reply.redirect_host is not None
        advice = f", so {IN_THE_WAY}" if elsewhere else "; run again later"
        raise TransientError(f"{problem}{advice}", channel=CHANNEL, code=reply.status)
    if not 200 <= reply.status < 300 and "errcode" not in data:
        # WeChat answers every call, its refusals too, with HTTP 200 (spec §0,
        # [P-tencent-40164]); a JSON answer with another status and no errcode is someone
        # else's: the relay many accounts call through to have a fixed IP for the whitelist
        # (a reverse proxy in front of api.weixin.qq.com answering 403 of its own: go-gost/
        # gost#659), an API gateway's {"code": 403, "msg": …}. Read as WeChat's payload it
        # was a success: a draft listing with no items, so reconcile found no draft and a
        # second draft/add went out.
        problem = (
            f"WeChat {reply.where}: a JSON answer without errcode came back with HTTP "
            f"{reply.status}, which WeChat never sends (its own answers are HTTP 200)"
        )
        if irreversible:
            raise UnconfirmedError(
                f"{problem}; it may or may not have happened", channel=CHANNEL, problem=problem
            )
        raise TransientError(f"{problem}, so {IN_THE_WAY}", channel=CHANNEL, code=reply.status)
    try:
        code = int(data.get("errcode") or 0)
    except (TypeError, ValueError):
        code = -1
    if code == 0:
        return data
    raise error_for(
        code, str(data.get("errmsg", "")), reply.where, clock(), irreversible, token_call
    )


def error_for(
    code: int, errmsg: str, where: str, now: float, irreversible: bool, token_call: bool
) -> ChannelError:
    """The typed error for one errcode (spec §10's classes)."""
    message = describe(code, errmsg, where)
    if code in TOKEN_CODES and not token_call:
        again = f"WeChat errcode {code} on {where}, again with a fresh access token: {_TOKEN_FIGHT}"
        return CredentialRejected(message, channel=CHANNEL, code=code, again=again)
    if code in _AUTH_CODES:
        return AuthError(message, channel=CHANNEL, code=code)
    if code == -1:
        if irreversible:
            return UnconfirmedError(
                f"{message}: it may or may not have happened",
                channel=CHANNEL,
                code=code,
                problem=message,
            )
        return TransientError(message, channel=CHANNEL, code=code)
    if code == 45011:
        return RateLimitedError(
            message, channel=CHANNEL, code=code, retry_after=seconds_to_next_minute(now)
        )
    if code == 45009:
        return RateLimitedError(
            message, channel=CHANNEL, code=code, retry_after=seconds_to_quota_reset(now)
        )
    if code in (53501, 89501, 89503):
        # Needs time or a person, not a quick retry: the hour puts it past the retry cap.
        return RateLimitedError(message, channel=CHANNEL, code=code, retry_after=3600.0)
    return PermanentError(message, channel=CHANNEL, code=code)
