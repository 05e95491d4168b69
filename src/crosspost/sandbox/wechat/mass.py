"""WeChat mass send (群发): ``message/mass/sendall|get|preview|delete`` (spec
wechat-broadcast-and-accounts.md §2).

``sendall`` takes a draft's ``media_id`` as ``mpnews``: the draft leaves the draft box at
once and the send is a job that answers ``SENDING`` until ``mass_finish_seconds`` of clock
time have passed, then ``SEND_SUCCESS``, and only then does each follower it reaches get
one push. With 群发保护 (option ``mass_protect``) the job waits instead for an
administrator's confirmation (:func:`confirm`) and fails by itself after
``mass_protect_seconds``.

``clientmsgid`` is the platform's own idempotency: within 24 h of an accepted send the
same id answers 45065 with that send's ``msg_id`` and ``msg_data_id`` (45066 inside the
first minute), and an id over 64 bytes answers 45067. Refused sends record nothing.

Quotas follow the account's kind (:mod:`~crosspost.sandbox.wechat.kinds`): a
subscription account has one send per Beijing day, counting every send that has not
failed; a service account reaches each follower at most four times a calendar month,
skips the followers already there, and is refused only when nobody is left. Both refusals
answer ``mass_quota_errcode`` (45028 by default; the spec calls the code unconfirmed).

Followers are ``fan-0`` … ``fan-<followers - 1>``; ``tags`` maps a tag id to follower
indexes. ``preview`` reaches one person (``towxname`` or a follower's ``touser``), never the
followers, and is recorded per recipient.
"""

from __future__ import annotations

import string
from typing import Any

from crosspost.sandbox.wechat.content import MP_HOST
from crosspost.sandbox.wechat.kinds import kind_named
from crosspost.sandbox.wechat.state import WeChatAccount
from crosspost.sandbox.wechat.wire import ApiError, Call, stored

SENDING, SUCCESS, FAIL, DELETED = "SENDING", "SEND_SUCCESS", "SEND_FAIL", "DELETE"
CLIENTMSGID_BYTES = 64
DEDUPE_SECONDS = 24 * 3600
TOO_FAST_SECONDS = 60


def followers(account: WeChatAccount) -> list[str]:
    """Every follower's openid."""
    return [f"fan-{index}" for index in range(int(account.opt("followers")))]


def _audience(account: WeChatAccount, body: dict[str, Any]) -> list[str]:
    """The openids a ``filter`` names: everyone, or one tag (45159 for an unknown tag)."""
    rule = body.get("filter")
    if not isinstance(rule, dict):
        raise ApiError(40097)
    everyone = followers(account)
    if rule.get("is_to_all") in (True, 1, "true"):
        return everyone
    tags = {str(tag): members for tag, members in (account.opt("tags") or {}).items()}
    members = tags.get(str(rule.get("tag_id", "")))
    if members is None:
        raise ApiError(45159)
    return [everyone[i] for i in members if 0 <= int(i) < len(everyone)]


def _mpnews_draft(account: WeChatAccount, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The draft an ``mpnews`` body names (40097 for another msgtype, 40007 unknown)."""
    if body.get("msgtype") != "mpnews" or not isinstance(body.get("mpnews"), dict):
        raise ApiError(40097)
    return stored(account.drafts, body["mpnews"], "media_id", 40007)


def _counted(send: dict[str, Any]) -> bool:
    """A send that used quota: every send that has not failed."""
    return bool(send["status"] != FAIL)


def _within_quota(account: WeChatAccount, audience: list[str], now: float) -> list[str]:
    """The followers this send may reach; the quota errcode when it may not go at all."""
    kind = kind_named(account.opt("account_kind"), verified=account.opt("verified"))
    sends = [s for s in account.mass_sends.values() if _counted(s)]
    refused = ApiError(int(account.opt("mass_quota_errcode")), "has no masssend quota")
    if kind.mass_quota == "day":
        today = account.day(now)
        if sum(1 for s in sends if account.day(s["sent_at"]) == today) >= kind.mass_limit:
            raise refused
        return audience
    month = account.month(now)
    this_month = [s for s in sends if account.month(s["sent_at"]) == month]
    left = [
        openid
        for openid in audience
        if sum(openid in s["audience"] for s in this_month) < kind.mass_limit
    ]
    if audience and not left:
        raise refused
    return left


def _check_clientmsgid(account: WeChatAccount, clientmsgid: Any, now: float) -> str | None:
    """45067 for an id too long; 45066/45065 for one already accepted (within 24 h)."""
    if clientmsgid in (None, ""):
        return None
    text = str(clientmsgid)
    if len(text.encode()) > CLIENTMSGID_BYTES:
        raise ApiError(45067)
    first = account.clientmsgids.get(text)
    if first is not None and now - first["sent_at"] < DEDUPE_SECONDS:
        if now - first["sent_at"] < TOO_FAST_SECONDS:
            raise ApiError(45066)
        key = str(account.opt("replay_id_key"))
        raise ApiError(45065, extra={key: first["msg_id"], "msg_data_id": first["msg_data_id"]})
    return text


def sendall(account: WeChatAccount, call: Call) -> dict[str, Any]:
    """``message/mass/sendall``: accept a send job for a draft (see the module doc)."""
    body = call.json()
    clientmsgid = _check_clientmsgid(account, body.get("clientmsgid"), call.now)
    media_id, draft = _mpnews_draft(account, body)
    audience = _within_quota(account, _audience(account, body), call.now)
    return _accept(
        account,
        media_id,
        draft,
        audience,
        body,
        clientmsgid,
        call.now,
        protected=bool(account.opt("mass_protect")),
    )


def send_by_hand(account: WeChatAccount, media_id: str, now: float) -> dict[str, Any]:
    """群发 pressed in the web console: to every follower, within the kind's quota (the
    console counts the same sends), confirmed by the administrator who pressed it. Any
    kind of account may; the API is not asked."""
    draft = account.drafts.get(media_id)
    if draft is None:
        raise ValueError(f"no draft {media_id} in the draft box")
    body = {"filter": {"is_to_all": True}}
    try:
        audience = _within_quota(account, followers(account), now)
    except ApiError as error:
        raise ValueError(f"the console refuses: {error.errmsg} ({error.errcode})") from None
    return _accept(account, media_id, draft, audience, body, None, now, protected=False)


def _accept(
    account: WeChatAccount,
    media_id: str,
    draft: dict[str, Any],
    audience: list[str],
    body: dict[str, Any],
    clientmsgid: str | None,
    now: float,
    *,
    protected: bool,
) -> dict[str, Any]:
    """Record an accepted send: the draft leaves the box, the job starts SENDING."""
    msg_id, msg_data_id = account.next_msg_id, account.next_msg_data_id
    account.next_msg_id += 1
    account.next_msg_data_id += 1
    article_urls = [
        f"https://{MP_HOST}/s/{account.random_text(22, string.ascii_letters + string.digits)}"
        for _ in draft["articles"]
    ]
    account.mass_sends[str(msg_id)] = {
        "msg_id": msg_id,
        "msg_data_id": msg_data_id,
        "media_id": media_id,
        "articles": draft["articles"],
        "article_urls": article_urls,
        "audience": audience,
        "filter": body["filter"],
        "send_ignore_reprint": 1 if body.get("send_ignore_reprint") in (1, True, "1") else 0,
        "clientmsgid": clientmsgid,
        "protected": protected,
        "sent_at": now,
        "status": SENDING,
        "deleted_idx": [],
    }
    if clientmsgid is not None:
        account.clientmsgids[clientmsgid] = {
            "msg_id": msg_id,
            "msg_data_id": msg_data_id,
            "sent_at": now,
        }
    del account.drafts[media_id]
    advance_sends(account, now)
    return {
        "errcode": 0,
        "errmsg": "send job submission success",
        "msg_id": msg_id,
        "msg_data_id": msg_data_id,
    }


def advance_sends(account: WeChatAccount, now: float) -> None:
    """Finish the sends whose time is up (called before every request)."""
    finish = float(account.opt("mass_finish_seconds"))
    patience = float(account.opt("mass_protect_seconds"))
    for send in account.mass_sends.values():
        if send["status"] != SENDING:
            continue
        if send["protected"]:
            if now >= send["sent_at"] + patience:
                send["status"] = FAIL
        elif now >= send["sent_at"] + finish:
            send["status"] = SUCCESS


def confirm(account: WeChatAccount, msg_id: int, *, confirmed: bool = True) -> dict[str, Any]:
    """An administrator's answer to a protected send: it goes out, or it fails.

    Only a send still waiting can be answered; anything else is a mistake in the test."""
    send = account.mass_sends.get(str(msg_id))
    if send is None or not send["protected"] or send["status"] != SENDING:
        raise ValueError(f"no protected send {msg_id} is waiting for confirmation")
    send["status"] = SUCCESS if confirmed else FAIL
    return {"msg_id": send["msg_id"], "msg_status": send["status"]}


def _send(account: WeChatAccount, body: dict[str, Any]) -> dict[str, Any]:
    """The send a body's ``msg_id`` names (40097 when there is none)."""
    send = account.mass_sends.get(str(body.get("msg_id", "")).strip())
    if send is None:
        raise ApiError(40097)
    return send


def get_status(account: WeChatAccount, call: Call) -> dict[str, Any]:
    """``message/mass/get``: SENDING, SEND_SUCCESS, SEND_FAIL or DELETE."""
    send = _send(account, call.json())
    return {"msg_id": send["msg_id"], "msg_status": send["status"]}


def delete(account: WeChatAccount, call: Call) -> dict[str, Any]:
    """``message/mass/delete``: one article (1-based ``article_idx``) or all (0). The
    pushes already made stay made; with every article gone the send reads DELETE."""
    body = call.json()
    send = _send(account, body)
    index = body.get("article_idx") or 0
    count = len(send["articles"])
    if send["status"] not in (SUCCESS, DELETED) or not isinstance(index, int):
        raise ApiError(40097)
    if not 0 <= index <= count:
        raise ApiError(40097)
    wanted = range(1, count + 1) if index == 0 else [index]
    send["deleted_idx"] = sorted(set(send["deleted_idx"]) | set(wanted))
    if len(send["deleted_idx"]) == count:
        send["status"] = DELETED
    return {"errcode": 0, "errmsg": "ok"}


def preview(account: WeChatAccount, call: Call) -> dict[str, Any]:
    """``message/mass/preview``: the draft to one person; the draft stays in the box."""
    body = call.json()
    media_id, _ = _mpnews_draft(account, body)
    if body.get("towxname"):
        to = str(body["towxname"])
    elif body.get("touser"):
        to = str(body["touser"])
        if to not in followers(account):
            raise ApiError(40003)
    else:
        raise ApiError(40097)
    account.previews.append({"to": to, "media_id": media_id, "at": call.now})
    msg_id = account.next_msg_id
    account.next_msg_id += 1
    return {"errcode": 0, "errmsg": "preview success", "msg_id": msg_id}


def pushes(account: WeChatAccount) -> dict[str, list[int]]:
    """``{openid: [msg_data_id, …]}``: what reached each follower's chat list."""
    reached: dict[str, list[int]] = {}
    for send in account.mass_sends.values():
        if send["status"] in (SUCCESS, DELETED):
            for openid in send["audience"]:
                reached.setdefault(openid, []).append(send["msg_data_id"])
    return reached


def previews(account: WeChatAccount) -> dict[str, list[str]]:
    """``{wxname or openid: [draft media_id, …]}``: what each reviewer was shown."""
    shown: dict[str, list[str]] = {}
    for item in account.previews:
        shown.setdefault(item["to"], []).append(item["media_id"])
    return shown
