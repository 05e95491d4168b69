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
from typing import Any

from crosspost.sandbox.wechat.content import MP_HOST, drops_content, listed, news_items, page
from crosspost.sandbox.wechat.state import WeChatAccount
from crosspost.sandbox.wechat.wire import ApiError, Call, stored

SUCCESS, PUBLISHING = 0, 1
DELETED_AFTER = (5, 6)


def _publish_id(account: WeChatAccount, value: int) -> int | str:
    return str(value) if account.opt("publish_id_type") == "str" else value


def _article_url(account: WeChatAccount, article_id: str, idx: int) -> str:
    if account.opt("article_url_style") == "long":
        biz = account.app_id.encode().hex()[:16]
        return f"https://{MP_HOST}/s?__biz={biz}&mid={article_id[:10]}&idx={idx}&sn={article_id[-32:]}#rd"
    short_id = account.random_text(22, string.ascii_letters + string.digits + "_-")
    return f"https://{MP_HOST}/s/{short_id}"


def _finish(
    account: WeChatAccount, job: dict[str, Any], now: float, outcome: int | None = None
) -> None:
    """Bring a job to its end state (the moment the platform would have); ``outcome``
    defaults to the ``publish_outcome`` option."""
    draft = account.drafts.get(job["draft_media_id"])
    outcome = int(account.opt("publish_outcome")) if outcome is None else outcome
    if draft is None:
        outcome = 3  # the draft vanished while publishing: a general failure
    if outcome != SUCCESS and outcome not in DELETED_AFTER:
        job.update(publish_status=outcome, fail_idx=[1])
        return
    article_id = account.random_text(43, string.ascii_letters + string.digits + "_-")
    assert draft is not None
    urls = [_article_url(account, article_id, i + 1) for i in range(len(draft["articles"]))]
    deleted = outcome in DELETED_AFTER
    account.articles[article_id] = {
        "publish_id": job["publish_id"],
        "articles": draft["articles"],
        "urls": urls,
        "is_deleted": [deleted] * len(urls),
        "create_time": int(now),
        "update_time": int(now),
    }
    del account.drafts[job["draft_media_id"]]
    job.update(publish_status=outcome, article_id=article_id, fail_idx=[])


def advance_jobs(account: WeChatAccount, now: float) -> None:
    """Finish jobs whose time is up (called before every request)."""
    seconds = account.opt("publish_seconds")
    if seconds is None:
        return
    for job in account.jobs.values():
        if job["publish_status"] == PUBLISHING and now >= job["submitted_at"] + float(seconds):
            _finish(account, job, now)


def _new_job(account: WeChatAccount, media_id: str, now: float) -> dict[str, Any]:
    publish_id = account.next_publish_id
    account.next_publish_id += 1
    job = account.jobs[str(publish_id)] = {
        "publish_id": publish_id,
        "draft_media_id": media_id,
        "publish_status": PUBLISHING,
        "polls": 0,
        "submitted_at": now,
        "article_id": None,
        "fail_idx": [],
    }
    return job


def submit(account: WeChatAccount, call: Call) -> dict[str, Any]:
    """``freepublish/submit``: accept a job for a draft; it only starts publishing."""
    media_id = call.json().get("media_id")
    if not isinstance(media_id, str) or media_id not in account.drafts:
        raise ApiError(40007)
    wire_id = _publish_id(account, _new_job(account, media_id, call.now)["publish_id"])
    return {"errcode": 0, "errmsg": "ok", "publish_id": wire_id, "msg_data_id": wire_id}


def publish_by_hand(account: WeChatAccount, media_id: str, now: float) -> dict[str, Any]:
    """发表 pressed in the web console: any kind of account may, the API is not asked.
    The draft leaves the box and is published at once, listed by batchget like any other."""
    if media_id not in account.drafts:
        raise ValueError(f"no draft {media_id} in the draft box")
    job = _new_job(account, media_id, now)
    _finish(account, job, now, outcome=SUCCESS)
    urls = account.articles[job["article_id"]]["urls"]
    return {"publish_id": job["publish_id"], "article_id": job["article_id"], "urls": urls}


def get_status(account: WeChatAccount, call: Call) -> dict[str, Any]:
    """``freepublish/get``: status 1 for ``publish_polls`` polls, then the outcome."""
    job = account.jobs.get(str(call.json().get("publish_id", "")).strip())
    if job is None:
        raise ApiError(53502)
    if job["publish_status"] == PUBLISHING:
        job["polls"] += 1
        if job["polls"] > int(account.opt("publish_polls")):
            _finish(account, job, call.now)
    reply: dict[str, Any] = {
        "publish_id": _publish_id(account, job["publish_id"]),
        "publish_status": job["publish_status"],
    }
    if job["article_id"]:
        article = account.articles.get(job["article_id"])
        urls = article["urls"] if article else []
        listed = {"all": urls, "lead": urls[:1], "none": None}[account.opt("article_detail")]
        reply["article_id"] = job["article_id"]
        if listed is not None:
            items = [{"idx": i + 1, "article_url": url} for i, url in enumerate(listed)]
            reply["article_detail"] = _detail(account.opt("article_detail_shape"), items)
    reply["fail_idx"] = job["fail_idx"]
    return reply


def _detail(shape: str, items: list[dict[str, Any]]) -> Any:
    """``article_detail`` in the shape the ``article_detail_shape`` option asks for."""
    if shape == "object":  # the lead alone, as the XML completion event nests one <item>
        return {"count": len(items), "item": items[0] if items else {}}
    if shape == "odd":  # the articles with no "item" around them, and their count as text
        return [{"count": str(len(items))}, *items]
    return {"count": len(items), "item": items}


def _article(account: WeChatAccount, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return stored(account.articles, body, "article_id", 53600)


def _items(
    account: WeChatAccount, article_id: str, article: dict[str, Any], *, content: bool = True
) -> list[dict[str, Any]]:
    items = news_items(account, article_id, article["articles"], content=content)
    lasting = account.opt("listed_urls") == "permanent"
    for item, deleted, url in zip(items, article["is_deleted"], article["urls"], strict=True):
        item["is_deleted"] = deleted
        if lasting:
            item["url"] = url
    return items


def get_article(account: WeChatAccount, call: Call) -> dict[str, Any]:
    """``freepublish/getarticle``: the published articles; 53600 when unknown."""
    article_id, article = _article(account, call.json())
    return {"news_item": _items(account, article_id, article)}


def batchget(account: WeChatAccount, call: Call) -> dict[str, Any]:
    """``freepublish/batchget``: published articles not wholly deleted."""
    offset, count, no_content = page(call.json())
    live = [(k, a) for k, a in account.articles.items() if not all(a["is_deleted"])]
    items = [
        listed(
            account,
            "article_id",
            article_id,
            article,
            None
            if drops_content(account, no_content)
            else _items(account, article_id, article, content=not no_content),
        )
        for article_id, article in live[offset : offset + count]
    ]
    return {"total_count": len(live), "item_count": len(items), "item": items}


def delete(account: WeChatAccount, call: Call) -> dict[str, Any]:
    """``freepublish/delete``: one article (1-based ``index``) or all (0)."""
    body = call.json()
    _, article = _article(account, body)
    index = body.get("index") or 0
    if not isinstance(index, int) or not 0 <= index <= len(article["is_deleted"]):
        raise ApiError(40097)
    if index == 0:
        article["is_deleted"] = [True] * len(article["is_deleted"])
    else:
        article["is_deleted"][index - 1] = True
    article["update_time"] = int(call.now)
    return {"errcode": 0, "errmsg": "ok"}
