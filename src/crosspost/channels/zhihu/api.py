"""Zhihu's web-editor API as crosspost uses it: one method per call (zhihu-api.md §3).

:class:`ZhihuApi` holds what every call needs (the one HTTP policy, the login cookies,
the hosts) so the adapter, the catalog steps (topics, columns) and the image upload share
one way to reach Zhihu without knowing each other. The names in the docstrings (E2, I1…)
are the spec's. What the bodies contain and what the answers mean is
:mod:`crosspost.channels.zhihu.wire`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import quote

from crosspost.channels.base import RunMemo
from crosspost.channels.http.policy import HttpPolicy, Reply
from crosspost.channels.zhihu.wire import (
    CHANNEL,
    HOSTS,
    Cookies,
    NotFound,
    browser_headers,
    check_created,
    check_oss,
    check_publish,
    check_reply,
    optional_refusal,
)
from crosspost.errors import ConfigError

__all__ = ["Cookies", "ZhihuApi"]


class ZhihuApi:
    """One Zhihu login's way to Zhihu: every method is one call of the web editor."""

    def __init__(
        self,
        *,
        account_key: str,
        http: HttpPolicy,
        z_c0: str | None,
        xsrf: str | None,
        d_c0: str | None = None,
        base_url: str | None = None,
        cookies: Cookies | None = None,
        clock: Callable[[], float],
        sleep: Callable[[float], None],
        memo: RunMemo | None = None,
    ) -> None:
        self.account_key = account_key
        #: The run's reads made once per account: who the login is, what a topic name means.
        self.memo = memo if memo is not None else RunMemo()
        self.http = http
        self._z_c0 = z_c0
        self._xsrf = xsrf
        self._d_c0 = d_c0
        #: Replaces every real host when set (the sandbox serves them all on one address).
        self.base_url = base_url
        #: The variables messages name, and whether a d_c0 cookie goes with the calls.
        self.cookies = cookies or Cookies(d_c0_sent=bool(d_c0))
        self.clock = clock
        self.sleep = sleep

    def __repr__(self) -> str:
        return f"<ZhihuApi {self.account_key}>"

    # --- plumbing -------------------------------------------------------------------------

    def url_for(self, host: str, path: str) -> str:
        """``path`` on one of Zhihu's hosts (``www``, ``zhuanlan``, ``api``, ``oss``)."""
        return (self.base_url or HOSTS[host]).rstrip("/") + path

    def headers(self, referer: str | None = None) -> dict[str, str]:
        """The browser's headers with the login cookie; ConfigError when there is none."""
        if not self._z_c0:
            raise ConfigError(
                f"{self.account_key} has no Zhihu login: set the environment variable "
                f"{self.cookies.login_env} to the z_c0 cookie of zhihu.com"
            )
        if referer:
            return browser_headers(self._z_c0, self._xsrf, referer=referer, d_c0=self._d_c0)
        return browser_headers(self._z_c0, self._xsrf, d_c0=self._d_c0)

    def check(self, reply: Reply, *, irreversible: bool = False) -> Any:
        """The decoded answer, or the typed error naming the variables to fix."""
        return check_reply(reply, irreversible=irreversible, cookies=self.cookies)

    def call(
        self,
        method: str,
        host: str,
        path: str,
        *,
        idempotent: bool = True,
        json: Any = None,
        referer: str | None = None,
        check: Callable[[Reply], Any] | None = None,
    ) -> Any:
        """One call through the HTTP policy (retried only when ``idempotent``)."""
        return self.http.request(
            method,
            self.url_for(host, path),
            idempotent=idempotent,
            check=check or (lambda reply: self.check(reply, irreversible=not idempotent)),
            channel=CHANNEL,
            json=json,
            headers=self.headers(referer),
        )

    # --- the account --------------------------------------------------------------------

    def me(self) -> Any:
        """``GET /api/v4/me``: who the cookie logs in as (asked once per run)."""
        return self.memo.get(
            ("zhihu-me", self.account_key), lambda: self.call("GET", "www", "/api/v4/me")
        )

    # --- drafts and articles ------------------------------------------------------------

    def create_draft(self, body: Mapping[str, Any]) -> Any:
        """E2 (irreversible: one attempt; a lost answer raises AmbiguousOutcome, a refusal
        written as HTTP 200 with a top-level code raises what it says)."""
        return self.call(
            "POST",
            "zhuanlan",
            "/api/articles/drafts",
            json=dict(body),
            idempotent=False,
            check=lambda reply: check_created(
                reply, self.check(reply, irreversible=True), self.cookies
            ),
        )

    def patch_draft(self, draft_id: str, body: Mapping[str, Any], *, referer: str) -> Any:
        """E3: title, content and cover of a draft (or of a published article's draft)."""
        path = f"/api/articles/{quote(draft_id)}/draft"
        return self.call("PATCH", "zhuanlan", path, json=dict(body), referer=referer)

    def read_draft(self, draft_id: str) -> Mapping[str, Any] | None:
        """E4, or None when Zhihu does not know the id (404)."""
        try:
            found = self.call("GET", "zhuanlan", f"/api/articles/{quote(draft_id)}/draft")
        except NotFound:
            return None
        return found if isinstance(found, Mapping) else {}

    def article(self, article_id: str) -> Any:
        """E14: a published article (``updated`` says when it last changed)."""
        return self.call("GET", "www", f"/api/v4/articles/{quote(article_id)}")

    def publish(self, body: Mapping[str, Any], *, referer: str) -> Mapping[str, Any]:
        """E6 (irreversible: one attempt); an answer counts only with ``code == 0``."""
        return self.call(  # type: ignore[no-any-return]
            "POST",
            "www",
            "/api/v4/content/publish",
            idempotent=False,
            json=dict(body),
            referer=referer,
            check=lambda reply: check_publish(
                reply, self.check(reply, irreversible=True), self.cookies
            ),
        )

    # --- topics and columns ---------------------------------------------------------------

    def search_topics(self, name: str) -> Any:
        """E8: topics whose name matches ``name``, best first (asked once per run)."""
        path = (
            f"/api/autocomplete/topics?token={quote(name)}"
            "&max_matches=5&use_similar=0&topic_filter=1"
        )
        key = ("zhihu-topic", self.account_key, name)
        return self.memo.get(key, lambda: self.call("GET", "zhuanlan", path))

    def attach_topic(self, draft_id: str, topic: Mapping[str, Any], *, referer: str) -> None:
        """E9: attach one topic (attaching it twice changes nothing)."""
        path = f"/api/articles/{quote(draft_id)}/topics"
        self.call("POST", "zhuanlan", path, json=dict(topic), referer=referer)

    def columns(self, url_token: str) -> Any:
        """E11: the columns the user ``url_token`` writes for (asked once per run)."""
        path = (
            f"/api/v4/members/{quote(url_token)}/column-contributions"
            "?include=data[*].column.intro,followers,articles_count&offset=0&limit=20"
        )
        key = ("zhihu-columns", self.account_key, url_token)
        return self.memo.get(key, lambda: self.call("GET", "www", path))

    def member_articles(self, url_token: str, offset: int = 0) -> Any:
        """The member's own published articles, one page of 20 (the profile's listing;
        not in the spec's table, so callers treat a refusal as "cannot look")."""
        return self.call(
            "GET", "www", f"/api/v4/members/{quote(url_token)}/articles?offset={offset}&limit=20"
        )

    def add_to_column(self, column_id: str, article_id: str) -> None:
        """E12: file a published article in a column."""
        path = f"/api/v4/columns/{quote(column_id)}/items"
        self.call("POST", "www", path, json={"type": "article", "id": article_id})

    # --- images ---------------------------------------------------------------------------

    def announce_image(self, md5: str) -> Any:
        """I1: announce an image by the MD5 of its bytes."""
        return self.call("POST", "api", "/images", json={"image_hash": md5, "source": "article"})

    def put_image(self, object_key: str, data: bytes, headers: Mapping[str, str]) -> None:
        """I2: one signed PUT of the bytes to the OSS host (no Zhihu cookie goes there)."""
        self.http.request(
            "PUT",
            self.url_for("oss", "/" + quote(object_key)),
            idempotent=True,
            check=check_oss,
            channel=CHANNEL,
            data=data,
            headers=dict(headers),
        )

    def confirm_image(self, image_id: str) -> str | None:
        """I3: tell Zhihu the bytes are on OSS. None when it took the news; what it said
        when it refused with a 4xx (the spec marks I3 optional and unconfirmed: ZO's plain
        uploads skip it), for the caller to warn and go on to I4 (a refusal of the
        account, e.g. the login, still raises)."""

        def check(reply: Reply) -> str | None:
            refused = optional_refusal(reply)
            if refused is None:
                self.check(reply)
            return refused

        path = f"/images/{quote(image_id)}/uploading_status"
        return self.call(  # type: ignore[no-any-return]
            "PUT", "api", path, json={"upload_result": "success"}, check=check
        )

    def image_status(self, image_id: str) -> Any:
        """I4: whether Zhihu has processed the image, and its URL once it has."""
        return self.call("GET", "api", f"/images/{quote(image_id)}")
