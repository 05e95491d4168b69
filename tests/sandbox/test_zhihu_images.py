"""The Zhihu sandbox's images over loopback: I1 dedup by MD5, the OSS PUT, I3, I4 polling,
the zhimg CDN path and I5, as zhihu-api.md §3 (I1–I5) describes them."""

from __future__ import annotations

import base64
import hashlib
import hmac
import io
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

import pytest
import requests
from PIL import Image

from crosspost.sandbox.box import ManualClock, Sandbox

OSS_DATE = "Tue, 03 Feb 2026 08:00:00 GMT"
OSS_AGENT = "aliyun-sdk-js/6.8.0"


def picture(kind: str = "PNG", colour: tuple[int, int, int] = (40, 90, 160)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (24, 12), colour).save(out, kind)
    return out.getvalue()


@dataclass
class Zhihu:
    box: Sandbox
    web: requests.Session

    def call(self, method: str, path: str, **kwargs: Any) -> requests.Response:
        return self.web.request(method, self.box.zhihu_url + path, timeout=5, **kwargs)

    def announce(self, data: bytes) -> dict[str, Any]:
        md5 = hashlib.md5(data).hexdigest()
        answer = self.call("POST", "/images", json={"image_hash": md5, "source": "article"})
        assert answer.status_code == 200, answer.text
        return dict(answer.json())

    def put(
        self, announced: dict[str, Any], data: bytes, *, sign: bool = True, **headers: str
    ) -> requests.Response:
        """The OSS V1 PUT, signed the way spec §3 I2 writes the string to sign."""
        token = announced["upload_token"]
        key = announced["upload_file"]["object_key"]
        sent = {
            "Content-Type": "image/png",
            "x-oss-date": OSS_DATE,
            "x-oss-security-token": token["access_token"],
            "x-oss-user-agent": OSS_AGENT,
            **headers,
        }
        to_sign = (
            f"PUT\n{sent.get('Content-MD5', '')}\n{sent['Content-Type']}\n{OSS_DATE}\n"
            f"x-oss-date:{OSS_DATE}\nx-oss-security-token:{token['access_token']}\n"
            f"x-oss-user-agent:{OSS_AGENT}\n/zhihu-pics/{key}"
        )
        mac = hmac.new(token["access_key"].encode(), to_sign.encode(), hashlib.sha1).digest()
        signature = base64.b64encode(mac).decode() if sign else "bogus"
        sent.setdefault("Authorization", f"OSS {token['access_id']}:{signature}")
        return requests.put(f"{self.box.zhihu_url}/{key}", data=data, headers=sent, timeout=5)

    def poll(self, image_id: str) -> dict[str, Any]:
        return dict(self.call("GET", f"/images/{image_id}").json())


@pytest.fixture
def start() -> Iterator[Callable[..., Zhihu]]:
    """``start(**zhihu_options)``: a sandbox on fresh ports, stopped after the test."""
    with ExitStack() as stack:

        def start_zhihu(**options: Any) -> Zhihu:
            clock = ManualClock()
            box = Sandbox(clock=clock, sleep=clock.sleep, options={"zhihu": options})
            stack.enter_context(box)
            creds = box.zhihu.credentials()
            web = requests.Session()
            web.headers["Cookie"] = f"z_c0={creds['z_c0']}; _xsrf={creds['xsrf']}"
            stack.callback(web.close)
            return Zhihu(box, web)

        yield start_zhihu


@pytest.fixture
def zhihu(start: Callable[..., Zhihu]) -> Zhihu:
    return start()


def test_new_bytes_are_uploaded_processed_and_served_back(start: Callable[..., Zhihu]) -> None:
    zhihu = start(image_polls=2)
    data = picture()
    md5 = hashlib.md5(data).hexdigest()
    announced = zhihu.announce(data)
    upload = announced["upload_file"]
    assert announced["upload_vendor"] == "ali"
    assert (upload["state"], upload["object_key"]) == (2, f"v2-{md5}")
    assert set(announced["upload_token"]) == {
        "access_id",
        "access_key",
        "access_token",
        "access_timestamp",
    }
    assert zhihu.poll(upload["image_id"])["status"] == "init"
    stored = zhihu.put(announced, data)
    assert stored.status_code == 200 and stored.headers["ETag"] == f'"{md5.upper()}"'
    statuses = [zhihu.poll(upload["image_id"])["status"] for _ in range(3)]
    assert statuses == ["processing", "processing", "success"]
    done = zhihu.poll(upload["image_id"])
    assert done["src"] == done["original_src"] == f"https://pic1.zhimg.com/v2-{md5}"
    assert done["original_hash"] == f"v2-{md5}"
    served = requests.get(f"{zhihu.box.zhihu_url}/v2-{md5}", timeout=5)
    assert served.content == data and served.headers["Content-Type"] == "image/png"
    assert requests.get(f"{zhihu.box.zhihu_url}/80/v2-{md5}_720w.png", timeout=5).content == data


def test_the_same_bytes_again_need_no_upload(start: Callable[..., Zhihu]) -> None:
    zhihu = start(image_polls=0)
    data = picture()
    first = zhihu.announce(data)
    zhihu.put(first, data)
    assert zhihu.poll(first["upload_file"]["image_id"])["status"] == "success"
    again = zhihu.announce(data)
    assert again["upload_file"]["state"] == 1
    assert again["upload_file"]["image_id"] == first["upload_file"]["image_id"]
    assert zhihu.poll(again["upload_file"]["image_id"])["status"] == "success"
    puts = [r for r in zhihu.box.requests if r.method == "PUT"]
    assert len(puts) == 1 and len(zhihu.box.zhihu.snapshot()["images"]) == 1


def test_an_announced_image_never_uploaded_still_asks_for_the_bytes(zhihu: Zhihu) -> None:
    data = picture()
    first = zhihu.announce(data)
    assert zhihu.announce(data)["upload_file"] == first["upload_file"]  # state 2 again


def test_a_gif_carries_its_extension_on_the_cdn_url(start: Callable[..., Zhihu]) -> None:
    zhihu = start(image_polls=0)
    data = picture("GIF")
    announced = zhihu.announce(data)
    zhihu.put(announced, data, **{"Content-Type": "image/gif"})
    src = zhihu.poll(announced["upload_file"]["image_id"])["src"]
    assert src == f"https://pic1.zhimg.com/{announced['upload_file']['object_key']}.gif"


def test_the_upload_confirmation_ends_processing_at_once(start: Callable[..., Zhihu]) -> None:
    zhihu = start(image_polls=5)
    data = picture()
    announced = zhihu.announce(data)
    image_id = announced["upload_file"]["image_id"]
    early = zhihu.call(
        "PUT", f"/images/{image_id}/uploading_status", json={"upload_result": "success"}
    )
    assert early.status_code == 400
    zhihu.put(announced, data)
    done = zhihu.call(
        "PUT", f"/images/{image_id}/uploading_status", json={"upload_result": "success"}
    )
    assert done.json()["status"] == "success"


def test_images_can_wait_for_the_confirmation(start: Callable[..., Zhihu]) -> None:
    zhihu = start(require_upload_status=True, image_polls=0, image_done_status="completed")
    data = picture()
    announced = zhihu.announce(data)
    image_id = announced["upload_file"]["image_id"]
    zhihu.put(announced, data)
    assert [zhihu.poll(image_id)["status"] for _ in range(3)] == ["processing"] * 3
    zhihu.call("PUT", f"/images/{image_id}/uploading_status", json={"upload_result": "success"})
    assert zhihu.poll(image_id)["status"] == "completed"


@pytest.mark.parametrize(
    ("change", "status", "code"),
    [
        ({"sign": False}, 200, None),  # the signature is only checked when switched on
        ({"Authorization": ""}, 403, "AccessDenied"),
        ({"x-oss-security-token": "stolen"}, 403, "InvalidSecurityToken"),
        ({"Content-MD5": "AAAAAAAAAAAAAAAAAAAAAA=="}, 400, "InvalidDigest"),
    ],
)
def test_the_oss_host_answers_aliyun_xml(
    zhihu: Zhihu, change: dict[str, Any], status: int, code: str | None
) -> None:
    data = picture()
    answer = zhihu.put(zhihu.announce(data), data, **change)
    assert answer.status_code == status
    if code:
        assert f"<Code>{code}</Code>" in answer.text
        assert zhihu.box.requests[-1].errcode == code


def test_a_checked_signature_must_match(start: Callable[..., Zhihu]) -> None:
    zhihu = start(verify_oss_signature=True)
    data = picture()
    announced = zhihu.announce(data)
    refused = zhihu.put(announced, data, sign=False)
    assert refused.status_code == 403 and "SignatureDoesNotMatch" in refused.text
    assert zhihu.put(announced, data).status_code == 200


def test_a_put_dated_far_from_the_oss_clock_is_refused_naming_the_servers_time(
    start: Callable[..., Zhihu],
) -> None:
    # Aliyun: more than 15 minutes apart is 403 RequestTimeTooSkewed with <ServerTime>.
    zhihu = start(oss_clock_ahead=0)  # the sandbox's clock (2026-09) against OSS_DATE (2026-02)
    data = picture()
    refused = zhihu.put(zhihu.announce(data), data)
    assert refused.status_code == 403 and "<Code>RequestTimeTooSkewed</Code>" in refused.text
    assert "<ServerTime>2026-" in refused.text and refused.headers["Date"].endswith("GMT")


def test_a_too_large_image_is_refused_when_a_limit_is_set(start: Callable[..., Zhihu]) -> None:
    zhihu = start(image_max_bytes=10)
    data = picture()
    answer = zhihu.put(zhihu.announce(data), data)
    assert answer.status_code == 400 and "EntityTooLarge" in answer.text


@pytest.mark.parametrize("image_hash", ["", "xyz", 42, "0" * 31])
def test_an_announcement_without_an_md5_is_malformed(zhihu: Zhihu, image_hash: Any) -> None:
    answer = zhihu.call("POST", "/images", json={"image_hash": image_hash})
    assert answer.status_code == 400
    assert answer.json()["error"]["name"] == "MalformRequestException"


def test_image_calls_need_the_login(zhihu: Zhihu) -> None:
    answer = requests.post(
        f"{zhihu.box.zhihu_url}/images", json={"image_hash": "0" * 32}, timeout=5
    )
    assert answer.status_code == 401 and answer.json()["error"]["code"] == 101


@pytest.mark.parametrize(
    ("url", "ok"),
    [
        ("https://example.org/figure.png", True),
        ("images/figure.png", False),
        ("https://raw.githubusercontent.com/a/b/main/x.png", False),
        ("", False),
    ],
)
def test_an_image_by_url_needs_an_address_zhihu_can_fetch(zhihu: Zhihu, url: str, ok: bool) -> None:
    answer = zhihu.call("POST", "/api/uploaded_images", data={"url": url, "source": "article"})
    if ok:
        assert answer.json()["src"].startswith("https://pic1.zhimg.com/v2-")
        assert answer.json()["hash"].startswith("v2-")
    else:
        assert answer.status_code == 400
        assert answer.json()["error"]["message"] == "图片地址不合法"


def test_unknown_images_and_pictures_are_404(zhihu: Zhihu) -> None:
    assert zhihu.call("GET", "/images/1234567890123456789").status_code == 404
    assert requests.get(f"{zhihu.box.zhihu_url}/v2-{'0' * 32}.png", timeout=5).status_code == 404
