"""What an answer that is not Zhihu's JSON means, as the Zhihu adapter reads it from the
sandbox over loopback: Zhihu's own login page is the login (renew the cookie), its anti-bot
page the captcha, a gateway's plain text a hiccup, a web page answering 404 an address
nothing serves. Each says so in one line, and only the hiccup is tried again.

Time is a :class:`ManualClock` shared by the sandbox, the HTTP policy and the adapter.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from crosspost.channels.base import DraftContent
from crosspost.channels.http.policy import HttpPolicy, RetryPolicy
from crosspost.channels.zhihu.adapter import ZhihuAdapter
from crosspost.config.settings import Account, Secret
from crosspost.errors import AuthError, PermanentError, TransientError
from crosspost.sandbox.box import Sandbox
from crosspost.sandbox.clock import ManualClock

BODY = "<p>这是一篇足够长的测试文章正文，用来通过知乎的字数检查。</p>"
CONTENT = DraftContent(title="AI系统前沿动态 第48期", html=BODY, options={"topics": ["人工智能"]})
ME = "/api/v4/me"
E6 = "/api/v4/content/publish"


@dataclass
class World:
    box: Sandbox
    adapter: ZhihuAdapter

    def calls(self, method: str, path: str) -> int:
        return sum(
            1
            for r in self.box.requests
            if r.platform == "zhihu" and r.method == method and r.path == path
        )


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    clock = ManualClock()
    with Sandbox(clock=clock, sleep=clock.sleep, options={"zhihu": {"xsrf": "required"}}) as box:
        creds = box.zhihu.credentials()
        account = Account(
            channel="zhihu",
            name="main",
            base_url=box.zhihu_url,
            credentials={name: Secret(value) for name, value in creds.items()},
            credential_env={"z_c0": "ZHIHU_Z_C0", "xsrf": "ZHIHU_XSRF", "d_c0": "ZHIHU_D_C0"},
        )
        http = HttpPolicy(
            clock=clock, sleep=clock.sleep, rng=lambda: 0.0, retry=RetryPolicy(max_attempts=4)
        )
        adapter = ZhihuAdapter(
            account, http=http, state_dir=tmp_path, clock=clock, sleep=clock.sleep
        )
        yield World(box, adapter)


def test_zhihus_login_page_sent_with_http_200_says_renew_the_cookie(world: World) -> None:
    world.box.faults.add("zhihu", ME, "page:signin")

    with pytest.raises(AuthError) as caught:
        world.adapter.preflight()

    assert str(caught.value) == (
        'Zhihu GET /api/v4/me: an HTML page came back (HTTP 200, "知乎 - 有问题，就会有答案") '
        "instead of Zhihu's JSON: Zhihu's own page, which it serves when the login is not "
        "accepted; the Zhihu login (z_c0 cookie) has expired or is not accepted. Log in to "
        "zhihu.com in a browser, open devtools → Application → Cookies → "
        "https://www.zhihu.com, copy the value of z_c0 into the environment variable "
        "ZHIHU_Z_C0 (and _xsrf into ZHIHU_XSRF), then run again"
    )
    assert world.calls("GET", ME) == 1  # a login is not mended by asking again


def test_zhihus_login_page_answering_a_publish_is_the_login_not_a_doubt(world: World) -> None:
    """Like a redirect to the login page: the request was not carried out, so there is
    nothing to reconcile, and E6 is not sent again."""
    draft = world.adapter.create_draft(CONTENT)
    world.box.faults.add("zhihu", E6, "page:signin")

    with pytest.raises(AuthError, match="copy the value of z_c0"):
        world.adapter.publish(draft)

    assert world.calls("POST", E6) == 1
    articles = world.box.zhihu.snapshot()["articles"]
    assert [a for a in articles if a.get("state") == "published"] == []


def test_zhihus_anti_bot_page_sent_with_http_200_wants_a_human(world: World) -> None:
    world.box.faults.add("zhihu", ME, "page:unhuman")

    with pytest.raises(PermanentError) as caught:
        world.adapter.preflight()

    assert "Zhihu 40352 (its anti-bot check page came back) on GET /api/v4/me" in str(caught.value)
    assert "pass the verification, then run again" in str(caught.value)
    assert world.calls("GET", ME) == 1


def test_a_gateways_plain_text_with_http_200_is_temporary(world: World) -> None:
    world.box.faults.add("zhihu", ME, "text:gateway")

    with pytest.raises(TransientError) as caught:
        world.adapter.preflight()

    message = str(caught.value)
    assert "plain text, as a gateway or proxy between this machine and Zhihu sends" in message
    assert "report it" not in message
    assert caught.value.exit_code == 75
    assert world.calls("GET", ME) == 4  # a read: retried like any hiccup


def test_a_gateways_text_that_passes_is_retried_away(world: World) -> None:
    world.box.faults.add("zhihu", ME, "text:gateway", count=1)

    assert world.adapter.preflight().identity

    assert world.calls("GET", ME) == 2


def test_a_web_page_answering_404_names_the_address_not_a_proxy(world: World) -> None:
    world.box.faults.add("zhihu", ME, "http:404")

    with pytest.raises(PermanentError) as caught:
        world.adapter.preflight()

    message = str(caught.value)
    assert message.startswith(
        'Zhihu GET /api/v4/me: an HTML page came back (HTTP 404, "404 Not Found") instead of '
        "Zhihu's JSON: this address answered 404 with a web page"
    )
    assert "proxy" not in message and "retrying will not help" in message
    assert world.calls("GET", ME) == 1
