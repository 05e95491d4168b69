"""Reconcile for WeChat: after an unconfirmed ``draft/add`` or ``freepublish/submit``, ask
WeChat what really happened before anything is sent again.

* draft: list 草稿箱 (``draft/batchget``) and find a draft with the intent's title, author
  and digest, changed no earlier than the intent (less a little clock slack), that the
  ledger did not already know. Until the settle window has passed since the call, a
  draft that is not there yet may still arrive (a slow answer): "not yet known", never "no".
* before the first create of a post the ledger does not know (:func:`find_existing`): the
  published list and 草稿箱, whenever the article was made, so a lost state dir or a
  second machine adopts the article instead of making another.
* publish: the published list (``freepublish/batchget``), then the draft itself
  (``draft/get`` → 40007: the draft left 草稿箱, so it was published or deleted). A draft
  still there shortly after the submit may still be publishing: the answer is "not yet
  known" rather than "no". No publish_id is known here (a submit that answered is
  recorded with it and never reconciled), and WeChat lists no refused submission: a
  draft still in 草稿箱 after the settle window was either never submitted or refused,
  and submitting it again publishes it at most once.
"""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from itertools import chain
from typing import Any

from crosspost.channels.base import Adoption, ArticleLink, Intent, Reconciliation, RemotePost
from crosspost.channels.wechat.api import (
    ADOPT_LIST_PAGES,
    MAX_LIST_PAGES,
    WeChatApi,
    news_links,
    normalise_id,
    permanent,
)
from crosspost.channels.wechat.errors import UNAUTHORISED_CODE
from crosspost.errors import PermanentError
from crosspost.platforms.wechat import WECHAT

#: Platform clocks differ from ours: a draft changed this long before the intent still counts.
RECONCILE_SLACK_SECONDS = 120.0
#: After an unconfirmed submit, how long a draft still in 草稿箱 may mean "still publishing".
PUBLISH_SETTLE_SECONDS = 600.0


def matches(
    item: Mapping[str, Any], intent: Intent, id_key: str, *, any_time: bool = False
) -> str | None:
    """The item's id when it is the intent's article, created or changed since then
    (``any_time``: whenever it was made)."""
    remote_id = normalise_id(item.get(id_key))
    content = item.get("content") or {}
    news = content.get("news_item") or []
    if remote_id is None or remote_id in intent.known_ids or not news:
        return None
    if all(isinstance(n, Mapping) and n.get("is_deleted") for n in news):
        return None  # taken down (deleted or blocked): not an article to adopt
    first = news[0]
    updated = float(item.get("update_time") or content.get("update_time") or 0)
    if not any_time and updated < intent.started_at - RECONCILE_SLACK_SECONDS:
        return None
    if first.get("title") != intent.title:
        return None
    if intent.author and first.get("author") != intent.author:
        return None
    if intent.digest and first.get("digest") != intent.digest:
        return None
    return remote_id


def reconcile_draft(api: WeChatApi, intent: Intent) -> Reconciliation:
    """Whether an unconfirmed draft/add made the intent's draft (draft/batchget)."""
    listed = (matches(item, intent, "media_id") for item in api.listing("draft/batchget"))
    found = [media_id for media_id in listed if media_id]
    if not found:
        waited = api.clock() - intent.started_at
        if waited < WECHAT.settle_seconds:
            return Reconciliation(
                None,
                detail=f"no draft titled {intent.title!r} in 草稿箱 yet, {waited:.0f} s after "
                f"the call; WeChat may still be saving it: ask again in a few minutes",
            )
        return Reconciliation(
            False, detail=f"no draft titled {intent.title!r} appeared in 草稿箱: not created"
        )
    more = f" ({len(found) - 1} more alike; using the first listed)" if len(found) > 1 else ""
    return Reconciliation(
        True, found[0], api.preview_url(found[0]), f"draft {found[0]} exists{more}"
    )


def find_existing(api: WeChatApi, intent: Intent) -> Adoption | None:
    """The issue's article already on the account: published (freepublish/batchget) first,
    else a draft in 草稿箱 (draft/batchget); matched by title, author and digest, among
    the newest :data:`ADOPT_LIST_PAGES` pages of each. The first page of drafts is read
    beside the published list (two reads, one round trip)."""
    drafts = api.listing("draft/batchget", pages=ADOPT_LIST_PAGES)
    with ThreadPoolExecutor(max_workers=1) as side:
        first_draft = side.submit(next, drafts, None)
        published = _published(api, intent, any_time=True, pages=ADOPT_LIST_PAGES)
        # The drafts are read only when nothing was published: a failed read of them
        # then must not hide the article already found.
        first = first_draft.result() if published is None else None
    if published is not None:
        article_id, url, listed, links = published
        if permanent(url):
            post = RemotePost(article_id, url, articles=links)
            return Adoption(None, post, url, f"already published as article {article_id}")
        # Only a temporary link: adopted as published, its URL pending (never recorded).
        post = RemotePost(article_id, None, preview_url=url or listed, articles=links)
        return Adoption(None, post, None, f"already published as article {article_id}, URL pending")
    for item in chain([first] if first is not None else [], drafts):
        media_id = matches(item, intent, "media_id", any_time=True)
        if media_id:
            return Adoption(media_id, None, api.preview_url(media_id), f"draft {media_id}")
    return None


def reconcile_publish(api: WeChatApi, intent: Intent) -> Reconciliation:
    """Whether an unconfirmed freepublish/submit published the intent's draft."""
    published = _published(api, intent)
    if published is not None:
        article_id, url, listed, _ = published
        if permanent(url):
            return Reconciliation(True, article_id, url, f"published as article {article_id}")
        preview = url or listed
        shown = f"; preview (temporary) {preview}" if preview else ""
        # What to run to record the link is said by the publisher, which knows the post
        # (its issue id) and whether the run is a rehearsal: the line for the post that
        # follows this one names the whole ``urls --set`` command
        # (:func:`crosspost.publish.urls.pending_message`).
        return Reconciliation(
            True,
            article_id,
            None,
            f"published as article {article_id}, URL pending: WeChat lists only a "
            f"temporary link{shown}; the permanent one is in 发表记录 (公众号后台)",
            url_pending=True,
        )
    if intent.draft_id and not api.draft_exists(intent.draft_id):
        return Reconciliation(
            True,
            detail=f"draft {intent.draft_id} left 草稿箱: published (or deleted by hand); "
            "see 发表记录 in 公众号后台",
        )
    if api.clock() - intent.started_at < PUBLISH_SETTLE_SECONDS:
        return Reconciliation(
            None,
            detail="the draft is still in 草稿箱: WeChat may still be publishing it; "
            "ask again in a few minutes",
        )
    return Reconciliation(
        False,
        detail="the draft is still in 草稿箱 and nothing was published: the submit did not happen",
    )


def reconcile_handoff(api: WeChatApi, intent: Intent) -> Reconciliation:
    """Whether a draft crosspost handed off to the editor was sent or published by hand.

    Still in 草稿箱: no. Gone: yes, and the published list (``freepublish/batchget``,
    which accounts without publishing rights may not read, and which never lists a 群发)
    is searched for the article by title, author and digest, for its URL.
    """
    assert intent.draft_id is not None
    if api.draft_exists(intent.draft_id):
        return Reconciliation(False, detail=f"draft {intent.draft_id} is still in 草稿箱")
    gone = f"draft {intent.draft_id} left 草稿箱"
    published = _published(api, intent)
    if published is None:
        return Reconciliation(
            True, detail=f"{gone}; no published article of it is listed (sent by 群发?)"
        )
    article_id, url, _, _ = published
    found = f"{gone}; published as article {article_id}"
    return Reconciliation(True, article_id, url if permanent(url) else None, found)


def _published(
    api: WeChatApi, intent: Intent, *, any_time: bool = False, pages: int = MAX_LIST_PAGES
) -> tuple[str, str | None, str | None, tuple[ArticleLink, ...]] | None:
    """The first published article (freepublish/batchget) that is the intent's: its id,
    its link (asked of freepublish/getarticle when the listed one is temporary), the
    listed link and every article listed under it (多图文). None too when the account
    may not read the list (48001: since 2025-07 accounts without publishing rights are
    refused the whole freepublish family)."""
    try:
        for item in api.listing("freepublish/batchget", pages):
            article_id = matches(item, intent, "article_id", any_time=any_time)
            if article_id:
                news = (item.get("content") or {}).get("news_item") or [{}]
                listed = str(news[0].get("url") or "") or None
                url = listed if permanent(listed) else api.article_url(article_id)
                links = news_links([n for n in news if isinstance(n, dict)])
                return article_id, url, listed, links
    except PermanentError as error:
        if error.code != UNAUTHORISED_CODE:
            raise
    return None
