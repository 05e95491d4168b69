"""WeChat's HTTP API as crosspost uses it: one method per call, nothing about posts.

:class:`WeChatApi` holds what every call needs (the one HTTP policy, the account's
:class:`~crosspost.channels.wechat.token.StableToken`, the base URL, the poll budget) so
that the adapter and the reconcile steps share one way to reach WeChat without knowing
each other. Paths and fields follow ``specs/wechat-api.md``. The two irreversible calls,
``draft/add`` and ``freepublish/submit``, are sent exactly once: when their outcome is
unknown they raise :class:`~crosspost.errors.UnconfirmedError`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from crosspost.channels.base import ArticleLink, RemotePost
from crosspost.channels.http.policy import AmbiguousOutcome, HttpPolicy, Reply
from crosspost.channels.wechat.errors import CHANNEL, DRAFT_GONE_CODE, check_reply, draft_gone
from crosspost.channels.wechat.token import PollBudget, StableToken
from crosspost.errors import CrosspostError, PermanentError, UnconfirmedError
from crosspost.platforms.wechat import WECHAT

log = logging.getLogger("crosspost.wechat")

REAL_BASE_URL = "https://api.weixin.qq.com"
#: How many items a listing call returns at most (draft/batchget, freepublish/batchget).
PAGE_SIZE = 20
#: Listings stop after this many pages, whatever WeChat says its total is.
MAX_LIST_PAGES = 50
#: Pages the look for an issue already on the account reads before a first draft: the
#: newest 100 articles. freepublish/batchget has 100 calls a day; reading all 50 pages
#: for every new post spent them on an account with many articles, and then nothing
#: could be published or reconciled until midnight.
ADOPT_LIST_PAGES = 5

Files = Mapping[str, tuple[str, bytes, str]]
#: What an irreversible call makes, for the line saying it may or may not exist.
_WHAT = {"draft/add": "draft", "message/mass/sendall": "mass send (群发)"}
#: sendall's answers that are not errors: 45065 (this clientmsgid was sent within 24 h:
#: the answer carries the first send's msg_id) and 45066 (retried within a minute).
MASS_ALREADY_SENT = 45065
MASS_TOO_SOON = 45066


def normalise_id(value: Any) -> str | None:
    """publish_id and friends arrive as numbers or strings (spec §6.1): always a str."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = str(value).strip()
    return text or None


class WeChatApi:
    """One account's way to WeChat: every method is one API call (or one listing)."""

    def __init__(
        self,
        *,
        account_key: str,
        base_url: str,
        http: HttpPolicy,
        token: StableToken,
        polls: PollBudget,
        clock: Callable[[], float],
    ) -> None:
        self.account_key = account_key
        self.base_url = base_url.rstrip("/")
        self.http = http
        self.token = token
        self.polls = polls
        self.clock = clock

    def call(
        self,
        path: str,
        *,
        body: Any = None,
        params: Mapping[str, str] | None = None,
        files: Files | None = None,
        irreversible: bool = False,
        retry: bool = True,
        answers: frozenset[int] = frozenset(),
    ) -> dict[str, Any]:
        """One POST to ``/cgi-bin/<path>``; irreversible ones (and ``retry=False``) are
        sent once. An errcode in ``answers`` is an answer the caller reads (its payload
        is returned, errcode included), not an error."""

        def check(reply: Reply) -> dict[str, Any]:
            if answers:
                data = _payload(reply)
                if data is not None and _errcode(data) in answers:
                    return data
            return check_reply(reply, clock=self.clock, irreversible=irreversible)

        try:
            return self.http.request(
                "POST",
                f"{self.base_url}/cgi-bin/{path}",
                idempotent=not irreversible,
                check=check,
                channel=CHANNEL,
                params=params,
                json=body,
                files=files,
                credential=self.token,
                retry=retry,
            )
        except AmbiguousOutcome as error:
            what = _WHAT.get(path, "publication")
            problem = f"{error.reason} on POST /cgi-bin/{path} after it was sent"
            raise UnconfirmedError(
                f"{problem}, so the {what} may or may not exist on {self.account_key}; run "
                "crosspost again: it asks WeChat what happened before it tries again",
                channel=CHANNEL,
                code="unconfirmed",
                problem=problem,
            ) from None

    def _on_draft(
        self,
        path: str,
        media_id: str,
        body: Any,
        *,
        irreversible: bool = False,
        retry: bool = True,
    ) -> dict[str, Any]:
        """A call naming a draft crosspost made: 40007 means the draft left 草稿箱."""
        try:
            return self.call(path, body=body, irreversible=irreversible, retry=retry)
        except PermanentError as error:
            if error.code == DRAFT_GONE_CODE:
                raise draft_gone(media_id) from None
            raise

    # --- images ---------------------------------------------------------------------------

    def upload_image(self, files: Files) -> dict[str, Any]:
        """media/uploadimg: an in-article JPG/PNG under 1 MB; answers its ``url``."""
        return self.call("media/uploadimg", files=files)

    def add_material(self, files: Files) -> dict[str, Any]:
        """material/add_material (type=image): permanent material, with a ``media_id``."""
        return self.call("material/add_material", params={"type": "image"}, files=files)

    def delete_material(self, media_id: str) -> dict[str, Any]:
        """material/del_material: permanent material gone for good (the doctor's canary
        cover)."""
        return self.call("material/del_material", body={"media_id": media_id})

    # --- drafts ---------------------------------------------------------------------------

    def add_draft(self, *articles: Mapping[str, Any]) -> dict[str, Any]:
        """draft/add of one article, or several (多图文) (irreversible: sent once)."""
        body = {"articles": [dict(article) for article in articles]}
        return self.call("draft/add", body=body, irreversible=True)

    def update_draft(
        self, media_id: str, article: Mapping[str, Any], index: int = 0
    ) -> dict[str, Any]:
        """draft/update of one article, the first by default (same content, same result:
        retried)."""
        body = {"media_id": media_id, "index": index, "articles": dict(article)}
        return self._on_draft("draft/update", media_id, body)

    def get_draft(self, media_id: str) -> dict[str, Any]:
        """draft/get."""
        return self._on_draft("draft/get", media_id, {"media_id": media_id})

    def delete_draft(self, media_id: str) -> dict[str, Any]:
        """draft/delete: the draft gone from 草稿箱 for good (the doctor's canary)."""
        return self.call("draft/delete", body={"media_id": media_id})

    def draft_exists(self, media_id: str) -> bool:
        """Whether the draft is still in 草稿箱 (draft/get answers 40007 once it left)."""
        try:
            self.get_draft(media_id)
        except PermanentError as error:
            if error.code == DRAFT_GONE_CODE:
                return False
            raise
        return True

    def preview_url(self, media_id: str) -> str | None:
        """The draft's temporary preview link; None (not an error) when WeChat will not say."""
        try:
            items = self.get_draft(media_id).get("news_item") or []
        except CrosspostError as error:
            log.warning("no preview link for WeChat draft %s: %s", media_id, error)
            return None
        url = items[0].get("url") if items and isinstance(items[0], dict) else None
        return str(url) if url else None

    def listing(self, path: str, pages: int = MAX_LIST_PAGES) -> Iterator[dict[str, Any]]:
        """Every item of draft/batchget or freepublish/batchget, a page at a time, newest
        first (as WeChat lists them), up to ``pages`` pages."""
        offset = 0
        for _ in range(pages):
            # no_content 0: WeChat's docs leave open whether 1 drops only the HTML or the
            # whole ``content`` (titles included); without titles reconcile would miss the
            # draft and a second one would be made.
            body = {"offset": offset, "count": PAGE_SIZE, "no_content": 0}
            data = self.call(path, body=body)
            items = [i for i in data.get("item") or [] if isinstance(i, dict)]
            yield from items
            offset += len(items)
            if not items or offset >= int(data.get("total_count") or 0):
                return

    # --- publishing -----------------------------------------------------------------------

    def submit(self, media_id: str) -> dict[str, Any]:
        """freepublish/submit (irreversible: sent once)."""
        return self._on_draft(
            "freepublish/submit", media_id, {"media_id": media_id}, irreversible=True
        )

    def publish_status(self, publish_id: str) -> dict[str, Any]:
        """freepublish/get, counted against today's poll budget; ``publish_status`` as int
        (None when missing or not a number).

        Sent once, without the HTTP policy's retries: each attempt is one poll of the
        daily budget, and the next poll is the retry.
        """
        self.polls.take()
        data = self.call("freepublish/get", body={"publish_id": publish_id}, retry=False)
        status = normalise_id(data.get("publish_status"))
        data["publish_status"] = int(status) if status and status.isdigit() else None
        return data

    # --- mass send (群发) -------------------------------------------------------------------

    def mass_send(
        self,
        media_id: str,
        clientmsgid: str,
        *,
        tag_id: int | None = None,
        send_ignore_reprint: bool = False,
    ) -> dict[str, Any]:
        """message/mass/sendall of a draft (mpnews) to every follower or to one tag.

        Irreversible, so sent once by the HTTP policy; replaying the same ``clientmsgid``
        is what makes a retry safe (the platform dedupes for 24 h), and that replay is the
        publisher's decision. 45065 and 45066 come back as answers (see ``answers``).
        """
        target: dict[str, Any] = {"is_to_all": True}
        if tag_id is not None:
            target = {"is_to_all": False, "tag_id": tag_id}
        body = {
            "filter": target,
            "mpnews": {"media_id": media_id},
            "msgtype": "mpnews",
            "send_ignore_reprint": int(send_ignore_reprint),
            "clientmsgid": clientmsgid,
        }
        return self.call(
            "message/mass/sendall",
            body=body,
            irreversible=True,
            answers=frozenset({MASS_ALREADY_SENT, MASS_TOO_SOON}),
        )

    def mass_status(self, msg_id: str) -> str | None:
        """message/mass/get: ``SENDING``, ``SEND_SUCCESS``, ``SEND_FAIL``, ``DELETE`` (a
        read: the HTTP policy may retry it); None when the answer has no status."""
        ident: int | str = int(msg_id) if msg_id.isdigit() else msg_id
        data = self.call("message/mass/get", body={"msg_id": ident})
        status = data.get("msg_status")
        return str(status) if status else None

    def article_url(self, article_id: str) -> str | None:
        """freepublish/getarticle: the published article's link, when WeChat gives one
        (it may be a temporary one: see :func:`permanent`)."""
        items = self.published_articles(article_id) or [{}]
        return str(items[0].get("url") or "") or None

    def published_articles(self, article_id: str) -> list[dict[str, Any]]:
        """freepublish/getarticle: every article published under ``article_id``, in order
        (a read: the HTTP policy may retry it)."""
        news = self.call("freepublish/getarticle", body={"article_id": article_id})
        return [item for item in news.get("news_item") or [] if isinstance(item, dict)]

    def post_from(self, data: Mapping[str, Any]) -> RemotePost:
        """The post a successful freepublish/get answer describes (its link looked up
        with freepublish/getarticle when the answer carries none). A temporary link is
        never the post's URL: the post then comes with its URL pending."""
        article_id = normalise_id(data.get("article_id")) or ""
        items = detail_items(data)
        first = next((i for i in items if i.get("idx") in (1, "1")), items[0] if items else {})
        url = _text(first.get("article_url")) or None
        if not permanent(url) and article_id:
            url = self.article_url(article_id) or url
        links = _links_of(items)
        if permanent(url):
            return RemotePost(id=article_id, url=url, articles=links)
        return RemotePost(id=article_id, url=None, preview_url=url, articles=links)

    def mass_preview(self, media_id: str, towxname: str) -> dict[str, Any]:
        """message/mass/preview of a draft to one WeChat ID: nothing reaches followers.
        Sent once (no retries): a repeat reaches the reviewer a second time."""
        body = {"towxname": towxname, "mpnews": {"media_id": media_id}, "msgtype": "mpnews"}
        return self._on_draft("message/mass/preview", media_id, body, retry=False)

    # --- capabilities ---------------------------------------------------------------------

    def quota(self, cgi_path: str) -> dict[str, Any]:
        """openapi/quota/get: today's ``quota`` (daily_limit, used, remain) of one API path,
        a read that changes nothing. A path this account may not call answers an error
        (48001, or 76022 per spec §3), which is how ``crosspost doctor`` tells what the
        account may do."""
        return self.call("openapi/quota/get", body={"cgi_path": cgi_path})


def _payload(reply: Reply) -> dict[str, Any] | None:
    try:
        data = reply.json()
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _errcode(data: Mapping[str, Any]) -> int | None:
    try:
        return int(data.get("errcode") or 0)
    except (TypeError, ValueError):
        return None


def detail_items(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The articles of a freepublish/get answer's ``article_detail.item``: a list of
    objects as the doc shows, or one object alone (the completion event nests a single
    ``<item>`` so, and a converted answer may keep that). Any other shape names no
    article: the post is published all the same, its URL not known yet (spec §6.2)."""
    detail = data.get("article_detail")
    items = detail.get("item") if isinstance(detail, dict) else detail
    if isinstance(items, dict):
        return [items]
    if isinstance(items, list) and isinstance(detail, dict):
        return [item for item in items if isinstance(item, dict)]
    if items not in (None, ""):
        log.warning(
            "WeChat's freepublish/get names the article's link in a shape crosspost does "
            "not know; the URL is asked for again later"
        )
    return []


def detail_links(data: Mapping[str, Any]) -> tuple[ArticleLink, ...]:
    """Every article a successful freepublish/get answer lists (``article_detail.item``:
    a 1-based ``idx`` and ``article_url``, no title), in ``idx`` order; an item without
    a usable ``idx`` keeps its place in the answer."""
    return _links_of(detail_items(data))


def _links_of(items: Sequence[Mapping[str, Any]]) -> tuple[ArticleLink, ...]:
    links = []
    for place, item in enumerate(items, start=1):
        idx = normalise_id(item.get("idx"))
        url = _text(item.get("article_url")) or None
        index = int(idx) if idx and idx.isdigit() else place
        links.append(ArticleLink(index, url if permanent(url) else None))
    return tuple(sorted(links, key=lambda link: link.index))


def news_links(news: Sequence[Mapping[str, Any]]) -> tuple[ArticleLink, ...]:
    """Every article of a published list's or getarticle's ``news_item``, in order, with
    its title; a temporary link (what WeChat's lists usually give) counts as none."""
    links = []
    for index, item in enumerate(news, start=1):
        url = str(item.get("url") or "") or None
        title = item.get("title")
        links.append(ArticleLink(index, url if permanent(url) else None, _text(title)))
    return tuple(links)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def permanent(url: str | None) -> bool:
    """Whether a WeChat link is the article's lasting address (not ``…&tempkey=…``)."""
    return WECHAT.is_permanent_url(url)
