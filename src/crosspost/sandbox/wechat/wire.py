"""The WeChat wire format every module of the emulator speaks: error codes, one call.

The lowest of the emulator's modules: the account state, the endpoints and the emulator
all raise :class:`ApiError` and read a :class:`Call`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from werkzeug.wrappers import Request

ERRMSG: dict[int, str] = {
    -1: "system error",
    40001: "invalid credential, access_token is invalid or not latest",
    40002: "invalid grant_type",
    40003: "invalid openid",
    40004: "invalid media type",
    40005: "invalid file type",
    40006: "invalid file size",
    40007: "invalid media_id",
    40009: "invalid image size",
    40012: "invalid thumb size",
    40013: "invalid appid",
    40014: "invalid access_token",
    40033: "invalid charset. please check your request, if include \\uxxxx will create fail!",
    40097: "invalid args",
    40125: "invalid appsecret",
    40137: "invalid image format",
    41001: "access_token missing",
    41002: "appid missing",
    41004: "appsecret missing",
    41005: "media data missing",
    42001: "access_token expired",
    43001: "require GET method",
    43002: "require POST method",
    44002: "empty post data",
    44003: "empty news data",
    45002: "content size out of limit",
    45003: "title size out of limit",
    45004: "description size out of limit",
    45005: "content_source_url size out of limit",
    45008: "article size out of limit",
    45009: "reach max api daily quota limit",
    45011: "api minute-quota reach limit mustslower retry next minute",
    45028: "has no masssend quota",
    45065: "clientmsgid exist",
    45066: "same clientmsgid retry too fast",
    45067: "clientmsgid size out of limit",
    45110: "author size out of limit",
    45159: "invalid tag id",
    45166: "invalid content",
    47001: "data format error",
    48001: "api unauthorized",
    48006: "forbid to clear quota because of reaching the limit",
    53502: "Publish ID 无效",
    53600: "Article ID 无效",
    76021: "cgi_path not found, please check",
    76022: "could not use this cgi_path, no permission",
}

#: Quota days start at midnight in Beijing (UTC+8).
BEIJING = 8 * 3600


class ApiError(Exception):
    """A WeChat error answer (HTTP 200 + errcode/errmsg, and ``extra`` fields some errors
    carry, such as the first send's ``msg_id`` beside 45065)."""

    def __init__(
        self, errcode: int, errmsg: str | None = None, *, extra: Mapping[str, Any] | None = None
    ) -> None:
        super().__init__(errcode)
        self.errcode = errcode
        self.errmsg = errmsg or ERRMSG.get(errcode, "error")
        self.extra = dict(extra or {})


@dataclass(frozen=True)
class Call:
    """One authorised request, as handlers see it."""

    request: Request
    path: str
    now: float
    token: str | None

    def json(self) -> dict[str, Any]:
        """The JSON body: 44002 when empty, 47001 when it is not a JSON object."""
        raw = self.request.get_data()
        if not raw.strip():
            raise ApiError(44002)
        try:
            data = json.loads(raw)
        except ValueError:
            raise ApiError(47001) from None
        if not isinstance(data, dict):
            raise ApiError(47001)
        return data


def stored(
    table: Mapping[str, dict[str, Any]], body: Mapping[str, Any], field: str, errcode: int
) -> tuple[str, dict[str, Any]]:
    """The record ``body[field]`` names in ``table``, or the platform's error for a bad id."""
    key = body.get(field)
    record = table.get(key) if isinstance(key, str) else None
    if not isinstance(key, str) or record is None:
        raise ApiError(errcode)
    return key, record
