"""A local Zhihu (知乎专栏) for tests and rehearsals, faithful to zhihu-api.md §2–§7 and §12.

One WSGI app answers for all four Zhihu hosts on one base URL, because their paths never
collide: ``/api/v4/...`` (www), ``/api/articles/...``, ``/api/autocomplete/...`` and
``/api/uploaded_images`` (zhuanlan), ``/images...`` (api) and ``/v2-<md5>`` (the OSS upload
host's object key; a GET of the same path, with an optional ``_720w``-style suffix, an
extension or a ``/80/`` prefix, serves the bytes the way ``pic1.zhimg.com`` does).

Every call but the OSS PUT and the CDN GET needs the ``z_c0`` cookie: none or an unknown
one answers 401 code 101, one not in the real ``2|1:0|10:<ts>|4:z_c0|…`` layout 401 code
100 ``ERR_PARSE_LOGIN_TICKET``, an expired one 401 code 100 ``ERR_LOGIN_TICKET_EXPIRED``.

Options (``ZhihuEmulator(options={...})``; a nested ``{"zhihu": {...}}`` also works). Each
unconfirmed behaviour of spec §11 has one; the default is the spec's best evidence:

=============================  ===============  ===============================================
option                         default          meaning
=============================  ===============  ===============================================
``xsrf``                       ``"off"``        ``"if_present"``: an ``x-xsrftoken`` header on a
                                                write must equal the ``_xsrf`` cookie (403);
                                                ``"required"``: and it must be there
``require_d_c0``               ``False``        a call without the ``d_c0`` device cookie is
                                                refused as an unusual client (403 code 10003)
``legacy_publish``             ``False``        serve E7 ``PUT /api/articles/{id}/publish``
                                                (its current status is unknown; 404 when off)
``require_topics``             ``False``        E6 refuses (code 1) an article without a topic
``image_polls``                ``1``            I4 polls answering ``processing`` after upload
``require_upload_status``      ``False``        images stay ``processing`` until I3 arrives
``image_done_status``          ``"success"``    or ``"completed"`` (WS2's reading)
``image_host``                 ``pic1.zhimg.``  CDN host in image URLs
``image_max_bytes``            ``None``         OSS refuses bigger bodies (the limit is unknown)
``verify_oss_signature``       ``False``        check the OSS V1 ``Authorization`` signature
``oss_clock_ahead``            ``None``         seconds the OSS host's clock is ahead of the
                                                sandbox's; set, a PUT dated more than 15 min
                                                off is 403 ``RequestTimeTooSkewed`` (Aliyun)
``sanitize``                   ``True``         publish keeps only Zhihu's element set (§7/§12)
                                                and notes each loss as a snapshot ``flags``
``error_envelope``             ``"wrapped"``    ``{"error":{…}}``; ``"top_level"`` as U-COOKIE;
                                                ``"top_level_200"`` that with HTTP 200 (§5)
``publish_result``             ``"string"``     E6 ``data.result`` is a JSON string; ``"object"``
                                                sends it decoded (a changed response, ZO #82);
                                                ``"top_level"``: ``{"publish":{…}}`` alone;
                                                ``"bare"``: ``{}``, published all the same
``patch_response``             ``"draft"``      E3 answers the draft; ``"no_content"``: 204
``blank_create_content``       ``True``         E2 echoes ``content: ""`` (as captured)
``block_zhuanlan_article_read`` ``False``       E14 on zhuanlan answers 403 code 10003
``blocked_user_agents``        ``()``           UA substrings answered 403 code 10001
``ticket_ttl``                 ``None``         seconds a ``z_c0`` lives (``None``: forever)
``anti_bot_status``            ``403``          HTTP status of 40352/40362 answers
``retry_after``                ``None``         ``Retry-After`` seconds on the 429 fault
``title_max``/``body_min``/    100/9/100000     limits of spec §6 (characters of plain text)
``body_max``
``topics``                     ``()``           extra topic names for autocomplete
``columns``                    ``("沙盒专栏",)``  the user's column titles
=============================  ===============  ===============================================

Faults whose shape is Zhihu's (:meth:`ZhihuEmulator.fault_response`): ``http:429``,
``zhihu:40352``, ``zhihu:40362``, ``zhihu:10001``, ``zhihu:10003``, ``zhihu:100``,
``zhihu:101``, ``publish_code[:<n>]`` (on ``/api/v4/content/publish`` only),
``redirect:signin`` and ``redirect:unhuman`` (a 302 to the login page or the anti-bot
check), ``page:signin`` and ``page:unhuman`` (those pages served with HTTP 200 where the
JSON belongs), ``text:gateway`` (a gateway's plain text with HTTP 200) and ``oss:403``.
See docs/sandbox-zhihu.md for the walk-through.
"""

from __future__ import annotations

import functools
import json
import logging
import re
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from werkzeug.exceptions import HTTPException, MethodNotAllowed
from werkzeug.routing import BaseConverter, Map, Rule
from werkzeug.wrappers import Request, Response

from crosspost.sandbox.base import Clock, Emulator
from crosspost.sandbox.zhihu.articles import ArticleDesk, publish_failure
from crosspost.sandbox.zhihu.images import ImageDesk
from crosspost.sandbox.zhihu.wire import (
    OssError,
    ZhihuError,
    ZhihuOptions,
    anti_bot,
    client_rejected,
    json_response,
    new_ticket,
    new_xsrf,
    no_login,
    not_found,
    ticket_expired,
    ticket_issued_at,
    ticket_unparsable,
    too_many_requests,
)

log = logging.getLogger(__name__)

PUBLISH_PATH = "/api/v4/content/publish"
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_PUBLISH_MESSAGES = {1: "内容格式错误", 4000: "发布失败，请稍后再试"}


class _IdConverter(BaseConverter):
    """Article, topic and image ids: decimal strings (19 digits today, fewer in old ones)."""

    regex = r"\d{1,25}"


class _ObjectKeyConverter(BaseConverter):
    regex = r"v2-[0-9a-f]{32}"


class _PictureConverter(BaseConverter):
    regex = r"v2-[0-9a-f]{32}(?:_[0-9a-z]+)?(?:\.[a-z]{3,4})?"


def _rules() -> list[Rule]:
    """(path, methods, endpoint); endpoints starting with ``open_`` need no cookie."""
    table = (
        ("/api/v4/me", ["GET"], "me"),
        ("/api/articles/drafts", ["POST"], "create"),
        ("/api/articles/<id:article_id>/draft", ["GET", "PATCH", "DELETE"], "draft"),
        ("/api/articles/<id:article_id>/publish", ["PUT"], "legacy_publish"),
        ("/api/articles/<id:article_id>/topics", ["POST"], "topic_attach"),
        ("/api/articles/<id:article_id>/topics/<id:topic_id>", ["DELETE"], "topic_detach"),
        ("/api/articles/<id:article_id>", ["GET"], "article_z"),
        ("/api/autocomplete/topics", ["GET"], "topic_search"),
        ("/api/uploaded_images", ["POST"], "image_by_url"),
        (PUBLISH_PATH, ["POST"], "publish"),
        ("/api/v4/articles/<id:article_id>", ["GET", "DELETE"], "article"),
        ("/api/v4/members/<url_token>/column-contributions", ["GET"], "column_list"),
        ("/api/v4/members/<url_token>/articles", ["GET"], "member_articles"),
        ("/api/v4/columns/<column_id>/items", ["POST"], "column_add"),
        ("/images", ["POST"], "image_announce"),
        ("/images/<id:image_id>", ["GET"], "image_poll"),
        ("/images/<id:image_id>/uploading_status", ["PUT"], "image_confirm"),
        ("/<key:object_key>", ["PUT"], "open_oss_put"),
        ("/<pic:name>", ["GET"], "open_cdn"),
        ("/<int:size>/<pic:name>", ["GET"], "open_cdn"),
    )
    return [Rule(path, methods=methods, endpoint=endpoint) for path, methods, endpoint in table]


@functools.cache
def url_map() -> Map:
    """The routes, compiled once per process, when a sandbox starts (or at first use).

    Compiling costs werkzeug a few milliseconds (more under a profiler): a started
    sandbox has it done before its first request, and sharing it spares every test's
    new sandbox the same work. A Map is safe to share: matching binds a new adapter.
    """
    converters = {"id": _IdConverter, "key": _ObjectKeyConverter, "pic": _PictureConverter}
    return Map(_rules(), converters=converters, strict_slashes=False)


class ZhihuEmulator(Emulator):
    """Zhihu's article, topic, column and image APIs with one logged-in user."""

    name = "zhihu"

    def __init__(self, *, clock: Clock = time.time, options: Mapping[str, Any] | None = None):
        super().__init__(clock=clock, options=ZhihuOptions.own(options or {}))
        self.settings = ZhihuOptions.from_mapping(self.options)
        # The server is threaded; one lock keeps every request's read-modify-write whole.
        self._lock = threading.RLock()
        self.user: dict[str, Any] = {
            "id": secrets.token_hex(16),
            "uid": str(10**17 + secrets.randbelow(9 * 10**17)),
            "url_token": "sandbox-editor",
            "name": "沙盒编辑",
            "headline": "crosspost sandbox",
            "type": "people",
            "user_type": "people",
            "avatar_url": "https://pica.zhimg.com/v2-sandbox_xl.jpg",
            "is_realname": True,
        }
        self.ticket = new_ticket(clock())
        #: Every ``z_c0`` that logs in as the member now: the newest (``ticket``, what
        #: :meth:`credentials` hands out) and any earlier one another browser still holds
        #: (:meth:`log_in_again` with ``keep_old``).
        self.logins: list[str] = [self.ticket]
        #: Every ``z_c0`` handed out, ended ones too: secrets for as long as the sandbox runs.
        self.issued: list[str] = [self.ticket]
        self.xsrf = new_xsrf()
        #: The browser's device cookie (any value is accepted; only its absence is odd).
        self.d_c0 = new_xsrf()
        self.expired: set[str] = set()
        self.articles = ArticleDesk(self.settings, clock, self._author())
        self.images = ImageDesk(self.settings, clock)
        self._handlers: dict[str, Callable[..., Response]] = {
            "me": self._me,
            "create": self.articles.create,
            "draft": self.articles.draft,
            "legacy_publish": self.articles.legacy_publish,
            "topic_attach": self.articles.topic_attach,
            "topic_detach": self.articles.topic_detach,
            "article_z": lambda request, article_id: self.articles.article(
                request, article_id, zhuanlan=True
            ),
            "article": self.articles.article,
            "topic_search": self.articles.topic_search,
            "publish": self.articles.publish,
            "column_list": self.articles.column_list,
            "member_articles": self.articles.member_articles,
            "column_add": self.articles.column_add,
            "image_by_url": self.images.by_url,
            "image_announce": self.images.announce,
            "image_poll": self.images.poll,
            "image_confirm": self.images.confirm,
            "open_oss_put": self.images.oss_put,
            "open_cdn": self.images.serve,
        }

    def update_options(self, values: Mapping[str, Any]) -> None:
        """Change switches at run time; a bad value changes nothing (UsageError)."""
        with self._lock:
            merged = {**self.options, **ZhihuOptions.own(values)}
            self.settings = ZhihuOptions.from_mapping(merged)
            self.options = merged
            self.articles.configure(self.settings)
            self.images.options = self.settings

    def _author(self) -> dict[str, Any]:
        keys = ("id", "url_token", "name", "headline", "type", "user_type", "avatar_url")
        return {key: self.user[key] for key in keys}

    # --- serving -------------------------------------------------------------------------

    def warm(self) -> None:
        """The route table, compiled before the first request (see :func:`url_map`)."""
        url_map()

    def handle(self, request: Request) -> Response:
        with self._lock:
            try:
                endpoint, args = url_map().bind_to_environ(request.environ).match()
                if not endpoint.startswith("open_"):
                    self._admit(request)
                return self._handlers[endpoint](request, **args)
            except ZhihuError as refusal:
                return self._error(refusal)
            except OssError as refusal:
                return refusal.response()
            except MethodNotAllowed:
                return self._error(ZhihuError(405, 405, "请求方法不被允许", "MethodNotAllowed"))
            except HTTPException as exc:
                if exc.code == 404:
                    return self._error(not_found())
                message = exc.description or "请求错误"
                return self._error(ZhihuError(exc.code or 400, exc.code or 400, message))
            except Exception:  # the WSGI boundary: a bug must still answer in Zhihu's shape
                log.exception("zhihu emulator failed on %s %s", request.method, request.path)
                return self._error(ZhihuError(500, 500, "服务器开小差了，请稍后再试"))

    def _admit(self, request: Request) -> None:
        """Client checks, then the ``z_c0`` login ticket, then the optional XSRF pairing."""
        agent = request.headers.get("User-Agent", "")
        if any(blocked in agent for blocked in self.settings.blocked_user_agents):
            raise client_rejected(10001)
        ticket = request.cookies.get("z_c0", "").strip('"')
        if not ticket:
            raise no_login()
        if self.settings.require_d_c0 and not request.cookies.get("d_c0"):
            raise client_rejected(10003)
        issued = ticket_issued_at(ticket)
        if issued is None:
            raise ticket_unparsable()
        ttl = self.settings.ticket_ttl
        if ticket in self.expired or (ttl is not None and self.clock() - issued > ttl):
            raise ticket_expired()
        if ticket not in self.logins:
            raise no_login()
        if request.method in _SAFE_METHODS or self.settings.xsrf == "off":
            return
        header = request.headers.get("x-xsrftoken")
        if header is None and self.settings.xsrf == "if_present":
            return
        if header is None or header != request.cookies.get("_xsrf"):
            raise ZhihuError(403, 403, "XSRF 校验失败：x-xsrftoken 须与 _xsrf cookie 一致")

    def _error(self, refusal: ZhihuError) -> Response:
        headers = {}
        if refusal.status == 429 and self.settings.retry_after is not None:
            headers["Retry-After"] = str(self.settings.retry_after)
        body = refusal.body(self.settings.error_envelope)
        return json_response(body, refusal.status_for(self.settings.error_envelope), headers)

    def _me(self, request: Request) -> Response:
        published = [d for d in self.articles.drafts.values() if d.article is not None]
        counts = {"articles_count": len(published), "columns_count": len(self.articles.columns)}
        return json_response({**self.user, **counts})

    def is_mutating(self, method: str, path: str) -> bool:
        """Every write the emulator routes: drafts, publish, topics, columns, image uploads."""
        if method.upper() in _SAFE_METHODS:
            return False
        try:
            url_map().bind("sandbox").match(path.split("?", 1)[0], method.upper())
        except HTTPException:
            return False
        return True

    def fault_response(self, kind: str, request: Request) -> Response | None:
        """Zhihu-shaped answers for Zhihu fault kinds; None for other platforms' kinds."""
        if kind == "http:429":
            return self._error(too_many_requests())
        if kind == "oss:403":
            message = "The request signature we calculated does not match the signature."
            return OssError(403, "SignatureDoesNotMatch", message).response()
        name, _, value = kind.partition(":")
        if name == "redirect":  # a request Zhihu will not serve: its login or its check
            target = {"signin": "/signin", "unhuman": "/account/unhuman"}.get(value, "/")
            return Response(status=302, headers={"Location": f"https://www.zhihu.com{target}"})
        if name == "page":  # Zhihu's own web page where its JSON belongs, with HTTP 200
            title = {"signin": "知乎 - 有问题，就会有答案", "unhuman": "安全验证 - 知乎"}.get(value)
            if title is None:
                return None
            body = f"<!DOCTYPE html><html><head><title>{title}</title></head><body>"
            body += f'<div id="root" data-page="{value}"></div></body></html>'
            return Response(body, status=200, mimetype="text/html")
        if name == "text" and value == "gateway":  # a gateway's words, HTTP 200, no JSON
            text = "upstream connect error or disconnect/reset before headers"
            return Response(text, status=200, mimetype="text/plain")
        if name == "publish_code":
            if request.path != PUBLISH_PATH:
                return None
            code = int(value) if value.lstrip("-").isdigit() else 4000
            return publish_failure(code, _PUBLISH_MESSAGES.get(code, "发布失败"))
        if name != "zhihu" or not value.isdigit():
            return None
        code = int(value)
        refusal = {
            40352: lambda: anti_bot(40352, self.settings.anti_bot_status),
            40362: lambda: anti_bot(40362, self.settings.anti_bot_status),
            10001: lambda: client_rejected(10001),
            10003: lambda: client_rejected(10003),
            100: ticket_expired,
            101: no_login,
        }.get(code)
        return self._error(refusal()) if refusal else None

    def errcode_of(self, response_body: bytes) -> int | str | None:
        """``error.code`` of a refusal, ``code`` of an E6 envelope, ``<Code>`` of OSS XML."""
        try:
            body = json.loads(response_body)
        except ValueError:
            match = re.search(rb"<Code>([^<]+)</Code>", response_body)
            return match.group(1).decode() if match else None
        if not isinstance(body, dict):
            return None
        error = body.get("error")
        code = error.get("code") if isinstance(error, dict) else body.get("code")
        return code if isinstance(code, int | str) and not isinstance(code, bool) else None

    # --- what tests, demos and the CLI see -----------------------------------------------

    def credentials(self) -> dict[str, str]:
        """The ``z_c0`` cookie, ``xsrf`` (the ``_xsrf`` cookie / ``x-xsrftoken`` value) and
        the ``d_c0`` device cookie."""
        return {"z_c0": self.ticket, "xsrf": self.xsrf, "d_c0": self.d_c0}

    def expire_ticket(self) -> str:
        """Expire the current ``z_c0`` (answers 401 code 100 from now on); return a new one."""
        with self._lock:
            self.expired.add(self.ticket)
            self.logins.remove(self.ticket)
            return self.log_in_again(keep_old=True)

    def log_in_again(self, *, keep_old: bool = False) -> str:
        """The same member logs in once more: a new ``z_c0`` (returned, and handed out by
        :meth:`credentials` from now on). ``keep_old``: every earlier login still works, as
        a second browser's does; else they end as a logout ends them (401 code 101)."""
        with self._lock:
            ticket = new_ticket(self.clock())
            while ticket in self.logins or ticket in self.expired:
                ticket = new_ticket(self.clock())
            self.logins = [*self.logins, ticket] if keep_old else [ticket]
            self.issued.append(ticket)
            self.ticket = ticket
            return ticket

    def control(self, method: str, what: str, body: Any) -> dict[str, Any] | None:
        """``POST /__sandbox__/zhihu/login {"keep_old": true|false}``: the member logs in
        again (:meth:`log_in_again`); the answer is the new ``{"z_c0": …}``."""
        if method != "POST" or what != "zhihu/login":
            return None
        keep = body.get("keep_old", False) if isinstance(body, dict) else False
        if not isinstance(keep, bool):
            raise ValueError("keep_old must be true or false")
        return {"z_c0": self.log_in_again(keep_old=keep)}

    def secrets(self) -> list[str]:
        tickets = dict.fromkeys([self.ticket, *self.logins, *self.issued, *sorted(self.expired)])
        return [*tickets, self.xsrf, self.d_c0, *self.images.secrets()]

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return {
                "user": self._author(),
                **self.articles.snapshot(),
                "images": self.images.snapshot(),
            }

    def dump_state(self) -> dict[str, Any]:
        with self._lock:
            return {
                "user": dict(self.user),
                "ticket": self.ticket,
                "logins": list(self.logins),
                "issued": list(self.issued),
                "xsrf": self.xsrf,
                "d_c0": self.d_c0,
                "expired": sorted(self.expired),
                **self.articles.dump(),
                **self.images.dump(),
            }

    def load_state(self, state: Mapping[str, Any]) -> None:
        with self._lock:
            self.user = dict(state.get("user", self.user))
            self.ticket = str(state.get("ticket", self.ticket))
            logins = [str(t) for t in state.get("logins", ())]
            self.logins = logins if self.ticket in logins else [*logins, self.ticket]
            self.issued = list(dict.fromkeys([*map(str, state.get("issued", ())), *self.logins]))
            self.xsrf = str(state.get("xsrf", self.xsrf))
            self.d_c0 = str(state.get("d_c0", self.d_c0))
            self.expired = set(state.get("expired", ()))
            self.articles.author = self._author()
            self.articles.load(state)
            self.images.load(state)
