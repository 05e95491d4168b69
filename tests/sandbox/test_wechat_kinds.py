"""Account kinds: what each may call (48001 otherwise), and what quota/get says of it."""

from __future__ import annotations

import pytest
import requests

from crosspost.errors import UsageError
from crosspost.sandbox.box import Sandbox
from crosspost.sandbox.wechat.app import WeChatEmulator

from .wechat_client import WeChat

DRAFT, PUBLISH = "/cgi-bin/draft/add", "/cgi-bin/freepublish/submit"
SENDALL, PREVIEW = "/cgi-bin/message/mass/sendall", "/cgi-bin/message/mass/preview"

#: kind -> may it call (draft/add, freepublish/submit, mass/sendall, mass/preview)
TABLE = {
    "verified_subscription": (True, True, True, True),
    "verified_service": (True, True, True, True),
    "unverified": (True, False, False, False),
    "personal": (True, False, False, False),
    "lapsed": (False, False, False, False),
}


def attempts(wechat: WeChat) -> tuple[bool, bool, bool, bool]:
    """Try each family once; True where the account was not refused with 48001."""
    cover = wechat.cover()
    draft = wechat.post(DRAFT, {"articles": [wechat.article(thumb_media_id=cover)]})
    media_id = draft.get("media_id", "none")
    mpnews = {"mpnews": {"media_id": media_id}, "msgtype": "mpnews"}
    answers = [
        draft,
        wechat.post(PREVIEW, {**mpnews, "towxname": "editor"}),
        wechat.post(SENDALL, {**mpnews, "filter": {"is_to_all": True}}),
        wechat.post(PUBLISH, {"media_id": media_id}),
    ]
    draft_ok, preview_ok, send_ok, publish_ok = (a.get("errcode", 0) != 48001 for a in answers)
    return draft_ok, publish_ok, send_ok, preview_ok


@pytest.mark.parametrize("kind", list(TABLE))
def test_each_kind_may_call_what_the_spec_says(sandbox: Sandbox, wechat: WeChat, kind: str) -> None:
    sandbox.wechat.update_options({"account_kind": kind})
    assert attempts(wechat) == TABLE[kind]


@pytest.mark.parametrize("kind", list(TABLE))
def test_quota_get_answers_what_the_kind_may_call(
    sandbox: Sandbox, wechat: WeChat, kind: str
) -> None:
    sandbox.wechat.update_options({"account_kind": kind})
    answers = [
        wechat.post("/cgi-bin/openapi/quota/get", {"cgi_path": path})
        for path in (DRAFT, PUBLISH, SENDALL, PREVIEW)
    ]
    assert tuple(a["errcode"] == 0 for a in answers) == TABLE[kind]
    assert {a["errcode"] for a in answers} <= {0, 48001}
    sandbox.wechat.update_options({"quota_denied_errcode": 76022})
    denied = wechat.post("/cgi-bin/openapi/quota/get", {"cgi_path": SENDALL})
    assert denied["errcode"] == (0 if TABLE[kind][2] else 76022)


def test_quota_get_counts_todays_sends(wechat: WeChat) -> None:
    quota = wechat.post("/cgi-bin/openapi/quota/get", {"cgi_path": SENDALL})
    assert quota["quota"] == {"daily_limit": 100, "used": 0, "remain": 100}
    wechat.post(
        SENDALL,
        {
            "mpnews": {"media_id": wechat.add_draft()},
            "msgtype": "mpnews",
            "filter": {"is_to_all": True},
        },
    )
    quota = wechat.post("/cgi-bin/openapi/quota/get", {"cgi_path": SENDALL})
    assert quota["quota"] == {"daily_limit": 100, "used": 1, "remain": 99}


def test_verified_false_still_means_unverified(sandbox: Sandbox, wechat: WeChat) -> None:
    sandbox.wechat.update_options({"verified": False, "account_kind": "verified_service"})
    assert attempts(wechat) == TABLE["unverified"]


def test_a_misspelt_kind_is_one_line(sandbox: Sandbox) -> None:
    with pytest.raises(UsageError, match="use one of verified_subscription, verified_service"):
        WeChatEmulator(options={"account_kind": "verified"})
    reply = requests.post(
        f"{sandbox.wechat_url}/__sandbox__/options", json={"account_kind": "gold"}, timeout=5
    )
    assert reply.status_code == 400
    assert "'gold' is not a kind" in reply.json()["error"]
    assert sandbox.wechat.options["account_kind"] == "verified_subscription"
