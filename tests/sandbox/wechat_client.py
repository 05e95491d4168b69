"""A tiny WeChat caller over plain ``requests``, as a client would call the platform."""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import Any

import requests

from crosspost.sandbox.box import Sandbox


def image_bytes(fmt: str = "JPEG", size: tuple[int, int] = (40, 30), pad_to: int = 0) -> bytes:
    """A real image in ``fmt``; ``pad_to`` appends zero bytes up to that size (platforms
    judge size by bytes, and decoders ignore what follows the image)."""
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", size, (200, 60, 30)).save(out, fmt)
    data = out.getvalue()
    return data + b"\0" * max(0, pad_to - len(data))


@dataclass
class WeChat:
    """Calls the WeChat emulator the way a client would: token in the query string."""

    box: Sandbox
    session: requests.Session = field(default_factory=requests.Session)
    token: str = ""

    @property
    def url(self) -> str:
        return self.box.wechat_url

    def fetch_token(self) -> str:
        cred = self.box.wechat.credentials()
        reply = self.session.get(
            f"{self.url}/cgi-bin/token",
            params={
                "grant_type": "client_credential",
                "appid": cred["app_id"],
                "secret": cred["app_secret"],
            },
        ).json()
        self.token = reply["access_token"]
        return self.token

    def get(self, path: str, **params: Any) -> dict[str, Any]:
        params.setdefault("access_token", self.token)
        reply = self.session.get(f"{self.url}{path}", params=params, timeout=5)
        return dict(reply.json())

    def post(self, path: str, body: Any = None, *, raw: bytes | None = None, **params: Any) -> Any:
        params.setdefault("access_token", self.token)
        if raw is not None:
            reply = self.session.post(f"{self.url}{path}", params=params, data=raw, timeout=5)
        else:
            reply = self.session.post(f"{self.url}{path}", params=params, json=body, timeout=5)
        return reply.json()

    def upload(
        self, path: str, name: str, data: bytes, mime: str = "image/jpeg", **params: Any
    ) -> dict[str, Any]:
        params.setdefault("access_token", self.token)
        files = {"media": (name, data, mime)}
        reply = self.session.post(f"{self.url}{path}", params=params, files=files, timeout=5)
        return dict(reply.json())

    def cover(self) -> str:
        """A permanent image material's media_id (a valid thumb_media_id)."""
        reply = self.upload(
            "/cgi-bin/material/add_material", "cover.jpg", image_bytes(), type="image"
        )
        return str(reply["media_id"])

    def article(self, **fields: Any) -> dict[str, Any]:
        article = {
            "title": "AI系统前沿动态 第48期",
            "author": "OneFlow社区",
            "content": "<section><p>正文第一段，足够长。</p></section>",
            "thumb_media_id": self.cover(),
        }
        article.update(fields)
        return article

    def add_draft(self, **fields: Any) -> str:
        reply = self.post("/cgi-bin/draft/add", {"articles": [self.article(**fields)]})
        return str(reply["media_id"])
