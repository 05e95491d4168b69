"""In-article images (media/uploadimg) and permanent material (material/*)."""

from __future__ import annotations

import pytest
import requests

from crosspost.sandbox.box import Sandbox

from .wechat_client import WeChat, image_bytes

UPLOADIMG = "/cgi-bin/media/uploadimg"
ADD_MATERIAL = "/cgi-bin/material/add_material"


def test_uploadimg_answers_text_plain_json_and_serves_the_bytes(
    sandbox: Sandbox, wechat: WeChat
) -> None:
    data = image_bytes("PNG")
    reply = wechat.session.post(
        f"{wechat.url}{UPLOADIMG}",
        params={"access_token": wechat.token},
        files={"media": ("figure.png", data, "image/png")},
        timeout=5,
    )
    assert reply.headers["Content-Type"] == "text/plain"
    body = reply.json()
    assert body["errcode"] == 0
    assert body["url"].startswith("http://mmbiz.qpic.cn/mmbiz_png/")
    served = requests.get(sandbox.wechat_image_url(body["url"]), timeout=5)
    assert served.status_code == 200
    assert served.headers["Content-Type"] == "image/png"
    assert served.content == data
    # Not a material: the library count does not move.
    assert wechat.get("/cgi-bin/material/get_materialcount")["image_count"] == 0


def test_each_upload_gets_its_own_url(wechat: WeChat) -> None:
    data = image_bytes()
    first = wechat.upload(UPLOADIMG, "a.jpg", data)["url"]
    second = wechat.upload(UPLOADIMG, "a.jpg", data)["url"]
    assert first != second


def test_uploadimg_just_under_1mb_is_accepted(wechat: WeChat) -> None:
    assert wechat.upload(UPLOADIMG, "a.jpg", image_bytes(pad_to=1024 * 1024 - 1))["errcode"] == 0


@pytest.mark.parametrize(
    ("name", "data", "errcode"),
    [
        ("figure.gif", image_bytes("GIF"), 40005),
        ("figure.webp", image_bytes("WEBP"), 40005),
        ("figure.png", image_bytes("JPEG"), 40005),
        ("figure", image_bytes("JPEG"), 40005),
        ("figure.jpg", b"not an image at all", 40137),
        ("big.jpg", image_bytes(pad_to=1024 * 1024), 40009),
    ],
    ids=["gif", "webp", "renamed", "no-extension", "garbage", "over-1mb"],
)
def test_uploadimg_refusals(wechat: WeChat, name: str, data: bytes, errcode: int) -> None:
    assert wechat.upload(UPLOADIMG, name, data)["errcode"] == errcode


def test_uploadimg_without_media_part_is_41005(wechat: WeChat) -> None:
    reply = wechat.session.post(
        f"{wechat.url}{UPLOADIMG}",
        params={"access_token": wechat.token},
        files={"file": ("a.jpg", image_bytes(), "image/jpeg")},
        timeout=5,
    )
    assert reply.json()["errcode"] == 41005
    no_multipart = wechat.post(UPLOADIMG, raw=b"plain body")
    assert no_multipart["errcode"] == 41005


def test_add_material_image_returns_media_id_and_url(sandbox: Sandbox, wechat: WeChat) -> None:
    data = image_bytes("GIF")
    reply = wechat.upload(ADD_MATERIAL, "cover.gif", data, "image/gif", type="image")
    assert len(reply["media_id"]) == 64
    assert reply["url"].startswith("http://mmbiz.qpic.cn/mmbiz_gif/")
    assert requests.get(sandbox.wechat_image_url(reply["url"]), timeout=5).content == data
    counts = wechat.get("/cgi-bin/material/get_materialcount")
    assert counts == {"voice_count": 0, "video_count": 0, "image_count": 1, "news_count": 0}


def test_add_material_thumb_limits(sandbox: Sandbox, wechat: WeChat) -> None:
    small = wechat.upload(ADD_MATERIAL, "t.jpg", image_bytes(), type="thumb")
    assert set(small) == {"media_id"}
    big = image_bytes(pad_to=64 * 1024 + 1)
    assert wechat.upload(ADD_MATERIAL, "t.jpg", big, type="thumb")["errcode"] == 40012
    png = wechat.upload(ADD_MATERIAL, "t.png", image_bytes("PNG"), "image/png", type="thumb")
    assert png["errcode"] == 40005


def test_add_material_image_size_limit_is_configurable(sandbox: Sandbox, wechat: WeChat) -> None:
    sandbox.wechat.update_options({"image_max_bytes": 2 * 1024 * 1024})
    big = image_bytes("PNG", pad_to=2 * 1024 * 1024 + 1)
    assert wechat.upload(ADD_MATERIAL, "x.png", big, "image/png", type="image")["errcode"] == 40009


def test_add_material_needs_a_known_type(wechat: WeChat) -> None:
    assert wechat.upload(ADD_MATERIAL, "c.jpg", image_bytes(), type="news")["errcode"] == 40004
    assert wechat.upload(ADD_MATERIAL, "c.jpg", image_bytes())["errcode"] == 40004


def test_voice_material_by_extension(wechat: WeChat) -> None:
    reply = wechat.upload(ADD_MATERIAL, "v.mp3", b"ID3" + b"\0" * 100, "audio/mpeg", type="voice")
    assert "media_id" in reply
    assert wechat.get("/cgi-bin/material/get_materialcount")["voice_count"] == 1
    refused = wechat.upload(ADD_MATERIAL, "v.ogg", b"OggS", "audio/ogg", type="voice")
    assert refused["errcode"] == 40005


def test_del_material_removes_it_and_its_image(sandbox: Sandbox, wechat: WeChat) -> None:
    reply = wechat.upload(ADD_MATERIAL, "c.jpg", image_bytes(), type="image")
    deleted = wechat.post("/cgi-bin/material/del_material", {"media_id": reply["media_id"]})
    assert deleted == {"errcode": 0, "errmsg": "ok"}
    assert requests.get(sandbox.wechat_image_url(reply["url"]), timeout=5).status_code == 404
    again = wechat.post("/cgi-bin/material/del_material", {"media_id": reply["media_id"]})
    assert again["errcode"] == 40007
    assert wechat.get("/cgi-bin/material/get_materialcount")["image_count"] == 0


def test_materialcount_wants_get(wechat: WeChat) -> None:
    assert wechat.post("/cgi-bin/material/get_materialcount", {})["errcode"] == 43001
