"""Zhihu image upload (zhihu-api.md §3 I1–I4): announce by MD5, put the bytes on Aliyun
OSS with the short-lived STS token Zhihu hands out, confirm, then poll until processed.

Every step is idempotent — Zhihu keys the image by the MD5 of its bytes and the OSS
object by ``v2-<md5>`` — so the HTTP policy may retry each one. Across runs the
:class:`~crosspost.ledger.assets.AssetStore` (the ledger) keeps us from even asking.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Final
from urllib.parse import urlsplit

from crosspost.channels.zhihu.api import ZhihuApi
from crosspost.channels.zhihu.wire import CHANNEL, ClockSkewed, browser_headers, oss_headers
from crosspost.errors import PermanentError, TransientError
from crosspost.images.codec import GIF
from crosspost.images.pipeline import PreparedImage
from crosspost.ledger.assets import UploadedAsset

log = logging.getLogger("crosspost.channels.zhihu.images")

#: I1 ``upload_file.state``: 1 = Zhihu already has these bytes, 2 = send them.
STATE_KNOWN: Final = 1
STATE_NEW: Final = 2
#: I4 answers that mean "ready" (spec §11: "success" per ZO, "completed" per WS2).
DONE: Final = frozenset({"success", "completed"})
#: Seconds before each I4 poll; its length caps the polls (WS1 polls every 0.3 s, ZO 10 × 2 s).
POLL_DELAYS: Final = (0.0, 0.3, 0.5, 1.0, 2.0, 2.0, 3.0, 5.0, 5.0)
#: The CDN host for URLs derived from the object key (any pic1–4/x host serves it).
CDN: Final = "https://pic4.zhimg.com"


def upload(api: ZhihuApi, prepared: PreparedImage) -> UploadedAsset:
    """Upload one prepared image for ``api``'s account; return its zhimg URL and id."""
    md5 = prepared.md5
    announced = api.announce_image(md5)
    upload_file = announced.get("upload_file") if isinstance(announced, Mapping) else None
    if not isinstance(upload_file, Mapping) or not upload_file.get("image_id"):
        raise PermanentError(
            "Zhihu POST /images answered without upload_file.image_id; Zhihu may have changed "
            "its image upload, report it",
            channel=CHANNEL,
            code="images",
        )
    image_id = str(upload_file["image_id"])
    object_key = str(upload_file.get("object_key") or f"v2-{md5}")
    if _int(upload_file.get("state")) != STATE_KNOWN:
        token = announced.get("upload_token")
        if not isinstance(token, Mapping):
            raise PermanentError(
                "Zhihu POST /images asked for an upload but gave no upload_token",
                channel=CHANNEL,
                code="images",
            )
        _put(api, prepared, object_key, token)
        refused = api.confirm_image(image_id)
        if refused:
            _warn_unconfirmed(api, refused)
        status = _wait(api, image_id, put_here=True)
    else:
        status = _wait(api, image_id)
    return UploadedAsset(url=_url_of(status, object_key, prepared.mime), media_id=image_id)


def _put(api: ZhihuApi, prepared: PreparedImage, object_key: str, token: Mapping[str, Any]) -> None:
    """I2 with the short-lived STS token I1 handed out, which is a secret from now on."""
    for name in ("access_key", "access_token"):
        api.http.register_secret(str(token.get(name) or ""))
    user_agent = browser_headers("-", None)["User-Agent"]
    headers = {
        **oss_headers(object_key, prepared.mime, token, now=api.clock()),
        "User-Agent": user_agent,
    }
    try:
        api.put_image(object_key, prepared.data, headers)
    except ClockSkewed as skewed:
        # This machine's clock is off: signed once more with the OSS host's own time, as
        # the browser's uploader does (see check_oss); a second refusal says to fix it.
        if skewed.server_time is None:
            raise
        log.warning(
            "this machine's clock is %.0f s off the clock of Zhihu's image host; the upload "
            "is signed with the host's time — set the clock right (NTP)",
            api.clock() - skewed.server_time,
        )
        again = oss_headers(object_key, prepared.mime, token, now=skewed.server_time)
        api.put_image(object_key, prepared.data, {**again, "User-Agent": user_agent})


def _warn_unconfirmed(api: ZhihuApi, said: str) -> None:
    """Say once per run and account that Zhihu refused I3: the spec marks it optional and
    unconfirmed (ZO's plain uploads skip it), so the upload goes on to I4, which knows an
    image by its ``original_hash`` alone. A warning per image would only repeat it."""
    api.memo.get(
        ("zhihu-i3-refused", api.account_key),
        lambda: log.warning(
            "Zhihu refused the upload confirmation of %s's images (PUT "
            "/images/…/uploading_status: %s); the spec marks that call optional, so the "
            "uploads go on without it — report it if an image then does not show",
            api.account_key,
            said,
        ),
    )


def _wait(api: ZhihuApi, image_id: str, *, put_here: bool = False) -> Mapping[str, Any]:
    """I4 until the image is processed (injected sleep, growing pauses).

    ``put_here``: this upload put the bytes on OSS itself (I1 said state 2, the PUT was
    taken). Then an I4 that never says "ready" is no reason to fail the post: I4's
    terminal status is an open question (spec §11: "success", "completed", "anything not
    processing"), and the tools that upload this way do not wait for it at all; they put
    the URL derived from the object key in the article (Wechatsync v2 ``zhihu.ts``
    ``uploadImageBinaryInternal``: ``pic4.zhimg.com/<object_key>`` right after the PUT;
    zhihu_obsidian ``image_service.ts`` ``getZhihuImgLink``: ``picx.zhimg.com/v2-<md5>``,
    its I4 poll commented out). So the derived URL is used, with a warning. Bytes this
    upload did not send (state 1: another browser's upload) are still waited for."""
    status: Any = None
    for delay in POLL_DELAYS:
        if delay:
            api.sleep(delay)
        status = api.image_status(image_id)
        if isinstance(status, Mapping) and (
            status.get("status") in DONE
            or (status.get("status") not in ("init", "processing") and status.get("original_hash"))
        ):
            return status
    last = status.get("status") if isinstance(status, Mapping) else None
    if put_here:
        api.memo.get(
            ("zhihu-i4-pending", api.account_key),
            lambda: log.warning(
                "Zhihu still calls %s's uploaded image %s %r after %d checks (GET "
                "/images/…); the bytes are on its image host, so the article uses the "
                "address derived from their hash, as other Zhihu tools do — report it if "
                "an image then does not show",
                api.account_key,
                image_id,
                last,
                len(POLL_DELAYS),
            ),
        )
        return {}
    raise TransientError(
        f"Zhihu is still processing image {image_id} after {len(POLL_DELAYS)} checks "
        f"(last status {last!r}); "
        "run again later, the upload is not repeated",
        channel=CHANNEL,
        code="image-processing",
    )


def _url_of(status: Mapping[str, Any], object_key: str, mime: str) -> str:
    """``original_src`` when it is a plain CDN URL; else the URL every tool derives from the
    hash (signed ``auth_key`` URLs of first-time GIFs expire, so they are never kept)."""
    for name in ("original_src", "src"):
        url = status.get(name)
        if isinstance(url, str) and url.startswith("http") and not urlsplit(url).query:
            return url
    key = str(status.get("original_hash") or object_key)
    return f"{CDN}/{key}{'.gif' if mime == GIF and not key.endswith('.gif') else ''}"


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None
