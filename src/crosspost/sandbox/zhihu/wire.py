"""Zhihu's wire shapes for the emulator: error envelopes, OSS XML errors, ids, login tickets
and the options that settle what the spec leaves open (zhihu-api.md §11).

Kept apart from the routes so that the article and image modules share one way of saying
"no" and one reading of the options; every handler raises :class:`ZhihuError` (or
:class:`OssError` on the upload host) and the emulator turns it into bytes.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from werkzeug.wrappers import Request, Response

from crosspost.errors import UsageError

#: The public forms a client stores; they stay real even in the sandbox.
ARTICLE_URL = "https://zhuanlan.zhihu.com/p/{id}"
OSS_HOST = "zhihu-pics-upload.zhimg.com"
OSS_BUCKET = "zhihu-pics"


class ZhihuError(Exception):
    """A refusal in Zhihu's ``{"error": {...}}`` envelope (spec §5)."""

    def __init__(
        self, status: int, code: int, message: str, name: str | None = None, **extra: Any
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.name = name
        self.extra = extra

    def body(self, envelope: str) -> dict[str, Any]:
        """The JSON body; ``envelope`` is ``"wrapped"`` (real captures) or ``"top_level"``
        (also ``"top_level_200"``, whose status :meth:`status_for` makes 200)."""
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.name:
            error["name"] = self.name
        error.update(self.extra)
        return {"error": error} if envelope == "wrapped" else error

    def status_for(self, envelope: str) -> int:
        """The HTTP status of the refusal: its own, or 200 under ``"top_level_200"`` (spec
        §5: a refusal "also seen as 200 + error body")."""
        return 200 if envelope == "top_level_200" else self.status


class OssError(Exception):
    """A refusal from the Aliyun OSS upload host, which speaks XML, not Zhihu JSON."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        extra: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        #: More elements of the XML (RequestTimeTooSkewed names ServerTime), and headers.
        self.extra = dict(extra or {})
        self.headers = dict(headers or {})

    def response(self) -> Response:
        request_id = uuid.uuid4().hex[:24].upper()
        more = "".join(f"  <{name}>{value}</{name}>\n" for name, value in self.extra.items())
        xml = (
            '<?xml version="1.0" encoding="UTF-8"?>\n<Error>\n'
            f"  <Code>{self.code}</Code>\n  <Message>{self.message}</Message>\n"
            f"  <RequestId>{request_id}</RequestId>\n  <HostId>{OSS_HOST}</HostId>\n"
            f"{more}</Error>\n"
        )
        return Response(
            xml,
            status=self.status,
            content_type="application/xml",
            headers={"x-oss-request-id": request_id, **self.headers},
        )


# --- the refusals the spec documents (§5), built in one place -------------------------


def malformed(message: str) -> ZhihuError:
    """A request Zhihu cannot read (bad JSON, wrong field type, missing part)."""
    return ZhihuError(400, 400, message, "MalformRequestException")


def not_found(what: str = "资源不存在") -> ZhihuError:
    """Unknown path or id; the real body is not captured, this shape matches the others."""
    return ZhihuError(404, 404, what, "NotFoundException")


def no_login() -> ZhihuError:
    return ZhihuError(401, 101, "身份未经过验证", "AuthenticationError")


def ticket_expired() -> ZhihuError:
    return ZhihuError(401, 100, "ERR_LOGIN_TICKET_EXPIRED", "AuthenticationInvalidRequest")


def ticket_unparsable() -> ZhihuError:
    return ZhihuError(401, 100, "ERR_PARSE_LOGIN_TICKET", "AuthenticationInvalidRequest")


def anti_bot(code: int, status: int) -> ZhihuError:
    """40352 (captcha wall, needs a human) or 40362 (risk-control throttle)."""
    if code == 40352:
        return ZhihuError(
            status,
            40352,
            "系统监测到您的网络环境存在异常，请点击下方验证按钮进行验证。",
            need_login=True,
            redirect="https://www.zhihu.com/account/unhuman?type=S6E3V1&need_login=true",
        )
    return ZhihuError(status, 40362, "您当前请求存在异常，暂时限制本次访问。")


def client_rejected(code: int) -> ZhihuError:
    """10001/10003: missing request signature or an unusual client (spec §5)."""
    return ZhihuError(403, code, "请求参数异常，请升级客户端后重试")


def too_many_requests() -> ZhihuError:
    """No Zhihu 429 body was ever captured (spec §5); this one is the emulator's own."""
    return ZhihuError(429, 429, "请求过于频繁，请稍后再试", "TooManyRequests")


# --- options: every unconfirmed behaviour of spec §11 has a switch --------------------

_CHOICES: dict[str, tuple[str, ...]] = {
    "xsrf": ("off", "if_present", "required"),
    "image_done_status": ("success", "completed"),
    "error_envelope": ("wrapped", "top_level", "top_level_200"),
    "publish_result": ("string", "object", "top_level", "bare"),
    "patch_response": ("draft", "no_content"),
}


@dataclass(frozen=True)
class ZhihuOptions:
    """The emulator's switches. Defaults follow the spec's best evidence (see module doc of
    ``crosspost.sandbox.zhihu.app`` and docs/sandbox-zhihu.md for the reasoning)."""

    xsrf: str = "off"
    require_d_c0: bool = False
    legacy_publish: bool = False
    require_topics: bool = False
    image_polls: int = 1
    require_upload_status: bool = False
    image_done_status: str = "success"
    image_host: str = "pic1.zhimg.com"
    image_max_bytes: int | None = None
    verify_oss_signature: bool = False
    oss_clock_ahead: float | None = None
    sanitize: bool = True
    error_envelope: str = "wrapped"
    publish_result: str = "string"
    patch_response: str = "draft"
    blank_create_content: bool = True
    block_zhuanlan_article_read: bool = False
    blocked_user_agents: tuple[str, ...] = ()
    ticket_ttl: float | None = None
    anti_bot_status: int = 403
    retry_after: int | None = None
    title_max: int = 100
    body_min: int = 9
    body_max: int = 100_000
    topics: tuple[str, ...] = field(default=())
    columns: tuple[str, ...] = ("沙盒专栏",)

    @staticmethod
    def own(options: Mapping[str, Any]) -> dict[str, Any]:
        """The Zhihu part of ``options``: ``options["zhihu"]`` when the sandbox's options
        are keyed by platform, else ``options`` itself."""
        nested = options.get("zhihu")
        if isinstance(nested, Mapping):
            return dict(nested)
        if "wechat" in options:  # the whole sandbox's options, none of them ours
            return {}
        return dict(options)

    @classmethod
    def from_mapping(cls, options: Mapping[str, Any]) -> ZhihuOptions:
        """Read and check the options; a ``{"zhihu": {...}}`` sub-mapping is also accepted.

        A typo must not silently leave a default in place, so an unknown key or a value of
        the wrong type is a :class:`UsageError` naming the option.
        """
        options = cls.own(options)
        fields = cls.__dataclass_fields__
        unknown = sorted(set(options) - set(fields))
        if unknown:
            raise UsageError(
                f"unknown zhihu sandbox option {unknown[0]!r}; known: {sorted(fields)}"
            )
        values = {name: _checked(name, fields[name].default, v) for name, v in options.items()}
        return cls(**values)


def _checked(name: str, default: Any, value: Any) -> Any:
    """``value`` in the type of the option's default (None allowed where the default is)."""
    if name in _CHOICES and value not in _CHOICES[name]:
        raise UsageError(f"zhihu option {name}={value!r}: use one of {list(_CHOICES[name])}")
    if isinstance(default, tuple):
        value = [value] if isinstance(value, str) else value
        if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
            raise UsageError(f"zhihu option {name} takes a list of strings")
        return tuple(value)
    if default is None or (isinstance(default, int) and not isinstance(default, bool)):
        if value is None and default is None:
            return None
        kind = int | float if default is None else int
        if not isinstance(value, kind) or isinstance(value, bool) or value < 0:
            raise UsageError(f"zhihu option {name} takes a number ≥ 0, not {value!r}")
        return value
    if not isinstance(value, type(default)):
        raise UsageError(f"zhihu option {name} takes a {type(default).__name__}, not {value!r}")
    return value


# --- ids, tickets and tokens ------------------------------------------------------------


def new_id(taken: Mapping[str, Any] | set[str]) -> str:
    """A 19-digit decimal id (above 2^53, as real ones are), unique among ``taken``."""
    while True:
        candidate = str(10**18 + secrets.randbelow(9 * 10**18))
        if candidate not in taken:
            return candidate


def new_ticket(issued_at: float) -> str:
    """A login ticket in the real ``z_c0`` layout: ``2|1:0|10:<ts>|4:z_c0|92:<b64>|<hmac>``."""
    stamp = str(int(issued_at))
    payload = base64.b64encode(secrets.token_bytes(69)).decode("ascii")
    signed = f"2|1:0|{len(stamp)}:{stamp}|4:z_c0|{len(payload)}:{payload}"
    mac = hashlib.sha256(secrets.token_bytes(32) + signed.encode()).hexdigest()
    return f"{signed}|{mac}"


def ticket_issued_at(ticket: str) -> int | None:
    """The issue time inside a ``z_c0`` value, or None when it is not in the real layout."""
    parts = ticket.split("|")
    if len(parts) != 6 or parts[0] != "2" or parts[3] != "4:z_c0":
        return None
    for part in (parts[1], parts[2], parts[4]):
        size, _, value = part.partition(":")
        if not size.isdigit() or int(size) != len(value):
            return None
    stamp = parts[2].partition(":")[2]
    return int(stamp) if stamp.isdigit() else None


def new_xsrf() -> str:
    return str(uuid.uuid4())


# --- request bodies ----------------------------------------------------------------------


def json_body(request: Request, *, empty_ok: bool = False) -> dict[str, Any]:
    """The request's JSON object, or a Zhihu 400 that says what is wrong with it."""
    raw = request.get_data(cache=True)
    if not raw.strip():
        if empty_ok:
            return {}
        raise malformed("参数错误：请求体为空，需要一个 JSON 对象")
    try:
        value = json.loads(raw)
    except (UnicodeDecodeError, ValueError) as exc:
        raise malformed(f"参数错误：请求体不是合法的 JSON ({exc})") from exc
    if not isinstance(value, dict):
        raise malformed("参数错误：请求体必须是 JSON 对象")
    return value


def field_of(body: Mapping[str, Any], name: str, kind: type | tuple[type, ...]) -> Any:
    """``body[name]`` if present and of ``kind``; None when absent; 400 when mistyped."""
    value = body.get(name)
    if value is None:
        return None
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise malformed(f"参数错误：字段 {name} 的类型不对")
    return value


def json_response(
    payload: Any, status: int = 200, headers: Mapping[str, str] | None = None
) -> Response:
    """Zhihu answers UTF-8 JSON with the CJK characters unescaped."""
    return Response(
        json.dumps(payload, ensure_ascii=False),
        status=status,
        content_type="application/json; charset=utf-8",
        headers=dict(headers or {}),
    )
