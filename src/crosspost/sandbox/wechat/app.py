"""The WeChat Official Account API, emulated (``/cgi-bin/…`` as in specs/wechat-api.md).

One app (AppID + AppSecret) with its tokens, permanent material, in-article images,
draft box, publish jobs and published articles. Every error is what the platform sends:
HTTP 200 with ``{"errcode", "errmsg": "… rid: xxxxxxxx-xxxxxxxx-xxxxxxxx"}``. Images come
back as ``http://mmbiz.qpic.cn/…`` URLs and are served again under
``<base>/mmbiz.qpic.cn/…`` (see :func:`local_image_url`).

Options (``Sandbox(options={"wechat": {...}})``, ``POST /__sandbox__/options`` or
``crosspost sandbox --option wechat.KEY=VALUE``) and their defaults are listed in
:mod:`crosspost.sandbox.wechat.options`.
"""

from __future__ import annotations

import base64
import json
import random
import re
import string
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from werkzeug.wrappers import Request, Response

from crosspost.sandbox.base import Clock, Emulator
from crosspost.sandbox.wechat import content as wechat_content
from crosspost.sandbox.wechat import media as wechat_media
from crosspost.sandbox.wechat import publish as wechat_publish
from crosspost.sandbox.wechat import tokens as wechat_tokens
from crosspost.sandbox.wechat.options import DAILY_QUOTAS, DEFAULTS, MINUTE_QUOTAS
from crosspost.sandbox.wechat.wire import BEIJING, ERRMSG, ApiError, Call, Route

__all__ = ["DAILY_QUOTAS", "DEFAULTS", "MINUTE_QUOTAS", "WeChatEmulator", "local_image_url"]

IMAGE_PREFIX = "/mmbiz.qpic.cn/"
_TOKEN_SHAPE = re.compile(r"^[A-Za-z0-9_-]{64,512}$")


def local_image_url(url: str, wechat_url: str) -> str:
    """Where the sandbox serves an ``http://mmbiz.qpic.cn/…`` image it handed out."""
    parts = urlsplit(url)
    query = f"?{parts.query}" if parts.query else ""
    return f"{wechat_url.rstrip('/')}/{parts.hostname}{parts.path}{query}"


class WeChatEmulator(Emulator):
    """The WeChat Official Account API for one app."""

    name = "wechat"

    def __init__(self, *, clock: Clock = time.time, options: Mapping[str, Any] | None = None):
        super().__init__(clock=clock, options={**DEFAULTS, **(options or {})})
        seed = self.options["seed"]
        self.rng: random.Random = random.Random(seed) if seed is not None else random.SystemRandom()
        hexdigits = "0123456789abcdef"
        self.app_id: str = self.options["app_id"] or "wx" + self.random_text(16, hexdigits)
        self.app_secret: str = self.options["app_secret"] or self.random_text(32, hexdigits)
        #: token value -> {pool, issued_at, expires_at, revoked_at}
        self.tokens: dict[str, dict[str, Any]] = {}
        self.current: dict[str, str | None] = {"token": None, "stable": None}
        self.force_refreshes: list[float] = []
        self.counters: dict[str, int] = {}
        self.quota_clears: dict[str, int] = {}
        #: served image path (under mmbiz.qpic.cn) -> {mime, data, url, kind}
        self.images: dict[str, dict[str, Any]] = {}
        self.materials: dict[str, dict[str, Any]] = {}
        self.drafts: dict[str, dict[str, Any]] = {}
        self.jobs: dict[str, dict[str, Any]] = {}
        self.articles: dict[str, dict[str, Any]] = {}
        self.next_publish_id = 2247483650
        self.routes: dict[str, Route] = {
            **wechat_tokens.ROUTES,
            **wechat_media.ROUTES,
            **wechat_content.ROUTES,
            **wechat_publish.ROUTES,
        }

    # --- helpers the handler modules share -----------------------------------------------

    def random_text(self, length: int, alphabet: str = string.ascii_letters + string.digits) -> str:
        """Random text for ids and tokens (reproducible with the ``seed`` option)."""
        return "".join(self.rng.choice(alphabet) for _ in range(length))

    def rid(self) -> str:
        """A request id in the platform's ``xxxxxxxx-xxxxxxxx-xxxxxxxx`` form."""
        return "-".join(self.random_text(8, "0123456789abcdef") for _ in range(3))

    def opt(self, key: str) -> Any:
        """An option's current value (options may change at run time)."""
        return self.options.get(key, DEFAULTS.get(key))

    def reply(self, body: Mapping[str, Any], *, text_plain: bool = False) -> Response:
        """A success body; uploadimg answers JSON labelled ``text/plain``."""
        mimetype = "text/plain" if text_plain else "application/json; encoding=utf-8"
        return Response(json.dumps(body, ensure_ascii=False), status=200, content_type=mimetype)

    def error(
        self, errcode: int, errmsg: str | None = None, *, text_plain: bool = False
    ) -> Response:
        """HTTP 200 with errcode and errmsg plus the `` rid: …`` suffix."""
        text = errmsg or ERRMSG.get(errcode, "error")
        body = {"errcode": errcode, "errmsg": f"{text} rid: {self.rid()}"}
        return self.reply(body, text_plain=text_plain)

    # --- serving ----------------------------------------------------------------------

    def handle(self, request: Request) -> Response:
        """Route, check method, caller IP, token, account and quota, then answer."""
        now = self.clock()
        wechat_publish.advance_jobs(self, now)
        path = request.path
        if path.startswith(IMAGE_PREFIX):
            return wechat_media.serve_image(self, path[len(IMAGE_PREFIX) :])
        route = self.routes.get(path)
        if route is None:
            body = {"errcode": 404, "errmsg": f"no such api {path} rid: {self.rid()}"}
            return Response(json.dumps(body), status=404, content_type="application/json")
        try:
            if request.method != route.method:
                raise ApiError(43001 if route.method == "GET" else 43002)
            if route.token and self.opt("ip_whitelist_scope") == "all":
                self.check_ip(request)
            token = request.args.get("access_token") if route.token else None
            if route.token:
                self.check_token(token, now)
            if route.verified_only and not self.opt("verified"):
                raise ApiError(48001)
            self.count_call(path, now)
            call = Call(request, path, now, token)
            if self.opt("unicode_escapes") == "reject" and re.search(
                rb"\\u[0-9a-fA-F]{4}", request.get_data()
            ):
                raise ApiError(40033)
            return self.reply(route.handler(self, call), text_plain=route.text_plain)
        except ApiError as error:
            return self.error(error.errcode, error.errmsg, text_plain=route.text_plain)

    def is_mutating(self, method: str, path: str) -> bool:
        """Calls that change state: the targets of ``commit_then_drop``."""
        route = self.routes.get(path)
        return bool(route and route.mutating and method == route.method)

    def fault_response(self, kind: str, request: Request) -> Response | None:
        """``errcode:<n>`` and ``token_expired`` in WeChat's shape; None otherwise."""
        route = self.routes.get(request.path)
        text_plain = bool(route and route.text_plain)
        if kind.startswith("errcode:"):
            try:
                return self.error(int(kind.split(":", 1)[1]), text_plain=text_plain)
            except ValueError:
                return None
        if kind == "token_expired":
            token = self.tokens.get(request.args.get("access_token") or "")
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

    # --- tokens -----------------------------------------------------------------------

    def check_ip(self, request: Request) -> None:
        """40164 naming the caller's IP when a whitelist is set and it is not on it."""
        allowed = self.opt("ip_whitelist")
        ip = request.remote_addr or ""
        if allowed is not None and ip not in allowed:
            raise ApiError(40164, f"invalid ip {ip} ipv6 ::ffff:{ip}, not in whitelist")

    def check_credentials(self, appid: str | None, secret: str | None, grant: str | None) -> None:
        """41002/41004/40002/40013/40125, in that order, for token requests."""
        if not appid:
            raise ApiError(41002)
        if not secret:
            raise ApiError(41004)
        if grant != "client_credential":
            raise ApiError(40002)
        if appid != self.app_id:
            raise ApiError(40013)
        if secret != self.app_secret:
            raise ApiError(int(self.opt("wrong_secret_errcode")))

    def check_token(self, value: str | None, now: float) -> None:
        """41001 missing, 40014 not a token, 42001 expired, 40001 superseded."""
        if not value:
            raise ApiError(41001)
        token = self.tokens.get(value)
        if token is None:
            # Something shaped like a token we never issued (e.g. from before a restart
            # without --state) reads as "not latest"; anything else is not a token at all.
            raise ApiError(40001 if _TOKEN_SHAPE.match(value) else 40014)
        if now >= token["expires_at"]:
            raise ApiError(42001)
        if token["revoked_at"] is not None and now >= token["revoked_at"]:
            raise ApiError(40001)

    def issue_token(self, pool: str, now: float, *, old_grace: float | None) -> dict[str, Any]:
        """A new token for ``pool``; the previous one dies ``old_grace`` seconds from now."""
        previous = self.current[pool]
        if previous and old_grace is not None:
            old = self.tokens[previous]
            if old["revoked_at"] is None:
                old["revoked_at"] = now + old_grace
        value = self.random_text(136, string.ascii_letters + string.digits + "_-")
        ttl = float(self.opt("token_ttl"))
        self.tokens[value] = {
            "pool": pool,
            "issued_at": now,
            "expires_at": now + ttl,
            "revoked_at": None,
        }
        self.current[pool] = value
        self._forget_dead_tokens(now)
        return {"access_token": value, "expires_in": int(ttl)}

    def _forget_dead_tokens(self, now: float) -> None:
        # Keep a day of history so an old token still reads 42001/40001, not 40014.
        dead = [v for v, t in self.tokens.items() if now - t["expires_at"] > 86400]
        for value in dead:
            del self.tokens[value]

    # --- quotas -------------------------------------------------------------------------

    def day(self, now: float) -> int:
        """Quota day number; days start at Beijing midnight."""
        return int((now + BEIJING) // 86400)

    def limits(self, path: str) -> tuple[int | None, int | None]:
        """(per day, per minute) limits of a path; None means unlimited."""
        daily = {**DAILY_QUOTAS, **(self.opt("quotas") or {})}.get(path)
        minute = {**MINUTE_QUOTAS, **(self.opt("minute_quotas") or {})}.get(path)
        return daily, minute

    def count_call(self, path: str, now: float) -> None:
        """Count one call: 45011 past the minute's limit, 45009 past the day's."""
        daily, minute = self.limits(path)
        day_key = f"day:{self.day(now)}:{path}"
        minute_key = f"min:{int(now // 60)}:{path}"
        if minute is not None and self.counters.get(minute_key, 0) >= minute:
            raise ApiError(45011)
        if daily is not None and self.counters.get(day_key, 0) >= daily:
            if path == "/cgi-bin/token":
                raise ApiError(
                    45009,
                    "reach max api daily quota limit, could get access_token by "
                    "getStableAccessToken, more details at https://mmbizurl.cn/s/JtxxFh33r",
                )
            raise ApiError(45009)
        for key in (day_key, minute_key):
            self.counters[key] = self.counters.get(key, 0) + 1
        # Only this minute's and today's counters matter; drop the rest as time moves on.
        keep = (f"min:{int(now // 60)}:", f"day:{self.day(now)}:")
        for key in [k for k in self.counters if not k.startswith(keep)]:
            del self.counters[key]

    # --- introspection and persistence ---------------------------------------------------

    def credentials(self) -> dict[str, str]:
        """AppID and AppSecret that work against this emulator."""
        return {"app_id": self.app_id, "app_secret": self.app_secret}

    def secrets(self) -> list[str]:
        """The AppSecret and every token ever issued: redacted from the request log."""
        return [self.app_secret, *self.tokens]

    def snapshot(self) -> dict[str, Any]:
        """Drafts, jobs, published articles, material and images; no secret, no bytes."""
        return {
            "app_id": self.app_id,
            "drafts": [{"media_id": k, **v} for k, v in self.drafts.items()],
            "jobs": list(self.jobs.values()),
            "published": [{"article_id": k, **v} for k, v in self.articles.items()],
            "materials": [
                {"media_id": k, **{f: v for f, v in m.items() if f != "data"}}
                for k, m in self.materials.items()
            ],
            "images": [
                {"url": i["url"], "kind": i["kind"], "mime": i["mime"], "size": len(i["data"])}
                for i in self.images.values()
            ],
            "tokens_issued": len(self.tokens),
            "counters": {k: v for k, v in self.counters.items() if k.startswith("day:")},
        }

    def dump_state(self) -> dict[str, Any]:
        """Everything, image bytes as base64, for ``state_dir``."""
        return {
            "app_id": self.app_id,
            "app_secret": self.app_secret,
            "tokens": self.tokens,
            "current": self.current,
            "force_refreshes": self.force_refreshes,
            "counters": self.counters,
            "quota_clears": self.quota_clears,
            "images": {
                k: {**v, "data": base64.b64encode(v["data"]).decode()}
                for k, v in self.images.items()
            },
            "materials": self.materials,
            "drafts": self.drafts,
            "jobs": self.jobs,
            "articles": self.articles,
            "next_publish_id": self.next_publish_id,
        }

    def load_state(self, state: Mapping[str, Any]) -> None:
        """Restore what :meth:`dump_state` wrote."""
        self.app_id = state.get("app_id", self.app_id)
        self.app_secret = state.get("app_secret", self.app_secret)
        self.tokens = dict(state.get("tokens", {}))
        self.current = dict(state.get("current", self.current))
        self.force_refreshes = list(state.get("force_refreshes", []))
        self.counters = dict(state.get("counters", {}))
        self.quota_clears = dict(state.get("quota_clears", {}))
        self.images = {
            k: {**v, "data": base64.b64decode(v["data"])}
            for k, v in state.get("images", {}).items()
        }
        self.materials = dict(state.get("materials", {}))
        self.drafts = dict(state.get("drafts", {}))
        self.jobs = dict(state.get("jobs", {}))
        self.articles = dict(state.get("articles", {}))
        self.next_publish_id = int(state.get("next_publish_id", self.next_publish_id))
