"""What goes over the wire to Zhihu: hosts, headers, request bodies, the OSS signature,
and what Zhihu's answers mean (zhihu-api.md §1–§5).

Kept apart from :mod:`crosspost.channels.zhihu.api` (which sends the calls) so every Zhihu
error code is classified in one table, and the bodies can be tested without a network.
Zhihu has no public API: everything here is the web editor's own traffic, parsed as
defensively as the spec asks.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from email.utils import formatdate, parsedate_to_datetime
from typing import Any, Final
from urllib.parse import urlsplit

from crosspost.channels.base import DraftContent
from crosspost.channels.http.policy import AmbiguousOutcome, Reply
from crosspost.channels.http.wire import IN_THE_WAY
from crosspost.config.sources import default_env_name
from crosspost.errors import (
    AuthError,
    ChannelError,
    PermanentError,
    RateLimitedError,
    TransientError,
    UnconfirmedError,
)
from crosspost.platforms.zhihu import ZHIHU

CHANNEL: Final = ZHIHU.name

#: The real hosts (spec §2). An account's ``base_url`` replaces every one of them.
HOSTS: Final = {
    "www": "https://www.zhihu.com",
    "zhuanlan": "https://zhuanlan.zhihu.com",
    "api": "https://api.zhihu.com",
    "oss": "https://zhihu-pics-upload.zhimg.com",
}
ARTICLE_URL: Final = "https://zhuanlan.zhihu.com/p/{id}"
EDIT_URL: Final = "https://zhuanlan.zhihu.com/p/{id}/edit"
OSS_BUCKET: Final = "zhihu-pics"

#: A mainstream desktop browser: Zhihu refuses unusual clients with 10001 (spec §1.2).
USER_AGENT: Final = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 "
    "(KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
)
OSS_USER_AGENT: Final = "aliyun-sdk-js/6.8.0 Chrome 131.0.0.0 on Windows 10 64-bit"

#: How long a 40362 risk-control throttle is waited out (spec §5: minutes to hours).
THROTTLE_SECONDS: Final = 30 * 60

#: Zhihu codes that mean one thing whatever call they answer (spec §5): the login (100,
#: 101), the client check (10001, 10003), the anti-bot wall (40352), the throttle (40362).
#: An E2 or E6 answer carrying one is that refusal, however it is wrapped.
LOGIN_CODES: Final = frozenset({100, 101})
CLIENT_CHECK: Final = frozenset({10001, 10003})
#: Of those, the refusals of the account rather than of one call: any other call is
#: refused the same way until a person acts (or the throttle passes), so a call the
#: spec marks optional or single-source is not "given up" on one of these.
ACCOUNT_WIDE: Final = LOGIN_CODES | {40352, 40362}
CLASSIFIED: Final = ACCOUNT_WIDE | CLIENT_CHECK


class NotFound(PermanentError):
    """HTTP 404: Zhihu does not know the draft, article or column (deleted, or never was)."""


@dataclass(frozen=True)
class Cookies:
    """Where an account's Zhihu cookies are set, for the messages that say what to fix:
    the config's ``cookie_env``, ``xsrf_env`` and ``d_c0_env``, else the ``main``
    account's default names (the config's one rule, :func:`default_env_name`).

    ``d_c0_sent``: whether the ``d_c0`` device cookie goes with the calls. Whether Zhihu
    requires it is unconfirmed (spec: accounts §5), so its absence is only named when
    Zhihu refuses the client (10001/10003)."""

    login_env: str = default_env_name(CHANNEL, "main", "z_c0")
    xsrf_env: str = default_env_name(CHANNEL, "main", "xsrf")
    d_c0_env: str = default_env_name(CHANNEL, "main", "d_c0")
    d_c0_sent: bool = True

    @classmethod
    def of(cls, credential_env: Mapping[str, str], *, d_c0_sent: bool) -> Cookies:
        """The variables an account's config names (a name it leaves out: the default)."""
        return cls(
            credential_env.get("z_c0", cls.login_env),
            credential_env.get("xsrf", cls.xsrf_env),
            credential_env.get("d_c0", cls.d_c0_env),
            d_c0_sent=d_c0_sent,
        )


def browser_headers(
    z_c0: str,
    xsrf: str | None,
    *,
    referer: str = "https://zhuanlan.zhihu.com/write",
    d_c0: str | None = None,
) -> dict[str, str]:
    """The headers of the web editor's own calls: cookie, UA, fetch marker, XSRF echo.

    ``d_c0`` is the browser's device cookie: every real client sends it beside ``z_c0``,
    and a login without it looks like no browser Zhihu has seen."""
    cookie = f"z_c0={z_c0}"
    if d_c0:
        cookie += f"; d_c0={d_c0}"
    headers = {
        "User-Agent": USER_AGENT,
        "x-requested-with": "fetch",
        "Origin": "https://zhuanlan.zhihu.com",
        "Referer": referer,
        "Accept": "application/json, text/plain, */*",
    }
    if xsrf:
        cookie += f"; _xsrf={xsrf}"
        headers["x-xsrftoken"] = xsrf
    headers["Cookie"] = cookie
    return headers


def oss_headers(
    object_key: str, mime: str, token: Mapping[str, Any], *, now: float
) -> dict[str, str]:
    """Headers of the OSS PUT (Aliyun V1 signature over the STS credentials of I1)."""
    date = formatdate(now, usegmt=True)
    security_token = str(token.get("access_token", ""))
    to_sign = (
        f"PUT\n\n{mime}\n{date}\nx-oss-date:{date}\nx-oss-security-token:{security_token}\n"
        f"x-oss-user-agent:{OSS_USER_AGENT}\n/{OSS_BUCKET}/{object_key}"
    )
    key = str(token.get("access_key", "")).encode()
    signature = base64.b64encode(hmac.new(key, to_sign.encode(), hashlib.sha1).digest()).decode()
    return {
        "Content-Type": mime,
        "x-oss-date": date,
        "x-oss-security-token": security_token,
        "x-oss-user-agent": OSS_USER_AGENT,
        "Authorization": f"OSS {token.get('access_id', '')}:{signature}",
        "Origin": "https://zhuanlan.zhihu.com",
        "Referer": "https://zhuanlan.zhihu.com/",
    }


def draft_body(
    title: str, html: str, cover_url: str | None, *, delta_time: int = 0
) -> dict[str, Any]:
    """E2/E3 body: both field spellings Zhihu mixes (camelCase cover, snake_case rest)."""
    body: dict[str, Any] = {
        "title": title,
        "content": html,
        "table_of_contents": False,
        "delta_time": delta_time,
        "can_reward": False,
    }
    if cover_url:
        body["titleImage"] = cover_url
        body["isTitleImageFullScreen"] = False
    return body


def publish_body(draft_id: str, *, republish: bool, now: float) -> dict[str, Any]:
    """E6 body as the 2025–26 editor sends it, minus ``hybrid``: Zhihu publishes the saved
    draft (the E3 patch just before), as ZO and ZN do. ``hybridInfo`` must be an object."""
    business = {
        "commentPermission": "anyone",
        "disclaimer_type": "none",
        "disclaimer_status": "close",
        "table_of_contents_enabled": False,
        "commercial_report_info": {"commercial_types": []},
        "commercial_zhitask_bind_info": None,
        "canReward": False,
        "column": None,
    }
    return {
        "action": "article",
        "data": {
            "publish": {"traceId": f"{int(now * 1000)},{uuid.uuid4()}"},
            "extra_info": {
                "publisher": "pc",
                "pc_business_params": json.dumps(business, ensure_ascii=False),
            },
            "draft": {"disabled": 1, "id": draft_id, "isPublished": republish},
            "commentsPermission": {"comment_permission": "anyone"},
            "creationStatement": {"disclaimer_type": "none", "disclaimer_status": "close"},
            "contentsTables": {"table_of_contents_enabled": False},
            "commercialReportInfo": {"isReport": 0},
            "appreciate": {"can_reward": False, "tagline": ""},
            "hybridInfo": {},
        },
    }


def cover_url(content: DraftContent) -> str | None:
    """The cover's zhimg URL for E2/E3 ``titleImage``, when the issue has a cover."""
    return content.cover.url if content.cover is not None else None


def draft_id_of(payload: Any) -> str | None:
    """A draft id as a string (new ids pass 2^53 and come as strings; old ones as numbers)."""
    if not isinstance(payload, Mapping):
        return None
    value = payload.get("id")
    if isinstance(value, str | int) and not isinstance(value, bool) and str(value):
        return str(value)
    url = payload.get("url")
    if isinstance(url, str) and "/p/" in url:
        return urlsplit(url).path.rstrip("/").rsplit("/", 1)[-1] or None
    return None


def published_id(answer: Mapping[str, Any], fallback: str) -> str:
    """The article id in an E6 answer, wherever this month's shape keeps it (spec §3 E6):
    ``data.result`` (a JSON string, or an object) → ``publish.id``, then ``data.publish.id``,
    then ``publish.id``; the draft id when none is there (Zhihu keeps one id for both)."""
    data = answer.get("data")
    candidates: list[Any] = []
    if isinstance(data, Mapping):
        result = data.get("result")
        if isinstance(result, str):
            try:
                result = json.loads(result)
            except ValueError:
                result = None
        if isinstance(result, Mapping):
            candidates.append(_dig(result, "publish", "id"))
        candidates.append(_dig(data, "publish", "id"))
    candidates.append(_dig(answer, "publish", "id"))
    for candidate in candidates:
        if isinstance(candidate, str | int) and not isinstance(candidate, bool) and candidate:
            return str(candidate)
    return fallback


def _dig(mapping: Mapping[str, Any], *keys: str) -> Any:
    value: Any = mapping
    for key in keys:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


# --- what Zhihu's answers mean ----------------------------------------------------------


def decode(reply: Reply, cookies: Cookies, *, irreversible: bool = False) -> Any:
    """The JSON of a reply (None for an empty body), or the error a body that is not
    JSON stands for.

    Zhihu's own web page where its JSON belongs is Zhihu's word: its anti-bot check, or
    the page it serves a login it does not accept (the request was not carried out, as
    with a redirect to either). Any other page, or an error status without JSON, is
    something between this machine and Zhihu answering, not Zhihu: temporary on a call
    that changes nothing; on one that creates or publishes, :class:`AmbiguousOutcome`
    (reconcile first). A page with 404 says nothing answers at that address: retrying
    will not help. Plain text is a gateway's (temporary); a success status with any
    other body that is not JSON: Zhihu changed the endpoint.
    """
    if not reply.body.strip():
        return None
    try:
        return reply.json()
    except ValueError:
        pass
    said = reply.instead_of_json("Zhihu")
    page = _zhihu_page(reply)
    if page == "check":
        raise classify(reply, 40352, "its anti-bot check page came back", cookies)
    if page == "login":
        raise AuthError(
            f"Zhihu {reply.where}: {said}: Zhihu's own page, which it serves when the login "
            f"is not accepted; {_login_advice(cookies)}",
            channel=CHANNEL,
            code=reply.status,
        )
    if irreversible:
        raise AmbiguousOutcome(
            f"Zhihu {reply.where}: {said}; it may or may not have happened",
            channel=CHANNEL,
            reason=said,
        )
    if reply.is_html and reply.status == 404:
        raise PermanentError(
            f"Zhihu {reply.where}: {said}: this address answered 404 with a web page, so "
            "nothing serves this call there; retrying will not help — Zhihu may have "
            "moved or retired it, report it",
            channel=CHANNEL,
            code=404,
        )
    if reply.is_html or reply.status >= 400:
        raise TransientError(
            f"Zhihu {reply.where}: {said}, so {IN_THE_WAY}", channel=CHANNEL, code=reply.status
        )
    if reply.header("content-type").strip().lower().startswith("text/plain"):
        raise TransientError(
            f"Zhihu {reply.where}: {said}: plain text, as a gateway or proxy between this "
            "machine and Zhihu sends when Zhihu does not answer; run again later, and if it "
            "repeats, check the proxy settings",
            channel=CHANNEL,
            code=reply.status,
        )
    raise PermanentError(
        f"Zhihu {reply.where}: {said}; Zhihu may have changed this endpoint, report it",
        channel=CHANNEL,
        code=reply.status,
    )


def _zhihu_page(reply: Reply) -> str | None:
    """``"check"`` for Zhihu's anti-bot page, ``"login"`` for another page of Zhihu's own
    (its title names 知乎) sent with a success status where JSON belongs: what Zhihu serves
    a login it does not accept. None for any other answer (a proxy's, a portal's)."""
    if not reply.is_html or not (reply.status < 300 or reply.status == 403):
        return None
    head = reply.text[:4096]
    title = reply.title
    zhihus = "知乎" in title or "zhihu" in title.lower()
    if "/account/unhuman" in head or (zhihus and ("安全验证" in title or "captcha" in head)):
        return "check"
    return "login" if zhihus and reply.status < 300 else None


def _json_or_none(reply: Reply) -> Any:
    try:
        return reply.json()
    except ValueError:
        return None


def error_of(payload: Any) -> tuple[int | None, str]:
    """(code, message) of Zhihu's ``{"error": {…}}`` envelope or its top-level variant."""
    if not isinstance(payload, Mapping):
        return None, ""
    error = payload.get("error")
    source: Mapping[str, Any] = error if isinstance(error, Mapping) else payload
    code = source.get("code")
    message = str(source.get("message") or source.get("name") or "")
    try:
        return (int(code) if code is not None else None), message
    except (TypeError, ValueError):
        return None, message


def check_reply(
    reply: Reply,
    *,
    irreversible: bool = False,
    cookies: Cookies | None = None,
) -> Any:
    """The decoded JSON of a successful reply; a typed, advice-carrying error otherwise.

    ``irreversible``: the call creates or publishes (see :func:`decode`); its own check
    reads the codes of a success status (:func:`check_publish`, :func:`check_created`).
    ``cookies`` name the variables to fix (else the default names). Raised errors never
    contain the cookie (the HTTP policy redacts again on the way out).
    """
    cookies = cookies or Cookies()
    if 300 <= reply.status < 400:
        raise redirected(reply, cookies)
    if reply.status == 401:  # the login, whatever page or JSON carries the refusal
        code, message = error_of(_json_or_none(reply))
        raise classify(reply, code, message, cookies)
    payload = decode(reply, cookies, irreversible=irreversible)
    if reply.status >= 400 or (
        isinstance(payload, Mapping) and isinstance(payload.get("error"), Mapping)
    ):
        code, message = error_of(payload)
        raise classify(reply, code, message, cookies)
    if not irreversible:
        # Zhihu also refuses with HTTP 200 and a top-level code (spec §5): a call that
        # "succeeded" so left the draft empty and published it.
        refusal = top_level_refusal(reply, payload, cookies)
        if refusal is not None:
            raise refusal
    return payload


def top_level_refusal(reply: Reply, payload: Any, cookies: Cookies) -> ChannelError | None:
    """The refusal an answer with a success status carries as a top-level non-zero
    ``code`` (spec §5: 10001/10003 "also seen as 200 + error body", U-COOKIE's top-level
    envelope), when the code is one Zhihu uses everywhere or comes with a message; else
    None (the answer is not one)."""
    if not isinstance(payload, Mapping):
        return None
    code = _number(payload.get("code"))
    if not isinstance(code, int) or isinstance(code, bool) or code == 0:
        return None
    message = str(payload.get("message") or payload.get("name") or "")
    if code not in CLASSIFIED and "message" not in payload:
        return None
    return classify(reply, code, message, cookies)


def redirected(reply: Reply, cookies: Cookies) -> ChannelError:
    """A redirect instead of an answer: Zhihu sends a request it will not serve to its
    login page or its anti-bot check. The request was not carried out; following the
    redirect would only fetch that page."""
    location = reply.header("location")
    page = location.split("?", 1)[0]
    if any(word in page for word in ("signin", "signup", "login")):
        login = replace(reply, status=401)
        return classify(login, None, "redirected to the login page", cookies)
    if any(word in page for word in ("unhuman", "captcha", "verify")):
        return classify(reply, 40352, "redirected to the anti-bot check", cookies)
    return PermanentError(
        f"Zhihu answered {reply.where} with a redirect (HTTP {reply.status}) to "
        f"{page or 'nowhere'} instead of an answer; the request was not carried out. Open "
        "zhihu.com in a browser logged in as this account to see why, then run again",
        channel=CHANNEL,
        code=reply.status,
    )


def _login_advice(cookies: Cookies) -> str:
    return (
        "the Zhihu login (z_c0 cookie) has expired or is not accepted. Log in to zhihu.com "
        "in a browser, open devtools → Application → Cookies → https://www.zhihu.com, copy "
        f"the value of z_c0 into the environment variable {cookies.login_env} (and _xsrf "
        f"into {cookies.xsrf_env}), then run again"
    )


def classify(reply: Reply, code: int | None, message: str, cookies: Cookies) -> ChannelError:
    """One Zhihu refusal as the error a person can act on (spec §5)."""
    said = f"Zhihu {code if code is not None else reply.status}"
    said += f" ({message})" if message else ""
    where = f"{said} on {reply.where}"
    if reply.status == 401 or code in LOGIN_CODES:
        return AuthError(
            f"{where}: {_login_advice(cookies)}",
            channel=CHANNEL,
            code=code if code is not None else 401,
        )
    if reply.status == 403 and "xsrf" in message.lower():
        return AuthError(
            f"{where}: Zhihu wants the _xsrf cookie echoed on writes. Copy the value of the "
            f"_xsrf cookie of zhihu.com (devtools → Application → Cookies) into "
            f"{cookies.xsrf_env}, then run again",
            channel=CHANNEL,
            code=code if code is not None else 403,
        )
    if code == 40352:
        return PermanentError(
            f"{where}: Zhihu's anti-bot check wants a human. Open zhihu.com in a browser "
            "logged in as this account, pass the verification, then run again",
            channel=CHANNEL,
            code=code,
        )
    if code == 40362:
        return RateLimitedError(
            f"{where}: Zhihu's risk control is limiting this account; wait at least "
            f"{THROTTLE_SECONDS // 60} minutes before running again",
            channel=CHANNEL,
            code=code,
            retry_after=THROTTLE_SECONDS,
        )
    if code in CLIENT_CHECK:
        return PermanentError(
            f"{where}: Zhihu refused the shape of this request (signature or client "
            f"check); {_client_advice(cookies)}",
            channel=CHANNEL,
            code=code,
        )
    if reply.status == 404 and "/articles/" in reply.path:
        return NotFound(
            f"{where}: the draft or article does not exist (deleted on Zhihu?); "
            "forget its id in the ledger so the next run creates a new one",
            channel=CHANNEL,
            code=code if code is not None else 404,
        )
    if reply.status == 404:  # the login check, a topic, a column: no draft to forget
        return NotFound(
            f"{where}: Zhihu found nothing at this address",
            channel=CHANNEL,
            code=code if code is not None else 404,
        )
    return PermanentError(
        f"{where}: Zhihu refused the request (HTTP {reply.status}); fix what the message "
        "says and run again",
        channel=CHANNEL,
        code=code if code is not None else reply.status,
    )


def _client_advice(cookies: Cookies) -> str:
    """What to do about 10001/10003: the cookies a browser sends first (every real client
    sends ``d_c0`` beside ``z_c0``), the endpoint only when they are all there."""
    if not cookies.d_c0_sent:
        return (
            "no d_c0 cookie was sent, which every browser sends with z_c0. Copy the value "
            "of the d_c0 cookie of zhihu.com (devtools → Application → Cookies → "
            f"https://www.zhihu.com) into the environment variable {cookies.d_c0_env}, "
            "then run again"
        )
    return (
        "retrying will not help. Copy z_c0, d_c0 and _xsrf again from one browser logged "
        f"in to zhihu.com (into {cookies.login_env}, {cookies.d_c0_env} and "
        f"{cookies.xsrf_env}), then run again; if Zhihu still refuses, it may have changed "
        "the endpoint, report it"
    )


class ClockSkewed(PermanentError):
    """OSS refused the upload's date: 403 ``RequestTimeTooSkewed``, this machine's clock
    more than 15 minutes from Aliyun's. ``server_time`` (seconds since the epoch) is the
    OSS host's clock as its answer gives it (``<ServerTime>``, else ``Date``), or None."""

    def __init__(self, message: str, *, server_time: float | None) -> None:
        super().__init__(message, channel=CHANNEL, code=SKEWED)
        self.server_time = server_time


#: Aliyun OSS's code for a request dated too far from its clock (15 minutes).
SKEWED: Final = "RequestTimeTooSkewed"


def _xml_text(text: str, element: str) -> str:
    """The text of ``<element>`` in an OSS XML error ("" when absent); Aliyun's samples
    lay the value out on lines of its own, so it is stripped."""
    opening, closing = f"<{element}>", f"</{element}>"
    if opening not in text:
        return ""
    return text.split(opening, 1)[1].split(closing, 1)[0].strip()


def _server_time(reply: Reply, text: str) -> float | None:
    """The OSS host's clock in a RequestTimeTooSkewed answer: ``<ServerTime>`` (ISO 8601,
    what ali-oss reads) or the ``Date`` header; None when neither can be read."""
    stamp = _xml_text(text, "ServerTime")
    try:
        if stamp:
            return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        pass
    try:
        return parsedate_to_datetime(reply.header("date")).timestamp()
    except (TypeError, ValueError, IndexError):
        return None


def check_oss(reply: Reply) -> None:
    """OSS speaks XML: 2xx is done; anything else names its ``<Code>``."""
    if reply.status < 300:
        return
    text = reply.text
    code = _xml_text(text, "Code")
    if code == SKEWED:
        # Aliyun refuses a request dated more than 15 minutes from its clock (help.aliyun.com
        # OSS error 0002-00000504); the browser's own uploader (ali-oss, which Zhihu's editor
        # uses) then signs once more with the time the answer gives (its request(): on
        # RequestTimeTooSkewed, amendTimeSkewed = serverTime - now, and again).
        raise ClockSkewed(
            f"Zhihu's image host refused the upload's date (HTTP {reply.status} {SKEWED} on "
            f"{reply.where}): this machine's clock is more than 15 minutes off; set it right "
            "(NTP: timedatectl set-ntp true), then run again",
            server_time=_server_time(reply, text),
        )
    raise PermanentError(
        f"Zhihu's image host refused the upload (HTTP {reply.status} {code or 'error'} on "
        f"{reply.where}); run again, which fetches a fresh upload token — if it repeats, "
        "Zhihu has changed its image upload",
        channel=CHANNEL,
        code=code or reply.status,
    )


def check_created(reply: Reply, payload: Any, cookies: Cookies) -> Any:
    """E2's answer as it came, unless it is a refusal Zhihu wrote as HTTP 200 with a
    top-level code (spec §5): that is raised as what it says. Read as "no draft id" it
    was a lost answer, reconciled, and a second E2 went out in the same run."""
    refusal = top_level_refusal(reply, payload, cookies)
    inner = payload.get("data") if isinstance(payload, Mapping) else None
    if refusal is not None and draft_id_of(payload) is None and draft_id_of(inner) is None:
        raise refusal
    return payload


def optional_refusal(reply: Reply) -> str | None:
    """What a 4xx answer to a call the spec marks optional (I3) said, for a warning; None
    for any other answer, which the call's usual check judges. Refusals of the account
    (the login, the anti-bot wall, the throttle, the _xsrf echo, 429) are not optional
    matters: the next call would meet them too."""
    if not 400 <= reply.status < 500 or reply.status in (401, 429):
        return None
    payload = _json_or_none(reply)
    code, message = error_of(payload)
    if code in ACCOUNT_WIDE or "xsrf" in message.lower() or _zhihu_page(reply) is not None:
        return None
    if payload is None and reply.body.strip():
        return reply.instead_of_json("Zhihu")
    said = f"Zhihu {code if code is not None else reply.status}"
    return said + (f" ({message})" if message else "")


def check_publish(reply: Reply, payload: Any, cookies: Cookies | None = None) -> Mapping[str, Any]:
    """E6 succeeds only with ``code == 0`` (HTTP 200 alone means nothing, spec §3 E6).

    A code Zhihu uses on every call (:data:`CLASSIFIED`: the login, the client check, the
    anti-bot wall, the throttle) means what it means there, even in E6's envelope: a
    40362 is a wait, not "fix the title"."""
    if not isinstance(payload, Mapping):
        raise UnconfirmedError(
            f"Zhihu answered {reply.where} without a result; the article may or may not be "
            "published — reconcile before trying again",
            channel=CHANNEL,
            code="no-result",
        )
    code = _number(payload.get("code"))
    if code == 0 or (code is None and payload.get("message") == "success"):
        return payload
    if code is None and published_id(payload, ""):
        return payload  # an answer that names the article it published (spec §3 E6)
    message = str(payload.get("message") or payload.get("toast_message") or "")
    if code is None:
        # A shape Zhihu has not used before (it changed this answer without notice in
        # 2025): "not published" would let --new-draft publish a second article.
        raise UnconfirmedError(
            f"Zhihu answered {reply.where} in a shape crosspost does not know "
            f"({_shape(payload)}); the article may or may not be published — reconcile "
            "(check the article's state) before trying again",
            channel=CHANNEL,
            code="unknown-answer",
        )
    if code in CLASSIFIED:
        raise classify(reply, code, message, cookies or Cookies())
    where = f"Zhihu publish code {code} ({message}) on {reply.where}"
    if code == 4000:
        # "发布失败，请稍后再试" may be transient, but publishing is irreversible: look first.
        raise UnconfirmedError(
            f"{where}: Zhihu says publishing failed; reconcile (check the article's state) "
            "before trying again",
            channel=CHANNEL,
            code=code,
        )
    raise PermanentError(
        f"{where}: the article was not published; fix what the message says "
        f"(title ≤ {ZHIHU.limits.title_chars} characters, body ≥ "
        f"{ZHIHU.limits.text_min_chars} characters, a topic) and run again",
        channel=CHANNEL,
        code=code if isinstance(code, int | str) else "publish",
    )


def _number(code: Any) -> Any:
    """A code as a number when Zhihu wrote it as one in a string (``"0"``)."""
    if isinstance(code, str) and code.strip().lstrip("-").isdigit():
        return int(code)
    return code


def _shape(payload: Mapping[str, Any]) -> str:
    """The keys of an answer, for a message (never its values: they may be content)."""
    keys = ", ".join(sorted(str(key) for key in payload)[:8])
    return f"keys: {keys}" if keys else "an empty object"


def oversized(error: PermanentError, title: str, text_chars: int) -> PermanentError:
    """A publish refusal (a 400, or a non-zero code) with the title and body as they were
    sent, measured as Zhihu's limits count them, when one of them is past its limit: the
    platform's word wins over lint's, and the editor needs the size and the way out."""
    limits = ZHIHU.limits
    title_over = len(title) > limits.title_chars
    body_over = bool(limits.text_max_chars and text_chars > limits.text_max_chars)
    if not (title_over or body_over):
        return error
    parts = []
    if title_over:
        parts.append(
            f"the title sent was {len(title)} characters (Zhihu takes {limits.title_chars}); "
            "shorten it or set 'zhihu: {title: …}' in the issue"
        )
    if body_over:
        parts.append(
            f"the body sent was {text_chars:,} characters of text (Zhihu takes "
            f"{limits.text_max_chars:,}); shorten the issue or split it into two issues"
        )
    return PermanentError(f"{error}; {'; '.join(parts)}", channel=CHANNEL, code=error.code)
