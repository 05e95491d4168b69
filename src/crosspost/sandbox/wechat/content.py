"""The WeChat draft box: ``draft/add|get|update|delete|count|batchget`` (spec §5, §8).

Articles are checked in the platform's order (44003 empty → 45003 title → 45110 author →
45004 digest → 45002 content → 45005 source URL → 40007 cover) and stored the way the
platform keeps them: scripts and ``on*`` handlers removed, ``<img>`` from outside the
mmbiz hosts dropped, outside links unlinked (option ``external_links``), the digest
filled from the first 54 characters of text when left empty.
"""

from __future__ import annotations

import re
import string
from typing import Any
from urllib.parse import urlsplit

from crosspost.sandbox.wechat.state import WeChatAccount
from crosspost.sandbox.wechat.wire import ApiError, Call, stored

MP_HOST = "mp.weixin.qq.com"
FLAGS = ("need_open_comment", "only_fans_can_comment")
OPTIONAL_TEXT = ("pic_crop_235_1", "pic_crop_1_1")


def _text(article: dict[str, Any], key: str) -> str:
    value = article.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ApiError(47001)
    return value


#: Text that may be active content (a script, an ``on…`` attribute in a tag, a
#: javascript: URL): its presence sends the article through the full pass. A false alarm
#: (an article about JavaScript) only costs time.
_MAYBE_ACTIVE = re.compile(r"<\s*(?:no)?script|javascript:|<[^>]*\son[^\s=>/]*[\s=>/]", re.I)


def _kept_whole(account: WeChatAccount, content: str) -> bool:
    """True when :func:`sanitise` would keep ``content`` unchanged, seen by lxml's parser
    (a twentieth of html.parser's time on a long article): the usual article has no
    script, no handler, images on WeChat's hosts and no outside link. Anything doubtful
    answers False, and the full pass decides."""
    if _MAYBE_ACTIVE.search(content):
        return False
    import lxml.etree
    import lxml.html

    try:
        root = lxml.html.fragment_fromstring(content, create_parent="div")
    except (ValueError, lxml.etree.ParserError):
        return False
    hosts = set(account.opt("image_hosts"))
    if any(_foreign_image(img.get("src"), hosts) for img in root.iter("img")):
        return False
    if account.opt("external_links") in ("reject", "unlink"):
        return not any(_outside_link(link.get("href")) for link in root.iter("a"))
    return True


def _foreign_image(src: object, hosts: set[str]) -> bool:
    """An ``<img>`` whose source is not on WeChat's image hosts (the platform drops it)."""
    return urlsplit(str(src or "")).hostname not in hosts


def _outside_link(href: object) -> bool:
    """An ``http(s)`` link off mp.weixin.qq.com (unlinked or refused, per the option)."""
    parts = urlsplit(str(href or ""))
    return parts.scheme in ("http", "https") and parts.hostname != MP_HOST


def sanitise(account: WeChatAccount, content: str) -> str:
    """What the platform keeps of the HTML; the input unchanged when nothing is removed."""
    if _kept_whole(account, content):
        return content
    from bs4 import BeautifulSoup, Tag

    soup = BeautifulSoup(content, "html.parser")
    changed = False
    for script in soup.find_all(["script", "noscript"]):
        script.decompose()
        changed = True
    hosts = set(account.opt("image_hosts"))
    links = account.opt("external_links")
    for tag in soup.find_all(True):
        if not isinstance(tag, Tag) or tag.decomposed:
            continue
        for attr in list(tag.attrs):
            value = str(tag.attrs[attr]).strip().lower()
            if attr.lower().startswith("on") or value.startswith("javascript:"):
                del tag.attrs[attr]
                changed = True
        if tag.name == "img" and _foreign_image(tag.get("src"), hosts):
            tag.decompose()
            changed = True
        elif tag.name == "a" and tag.get("href"):
            external = _outside_link(tag["href"])
            if external and links == "reject":
                raise ApiError(45166)
            if external and links == "unlink":
                del tag.attrs["href"]
                changed = True
    return str(soup) if changed else content


def _plain_text(content: str) -> str:
    from bs4 import BeautifulSoup

    return " ".join(BeautifulSoup(content, "html.parser").get_text(" ").split())


def check_article(account: WeChatAccount, article: Any) -> dict[str, Any]:
    """One article as stored, or the ApiError the platform answers with."""
    if not isinstance(article, dict):
        raise ApiError(44003)
    kind = article.get("article_type") or "news"
    if kind not in ("news", "newspic"):
        raise ApiError(40097)
    title, content = _text(article, "title"), _text(article, "content")
    if not title.strip() or not content.strip():
        raise ApiError(44003)
    if len(title) > int(account.opt("title_max_chars")) or len(title.encode()) > int(
        account.opt("title_max_bytes")
    ):
        raise ApiError(45003)
    author, digest = _text(article, "author"), _text(article, "digest")
    if len(author) > int(account.opt("author_max_chars")):
        raise ApiError(45110)
    if len(digest) > int(account.opt("digest_max_chars")):
        raise ApiError(45004)
    if len(content) >= int(account.opt("content_max_chars")) or len(content.encode()) >= int(
        account.opt("content_max_bytes")
    ):
        raise ApiError(45002)
    source_url = _text(article, "content_source_url")
    if len(source_url.encode()) > int(account.opt("source_url_max_bytes")):
        raise ApiError(45005)
    thumb_id = _text(article, "thumb_media_id")
    thumb = account.materials.get(thumb_id)
    if kind == "news" and (thumb is None or thumb["type"] not in ("image", "thumb")):
        raise ApiError(40007)
    stored: dict[str, Any] = {
        "article_type": kind,
        "title": title,
        "author": author,
        "digest": digest,
        "content": sanitise(account, content),
        "content_source_url": source_url,
        "thumb_media_id": thumb_id,
        "show_cover_pic": 0,
        "thumb_url": (thumb["url"] or "") if thumb else "",
    }
    for flag in FLAGS:
        stored[flag] = 1 if article.get(flag) in (1, True, "1") else 0
    for key in OPTIONAL_TEXT:
        if article.get(key):
            stored[key] = _text(article, key)
    if kind == "newspic":
        stored["image_info"] = _image_info(account, article.get("image_info"))
    return stored


def _image_info(account: WeChatAccount, info: Any) -> dict[str, Any]:
    images = info.get("image_list") if isinstance(info, dict) else None
    if not isinstance(images, list) or not images:
        raise ApiError(44003)
    if len(images) > 20:
        raise ApiError(45008)
    for image in images:
        if not isinstance(image, dict) or image.get("image_media_id") not in account.materials:
            raise ApiError(40007)
    return {"image_list": images}


def _fill_digests(account: WeChatAccount, articles: list[dict[str, Any]]) -> None:
    """Only a single-article draft has a digest; an empty one is taken from the text."""
    if len(articles) == 1 and not articles[0]["digest"]:
        text = _plain_text(articles[0]["content"])
        articles[0]["digest"] = text[: int(account.opt("auto_digest_chars"))]
    elif len(articles) > 1:
        for article in articles:
            article["digest"] = ""


def preview_url(account: WeChatAccount, media_id: str, index: int) -> str:
    """The temporary link draft/get hands out (not the permanent article URL)."""
    biz = account.app_id.encode().hex()[:16]
    return f"http://{MP_HOST}/s?__biz={biz}&tempkey={media_id[:24]}&idx={index + 1}#rd"


def news_items(
    account: WeChatAccount, media_id: str, articles: list[dict[str, Any]], *, content: bool = True
) -> list[dict[str, Any]]:
    """Articles as draft/get and batchget list them, with a preview link."""
    items = []
    for index, article in enumerate(articles):
        item = {**article, "url": preview_url(account, media_id, index)}
        if not content:
            item.pop("content", None)
        items.append(item)
    return items


def _draft(account: WeChatAccount, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return stored(account.drafts, body, "media_id", 40007)


def page(body: dict[str, Any]) -> tuple[int, int, bool]:
    """(offset, count, no_content) of a batchget body: count 1–20, else 40097."""
    try:
        offset, count = int(body.get("offset", 0)), int(body.get("count", 0))
    except (TypeError, ValueError):
        raise ApiError(40097) from None
    if offset < 0 or not 1 <= count <= 20:
        raise ApiError(40097)
    return offset, count, body.get("no_content") in (1, True, "1")


def draft_add(account: WeChatAccount, call: Call) -> dict[str, Any]:
    """``draft/add``: 44003, 45008, then each article's checks; the new media_id."""
    articles = call.json().get("articles")
    if not isinstance(articles, list) or not articles:
        raise ApiError(44003)
    if len(articles) > int(account.opt("max_articles")):
        raise ApiError(45008)
    stored = [check_article(account, article) for article in articles]
    _fill_digests(account, stored)
    while True:
        media_id = account.random_text(43, string.ascii_letters + string.digits + "_-")
        if media_id not in account.drafts:
            break
    now = int(call.now)
    account.drafts[media_id] = {"articles": stored, "create_time": now, "update_time": now}
    return {"media_id": media_id}


def draft_get(account: WeChatAccount, call: Call) -> dict[str, Any]:
    """``draft/get``: the articles, or 40007 for an unknown (or published) draft."""
    media_id, draft = _draft(account, call.json())
    return {"news_item": news_items(account, media_id, draft["articles"])}


def draft_update(account: WeChatAccount, call: Call) -> dict[str, Any]:
    """``draft/update``: replace one article (0-based ``index``) after the same checks."""
    body = call.json()
    _, draft = _draft(account, body)
    index = body.get("index")
    if not isinstance(index, int) or not 0 <= index < len(draft["articles"]):
        raise ApiError(40097)
    article = body.get("articles")
    if not isinstance(article, dict) or not article:
        raise ApiError(44003)
    articles = list(draft["articles"])
    articles[index] = check_article(account, article)
    _fill_digests(account, articles)
    draft["articles"] = articles
    draft["update_time"] = int(call.now)
    return {"errcode": 0, "errmsg": "ok"}


def draft_delete(account: WeChatAccount, call: Call) -> dict[str, Any]:
    """``draft/delete``: gone for good; 40007 when unknown."""
    media_id, _ = _draft(account, call.json())
    del account.drafts[media_id]
    return {"errcode": 0, "errmsg": "ok"}


def draft_count(account: WeChatAccount, call: Call) -> dict[str, Any]:
    """``draft/count`` (GET)."""
    return {"total_count": len(account.drafts)}


def listed(
    account: WeChatAccount, id_key: str, item_id: str, record: dict[str, Any], news: Any
) -> dict[str, Any]:
    """One item of a batchget listing. With ``no_content`` set, what is left out depends on
    the ``no_content_drops`` option: the articles' HTML ("html", the reading the emulator
    defaults to) or the whole ``content`` object ("content"): the spec allows both."""
    item: dict[str, Any] = {id_key: item_id, "update_time": record["update_time"]}
    if news is not None:
        item["content"] = {
            "news_item": news,
            "create_time": record["create_time"],
            "update_time": record["update_time"],
        }
    return item


def drops_content(account: WeChatAccount, no_content: bool) -> bool:
    """True when this listing leaves out ``content`` altogether."""
    return no_content and account.opt("no_content_drops") == "content"


def draft_batchget(account: WeChatAccount, call: Call) -> dict[str, Any]:
    """``draft/batchget``: newest first, ``no_content`` leaves out the HTML."""
    offset, count, no_content = page(call.json())
    ordered = sorted(account.drafts.items(), key=lambda kv: kv[1]["update_time"], reverse=True)
    items = [
        listed(
            account,
            "media_id",
            media_id,
            draft,
            None
            if drops_content(account, no_content)
            else news_items(account, media_id, draft["articles"], content=not no_content),
        )
        for media_id, draft in ordered[offset : offset + count]
    ]
    return {"total_count": len(ordered), "item_count": len(items), "item": items}
