"""A small issue for tests that publish many times: one cover, one image, every part.

It asks for everything a post can be missing: a cover, comment settings on WeChat, a
topic and a column on Zhihu. :func:`assert_complete` checks each of them on the sandbox,
and :func:`assert_no_orphans` that no draft is left that the ledger cannot account for.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from crosspost.publish.urls import url_pending

from .world import World, private_draft_warnings

TITLE = "断点测试 第1期"
ISSUE = f"""---
id: light-1
title: {TITLE}
author: 测试编辑
digest: 一期很小的测试
cover: cover.jpg
channels: [wechat, zhihu]
wechat: {{need_open_comment: true}}
zhihu: {{topics: [人工智能], column: 沙盒专栏}}
---

这一期只有一段话和一张图,用来一遍又一遍地发布,看每一种故障之后是否仍然只有一篇文章。

![示意图](figure.png)

第二段话:每一个部分都要到平台上去,封面、话题、专栏和评论设置,一个都不能少。
"""
ISSUE_ID = "light-1"


def write_light_issue(root: Path) -> Path:
    """The issue and its two images under ``root/light``."""
    folder = root / "light"
    folder.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (470, 200), (20, 90, 160)).save(folder / "cover.jpg", "JPEG")
    Image.new("RGB", (60, 40), (200, 60, 30)).save(folder / "figure.png", "PNG")
    issue = folder / "issue.md"
    issue.write_text(ISSUE, encoding="utf-8")
    return issue


def assert_complete(world: World, channel: str) -> None:
    """Exactly one post on the platform, with every part, and its URL in the ledger
    (on WeChat, or that it is pending)."""
    published = world.published_on(channel)
    assert len(published) == 1, f"{channel}: {len(published)} public posts"
    with world.ledger() as ledger:
        (record,) = [p for p in ledger.posts(ISSUE_ID) if p.channel == channel]
    assert record.state == "published", record
    if channel == "wechat" and record.url is None:
        # When freepublish/submit's answer is lost (or the post is adopted), WeChat lists
        # the article with a temporary link only: the post is published with its URL
        # pending, never recorded with the temporary link.
        assert url_pending(record), record
    else:
        assert record.url and "tempkey=" not in record.url, record
    if channel == "wechat":
        (article,) = published[0]["articles"]
        assert article["title"] == TITLE
        assert article["need_open_comment"] == 1, "comment settings missing"
        assert article["thumb_media_id"], "cover missing"
    else:
        article = published[0]
        assert [t["name"] for t in article["topics"]] == ["人工智能"], "topics missing"
        assert article["column"] and article["column"]["title"] == "沙盒专栏", "column missing"
        assert article["image_url"], "cover missing"


def assert_no_orphans(world: World, channel: str) -> None:
    """No draft on the platform but the post's own. Zhihu cannot list drafts, so one whose
    creation was never answered may remain, and the ledger says so each time."""
    with world.ledger() as ledger:
        (record,) = [p for p in ledger.posts(ISSUE_ID) if p.channel == channel]
    if channel == "wechat":
        drafts = [str(d["media_id"]) for d in world.box.wechat.snapshot()["drafts"]]
        assert set(drafts) <= {record.draft_id}, f"orphan drafts in 草稿箱: {drafts}"
        return
    unused = [
        str(d["id"])
        for d in world.box.zhihu.snapshot()["drafts"]
        if d["state"] != "published" and str(d["id"]) != record.draft_id
    ]
    allowed = private_draft_warnings_of(world, record.key)
    assert len(unused) <= allowed, f"orphan Zhihu drafts: {unused}"


def private_draft_warnings_of(world: World, key: object) -> int:
    """How often the ledger says an unused private draft may remain for this post."""
    with world.ledger() as ledger:
        return sum(
            1
            for e in ledger.events(key)  # type: ignore[arg-type]
            if e.step == "draft" and e.outcome == "not-happened" and "private draft" in e.summary
        )


__all__ = [
    "ISSUE_ID",
    "TITLE",
    "assert_complete",
    "assert_no_orphans",
    "private_draft_warnings",
    "write_light_issue",
]
