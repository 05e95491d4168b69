"""The draft box: add/get/update/delete/count/batchget, validation and sanitising."""

from __future__ import annotations

from typing import Any

import pytest
import requests

from crosspost.sandbox.box import Sandbox

from .wechat_client import WeChat

ADD = "/cgi-bin/draft/add"


def test_draft_round_trip(wechat: WeChat) -> None:
    media_id = wechat.add_draft(need_open_comment=1, content_source_url="https://example.org/a")
    assert len(media_id) == 43
    assert wechat.get("/cgi-bin/draft/count") == {"total_count": 1}
    item = wechat.post("/cgi-bin/draft/get", {"media_id": media_id})["news_item"][0]
    assert item["title"] == "AI系统前沿动态 第48期"
    assert item["author"] == "OneFlow社区"
    assert item["need_open_comment"] == 1
    assert item["only_fans_can_comment"] == 0
    assert item["content_source_url"] == "https://example.org/a"
    assert item["thumb_url"].startswith("http://mmbiz.qpic.cn/")
    assert item["url"].startswith("http://mp.weixin.qq.com/s?")


def test_empty_digest_takes_first_54_characters_of_text(wechat: WeChat) -> None:
    text = "一二三四五六七八九十" * 8
    media_id = wechat.add_draft(content=f"<section><p><strong>{text}</strong></p></section>")
    item = wechat.post("/cgi-bin/draft/get", {"media_id": media_id})["news_item"][0]
    assert item["digest"] == text[:54]


def test_sanitising_drops_scripts_handlers_and_outside_images(wechat: WeChat) -> None:
    content = (
        '<section><p onclick="steal()">正文<script>alert(1)</script></p>'
        '<img src="https://example.org/x.png"/>'
        '<img src="http://mmbiz.qpic.cn/mmbiz_png/abc/0?wx_fmt=png"/>'
        '<a href="https://example.org/">外链</a><a href="https://mp.weixin.qq.com/s/abc">本号</a>'
        "</section>"
    )
    media_id = wechat.add_draft(content=content)
    stored = wechat.post("/cgi-bin/draft/get", {"media_id": media_id})["news_item"][0]["content"]
    assert "script" not in stored
    assert "onclick" not in stored
    assert "example.org/x.png" not in stored
    assert "mmbiz.qpic.cn/mmbiz_png/abc" in stored
    assert '<a href="https://mp.weixin.qq.com/s/abc">本号</a>' in stored
    assert "<a>外链</a>" in stored


def test_clean_content_is_stored_byte_for_byte(wechat: WeChat) -> None:
    content = '<section style="color: rgb(0,0,0)"><p>正文 &amp; 更多</p></section>'
    media_id = wechat.add_draft(content=content)
    stored = wechat.post("/cgi-bin/draft/get", {"media_id": media_id})["news_item"][0]["content"]
    assert stored == content


def test_external_links_can_be_refused(sandbox: Sandbox, wechat: WeChat) -> None:
    sandbox.wechat.update_options({"external_links": "reject"})
    reply = wechat.post(
        ADD, {"articles": [wechat.article(content='<p><a href="https://x.org">x</a>正文</p>')]}
    )
    assert reply["errcode"] == 45166


def _article_with(wechat: WeChat, **fields: Any) -> dict[str, Any]:
    article = wechat.article()
    for key, value in fields.items():
        if value is None:
            article.pop(key)
        else:
            article[key] = value
    return article


@pytest.mark.parametrize(
    ("fields", "errcode"),
    [
        ({"title": "标" * 33}, 45003),
        ({"title": "a" * 29 + "标标标"}, None),  # 32 characters, 38 bytes: fine
        ({"title": "标" * 22}, 45003),  # 22 characters, 66 bytes
        ({"author": "作" * 17}, 45110),
        ({"digest": "摘" * 129}, 45004),
        ({"content": "<p>" + "字" * 19_996 + "</p>"}, 45002),
        ({"content": "<p>" + "\U0001f600" * 5000 + "a" * 10_000 + "</p>"}, None),
        ({"content_source_url": "https://example.org/" + "a" * 1024}, 45005),
        ({"thumb_media_id": "no-such-media"}, 40007),
        ({"thumb_media_id": None}, 40007),
        ({"title": ""}, 44003),
        ({"content": None}, 44003),
    ],
    ids=[
        "title-33-chars",
        "title-ok",
        "title-66-bytes",
        "author-17",
        "digest-129",
        "content-20000-chars",
        "content-under-limits",
        "source-url-1kb",
        "unknown-thumb",
        "missing-thumb",
        "empty-title",
        "missing-content",
    ],
)
def test_article_validation(wechat: WeChat, fields: dict[str, Any], errcode: int | None) -> None:
    reply = wechat.post(ADD, {"articles": [_article_with(wechat, **fields)]})
    if errcode is None:
        assert "media_id" in reply, reply
    else:
        assert reply["errcode"] == errcode
        assert wechat.get("/cgi-bin/draft/count") == {"total_count": 0}


def test_content_of_one_megabyte_is_45002(sandbox: Sandbox, wechat: WeChat) -> None:
    sandbox.wechat.update_options({"content_max_chars": 10**7})
    big = "<p>" + "字" * (1024 * 1024 // 3 + 1) + "</p>"
    assert wechat.post(ADD, {"articles": [wechat.article(content=big)]})["errcode"] == 45002


@pytest.mark.parametrize(
    ("body", "errcode"),
    [({"articles": []}, 44003), ({}, 44003), ({"articles": ["x"]}, 44003), ([1, 2], 47001)],
    ids=["no-articles", "no-key", "not-an-object", "not-an-object-body"],
)
def test_empty_or_malformed_drafts(wechat: WeChat, body: Any, errcode: int) -> None:
    assert wechat.post(ADD, body)["errcode"] == errcode


def test_more_than_eight_articles_is_45008(wechat: WeChat) -> None:
    article = wechat.article()
    assert wechat.post(ADD, {"articles": [article] * 9})["errcode"] == 45008
    reply = wechat.post(ADD, {"articles": [article] * 2})
    items = wechat.post("/cgi-bin/draft/get", {"media_id": reply["media_id"]})["news_item"]
    assert [item["digest"] for item in items] == ["", ""]  # only single articles get one


def test_malformed_requests_get_wechat_shapes(wechat: WeChat) -> None:
    assert wechat.post(ADD, raw=b"{broken json")["errcode"] == 47001
    assert wechat.post(ADD, raw=b"")["errcode"] == 44002
    assert wechat.get(ADD)["errcode"] == 43002
    missing = requests.get(f"{wechat.url}/cgi-bin/no/such/api", timeout=5)
    assert missing.status_code == 404
    assert missing.json()["errcode"] == 404


def test_update_replaces_one_article(wechat: WeChat) -> None:
    media_id = wechat.add_draft()
    changed = wechat.article(title="新标题", content="<p>新的正文内容</p>")
    reply = wechat.post(
        "/cgi-bin/draft/update", {"media_id": media_id, "index": 0, "articles": changed}
    )
    assert reply == {"errcode": 0, "errmsg": "ok"}
    item = wechat.post("/cgi-bin/draft/get", {"media_id": media_id})["news_item"][0]
    assert (item["title"], item["content"]) == ("新标题", "<p>新的正文内容</p>")
    too_long = wechat.article(title="标" * 40)
    update = {"media_id": media_id, "index": 0, "articles": too_long}
    assert wechat.post("/cgi-bin/draft/update", update)["errcode"] == 45003
    bad_index = {"media_id": media_id, "index": 3, "articles": changed}
    assert wechat.post("/cgi-bin/draft/update", bad_index)["errcode"] == 40097
    unknown = {"media_id": "x" * 43, "index": 0, "articles": changed}
    assert wechat.post("/cgi-bin/draft/update", unknown)["errcode"] == 40007


def test_delete_and_unknown_ids(wechat: WeChat) -> None:
    media_id = wechat.add_draft()
    assert wechat.post("/cgi-bin/draft/delete", {"media_id": media_id})["errcode"] == 0
    assert wechat.post("/cgi-bin/draft/get", {"media_id": media_id})["errcode"] == 40007
    assert wechat.post("/cgi-bin/draft/delete", {"media_id": media_id})["errcode"] == 40007
    assert wechat.get("/cgi-bin/draft/count") == {"total_count": 0}


def test_batchget_pages_newest_first(sandbox: Sandbox, wechat: WeChat, clock: Any) -> None:
    ids = []
    for _ in range(3):
        ids.append(wechat.add_draft())
        clock.advance(10)
    page = wechat.post("/cgi-bin/draft/batchget", {"offset": 0, "count": 2, "no_content": 1})
    assert page["total_count"] == 3
    assert page["item_count"] == 2
    assert [item["media_id"] for item in page["item"]] == [ids[2], ids[1]]
    assert "content" not in page["item"][0]["content"]["news_item"][0]
    rest = wechat.post("/cgi-bin/draft/batchget", {"offset": 2, "count": 20})
    assert [item["media_id"] for item in rest["item"]] == [ids[0]]
    assert rest["item"][0]["content"]["news_item"][0]["content"]
    assert wechat.post("/cgi-bin/draft/batchget", {"offset": 0, "count": 21})["errcode"] == 40097


def test_draft_quota_45009(sandbox: Sandbox, wechat: WeChat) -> None:
    sandbox.wechat.update_options({"quotas": {"/cgi-bin/draft/add": 1}})
    wechat.add_draft()
    assert wechat.post(ADD, {"articles": [wechat.article()]})["errcode"] == 45009


def test_unicode_escapes_can_be_refused(sandbox: Sandbox, wechat: WeChat) -> None:
    article = wechat.article()
    thumb = article["thumb_media_id"]
    raw = b'{"articles":[{"title":"\\u4f5c\\u8005","content":"<p>x</p>","thumb_media_id":"'
    raw += thumb.encode() + b'"}]}'
    assert "media_id" in wechat.post(ADD, raw=raw)  # accepted by default
    sandbox.wechat.update_options({"unicode_escapes": "reject"})
    assert wechat.post(ADD, raw=raw)["errcode"] == 40033
