"""Access tokens: /token and /stable_token lifecycles, auth failures, IP whitelist, quotas."""

from __future__ import annotations

from typing import Any

import pytest
import requests

from crosspost.sandbox.box import ManualClock, Sandbox

from .wechat_client import WeChat


def token_call(box: Sandbox, **overrides: Any) -> dict[str, Any]:
    cred = box.wechat.credentials()
    params = {
        "grant_type": "client_credential",
        "appid": cred["app_id"],
        "secret": cred["app_secret"],
    }
    params.update(overrides)
    params = {k: v for k, v in params.items() if v is not None}
    return dict(requests.get(f"{box.wechat_url}/cgi-bin/token", params=params, timeout=5).json())


def stable_call(box: Sandbox, **overrides: Any) -> dict[str, Any]:
    cred = box.wechat.credentials()
    body = {
        "grant_type": "client_credential",
        "appid": cred["app_id"],
        "secret": cred["app_secret"],
    }
    body.update(overrides)
    return dict(
        requests.post(f"{box.wechat_url}/cgi-bin/stable_token", json=body, timeout=5).json()
    )


def count_with(wechat: WeChat, token: str) -> dict[str, Any]:
    return wechat.get("/cgi-bin/draft/count", access_token=token)


def test_token_answers_7200_seconds_and_works(sandbox: Sandbox, wechat: WeChat) -> None:
    reply = token_call(sandbox)
    assert reply["expires_in"] == 7200
    assert len(reply["access_token"]) >= 100
    assert count_with(wechat, reply["access_token"]) == {"total_count": 0}


def test_new_token_supersedes_old_after_five_minute_grace(
    sandbox: Sandbox, wechat: WeChat, clock: ManualClock
) -> None:
    old = token_call(sandbox)["access_token"]
    new = token_call(sandbox)["access_token"]
    assert new != old
    clock.advance(299)
    assert count_with(wechat, old) == {"total_count": 0}  # both valid inside the grace
    clock.advance(1)
    assert count_with(wechat, old)["errcode"] == 40001
    assert "not latest" in count_with(wechat, old)["errmsg"]
    assert count_with(wechat, new) == {"total_count": 0}


def test_token_expires_after_7200_seconds(
    sandbox: Sandbox, wechat: WeChat, clock: ManualClock
) -> None:
    token = token_call(sandbox)["access_token"]
    clock.advance(7199)
    assert count_with(wechat, token) == {"total_count": 0}
    clock.advance(1)
    assert count_with(wechat, token)["errcode"] == 42001


@pytest.mark.parametrize(
    ("token", "errcode"),
    [("", 41001), ("garbage", 40014), ("A" * 136, 40001)],
    ids=["missing", "not-a-token", "unknown-token-shaped"],
)
def test_bad_tokens_on_business_calls(wechat: WeChat, token: str, errcode: int) -> None:
    reply = count_with(wechat, token)
    assert reply["errcode"] == errcode
    assert " rid: " in reply["errmsg"]


@pytest.mark.parametrize(
    ("overrides", "errcode"),
    [
        ({"appid": "wx0000000000000000"}, 40013),
        ({"secret": "0" * 32}, 40125),
        ({"appid": None}, 41002),
        ({"secret": None}, 41004),
        ({"grant_type": "password"}, 40002),
    ],
    ids=["bad-appid", "bad-secret", "no-appid", "no-secret", "bad-grant"],
)
def test_credentials_refused(sandbox: Sandbox, overrides: dict[str, Any], errcode: int) -> None:
    reply = token_call(sandbox, **overrides)
    assert reply["errcode"] == errcode
    assert "access_token" not in reply
    body = {k: v for k, v in overrides.items() if v is not None}
    missing = {k for k, v in overrides.items() if v is None}
    stable = stable_call(sandbox, **body, **{k: "" for k in missing})
    assert stable["errcode"] == errcode


def test_wrong_secret_code_is_configurable(sandbox: Sandbox) -> None:
    sandbox.wechat.update_options({"wrong_secret_errcode": 40001})
    assert token_call(sandbox, secret="f" * 32)["errcode"] == 40001


def test_ip_not_in_whitelist_names_the_caller(sandbox: Sandbox, wechat: WeChat) -> None:
    sandbox.wechat.update_options({"ip_whitelist": ["10.1.2.3"]})
    reply = token_call(sandbox)
    assert reply["errcode"] == 40164
    assert reply["errmsg"].startswith(
        "invalid ip 127.0.0.1 ipv6 ::ffff:127.0.0.1, not in whitelist"
    )
    # Default scope: only token calls are checked.
    assert count_with(wechat, wechat.token) == {"total_count": 0}
    sandbox.wechat.update_options({"ip_whitelist_scope": "all"})
    assert count_with(wechat, wechat.token)["errcode"] == 40164
    sandbox.wechat.update_options({"ip_whitelist": ["127.0.0.1"]})
    assert "access_token" in token_call(sandbox)


def test_stable_token_is_the_same_until_five_minutes_before_expiry(
    sandbox: Sandbox, wechat: WeChat, clock: ManualClock
) -> None:
    first = stable_call(sandbox)
    clock.advance(1000)
    again = stable_call(sandbox)
    assert again["access_token"] == first["access_token"]
    assert again["expires_in"] == 7200 - 1000
    clock.advance(7200 - 1000 - 300)  # inside the last five minutes
    renewed = stable_call(sandbox)
    assert renewed["access_token"] != first["access_token"]
    assert renewed["expires_in"] == 7200
    assert count_with(wechat, first["access_token"]) == {"total_count": 0}  # old still valid
    clock.advance(300)
    assert count_with(wechat, first["access_token"])["errcode"] == 42001


def test_stable_and_plain_tokens_do_not_invalidate_each_other(
    sandbox: Sandbox, wechat: WeChat, clock: ManualClock
) -> None:
    stable = stable_call(sandbox)["access_token"]
    token_call(sandbox)
    token_call(sandbox)
    clock.advance(600)
    assert count_with(wechat, stable) == {"total_count": 0}


def test_stable_force_refresh_rotates_with_spacing_and_daily_limit(
    sandbox: Sandbox, wechat: WeChat, clock: ManualClock
) -> None:
    first = stable_call(sandbox)["access_token"]
    forced = stable_call(sandbox, force_refresh=True)["access_token"]
    assert forced != first
    assert count_with(wechat, first)["errcode"] == 40001  # the old one dies at once (default)
    clock.advance(10)
    assert stable_call(sandbox, force_refresh=True)["access_token"] == forced  # < 30 s apart
    sandbox.wechat.update_options({"stable_force_daily": 2})
    clock.advance(30)
    assert stable_call(sandbox, force_refresh=True)["access_token"] != forced
    clock.advance(30)
    assert stable_call(sandbox, force_refresh=True)["errcode"] == 45009


def test_stable_token_wants_post_json(sandbox: Sandbox) -> None:
    url = f"{sandbox.wechat_url}/cgi-bin/stable_token"
    assert requests.get(url, timeout=5).json()["errcode"] == 43002
    assert requests.post(url, data=b"{not json", timeout=5).json()["errcode"] == 47001


def test_daily_token_quota_then_next_beijing_day(sandbox: Sandbox, clock: ManualClock) -> None:
    sandbox.wechat.update_options({"quotas": {"/cgi-bin/token": 3}})
    for _ in range(3):
        assert "access_token" in token_call(sandbox)
    refused = token_call(sandbox)
    assert refused["errcode"] == 45009
    assert "getStableAccessToken" in refused["errmsg"]
    clock.advance(86400)
    assert "access_token" in token_call(sandbox)


def test_minute_quota_45011_clears_next_minute(
    sandbox: Sandbox, wechat: WeChat, clock: ManualClock
) -> None:
    sandbox.wechat.update_options({"minute_quotas": {"/cgi-bin/draft/count": 2}})
    clock.advance(60 - clock() % 60)  # start of a minute
    assert count_with(wechat, wechat.token) == {"total_count": 0}
    assert count_with(wechat, wechat.token) == {"total_count": 0}
    assert count_with(wechat, wechat.token)["errcode"] == 45011
    clock.advance(60)
    assert count_with(wechat, wechat.token) == {"total_count": 0}


def test_quota_query_and_clear(sandbox: Sandbox, wechat: WeChat) -> None:
    sandbox.wechat.update_options({"quotas": {"/cgi-bin/draft/count": 1}})
    count_with(wechat, wechat.token)
    assert count_with(wechat, wechat.token)["errcode"] == 45009
    quota = wechat.post("/cgi-bin/openapi/quota/get", {"cgi_path": "/cgi-bin/draft/count"})
    assert quota["quota"] == {"daily_limit": 1, "used": 1, "remain": 0}
    app_id = sandbox.wechat.credentials()["app_id"]
    assert wechat.post("/cgi-bin/clear_quota", {"appid": app_id}) == {"errcode": 0, "errmsg": "ok"}
    assert count_with(wechat, wechat.token) == {"total_count": 0}
    assert wechat.post("/cgi-bin/clear_quota", {"appid": "wx1"})["errcode"] == 40013
