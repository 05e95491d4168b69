"""The Zhihu sandbox over loopback with plain ``requests``: login, drafts, publishing,
topics and columns, as zhihu-api.md §3–§6 describes them."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

import pytest
import requests

from crosspost.sandbox.box import ManualClock, Sandbox

BODY = "<p>这是一段足够长的正文，用来发布到知乎专栏。</p>"


@dataclass
class Zhihu:
    """One running sandbox and a logged-in browser-like session on its Zhihu server."""

    box: Sandbox
    clock: ManualClock
    web: requests.Session

    def call(self, method: str, path: str, **kwargs: Any) -> requests.Response:
        return self.web.request(method, self.box.zhihu_url + path, timeout=5, **kwargs)

    def draft(self, **fields: Any) -> str:
        answer = self.call("POST", "/api/articles/drafts", json={"delta_time": 0, **fields})
        assert answer.status_code == 200, answer.text
        return str(answer.json()["id"])

    def publish(self, draft_id: str | None, **data: Any) -> requests.Response:
        body: dict[str, Any] = {"hybridInfo": {}, **data}
        if draft_id is not None:
            body["draft"] = {"disabled": 1, "id": draft_id, "isPublished": False}
        return self.call(
            "POST", "/api/v4/content/publish", json={"action": "article", "data": body}
        )


def cookie_session(z_c0: str, xsrf: str | None = None, d_c0: str | None = None) -> requests.Session:
    web = requests.Session()
    cookie = f"z_c0={z_c0}" + (f"; d_c0={d_c0}" if d_c0 else "")
    web.headers["Cookie"] = cookie + (f"; _xsrf={xsrf}" if xsrf else "")
    return web


@pytest.fixture
def start() -> Iterator[Callable[..., Zhihu]]:
    """``start(**zhihu_options)``: a sandbox on fresh ports, stopped after the test."""
    with ExitStack() as stack:

        def start_zhihu(**options: Any) -> Zhihu:
            clock = ManualClock()
            box = Sandbox(clock=clock, sleep=clock.sleep, options={"zhihu": options})
            stack.enter_context(box)
            web = cookie_session(**box.zhihu.credentials())
            stack.callback(web.close)
            return Zhihu(box, clock, web)

        yield start_zhihu


@pytest.fixture
def zhihu(start: Callable[..., Zhihu]) -> Zhihu:
    return start()


def error_of(answer: requests.Response) -> dict[str, Any]:
    body = answer.json()
    assert "Traceback" not in answer.text
    assert set(body) == {"error"}, body
    return dict(body["error"])


# --- login ---------------------------------------------------------------------------


def test_the_login_ticket_has_zhihus_layout_and_is_new_for_every_sandbox(
    start: Callable[..., Zhihu],
) -> None:
    first, second = start(), start()
    ticket = first.box.zhihu.credentials()["z_c0"]
    assert re.fullmatch(r"2\|1:0\|10:\d{10}\|4:z_c0\|92:[A-Za-z0-9+/=]{92}\|[0-9a-f]{64}", ticket)
    assert ticket != second.box.zhihu.credentials()["z_c0"]
    assert ticket in first.box.zhihu.secrets()


@pytest.mark.parametrize(
    ("cookie", "code", "message"),
    [
        (None, 101, "身份未经过验证"),
        ("2|1:0|10:1790000000|4:z_c0|3:abc|ffff", 101, "身份未经过验证"),
        ("not-a-ticket", 100, "ERR_PARSE_LOGIN_TICKET"),
    ],
)
def test_a_missing_or_unknown_login_is_refused_with_401(
    zhihu: Zhihu, cookie: str | None, code: int, message: str
) -> None:
    web = cookie_session(cookie) if cookie else requests.Session()
    answer = web.get(zhihu.box.zhihu_url + "/api/v4/me", timeout=5)
    assert answer.status_code == 401
    assert error_of(answer)["code"] == code
    assert error_of(answer)["message"] == message


def test_an_expired_ticket_answers_code_100_and_a_new_login_works(zhihu: Zhihu) -> None:
    fresh = zhihu.box.zhihu.expire_ticket()
    answer = zhihu.call("GET", "/api/v4/me")
    assert answer.status_code == 401
    assert error_of(answer) == {
        "code": 100,
        "name": "AuthenticationInvalidRequest",
        "message": "ERR_LOGIN_TICKET_EXPIRED",
    }
    assert cookie_session(fresh).get(zhihu.box.zhihu_url + "/api/v4/me", timeout=5).ok


def test_the_same_member_logs_in_again_in_another_browser_or_instead(zhihu: Zhihu) -> None:
    """A second z_c0 of one member: both work (two browsers), or only the new one (a new
    login); ``/api/v4/me`` names the same member under each. Over HTTP too."""
    me = zhihu.call("GET", "/api/v4/me").json()
    first = zhihu.box.zhihu.credentials()["z_c0"]
    second = zhihu.box.zhihu.log_in_again(keep_old=True)
    assert second != first and zhihu.box.zhihu.credentials()["z_c0"] == second
    for ticket in (first, second):
        answer = cookie_session(ticket).get(zhihu.box.zhihu_url + "/api/v4/me", timeout=5)
        assert (answer.json()["id"], answer.json()["url_token"]) == (me["id"], me["url_token"])

    control = f"{zhihu.box.zhihu_url}/__sandbox__/zhihu/login"
    third = requests.post(control, json={"keep_old": False}, timeout=5).json()["z_c0"]
    assert cookie_session(third).get(zhihu.box.zhihu_url + "/api/v4/me", timeout=5).ok
    for ticket in (first, second):  # ended, as a logout ends them
        answer = cookie_session(ticket).get(zhihu.box.zhihu_url + "/api/v4/me", timeout=5)
        assert answer.status_code == 401 and error_of(answer)["code"] == 101
    assert requests.post(control, json={"keep_old": "yes"}, timeout=5).status_code == 400
    assert {first, second, third} <= set(zhihu.box.zhihu.secrets())


def test_a_ticket_older_than_its_lifetime_expires(start: Callable[..., Zhihu]) -> None:
    zhihu = start(ticket_ttl=3600)
    assert zhihu.call("GET", "/api/v4/me").status_code == 200
    zhihu.clock.advance(3601)
    assert error_of(zhihu.call("GET", "/api/v4/me"))["code"] == 100


def test_me_names_the_logged_in_user(zhihu: Zhihu) -> None:
    me = zhihu.call("GET", "/api/v4/me").json()
    assert me["id"] and me["url_token"] == "sandbox-editor" and me["type"] == "people"
    assert me["articles_count"] == 0


@pytest.mark.parametrize(
    ("mode", "header", "status"),
    [("if_present", "wrong", 403), ("if_present", None, 200), ("required", None, 403)],
)
def test_xsrf_checking_is_a_switch(
    start: Callable[..., Zhihu], mode: str, header: str | None, status: int
) -> None:
    zhihu = start(xsrf=mode)
    headers = {"x-xsrftoken": header} if header else {}
    answer = zhihu.call("POST", "/api/articles/drafts", json={}, headers=headers)
    assert answer.status_code == status
    right = {"x-xsrftoken": zhihu.box.zhihu.credentials()["xsrf"]}
    assert zhihu.call("POST", "/api/articles/drafts", json={}, headers=right).ok


# --- drafts --------------------------------------------------------------------------


def test_a_draft_is_created_patched_read_and_deleted(zhihu: Zhihu) -> None:
    created = zhihu.call("POST", "/api/articles/drafts", json={"title": "T", "content": BODY})
    draft = created.json()
    assert re.fullmatch(r"\d{19}", draft["id"]) and isinstance(draft["id"], str)
    assert draft["url"] == f"https://zhuanlan.zhihu.com/p/{draft['id']}"
    assert (draft["state"], draft["type"], draft["content"]) == ("draft", "article_draft", "")
    path = f"/api/articles/{draft['id']}/draft"
    assert zhihu.call("GET", path).json()["content"] == BODY
    patch = {
        "title": "新标题",
        "titleImage": "https://pic4.zhimg.com/v2-cover.png",
        "isTitleImageFullScreen": True,
        "table_of_contents": True,
        "delta_time": 30,
    }
    assert zhihu.call("PATCH", path, json=patch).json()["title"] == "新标题"
    stored = zhihu.call("GET", path).json()
    assert stored["title_image"] == "https://pic4.zhimg.com/v2-cover.png"
    assert stored["is_title_image_full_screen"] is True
    assert stored["settings"]["table_of_contents"] == {"enabled": True}
    assert zhihu.call("DELETE", path).ok
    gone = zhihu.call("GET", path)
    assert gone.status_code == 404 and error_of(gone)["code"] == 404


def test_every_create_makes_a_new_draft(zhihu: Zhihu) -> None:
    ids = {zhihu.draft(title="同一篇") for _ in range(3)}
    assert len(ids) == 3
    assert len(zhihu.box.zhihu.snapshot()["drafts"]) == 3


# --- publishing ----------------------------------------------------------------------


def test_publish_answers_the_envelope_with_result_as_a_json_string(zhihu: Zhihu) -> None:
    draft_id = zhihu.draft(title="第一篇", content=BODY)
    answer = zhihu.publish(draft_id)
    assert answer.status_code == 200
    envelope = answer.json()
    assert (envelope["code"], envelope["message"]) == (0, "success")
    assert isinstance(envelope["data"]["result"], str)
    assert json.loads(envelope["data"]["result"])["publish"]["id"] == draft_id
    assert zhihu.call("GET", f"/api/articles/{draft_id}/draft").json()["state"] == "published"
    article = zhihu.call("GET", f"/api/v4/articles/{draft_id}").json()
    assert (article["title"], article["content"], article["state"]) == ("第一篇", BODY, "published")
    assert zhihu.call("GET", "/api/v4/me").json()["articles_count"] == 1


def test_publish_takes_title_and_html_from_the_request_when_sent(zhihu: Zhihu) -> None:
    draft_id = zhihu.draft()
    params = json.dumps({"title": "参数里的标题", "content": BODY})
    zhihu.publish(draft_id, extra_info={"publisher": "pc", "pc_business_params": params})
    assert zhihu.call("GET", f"/api/v4/articles/{draft_id}").json()["title"] == "参数里的标题"
    html = "<p>改过的正文，长度也足够发布。</p>"
    zhihu.publish(draft_id, hybrid={"html": html}, title={"title": "改过的标题"})
    article = zhihu.call("GET", f"/api/v4/articles/{draft_id}").json()
    assert (article["title"], article["content"]) == ("改过的标题", html)
    [stored] = zhihu.box.zhihu.snapshot()["articles"]
    assert stored["publish_count"] == 2 and stored["id"] == draft_id


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"draft_id": None}, 4000),
        ({"draft_id": "1234567890123456789"}, 4000),
        ({"hybridInfo": []}, 1),
        ({"toFollower": []}, 1),
        ({"extra_info": {"pc_business_params": {"title": "not a string"}}}, 1),
        ({"hybrid": {"html": "<p>太短</p>"}}, 1),
        ({"hybrid": {"html": "<p>" + "长" * 100_001 + "</p>"}}, 1),
    ],
)
def test_publish_failures_are_http_200_with_a_nonzero_code(
    zhihu: Zhihu, change: dict[str, Any], code: int
) -> None:
    draft_id = zhihu.draft(title="标题", content=BODY)
    target = change.pop("draft_id", draft_id)
    answer = zhihu.publish(target, **change)
    assert answer.status_code == 200
    assert answer.json()["code"] == code and answer.json()["message"]
    assert zhihu.box.zhihu.snapshot()["articles"] == []


def test_a_wrong_action_is_a_format_error(zhihu: Zhihu) -> None:
    answer = zhihu.call("POST", "/api/v4/content/publish", json={"action": "answer", "data": {}})
    assert answer.json() == {"code": 1, "message": "内容格式错误", "toast_message": "内容格式错误"}


@pytest.mark.parametrize("title", ["", "长" * 101, "两行\n标题"])
def test_a_bad_title_is_refused_with_400_at_publish_time(zhihu: Zhihu, title: str) -> None:
    draft_id = zhihu.draft(title=title, content=BODY)  # the draft save itself passes
    answer = zhihu.publish(draft_id)
    assert answer.status_code == 400
    assert error_of(answer)["name"] == "MalformRequestException"
    assert zhihu.box.zhihu.snapshot()["articles"] == []


def test_a_title_of_exactly_100_characters_publishes(zhihu: Zhihu) -> None:
    assert zhihu.publish(zhihu.draft(title="长" * 100, content=BODY)).json()["code"] == 0


def test_required_topics_refuse_a_bare_article_until_one_is_attached(
    start: Callable[..., Zhihu],
) -> None:
    zhihu = start(require_topics=True)
    draft_id = zhihu.draft(title="标题", content=BODY)
    assert zhihu.publish(draft_id).json()["code"] == 1
    [topic] = zhihu.call("GET", "/api/autocomplete/topics", params={"token": "机器学习"}).json()
    zhihu.call("POST", f"/api/articles/{draft_id}/topics", json=topic)
    assert zhihu.publish(draft_id).json()["code"] == 0


def test_legacy_publish_is_off_by_default_and_works_when_switched_on(
    start: Callable[..., Zhihu],
) -> None:
    off = start()
    draft_id = off.draft(title="标题", content=BODY)
    assert off.call("PUT", f"/api/articles/{draft_id}/publish", json={}).status_code == 404
    on = start(legacy_publish=True)
    draft_id = on.draft(title="标题", content=BODY)
    answer = on.call("PUT", f"/api/articles/{draft_id}/publish", json={"column": None})
    assert answer.status_code == 200 and answer.json()["state"] == "published"
    too_long = on.draft(title="长" * 101, content=BODY)
    assert on.call("PUT", f"/api/articles/{too_long}/publish", json={}).status_code == 400


def test_a_deleted_article_is_gone_for_reads_patches_and_publishes(zhihu: Zhihu) -> None:
    draft_id = zhihu.draft(title="标题", content=BODY)
    zhihu.publish(draft_id)
    assert zhihu.call("DELETE", f"/api/v4/articles/{draft_id}").json() == {"success": True}
    assert zhihu.call("GET", f"/api/v4/articles/{draft_id}").status_code == 404
    assert zhihu.call("PATCH", f"/api/articles/{draft_id}/draft", json={}).status_code == 404
    assert zhihu.publish(draft_id).json()["code"] == 4000


def test_an_unpublished_draft_has_no_article_yet(zhihu: Zhihu) -> None:
    draft_id = zhihu.draft(title="标题", content=BODY)
    assert zhihu.call("GET", f"/api/v4/articles/{draft_id}").status_code == 404


# --- topics and columns --------------------------------------------------------------


def test_topics_are_found_attached_and_detached(zhihu: Zhihu) -> None:
    found = zhihu.call("GET", "/api/autocomplete/topics?token=深度学习&max_matches=5").json()
    assert found[0]["name"] == "深度学习"
    assert all(t["type"] == "topic" and isinstance(t["id"], str) for t in found)
    draft_id = zhihu.draft()
    zhihu.call("POST", f"/api/articles/{draft_id}/topics", json=found[0])
    topics = zhihu.call("GET", f"/api/articles/{draft_id}/draft").json()["topics"]
    assert [t["id"] for t in topics] == [found[0]["id"]]
    zhihu.call("DELETE", f"/api/articles/{draft_id}/topics/{found[0]['id']}")
    assert zhihu.call("GET", f"/api/articles/{draft_id}/draft").json()["topics"] == []
    unknown = zhihu.call("POST", f"/api/articles/{draft_id}/topics", json={"name": "深度学习"})
    assert unknown.status_code == 400


def test_a_published_article_is_filed_into_a_column(start: Callable[..., Zhihu]) -> None:
    zhihu = start(columns=["AI系统前沿动态"])
    listing = zhihu.call("GET", "/api/v4/members/sandbox-editor/column-contributions").json()
    [column] = [entry["column"] for entry in listing["data"]]
    assert column["title"] == "AI系统前沿动态"
    draft_id = zhihu.draft(title="标题", content=BODY)
    items = f"/api/v4/columns/{column['id']}/items"
    assert zhihu.call("POST", items, json={"type": "article", "id": draft_id}).status_code == 404
    zhihu.publish(draft_id)
    assert zhihu.call("POST", items, json={"type": "article", "id": draft_id}).ok
    article = zhihu.call("GET", f"/api/v4/articles/{draft_id}").json()
    assert article["column"]["id"] == column["id"]
    assert zhihu.call("POST", "/api/v4/columns/c_1/items", json={}).status_code == 404


# --- malformed requests --------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path", "body", "status"),
    [
        ("POST", "/api/articles/drafts", b"{not json", 400),
        ("POST", "/api/articles/drafts", b"[1, 2]", 400),
        ("POST", "/api/articles/drafts", b'{"title": 5}', 400),
        ("PATCH", "/api/articles/drafts", b"{}", 405),
        ("GET", "/api/v4/content/publish", None, 405),
        ("GET", "/api/v4/nowhere", None, 404),
        ("GET", "/api/articles/not-an-id/draft", None, 404),
        ("POST", "/api/v4/content/publish", b"", 400),
    ],
)
def test_malformed_requests_get_zhihus_error_envelope(
    zhihu: Zhihu, method: str, path: str, body: bytes | None, status: int
) -> None:
    answer = zhihu.call(method, path, data=body, headers={"Content-Type": "application/json"})
    assert answer.status_code == status
    error = error_of(answer)
    assert error["code"] == status and error["message"]
