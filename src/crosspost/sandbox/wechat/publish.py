"""WeChat publishing: ``freepublish/submit|get|getarticle|batchget|delete`` (spec §6).

``submit`` only accepts a job. The job answers ``publish_status`` 1 for ``publish_polls``
polls (or until ``publish_seconds`` of clock time have passed, so a client that lost the
``publish_id`` still sees the article appear), then ends with ``publish_outcome``:
0 publishes (the draft leaves the draft box, the article gets an
``https://mp.weixin.qq.com/s/…`` URL), 2/3/4 fail and keep the draft, 5/6 publish and
then delete every article. Every call answers 48001 when the account is not verified.
"""

from __future__ import annotations

import string
from typing import TYPE_CHECKING, Any

from crosspost.sandbox.wechat.content import MP_HOST, drops_content, listed, news_items, page
from crosspost.sandbox.wechat.wire import ApiError, Call, Route, stored

if TYPE_CHECKING:
    from crosspost.sandbox.wechat.app import WeChatEmulator

SUCCESS, PUBLISHING = 0, 1
DELETED_AFTER = (5, 6)


def _publish_id(emu: WeChatEmulator, value: int) -> int | str:
    return str(value) if emu.opt("publish_id_type") == "str" else value


def _article_url(emu: WeChatEmulator, article_id: str, idx: int) -> str:
    if emu.opt("article_url_style") == "long":
        biz = emu.app_id.encode().hex()[:16]
        return f"https://{MP_HOST}/s?__biz={biz}&mid={article_id[:10]}&idx={idx}&sn={article_id[-32:]}#rd"
    return f"https://{MP_HOST}/s/{emu.random_text(22, string.ascii_letters + string.digits + '_-')}"


def _finish(emu: WeChatEmulator, job: dict[str, Any], now: float) -> None:
    """Bring a job to its end state (the moment the platform would have)."""
    draft = emu.drafts.get(job["draft_media_id"])
    outcome = int(emu.opt("publish_outcome"))
    if draft is None:
        outcome = 3  # the draft vanished while publishing: a general failure
    if outcome != SUCCESS and outcome not in DELETED_AFTER:
        job.update(publish_status=outcome, fail_idx=[1])
        return
    article_id = emu.random_text(43, string.ascii_letters + string.digits + "_-")
    assert draft is not None
    urls = [_article_url(emu, article_id, i + 1) for i in range(len(draft["articles"]))]
    deleted = outcome in DELETED_AFTER
    emu.articles[article_id] = {
        "publish_id": job["publish_id"],
        "articles": draft["articles"],
        "urls": urls,
        "is_deleted": [deleted] * len(urls),
        "create_time": int(now),
        "update_time": int(now),
    }
    del emu.drafts[job["draft_media_id"]]
    job.update(publish_status=outcome, article_id=article_id, fail_idx=[])


def advance_jobs(emu: WeChatEmulator, now: float) -> None:
    """Finish jobs whose time is up (called before every request)."""
    seconds = emu.opt("publish_seconds")
    if seconds is None:
        return
    for job in emu.jobs.values():
        if job["publish_status"] == PUBLISHING and now >= job["submitted_at"] + float(seconds):
            _finish(emu, job, now)


def submit(emu: WeChatEmulator, call: Call) -> dict[str, Any]:
    """``freepublish/submit``: accept a job for a draft; it only starts publishing."""
    media_id = call.json().get("media_id")
    if not isinstance(media_id, str) or media_id not in emu.drafts:
        raise ApiError(40007)
    publish_id = emu.next_publish_id
    emu.next_publish_id += 1
    emu.jobs[str(publish_id)] = {
        "publish_id": publish_id,
        "draft_media_id": media_id,
        "publish_status": PUBLISHING,
        "polls": 0,
        "submitted_at": call.now,
        "article_id": None,
        "fail_idx": [],
    }
    wire_id = _publish_id(emu, publish_id)
    return {"errcode": 0, "errmsg": "ok", "publish_id": wire_id, "msg_data_id": wire_id}


def get_status(emu: WeChatEmulator, call: Call) -> dict[str, Any]:
    """``freepublish/get``: status 1 for ``publish_polls`` polls, then the outcome."""
    job = emu.jobs.get(str(call.json().get("publish_id", "")).strip())
    if job is None:
        raise ApiError(53502)
    if job["publish_status"] == PUBLISHING:
        job["polls"] += 1
        if job["polls"] > int(emu.opt("publish_polls")):
            _finish(emu, job, call.now)
    reply: dict[str, Any] = {
        "publish_id": _publish_id(emu, job["publish_id"]),
        "publish_status": job["publish_status"],
    }
    if job["article_id"]:
        article = emu.articles.get(job["article_id"])
        urls = article["urls"] if article else []
        reply["article_id"] = job["article_id"]
        reply["article_detail"] = {
            "count": len(urls),
            "item": [{"idx": i + 1, "article_url": url} for i, url in enumerate(urls)],
        }
    reply["fail_idx"] = job["fail_idx"]
    return reply


def _article(emu: WeChatEmulator, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return stored(emu.articles, body, "article_id", 53600)


def _items(
    emu: WeChatEmulator, article_id: str, article: dict[str, Any], *, content: bool = True
) -> list[dict[str, Any]]:
    items = news_items(emu, article_id, article["articles"], content=content)
    for item, deleted in zip(items, article["is_deleted"], strict=True):
        item["is_deleted"] = deleted
    return items


def get_article(emu: WeChatEmulator, call: Call) -> dict[str, Any]:
    """``freepublish/getarticle``: the published articles; 53600 when unknown."""
    article_id, article = _article(emu, call.json())
    return {"news_item": _items(emu, article_id, article)}


def batchget(emu: WeChatEmulator, call: Call) -> dict[str, Any]:
    """``freepublish/batchget``: published articles not wholly deleted."""
    offset, count, no_content = page(call.json())
    live = [(k, a) for k, a in emu.articles.items() if not all(a["is_deleted"])]
    items = [
        listed(
            emu,
            "article_id",
            article_id,
            article,
            None
            if drops_content(emu, no_content)
            else _items(emu, article_id, article, content=not no_content),
        )
        for article_id, article in live[offset : offset + count]
    ]
    return {"total_count": len(live), "item_count": len(items), "item": items}


def delete(emu: WeChatEmulator, call: Call) -> dict[str, Any]:
    """``freepublish/delete``: one article (1-based ``index``) or all (0)."""
    body = call.json()
    _, article = _article(emu, body)
    index = body.get("index") or 0
    if not isinstance(index, int) or not 0 <= index <= len(article["is_deleted"]):
        raise ApiError(40097)
    if index == 0:
        article["is_deleted"] = [True] * len(article["is_deleted"])
    else:
        article["is_deleted"][index - 1] = True
    article["update_time"] = int(call.now)
    return {"errcode": 0, "errmsg": "ok"}


ROUTES: dict[str, Route] = {
    "/cgi-bin/freepublish/submit": Route("POST", submit, mutating=True, verified_only=True),
    "/cgi-bin/freepublish/get": Route("POST", get_status, verified_only=True),
    "/cgi-bin/freepublish/getarticle": Route("POST", get_article, verified_only=True),
    "/cgi-bin/freepublish/batchget": Route("POST", batchget, verified_only=True),
    "/cgi-bin/freepublish/delete": Route("POST", delete, mutating=True, verified_only=True),
}
