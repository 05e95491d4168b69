"""Mass send (群发): sendall → get, clientmsgid dedupe, quotas per kind, 群发保护, previews."""

from __future__ import annotations

from typing import Any

import pytest
import requests

from crosspost.sandbox.box import ManualClock, Sandbox

from .wechat_client import WeChat

SENDALL = "/cgi-bin/message/mass/sendall"
GET = "/cgi-bin/message/mass/get"
PREVIEW = "/cgi-bin/message/mass/preview"
DELETE = "/cgi-bin/message/mass/delete"
DAY = 86400


def send(wechat: WeChat, media_id: str, **fields: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "filter": {"is_to_all": True},
        "mpnews": {"media_id": media_id},
        "msgtype": "mpnews",
        "send_ignore_reprint": 0,
    }
    body.update(fields)
    return dict(wechat.post(SENDALL, body))


def status(wechat: WeChat, msg_id: int) -> str:
    return str(wechat.post(GET, {"msg_id": msg_id})["msg_status"])


def next_beijing_day(clock: ManualClock) -> None:
    """Move the clock just past the next midnight in Beijing."""
    clock.advance(DAY - (clock() + 8 * 3600) % DAY + 1)


def test_a_send_reaches_every_follower_once_and_the_draft_leaves_the_box(
    sandbox: Sandbox, wechat: WeChat, clock: ManualClock
) -> None:
    media_id = wechat.add_draft()
    accepted = send(wechat, media_id, clientmsgid="ai-48")
    assert accepted["errcode"] == 0
    assert accepted["errmsg"] == "send job submission success"
    assert isinstance(accepted["msg_id"], int) and isinstance(accepted["msg_data_id"], int)
    assert wechat.post("/cgi-bin/draft/get", {"media_id": media_id})["errcode"] == 40007
    assert status(wechat, accepted["msg_id"]) == "SENDING"
    assert sandbox.wechat.pushes() == {}
    clock.advance(1)
    assert status(wechat, accepted["msg_id"]) == "SEND_SUCCESS"
    data_id = accepted["msg_data_id"]
    assert sandbox.wechat.pushes() == {"fan-0": [data_id], "fan-1": [data_id], "fan-2": [data_id]}
    snapshot = sandbox.wechat.snapshot()
    assert snapshot["pushes"] == sandbox.wechat.pushes()
    (sent,) = snapshot["mass_sends"]
    assert sent["clientmsgid"] == "ai-48"
    assert sent["articles"][0]["title"] == "AI系统前沿动态 第48期"
    assert sent["article_urls"][0].startswith("https://mp.weixin.qq.com/s/")


def test_a_tag_reaches_only_its_followers(sandbox: Sandbox, wechat: WeChat) -> None:
    sandbox.wechat.update_options({"followers": 5, "tags": {"7": [1, 3]}, "mass_finish_seconds": 0})
    accepted = send(wechat, wechat.add_draft(), filter={"is_to_all": False, "tag_id": 7})
    assert set(sandbox.wechat.pushes()) == {"fan-1", "fan-3"}
    assert accepted["errcode"] == 0
    refused = send(wechat, wechat.add_draft(), filter={"is_to_all": False, "tag_id": 8})
    assert refused["errcode"] == 45159


@pytest.mark.parametrize(
    ("fields", "errcode"),
    [
        ({"msgtype": "text"}, 40097),
        ({"mpnews": {"media_id": "no-such-draft"}}, 40007),
        ({"filter": None}, 40097),
        ({"clientmsgid": "x" * 65}, 45067),
    ],
)
def test_bad_sends_are_refused_and_send_nothing(
    sandbox: Sandbox, wechat: WeChat, fields: dict[str, Any], errcode: int
) -> None:
    media_id = wechat.add_draft()
    assert send(wechat, media_id, **fields)["errcode"] == errcode
    assert sandbox.wechat.snapshot()["mass_sends"] == []
    assert "news_item" in wechat.post("/cgi-bin/draft/get", {"media_id": media_id})


def test_clientmsgid_dedupes_for_a_day(
    sandbox: Sandbox, wechat: WeChat, clock: ManualClock
) -> None:
    sandbox.wechat.update_options({"account_kind": "verified_service"})
    first = send(wechat, wechat.add_draft(), clientmsgid="i" * 64)  # 64 bytes is allowed
    again = wechat.add_draft()
    assert send(wechat, again, clientmsgid="i" * 64)["errcode"] == 45066
    clock.advance(60)
    repeat = send(wechat, again, clientmsgid="i" * 64)
    assert repeat["errcode"] == 45065
    assert (repeat["msg_id"], repeat["msg_data_id"]) == (first["msg_id"], first["msg_data_id"])
    assert " rid: " in repeat["errmsg"]
    assert len(sandbox.wechat.snapshot()["mass_sends"]) == 1
    assert all(len(ids) == 1 for ids in sandbox.wechat.pushes().values())
    clock.advance(DAY)
    wechat.fetch_token()
    assert send(wechat, again, clientmsgid="i" * 64)["errcode"] == 0


def test_a_subscription_account_sends_once_a_beijing_day(
    sandbox: Sandbox, wechat: WeChat, clock: ManualClock
) -> None:
    assert send(wechat, wechat.add_draft())["errcode"] == 0
    second = wechat.add_draft()
    refused = send(wechat, second)
    assert refused["errcode"] == 45028
    assert refused["errmsg"].startswith("has no masssend quota rid: ")
    sandbox.wechat.update_options({"mass_quota_errcode": 45009})
    assert send(wechat, second)["errcode"] == 45009
    next_beijing_day(clock)
    wechat.fetch_token()
    assert send(wechat, second)["errcode"] == 0
    clock.advance(1)
    assert [len(ids) for ids in sandbox.wechat.pushes().values()] == [2, 2, 2]


def test_a_service_account_reaches_each_follower_four_times_a_month(
    sandbox: Sandbox, wechat: WeChat
) -> None:
    sandbox.wechat.update_options({"account_kind": "verified_service", "mass_finish_seconds": 0})
    send(wechat, wechat.add_draft(), filter={"is_to_all": False, "tag_id": 2})  # fan-0, fan-1
    for _ in range(3):
        assert send(wechat, wechat.add_draft())["errcode"] == 0
    # fan-0 and fan-1 have had four; fan-2 three: only fan-2 is left
    assert send(wechat, wechat.add_draft())["errcode"] == 0
    assert {k: len(v) for k, v in sandbox.wechat.pushes().items()} == {
        "fan-0": 4,
        "fan-1": 4,
        "fan-2": 4,
    }
    assert send(wechat, wechat.add_draft())["errcode"] == 45028


def test_protected_send_waits_for_the_administrator(
    sandbox: Sandbox, wechat: WeChat, clock: ManualClock
) -> None:
    sandbox.wechat.update_options({"mass_protect": True, "account_kind": "verified_service"})
    held = send(wechat, wechat.add_draft())["msg_id"]
    clock.advance(600)
    assert status(wechat, held) == "SENDING"
    assert sandbox.wechat.confirm_mass(held) == {"msg_id": held, "msg_status": "SEND_SUCCESS"}
    assert len(sandbox.wechat.pushes()) == 3
    with pytest.raises(ValueError, match="no protected send"):
        sandbox.wechat.confirm_mass(held)

    refused = send(wechat, wechat.add_draft())["msg_id"]
    reply = requests.post(
        f"{sandbox.wechat_url}/__sandbox__/wechat/mass/confirm",
        json={"msg_id": refused, "confirm": False},
        timeout=5,
    )
    assert reply.json() == {"msg_id": refused, "msg_status": "SEND_FAIL"}
    assert status(wechat, refused) == "SEND_FAIL"

    forgotten = send(wechat, wechat.add_draft())["msg_id"]
    clock.advance(1799)
    assert status(wechat, forgotten) == "SENDING"
    clock.advance(1)
    assert status(wechat, forgotten) == "SEND_FAIL"
    assert all(len(ids) == 1 for ids in sandbox.wechat.pushes().values())
    late = requests.post(
        f"{sandbox.wechat_url}/__sandbox__/wechat/mass/confirm", json={"msg_id": forgotten}
    )
    assert late.status_code == 400
    assert "no protected send" in late.json()["error"]
    bad = requests.post(f"{sandbox.wechat_url}/__sandbox__/wechat/mass/confirm", json={})
    assert bad.status_code == 400


def test_a_failed_send_uses_no_quota(sandbox: Sandbox, wechat: WeChat, clock: ManualClock) -> None:
    sandbox.wechat.update_options({"mass_protect": True})
    held = send(wechat, wechat.add_draft())["msg_id"]
    assert send(wechat, wechat.add_draft())["errcode"] == 45028  # a waiting send counts
    sandbox.wechat.confirm_mass(held, confirm=False)
    assert send(wechat, wechat.add_draft())["errcode"] == 0


def test_status_and_delete(sandbox: Sandbox, wechat: WeChat, clock: ManualClock) -> None:
    article = wechat.article()
    media_id = wechat.post("/cgi-bin/draft/add", {"articles": [article, article]})["media_id"]
    msg_id = send(wechat, media_id)["msg_id"]
    assert wechat.post(GET, {"msg_id": 1})["errcode"] == 40097
    assert wechat.post(DELETE, {"msg_id": msg_id})["errcode"] == 40097  # still sending
    clock.advance(1)
    assert wechat.post(DELETE, {"msg_id": msg_id, "article_idx": 3})["errcode"] == 40097
    assert wechat.post(DELETE, {"msg_id": msg_id, "article_idx": 2})["errcode"] == 0
    assert status(wechat, msg_id) == "SEND_SUCCESS"
    assert wechat.post(DELETE, {"msg_id": msg_id, "article_idx": 0})["errcode"] == 0
    assert wechat.post(GET, {"msg_id": str(msg_id)}) == {"msg_id": msg_id, "msg_status": "DELETE"}
    assert len(sandbox.wechat.pushes()) == 3  # what was delivered stays delivered


def test_preview_reaches_one_reviewer_and_no_follower(sandbox: Sandbox, wechat: WeChat) -> None:
    sandbox.wechat.update_options({"quotas": {PREVIEW: 2}})
    media_id = wechat.add_draft()
    body = {"mpnews": {"media_id": media_id}, "msgtype": "mpnews"}
    assert wechat.post(PREVIEW, {**body, "towxname": "editor-wx"})["errcode"] == 0
    assert wechat.post(PREVIEW, {**body, "touser": "fan-2"})["errcode"] == 0
    assert wechat.post(PREVIEW, {**body, "touser": "stranger"})["errcode"] == 45009
    assert sandbox.wechat.previews() == {"editor-wx": [media_id], "fan-2": [media_id]}
    assert sandbox.wechat.pushes() == {}
    assert "news_item" in wechat.post("/cgi-bin/draft/get", {"media_id": media_id})
    quota = wechat.post("/cgi-bin/openapi/quota/get", {"cgi_path": PREVIEW})["quota"]
    assert quota == {"daily_limit": 2, "used": 2, "remain": 0}


def test_preview_needs_a_known_reviewer(wechat: WeChat) -> None:
    body = {"mpnews": {"media_id": wechat.add_draft()}, "msgtype": "mpnews"}
    assert wechat.post(PREVIEW, {**body, "touser": "stranger"})["errcode"] == 40003
    assert wechat.post(PREVIEW, body)["errcode"] == 40097


@pytest.mark.parametrize("fault", ["commit_then_drop", "slow_answer:5000"])
def test_a_send_the_client_never_heard_of_is_found_by_its_clientmsgid(
    sandbox: Sandbox, wechat: WeChat, clock: ManualClock, fault: str
) -> None:
    """The send happened (at once, or once the slow platform got to it); replaying the
    same clientmsgid answers the first send's ids, and nobody is pushed twice."""
    media_id = wechat.add_draft()
    sandbox.faults.add("wechat", SENDALL, fault, count=1)
    with pytest.raises(requests.ConnectionError):
        send(wechat, media_id, clientmsgid="ai-48")
    clock.advance(5)
    sandbox.commit_due()
    (sent,) = sandbox.wechat.snapshot()["mass_sends"]
    assert send(wechat, media_id, clientmsgid="ai-48")["errcode"] == 45066
    clock.advance(60)
    replay = send(wechat, media_id, clientmsgid="ai-48")
    assert (replay["errcode"], replay["msg_id"]) == (45065, sent["msg_id"])
    assert sandbox.wechat.pushes() == {f"fan-{i}": [sent["msg_data_id"]] for i in range(3)}


@pytest.mark.parametrize("path", [SENDALL, GET, PREVIEW, DELETE])
@pytest.mark.parametrize("kind", ["errcode:-1", "reset", "http:502"])
def test_every_fault_kind_reaches_the_new_endpoints(
    sandbox: Sandbox, wechat: WeChat, path: str, kind: str
) -> None:
    sandbox.faults.add("wechat", path, kind, count=1)

    def call() -> requests.Response:
        url = f"{wechat.url}{path}"
        return wechat.session.post(url, params={"access_token": wechat.token}, json={}, timeout=5)

    if kind == "reset":
        with pytest.raises(requests.ConnectionError):
            call()
    elif kind == "http:502":
        assert call().status_code == 502
    else:
        assert call().json()["errcode"] == -1
    assert sandbox.requests[-1].fault == kind
    assert sandbox.wechat.snapshot()["mass_sends"] == []


def test_sends_survive_a_restart(tmp_path: Any, clock: ManualClock) -> None:
    options = {"wechat": {"seed": 1, "mass_finish_seconds": 0}}
    with Sandbox(clock=clock, sleep=clock.sleep, state_dir=tmp_path, options=options) as box:
        caller = WeChat(box)
        caller.fetch_token()
        first = send(caller, caller.add_draft(), clientmsgid="ai-48")
        shown = {"mpnews": {"media_id": caller.add_draft()}, "msgtype": "mpnews", "towxname": "ed"}
        caller.post(PREVIEW, shown)
    clock.advance(120)
    with Sandbox(clock=clock, sleep=clock.sleep, state_dir=tmp_path, options=options) as box:
        caller = WeChat(box)
        caller.fetch_token()
        again = send(caller, caller.add_draft(), clientmsgid="ai-48")
        assert (again["errcode"], again["msg_id"]) == (45065, first["msg_id"])
        assert len(box.wechat.pushes()["fan-0"]) == 1
        assert list(box.wechat.previews()) == ["ed"]


def test_an_editor_sends_or_publishes_by_hand_whatever_the_kind(
    sandbox: Sandbox, wechat: WeChat, clock: ManualClock
) -> None:
    sandbox.wechat.update_options({"account_kind": "personal"})
    sent, published = wechat.add_draft(), wechat.add_draft()
    assert send(wechat, sent)["errcode"] == 48001
    reply = requests.post(
        f"{sandbox.wechat_url}/__sandbox__/wechat/by_hand",
        json={"media_id": sent, "action": "send"},
        timeout=5,
    ).json()
    clock.advance(1)
    assert sandbox.wechat.pushes() == {f"fan-{i}": [reply["msg_data_id"]] for i in range(3)}
    by_hand = sandbox.wechat.by_hand(published)
    assert by_hand["urls"][0].startswith("https://mp.weixin.qq.com/s/")
    snapshot = sandbox.wechat.snapshot()
    assert snapshot["drafts"] == []
    assert [a["article_id"] for a in snapshot["published"]] == [by_hand["article_id"]]
    with pytest.raises(ValueError, match="no draft"):
        sandbox.wechat.by_hand(published, "send")
    with pytest.raises(ValueError, match="is not publish or send"):
        sandbox.wechat.by_hand(wechat.add_draft(), "delete")


def test_by_hand_the_console_counts_the_same_quota(sandbox: Sandbox, wechat: WeChat) -> None:
    sandbox.wechat.by_hand(wechat.add_draft(), "send")
    refused = requests.post(
        f"{sandbox.wechat_url}/__sandbox__/wechat/by_hand",
        json={"media_id": wechat.add_draft(), "action": "send"},
        timeout=5,
    )
    assert refused.status_code == 400
    assert refused.json()["error"] == "the console refuses: has no masssend quota (45028)"
    assert send(wechat, wechat.add_draft())["errcode"] == 45028
