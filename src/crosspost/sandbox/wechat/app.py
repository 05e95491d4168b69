"""The WeChat Official Account API, emulated (``/cgi-bin/…`` as in specs/wechat-api.md).

One app (AppID + AppSecret) with its tokens, permanent material, in-article images,
draft box, publish jobs and published articles. Every error is what the platform sends:
HTTP 200 with ``{"errcode", "errmsg": "… rid: xxxxxxxx-xxxxxxxx-xxxxxxxx"}``. Images come
back as ``http://mmbiz.qpic.cn/…`` URLs and are served again under
``<base>/mmbiz.qpic.cn/…`` (see :func:`local_image_url`).

:data:`ROUTES` is the whole API in one table: each path, its method, the endpoint
function and what is checked before it runs. The state those functions work on, and the
options with their defaults, are in :mod:`crosspost.sandbox.wechat.state`.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from werkzeug.wrappers import Request, Response

from crosspost.sandbox.base import Clock, Emulator
from crosspost.sandbox.wechat import content, mass, media, publish, tokens
from crosspost.sandbox.wechat.kinds import family_of, kind_named
from crosspost.sandbox.wechat.state import DEFAULTS, WeChatAccount
from crosspost.sandbox.wechat.wire import ERRMSG, ApiError, Call

__all__ = ["ROUTES", "Route", "WeChatEmulator", "local_image_url"]

IMAGE_PREFIX = "/mmbiz.qpic.cn/"

Handler = Callable[[WeChatAccount, Call], dict[str, Any]]


@dataclass(frozen=True)
class Route:
    """One endpoint: its method, handler, and what is checked before it runs (which
    account kinds may call it follows from its path: :func:`~.kinds.family_of`)."""

    method: str
    handler: Handler
    token: bool = True
    mutating: bool = False
    text_plain: bool = False


ROUTES: dict[str, Route] = {
    # tokens and quotas (spec §2, §7)
    "/cgi-bin/token": Route("GET", tokens.token, token=False),
    "/cgi-bin/stable_token": Route("POST", tokens.stable_token, token=False),
    "/cgi-bin/clear_quota": Route("POST", tokens.clear_quota, mutating=True),
    "/cgi-bin/openapi/quota/get": Route("POST", tokens.quota_get),
    # images and permanent material (§3, §4); uploadimg answers JSON labelled text/plain
    "/cgi-bin/media/uploadimg": Route("POST", media.upload_image, mutating=True, text_plain=True),
    "/cgi-bin/material/add_material": Route("POST", media.add_material, mutating=True),
    "/cgi-bin/material/del_material": Route("POST", media.del_material, mutating=True),
    "/cgi-bin/material/get_materialcount": Route("GET", media.material_count),
    # the draft box (§5)
    "/cgi-bin/draft/add": Route("POST", content.draft_add, mutating=True),
    "/cgi-bin/draft/get": Route("POST", content.draft_get),
    "/cgi-bin/draft/update": Route("POST", content.draft_update, mutating=True),
    "/cgi-bin/draft/delete": Route("POST", content.draft_delete, mutating=True),
    "/cgi-bin/draft/count": Route("GET", content.draft_count),
    "/cgi-bin/draft/batchget": Route("POST", content.draft_batchget),
    # publishing (§6): only for verified accounts
    "/cgi-bin/freepublish/submit": Route("POST", publish.submit, mutating=True),
    "/cgi-bin/freepublish/get": Route("POST", publish.get_status),
    "/cgi-bin/freepublish/getarticle": Route("POST", publish.get_article),
    "/cgi-bin/freepublish/batchget": Route("POST", publish.batchget),
    "/cgi-bin/freepublish/delete": Route("POST", publish.delete, mutating=True),
    # mass send (群发) and previews: only for verified accounts
    "/cgi-bin/message/mass/sendall": Route("POST", mass.sendall, mutating=True),
    "/cgi-bin/message/mass/get": Route("POST", mass.get_status),
    "/cgi-bin/message/mass/preview": Route("POST", mass.preview, mutating=True),
    "/cgi-bin/message/mass/delete": Route("POST", mass.delete, mutating=True),
}


def local_image_url(url: str, wechat_url: str) -> str:
    """Where the sandbox serves an ``http://mmbiz.qpic.cn/…`` image it handed out."""
    parts = urlsplit(url)
    query = f"?{parts.query}" if parts.query else ""
    return f"{wechat_url.rstrip('/')}/{parts.hostname}{parts.path}{query}"


class WeChatEmulator(Emulator):
    """The WeChat Official Account API for one app: routing, checks, answers."""

    name = "wechat"

    def __init__(self, *, clock: Clock = time.time, options: Mapping[str, Any] | None = None):
        super().__init__(clock=clock, options={**DEFAULTS, **(options or {})})
        kind_named(self.options["account_kind"])  # a misspelt kind fails here, in one line
        # The account reads this same dict, so options changed at run time apply at once.
        self.account = WeChatAccount(self.options, apis=ROUTES)

    def update_options(self, values: Mapping[str, Any]) -> None:
        """Change options at run time; an unknown account kind changes nothing."""
        if "account_kind" in values:
            kind_named(values["account_kind"])
        super().update_options(values)

    def reply(self, body: Mapping[str, Any], *, text_plain: bool = False) -> Response:
        """A success body; uploadimg answers JSON labelled ``text/plain``."""
        mimetype = "text/plain" if text_plain else "application/json; encoding=utf-8"
        return Response(json.dumps(body, ensure_ascii=False), status=200, content_type=mimetype)

    def error(
        self,
        errcode: int,
        errmsg: str | None = None,
        *,
        text_plain: bool = False,
        extra: Mapping[str, Any] | None = None,
    ) -> Response:
        """HTTP 200 with errcode and errmsg plus the `` rid: …`` suffix (and ``extra``)."""
        text = errmsg or ERRMSG.get(errcode, "error")
        body = {"errcode": errcode, "errmsg": f"{text} rid: {self.account.rid()}", **(extra or {})}
        return self.reply(body, text_plain=text_plain)

    # --- serving ----------------------------------------------------------------------

    def warm(self) -> None:
        """The quick look draft/add takes at an article's HTML (lxml), loaded and run
        once before the first request, which would otherwise carry the import."""
        content.sanitise(self.account, "<p>warm</p>")

    def handle(self, request: Request) -> Response:
        """Route, check method, caller IP, token, account and quota, then answer."""
        account = self.account
        now = self.clock()
        publish.advance_jobs(account, now)
        mass.advance_sends(account, now)
        path = request.path
        if path.startswith(IMAGE_PREFIX):
            return media.serve_image(account, path[len(IMAGE_PREFIX) :])
        route = ROUTES.get(path)
        if route is None:
            body = {"errcode": 404, "errmsg": f"no such api {path} rid: {account.rid()}"}
            return Response(json.dumps(body), status=404, content_type="application/json")
        try:
            if request.method != route.method:
                raise ApiError(43001 if route.method == "GET" else 43002)
            if route.token and account.opt("ip_whitelist_scope") == "all":
                account.check_ip(request)
            token = request.args.get("access_token") if route.token else None
            if route.token:
                account.check_token(token, now)
            family = family_of(path)
            if family is not None and not account.may_call(family):
                raise ApiError(48001)
            account.count_call(path, now)
            call = Call(request, path, now, token)
            if account.opt("unicode_escapes") == "reject" and re.search(
                rb"\\u[0-9a-fA-F]{4}", request.get_data()
            ):
                raise ApiError(40033)
            return self.reply(route.handler(account, call), text_plain=route.text_plain)
        except ApiError as error:
            return self.error(
                error.errcode, error.errmsg, text_plain=route.text_plain, extra=error.extra
            )

    def is_mutating(self, method: str, path: str) -> bool:
        """Calls that change state: the targets of ``commit_then_drop``."""
        route = ROUTES.get(path)
        return bool(route and route.mutating and method == route.method)

    def fault_response(self, kind: str, request: Request) -> Response | None:
        """``errcode:<n>`` and ``token_expired`` in WeChat's shape; None otherwise."""
        route = ROUTES.get(request.path)
        text_plain = bool(route and route.text_plain)
        if kind.startswith("errcode:"):
            try:
                return self.error(int(kind.split(":", 1)[1]), text_plain=text_plain)
            except ValueError:
                return None
        if kind == "token_expired":
            token = self.account.tokens.get(request.args.get("access_token") or "")
            if token is not None:
                token["expires_at"] = min(token["expires_at"], self.clock())
            return self.error(42001, text_plain=text_plain)
        return None

    def errcode_of(self, response_body: bytes) -> int | str | None:
        """The ``errcode`` of a JSON reply (None when it has none)."""
        try:
            data = json.loads(response_body)
        except ValueError:
            return None
        code = data.get("errcode") if isinstance(data, dict) else None
        return code if isinstance(code, int | str) else None

    # --- introspection and persistence: the account's ----------------------------------

    def credentials(self) -> dict[str, str]:
        """AppID and AppSecret that work against this emulator."""
        return self.account.credentials()

    def secrets(self) -> list[str]:
        """The AppSecret and every token ever issued: redacted from the request log."""
        return self.account.secrets()

    def snapshot(self) -> dict[str, Any]:
        """Drafts, jobs, published articles, mass sends, pushes per follower, previews,
        material and images; no secret, no bytes."""
        mass.advance_sends(self.account, self.clock())
        return {**self.account.snapshot(), "pushes": mass.pushes(self.account)}

    # --- mass send, for tests: what followers and reviewers received ---------------------

    def pushes(self) -> dict[str, list[int]]:
        """``{openid: [msg_data_id, …]}``: each follower's mass-send pushes so far."""
        mass.advance_sends(self.account, self.clock())
        return mass.pushes(self.account)

    def previews(self) -> dict[str, list[str]]:
        """``{wxname or openid: [draft media_id, …]}``: each reviewer's previews."""
        return mass.previews(self.account)

    def confirm_mass(self, msg_id: int, confirm: bool = True) -> dict[str, Any]:
        """An administrator confirms (or refuses) a send held by 群发保护."""
        mass.advance_sends(self.account, self.clock())
        return mass.confirm(self.account, msg_id, confirmed=confirm)

    def by_hand(self, media_id: str, action: str = "publish") -> dict[str, Any]:
        """What an editor does in the web console with a draft: ``"publish"`` (发表) or
        ``"send"`` (群发). Any kind of account may; the draft leaves the box."""
        now = self.clock()
        mass.advance_sends(self.account, now)
        if action == "publish":
            return publish.publish_by_hand(self.account, media_id, now)
        if action == "send":
            return mass.send_by_hand(self.account, media_id, now)
        raise ValueError(f"action {action!r} is not publish or send")

    def control(self, method: str, what: str, body: Any) -> dict[str, Any] | None:
        """``POST /__sandbox__/wechat/mass/confirm {"msg_id": N, "confirm": true|false}``
        and ``POST /__sandbox__/wechat/by_hand {"media_id": …, "action": "publish"|"send"}``."""
        if method != "POST" or not isinstance(body, dict):
            return None
        if what == "wechat/mass/confirm":
            try:
                msg_id = int(body["msg_id"])
            except (KeyError, TypeError, ValueError):
                raise ValueError("the body needs msg_id, a number") from None
            return self.confirm_mass(msg_id, confirm=body.get("confirm", True) is not False)
        if what == "wechat/by_hand":
            return self.by_hand(str(body.get("media_id", "")), str(body.get("action", "publish")))
        return None

    def dump_state(self) -> dict[str, Any]:
        """Everything, image bytes as base64, for ``state_dir``."""
        return self.account.dump_state()

    def load_state(self, state: Mapping[str, Any]) -> None:
        """Restore what :meth:`dump_state` wrote."""
        self.account.load_state(state)
