"""Publishing: freepublish/submit → get (status 1 … then 0/2/3/4) → getarticle/batchget/delete."""

from __future__ import annotations

from typing import Any

import pytest

from crosspost.sandbox.box import ManualClock, Sandbox

from .wechat_client import WeChat


def submit(wechat: WeChat, media_id: str) -> Any:
    return wechat.post("/cgi-bin/freepublish/submit", {"media_id": media_id})


def poll(wechat: WeChat, publish_id: Any) -> dict[str, Any]:
    return dict(wechat.post("/cgi-bin/freepublish/get", {"publish_id": publish_id}))


def test_job_publishes_after_configured_polls_and_draft_leaves_the_box(
    sandbox: Sandbox, wechat: WeChat
) -> None:
    sandbox.wechat.update_options({"publish_polls": 3})
    media_id = wechat.add_draft()
    accepted = submit(wechat, media_id)
    assert accepted["errcode"] == 0
    assert isinstance(accepted["publish_id"], int)
    assert accepted["publish_id"] >= 2247483650
    for _ in range(3):
        assert poll(wechat, accepted["publish_id"]) == {
            "publish_id": accepted["publish_id"],
            "publish_status": 1,
            "fail_idx": [],
        }
    done = poll(wechat, str(accepted["publish_id"]))  # a string id is accepted too
    assert done["publish_status"] == 0
    assert done["article_detail"]["count"] == 1
    url = done["article_detail"]["item"][0]["article_url"]
    assert url.startswith("https://mp.weixin.qq.com/s/")
    assert done["article_detail"]["item"][0]["idx"] == 1
    assert wechat.post("/cgi-bin/draft/get", {"media_id": media_id})["errcode"] == 40007
    assert wechat.get("/cgi-bin/draft/count") == {"total_count": 0}
    article = wechat.post("/cgi-bin/freepublish/getarticle", {"article_id": done["article_id"]})
    assert article["news_item"][0]["title"] == "AI系统前沿动态 第48期"
    assert article["news_item"][0]["is_deleted"] is False
    assert poll(wechat, accepted["publish_id"]) == done  # terminal status is stable


@pytest.mark.parametrize("outcome", [2, 3, 4])
def test_failed_jobs_keep_the_draft(sandbox: Sandbox, wechat: WeChat, outcome: int) -> None:
    sandbox.wechat.update_options({"publish_outcome": outcome, "publish_polls": 0})
    media_id = wechat.add_draft()
    status = poll(wechat, submit(wechat, media_id)["publish_id"])
    assert status["publish_status"] == outcome
    assert status["fail_idx"] == [1]
    assert "article_detail" not in status
    assert "news_item" in wechat.post("/cgi-bin/draft/get", {"media_id": media_id})


def test_job_finishes_on_its_own_after_publish_seconds(
    sandbox: Sandbox, wechat: WeChat, clock: ManualClock
) -> None:
    media_id = wechat.add_draft()
    submit(wechat, media_id)
    clock.advance(30)
    # Nobody polled, yet the article is out and the draft is gone (what reconcile sees).
    listed = wechat.post("/cgi-bin/freepublish/batchget", {"offset": 0, "count": 20})
    assert listed["total_count"] == 1
    assert wechat.post("/cgi-bin/draft/get", {"media_id": media_id})["errcode"] == 40007


def test_unverified_account_gets_48001_but_drafts_work(sandbox: Sandbox, wechat: WeChat) -> None:
    sandbox.wechat.update_options({"verified": False})
    media_id = wechat.add_draft()
    refused = submit(wechat, media_id)
    assert refused["errcode"] == 48001
    assert refused["errmsg"].startswith("api unauthorized rid: ")
    listed = wechat.post("/cgi-bin/freepublish/batchget", {"offset": 0, "count": 1})
    assert listed["errcode"] == 48001


def test_unknown_ids(wechat: WeChat) -> None:
    assert submit(wechat, "x" * 43)["errcode"] == 40007
    assert poll(wechat, 1234)["errcode"] == 53502
    getarticle = wechat.post("/cgi-bin/freepublish/getarticle", {"article_id": "nope"})
    assert getarticle["errcode"] == 53600
    delete = wechat.post("/cgi-bin/freepublish/delete", {"article_id": "nope"})
    assert delete["errcode"] == 53600


def test_publish_id_as_string_option(sandbox: Sandbox, wechat: WeChat) -> None:
    sandbox.wechat.update_options({"publish_id_type": "str"})
    accepted = submit(wechat, wechat.add_draft())
    assert isinstance(accepted["publish_id"], str)
    assert poll(wechat, accepted["publish_id"])["publish_id"] == accepted["publish_id"]


def test_long_article_url_style(sandbox: Sandbox, wechat: WeChat) -> None:
    sandbox.wechat.update_options({"article_url_style": "long", "publish_polls": 0})
    status = poll(wechat, submit(wechat, wechat.add_draft())["publish_id"])
    assert status["article_detail"]["item"][0]["article_url"].startswith(
        "https://mp.weixin.qq.com/s?__biz="
    )


def test_article_detail_shape_option(sandbox: Sandbox, wechat: WeChat) -> None:
    """The doc's list by default; one object alone as the completion event nests it; or
    a shape WeChat does not document, for the client's tolerance."""
    shapes = {}
    for shape in ("list", "object", "odd"):
        sandbox.wechat.update_options({"article_detail_shape": shape, "publish_polls": 0})
        shapes[shape] = poll(wechat, submit(wechat, wechat.add_draft())["publish_id"])
    listed = shapes["list"]["article_detail"]
    assert listed["count"] == 1 and isinstance(listed["item"], list)
    alone = shapes["object"]["article_detail"]
    assert alone["item"]["idx"] == 1
    assert alone["item"]["article_url"].startswith("https://mp.weixin.qq.com/s/")
    odd = shapes["odd"]["article_detail"]
    assert isinstance(odd, list) and odd[0] == {"count": "1"}
    assert all(s["publish_status"] == 0 and s["article_id"] for s in shapes.values())


def test_batchget_and_delete_published(sandbox: Sandbox, wechat: WeChat) -> None:
    sandbox.wechat.update_options({"publish_polls": 0})
    article_ids = []
    for _ in range(2):
        article_ids.append(
            poll(wechat, submit(wechat, wechat.add_draft())["publish_id"])["article_id"]
        )
    listed = wechat.post(
        "/cgi-bin/freepublish/batchget", {"offset": 0, "count": 20, "no_content": 1}
    )
    assert listed["total_count"] == 2
    assert "content" not in listed["item"][0]["content"]["news_item"][0]
    deleted = wechat.post("/cgi-bin/freepublish/delete", {"article_id": article_ids[0], "index": 0})
    assert deleted == {"errcode": 0, "errmsg": "ok"}
    assert (
        wechat.post("/cgi-bin/freepublish/batchget", {"offset": 0, "count": 20})["total_count"] == 1
    )
    gone = wechat.post("/cgi-bin/freepublish/getarticle", {"article_id": article_ids[0]})
    assert gone["news_item"][0]["is_deleted"] is True


def test_publish_quota_is_100_a_day(sandbox: Sandbox, wechat: WeChat, clock: ManualClock) -> None:
    sandbox.wechat.update_options({"publish_polls": 10**6, "publish_seconds": None})
    publish_id = submit(wechat, wechat.add_draft())["publish_id"]
    for _ in range(100):
        assert poll(wechat, publish_id)["publish_status"] == 1
    assert poll(wechat, publish_id)["errcode"] == 45009
    clock.advance(86400)
    wechat.fetch_token()
    assert poll(wechat, publish_id)["publish_status"] == 1


def test_snapshot_shows_drafts_jobs_and_articles(sandbox: Sandbox, wechat: WeChat) -> None:
    sandbox.wechat.update_options({"publish_polls": 0})
    poll(wechat, submit(wechat, wechat.add_draft())["publish_id"])
    wechat.add_draft()
    snapshot = sandbox.wechat.snapshot()
    assert len(snapshot["drafts"]) == 1
    assert len(snapshot["published"]) == 1
    assert snapshot["jobs"][0]["publish_status"] == 0
    assert {m["type"] for m in snapshot["materials"]} == {"image"}
    secret = sandbox.wechat.credentials()["app_secret"]
    assert secret not in repr(snapshot)
    assert wechat.token not in repr(snapshot)
