"""WeChat images and permanent material: ``media/uploadimg``, ``material/*`` (spec §3–§4).

Uploads are multipart with the part named ``media`` (read by
:mod:`crosspost.sandbox.multipart`). The file type is judged by its extension *and* its
first bytes, the way the platform refuses a PNG renamed to ``.gif``. Accepted images get
an ``http://mmbiz.qpic.cn/mmbiz_<ext>/…`` URL, which the emulator serves back under
``<base>/mmbiz.qpic.cn/…``.
"""

from __future__ import annotations

import hashlib
import string
from typing import Any

from werkzeug.wrappers import Response

from crosspost.sandbox.multipart import file_part
from crosspost.sandbox.wechat.state import WeChatAccount
from crosspost.sandbox.wechat.wire import ApiError, Call

IMAGE_HOST = "http://mmbiz.qpic.cn"
MIME = {"jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif", "bmp": "image/bmp"}
#: extension -> the format its bytes must have
EXTENSIONS = {"jpg": "jpeg", "jpeg": "jpeg", "png": "png", "gif": "gif", "bmp": "bmp"}
MATERIAL_FORMATS = {
    "image": {"jpeg", "png", "gif", "bmp"},
    "thumb": {"jpeg"},
}
MEDIA_EXTENSIONS = {"voice": {"mp3", "wma", "wav", "amr"}, "video": {"mp4"}}


def sniff(data: bytes) -> str | None:
    """The image format the bytes start with (None for anything else, WebP included)."""
    if data.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "gif"
    if data.startswith(b"BM"):
        return "bmp"
    return None


def _media(call: Call) -> tuple[str, bytes]:
    """(lower-case extension, bytes) of the ``media`` part: 41005 missing, 40005 no extension."""
    upload = file_part(call.request, "media")
    if upload is None:
        raise ApiError(41005)
    data = upload.data
    if not data:
        raise ApiError(41005)
    name = upload.filename
    if "." not in name:
        raise ApiError(40005)
    return name.rsplit(".", 1)[1].lower(), data


def _image_format(ext: str, data: bytes, allowed: set[str]) -> str:
    wanted = EXTENSIONS.get(ext)
    if wanted is None or wanted not in allowed:
        raise ApiError(40005)
    actual = sniff(data)
    if actual is None:
        raise ApiError(40137)
    if actual != wanted:
        raise ApiError(40005)
    return actual


def store_image(account: WeChatAccount, data: bytes, fmt: str, kind: str) -> str:
    """Keep the bytes, return the mmbiz URL that names them."""
    short = "jpg" if fmt == "jpeg" else fmt
    while True:
        key = f"mmbiz_{short}/{account.random_text(54)}/0"
        if key not in account.images:
            break
    url = f"{IMAGE_HOST}/{key}?wx_fmt={fmt}"
    account.images[key] = {"url": url, "mime": MIME[fmt], "data": data, "kind": kind}
    return url


def serve_image(account: WeChatAccount, key: str) -> Response:
    """GET ``/mmbiz.qpic.cn/<key>``: the bytes of an uploaded image, or a plain 404."""
    image = account.images.get(key)
    if image is None:
        return Response("not found", status=404, mimetype="text/plain")
    response = Response(image["data"], mimetype=image["mime"])
    response.set_etag(hashlib.sha256(image["data"]).hexdigest())
    return response


def upload_image(account: WeChatAccount, call: Call) -> dict[str, Any]:
    """``media/uploadimg``: jpg/png under 1 MB; the image is not a material."""
    ext, data = _media(call)
    fmt = _image_format(ext, data, {"jpeg", "png"})
    if len(data) >= int(account.opt("uploadimg_max_bytes")):
        raise ApiError(40009)
    return {"url": store_image(account, data, fmt, "uploadimg"), "errcode": 0, "errmsg": "ok"}


def add_material(account: WeChatAccount, call: Call) -> dict[str, Any]:
    """``material/add_material?type=``: image (10 MB), thumb (64 KB jpg), voice, video."""
    kind = call.request.args.get("type", "")
    if kind not in ("image", "thumb", "voice", "video"):
        raise ApiError(40004)
    ext, data = _media(call)
    url: str | None = None
    if kind in MATERIAL_FORMATS:
        fmt = _image_format(ext, data, MATERIAL_FORMATS[kind])
        if kind == "image" and len(data) > int(account.opt("image_max_bytes")):
            raise ApiError(40009)
        if kind == "thumb" and len(data) > int(account.opt("thumb_max_bytes")):
            raise ApiError(40012)
        url = store_image(account, data, fmt, kind)
    else:
        if ext not in MEDIA_EXTENSIONS[kind]:
            raise ApiError(40005)
        if len(data) > int(account.opt(f"{kind}_max_bytes")):
            raise ApiError(40006)
    alphabet = string.ascii_letters + string.digits + "_-"
    media_id = account.random_text(64, alphabet)
    account.materials[media_id] = {
        "type": kind,
        "url": url,
        "size": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
        "create_time": int(call.now),
    }
    return {"media_id": media_id, "url": url} if kind == "image" else {"media_id": media_id}


def del_material(account: WeChatAccount, call: Call) -> dict[str, Any]:
    """``material/del_material``: 40007 for an id that is not (or no longer) there."""
    media_id = call.json().get("media_id")
    material = account.materials.pop(media_id, None) if isinstance(media_id, str) else None
    if material is None:
        raise ApiError(40007)
    if material["url"]:
        key = material["url"].split("://", 1)[1].split("/", 1)[1].split("?", 1)[0]
        account.images.pop(key, None)
    return {"errcode": 0, "errmsg": "ok"}


def material_count(account: WeChatAccount, call: Call) -> dict[str, Any]:
    """``material/get_materialcount``: permanent material per type (news is always 0)."""
    counts = {f"{kind}_count": 0 for kind in ("voice", "video", "image")}
    for material in account.materials.values():
        if material["type"] != "thumb":
            counts[f"{material['type']}_count"] += 1
    return {**counts, "news_count": 0}
