"""Faults in Zhihu's own shape, 'commit then drop' on Zhihu's writes, options, the request
log and state that survives a restart — the Zhihu sandbox seen from a test over loopback."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import requests
from werkzeug.test import EnvironBuilder
from werkzeug.wrappers import Request

from crosspost.errors import UsageError
from crosspost.sandbox.box import ManualClock, Sandbox
from crosspost.sandbox.zhihu.app import ZhihuEmulator

BODY = "<p>这是一段足够长的正文，用来发布到知乎专栏。</p>"
PUBLISH = "/api/v4/content/publish"


@dataclass
class Zhihu:
    box: Sandbox
    web: requests.Session

    def call(self, method: str, path: str, **kwargs: Any) -> requests.Response:
        return self.web.request(method, self.box.zhihu_url + path, timeout=5, **kwargs)

    def draft(self) -> str:
        answer = self.call("POST", "/api/articles/drafts", json={"title": "标题", "content": BODY})
        return str(answer.json()["id"])

    def publish(self, draft_id: str) -> requests.Response:
        data = {"draft": {"disabled": 1, "id": draft_id, "isPublished": False}, "hybridInfo": {}}
        return self.call("POST", PUBLISH, json={"action": "article", "data": data})

    def fault(self, path: str, kind: str) -> None:
        self.box.faults.add("zhihu", path, kind=kind, count=1)


def session_for(box: Sandbox) -> requests.Session:
    creds = box.zhihu.credentials()
    web = requests.Session()
    web.headers["Cookie"] = f"z_c0={creds['z_c0']}; _xsrf={creds['xsrf']}"
    return web


@pytest.fixture
def start() -> Iterator[Callable[..., Zhihu]]:
    """``start(state_dir=None, **zhihu_options)``: a sandbox, stopped after the test."""
    with ExitStack() as stack:

        def start_zhihu(state_dir: Path | None = None, **options: Any) -> Zhihu:
            clock = ManualClock()
            box = Sandbox(
                clock=clock, sleep=clock.sleep, options={"zhihu": options}, state_dir=state_dir
            )
            stack.enter_context(box)
            web = session_for(box)
            stack.callback(web.close)
            return Zhihu(box, web)

        yield start_zhihu


@pytest.fixture
def zhihu(start: Callable[..., Zhihu]) -> Zhihu:
    return start()


# --- faults with Zhihu's shape -------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "status", "code"),
    [
        ("http:429", 429, 429),
        ("zhihu:40352", 403, 40352),
        ("zhihu:40362", 403, 40362),
        ("zhihu:10003", 403, 10003),
        ("zhihu:100", 401, 100),
        ("zhihu:101", 401, 101),
        ("zhihu:10001", 403, 10001),
    ],
)
def test_zhihu_faults_answer_in_the_error_envelope(
    zhihu: Zhihu, kind: str, status: int, code: int
) -> None:
    zhihu.fault("/api/v4/me", kind)
    answer = zhihu.call("GET", "/api/v4/me")
    assert answer.status_code == status
    assert answer.json()["error"]["code"] == code
    assert zhihu.call("GET", "/api/v4/me").status_code == 200  # count=1: once only
    logged = zhihu.box.requests[-2]
    assert (logged.errcode, logged.fault) == (code, kind)


def test_the_captcha_wall_names_the_page_a_human_must_visit(zhihu: Zhihu) -> None:
    zhihu.fault("/api/articles/drafts", "zhihu:40352")
    error = zhihu.call("POST", "/api/articles/drafts", json={}).json()["error"]
    assert error["need_login"] is True
    assert error["redirect"].startswith("https://www.zhihu.com/account/unhuman")
    assert zhihu.box.zhihu.snapshot()["drafts"] == []


def test_the_oss_fault_answers_in_aliyun_xml(zhihu: Zhihu) -> None:
    zhihu.fault("/v2-*", "oss:403")
    answer = requests.put(f"{zhihu.box.zhihu_url}/v2-{'a' * 32}", data=b"x", timeout=5)
    assert answer.status_code == 403 and "<Code>SignatureDoesNotMatch</Code>" in answer.text
    assert zhihu.box.requests[-1].errcode == "SignatureDoesNotMatch"


def test_a_429_can_say_when_to_come_back(start: Callable[..., Zhihu]) -> None:
    zhihu = start(retry_after=120)
    zhihu.fault("/api/v4/me", "http:429")
    assert zhihu.call("GET", "/api/v4/me").headers["Retry-After"] == "120"


@pytest.mark.parametrize(("kind", "code"), [("publish_code", 4000), ("publish_code:1", 1)])
def test_a_publish_code_fault_is_http_200_and_publishes_nothing(
    zhihu: Zhihu, kind: str, code: int
) -> None:
    draft_id = zhihu.draft()
    zhihu.fault(PUBLISH, kind)
    answer = zhihu.publish(draft_id)
    assert (answer.status_code, answer.json()["code"]) == (200, code)
    assert zhihu.call("GET", f"/api/articles/{draft_id}/draft").json()["state"] == "draft"
    assert zhihu.publish(draft_id).json()["code"] == 0


def test_kinds_that_are_not_zhihus_are_left_to_the_server(zhihu: Zhihu) -> None:
    request = Request(EnvironBuilder(method="GET", path="/api/v4/me").get_environ())
    for kind in ("errcode:-1", "token_expired", "errcode:45009", "http:503", "zhihu:77"):
        assert zhihu.box.zhihu.fault_response(kind, request) is None
    assert zhihu.box.zhihu.fault_response("publish_code", request) is None  # not the publish path
    zhihu.fault("/api/v4/me", "http:503")
    assert zhihu.call("GET", "/api/v4/me").status_code == 503


# --- commit, then drop ---------------------------------------------------------------


def test_a_dropped_draft_create_still_made_the_draft(zhihu: Zhihu) -> None:
    zhihu.fault("/api/articles/drafts", "commit_then_drop")
    with pytest.raises(requests.ConnectionError):
        zhihu.call("POST", "/api/articles/drafts", json={"title": "丢了回答"})
    [draft] = zhihu.box.zhihu.snapshot()["drafts"]
    assert draft["title"] == "丢了回答"


def test_a_dropped_publish_is_visible_to_reconciliation(zhihu: Zhihu) -> None:
    draft_id = zhihu.draft()
    zhihu.fault(PUBLISH, "commit_then_drop")
    with pytest.raises(requests.ConnectionError):
        zhihu.publish(draft_id)
    assert zhihu.call("GET", f"/api/articles/{draft_id}/draft").json()["state"] == "published"
    assert zhihu.call("GET", f"/api/v4/articles/{draft_id}").json()["title"] == "标题"


@pytest.mark.parametrize(
    ("method", "path", "mutating"),
    [
        ("POST", "/api/articles/drafts", True),
        ("PATCH", "/api/articles/1234567890123456789/draft", True),
        ("DELETE", "/api/articles/1234567890123456789/draft", True),
        ("POST", PUBLISH, True),
        ("PUT", "/api/articles/1234567890123456789/publish", True),
        ("POST", "/api/articles/1234567890123456789/topics", True),
        ("POST", "/api/v4/columns/c_1/items", True),
        ("POST", "/images", True),
        ("PUT", "/v2-" + "a" * 32, True),
        ("GET", "/api/articles/1234567890123456789/draft", False),
        ("GET", "/api/v4/me", False),
        ("GET", "/images/1234567890123456789", False),
        ("POST", "/api/v4/nowhere", False),
        ("POST", "/api/v4/me", False),
    ],
)
def test_writes_are_the_commit_then_drop_targets(method: str, path: str, mutating: bool) -> None:
    assert ZhihuEmulator().is_mutating(method, path) is mutating


# --- options, the log and state ----------------------------------------------------------


def test_alternative_readings_of_the_spec_are_switches(start: Callable[..., Zhihu]) -> None:
    zhihu = start(
        publish_result="object",
        error_envelope="top_level",
        patch_response="no_content",
        block_zhuanlan_article_read=True,
        blocked_user_agents=["Electron"],
    )
    draft_id = zhihu.draft()
    assert zhihu.call("PATCH", f"/api/articles/{draft_id}/draft", json={}).status_code == 204
    result = zhihu.publish(draft_id).json()["data"]["result"]
    assert result["publish"]["id"] == draft_id
    blocked = zhihu.call("GET", f"/api/articles/{draft_id}")
    assert blocked.status_code == 403 and blocked.json()["code"] == 10003  # top-level envelope
    electron = zhihu.call("GET", "/api/v4/me", headers={"User-Agent": "Mozilla Electron/28"})
    assert electron.json()["code"] == 10001


@pytest.mark.parametrize(
    "options",
    [{"legacy_publsh": True}, {"image_polls": "2"}, {"xsrf": "sometimes"}, {"topics": [1]}],
)
def test_a_mistyped_option_is_a_usage_error(options: dict[str, Any]) -> None:
    with pytest.raises(UsageError, match="zhihu"):
        ZhihuEmulator(options=options)


def test_options_change_at_run_time_through_the_control_endpoint(zhihu: Zhihu) -> None:
    draft_id = zhihu.draft()
    assert zhihu.call("PUT", f"/api/articles/{draft_id}/publish", json={}).status_code == 404
    control = f"{zhihu.box.zhihu_url}/__sandbox__/options"
    assert requests.post(control, json={"legacy_publish": True}, timeout=5).ok
    assert zhihu.call("PUT", f"/api/articles/{draft_id}/publish", json={}).status_code == 200
    refused = requests.post(control, json={"image_polls": -1}, timeout=5)
    assert refused.status_code == 400 and "image_polls" in refused.json()["error"]


def test_the_request_log_never_shows_the_login(zhihu: Zhihu) -> None:
    zhihu.call("GET", "/api/v4/me", params={"z_c0": zhihu.box.zhihu.credentials()["z_c0"]})
    logged = json.dumps([entry.line() for entry in zhihu.box.requests])
    for secret in zhihu.box.zhihu.secrets():
        assert secret not in logged


def test_state_survives_a_restart(start: Callable[..., Zhihu], tmp_path: Path) -> None:
    before = start(state_dir=tmp_path, image_polls=0)
    draft_id = before.draft()
    before.publish(draft_id)
    image = b"GIF89a" + bytes(range(64))
    md5 = hashlib.md5(image).hexdigest()
    announced = before.call("POST", "/images", json={"image_hash": md5}).json()
    token = announced["upload_token"]
    requests.put(
        f"{before.box.zhihu_url}/v2-{md5}",
        data=image,
        headers={
            "Authorization": f"OSS {token['access_id']}:x",
            "x-oss-security-token": token["access_token"],
        },
        timeout=5,
    )
    credentials = before.box.zhihu.credentials()
    before.box.stop()
    after = start(state_dir=tmp_path)
    assert after.box.zhihu.credentials() == credentials
    assert after.call("GET", f"/api/v4/articles/{draft_id}").json()["state"] == "published"
    assert requests.get(f"{after.box.zhihu_url}/v2-{md5}.gif", timeout=5).content == image
    again = after.call("POST", "/images", json={"image_hash": md5}).json()
    assert again["upload_file"]["state"] == 1
    snapshot = after.box.zhihu.snapshot()
    json.dumps(snapshot)  # JSON all the way down
    assert [i["content_type"] for i in snapshot["images"]] == ["image/gif"]
