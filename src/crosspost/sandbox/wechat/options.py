"""What the WeChat emulator can be told, and its defaults (:data:`DEFAULTS`).

Set them with ``Sandbox(options={"wechat": {...}})``, ``POST /__sandbox__/options`` or
``crosspost sandbox --option wechat.KEY=VALUE``. Where the spec marks a behaviour
unconfirmed (§14) the default is the spec's best guess:

* ``app_id``, ``app_secret``: fixed credentials (random ones are made otherwise).
* ``verified`` (True): False answers 48001 on every ``freepublish/*`` call.
* ``ip_whitelist`` (None = every caller), ``ip_whitelist_scope`` ("token" | "all", §14.9).
* ``token_ttl`` 7200, ``token_grace`` 300 (old /token token after a new one),
  ``stable_renew_before`` 300, ``stable_force_daily`` 20, ``stable_force_spacing`` 30 s
  (a force refresh sooner returns the current token, §14.10), ``stable_force_grace`` 0
  (the old stable token dies at once on force refresh, §14.10).
* ``wrong_secret_errcode`` 40125 (some accounts see 40001).
* ``quotas`` {path: per day, None = unlimited} over :data:`DAILY_QUOTAS`;
  ``minute_quotas`` {path: per minute} over :data:`MINUTE_QUOTAS` (45009 / 45011; days
  start at Beijing midnight, §7).
* ``uploadimg_max_bytes`` 1 MiB (exclusive), ``image_max_bytes`` 10 MB (§14.3),
  ``thumb_max_bytes`` 64 KiB, ``voice_max_bytes`` 2 MB, ``video_max_bytes`` 10 MB.
* ``title_max_chars`` 32, ``title_max_bytes`` 64, ``author_max_chars`` 16,
  ``digest_max_chars`` 128 (§14.1), ``content_max_chars`` 20,000 and
  ``content_max_bytes`` 1 MiB (exclusive), ``source_url_max_bytes`` 1024,
  ``max_articles`` 8 (§14.11), ``auto_digest_chars`` 54.
* ``external_links`` ("unlink" | "keep" | "reject" → 45166, §14.6), ``image_hosts``
  (mmbiz.qpic.cn, mmbiz.qlogo.cn: other ``<img>`` are dropped).
* ``unicode_escapes`` ("accept" | "reject" → 40033, §14.14).
* ``publish_polls`` 2 (``freepublish/get`` answers status 1 that many times),
  ``publish_seconds`` 30 (a job also finishes on its own after that much clock time;
  None = only by polling), ``publish_outcome`` 0 (or 2, 3, 4; 5/6 publish then delete),
  ``publish_id_type`` ("int" | "str", §14.4), ``article_url_style`` ("short" =
  ``https://mp.weixin.qq.com/s/<id>`` | "long" = ``/s?__biz=…``, §14.5).
* ``no_content_drops`` ("html" | "content"): what ``no_content=1`` leaves out of a
  batchget listing (the spec is ambiguous, §5.6).
* ``seed`` (None): a number makes ids and tokens reproducible.
"""

from __future__ import annotations

from typing import Any

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
}
MINUTE_QUOTAS: dict[str, int | None] = {"/cgi-bin/stable_token": 10_000}

DEFAULTS: dict[str, Any] = {
    "app_id": None,
    "app_secret": None,
    "verified": True,
    "ip_whitelist": None,
    "ip_whitelist_scope": "token",
    "token_ttl": 7200,
    "token_grace": 300,
    "stable_renew_before": 300,
    "stable_force_daily": 20,
    "stable_force_spacing": 30,
    "stable_force_grace": 0,
    "wrong_secret_errcode": 40125,
    "quotas": {},
    "minute_quotas": {},
    "uploadimg_max_bytes": 1024 * 1024,
    "image_max_bytes": 10 * 1024 * 1024,
    "thumb_max_bytes": 64 * 1024,
    "voice_max_bytes": 2 * 1024 * 1024,
    "video_max_bytes": 10 * 1024 * 1024,
    "title_max_chars": 32,
    "title_max_bytes": 64,
    "author_max_chars": 16,
    "digest_max_chars": 128,
    "content_max_chars": 20_000,
    "content_max_bytes": 1024 * 1024,
    "source_url_max_bytes": 1024,
    "max_articles": 8,
    "auto_digest_chars": 54,
    "external_links": "unlink",
    "image_hosts": ["mmbiz.qpic.cn", "mmbiz.qlogo.cn"],
    "unicode_escapes": "accept",
    "publish_polls": 2,
    "publish_seconds": 30,
    "publish_outcome": 0,
    "publish_id_type": "int",
    "article_url_style": "short",
    "no_content_drops": "html",
    "seed": None,
}
