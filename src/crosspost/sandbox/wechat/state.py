"""One emulated WeChat app: its options, its state, and the rules every endpoint shares.

The endpoint modules (:mod:`~crosspost.sandbox.wechat.tokens`, ``media``, ``content``,
``publish``) are functions of a :class:`WeChatAccount` and a call; the emulator in
:mod:`~crosspost.sandbox.wechat.app` routes requests to them and owns nothing else.
Keeping the state here, below both, is what lets the endpoints use it without importing
the emulator that imports them.

Options are set with ``Sandbox(options={"wechat": {...}})``, ``POST /__sandbox__/options``
or ``crosspost sandbox --option wechat.KEY=VALUE``; :data:`OPTIONS` declares each one
with its default. Where the spec marks a behaviour unconfirmed (§14) the default is its
best guess, and docs/sandbox.md says which.
"""

from __future__ import annotations

import base64
import random
import re
import string
import time
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from werkzeug.wrappers import Request

from crosspost.sandbox.wechat.kinds import kind_named
from crosspost.sandbox.wechat.wire import BEIJING, ApiError

#: Calls per Beijing day (45009 past them), spec §7.
DAILY_QUOTAS: dict[str, int | None] = {
    "/cgi-bin/token": 2000,
    "/cgi-bin/stable_token": 500_000,
    "/cgi-bin/draft/add": 1000,
    "/cgi-bin/draft/update": 1000,
    "/cgi-bin/draft/delete": 1000,
    "/cgi-bin/draft/count": 1000,
    "/cgi-bin/draft/batchget": 1000,
    "/cgi-bin/draft/get": 500,
    "/cgi-bin/freepublish/submit": 100,
    "/cgi-bin/freepublish/get": 100,
    "/cgi-bin/freepublish/getarticle": 100,
    "/cgi-bin/freepublish/batchget": 100,
    "/cgi-bin/freepublish/delete": 10,
    # Calls, not sends: the mass-send quota itself is the account kind's (mass.py).
    "/cgi-bin/message/mass/sendall": 100,
    "/cgi-bin/message/mass/preview": 100,
}
#: Calls per minute (45011 past them).
MINUTE_QUOTAS: dict[str, int | None] = {
    "/cgi-bin/stable_token": 10_000,
    "/cgi-bin/message/mass/sendall": 60,
}


@dataclass(frozen=True)
class Option:
    """One thing the emulator can be told: its default and what it changes."""

    default: Any
    meaning: str


_MiB = 1024 * 1024

OPTIONS: dict[str, Option] = {
    "app_id": Option(None, "fixed AppID (a random one otherwise)"),
    "app_secret": Option(None, "fixed AppSecret (a random one otherwise)"),
    "verified": Option(True, "False: a verified kind reads as unverified"),
    "account_kind": Option(
        "verified_subscription",
        "verified_subscription, verified_service, unverified, personal or lapsed (kinds.py)",
    ),
    "followers": Option(3, "followers fan-0 … fan-<n-1> a mass send reaches"),
    "tags": Option({"2": [0, 1]}, "tag_id -> follower indexes, for a mass send's filter"),
    "mass_protect": Option(False, "群发保护: a send waits for confirm_mass (or fails)"),
    "mass_protect_seconds": Option(1800, "an unconfirmed protected send fails after this"),
    "mass_finish_seconds": Option(1, "SENDING -> SEND_SUCCESS after this much clock time"),
    "mass_quota_errcode": Option(45028, "answer past the kind's mass quota (unconfirmed)"),
    "quota_denied_errcode": Option(48001, "quota/get for a path the kind may not call (76022?)"),
    "ip_whitelist": Option(None, "caller IPs allowed (None: every caller); others get 40164"),
    "ip_whitelist_scope": Option("token", '"all": the whitelist guards every call (§14.9)'),
    "token_ttl": Option(7200, "seconds a token lives"),
    "token_grace": Option(300, "seconds a /token token lives on after a newer one"),
    "stable_renew_before": Option(300, "stable_token renews this close to expiry"),
    "stable_force_daily": Option(20, "force refreshes a day, then 45009"),
    "stable_force_spacing": Option(30, "a force refresh sooner returns the current token"),
    "stable_force_grace": Option(0, "seconds the old stable token survives a force refresh"),
    "wrong_secret_errcode": Option(40125, "answer to a wrong AppSecret (some accounts: 40001)"),
    "quotas": Option({}, "{path: per day, None = unlimited} over DAILY_QUOTAS"),
    "minute_quotas": Option({}, "{path: per minute} over MINUTE_QUOTAS"),
    "uploadimg_max_bytes": Option(_MiB, "uploadimg refuses this size and above (40009)"),
    "image_max_bytes": Option(10 * _MiB, "image material limit (40009, §14.3)"),
    "thumb_max_bytes": Option(64 * 1024, "thumb material limit (40012)"),
    "voice_max_bytes": Option(2 * _MiB, "voice material limit (40006)"),
    "video_max_bytes": Option(10 * _MiB, "video material limit (40006)"),
    "title_max_chars": Option(32, "45003 above it"),
    "title_max_bytes": Option(64, "45003 above it"),
    "author_max_chars": Option(16, "45110 above it"),
    "digest_max_chars": Option(128, "45004 above it (§14.1)"),
    "content_max_chars": Option(20_000, "45002 at or above it"),
    "content_max_bytes": Option(_MiB, "45002 at or above it"),
    "source_url_max_bytes": Option(1024, "45005 above it"),
    "max_articles": Option(8, "articles in one draft, 45008 above it (§14.11)"),
    "auto_digest_chars": Option(54, "an empty digest is this much of the text"),
    "external_links": Option("unlink", 'outside links: "unlink", "keep" or "reject" (45166)'),
    "image_hosts": Option(["mmbiz.qpic.cn", "mmbiz.qlogo.cn"], "other <img> are dropped"),
    "unicode_escapes": Option("accept", '"reject": \\uXXXX in a body answers 40033 (§14.14)'),
    "publish_polls": Option(2, "freepublish/get answers status 1 this many times"),
    "publish_seconds": Option(30, "a job also finishes after this long (None: polls only)"),
    "publish_outcome": Option(0, "0 publishes; 2, 3, 4 fail; 5, 6 publish then delete"),
    "publish_id_type": Option("int", '"str": publish_id travels as a string (§14.4)'),
    "replay_id_key": Option(
        "msg_id", "45065 names the first send's id so; \"msgid\" as WeChat's page spells it"
    ),
    "article_url_style": Option("short", '"long": /s?__biz=… article URLs (§14.5)'),
    "article_detail": Option(
        "all", 'freepublish/get lists "all" articles, the "lead" only, or "none" (多图文)'
    ),
    "article_detail_shape": Option(
        "list",
        'article_detail.item as the doc shows ("list"), as one object ("object", as the '
        'completion event nests it) or in a shape WeChat does not document ("odd")',
    ),
    "listed_urls": Option(
        "temporary", '"permanent": the published list and getarticle give lasting links'
    ),
    "no_content_drops": Option("html", 'what batchget no_content=1 leaves out: or "content"'),
    "seed": Option(None, "a number makes ids and tokens reproducible"),
}
DEFAULTS: dict[str, Any] = {name: option.default for name, option in OPTIONS.items()}

_TOKEN_SHAPE = re.compile(r"^[A-Za-z0-9_-]{64,512}$")
_HEX = "0123456789abcdef"


class WeChatAccount:
    """The app's credentials, tokens, quotas, images, material, drafts, jobs, articles.

    ``options`` is the emulator's live mapping (changed at run time by the control
    endpoint), read through :meth:`opt`; ``apis`` are the paths the emulator serves,
    which ``openapi/quota/get`` answers for.
    """

    def __init__(self, options: dict[str, Any], *, apis: Collection[str]) -> None:
        self.options = options
        self.apis = frozenset(apis)
        seed = self.opt("seed")
        # Without a seed, one seeded from the system's randomness (``Random(None)``), not
        # ``SystemRandom``: that read the system's source once per character (54 reads for
        # an image's URL), half of what the emulator spent on an upload. Nothing here is a
        # real secret: a sandbox's ids and tokens need only not repeat.
        self.rng = random.Random(seed)
        self.app_id: str = self.opt("app_id") or "wx" + self.random_text(16, _HEX)
        self.app_secret: str = self.opt("app_secret") or self.random_text(32, _HEX)
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
        #: msg_id -> one mass send (mass.py); clientmsgid -> the send it first named
        self.mass_sends: dict[str, dict[str, Any]] = {}
        self.clientmsgids: dict[str, dict[str, Any]] = {}
        self.previews: list[dict[str, Any]] = []
        self.next_msg_id = 1000000001
        self.next_msg_data_id = 2650000001

    # --- helpers every endpoint shares ---------------------------------------------------

    def random_text(self, length: int, alphabet: str = string.ascii_letters + string.digits) -> str:
        """Random text for ids and tokens (reproducible with the ``seed`` option)."""
        return "".join(self.rng.choice(alphabet) for _ in range(length))

    def rid(self) -> str:
        """A request id in the platform's ``xxxxxxxx-xxxxxxxx-xxxxxxxx`` form."""
        return "-".join(self.random_text(8, _HEX) for _ in range(3))

    def opt(self, key: str) -> Any:
        """An option's current value (options may change at run time)."""
        return self.options.get(key, DEFAULTS.get(key))

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

    # --- account kind -----------------------------------------------------------------

    def may_call(self, family: str) -> bool:
        """Whether this account's kind may call an API family (kinds.py)."""
        return (
            family in kind_named(self.opt("account_kind"), verified=self.opt("verified")).families
        )

    # --- quotas -------------------------------------------------------------------------

    def day(self, now: float) -> int:
        """Quota day number; days start at Beijing midnight."""
        return int((now + BEIJING) // 86400)

    def month(self, now: float) -> str:
        """Quota month (``2026-11``), in Beijing time like the days."""
        return time.strftime("%Y-%m", time.gmtime(now + BEIJING))

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
            "mass_sends": list(self.mass_sends.values()),
            "previews": list(self.previews),
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
            "mass_sends": self.mass_sends,
            "clientmsgids": self.clientmsgids,
            "previews": self.previews,
            "next_msg_id": self.next_msg_id,
            "next_msg_data_id": self.next_msg_data_id,
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
        self.mass_sends = dict(state.get("mass_sends", {}))
        self.clientmsgids = dict(state.get("clientmsgids", {}))
        self.previews = list(state.get("previews", []))
        self.next_msg_id = int(state.get("next_msg_id", self.next_msg_id))
        self.next_msg_data_id = int(state.get("next_msg_data_id", self.next_msg_data_id))
