"""Images of the Zhihu emulator: I1–I5, the Aliyun-OSS-style upload host and the zhimg CDN.

Zhihu deduplicates images by the MD5 of their bytes: I1 answers ``state: 1`` for a hash it
already holds (no upload needed) and ``state: 2`` plus an STS token for a new one. The
bytes then go to the OSS host at the object key ``v2-<md5>`` (the only top-level path of
that shape, so it cannot collide with ``/api/...`` or ``/images...``), I3 may confirm the
upload, and I4 is polled until processing ends. The CDN form ``https://pic1.zhimg.com/
v2-<md5>[.gif]`` is what the JSON carries; the same path on the sandbox's base URL serves
the bytes back.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from email.utils import formatdate, parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit

from werkzeug.wrappers import Request, Response

from crosspost.sandbox.zhihu.wire import (
    OSS_BUCKET,
    OssError,
    ZhihuError,
    ZhihuOptions,
    json_body,
    json_response,
    malformed,
    new_id,
    not_found,
)

_MD5 = re.compile(r"[0-9a-fA-F]{32}")
#: How far a request's date may be from the OSS host's clock (Aliyun: 15 minutes).
OSS_MAX_SKEW_SECONDS = 900
_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png", ""),
    (b"\xff\xd8\xff", "image/jpeg", ""),
    (b"GIF87a", "image/gif", ".gif"),
    (b"GIF89a", "image/gif", ".gif"),
    (b"BM", "image/bmp", ""),
)


@dataclass(frozen=True)
class Image:
    """One image Zhihu knows, keyed by the MD5 of its bytes."""

    image_id: str
    md5: str
    source: str
    #: "init" (announced by I1), "processing" (bytes received), "success" (ready).
    status: str = "init"
    data: bytes | None = None
    content_type: str = ""
    polls_left: int = 0
    source_url: str = ""
    created: int = 0

    @property
    def object_key(self) -> str:
        return f"v2-{self.md5}"

    @property
    def suffix(self) -> str:
        """GIFs carry ``.gif`` on their URL (spec §3, image URL forms); others nothing."""
        return ".gif" if self.content_type == "image/gif" else ""


@dataclass(frozen=True)
class UploadToken:
    """The STS credentials I1 hands out for one object key."""

    access_id: str
    access_key: str
    access_token: str
    access_timestamp: int
    image_id: str


def sniff(data: bytes) -> str:
    """The image type from its first bytes (WEBP has its tag at offset 8)."""
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    for magic, content_type, _ in _MAGIC:
        if data.startswith(magic):
            return content_type
    return "application/octet-stream"


def oss_string_to_sign(request: Request, object_key: str) -> str:
    """Aliyun OSS V1: verb, Content-MD5, Content-Type, date, x-oss-* headers, resource."""
    headers = sorted(
        (name.lower(), value.strip())
        for name, value in request.headers.items()
        if name.lower().startswith("x-oss-")
    )
    date = request.headers.get("Date") or request.headers.get("x-oss-date", "")
    lines = [
        request.method,
        request.headers.get("Content-MD5", ""),
        request.headers.get("Content-Type", ""),
        date,
    ]
    lines += [f"{name}:{value}" for name, value in headers]
    return "\n".join(lines) + f"\n/{OSS_BUCKET}/{object_key}"


def oss_signature(access_key: str, string_to_sign: str) -> str:
    digest = hmac.new(access_key.encode(), string_to_sign.encode(), hashlib.sha1).digest()
    return base64.b64encode(digest).decode("ascii")


class ImageDesk:
    """Image records, upload tokens and the I1–I5 / OSS / CDN handlers."""

    def __init__(self, options: ZhihuOptions, clock: Callable[[], float]) -> None:
        self.options = options
        self.clock = clock
        self.images: dict[str, Image] = {}
        self.by_md5: dict[str, str] = {}
        self.tokens: dict[str, UploadToken] = {}

    def cdn_url(self, image: Image) -> str:
        return f"https://{self.options.image_host}/{image.object_key}{image.suffix}"

    def _image(self, image_id: str) -> Image:
        image = self.images.get(image_id)
        if image is None:
            raise not_found("图片不存在")
        return image

    def _new_image(self, md5: str, source: str, **values: Any) -> Image:
        image = Image(new_id(self.images), md5, source, created=int(self.clock()), **values)
        self.images[image.image_id] = image
        self.by_md5[md5] = image.image_id
        return image

    # --- I1: announce an image by its hash -----------------------------------------------

    def announce(self, request: Request) -> Response:
        body = json_body(request)
        digest = body.get("image_hash")
        if not isinstance(digest, str) or not _MD5.fullmatch(digest):
            raise malformed("参数错误：image_hash 必须是文件内容的 32 位 MD5")
        digest = digest.lower()
        source = body.get("source") if isinstance(body.get("source"), str) else "article"
        known = self.images.get(self.by_md5.get(digest, ""))
        image = known or self._new_image(digest, str(source))
        token = UploadToken(
            access_id="STS." + secrets.token_urlsafe(18),
            access_key=secrets.token_urlsafe(30),
            access_token=secrets.token_urlsafe(96),
            access_timestamp=int(self.clock()) + 3600,
            image_id=image.image_id,
        )
        self.tokens[token.access_id] = token
        upload_file = {
            "image_id": image.image_id,
            "state": 1 if image.status != "init" else 2,
            "object_key": image.object_key,
            "publish_state": 0,
        }
        upload_token = {k: v for k, v in asdict(token).items() if k != "image_id"}
        return json_response(
            {"upload_vendor": "ali", "upload_file": upload_file, "upload_token": upload_token}
        )

    # --- I2: the OSS PUT ---------------------------------------------------------------------

    def oss_put(self, request: Request, object_key: str) -> Response:
        auth = request.headers.get("Authorization", "")
        access_id, _, signature = auth.removeprefix("OSS ").partition(":")
        if not auth.startswith("OSS ") or not signature:
            raise OssError(403, "AccessDenied", "Authorization header is missing or malformed.")
        token = self.tokens.get(access_id)
        if token is None:
            raise OssError(403, "InvalidAccessKeyId", "The OSS Access Key Id does not exist.")
        if request.headers.get("x-oss-security-token") != token.access_token:
            raise OssError(403, "InvalidSecurityToken", "The security token is not valid.")
        image = self.images[token.image_id]
        if image.object_key != object_key:
            raise OssError(403, "AccessDenied", "The token does not grant access to this key.")
        self._check_date(request)
        if self.options.verify_oss_signature:
            expected = oss_signature(token.access_key, oss_string_to_sign(request, object_key))
            if not hmac.compare_digest(expected, signature):
                raise OssError(
                    403,
                    "SignatureDoesNotMatch",
                    "The request signature we calculated does not match yours.",
                )
        data = request.get_data(cache=True)
        md5 = hashlib.md5(data)
        declared = request.headers.get("Content-MD5")
        if declared and declared != base64.b64encode(md5.digest()).decode("ascii"):
            raise OssError(400, "InvalidDigest", "The Content-MD5 you specified is not valid.")
        limit = self.options.image_max_bytes
        if limit is not None and len(data) > limit:
            raise OssError(400, "EntityTooLarge", f"The image is larger than {limit} bytes.")
        self.images[image.image_id] = replace(
            image,
            status="processing",
            data=data,
            content_type=sniff(data),
            polls_left=self.options.image_polls,
        )
        return Response(
            b"",
            status=200,
            headers={"ETag": f'"{md5.hexdigest().upper()}"', "x-oss-request-id": new_id(set())},
        )

    def _check_date(self, request: Request) -> None:
        """With ``oss_clock_ahead`` set, the request's date is held against the OSS host's
        clock (the sandbox's, that many seconds ahead), as Aliyun does: more than 15
        minutes apart is 403 RequestTimeTooSkewed naming the server's time
        (help.aliyun.com OSS error 0002-00000504); a missing or unreadable date is 403
        AccessDenied."""
        ahead = self.options.oss_clock_ahead
        if ahead is None:
            return
        now = self.clock() + float(ahead)
        sent = request.headers.get("x-oss-date") or request.headers.get("Date") or ""
        try:
            when = parsedate_to_datetime(sent).timestamp()
        except (TypeError, ValueError, IndexError):
            raise OssError(403, "AccessDenied", "The request date is missing or invalid.") from None
        if abs(when - now) > OSS_MAX_SKEW_SECONDS:
            server_time = datetime.fromtimestamp(now, UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")
            raise OssError(
                403,
                "RequestTimeTooSkewed",
                "The difference between the request time and the current time is too large.",
                extra={
                    "RequestTime": sent,
                    "ServerTime": server_time,
                    "MaxAllowedSkewMilliseconds": str(OSS_MAX_SKEW_SECONDS * 1000),
                },
                headers={"Date": formatdate(now, usegmt=True)},
            )

    # --- I3 / I4: confirm and poll ------------------------------------------------------------

    def status_view(self, image: Image) -> dict[str, Any]:
        status = self.options.image_done_status if image.status == "success" else image.status
        view: dict[str, Any] = {"status": status, "image_id": image.image_id}
        if image.status == "success":
            url = self.cdn_url(image)
            view.update(
                src=url,
                original_hash=image.object_key,
                original_src=url,
                watermark="original",
                watermark_hash=image.object_key,
                watermark_src=url,
            )
        return view

    def confirm(self, request: Request, image_id: str) -> Response:
        """I3: optional per spec §11, but it ends processing at once when it arrives."""
        image = self._image(image_id)
        if json_body(request).get("upload_result") != "success":
            raise malformed('参数错误：upload_result 必须是 "success"')
        if image.data is None and image.status == "init":
            raise ZhihuError(400, 400, "图片尚未上传", "MalformRequestException")
        image = replace(image, status="success", polls_left=0)
        self.images[image_id] = image
        return json_response(self.status_view(image))

    def poll(self, request: Request, image_id: str) -> Response:
        """I4: ``processing`` for ``image_polls`` polls after the bytes arrive, then done."""
        image = self._image(image_id)
        if image.status == "processing" and not self.options.require_upload_status:
            if image.polls_left > 0:
                image = replace(image, polls_left=image.polls_left - 1)
            else:
                image = replace(image, status="success")
            self.images[image_id] = image
        return json_response(self.status_view(image))

    # --- I5: by URL, and the CDN ------------------------------------------------------------

    def by_url(self, request: Request) -> Response:
        """I5: the emulator cannot fetch, so it accepts plausible URLs as the real one does."""
        url = request.form.get("url", "").strip()
        parts = urlsplit(url)
        fetchable = (
            parts.scheme in ("http", "https")
            and bool(parts.netloc)
            and " " not in url
            and not parts.netloc.endswith(("github.com", "githubusercontent.com"))
        )
        if not fetchable:
            raise ZhihuError(400, 400, "图片地址不合法", "MalformRequestException")
        md5 = hashlib.md5(url.encode()).hexdigest()
        image = self.images.get(self.by_md5.get(md5, ""))
        if image is None:
            source = request.form.get("source", "article")
            image = self._new_image(md5, source, status="success", source_url=url)
        return json_response({"src": self.cdn_url(image), "hash": image.object_key})

    def serve(self, request: Request, name: str, size: int | None = None) -> Response:
        """GET ``/v2-<md5>[_720w][.ext]``: the CDN path of a zhimg URL on the sandbox."""
        md5 = name[3:35].lower()
        image = self.images.get(self.by_md5.get(md5, ""))
        if image is None or image.data is None:
            return Response("Not Found", status=404, content_type="text/plain")
        return Response(image.data, content_type=image.content_type)

    # --- introspection and persistence -----------------------------------------------------

    def secrets(self) -> list[str]:
        return [s for t in self.tokens.values() for s in (t.access_key, t.access_token)]

    def snapshot(self) -> list[dict[str, Any]]:
        return [
            {
                "image_id": i.image_id,
                "object_key": i.object_key,
                "md5": i.md5,
                "status": i.status,
                "size": len(i.data) if i.data is not None else None,
                "data_md5": hashlib.md5(i.data).hexdigest() if i.data is not None else None,
                "content_type": i.content_type,
                "url": self.cdn_url(i),
                "source": i.source,
                "source_url": i.source_url,
            }
            for i in self.images.values()
        ]

    def dump(self) -> dict[str, Any]:
        images = []
        for image in self.images.values():
            raw = asdict(image)
            raw["data"] = base64.b64encode(image.data).decode() if image.data is not None else None
            images.append(raw)
        return {"images": images}

    def load(self, state: Mapping[str, Any]) -> None:
        self.images, self.by_md5, self.tokens = {}, {}, {}
        for raw in state.get("images", []):
            values = dict(raw)
            if values.get("data") is not None:
                values["data"] = base64.b64decode(values["data"])
            image = Image(**values)
            self.images[image.image_id] = image
            self.by_md5[image.md5] = image.image_id
