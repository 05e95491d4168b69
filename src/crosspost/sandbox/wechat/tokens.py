"""WeChat tokens and quotas: ``/cgi-bin/token``, ``stable_token``, ``clear_quota``,
``openapi/quota/get`` (spec §2, §7).

``/token`` always issues a new token and gives the previous one ``token_grace`` seconds;
``stable_token`` is a separate pool that hands out the same token until
``stable_renew_before`` seconds before it expires, unless ``force_refresh`` asks (20 a
day, 30 s apart) for a new one.
"""

from __future__ import annotations

from typing import Any

from crosspost.sandbox.wechat.kinds import family_of
from crosspost.sandbox.wechat.state import WeChatAccount
from crosspost.sandbox.wechat.wire import ApiError, Call


def token(account: WeChatAccount, call: Call) -> dict[str, Any]:
    """``GET /cgi-bin/token``: always a new token; the old one has a grace period."""
    args = call.request.args
    account.check_credentials(args.get("appid"), args.get("secret"), args.get("grant_type"))
    account.check_ip(call.request)
    return account.issue_token("token", call.now, old_grace=float(account.opt("token_grace")))


def stable_token(account: WeChatAccount, call: Call) -> dict[str, Any]:
    """``POST /cgi-bin/stable_token``: the same token until renewal or a force refresh."""
    body = call.json()
    account.check_credentials(body.get("appid"), body.get("secret"), body.get("grant_type"))
    account.check_ip(call.request)
    now = call.now
    current = account.tokens.get(account.current["stable"] or "")
    alive = current is not None and current["revoked_at"] is None and now < current["expires_at"]
    if body.get("force_refresh") in (True, 1, "true"):
        today = [t for t in account.force_refreshes if account.day(t) == account.day(now)]
        if len(today) >= int(account.opt("stable_force_daily")):
            raise ApiError(45009)
        spacing = float(account.opt("stable_force_spacing"))
        if not (alive and today and now - today[-1] < spacing):
            account.force_refreshes = [*today, now]
            return account.issue_token(
                "stable", now, old_grace=float(account.opt("stable_force_grace"))
            )
    elif (
        not alive
        or current is None
        or current["expires_at"] - now <= float(account.opt("stable_renew_before"))
    ):
        # The old one stays valid until its own expiry, at most the renewal window away.
        return account.issue_token("stable", now, old_grace=None)
    assert current is not None
    return {
        "access_token": account.current["stable"],
        "expires_in": int(current["expires_at"] - now),
    }


def clear_quota(account: WeChatAccount, call: Call) -> dict[str, Any]:
    """``clear_quota``: reset today's counters, 10 times a month (then 48006)."""
    if call.json().get("appid") != account.app_id:
        raise ApiError(40013)
    month = account.month(call.now)
    if account.quota_clears.get(month, 0) >= 10:
        raise ApiError(48006)
    account.quota_clears[month] = account.quota_clears.get(month, 0) + 1
    account.counters = {k: v for k, v in account.counters.items() if not k.startswith("day:")}
    return {"errcode": 0, "errmsg": "ok"}


def quota_get(account: WeChatAccount, call: Call) -> dict[str, Any]:
    """``openapi/quota/get``: limit, use and rest of one path's daily quota."""
    path = call.json().get("cgi_path")
    if not isinstance(path, str) or path not in account.apis:
        raise ApiError(76021)
    family = family_of(path)
    if family is not None and not account.may_call(family):
        raise ApiError(int(account.opt("quota_denied_errcode")))
    daily, minute = account.limits(path)
    used = account.counters.get(f"day:{account.day(call.now)}:{path}", 0)
    return {
        "errcode": 0,
        "errmsg": "ok",
        "quota": {
            "daily_limit": daily or 0,
            "used": used,
            "remain": max((daily or 0) - used, 0),
        },
        "rate_limit": {"call_count": minute or 0, "refresh_second": 60},
    }
